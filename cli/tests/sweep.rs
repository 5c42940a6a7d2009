//! The standing sweep (issue 15): mutate every real file and fixture, run every command on
//! each mutant through the real binary, and hold the CLI to its contracts:
//!
//! * no panic (exit status 101) and no signal: every exit is 0, 1 or 2;
//! * no hang: every run ends within [`TIMEOUT`];
//! * well-formed JSON: every `--json` line parses;
//! * one verdict: a file `check` accepts, `inspect` accepts (and, NPU1, `verify`, `disasm`
//!   and `run --sim` too: the run succeeds); a file `inspect` refuses, `check` refuses;
//!   `disasm`, `verify` and `run` on a VPMN file name it as one.
//!
//! Sources: a synthetic NPU1 blob, Vela's outputs packed to NPU1 (and the Vela outputs
//! themselves, for `pack`), and the VPMN corpus files; and issue 31's inputs: an arena over
//! `run --sim`'s default and a 4 GiB runtime region (items 7 and 9), more NPU1 regions,
//! VPMN sections and COP1 actions than `inspect` and `explain` list (item 1, through the
//! schema interpreter too), `count()` inside a `for_each` (item 4), a DMA repeated past the
//! simulator's work budget (item 2), an npz whose weights inflate to 8 MiB (item 5). The
//! inputs that are not files (a FIFO with no writer, a schema from `/dev/zero`, a bad
//! `NPUSCHEMA_MAX_INPUT_BYTES`, outputs through links: items 3, 8, 10, 11) go through every
//! command in [`every_command_on_the_special_inputs`]. Mutations: a byte, a header or table
//! word, a truncation; half of them resealed (the checksums recomputed) so that the checks
//! behind the checksum run. Deterministic (xorshift); `NPUSCHEMA_SWEEP_MUTANTS` (mutants per
//! source, default 4) and `NPUSCHEMA_SWEEP_SEED` widen it: `scripts/sweep` runs thousands
//! and measures peak memory. Sources that are absent (no `vela-out/`, no corpus) are skipped
//! with a note.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};

mod support;

/// The longest any one run may take (a debug build on a loaded 2-core machine).
const TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Npu1,
    Vpmn,
    Vela,
    /// A COP1 payload, read through a schema (`check`/`inspect`/`explain --schema`): the
    /// file under `schema/` or `cli/tests/data/` this names.
    Schema(&'static str),
}

struct Source {
    name: String,
    kind: Kind,
    bytes: Vec<u8>,
    ext: &'static str,
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_npuschema")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture() -> Vec<u8> {
    fixture_with(48, 0)
}

/// The fixture with a runtime region of `runtime` bytes and `extra` more 16-byte scratch
/// regions (issue 31's inputs: an arena over `run --sim`'s default, more regions than
/// `inspect` and `explain` list).
fn fixture_with(runtime: u32, extra: usize) -> Vec<u8> {
    let weights: Vec<u8> = (0..64).collect();
    let mut stream = Vec::new();
    for (code, param, payload) in [
        (0x0130u16, 0u16, None),
        (0x0131, 1, None),
        (0x4030, 0, Some(0u32)),
        (0x4031, 0, Some(16)),
        (0x4032, 0, Some(16)),
        (0x0010, 0, None),
        (0x0011, 0, None),
        (0x0000, 0xFFFF, None),
    ] {
        stream.extend_from_slice(&(u32::from(code) | (u32::from(param) << 16)).to_le_bytes());
        if let Some(p) = payload {
            stream.extend_from_slice(&p.to_le_bytes());
        }
    }
    let specs = [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&weights),
        },
        RegionSpec {
            role: Role::Output,
            data: RegionData::Runtime(runtime),
        },
    ];
    let mut specs = specs.to_vec();
    specs.extend((0..extra).map(|_| RegionSpec {
        role: Role::Scratch,
        data: RegionData::Runtime(16),
    }));
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes")
}

