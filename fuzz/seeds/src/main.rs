//! Seed corpora for the fuzz targets, written to `<out>/<target>/` (scripts/fuzz runs this
//! with `fuzz/corpus`). Sources:
//!
//! * NPU1 blobs from the generated writer: 0 to 9 regions, baked and runtime mixed, with
//!   command streams rebuilt from Vela's listings (`vela-out/**/*.txt`, when present) or
//!   short synthetic ones; each with a tight, a one-short and a roomy arena;
//! * Vela command streams alone, with bound region sizes, for the decoder/checker;
//! * the real VPMN files from `$NPUSCHEMA_CORPUS/corpus/vpmn`, when set;
//! * for `interp_constructs`, files of the test schemas (src/constructs.rs).
//!
//! Usage: `npuschema-fuzz-seeds OUT_DIR REPO_DIR`
use std::fs;
use std::path::{Path, PathBuf};

use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};

mod constructs;

fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

/// Rebuild the command stream from a Vela `--verbose-register-command-stream` listing:
/// lines `0xOFFSET: [PAYLOAD] PARAM CODE - NAME ...`.
fn stream_from_listing(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((head, _)) = line.split_once(" - ") else {
            continue;
        };
        let Some((off, words)) = head.split_once(':') else {
            continue;
        };
        if !off.starts_with("0x") {
            continue;
        }
        let w: Vec<&str> = words.split_whitespace().collect();
        let parse = |s: &str| u32::from_str_radix(s, 16).ok();
        match w.as_slice() {
            [param, code] => {
                if let (Some(p), Some(c)) = (parse(param), parse(code)) {
                    out.extend_from_slice(&(c | (p << 16)).to_le_bytes());
                }
            }
            [payload, param, code] => {
                if let (Some(x), Some(p), Some(c)) = (parse(payload), parse(param), parse(code)) {
                    out.extend_from_slice(&(c | (p << 16)).to_le_bytes());
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
            _ => {}
        }
    }
    out
}

fn listings(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "txt") {
                let s = stream_from_listing(&fs::read_to_string(&p).unwrap_or_default());
                if !s.is_empty() {
                    let rel = p
                        .strip_prefix(dir)
                        .unwrap_or(&p)
                        .to_string_lossy()
                        .replace('/', "_");
                    out.push((rel, s));
                }
            }
        }
    }
    out.sort();
    out
}

