//! The CLI bounded in everything (issue 31), through the real binary, in the style of
//! `cli_faults.rs`: special files never block, schema files have a limit of their own,
//! errors name the command, the argument at fault and what to do, outputs through a link
//! follow a stated rule, and interrupted runs leave no temporaries behind.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};

mod support;

/// The binary under test; `NPUSCHEMA_TEST_BIN` runs these tests against another build.
fn bin() -> Command {
    match std::env::var_os("NPUSCHEMA_TEST_BIN") {
        Some(b) => Command::new(b),
        None => Command::new(env!("CARGO_BIN_EXE_npuschema")),
    }
}

/// Run the binary with `env`, killing it and failing the test if it has not ended within
/// 20 s (a hang is the finding, so the test must not hang with it).
fn run_env(args: &[&OsStr], env: &[(&str, &str)]) -> Output {
    let child = bin()
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    support::wait_bounded(child, Duration::from_secs(20), &args)
}

fn run(args: &[&OsStr]) -> Output {
    run_env(args, &[])
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("npuschema-bounded-{}-{name}", std::process::id()));
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

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

fn schema(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schema")
        .join(name)
}

/// A small valid NPU1 blob: DMA 16 bytes from baked weights to a runtime region.
fn blob() -> Vec<u8> {
    blob_with(48)
}

/// [`blob`] with a runtime region of `runtime` bytes.
fn blob_with(runtime: u32) -> Vec<u8> {
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
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes")
}

fn vela_tflite() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vela-out");
    if !d.join(".stamp").is_file() {
        eprintln!("skipping: no vela-out (scripts/setup-vela)");
        return None;
    }
    let mut stack = vec![d];
    let mut found = Vec::new();
    while let Some(d) = stack.pop() {
        for p in std::fs::read_dir(&d).ok()?.flatten().map(|e| e.path()) {
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with("_vela.tflite") {
                found.push(p);
            }
        }
    }
    found.sort();
    found.into_iter().next()
}

fn mkfifo(p: &Path) {
    let o = Command::new("mkfifo").arg(p).output().expect("mkfifo runs");
    assert!(o.status.success(), "mkfifo: {o:?}");
}

// ---- 8. a FIFO with no writer never blocks ----

#[test]
fn a_fifo_with_no_writer_is_refused_at_once_by_every_command() {
    let d = tmp("fifo");
    let fifo = d.join("f.npub");
    mkfifo(&fifo);
    let good = d.join("good.npub");
    std::fs::write(&good, blob()).expect("write");
    let s = schema("npu1.yaml");
    let f = fifo.as_os_str();
    let out = d.join("o.npub");
    let gen_dir = d.join("gen");
    let cases: Vec<Vec<&OsStr>> = vec![
        vec![os("check"), f],
        vec![os("check"), os("--json"), f],
        vec![os("inspect"), f],
        vec![os("inspect"), os("--json"), f],
        vec![os("explain"), f],
        vec![os("disasm"), f],
        vec![os("verify"), f],
        vec![os("run"), os("--sim"), f],
        vec![os("pack"), f, os("-o"), out.as_os_str()],
        vec![os("gen"), f, os("-o"), gen_dir.as_os_str()],
        vec![os("check"), os("--schema"), f, good.as_os_str()],
        vec![os("check"), os("--schema"), s.as_os_str(), f],
        vec![os("inspect"), os("--schema"), s.as_os_str(), f],
        vec![os("inspect"), os("--schema"), f, good.as_os_str()],
        vec![os("explain"), os("--schema"), s.as_os_str(), f],
    ];
    for args in cases {
        let t = Instant::now();
        let o = run(&args);
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{args:?} took {:?}",
            t.elapsed()
        );
        let all = stderr(&o) + &stdout(&o);
        assert_eq!(code(&o), 2, "{args:?}: {all}");
        assert!(all.contains("fifo-no-writer"), "{args:?}: {all}");
        assert!(all.contains("f.npub"), "{args:?}: {all}");
    }
    assert!(!out.exists());
    // A FIFO with a writer is read like any stream.
    let fed = d.join("fed.npub");
    mkfifo(&fed);
    let bytes = blob();
    let fed2 = fed.clone();
    let writer = std::thread::spawn(move || std::fs::write(&fed2, bytes));
    // The writer may open after the reader: wait until it has (its open blocks until then).
    std::thread::sleep(Duration::from_millis(100));
    let o = run(&[os("check"), fed.as_os_str()]);
    writer.join().expect("joins").expect("writes");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(d);
}

// ---- 3. schema files have a limit of their own ----