fn u32s(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A VPMN version 2 file (the writer's) with `n` extra 4-byte sections of an opaque type.
/// A VPMN file of `n` extra sections, written (checksums sealed) but not validated: past
/// the schema's bound of 1,024 parts it is refused (`too-many-sections`) by every command.
fn many_sections(n: usize) -> Vec<u8> {
    use npuschema_cli::vpmn::writer::{Section, V2Spec, assemble};
    let io = |name: &str| {
        let mut r = u32s(&[1, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]);
        let mut b = [0u8; 64];
        b[..name.len()].copy_from_slice(name.as_bytes());
        r.extend(b);
        r
    };
    let mut info = b"test".to_vec();
    info.resize(64, 0);
    info.extend(u32s(&[1, 1, 1, 1, 4, 1, 32, 0x0a]));
    info.resize(220, 0);
    let mut s = vec![
        Section::new(35, 220, info),
        Section::new(38, 4, u32s(&[262_144])),
        Section::new(40, 8, u32s(&[7, 0])),
        Section::new(1, 112, io("in")),
        Section::new(2, 112, io("out")),
        Section::new(7, 192, (0..192u32).map(|i| (i * 7) as u8).collect()),
    ];
    s.extend((0..n).map(|i| Section::new(4, 4, u32s(&[i as u32]))));
    assemble(&V2Spec {
        target: 0x1000_003B,
        class_word: 0,
        reserved: [0, 0],
        sections: s,
    })
    .expect("writes")
}

/// A COP1 payload: the magic, one OPTIMIZER_CONFIG, `nops` NOP actions, a one-word
/// COMMAND_STREAM.
fn cop1_payload(nops: usize) -> Vec<u8> {
    let mut b = b"COP1".to_vec();
    for w in [1u32, 0x1000_0128, 1] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    for _ in 0..nops {
        b.extend_from_slice(&5u32.to_le_bytes());
    }
    for w in [2u32 | (1 << 16), 0xffff] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b
}

/// The npz `src` with its weights replaced by `n` zero bytes (a 1-d uint8 array), deflated.
fn npz_with_weights(src: &[u8], n: usize) -> Vec<u8> {
    use std::io::{Read, Write};
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(src)).expect("zip");
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for i in 0..z.len() {
        let mut f = z.by_index(i).expect("member");
        let name = f.name().expect("name").to_string();
        let mut body = Vec::new();
        f.read_to_end(&mut body).expect("read");
        if name == "weight_data.npy" {
            let mut dict = format!("{{'descr': '|u1', 'fortran_order': False, 'shape': ({n},), }}");
            while (10 + dict.len() + 1) % 64 != 0 {
                dict.push(' ');
            }
            dict.push('\n');
            body = b"\x93NUMPY\x01\x00".to_vec();
            body.extend_from_slice(&u16::try_from(dict.len()).expect("short").to_le_bytes());
            body.extend_from_slice(dict.as_bytes());
            body.resize(body.len() + n, 0);
            w.start_file(
                name.as_str(),
                stored.compression_method(zip::CompressionMethod::Deflated),
            )
            .expect("start");
        } else {
            w.start_file(name.as_str(), stored).expect("start");
        }
        w.write_all(&body).expect("write");
    }
    w.finish().expect("finish").into_inner()
}

fn files_under(dir: &Path, ends: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for p in entries.flatten().map(|e| e.path()) {
            let n = p.to_string_lossy().to_lowercase();
            if p.is_dir() {
                stack.push(p);
            } else if ends.iter().any(|e| n.ends_with(e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn sources(work: &Path) -> Vec<Source> {
    let mut s = vec![
        Source {
            name: "fixture.npub".into(),
            kind: Kind::Npu1,
            bytes: fixture(),
            ext: "npub",
        },
        Source {
            name: "big-arena.npub".into(),
            kind: Kind::Npu1,
            bytes: fixture_with(128 << 20, 0),
            ext: "npub",
        },
        Source {
            name: "many-regions.npub".into(),
            kind: Kind::Npu1,
            bytes: fixture_with(48, 10_050),
            ext: "npub",
        },
        Source {
            name: "4gib-region.npub".into(),
            kind: Kind::Npu1,
            bytes: fixture_with(0xFFFF_FFFF, 0),
            ext: "npub",
        },
        Source {
            name: "dma-past-the-budget.npub".into(),
            kind: Kind::Npu1,
            bytes: support::dma_repeat(10 << 20, 100_000),
            ext: "npub",
        },
        Source {
            name: "many-sections.nb".into(),
            kind: Kind::Vpmn,
            bytes: many_sections(10_050),
            ext: "nb",
        },
        Source {
            name: "many-actions.cop1".into(),
            kind: Kind::Schema("schema/ethos_u_cop1.yaml"),
            bytes: cop1_payload(10_050),
            ext: "cop1",
        },
        Source {
            name: "count-in-for-each.cop1".into(),
            kind: Kind::Schema("cli/tests/data/cop1_count_each.yaml"),
            bytes: cop1_payload(3_000),
            ext: "cop1",
        },
    ];
    let vela = repo().join("vela-out");
    if vela.join(".stamp").is_file() {
        for (i, p) in files_under(&vela, &["_vela.tflite", "_vela.npz"])
            .iter()
            .enumerate()
        {
            let bytes = std::fs::read(p).expect("vela output");
            let ext = if p.extension().is_some_and(|e| e == "npz") {
                "npz"
            } else {
                "tflite"
            };
            // Each Vela output packed: the real NPU1 files.
            let out = work.join(format!("packed{i}.npub"));
            let o = Command::new(bin())
                .args([
                    OsString::from("pack"),
                    p.clone().into(),
                    "-o".into(),
                    out.clone().into(),
                ])
                .output()
                .expect("pack");
            if o.status.success() {
                s.push(Source {
                    name: format!("{}.npub", p.display()),
                    kind: Kind::Npu1,
                    bytes: std::fs::read(&out).expect("packed"),
                    ext: "npub",
                });
            }
            if ext == "npz" && !s.iter().any(|x| x.name == "8mib-weights.npz") {
                s.push(Source {
                    name: "8mib-weights.npz".into(),
                    kind: Kind::Vela,
                    bytes: npz_with_weights(&bytes, 8 << 20),
                    ext: "npz",
                });
            }
            s.push(Source {
                name: p.display().to_string(),
                kind: Kind::Vela,
                bytes,
                ext,
            });
        }
    } else {
        eprintln!("sweep: no vela-out/ (scripts/setup-vela): Vela outputs skipped");
    }
    let corpus = std::env::var_os("NPUSCHEMA_CORPUS")
        .map_or_else(|| repo().join("../shared"), PathBuf::from)
        .join("corpus/vpmn");
    let vpmn = files_under(&corpus, &[".nb", ".nbg"]);
    if vpmn.is_empty() {
        eprintln!("sweep: no VPMN corpus at {}: skipped", corpus.display());
    }
    for p in vpmn {
        s.push(Source {
            name: p.display().to_string(),
            kind: Kind::Vpmn,
            bytes: std::fs::read(&p).expect("corpus"),
            ext: "nb",
        });
    }
    s
}

fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    x |= 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

fn reseal(kind: Kind, b: &mut [u8]) {
    match kind {
        Kind::Npu1 if b.len() >= 32 => {
            let sum = npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, &b[32..]);
            b[28..32].copy_from_slice(&sum.to_le_bytes());
        }
        Kind::Vpmn => npuschema_cli::vpmn::writer::reseal(b),
        _ => {}
    }
}

/// One mutant of `src`: the `n`th from `rnd`.
fn mutate(src: &Source, n: usize, rnd: &mut impl FnMut() -> u64) -> Vec<u8> {
    let mut b = src.bytes.clone();
    let len = b.len().max(1);
    // Header and tables are where the rules live: aim half of the edits at the first 512 B.
    let near = |r: u64| usize::try_from(r).unwrap_or(0) % len.min(512);
    let anywhere = |r: u64| usize::try_from(r).unwrap_or(0) % len;
    match rnd() % 5 {
        0 => {
            let at = near(rnd());
            if let Some(x) = b.get_mut(at) {
                *x ^= 1 << (rnd() % 8);
            }
        }
        1 => {
            let at = near(rnd()) & !3;
            let v = match rnd() % 4 {
                0 => 0,
                1 => u32::MAX,
                2 => u32::try_from(rnd() % (len as u64 * 2)).unwrap_or(0),
                _ => rnd() as u32,
            };
            if let Some(w) = b.get_mut(at..at + 4) {
                w.copy_from_slice(&v.to_le_bytes());
            }
        }
        2 => b.truncate(anywhere(rnd())),
        3 => {
            let at = anywhere(rnd());
            if let Some(x) = b.get_mut(at) {
                *x = rnd() as u8;
            }
        }
        _ => {
            // Two words at once (an offset and a size, say).
            for _ in 0..2 {
                let at = near(rnd()) & !3;
                let v = rnd() as u32 & 0xFFFF;
                if let Some(w) = b.get_mut(at..at + 4) {
                    w.copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    if n.is_multiple_of(2) {
        reseal(src.kind, &mut b);
    }
    b
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[OsString]) -> Ran {
    let mut cmd = Command::new(bin());
    cmd.args(args);
    run_cmd(cmd, args)
}

/// Run `cmd` (`args` for messages) within [`TIMEOUT`]; its exit must be 0, 1 or 2.
fn run_cmd(mut cmd: Command, args: &[OsString]) -> Ran {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Drain the pipes on threads so a large output cannot block the child.
    let mut so = child.stdout.take().expect("stdout");
    let mut se = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut so, &mut v).ok();
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut se, &mut v).ok();
        v
    });
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if t.elapsed() > TIMEOUT {
            let _ = child.kill();
            panic!("timeout: npuschema {args:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stdout = String::from_utf8_lossy(&out.join().expect("out")).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().expect("err")).into_owned();
    let Some(code) = status.code() else {
        panic!("killed by a signal: npuschema {args:?}: {status:?}\n{stderr}");
    };
    assert!(
        matches!(code, 0..=2),
        "exit {code} (a panic is 101): npuschema {args:?}\n{stderr}"
    );
    Ran {
        code,
        stdout,
        stderr,
    }
}

fn args(list: &[&str], file: &Path) -> Vec<OsString> {
    let mut v: Vec<OsString> = list.iter().map(OsString::from).collect();
    v.push(file.into());
    v
}

fn json_lines(what: &str, r: &Ran) -> Vec<serde_json::Value> {
    r.stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{what}: not a JSON line ({e}): {l:?}"))
        })
        .collect()
}

/// Every command on one container mutant; returns the number of runs.
fn container(file: &Path, kind: Kind, tag: &str) -> usize {
    let check = run(&args(&["check", "--json"], file));
    let lines = json_lines(&format!("check {tag}"), &check);
    assert_eq!(lines.len(), 1, "check {tag}: {lines:?}");
    let valid = lines[0]["valid"] == true;
    assert_eq!(valid, check.code == 0, "check {tag}: {lines:?}");

    let inspect = run(&args(&["inspect", "--json"], file));
    let shown = json_lines(&format!("inspect {tag}"), &inspect);
    assert_eq!(
        shown.len(),
        1,
        "inspect {tag}: one JSON line, the report or the error"
    );
    assert_eq!(
        shown[0].get("error").is_some(),
        inspect.code != 0,
        "inspect {tag}: {}",
        inspect.stdout
    );
    if valid {
        assert_eq!(
            inspect.code, 0,
            "check accepts, inspect refuses: {tag}: {}",
            inspect.stderr
        );
    }
    if inspect.code == 1 {
        assert!(!valid, "inspect refuses, check accepts: {tag}");
    }
    let explain = run(&args(&["explain", "--color", "never"], file));
    if valid {
        assert_eq!(
            explain.code, 0,
            "check accepts, explain refuses: {tag}: {}",
            explain.stderr
        );
    }
    let disasm = run(&args(&["disasm", "--json"], file));
    json_lines(&format!("disasm {tag}"), &disasm);
    let verify = run(&args(&["verify"], file));
    let sim = run(&args(&["run", "--sim", "--json"], file));
    let report: serde_json::Value = serde_json::from_str(&sim.stdout)
        .unwrap_or_else(|e| panic!("run --json {tag}: not JSON ({e}): {}", sim.stdout));
    assert!(report.is_object(), "run {tag}");
    let _ = kind;
    let is_vpmn = lines[0]["format"] == "vpmn";
    if valid && lines[0]["format"] == "npu1" {
        assert_eq!(
            disasm.code, 0,
            "check accepts, disasm refuses: {tag}: {}",
            disasm.stderr
        );
        assert_eq!(
            verify.code, 0,
            "check accepts, verify refuses: {tag}: {}",
            verify.stdout
        );
        // A runtime region over the simulator's documented arena limit is a limit, not a
        // verdict: `arena-over-limit`, exit 2, before anything is allocated.
        if report["code"] == "arena-over-limit" {
            assert_eq!(sim.code, 2, "{tag}");
            // ... which check said, with the --max-arena that runs it.
            assert_eq!(
                lines[0]["warnings"][0]["code"], "arena-over-sim-default",
                "check did not warn of the arena run refuses: {tag}"
            );
        } else if report["executed"]["stopped"]["code"] == "sim-budget-exceeded" {
            // The second stated exception: the simulator's work budget, a limit (exit 2).
            assert_eq!(sim.code, 2, "{tag}: {}", sim.stdout);
        } else {
            assert_eq!(
                sim.code, 0,
                "check accepts, run fails: {tag}: {}",
                sim.stdout
            );
            assert_eq!(report["result"]["ok"], true, "{tag}");
        }
    }
    if valid && is_vpmn {
        for (what, r) in [("disasm", &disasm), ("verify", &verify)] {
            assert!(
                r.stderr.contains("this is a VPMN file"),
                "{what} {tag}: {}",
                r.stderr
            );
        }
    }
    6
}

/// `check`, `inspect --json` and `explain` through `schema` on one mutant: one verdict
/// (a file `check --schema` accepts, `inspect --schema` and `explain --schema` show; one
/// they refuse, it refuses), well-formed JSON. Returns the number of runs and whether
/// `check --schema` accepted the file.
fn through_schema(file: &Path, schema: &Path, tag: &str) -> (usize, bool) {
    let with = |cmd: &[&str]| {
        let mut a: Vec<OsString> = cmd.iter().map(OsString::from).collect();
        a.extend(["--schema".into(), schema.into(), file.into()]);
        run(&a)
    };
    let check = with(&["check", "--json"]);
    let lines = json_lines(&format!("check --schema {tag}"), &check);
    assert_eq!(lines.len(), 1, "check --schema {tag}: {lines:?}");
    let valid = lines[0]["valid"] == true;
    assert_eq!(valid, check.code == 0, "check --schema {tag}: {lines:?}");
    let inspect = with(&["inspect", "--json"]);
    if inspect.code == 0 {
        let v = json_lines(&format!("inspect --schema {tag}"), &inspect);
        assert_eq!(v.len(), 1, "inspect --schema {tag}");
    }
    let explain = with(&["explain"]);
    for (what, r) in [("inspect", &inspect), ("explain", &explain)] {
        assert_eq!(
            r.code == 0,
            valid,
            "check --schema says {valid}, {what} --schema exits {}: {tag}: {}",
            r.code,
            r.stderr
        );
    }
    (3, valid)
}

#[test]
fn every_command_on_mutants_of_every_source() {
    let per_source: usize = std::env::var("NPUSCHEMA_SWEEP_MUTANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let seed: u64 = std::env::var("NPUSCHEMA_SWEEP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_1515);
    let work = std::env::temp_dir().join(format!("npuschema-sweep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("work dir");
    let srcs = sources(&work);
    // (source, mutant number): the unmutated source first (number 0 = as is).
    let jobs: Vec<(usize, usize)> = (0..srcs.len())
        .flat_map(|s| (0..=per_source).map(move |n| (s, n)))
        .collect();
    let next = AtomicUsize::new(0);
    let runs = AtomicUsize::new(0);
    let accepted = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::<String>::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let t = Instant::now();
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (srcs, jobs, next, runs, accepted, failures, work) =
                (&srcs, &jobs, &next, &runs, &accepted, &failures, &work);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(s, n)) = jobs.get(i) else { break };
                    let src = &srcs[s];
                    let mut rnd = xorshift(seed ^ ((s as u64) << 32) ^ n as u64);
                    let bytes = if n == 0 {
                        src.bytes.clone()
                    } else {
                        mutate(src, n, &mut rnd)
                    };
                    let file = work.join(format!("w{w}-{i}.{}", src.ext));
                    std::fs::write(&file, &bytes).expect("write mutant");
                    let tag = format!("{} mutant {n} ({} bytes)", src.name, bytes.len());
                    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        if let Kind::Schema(schema) = src.kind {
                            through_schema(&file, &repo().join(schema), &tag)
                        } else if src.kind == Kind::Vela {
                            let out = work.join(format!("w{w}-{i}.npub"));
                            let mut a = vec!["pack".into(), file.clone().into()];
                            a.extend(["-o".into(), out.clone().into(), "--json".into()]);
                            let r = run(&a);
                            let _ = std::fs::remove_file(&out);
                            if r.code == 0 {
                                let v: serde_json::Value =
                                    serde_json::from_str(&r.stdout).expect("pack JSON");
                                assert!(v.is_object(), "pack {tag}");
                            }
                            (1, r.code == 0)
                        } else {
                            let n = container(&file, src.kind, &tag);
                            let ok = run(&args(&["check"], &file)).code == 0;
                            (n + 1, ok)
                        }
                    }));
                    match done {
                        Ok((n, ok)) => {
                            runs.fetch_add(n, Ordering::Relaxed);
                            if ok {
                                accepted.fetch_add(1, Ordering::Relaxed);
                            }
                            let _ = std::fs::remove_file(&file);
                        }
                        Err(e) => {
                            let msg = e
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_string()))
                                .unwrap_or_default();
                            failures
                                .lock()
                                .expect("lock")
                                .push(format!("{tag} (kept at {}): {msg}", file.display()));
                        }
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().expect("lock");
    eprintln!(
        "sweep: {} sources, {} files ({} mutants), {} runs, {} accepted, {} failures, {:.1} s",
        srcs.len(),
        jobs.len(),
        jobs.len() - srcs.len(),
        runs.load(Ordering::Relaxed),
        accepted.load(Ordering::Relaxed),
        failures.len(),
        t.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The unmutated sources are all accepted, so the agreement checks above ran.
    assert!(accepted.load(Ordering::Relaxed) >= srcs.len());
    let _ = std::fs::remove_dir_all(&work);
}

/// Issue 31's inputs that are not file contents, through every command: a FIFO with no
/// writer as the file or the schema (item 8), a schema from `/dev/zero` or `/dev/urandom`
/// (item 3), a bad `NPUSCHEMA_MAX_INPUT_BYTES` (item 10), `pack -o` and `run --output`
/// through a link and a dangling link (item 11). Each run ends (the sweep's timeout), exits
/// 0, 1 or 2 with no signal, names the command on stderr when it fails, and leaves no
/// temporary file behind.
#[test]
fn every_command_on_the_special_inputs() {
    let work = std::env::temp_dir().join(format!("npuschema-sweep-special-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("work dir");
    let good = work.join("good.npub");
    std::fs::write(&good, fixture()).expect("write");
    let fifo = work.join("fifo.npub");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    let schema = repo().join("schema/npu1.yaml");
    let out_dir = work.join("out");
    std::fs::create_dir_all(&out_dir).expect("dir");
    let link = out_dir.join("link.npub");
    std::fs::write(out_dir.join("target.npub"), b"old").expect("write");
    std::os::unix::fs::symlink("target.npub", &link).expect("link");
    let dangling = out_dir.join("dangling.bin");
    std::os::unix::fs::symlink("nowhere/x.bin", &dangling).expect("link");
    let commands: &[&[&str]] = &[
        &["check"],
        &["check", "--json"],
        &["inspect"],
        &["inspect", "--json"],
        &["explain"],
        &["disasm"],
        &["verify"],
        &["run", "--sim"],
    ];
    let mut runs = 0;
    /// The arguments, and the environment they run with.
    type Case<'a> = (Vec<OsString>, Vec<(&'a str, &'a str)>);
    let mut cases: Vec<Case<'_>> = Vec::new();
    for file in [&fifo, &good] {
        for c in commands {
            cases.push((args(c, file), vec![]));
            // A bad input limit: an error naming the variable, whatever the command.
            cases.push((args(c, file), vec![("NPUSCHEMA_MAX_INPUT_BYTES", "1e9")]));
        }
        for c in ["check", "inspect", "explain"] {
            for s in [
                schema.as_path(),
                Path::new("/dev/zero"),
                Path::new("/dev/urandom"),
                &fifo,
            ] {
                let a: Vec<OsString> = vec![c.into(), "--schema".into(), s.into(), file.into()];
                cases.push((a, vec![]));
            }
        }
    }
    cases.push((
        vec![
            "gen".into(),
            "/dev/zero".into(),
            "-o".into(),
            work.join("gen").into(),
        ],
        vec![],
    ));
    cases.push((
        vec![
            "gen".into(),
            fifo.clone().into(),
            "-o".into(),
            work.join("gen").into(),
        ],
        vec![],
    ));
    let spec = |p: &Path| OsString::from(format!("1={}", p.display()));
    cases.push((
        vec![
            "run".into(),
            "--sim".into(),
            good.clone().into(),
            "--output".into(),
            spec(&link),
        ],
        vec![],
    ));
    cases.push((
        vec![
            "run".into(),
            "--sim".into(),
            good.clone().into(),
            "--output".into(),
            spec(&dangling),
        ],
        vec![],
    ));
    for (a, env) in &cases {
        let mut cmd = Command::new(bin());
        cmd.args(a).envs(env.iter().copied());
        let r = run_cmd(cmd, a);
        runs += 1;
        if r.code != 0 {
            let first = r.stderr.lines().next().unwrap_or_default();
            assert!(
                first.starts_with("npuschema ")
                    || a.iter().any(|x| x == "--json" || x == "--schema"),
                "{a:?} {env:?}: exit {} without the command's name: {}",
                r.code,
                r.stderr
            );
        }
        if !env.is_empty() {
            assert_eq!(r.code, 2, "{a:?} {env:?}: {}", r.stderr);
            assert!(
                r.stderr.contains("NPUSCHEMA_MAX_INPUT_BYTES"),
                "{}",
                r.stderr
            );
        }
        if a.contains(&OsString::from(&fifo)) && env.is_empty() {
            assert_eq!(r.code, 2, "{a:?}: {}", r.stderr);
        }
    }
    // Written through the link, the link kept; nothing through the dangling one.
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read(out_dir.join("target.npub"))
            .expect("target")
            .len(),
        48
    );
    assert!(!out_dir.join("nowhere").exists());
    for e in std::fs::read_dir(&out_dir).expect("dir").flatten() {
        assert!(!e.file_name().to_string_lossy().ends_with(".tmp"), "{e:?}");
    }
    eprintln!("sweep: special inputs: {runs} runs");
    let _ = std::fs::remove_dir_all(&work);
}
