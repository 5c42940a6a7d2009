//! The register command-stream decoder, static checker and listing
//! (`npuschema_runtime::cmd`) on every Vela output under `vela-out/`: the streams are
//! rebuilt from Vela's own `--verbose-register-command-stream` listings (`*.txt`), so the
//! bench needs no packer. Run it on two checkouts back to back (before and after a change
//! to the decoder) and compare the times as a ratio: the figure is the ratio, not the time.
//!
//! `cargo bench -p npuschema-bench --bench cmd`
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    missing_docs
)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use npuschema_runtime::cmd::{Listing, check, decode};

/// Every `*.txt` listing under `dir`, sorted.
fn listings(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "txt") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The stream of a Vela listing: `0x000004: 00000010 0000 4000 - NAME ...` gives the first
/// word `param << 16 | code` and, when there is one, the payload word.
fn stream_of(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((head, _)) = line.split_once(" - ") else {
            continue;
        };
        let Some((off, rest)) = head.split_once(':') else {
            continue;
        };
        if !off.trim_start().starts_with("0x") {
            continue;
        }
        let cols: Vec<&str> = rest.split_whitespace().collect();
        let (payload, param, code) = match cols[..] {
            [p, a, c] => (Some(p), a, c),
            [a, c] => (None, a, c),
            _ => continue,
        };
        let param = u32::from_str_radix(param, 16).expect("param");
        let code = u32::from_str_radix(code, 16).expect("code");
        out.extend_from_slice(&(param << 16 | code).to_le_bytes());
        if let Some(p) = payload {
            out.extend_from_slice(&u32::from_str_radix(p, 16).expect("payload").to_le_bytes());
        }
    }
    out
}

fn cmd(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vela-out");
    let mut streams: Vec<Vec<u8>> = listings(&dir)
        .iter()
        .map(|p| stream_of(&std::fs::read_to_string(p).expect("listing")))
        .filter(|s| !s.is_empty())
        .collect();
    streams.sort();
    streams.dedup();
    if streams.is_empty() {
        eprintln!("skipping cmd: no Vela listings under {}", dir.display());
        return;
    }
    let commands: usize = streams.iter().map(|s| decode(s).count()).sum();
    let bytes: usize = streams.iter().map(Vec::len).sum();
    eprintln!(
        "cmd: {} streams, {commands} commands, {bytes} bytes",
        streams.len()
    );
    for s in &streams {
        assert!(decode(s).all(|c| c.is_ok()), "Vela's streams decode");
    }
    let sizes = [u64::MAX; 8];
    let mut g = c.benchmark_group("cmd");
    g.throughput(Throughput::Elements(commands as u64));
    g.bench_function(BenchmarkId::new("decode", commands), |b| {
        b.iter(|| {
            let mut n = 0u32;
            for s in &streams {
                for c in decode(black_box(s)) {
                    n ^= c.map_or(0, |c| c.word() ^ c.payload.unwrap_or(0));
                }
            }
            n
        })
    });
    g.bench_function(BenchmarkId::new("check", commands), |b| {
        b.iter(|| {
            let mut n = 0u32;
            for s in &streams {
                let r = check(black_box(s), &sizes, &mut |_| n += 1).expect("check");
                n ^= r.commands;
            }
            n
        })
    });
    let mut text = String::with_capacity(1 << 20);
    g.bench_function(BenchmarkId::new("listing", commands), |b| {
        b.iter(|| {
            text.clear();
            for s in &streams {
                for c in decode(black_box(s)).flatten() {
                    writeln!(text, "{}", Listing(&c)).expect("write");
                }
            }
            text.len()
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = cmd
}
criterion_main!(benches);
