// A latch is bound to one driver: waiting on it takes its one key (IrqLatch::claim), by
// `&mut` for the whole run, so two drivers cannot share a latch (the second would consume
// the first one's wake-up), and a latch alone is not accepted.
// Expected: E0308 (a latch is not a key). The key held by a transfer:
// latch_key_is_held_by_one_driver.rs.
use npuschema_runtime::binder::Job;
use npuschema_runtime::cmd::CheckedJob;
use npuschema_runtime::driver::{Driver, DriverOptions, IrqLatch, NoCache, Registers};

struct Regs;
impl Registers for Regs {
    fn read(&mut self, _: u32) -> u32 {
        0
    }
    fn write(&mut self, _: u32, _: u32) {}
}

static LATCH: IrqLatch = IrqLatch::new();

fn two_drivers(blob: &'static [u8], a: &'static mut [u8], b: &'static mut [u8]) {
    let mut one = Driver::new(Regs, NoCache, DriverOptions::default());
    let mut two = Driver::new(Regs, NoCache, DriverOptions::default());
    let Ok(Ok(job_a)) = Job::load(blob, a).map(CheckedJob::check) else { return };
    let Ok(Ok(mut job_b)) = Job::load(blob, b).map(CheckedJob::check) else { return };
    let _ = two.run_irq(&mut job_b, &LATCH); // a latch is not its key
    let _ = (&mut one, job_a);
}

fn main() {}
