// The driver runs only a job whose command stream was checked against its bound regions
// on the device (CheckedJob, made by CheckedJob::check, or by the unsafe
// CheckedJob::vouched): a stream that DMAs past its regions, or into a baked region the
// program holds as &[u8], cannot be started from safe code.
// Expected: E0308 twice (run and start take a CheckedJob; so does run_irq).
use npuschema_runtime::binder::Job;
use npuschema_runtime::driver::{Driver, DriverOptions, NoCache, Registers};

struct Regs;
impl Registers for Regs {
    fn read(&mut self, _: u32) -> u32 {
        0
    }
    fn write(&mut self, _: u32, _: u32) {}
}

fn unchecked(blob: &'static [u8], arena: &'static mut [u8], other: &mut [u8]) {
    let mut npu = Driver::new(Regs, NoCache, DriverOptions::default());
    let Ok(mut job) = Job::load(blob, other) else { return };
    let _ = npu.run(&mut job);
    let Ok(job) = Job::load(blob, arena) else { return };
    let _ = npu.start(job);
}

fn main() {}
