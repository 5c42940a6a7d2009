// A bound Job borrows the arena mutably and the blob shared: while the job lives, the
// arena cannot be written, read or freed behind its back, and the blob cannot be freed.
// Expected: E0499 (write the arena: a second mutable borrow), E0502 (read it while
// mutably borrowed), E0505 twice (move the arena and the blob out while borrowed).
use npuschema_generated::npu1::Npu1;
use npuschema_runtime::binder::Job;

fn bind_then_touch_the_arena(blob: Vec<u8>) {
    let Ok(view) = Npu1::validate(&blob) else { return };
    let mut arena = vec![0u8; 4096];
    let Ok(mut job) = Job::bind(view, &mut arena) else { return };

    arena[0] = 1; // write behind the job's back
    let peek = arena[1]; // read behind the job's back
    drop(arena); // free the arena the NPU is bound to
    drop(blob); // free the weights and command stream the job points at

    if let Some(input) = job.region_bytes_mut(0) {
        input.fill(peek);
    }
}

fn main() {
    bind_then_touch_the_arena(Vec::new());
}
