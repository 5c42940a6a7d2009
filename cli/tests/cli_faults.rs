//! The CLI under bad input and faults (issue 15), through the real binary: nothing crashes
//! or hangs (a huge declared region, a deep pickle, a closed stdout, link loops, FIFOs,
//! endless or huge inputs), nothing is lost (unique temporaries, atomic rename, no writing
//! over an input, mode kept, `run --output` only on success), and results are honest
//! (`nothing-checked`, JSON errors, exact names, formats named, useless options refused,
//! sizes checked).

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};

mod support;

/// The binary under test; `NPUSCHEMA_TEST_BIN` runs these tests against another build (an
/// older one, to see them fail).
fn bin() -> Command {
    match std::env::var_os("NPUSCHEMA_TEST_BIN") {
        Some(b) => Command::new(b),
        None => Command::new(env!("CARGO_BIN_EXE_npuschema")),
    }
}

fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    bin().args(args).output().expect("runs")
}

/// Run the binary, killing it and failing the test if it has not ended within 20 s (a
/// hang is the finding, so the test must not hang with it).
fn run_within(args: &[&OsStr]) -> Output {
    let child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    support::wait_bounded(child, Duration::from_secs(20), &args)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("npuschema-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// DMA 16 bytes from region 0 to region 1; region 1 is a runtime region of `runtime` bytes.
fn blob_with(runtime: u32, accel: Accel) -> Vec<u8> {
    let weights = [7u8; 64];
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
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(accel)
        .regions(&specs)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes")
}

fn blob() -> Vec<u8> {
    blob_with(48, Accel::Macs128)
}

fn vela_out() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vela-out");
    if d.join(".stamp").is_file() {
        Some(d)
    } else {
        eprintln!("skipping: no vela-out (scripts/setup-vela)");
        None
    }
}

fn find(dir: &Path, suffix: &str) -> Option<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    let mut found = Vec::new();
    while let Some(d) = stack.pop() {
        for p in std::fs::read_dir(&d).ok()?.flatten().map(|e| e.path()) {
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                found.push(p);
            }
        }
    }
    found.sort();
    found.into_iter().next()
}

/// A copy of the zip `src` with `member` replaced by `bytes` (stored).
fn npz_with(src: &Path, member: &str, bytes: &[u8]) -> Vec<u8> {
    npz_with_method(src, member, bytes, zip::CompressionMethod::Stored)
}

/// A copy of the zip `src` with `member` replaced by `bytes`, compressed with `method`.
fn npz_with_method(
    src: &Path,
    member: &str,
    bytes: &[u8],
    method: zip::CompressionMethod,
) -> Vec<u8> {
    let data = std::fs::read(src).expect("npz");
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(data)).expect("zip");
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for i in 0..z.len() {
        let mut f = z.by_index(i).expect("member");
        let name = f.name().expect("name").to_string();
        let mut body = Vec::new();
        f.read_to_end(&mut body).expect("read");
        if name == member {
            w.start_file(name.as_str(), opts.compression_method(method))
                .expect("start");
            w.write_all(bytes).expect("write");
        } else {
            w.start_file(name.as_str(), opts).expect("start");
            w.write_all(&body).expect("write");
        }
    }
    w.finish().expect("finish").into_inner()
}

/// A version 1 `.npy` file: the header dict, padded, then `data`.
fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend_from_slice(data);
    out
}

// ---- 1. nothing crashes or hangs ----

