//! Two independent NPU1 loaders written from the document, held against each other on
//! arbitrary input: the binrw reference reader (`npuschema_refreader::npu1`) and
//! the C peer (`peers/npu1_ref.c`). Same verdict (the same failed rule, allowing for the
//! C peer's extra 8-region limit and its per-descriptor interleaving of the BAKED and
//! RUNTIME checks), and on success the same bindings.
//!
//! Input: `npuschema_fuzz::Npu1Input` (the same seeds as the other NPU1 targets). Without
//! the C peer (`npuschema_cpeer::available()` false) every input is a no-op.
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_cpeer as cpeer;
use npuschema_refreader::npu1::{self, Binding};

fuzz_target!(|data: &[u8]| {
    let Some(mut input) = npuschema_fuzz::Npu1Input::parse(data) else {
        return;
    };
    let (blob, arena) = input.parts();
    let mut job = cpeer::Job::default();
    let Some(rc) = cpeer::load(blob, arena, &mut job) else {
        return; // The C peer was not compiled: nothing to hold the reference against.
    };
    let c_rule = cpeer::rule(rc);
    let arena_len = arena.len();
    let arena_addr = arena.as_ptr() as u64;

    let read = npu1::read(blob);
    let bound = read
        .as_ref()
        .map_err(|e| e.rule())
        .and_then(|r| npu1::bind(r, arena_addr, arena_len as u64).map_err(|e| e.rule()));

    let count = blob
        .get(12..16)
        .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    match (&read, &bound) {
        (Err(e), _) => {
            let r = e.rule();
            let allowed: &[&str] = match r {
                // The C peer checks region_count <= 8 right after the table fits.
                "cmd-stream" | "checksum" if count > 8 => &["too-many"],
                // It checks BAKED and RUNTIME per descriptor, in index order.
                "baked-region" if count > 8 => &["too-many"],
                "baked-region" => &["baked-region", "arena"],
                r => &[r],
            };
            assert!(
                allowed.contains(&c_rule),
                "reference says {e}, C peer says {c_rule} ({rc})"
            );
        }
        (Ok(_), _) if count > 8 => assert_eq!(c_rule, "too-many"),
        (Ok(_), Err(rule)) => assert_eq!(c_rule, *rule, "binding verdicts differ"),
        (Ok(r), Ok(bindings)) => {
            assert_eq!(rc, cpeer::OK, "reference binds, C peer says {c_rule}");
            assert_eq!(job.count as usize, r.regions.len());
            assert_eq!(
                job.cmd as usize,
                blob.as_ptr() as usize + r.header.cmd_offset as usize
            );
            assert_eq!(job.cmd_bytes, r.header.cmd_bytes);
            for (i, b) in bindings.iter().enumerate() {
                let (base, size) = match *b {
                    Binding::Blob { offset, size } => (blob.as_ptr() as u64 + offset, size),
                    Binding::Arena { offset, size } => (arena_addr + offset, size),
                };
                assert_eq!(job.base[i] as u64, base, "regions[{i}] base");
                assert_eq!(u64::from(job.size[i]), size, "regions[{i}] size");
            }
        }
    }
});
