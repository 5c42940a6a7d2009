// The driver hands out no register block: no safe code can program QBASE/BASEPn and
// start the NPU on memory of its choosing. Reads are available; writes are not.
// Expected: E0599 twice (no such methods).
use npuschema_runtime::driver::regs::{BASEP0, CMD};
use npuschema_runtime::driver::{Driver, DriverOptions, NoCache, Registers};

struct Regs;
impl Registers for Regs {
    fn read(&mut self, _: u32) -> u32 {
        0
    }
    fn write(&mut self, _: u32, _: u32) {}
}

fn main() {
    let mut npu = Driver::new(Regs, NoCache, DriverOptions::default());
    let _ = npu.read_register(CMD);
    npu.registers_mut().write(BASEP0, 0x2000_0000);
    let (mut regs, _) = npu.into_parts();
    regs.write(CMD, 1);
}