fn npu1_prefix(blob: &[u8], arena: usize) -> Vec<u8> {
    let n = u16::try_from(arena.div_ceil(16))
        .unwrap_or(u16::MAX)
        .to_le_bytes();
    let mut out = vec![0, n[0], n[1], 0];
    out.extend_from_slice(blob);
    out
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::create_dir_all(dir).expect("create corpus dir");
    fs::write(dir.join(name), bytes).expect("write seed");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(
        args.next()
            .expect("usage: npuschema-fuzz-seeds OUT_DIR REPO_DIR"),
    );
    let repo = PathBuf::from(
        args.next()
            .expect("usage: npuschema-fuzz-seeds OUT_DIR REPO_DIR"),
    );

    let mut streams = listings(&repo.join("vela-out"));
    // Keep one stream per distinct content, and cap the count: seeds, not a benchmark.
    streams.dedup_by(|a, b| a.1 == b.1);
    streams.truncate(12);
    if streams.is_empty() {
        eprintln!("fuzz-seeds: no vela-out/ listings; NPU1 seeds use synthetic command streams");
    }
    streams.push((
        "synthetic8".into(),
        vec![0x0f, 0x01, 0x01, 0x00, 0x00, 0x40, 0x00, 0x00],
    ));
    streams.push(("synthetic4".into(), vec![0x00, 0x00, 0x00, 0x00]));

    let mut n_npu1 = 0;
    for (si, (sname, cmd)) in streams.iter().enumerate() {
        for shape in 0..6u32 {
            let baked: Vec<Vec<u8>> = (0..9)
                .map(|i| noise(16 + 24 * i, u64::from(shape) * 31 + i as u64))
                .collect();
            let specs: Vec<RegionSpec<'_>> = (0..[0usize, 1, 2, 3, 8, 9][shape as usize])
                .map(|i| {
                    if (i + shape as usize).is_multiple_of(3) {
                        RegionSpec {
                            role: Role::from_raw(i as u32 % 6),
                            data: RegionData::Runtime(40 + 33 * i as u32),
                        }
                    } else {
                        RegionSpec {
                            role: Role::from_raw(i as u32 % 6),
                            data: RegionData::Baked(&baked[i]),
                        }
                    }
                })
                .collect();
            let runtime: usize = specs
                .iter()
                .map(|s| match s.data {
                    RegionData::Runtime(n) => (n as usize).div_ceil(16) * 16,
                    RegionData::Baked(_) => 0,
                })
                .sum();
            let accel = [0u32, 32, 64, 128, 256, 7][shape as usize];
            let blob = Npu1Writer::new()
                .version(npuschema_generated::npu1::VERSION_V1)
                .accel(Accel::from_raw(accel))
                .regions(&specs)
                .cmd_stream(cmd)
                .to_vec()
                .expect("seed blob");
            // NPU1 version 2 of the same: the compiled-for words and a tensor table over the
            // first runtime region, when there is one.
            let first_runtime = specs
                .iter()
                .position(|s| matches!(s.data, RegionData::Runtime(n) if n >= 8));
            let io: Vec<npuschema_generated::npu1::TensorSpec<'_>> = first_runtime
                .map(|r| {
                    use npuschema_generated::npu1::{DType, Direction, TensorFlags, TensorSpec};
                    let t = |name, direction, offset| TensorSpec {
                        direction,
                        io_index: 0,
                        region: r as u32,
                        offset,
                        size: 4,
                        dtype: DType::Int8,
                        rank: 2,
                        dim0: 1,
                        dim1: 4,
                        dim2: 1,
                        dim3: 1,
                        flags: TensorFlags::QUANTIZED,
                        scale: 0.25,
                        zero_point: -128,
                        name,
                    };
                    vec![t("in", Direction::Input, 0), t("out", Direction::Output, 4)]
                })
                .unwrap_or_default();
            let v2 = Npu1Writer::new()
                .version(npuschema_generated::npu1::VERSION_V2)
                .accel(Accel::from_raw(accel))
                .ext_npu_config(0x1807)
                .ext_npu_id(0x1006_6001)
                .regions(&specs)
                .io(&io)
                .cmd_stream(cmd)
                .to_vec()
                .expect("v2 seed blob");
            for (version, blob) in [("", &blob), ("-v2", &v2)] {
                for (k, arena) in [runtime, runtime.saturating_sub(1), runtime + 4096]
                    .into_iter()
                    .enumerate()
                {
                    let seed = npu1_prefix(blob, arena);
                    for target in ["npu1_validate", "npu1_bind", "npu1_ref_vs_c", "interp_npu1"] {
                        write(
                            &out.join(target),
                            &format!("{si:02}-{sname}-shape{shape}{version}-arena{k}"),
                            &seed,
                        );
                    }
                    n_npu1 += 1;
                }
            }
        }
        // The stream alone, for the decoder/checker: 8 bound regions of 1 MiB, and 2 of 64 B.
        for (k, (count, size)) in [(8u8, 1u32 << 20), (2, 64)].into_iter().enumerate() {
            let mut seed = vec![count];
            for _ in 0..count {
                seed.extend_from_slice(&size.to_le_bytes());
            }
            seed.extend_from_slice(cmd);
            write(
                &out.join("cmd_decode_check"),
                &format!("{si:02}-{sname}-{k}"),
                &seed,
            );
        }
    }

    let mut n_vpmn = 0;
    match std::env::var_os("NPUSCHEMA_CORPUS").filter(|v| !v.is_empty()) {
        Some(c) => {
            let dir = PathBuf::from(c).join("corpus").join("vpmn");
            for e in fs::read_dir(&dir)
                .expect("NPUSCHEMA_CORPUS/corpus/vpmn")
                .flatten()
            {
                let p = e.path();
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if !(name.ends_with(".nb") || name.ends_with(".nbg")) {
                    continue;
                }
                let bytes = fs::read(&p).expect("read corpus file");
                for flag in [0u8, 1] {
                    let mut seed = vec![flag];
                    seed.extend_from_slice(&bytes);
                    for target in ["vpmn_refreader", "vpmn_validate", "interp_vpmn"] {
                        write(&out.join(target), &format!("{name}-{flag}"), &seed);
                    }
                    n_vpmn += 1;
                }
            }
        }
        None => eprintln!("fuzz-seeds: skipping VPMN seeds: NPUSCHEMA_CORPUS not set"),
    }
    let n_constructs = constructs::write_seeds(&out);
    println!(
        "fuzz-seeds: {n_npu1} NPU1 seeds x4 targets, {} stream seeds, {n_vpmn} VPMN seeds, \
         {n_constructs} test-schema seeds",
        streams.len() * 2
    );
}
