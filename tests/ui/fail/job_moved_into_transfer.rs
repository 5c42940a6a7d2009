// The job moves into the Transfer that Driver::start returns and comes back only from
// Transfer::wait, once the NPU has stopped: it cannot be read or written while the NPU
// runs, and a forgotten transfer keeps it (and its 'static arena) for good.
// Expected: E0382 (the job used after the move), E0503 and E0506 (the arena, in the job).
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

fn touch_a_running_job(blob: &'static [u8], arena: &'static mut [u8]) {
    let Ok(job) = Job::load(blob, arena) else { return };
    let Ok(job) = CheckedJob::check(job) else { return };
    let mut npu = Driver::new(Regs, NoCache, DriverOptions::default());
    let Ok(transfer) = npu.start(job) else { return };
    let _ = job.region_bytes(1); // read the arena while the NPU writes it
    core::mem::forget(transfer);
    let _ = job.region_bytes(1); // ... or after leaking the transfer
    arena[0] = 1; // the arena went into the job
}

fn main() {}
