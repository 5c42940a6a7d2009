//! The Ethos-U55 command-stream decoder and checker on arbitrary bytes: no panic, and the
//! decoder's and checker's accounts agree with each other and with the bytes.
//!
//! Input: byte 0 = number of bound regions (mod 9), then that many u32 LE region sizes,
//! then the stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_runtime::cmd::{FindingCode, Opcode, check, decode};

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 9);
    let Some((sizes, stream)) = rest.split_at_checked(4 * n) else {
        return;
    };
    let sizes: Vec<u64> = sizes
        .chunks_exact(4)
        .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
        .collect();

    // Decoder: commands tile the stream from 0 in order; each one's words are the bytes
    // at its offset; at most one error, and it ends the iteration.
    let mut pos = 0usize;
    let mut ok = 0u32;
    let mut first_err = None;
    // The checker's view ends at the first NPU_OP_STOP (the NPU stops there): the commands
    // up to and including it, an error only before it, and whether bytes follow it.
    let mut stop: Option<(u32, Option<npuschema_runtime::cmd::DecodeError>, bool)> = None;
    for item in decode(stream) {
        assert!(
            first_err.is_none(),
            "decoder yielded an item after an error"
        );
        match item {
            Ok(c) => {
                assert_eq!(c.offset as usize, pos, "commands must tile the stream");
                let w = &stream[pos..pos + 4];
                assert_eq!(c.word(), u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                if let Some(p) = c.payload {
                    let w = &stream[pos + 4..pos + 8];
                    assert_eq!(p, u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                }
                pos += c.size() as usize;
                ok += 1;
                if stop.is_none() && c.opcode() == Some(Opcode::OpStop) {
                    stop = Some((ok, None, pos < stream.len()));
                }
            }
            Err(e) => {
                assert_eq!(
                    e.offset as usize, pos,
                    "the error is at the first undecoded byte"
                );
                first_err = Some(e);
            }
        }
    }
    if first_err.is_none() {
        assert_eq!(pos, stream.len(), "a clean decode consumes every byte");
    }

    // Checker: same decode verdict up to the first STOP; its counts match what it
    // reported; a STOP with bytes after it is reported, as the last finding.
    let (ok, first_err, early_stop) = match stop {
        Some(s) => s,
        None => (ok, first_err, false),
    };
    let mut reported = 0u32;
    let mut last = None;
    let result = check(stream, &sizes, &mut |f| {
        reported += 1;
        let _ = f.to_string();
        last = Some(f.code);
    });
    assert_eq!(
        early_stop,
        last == Some(FindingCode::StopBeforeEnd),
        "stop-before-end is reported exactly when bytes follow the first STOP"
    );
    match (result, first_err) {
        (Ok(summary), None) => {
            assert_eq!(
                summary.commands, ok,
                "checker and decoder count the same commands"
            );
            assert_eq!(
                summary.findings, reported,
                "findings counted = findings reported"
            );
        }
        (Err(e), Some(first)) => assert_eq!(e, first, "checker stops at the decoder's first error"),
        (r, f) => panic!("decoder and checker disagree: check {r:?}, decode error {f:?}"),
    }
});
