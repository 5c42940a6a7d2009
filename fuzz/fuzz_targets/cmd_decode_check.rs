//! The Ethos-U55 command-stream decoder and checker on arbitrary bytes: no panic, and the
//! decoder's and checker's accounts agree with each other and with the bytes.
//!
//! Input: byte 0 = number of bound regions (mod 9), then that many u32 LE region sizes,
//! then the stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use npuschema_runtime::cmd::{check, decode};

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

    // Checker: same decode verdict; its counts match what it reported.
    let mut reported = 0u32;
    let result = check(stream, &sizes, &mut |f| {
        reported += 1;
        let _ = f.to_string();
    });
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
