// Driver::start hands the job to the NPU and returns while it runs, so the job must own
// or borrow its memory for 'static: a transfer can be leaked (core::mem::forget is safe),
// and a leaked borrow of a local arena would end while the NPU still writes it.
// Expected: E0597 (the arena is borrowed for 'static), E0506 (then written).
use npuschema_generated::npu1::Npu1;
use npuschema_runtime::binder::Job;
use npuschema_runtime::cmd::CheckedJob;
use npuschema_runtime::driver::{Driver, DriverOptions, NoCache, Registers};

struct Regs;
impl Registers for Regs {
    fn read(&mut self, _: u32) -> u32 {
        0
    }
    fn write(&mut self, _: u32, _: u32) {}
}

fn leak_a_running_transfer(blob: &'static [u8]) {
    let Ok(view) = Npu1::validate(blob) else { return };
    let mut arena = [0u8; 4096];
    let Ok(job) = Job::bind(view, &mut arena) else { return };
    let Ok(job) = CheckedJob::check(job) else { return };
    let mut npu = Driver::new(Regs, NoCache, DriverOptions::default());
    if let Ok(transfer) = npu.start(job) {
        core::mem::forget(transfer);
    }
    arena[0] = 1; // the NPU may still be writing here
}

fn main() {
    leak_a_running_transfer(&[]);
}