#[test]
fn run_sim_refuses_an_arena_over_the_limit_before_allocating() {
    let d = tmp("arena");
    let p = d.join("huge.npub");
    // Valid, checks and verifies (the stream touches 32 bytes), but declares a 4 GiB region.
    std::fs::write(&p, blob_with(0xFFFF_FFFF, Accel::Macs128)).expect("write");
    assert_eq!(code(&run(&[OsStr::new("check"), p.as_os_str()])), 0);
    let t = Instant::now();
    let o = run(&[OsStr::new("run"), OsStr::new("--sim"), p.as_os_str()]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("arena-over-limit"), "{}", stderr(&o));
    let o = run(&[
        OsStr::new("run"),
        OsStr::new("--sim"),
        OsStr::new("--json"),
        p.as_os_str(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["code"], "arena-over-limit");
    assert!(t.elapsed() < Duration::from_secs(20));
    // Raised, a modest region runs.
    std::fs::write(&p, blob_with(1 << 20, Accel::Macs128)).expect("write");
    let o = run(&[
        OsStr::new("run"),
        OsStr::new("--sim"),
        OsStr::new("--max-arena"),
        OsStr::new("0x200000"),
        p.as_os_str(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_deeply_nested_pickle_is_not_decoded() {
    let Some(vela) = vela_out() else { return };
    let Some(src) = find(&vela, "_vela.npz") else {
        return;
    };
    let d = tmp("pickle");
    // 6000 nested lists: "(" MARK is not needed, "]" EMPTY_LIST then APPEND ("a") each.
    let mut pickle = b"\x80\x02".to_vec();
    pickle.extend(std::iter::repeat_n(b']', 6000));
    pickle.extend(std::iter::repeat_n(b'a', 5999));
    pickle.push(b'.');
    let member = npy("|O", "(1,)", &pickle);
    let p = d.join("deep.npz");
    std::fs::write(&p, npz_with(&src, "input_quantization.npy", &member)).expect("write");
    let out = d.join("deep.npub");
    let o = run(&[
        OsStr::new("pack"),
        p.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    assert_ne!(code(&o), 101, "{}", stderr(&o));
    assert!(o.status.code().is_some(), "killed: {:?}", o.status);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(text.contains("more than 1000 containers"), "{text}");
    let _ = std::fs::remove_dir_all(d);
}

/// Run `args` with stdout a pipe whose reader is already closed.
fn closed_stdout<S: AsRef<OsStr>>(args: &[S]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    bin()
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("runs")
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let d = tmp("pipe");
    let npub = d.join("m.npub");
    std::fs::write(&npub, blob()).expect("write");
    let npub = npub.to_string_lossy().into_owned();
    let out = d.join("packed.npub").to_string_lossy().into_owned();
    let gen_dir = d.join("gen").to_string_lossy().into_owned();
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/npu1.yaml");
    let schema = schema.to_string_lossy().into_owned();
    let mut cases: Vec<Vec<String>> = vec![
        vec!["inspect".into(), npub.clone()],
        vec!["inspect".into(), "--json".into(), npub.clone()],
        vec!["check".into(), npub.clone()],
        vec!["check".into(), "--json".into(), npub.clone()],
        vec!["explain".into(), npub.clone()],
        vec!["disasm".into(), npub.clone()],
        vec!["verify".into(), npub.clone()],
        vec!["run".into(), "--sim".into(), npub.clone()],
        vec!["site".into(), "--list".into()],
        vec!["site".into(), "2".into()],
        vec!["gen".into(), schema, "-o".into(), gen_dir],
    ];
    if let Some(src) = vela_out().and_then(|v| find(&v, "_vela.tflite")) {
        cases.push(vec![
            "pack".into(),
            src.to_string_lossy().into_owned(),
            "-o".into(),
            out,
        ]);
    }
    for args in &cases {
        let o = closed_stdout(args);
        let c = code(&o);
        assert_eq!(c, 0, "{args:?}: exit {c}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn the_walk_ends_link_loops_visits_each_file_once_and_skips_fifos() {
    let d = tmp("walk");
    std::fs::write(d.join("a.npub"), blob()).expect("write");
    std::os::unix::fs::symlink(".", d.join("self1")).expect("link");
    std::os::unix::fs::symlink(".", d.join("self2")).expect("link");
    std::os::unix::fs::symlink("a.npub", d.join("alias.npub")).expect("link");
    let fifo = d.join("pipe.nb");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let have_fifo = made.is_ok_and(|s| s.success());
    let o = run_within(&[OsStr::new("check"), OsStr::new("--json"), d.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["valid"], true);
    let err = stderr(&o);
    assert!(err.contains("self1") && err.contains("self2"), "{err}");
    assert!(err.contains("the same file"), "{err}");
    if have_fifo {
        assert!(err.contains("pipe.nb: a FIFO, not a regular file"), "{err}");
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn check_schema_walks_as_check_does_and_says_when_it_checked_nothing() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/npu1.yaml");
    let d = tmp("schema-walk");
    std::fs::write(d.join("a.npub"), blob()).expect("write");
    std::os::unix::fs::symlink(".", d.join("self1")).expect("link");
    std::os::unix::fs::symlink(".", d.join("self2")).expect("link");
    std::os::unix::fs::symlink("a.npub", d.join("alias.npub")).expect("link");
    let fifo = d.join("pipe.npub");
    let have_fifo = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let o = run_within(&[
        OsStr::new("check"),
        OsStr::new("--json"),
        OsStr::new("--schema"),
        schema.as_os_str(),
        OsStr::new("--ext"),
        OsStr::new("npub"),
        d.as_os_str(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["valid"], true);
    let err = stderr(&o);
    assert!(err.contains("self1") && err.contains("self2"), "{err}");
    assert!(err.contains("the same file"), "{err}");
    if have_fifo {
        assert!(
            err.contains("pipe.npub: a FIFO, not a regular file"),
            "{err}"
        );
    }
    // An empty directory: nothing checked is exit 2 and a JSON line, as without --schema.
    let empty = tmp("schema-empty");
    let o = run(&[
        "check",
        "--json",
        "--schema",
        schema.to_str().expect("utf-8 path"),
        empty.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code(&o), 2);
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["error"]["code"], "nothing-checked");
    // Bounded input: /dev/zero is read only up to the limit.
    let o = bin()
        .env("NPUSCHEMA_MAX_INPUT_BYTES", "65536")
        .args([
            OsStr::new("check"),
            OsStr::new("--json"),
            OsStr::new("--schema"),
            schema.as_os_str(),
            OsStr::new("/dev/zero"),
        ])
        .output()
        .expect("run");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(json_lines(&o)[0]["error"]["code"], "file-too-large");
    let _ = std::fs::remove_dir_all(d);
    let _ = std::fs::remove_dir_all(empty);
}

#[test]
fn endless_and_huge_inputs_are_refused_quickly() {
    let t = Instant::now();
    let o = run(&["check", "/dev/zero"]);
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stdout).contains("unknown-format"));
    let d = tmp("huge");
    for (name, head) in [("zeros.npub", &b""[..]), ("claims.npub", &b"NPU1"[..])] {
        let p = d.join(name);
        std::fs::write(&p, head).expect("write");
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .expect("open");
        f.set_len(5 << 30).expect("sparse 5 GiB");
        drop(f);
        for cmd in ["check", "inspect", "explain", "disasm", "verify"] {
            let o = run(&[OsStr::new(cmd), p.as_os_str()]);
            let c = code(&o);
            let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
            if head.is_empty() {
                // The head decides: NPU1's own code, from the extension.
                assert_eq!(c, 1, "{cmd} {name}: {text}");
                assert!(text.contains("bad-magic"), "{cmd} {name}: {text}");
            } else {
                assert_eq!(c, 2, "{cmd} {name}: {text}");
                assert!(text.contains("file-too-large"), "{cmd} {name}: {text}");
            }
        }
        let o = run(&[OsStr::new("run"), OsStr::new("--sim"), p.as_os_str()]);
        assert_eq!(code(&o), if head.is_empty() { 1 } else { 2 });
        std::fs::remove_file(&p).expect("rm");
    }
    // Overridable: a small limit refuses a real file, the default takes it.
    let p = d.join("m.npub");
    std::fs::write(&p, blob()).expect("write");
    let o = bin()
        .env("NPUSCHEMA_MAX_INPUT_BYTES", "100")
        .args([OsStr::new("check"), p.as_os_str()])
        .output()
        .expect("runs");
    assert_eq!(code(&o), 2);
    // Not a verdict on the file: an error, on stderr, naming the command.
    assert!(
        stderr(&o).starts_with("npuschema check: ") && stderr(&o).contains("file-too-large"),
        "{}",
        stderr(&o)
    );
    assert_eq!(code(&run(&[OsStr::new("check"), p.as_os_str()])), 0);
    assert!(t.elapsed() < Duration::from_secs(60));
    let _ = std::fs::remove_dir_all(d);
}

// ---- 2. nothing lost ----

#[test]
fn pack_output_is_unique_atomic_and_never_an_input() {
    let Some(vela) = vela_out() else { return };
    let Some(src) = find(&vela, "_vela.tflite") else {
        return;
    };
    let d = tmp("packout");
    let out = d.join("m.npub");
    // The user's own `<OUT>.tmp` is neither used nor removed.
    let users = d.join("m.npub.tmp");
    std::fs::write(&users, b"mine").expect("write");
    std::fs::write(&out, b"old").expect("write");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let o = run(&[
        OsStr::new("pack"),
        src.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(&users).expect("kept"), b"mine");
    let mode = std::fs::metadata(&out).expect("out").permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "mode kept");
    assert_eq!(code(&run(&[OsStr::new("check"), out.as_os_str()])), 0);

    // Writing over the input, however spelled, is refused and the input is untouched.
    let input = d.join("in.tflite");
    std::fs::copy(&src, &input).expect("copy");
    let before = std::fs::read(&input).expect("read");
    let alias = d.join(".").join("in.tflite");
    let o = run(&[
        OsStr::new("pack"),
        input.as_os_str(),
        OsStr::new("-o"),
        alias.as_os_str(),
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("output-is-input"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&input).expect("read"), before);

    // A 255-byte output name.
    let long = d.join(format!("{}.npub", "n".repeat(250)));
    let o = run(&[
        OsStr::new("pack"),
        src.as_os_str(),
        OsStr::new("-o"),
        long.as_os_str(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    // A failing pack leaves nothing behind and the old output alone.
    let bad = d.join("bad.tflite");
    std::fs::write(&bad, b"not a model").expect("write");
    let o = run(&[
        OsStr::new("pack"),
        bad.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code(&o), 1);
    assert_eq!(code(&run(&[OsStr::new("check"), out.as_os_str()])), 0);
    let temps: Vec<_> = std::fs::read_dir(&d)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".npuschema-"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn concurrent_packs_leave_one_complete_file_and_say_so() {
    let Some(vela) = vela_out() else { return };
    let (Some(a), Some(b)) = (
        find(&vela.join("hello_world_int8"), "_vela.tflite"),
        find(&vela.join("micro_speech_quantized"), "_vela.tflite"),
    ) else {
        return;
    };
    let d = tmp("race");
    let (ra, rb) = (d.join("a.npub"), d.join("b.npub"));
    for (src, dst) in [(&a, &ra), (&b, &rb)] {
        let o = run(&[
            OsStr::new("pack"),
            src.as_os_str(),
            OsStr::new("-o"),
            dst.as_os_str(),
        ]);
        assert_eq!(code(&o), 0);
    }
    let (ba, bb) = (
        std::fs::read(&ra).expect("a"),
        std::fs::read(&rb).expect("b"),
    );
    let out = d.join("o.npub");
    for _ in 0..10 {
        let _ = std::fs::remove_file(&out);
        let spawn = |src: &Path| {
            bin()
                .args([
                    OsStr::new("pack"),
                    src.as_os_str(),
                    OsStr::new("-o"),
                    out.as_os_str(),
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        };
        let (ca, cb) = (spawn(&a), spawn(&b));
        let (oa, ob) = (
            ca.wait_with_output().expect("a"),
            cb.wait_with_output().expect("b"),
        );
        let got = std::fs::read(&out).expect("an output is there");
        let from_a = got == ba;
        assert!(from_a || got == bb, "the output is one complete blob");
        // The writer whose blob is there reported success.
        let winner = if from_a { &oa } else { &ob };
        assert_eq!(code(winner), 0, "{}", stderr(winner));
        for o in [&oa, &ob] {
            let c = code(o);
            assert!(
                c == 0 || stderr(o).contains("output-replaced"),
                "exit {c}: {}",
                stderr(o)
            );
        }
    }
    let temps = std::fs::read_dir(&d)
        .expect("dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".npuschema-"))
        .count();
    assert_eq!(temps, 0);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn run_output_is_written_only_on_success_and_never_over_an_input() {
    let d = tmp("runout");
    let m = d.join("m.npub");
    std::fs::write(&m, blob()).expect("write");
    let out = d.join("out.bin");
    std::fs::write(&out, b"previous").expect("write");
    let arg = |p: &Path| format!("1={}", p.display());
    let o = run(&[
        "run",
        "--sim",
        "--fault",
        "watchdog",
        "--output",
        &arg(&out),
        &m.to_string_lossy(),
    ]);
    assert_eq!(code(&o), 1);
    assert_eq!(std::fs::read(&out).expect("read"), b"previous");
    assert!(
        stderr(&o).contains("no --output file written"),
        "{}",
        stderr(&o)
    );

    let o = run(&["run", "--sim", "--output", &arg(&m), &m.to_string_lossy()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("output-is-input"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&m).expect("read"), blob());

    let o = run(&["run", "--sim", "--output", &arg(&out), &m.to_string_lossy()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let got = std::fs::read(&out).expect("read");
    assert_eq!(got.len(), 48);
    assert_eq!(&got[16..32], &[7u8; 16]);
    let _ = std::fs::remove_dir_all(d);
}

// ---- 3. honest results ----

#[test]
fn check_says_when_it_checked_nothing_and_reports_errors_as_json() {
    let d = tmp("nothing");
    let o = run(&[OsStr::new("check"), d.as_os_str()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("nothing-checked"), "{}", stderr(&o));
    let o = run(&[OsStr::new("check"), OsStr::new("--json"), d.as_os_str()]);
    assert_eq!(code(&o), 2);
    assert_eq!(json_lines(&o)[0]["error"]["code"], "nothing-checked");

    // Only *.bin: nothing checked. An upper-case extension is checked.
    std::fs::write(d.join("model.bin"), blob()).expect("write");
    assert_eq!(code(&run(&[OsStr::new("check"), d.as_os_str()])), 2);
    std::fs::write(d.join("MODEL.NPUB"), blob()).expect("write");
    let o = run(&[OsStr::new("check"), OsStr::new("--json"), d.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json_lines(&o).len(), 1);

    // A missing file and an unreadable directory entry are JSON lines too.
    let missing = d.join("missing.npub");
    let o = run(&[
        OsStr::new("check"),
        OsStr::new("--json"),
        missing.as_os_str(),
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(json_lines(&o)[0]["error"]["code"], "io-error");
    std::os::unix::fs::symlink("nowhere", d.join("dangling.nb")).expect("link");
    let o = run(&[OsStr::new("check"), OsStr::new("--json"), d.as_os_str()]);
    assert_eq!(code(&o), 2);
    let lines = json_lines(&o);
    assert!(
        lines.iter().any(|l| l["error"]["code"] == "io-error"
            && l["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("dangling.nb"))),
        "{lines:?}"
    );
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn non_utf8_names_are_exact_in_json() {
    let d = tmp("names");
    let name = OsStr::from_bytes(b"m\xff\xfe.npub");
    let p = d.join(name);
    std::fs::write(&p, blob()).expect("write");
    let o = run(&[OsStr::new("check"), OsStr::new("--json"), d.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = &json_lines(&o)[0];
    let hex: String = p
        .as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(v["file_hex"], hex.as_str());
    // A UTF-8 name has no file_hex.
    let q = d.join("plain.npub");
    std::fs::write(&q, blob()).expect("write");
    let o = run(&[OsStr::new("check"), OsStr::new("--json"), q.as_os_str()]);
    assert!(json_lines(&o)[0].get("file_hex").is_none());
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn single_format_commands_name_the_format_they_got_and_useless_options_are_refused() {
    let d = tmp("formats");
    let vpmn = d.join("x.nb");
    let mut v = b"VPMN".to_vec();
    v.extend([0u8; 60]);
    std::fs::write(&vpmn, &v).expect("write");
    for cmd in [&["disasm"][..], &["verify"], &["run", "--sim"]] {
        let mut args: Vec<&OsStr> = cmd.iter().map(OsStr::new).collect();
        args.push(vpmn.as_os_str());
        let o = run(&args);
        assert_eq!(code(&o), 1);
        assert!(
            stderr(&o).contains("this is a VPMN file"),
            "{cmd:?}: {}",
            stderr(&o)
        );
    }
    let npub = d.join("m.npub");
    std::fs::write(&npub, blob()).expect("write");
    let o = run(&[
        OsStr::new("inspect"),
        OsStr::new("--ledger"),
        npub.as_os_str(),
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--ledger"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn disasm_json_refusals_are_json_lines() {
    let d = tmp("disasm-json");
    let vpmn = d.join("x.nb");
    let mut v = b"VPMN".to_vec();
    v.extend([0u8; 60]);
    std::fs::write(&vpmn, &v).expect("write");
    let bad = d.join("bad.npub");
    let mut b = blob();
    b[0] ^= 0xff;
    std::fs::write(&bad, &b).expect("write");
    for (file, want) in [(&vpmn, "wrong-format"), (&bad, "bad-magic")] {
        let o = run(&[OsStr::new("disasm"), OsStr::new("--json"), file.as_os_str()]);
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        let lines = json_lines(&o);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(lines[0]["error"]["code"], want, "{lines:?}");
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn npy_shapes_that_overflow_and_oversized_members_are_refused() {
    let Some(vela) = vela_out() else { return };
    let Some(src) = find(&vela, "_vela.npz") else {
        return;
    };
    let d = tmp("npy");
    // (2^62, 2^62) int64: the element count overflows; it must not wrap to 0.
    let member = npy("<i8", "(4611686018427387904, 4611686018427387904)", &[]);
    let p = d.join("shape.npz");
    std::fs::write(&p, npz_with(&src, "scratch_size.npy", &member)).expect("write");
    let out = d.join("o.npub");
    let o = run(&[
        OsStr::new("pack"),
        p.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("npz-bad-shape"), "{}", stderr(&o));
    // A member whose declared size is over the limit is refused before it is inflated:
    // 4 MB of weights that deflate to a few KB, under a 1 MB limit.
    let member = npy("|u1", "(4000000,)", &vec![0u8; 4_000_000]);
    let bomb = d.join("bomb.npz");
    let z = npz_with_method(
        &src,
        "weight_data.npy",
        &member,
        zip::CompressionMethod::Deflated,
    );
    assert!(z.len() < 100_000, "{}", z.len());
    std::fs::write(&bomb, z).expect("write");
    let o = bin()
        .env("NPUSCHEMA_MAX_INPUT_BYTES", "1000000")
        .args([
            OsStr::new("pack"),
            bomb.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ])
        .output()
        .expect("runs");
    let err = stderr(&o);
    assert_eq!(code(&o), 1, "{err}");
    assert!(err.contains("npz-member-too-large"), "{err}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(d);
}

// ---- 4. one verdict ----

#[test]
fn check_chooses_by_magic_then_extension_and_format_forces() {
    let d = tmp("choose");
    // Shorter than the header, named .npub: NPU1's truncated-header.
    let short = d.join("short.npub");
    std::fs::write(&short, b"NP").expect("write");
    // Header-sized, wrong magic: bad-magic.
    let bad = d.join("bad.NPUB");
    std::fs::write(&bad, [0xAAu8; 64]).expect("write");
    // Wrong magic, named .nb: VPMN's bad-magic.
    let nb = d.join("bad.nb");
    std::fs::write(&nb, [0xAAu8; 64]).expect("write");
    // Unknown magic and name: unknown-format.
    let other = d.join("other.bin");
    std::fs::write(&other, [0xAAu8; 64]).expect("write");
    let o = run(&[
        OsStr::new("check"),
        OsStr::new("--json"),
        short.as_os_str(),
        bad.as_os_str(),
        nb.as_os_str(),
        other.as_os_str(),
    ]);
    assert_eq!(code(&o), 1);
    let got: Vec<(String, String)> = json_lines(&o)
        .iter()
        .map(|l| {
            (
                l["format"].as_str().unwrap_or("-").to_string(),
                l["error"]["code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let want = [
        ("npu1", "bad-magic"),        // bad.NPUB
        ("vpmn", "bad-magic"),        // bad.nb
        ("-", "unknown-format"),      // other.bin
        ("npu1", "truncated-header"), // short.npub
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
    // --format forces: an NPU1 file checked as VPMN is a VPMN bad-magic.
    let good = d.join("good.npub");
    std::fs::write(&good, blob()).expect("write");
    let o = run(&[
        OsStr::new("check"),
        OsStr::new("--json"),
        OsStr::new("--format"),
        OsStr::new("vpmn"),
        good.as_os_str(),
    ]);
    let v = &json_lines(&o)[0];
    assert_eq!(
        (v["format"].as_str(), v["error"]["code"].as_str()),
        (Some("vpmn"), Some("bad-magic"))
    );
    // inspect agrees with check on the damaged .npub, and under --json says so in JSON.
    let o = run(&[OsStr::new("inspect"), bad.as_os_str()]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("bad-magic"), "{}", stderr(&o));
    let o = run(&[OsStr::new("inspect"), OsStr::new("--json"), bad.as_os_str()]);
    assert_eq!(code(&o), 1);
    let v = &json_lines(&o)[0];
    assert_eq!(
        (v["format"].as_str(), v["error"]["code"].as_str()),
        (Some("npu1"), Some("bad-magic"))
    );
    let _ = std::fs::remove_dir_all(d);
}

/// Recompute the NPU1 checksum (FNV-1a over bytes 32..) after an edit.
fn reseal(b: &mut [u8]) {
    let sum = npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, &b[32..]);
    b[28..32].copy_from_slice(&sum.to_le_bytes());
}

fn put(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

#[test]
fn check_verify_run_and_the_loader_give_one_verdict() {
    let d = tmp("verdict");
    // A baked region at a non-16-aligned offset: the binder's rule.
    let mut misaligned = blob();
    let at = 32 + 12; // regions[0].data_offset
    let moved = get(&misaligned, at) - 4;
    put(&mut misaligned, at, moved);
    reseal(&mut misaligned);
    // accel 100: not a configuration.
    let mut accel = blob();
    put(&mut accel, 24, 100);
    reseal(&mut accel);
    // A STOP before the end of the stream: the NPU ends early.
    let mut early = blob();
    let cmd_offset = get(&early, 16) as usize;
    let cmd_bytes = get(&early, 20) as usize;
    // The stream is 11 words; put a STOP over the DMA_START (word 8) so two commands follow.
    put(&mut early, cmd_offset + 8 * 4, 0xFFFF_0000);
    assert!(cmd_bytes > 9 * 4);
    reseal(&mut early);
    let firmware = |b: &[u8]| {
        // Placed at a 16-byte aligned address, as a firmware image places it.
        let mut buf = vec![0u8; b.len() + 16];
        let skew = 0usize.wrapping_sub(buf.as_ptr().addr()) & 15;
        buf[skew..skew + b.len()].copy_from_slice(b);
        let mut arena = vec![0u8; 4096];
        npuschema_runtime::binder::Job::load(&buf[skew..skew + b.len()], &mut arena[..])
            .map(|_| ())
            .map_err(|e| e.code)
    };
    assert_eq!(firmware(&blob()), Ok(()));
    assert_eq!(firmware(&misaligned), Err("misaligned-baked-region"));
    for (name, bytes, want, stage) in [
        (
            "misaligned.npub",
            &misaligned,
            "misaligned-baked-region",
            "binder",
        ),
        ("accel.npub", &accel, "unsupported-accel", "host"),
        ("early.npub", &early, "stop-before-end", "stream-checker"),
    ] {
        let p = d.join(name);
        std::fs::write(&p, bytes).expect("write");
        let o = run(&[OsStr::new("check"), OsStr::new("--json"), p.as_os_str()]);
        assert_eq!(code(&o), 1, "{name}");
        let v = &json_lines(&o)[0];
        assert_eq!(v["error"]["code"], want, "{name}: {v}");
        assert_eq!(v["error"]["stage"], stage, "{name}: {v}");
        if want == "misaligned-baked-region" {
            // The address is the region's offset in the blob (moved 4 bytes back from an
            // aligned one), never where this process happened to hold it.
            let message = v["error"]["message"].as_str().unwrap_or_default();
            let shown = format!("blob offset {:#x} % 0x10 = 0xc", moved);
            assert!(message.ends_with(&shown), "{name}: {message}");
        }
        let o = run(&[OsStr::new("verify"), p.as_os_str()]);
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
        assert_eq!(code(&o), 1, "verify {name}: {text}");
        assert!(text.contains(want), "verify {name}: {text}");
        let o = run(&[OsStr::new("run"), OsStr::new("--sim"), p.as_os_str()]);
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
        assert_eq!(code(&o), 1, "run {name}: {text}");
        let run_code = if want == "stop-before-end" {
            "cmd-end-not-reached"
        } else {
            want
        };
        assert!(text.contains(run_code), "run {name}: {text}");
    }
    let _ = std::fs::remove_dir_all(d);
}
