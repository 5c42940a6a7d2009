// A latch is bound to one driver at a time: the transfer that `start_irq` returns holds
// the latch's key (`&mut`) until it is done, so a second driver cannot wait on the same
// latch meanwhile (it would consume the first one's wake-up).
// Expected: E0499 (the key is already mutably borrowed by the transfer).
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
    let Some(mut key) = LATCH.claim() else { return };
    let transfer = one.start_irq(job_a, &mut key);
    let _ = two.run_irq(&mut job_b, &mut key); // the key is in use by `one`
    drop(transfer);
}

fn main() {}