#[test]
fn schema_files_are_read_under_a_limit_of_their_own() {
    let d = tmp("schema");
    let good = d.join("good.npub");
    std::fs::write(&good, blob()).expect("write");
    // A 2 GiB sparse "schema": refused from its size, without reading it.
    let big = d.join("big.yaml");
    let f = std::fs::File::create(&big).expect("create");
    f.set_len(2 << 30).expect("sparse");
    drop(f);
    let out = d.join("gen");
    for (args, what) in [
        (
            vec![os("gen"), os("/dev/zero"), os("-o"), out.as_os_str()],
            "/dev/zero",
        ),
        (
            vec![os("gen"), big.as_os_str(), os("-o"), out.as_os_str()],
            "big.yaml",
        ),
        (
            vec![
                os("check"),
                os("--schema"),
                big.as_os_str(),
                good.as_os_str(),
            ],
            "big.yaml",
        ),
        (
            vec![
                os("inspect"),
                os("--schema"),
                os("/dev/zero"),
                good.as_os_str(),
            ],
            "/dev/zero",
        ),
        (
            vec![
                os("explain"),
                os("--schema"),
                os("/dev/urandom"),
                good.as_os_str(),
            ],
            "/dev/urandom",
        ),
    ] {
        let t = Instant::now();
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{args:?}: {err}");
        assert!(t.elapsed() < Duration::from_secs(10), "{args:?}");
        assert!(
            err.contains("schema-too-large") || err.contains("schema-not-utf8"),
            "{args:?}: {err}"
        );
        assert!(err.contains(what), "{args:?}: {err}");
    }
    // Under the limit but not text.
    let bin_schema = d.join("bin.yaml");
    std::fs::write(&bin_schema, [b'a', b':', b' ', 0xff, 0xfe]).expect("write");
    let o = run(&[
        os("check"),
        os("--schema"),
        bin_schema.as_os_str(),
        good.as_os_str(),
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("schema-not-utf8"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(d);
}

// ---- 10. errors name the command, the argument and what to do ----

#[test]
fn a_bad_input_limit_is_an_error_naming_the_variable() {
    let d = tmp("env");
    let good = d.join("good.npub");
    std::fs::write(&good, blob()).expect("write");
    for bad in ["abc", "-1", "1e9", ""] {
        let o = run_env(
            &[os("check"), good.as_os_str()],
            &[("NPUSCHEMA_MAX_INPUT_BYTES", bad)],
        );
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{bad:?}: {err}");
        assert!(
            err.starts_with("npuschema check: NPUSCHEMA_MAX_INPUT_BYTES="),
            "{err}"
        );
        assert!(err.contains("not a byte count"), "{err}");
    }
    for ok in ["1000000", "0x100000"] {
        let o = run_env(
            &[os("check"), good.as_os_str()],
            &[("NPUSCHEMA_MAX_INPUT_BYTES", ok)],
        );
        assert_eq!(code(&o), 0, "{ok}: {}", stderr(&o));
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn gen_into_a_file_says_o_takes_a_directory() {
    let d = tmp("genfile");
    let file = d.join("x");
    std::fs::write(&file, b"mine").expect("write");
    let s = schema("npu1.yaml");
    let o = run(&[os("gen"), s.as_os_str(), os("-o"), file.as_os_str()]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(err.starts_with("npuschema gen: -o "), "{err}");
    assert!(err.contains("-o takes a directory"), "{err}");
    assert!(!err.contains("os error"), "{err}");
    assert_eq!(std::fs::read(&file).expect("read"), b"mine");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn yaml_budget_breaches_are_words_not_debug_text() {
    let d = tmp("budget");
    let deep = d.join("deep.yaml");
    std::fs::write(
        &deep,
        format!("name: x\nfile: {}{}\n", "[".repeat(200), "]".repeat(200)),
    )
    .expect("write");
    let good = d.join("good.npub");
    std::fs::write(&good, blob()).expect("write");
    let out = d.join("gen");
    for args in [
        vec![os("gen"), deep.as_os_str(), os("-o"), out.as_os_str()],
        vec![
            os("check"),
            os("--schema"),
            deep.as_os_str(),
            good.as_os_str(),
        ],
    ] {
        let o = run(&args);
        let err = stderr(&o);
        assert_ne!(code(&o), 0, "{err}");
        assert!(
            err.contains("nested") && err.contains("levels deep"),
            "{err}"
        );
        assert!(!err.contains("Depth {"), "{err}");
        assert!(err.contains("deep.yaml:"), "{err}");
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_name_with_a_newline_stays_on_one_line() {
    let d = tmp("newline");
    let name = d.join("a\nb.npub");
    std::fs::write(&name, blob()).expect("write");
    let s = schema("npu1.yaml");
    for args in [
        vec![os("check"), name.as_os_str()],
        vec![os("check"), d.as_os_str()],
        vec![os("check"), os("--schema"), s.as_os_str(), name.as_os_str()],
    ] {
        let o = run(&args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let text = stdout(&o);
        assert_eq!(text.lines().count(), 1, "{text:?}");
        assert!(text.contains("a\\nb.npub: OK"), "{text:?}");
    }
    // JSON keeps the exact name.
    let o = run(&[os("check"), os("--json"), name.as_os_str()]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("json");
    assert_eq!(v["file"], name.to_str().expect("utf-8"));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn pack_to_a_directory_name_is_refused_before_any_work() {
    let Some(src) = vela_tflite() else { return };
    let d = tmp("packdir");
    let target = d.join("out.npub");
    let mut slash = target.as_os_str().as_bytes().to_vec();
    slash.push(b'/');
    let slash = PathBuf::from(OsStr::from_bytes(&slash));
    // An input that would fail late (a directory) shows the order: the output is refused
    // first, so the input is never read.
    for (out, want) in [
        (slash.as_path(), "ends in `/`"),
        (d.as_path(), "is a directory"),
    ] {
        let o = run(&[
            os("pack"),
            os("/nonexistent-input"),
            os("-o"),
            out.as_os_str(),
        ]);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{err}");
        assert!(err.contains(want), "{err}");
        assert!(!err.contains("nonexistent-input"), "{err}");
        let o = run(&[os("pack"), src.as_os_str(), os("-o"), out.as_os_str()]);
        assert_eq!(code(&o), 2, "{}", stderr(&o));
    }
    let left: Vec<_> = std::fs::read_dir(&d).expect("dir").flatten().collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(d);
}

// ---- 11. an output through a symbolic link is written through ----

#[test]
fn pack_and_run_outputs_through_a_link_replace_its_target_and_keep_the_link() {
    let Some(src) = vela_tflite() else { return };
    let d = tmp("link");
    let real_dir = d.join("real");
    std::fs::create_dir_all(&real_dir).expect("dir");
    let real = real_dir.join("model.npub");
    std::fs::write(&real, b"old").expect("write");
    let link = d.join("link.npub");
    std::os::unix::fs::symlink("real/model.npub", &link).expect("symlink");
    let o = run(&[os("pack"), src.as_os_str(), os("-o"), link.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let meta = std::fs::symlink_metadata(&link).expect("link");
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    let packed = std::fs::read(&real).expect("target");
    assert_eq!(&packed[..4], b"NPU1");
    // The temporary was made next to the target, and is gone.
    for dir in [&d, &real_dir] {
        for e in std::fs::read_dir(dir).expect("dir").flatten() {
            assert!(!e.file_name().to_string_lossy().ends_with(".tmp"), "{e:?}");
        }
    }
    // A dangling link is refused, nothing created.
    let dangling = d.join("dangling.npub");
    std::os::unix::fs::symlink("nowhere/x.npub", &dangling).expect("symlink");
    let o = run(&[os("pack"), src.as_os_str(), os("-o"), dangling.as_os_str()]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert!(!d.join("nowhere").exists());
    // run --output follows the same rule.
    let good = d.join("good.npub");
    std::fs::write(&good, blob()).expect("write");
    let out_real = real_dir.join("out.bin");
    std::fs::write(&out_real, b"old").expect("write");
    let out_link = d.join("out.bin");
    std::os::unix::fs::symlink("real/out.bin", &out_link).expect("symlink");
    let spec = format!("1={}", out_link.display());
    let o = run(&[
        os("run"),
        os("--sim"),
        good.as_os_str(),
        os("--output"),
        os(&spec),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(&out_link)
            .expect("link")
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&out_real).expect("read").len(), 48);
    // A FIFO (or a device) as the output: the rename would replace it, so it is refused
    // before any work, and stays a FIFO.
    let fifo = d.join("fifo.npub");
    mkfifo(&fifo);
    let spec = format!("1={}", fifo.display());
    for args in [
        vec![os("pack"), src.as_os_str(), os("-o"), fifo.as_os_str()],
        vec![
            os("run"),
            os("--sim"),
            good.as_os_str(),
            os("--output"),
            os(&spec),
        ],
    ] {
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{args:?}: {err}");
        assert!(err.contains("output-not-a-regular-file"), "{err}");
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&fifo)
                .expect("fifo")
                .file_type()
                .is_fifo()
        );
    }
    let _ = std::fs::remove_dir_all(d);
}

// ---- 6. interrupted runs leave no temporaries ----

#[test]
fn a_temporary_left_by_a_killed_run_is_removed_by_the_next() {
    let Some(src) = vela_tflite() else { return };
    let d = tmp("stale");
    // A process id that is gone: a child that has been reaped.
    let mut child = Command::new("true").spawn().expect("spawn");
    let dead = child.id();
    child.wait().expect("wait");
    let stale = d.join(format!(".npuschema-{dead}-abc123.tmp"));
    std::fs::write(&stale, vec![0u8; 1000]).expect("write");
    // One of a live process (this test) is left alone.
    let live = d.join(format!(".npuschema-{}-abc123.tmp", std::process::id()));
    std::fs::write(&live, b"live").expect("write");
    // One without a process id (an older version's) is named, not removed.
    let old = d.join(".npuschema-Xy12Ab.tmp");
    std::fs::write(&old, b"old").expect("write");
    let out = d.join("o.npub");
    let o = run(&[os("pack"), src.as_os_str(), os("-o"), out.as_os_str()]);
    let err = stderr(&o);
    assert_eq!(code(&o), 0, "{err}");
    assert!(!stale.exists(), "{err}");
    assert!(
        err.contains(&format!("removed {}", stale.display())),
        "{err}"
    );
    assert!(live.exists());
    assert!(old.exists());
    assert!(
        err.contains(".npuschema-Xy12Ab.tmp") && err.contains("older"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(d);
}

/// Send `sig` to the process `pid` with kill(1).
fn kill(pid: u32, sig: &str) {
    let o = Command::new("kill")
        .args([sig, &pid.to_string()])
        .output()
        .expect("kill runs");
    assert!(o.status.success(), "{o:?}");
}

/// A copy of the zip `src` with `member` replaced by `bytes`, deflated.
fn npz_with(src: &Path, member: &str, bytes: &[u8]) -> Vec<u8> {
    use std::io::{Read, Write};
    let data = std::fs::read(src).expect("npz");
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(data)).expect("zip");
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for i in 0..z.len() {
        let mut f = z.by_index(i).expect("member");
        let name = f.name().expect("name").to_string();
        let mut body = Vec::new();
        f.read_to_end(&mut body).expect("read");
        if name == member {
            w.start_file(
                name.as_str(),
                stored.compression_method(zip::CompressionMethod::Deflated),
            )
            .expect("start");
            w.write_all(bytes).expect("write");
        } else {
            w.start_file(name.as_str(), stored).expect("start");
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
    out.extend_from_slice(&u16::try_from(dict.len()).expect("short").to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend_from_slice(data);
    out
}

fn vela_npz() -> Option<PathBuf> {
    let t = vela_tflite()?;
    let mut stack = vec![t.parent()?.parent()?.parent()?.to_path_buf()];
    let mut found = Vec::new();
    while let Some(d) = stack.pop() {
        for p in std::fs::read_dir(&d).ok()?.flatten().map(|e| e.path()) {
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with("_vela.npz") {
                found.push(p);
            }
        }
    }
    found.sort();
    found.into_iter().next()
}

/// A Vela npz whose weights inflate to `mib` MiB (a few hundred KB on disk).
fn big_weights_npz(d: &Path, mib: usize) -> Option<PathBuf> {
    let src = vela_npz()?;
    let member = npy("|u1", &format!("({},)", mib << 20), &vec![0u8; mib << 20]);
    let p = d.join("big.npz");
    std::fs::write(&p, npz_with(&src, "weight_data.npy", &member)).expect("write");
    Some(p)
}

#[test]
fn sigint_and_sigterm_during_pack_remove_the_temporary() {
    let d = tmp("signal");
    let Some(input) = big_weights_npz(&d, 64) else {
        return;
    };
    let work = d.join("out");
    std::fs::create_dir_all(&work).expect("dir");
    for sig in ["-INT", "-TERM", "-HUP"] {
        let out = work.join("o.npub");
        let mut child = bin()
            .args([os("pack"), input.as_os_str(), os("-o"), out.as_os_str()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let t = Instant::now();
        let mut signalled = false;
        while child.try_wait().expect("wait").is_none() && t.elapsed() < Duration::from_secs(60) {
            let has_tmp = std::fs::read_dir(&work)
                .expect("dir")
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"));
            if has_tmp {
                kill(child.id(), sig);
                signalled = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let status = child.wait().expect("wait");
        assert!(
            signalled,
            "{sig}: the pack ended before its temporary was seen"
        );
        let want = match sig {
            "-INT" => 130,
            "-TERM" => 143,
            _ => 129,
        };
        assert_eq!(status.code(), Some(want), "{sig}: {status:?}");
        let left: Vec<_> = std::fs::read_dir(&work)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(left.is_empty(), "{sig}: {left:?}");
    }
    let _ = std::fs::remove_dir_all(d);
}

// ---- 4. aggregates once per collection ----

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

fn time_check(schema: &Path, file: &Path) -> Duration {
    let t = Instant::now();
    let o = run(&[
        os("check"),
        os("--schema"),
        schema.as_os_str(),
        file.as_os_str(),
    ]);
    let took = t.elapsed();
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    took
}

#[test]
fn count_and_first_in_a_for_each_body_walk_the_stream_once() {
    let d = tmp("count");
    let file = d.join("nops.bin");
    std::fs::write(&file, cop1_payload(3000)).expect("write");
    let each = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cop1_count_each.yaml");
    let plain = schema("ethos_u_cop1.yaml");
    // The peer: the same file under the schema whose count() is outside the for_each. A
    // walk per record makes the ratio hundreds (3000 records, each walking 3000); once per
    // collection it is about 1.
    let base = (0..3)
        .map(|_| time_check(&plain, &file))
        .min()
        .expect("runs");
    let with = (0..3)
        .map(|_| time_check(&each, &file))
        .min()
        .expect("runs");
    let ratio = with.as_secs_f64() / base.as_secs_f64().max(1e-3);
    eprintln!("count() in for_each: {with:?} against {base:?} without: ratio {ratio:.1}");
    assert!(ratio < 8.0, "{with:?} against {base:?}: ratio {ratio:.1}");
    // And the assert itself is checked: a second OPTIMIZER_CONFIG fails it.
    let mut two = cop1_payload(10);
    let tail = two.split_off(4);
    two.extend_from_slice(&tail[..12]);
    two.extend_from_slice(&tail);
    std::fs::write(&file, &two).expect("write");
    let o = run(&[
        os("check"),
        os("--schema"),
        each.as_os_str(),
        file.as_os_str(),
    ]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("cop-duplicate-action"),
        "{}",
        stdout(&o)
    );
    let _ = std::fs::remove_dir_all(d);
}

// ---- 1. output bounded whatever is printed ----

/// Peak RSS in KB of the binary run with `args` (`/usr/bin/time -f %M`), and its output;
/// `None` (said on stderr) where `/usr/bin/time` is missing.
fn peak_kb(args: &[&OsStr]) -> Option<(u64, Output)> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("skipping the memory figure: no /usr/bin/time (Debian package `time`)");
        return None;
    }
    let bin = std::env::var_os("NPUSCHEMA_TEST_BIN")
        .unwrap_or_else(|| OsStr::new(env!("CARGO_BIN_EXE_npuschema")).to_os_string());
    // One directory per call: tests run in parallel, and `tmp` empties what it returns.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = tmp(&format!("peak{call}"));
    let report = dir.join("rss");
    let o = Command::new(time)
        .arg("-o")
        .arg(&report)
        .arg("-f")
        .arg("%M")
        .arg(bin)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    let kb = std::fs::read_to_string(&report)
        .expect("time's report")
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .next_back()
        .expect("a number");
    let _ = std::fs::remove_dir_all(dir);
    Some((kb, o))
}

/// An NPU1 blob with `n` runtime regions of 16 bytes after the DMA's two.
fn many_regions(n: usize) -> Vec<u8> {
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
    let mut specs = vec![RegionSpec {
        role: Role::Weights,
        data: RegionData::Baked(&weights),
    }];
    specs.extend((0..n).map(|_| RegionSpec {
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

#[test]
fn inspect_and_explain_of_many_records_stay_bounded_and_say_what_they_left_out() {
    let d = tmp("many");
    let npu1 = d.join("many.npub");
    let blob = many_regions(300_000);
    std::fs::write(&npu1, &blob).expect("write");
    let cop = d.join("nops.cop1");
    std::fs::write(&cop, cop1_payload(400_000)).expect("write");
    let s_npu1 = schema("npu1.yaml");
    let s_cop = schema("ethos_u_cop1.yaml");
    let input_kb = (blob.len() as u64) / 1024;
    let cases: Vec<(Vec<&OsStr>, &str)> = vec![
        (
            vec![os("inspect"), os("--json"), npu1.as_os_str()],
            "regions_omitted",
        ),
        (
            vec![os("inspect"), npu1.as_os_str()],
            "more regions not listed",
        ),
        (
            vec![os("explain"), npu1.as_os_str()],
            "more regions not listed",
        ),
        (
            vec![
                os("inspect"),
                os("--schema"),
                s_npu1.as_os_str(),
                os("--json"),
                npu1.as_os_str(),
            ],
            "\"omitted\":290001",
        ),
        (
            vec![
                os("inspect"),
                os("--schema"),
                s_cop.as_os_str(),
                os("--json"),
                cop.as_os_str(),
            ],
            "\"omitted\":390002",
        ),
        (
            vec![
                os("inspect"),
                os("--schema"),
                s_cop.as_os_str(),
                cop.as_os_str(),
            ],
            "390002 not",
        ),
        (
            vec![
                os("explain"),
                os("--schema"),
                s_cop.as_os_str(),
                cop.as_os_str(),
            ],
            "names its first 10000 of 400002 records",
        ),
    ];
    for (args, says) in cases {
        let Some((kb, o)) = peak_kb(&args) else {
            return;
        };
        let text = stdout(&o);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert!(
            text.contains(says),
            "{args:?}: {}",
            &text[text.len().saturating_sub(400)..]
        );
        eprintln!(
            "{args:?}: peak RSS {kb} KB, stdout {} KB",
            text.len() / 1024
        );
        // The input (about 4.6 MB), the listed 10,000 records and the text: not the 300,000
        // or 400,000 records (hundreds of MB before).
        assert!(kb < input_kb + 96 * 1024, "{args:?}: {kb} KB");
    }
    let _ = std::fs::remove_dir_all(d);
}

// ---- 14. inspect of a damaged file shows what it can read ----

#[test]
fn inspect_of_a_bad_checksum_shows_the_header_regions_and_both_checksums() {
    let d = tmp("damaged");
    let mut b = blob();
    let last = b.len() - 1;
    b[last] ^= 0xff;
    let p = d.join("bad.npub");
    std::fs::write(&p, &b).expect("write");
    let o = run(&[os("inspect"), p.as_os_str()]);
    assert_eq!(code(&o), 1);
    let text = stdout(&o);
    assert!(text.contains("INVALID"), "{text}");
    assert!(text.contains("region_count  2"), "{text}");
    assert!(text.contains("<-- differ"), "{text}");
    assert!(text.contains("[1] role"), "{text}");
    assert!(text.contains("FAILED        checksum-mismatch"), "{text}");
    let o = run(&[os("inspect"), os("--json"), p.as_os_str()]);
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("json");
    assert_eq!(v["error"]["code"], "checksum-mismatch");
    assert_eq!(v["file"], p.to_str().expect("utf-8"));
    let k = &v["partial"]["checksum"];
    assert_ne!(k["stored"], k["computed"]);
    assert_eq!(
        v["partial"]["regions_as_stored"]
            .as_array()
            .expect("array")
            .len(),
        2
    );
    let _ = std::fs::remove_dir_all(d);
}

// ---- 15. one meaning per JSON key ----

#[test]
fn file_is_the_path_in_every_commands_json() {
    let d = tmp("keys");
    let p = d.join("good.npub");
    std::fs::write(&p, blob()).expect("write");
    let s = schema("npu1.yaml");
    let path = p.to_str().expect("utf-8");
    for args in [
        vec![os("check"), os("--json"), p.as_os_str()],
        vec![
            os("check"),
            os("--json"),
            os("--schema"),
            s.as_os_str(),
            p.as_os_str(),
        ],
        vec![
            os("inspect"),
            os("--json"),
            os("--schema"),
            s.as_os_str(),
            p.as_os_str(),
        ],
    ] {
        let o = run(&args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("json");
        assert_eq!(v["file"], path, "{args:?}");
    }
    let o = run(&[
        os("inspect"),
        os("--json"),
        os("--schema"),
        s.as_os_str(),
        p.as_os_str(),
    ]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("json");
    assert_eq!(v["view"], "Npu1");
    let _ = std::fs::remove_dir_all(d);
}

// ---- 9. one verdict: the arena run --sim allocates ----

#[test]
fn check_warns_when_run_sim_needs_a_larger_max_arena() {
    let d = tmp("arena");
    let p = d.join("big-arena.npub");
    std::fs::write(&p, blob_with(128 << 20)).expect("write");
    let o = run(&[os("check"), p.as_os_str()]);
    let text = stdout(&o);
    assert_eq!(code(&o), 0, "{text}");
    assert!(
        text.contains("OK (warning: arena-over-sim-default"),
        "{text}"
    );
    assert!(text.contains("--max-arena 134217"), "{text}");
    let o = run(&[os("check"), os("--json"), p.as_os_str()]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("json");
    assert_eq!(v["valid"], true);
    assert_eq!(v["warnings"][0]["code"], "arena-over-sim-default");
    let need = v["warnings"][0]["arena_bytes"].as_u64().expect("bytes");
    assert!(need >= 128 << 20, "{need}");
    // run --sim refuses it as check said, before allocating.
    let o = run(&[os("run"), os("--sim"), p.as_os_str()]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("arena-over-limit") || stdout(&o).contains("arena-over-limit"));
    // ... and with the --max-arena check names, the run succeeds (the README's rule).
    let need = need.to_string();
    let o = run(&[
        os("run"),
        os("--sim"),
        os("--max-arena"),
        os(&need),
        p.as_os_str(),
    ]);
    assert_eq!(code(&o), 0, "--max-arena {need}: {}", stderr(&o));
    let o = run(&[
        os("run"),
        os("--sim"),
        os("--max-arena"),
        os(&(need.parse::<u64>().expect("n") - 1).to_string()),
        p.as_os_str(),
    ]);
    assert_eq!(code(&o), 2, "one byte less: {}", stderr(&o));
    // Under the default: no warning.
    let small = d.join("small.npub");
    std::fs::write(&small, blob()).expect("write");
    let o = run(&[os("check"), os("--json"), small.as_os_str()]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("json");
    assert!(v.get("warnings").is_none(), "{v}");
    let _ = std::fs::remove_dir_all(d);
}

// ---- 5. pack: npz members inflated within a total limit ----

#[test]
fn npz_members_inflate_within_one_total_limit() {
    let Some(src) = vela_npz() else { return };
    let d = tmp("npztotal");
    // Two members of 600 kB each: each under a 1 MB limit, together over it.
    let weights = npy("|u1", "(600000,)", &vec![0u8; 600_000]);
    let once = npz_with(&src, "weight_data.npy", &weights);
    let one = d.join("one.npz");
    std::fs::write(&one, &once).expect("write");
    // weight_region.npy's one int64, then 600 kB more: read after the weights, it passes
    // the total.
    let mut region = vec![0u8; 8];
    region.extend(vec![0u8; 600_000]);
    let region = npy("<i8", "(1,)", &region);
    let two = d.join("two.npz");
    std::fs::write(&two, npz_with(&one, "weight_region.npy", &region)).expect("write");
    let out = d.join("o.npub");
    let env = [("NPUSCHEMA_MAX_INPUT_BYTES", "1000000")];
    let o = run_env(
        &[os("pack"), one.as_os_str(), os("-o"), out.as_os_str()],
        &env,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::remove_file(&out).expect("packed");
    let o = run_env(
        &[os("pack"), two.as_os_str(), os("-o"), out.as_os_str()],
        &env,
    );
    let err = stderr(&o);
    assert_eq!(code(&o), 1, "{err}");
    assert!(err.contains("npz-too-large"), "{err}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(d);
}

// ---- 7. a huge --max-arena meets a clear error, never an abort ----

/// Run the binary with `args` under an address-space limit of `kb` KB (`ulimit -v`), as a
/// machine with that much memory would, killing it after 60 s.
fn run_limited(kb: u64, args: &[&OsStr]) -> Output {
    let bin = std::env::var_os("NPUSCHEMA_TEST_BIN")
        .unwrap_or_else(|| OsStr::new(env!("CARGO_BIN_EXE_npuschema")).to_os_string());
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\""))
        .arg(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    support::wait_bounded(child, Duration::from_secs(60), &args)
}

#[test]
fn run_sim_with_a_huge_max_arena_ends_with_a_clear_error_not_an_abort() {
    let d = tmp("hugearena");
    let p = d.join("huge.npub");
    // Valid (check and verify accept it: the stream touches 32 bytes), with a 4 GiB - 1
    // runtime region; run --sim is allowed an 8 GiB arena, on a machine of 6 GiB.
    std::fs::write(&p, blob_with(0xFFFF_FFFF)).expect("write");
    for json in [false, true] {
        let mut args = vec![os("run"), os("--sim"), os("--max-arena"), os("8589934592")];
        if json {
            args.push(os("--json"));
        }
        args.push(p.as_os_str());
        let t = Instant::now();
        let o = run_limited(6 << 20, &args);
        let all = stderr(&o) + &stdout(&o);
        eprintln!("{args:?}: {:?} in {:?}", o.status, t.elapsed());
        // Exited (an abort is SIGABRT: `code` panics on a signal), with a clear error.
        assert_eq!(code(&o), 2, "{all}");
        assert!(all.contains("sim-out-of-memory"), "{all}");
        assert!(!all.contains("memory allocation of"), "{all}");
        if json {
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
            assert_eq!(v["code"], "sim-out-of-memory", "{v}");
        }
    }
    let _ = std::fs::remove_dir_all(d);
}

// ---- 5. pack holds one copy of the inflated input ----

#[test]
fn pack_of_a_small_npz_with_large_weights_holds_them_once() {
    let d = tmp("packrss");
    let mib = 128;
    let Some(input) = big_weights_npz(&d, mib) else {
        return;
    };
    let small = vela_npz().expect("the npz big_weights_npz started from");
    let out = d.join("o.npub");
    // The constant: the same pack of the model as Vela wrote it (a few KB of weights).
    let Some((base_kb, o)) = peak_kb(&[os("pack"), small.as_os_str(), os("-o"), out.as_os_str()])
    else {
        return;
    };
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::remove_file(&out).expect("packed");
    let Some((kb, o)) = peak_kb(&[os("pack"), input.as_os_str(), os("-o"), out.as_os_str()]) else {
        return;
    };
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let inflated_kb = (mib as u64) << 10;
    let on_disk_kb = std::fs::metadata(&input).expect("input").len() / 1024;
    eprintln!(
        "pack of a {on_disk_kb} KB npz inflating to {inflated_kb} KB: peak RSS {kb} KB (the small model's pack: {base_kb} KB)"
    );
    // One copy of the weights (in the blob) and the small model's constant, with 16 MiB
    // to spare; two copies (the model's and the blob's, 774 MB and then 531 MB for 250 MiB
    // before) are over it by 112 MiB.
    assert!(
        kb < inflated_kb + base_kb + (16 << 10),
        "{kb} KB for {inflated_kb} KB of weights (constant {base_kb} KB)"
    );
    // The blob holds the weights, as packed.
    let o = run(&[os("check"), out.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(std::fs::metadata(&out).expect("out").len() > (mib as u64) << 20);
    let _ = std::fs::remove_dir_all(d);
}

// ---- 1. VPMN views and listings bounded too ----

fn u32s(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A 112-byte VPMN I/O record.
fn io_record(dims: &[u32], format: u32, name: &str) -> Vec<u8> {
    let mut d = [1u32; 6];
    d[..dims.len()].copy_from_slice(dims);
    let mut r = u32s(&[dims.len() as u32]);
    r.extend(u32s(&d));
    r.extend(u32s(&[format, 0, 0, 0, 0]));
    let mut n = [0u8; 64];
    n[..name.len()].copy_from_slice(name.as_bytes());
    r.extend(n);
    r
}

/// A 220-byte VPMN NETWORK_INFO record.
fn network_info(inputs: u32, outputs: u32) -> Vec<u8> {
    let mut n = [0u8; 64];
    n[..4].copy_from_slice(b"test");
    let mut r = n.to_vec();
    r.extend(u32s(&[inputs, outputs, 1, 1, 4, 1, 32, 0x0a]));
    r.extend([0u8; 124]);
    r
}

/// A valid VPMN version 2 file (the writer's) with `sections` extra directory records (an
/// opaque type, 4 bytes each), `inputs` INPUT records and `slots` DYNAIO_TABLE entries.
fn many_vpmn(sections: usize, inputs: usize, slots: usize) -> Vec<u8> {
    use npuschema_cli::vpmn::writer::{Section, V2Spec, build_v2};
    let mut input = Vec::new();
    for i in 0..inputs {
        input.extend(io_record(&[3, 8, 8, 1], 1, &format!("input[{i}]")));
    }
    let mut dynaio = vec![0u8; 64 * slots.max(1)];
    dynaio[0] = 1;
    let table: Vec<u32> = (0..slots as u32).flat_map(|i| [64 * i, 64]).collect();
    let mut s = vec![
        Section::new(35, 220, network_info(inputs as u32, 1)),
        Section::new(38, 4, u32s(&[262_144])),
        Section::new(40, 8, u32s(&[7, 0])),
        Section::new(1, 112, input),
        Section::new(2, 112, io_record(&[10], 5, "out")),
        Section::new(7, 192, (0..192u32).map(|i| (i * 7) as u8).collect()),
        Section::new(20, 1, dynaio),
        Section::new(26, 8, u32s(&table)),
    ];
    s.extend((0..sections).map(|i| Section::new(4, 4, u32s(&[i as u32]))));
    build_v2(&V2Spec {
        target: 0x1000_003B,
        class_word: 0,
        reserved: [0, 0],
        sections: s,
    })
    .expect("writes")
}

#[test]
fn vpmn_inspect_and_explain_of_many_entries_stay_bounded() {
    let d = tmp("vpmnmany");
    let p = d.join("many.nb");
    // 1,008 sections (the schema allows 1,024 parts: header, sub-header, directory and
    // 1,021 sections), 20,000 inputs, 20,000 DYNAIO slots: 4.6 MB.
    let bytes = many_vpmn(1_000, 20_000, 20_000);
    std::fs::write(&p, &bytes).expect("write");
    let input_kb = bytes.len() as u64 / 1024;
    let cases: Vec<(Vec<&OsStr>, Vec<&str>)> = vec![
        (
            vec![os("inspect"), p.as_os_str()],
            vec!["... 10000 more inputs not listed (at most 10000)"],
        ),
        (
            vec![os("inspect"), os("--ledger"), p.as_os_str()],
            vec!["more owners not listed (at most 10000)"],
        ),
        (
            vec![os("inspect"), os("--json"), p.as_os_str()],
            vec![
                "\"inputs_omitted\":10000",
                "\"dynaio_omitted\":10000",
                "\"owners_omitted\":",
            ],
        ),
        (
            vec![os("explain"), p.as_os_str()],
            vec![
                "more owners not listed (at most 10000)",
                "10000 more DYNAIO slots (not listed, at most 10000): 0 checks fail",
            ],
        ),
    ];
    for (args, says) in cases {
        let Some((kb, o)) = peak_kb(&args) else {
            return;
        };
        let text = stdout(&o);
        eprintln!(
            "{args:?}: peak RSS {kb} KB (input {input_kb} KB), stdout {} KB",
            text.len() / 1024
        );
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        for s in says {
            assert!(text.contains(s), "{args:?}: no {s:?}");
        }
        // The input, the ledger of its 21,000 owners (a few times the input) and the
        // listed 10,000 of each kind: not every record as a JSON object.
        assert!(kb < 8 * input_kb + 160 * 1024, "{args:?}: {kb} KB");
        assert!(
            (text.len() as u64) < 32 << 20,
            "{args:?}: {} bytes",
            text.len()
        );
    }
    let _ = std::fs::remove_dir_all(d);
}

/// A directory of 100,008 sections is past the schema's bound of 1,024 parts: every
/// command refuses it at once (`too-many-sections`, before any pair is compared) with
/// memory bounded by the input, not the 5 x 10^9 comparisons the parts would need.
#[test]
fn vpmn_directory_past_the_ownership_bound_is_refused_at_once() {
    use npuschema_cli::vpmn::writer::{Section, V2Spec, assemble};
    let d = tmp("vpmnbound");
    let p = d.join("too-many.nb");
    let mut s = vec![
        Section::new(35, 220, network_info(1, 1)),
        Section::new(1, 112, io_record(&[3, 8, 8, 1], 1, "input")),
        Section::new(2, 112, io_record(&[10], 5, "out")),
    ];
    s.extend((0..100_005).map(|i| Section::new(4, 4, u32s(&[i as u32]))));
    let bytes = assemble(&V2Spec {
        target: 0x1000_003B,
        class_word: 0,
        reserved: [0, 0],
        sections: s,
    })
    .expect("writes");
    std::fs::write(&p, &bytes).expect("write");
    let input_kb = bytes.len() as u64 / 1024;
    for args in [
        vec![os("check"), os("--json"), p.as_os_str()],
        vec![os("inspect"), p.as_os_str()],
        vec![os("explain"), p.as_os_str()],
    ] {
        let Some((kb, o)) = peak_kb(&args) else {
            return;
        };
        eprintln!("{args:?}: peak RSS {kb} KB (input {input_kb} KB)");
        assert_eq!(code(&o), 1, "{args:?}");
        let all = format!("{}{}", stdout(&o), stderr(&o));
        assert!(all.contains("too-many-sections"), "{args:?}: {all}");
        assert!(kb < 8 * input_kb + 160 * 1024, "{args:?}: {kb} KB");
    }
    let _ = std::fs::remove_dir_all(d);
}

// ---- 10. one line per verdict on stdout; every other line names the command ----

#[test]
fn check_prints_verdicts_on_stdout_and_errors_naming_the_command_on_stderr() {
    let d = tmp("prefix");
    let good = d.join("good.npub");
    std::fs::write(&good, blob()).expect("write");
    let bad = d.join("bad\nname.npub");
    let mut b = blob();
    b[4] = 9;
    std::fs::write(&bad, &b).expect("write");
    let fifo = d.join("f\nifo.npub");
    mkfifo(&fifo);
    let gone = d.join("gone.npub");
    let s = schema("npu1.yaml");
    for schema_args in [vec![], vec![os("--schema"), s.as_os_str()]] {
        let mut args = vec![os("check")];
        args.extend(schema_args.iter().copied());
        args.extend([
            good.as_os_str(),
            bad.as_os_str(),
            fifo.as_os_str(),
            gone.as_os_str(),
        ]);
        let o = run(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        // Verdicts: one line per file checked, the name escaped.
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{args:?}: {out}");
        assert!(lines.iter().any(|l| l.ends_with("good.npub: OK")), "{out}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("bad\\nname.npub: unsupported-version")),
            "{out}"
        );
        // Errors: each line names the command and the file (escaped).
        let err = stderr(&o);
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{args:?}: {err}");
        for l in &lines {
            assert!(l.starts_with("npuschema check: "), "{args:?}: {l}");
            assert!(l.contains(": cannot read: "), "{args:?}: {l}");
        }
        assert!(
            err.contains("f\\nifo.npub: cannot read: fifo-no-writer"),
            "{err}"
        );
        assert!(err.contains("gone.npub: cannot read: "), "{err}");
    }
    // The other file commands name themselves too, with or without a schema.
    for (cmd, schema_args) in [
        ("inspect", vec![]),
        ("inspect", vec![os("--schema"), s.as_os_str()]),
        ("explain", vec![]),
        ("explain", vec![os("--schema"), s.as_os_str()]),
        ("verify", vec![]),
        ("disasm", vec![]),
    ] {
        for f in [&gone, &bad] {
            let mut args = vec![os(cmd)];
            args.extend(schema_args.iter().copied());
            args.push(f.as_os_str());
            let o = run(&args);
            let err = stderr(&o);
            assert_ne!(code(&o), 0, "{args:?}");
            if cmd == "explain" && schema_args.is_empty() && f == &bad {
                // The explanation of what failed is explain's output.
                let out = stdout(&o);
                let first = out.lines().next().unwrap_or_default();
                assert!(
                    first.contains("bad\\nname.npub: not a valid NPU1 blob"),
                    "{out}"
                );
                continue;
            }
            let first = err.lines().next().unwrap_or_default();
            assert!(
                first.starts_with(&format!("npuschema {cmd}: ")),
                "{args:?}: {err}"
            );
            assert!(!first.contains('\n'), "{args:?}: {err}");
        }
    }
    // A schema that cannot be read: the command named too.
    let schema_dir = schema("");
    for cmd in ["check", "inspect", "explain"] {
        for bad in [schema_dir.as_os_str(), os("/dev/zero")] {
            let o = run(&[os(cmd), os("--schema"), bad, good.as_os_str()]);
            assert_eq!(code(&o), 2, "{cmd} {bad:?}");
            assert!(
                stderr(&o).starts_with(&format!("npuschema {cmd}: ")),
                "{cmd} {bad:?}: {}",
                stderr(&o)
            );
        }
    }
    let _ = std::fs::remove_dir_all(d);
}

// ---- 2. the simulator's work is bounded ----

#[test]
fn a_million_30_mib_dmas_end_with_the_budget_error_in_bounded_time() {
    let d = tmp("dmarepeat");
    let p = d.join("dma.npub");
    // 4 MB: one DMA of 30 MiB started a million times (about 70 minutes of copying once).
    std::fs::write(&p, support::dma_repeat(30 << 20, 1_000_000)).expect("write");
    // Valid: the format and the stream check take it.
    let o = run(&[os("check"), p.as_os_str()]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    if let Some((kb, o)) = peak_kb(&[os("run"), os("--sim"), p.as_os_str()]) {
        eprintln!("run --sim: peak RSS {kb} KB");
        assert_eq!(code(&o), 2);
    }
    for json in [false, true] {
        let mut args = vec![os("run"), os("--sim")];
        if json {
            args.push(os("--json"));
        }
        args.push(p.as_os_str());
        let t = Instant::now();
        // `run` kills it and fails after 20 s.
        let o = run(&args);
        eprintln!("{args:?}: exit {:?} in {:?}", o.status.code(), t.elapsed());
        // The simulator's limit, as arena-over-limit: exit 2, its own code.
        assert_eq!(code(&o), 2, "{args:?}: {}{}", stdout(&o), stderr(&o));
        if json {
            let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
            assert_eq!(
                v["executed"]["stopped"]["code"], "sim-budget-exceeded",
                "{v}"
            );
            assert_eq!(v["result"]["ok"], false, "{v}");
            // 34 copies of 30 MiB: the 1 GiB of bytes moved, not a million.
            assert_eq!(v["executed"]["dma_copies"], 34, "{v}");
        } else {
            assert!(
                stdout(&o).contains("stopped: sim-budget-exceeded"),
                "{}",
                stdout(&o)
            );
        }
    }
    let _ = std::fs::remove_dir_all(d);
}

// ---- 12 and 16. the demo: what it lacks, named before anything is installed ----

#[test]
fn the_demo_names_what_it_is_missing_before_installing_anything() {
    let d = tmp("demo");
    // A copy of the demo in a repository of its own, so that what it makes is seen.
    let repo = d.join("repo");
    std::fs::create_dir_all(repo.join("scripts")).expect("dir");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/demo");
    std::fs::copy(&demo, repo.join("scripts/demo")).expect("copy");
    // A PATH with the shell's tools and neither cargo nor python.
    let tools = d.join("bin");
    std::fs::create_dir_all(&tools).expect("dir");
    for t in ["dirname", "mkdir", "cat", "printf", "head"] {
        for dir in ["/usr/bin", "/bin"] {
            let p = Path::new(dir).join(t);
            if p.exists() {
                let _ = std::os::unix::fs::symlink(&p, tools.join(t));
                break;
            }
        }
    }
    let o = Command::new("/bin/bash")
        .arg(repo.join("scripts/demo"))
        .env_clear()
        .env("PATH", &tools)
        .env("NPUSCHEMA_CORPUS", d.join("no-shared-data"))
        .env("PYTHON", "python3")
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}{}", stdout(&o));
    let missing: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("demo: missing: "))
        .collect();
    assert_eq!(missing.len(), 2, "{err}");
    assert!(
        missing[0].contains("cargo") && missing[0].contains("rustup"),
        "{err}"
    );
    assert!(
        missing[1].contains("python3") && missing[1].contains("apt-get"),
        "{err}"
    );
    // Nothing made or installed: no target/, no venv.
    let made: Vec<_> = std::fs::read_dir(&repo)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(made, vec![std::ffi::OsString::from("scripts")], "{made:?}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn the_demo_installs_only_what_it_runs() {
    let demo =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/demo"))
            .expect("scripts/demo");
    // Its commands (comments aside): the Vela venv and the release CLI, nothing of the
    // tests' (the Cortex-M target, QEMU, arm-none-eabi-gcc, nightly with Miri).
    let code: String = demo
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    for tests_only in [
        "setup-miri",
        "setup-targets",
        "setup-litert",
        "scripts/setup ",
        "nightly",
        "rustup",
        "apt-get install",
        "qemu",
    ] {
        // `rustup` and `apt-get install` may appear in the hint a missing tool prints.
        let used = code
            .lines()
            .any(|l| l.contains(tests_only) && !l.contains("need \""));
        assert!(!used, "the demo runs {tests_only:?}");
    }
    assert!(code.contains("scripts/setup-vela"));
    assert!(code.contains("cargo build --release --locked -p npuschema-cli"));
}

#[test]
fn inspect_of_a_damaged_vpmn_file_shows_the_header_checksums_and_directory() {
    let d = tmp("vpmndamaged");
    let mut b = many_vpmn(0, 1, 1);
    // A byte of the NN section's payload (section 5, which the CHECKSUM record covers).
    let dir = u32::from_le_bytes(b[48..52].try_into().expect("4")) as usize;
    let nn = u32::from_le_bytes(b[dir + 5 * 44 + 4..dir + 5 * 44 + 8].try_into().expect("4"));
    b[nn as usize + 3] ^= 0xff;
    let p = d.join("bad.nb");
    std::fs::write(&p, &b).expect("write");
    let o = run(&[os("inspect"), p.as_os_str()]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("vpmn (INVALID"), "{text}");
    assert!(
        text.contains("version                  131072 (0x20000)"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("section_checksum         NBG_SECTION_NN")
                && l.ends_with("<-- differ")),
        "{text}"
    );
    assert!(text.contains("file_checksum            recorded"), "{text}");
    assert!(text.contains("[ 5] NBG_SECTION_NN"), "{text}");
    assert!(
        text.contains("FAILED                   section-checksum-mismatch"),
        "{text}"
    );
    assert!(
        stderr(&o).starts_with("npuschema inspect: "),
        "{}",
        stderr(&o)
    );
    let o = run(&[os("inspect"), os("--json"), p.as_os_str()]);
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("json");
    assert_eq!(v["error"]["code"], "section-checksum-mismatch");
    let k = &v["partial"]["section_checksums"][0];
    assert_eq!(k["type"], 7);
    assert_ne!(k["recorded"], k["computed"]);
    assert_eq!(v["partial"]["header"]["version"], 0x20000);
    assert_eq!(
        v["partial"]["sections_as_stored"]
            .as_array()
            .expect("array")
            .len(),
        8
    );
    let _ = std::fs::remove_dir_all(d);
}

/// `.venv-litert`'s Python (scripts/setup-litert), whose ai-edge-litert carries TFLite's
/// FlatBuffer schema with its object API: what rewrites a `.tflite` here.
fn litert_python() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv-litert/bin/python");
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("skipping: no .venv-litert (scripts/setup-litert) to write a large .tflite");
        None
    }
}

#[test]
fn pack_of_a_tflite_with_large_weights_holds_them_once() {
    let (Some(src), Some(python)) = (vela_tflite(), litert_python()) else {
        return;
    };
    let d = tmp("packtflite");
    let big = d.join("big.tflite");
    let mib = 128u64;
    // Vela's .tflite with 128 MiB of zeros after its read-only data (the ethos-u operator's
    // input 1): a file of that size, weights and all.
    let script = format!(
        r#"
import sys, numpy as np, flatbuffers
from ai_edge_litert import schema_py_generated as s
m = s.ModelT.InitFromPackedBuf(open(sys.argv[1], 'rb').read(), 0)
g = m.subgraphs[0]
op = [o for o in g.operators if m.operatorCodes[o.opcodeIndex].customCode == b'ethos-u'][0]
b = m.buffers[g.tensors[op.inputs[1]].buffer]
b.data = np.concatenate([np.asarray(b.data, dtype=np.uint8), np.zeros({mib} << 20, dtype=np.uint8)])
f = flatbuffers.Builder(({mib} + 1) << 20)
f.Finish(m.Pack(f), file_identifier=b'TFL3')
open(sys.argv[2], 'wb').write(f.Output())
"#
    );
    let o = Command::new(python)
        .arg("-B")
        .arg("-c")
        .arg(&script)
        .arg(&src)
        .arg(&big)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = d.join("o.npub");
    let Some((base_kb, o)) = peak_kb(&[os("pack"), src.as_os_str(), os("-o"), out.as_os_str()])
    else {
        return;
    };
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::remove_file(&out).expect("packed");
    let Some((kb, o)) = peak_kb(&[os("pack"), big.as_os_str(), os("-o"), out.as_os_str()]) else {
        return;
    };
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let file_kb = std::fs::metadata(&big).expect("big").len() / 1024;
    eprintln!(
        "pack of a {file_kb} KB .tflite: peak RSS {kb} KB (the small model's pack: {base_kb} KB)"
    );
    // The file held once (its weights cut out in place, then the blob around them), not
    // the file and a copy of its weights (273 MB before for this file).
    assert!(
        kb < file_kb + base_kb + (16 << 10),
        "{kb} KB for a {file_kb} KB file (constant {base_kb} KB)"
    );
    assert!(std::fs::metadata(&out).expect("out").len() > mib << 20);
    let _ = std::fs::remove_dir_all(d);
}

// ---- 13. a test that skips says so in the summary of scripts/test ----

/// The first string literal at or after byte `at` of `src`.
fn literal_after(src: &str, at: usize) -> Option<String> {
    let rest = src.get(at..)?;
    let start = rest.find('"')? + 1;
    let mut out = String::new();
    let mut chars = rest[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    None
}

#[test]
fn every_skip_notice_reaches_the_summary() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let script = std::fs::read_to_string(repo.join("scripts/test")).expect("scripts/test");
    // The pattern scripts/test collects skips with.
    let line = script
        .lines()
        .find(|l| l.contains("\"$log_dir/cargo-test\"") && l.contains("grep -aE"))
        .expect("scripts/test collects the skips of cargo test");
    let pattern = line
        .split('\'')
        .nth(1)
        .expect("a quoted pattern")
        .to_string();
    // Every eprintln!/println! notice in the workspace's tests that says it skips.
    let mut notices = Vec::new();
    let mut stack: Vec<PathBuf> = ["cli", "tests", "sim", "runtime", "codegen", "core", "macro"]
        .iter()
        .map(|d| repo.join(d))
        .collect();
    while let Some(d) = stack.pop() {
        for p in std::fs::read_dir(&d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
        {
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "target") {
                    stack.push(p);
                }
                continue;
            }
            // Test code: the tests/ folders, and the shared test helpers (refreader).
            let test_code = p.components().any(|c| c.as_os_str() == "tests")
                || p.to_string_lossy().contains("refreader");
            if p.extension().is_none_or(|e| e != "rs") || !test_code {
                continue;
            }
            let src = std::fs::read_to_string(&p).expect("source");
            for (at, _) in src
                .match_indices("eprintln!(")
                .chain(src.match_indices("println!("))
            {
                let Some(text) = literal_after(&src, at) else {
                    continue;
                };
                // Placeholders out: a count named `skipped` is not a notice.
                let mut plain = String::new();
                let mut depth = 0;
                for c in text.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth > 0 => {
                            depth -= 1;
                            plain.push('X');
                        }
                        c if depth == 0 => plain.push(c),
                        _ => {}
                    }
                }
                if plain.to_lowercase().contains("skip") {
                    notices.push((p.clone(), plain));
                }
            }
        }
    }
    assert!(notices.len() >= 10, "found only {notices:?}");
    let input: String = notices.iter().map(|(_, t)| format!("{t}\n")).collect();
    let mut grep = Command::new("grep")
        .args(["-avE", &pattern])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("grep runs");
    use std::io::Write;
    grep.stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let missed =
        String::from_utf8_lossy(&grep.wait_with_output().expect("grep").stdout).into_owned();
    let missed: Vec<&(PathBuf, String)> = notices
        .iter()
        .filter(|(_, t)| missed.lines().any(|m| m == t))
        .collect();
    assert!(
        missed.is_empty(),
        "skip notices scripts/test's summary does not collect ({pattern}): {missed:#?}"
    );
}
