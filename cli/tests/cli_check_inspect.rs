//! The CLI's contracts, through the real binary: `gen`, `check` (exit codes, plain and JSON
//! lines, directory walk), `inspect --json` (keys and values), `disasm --json`, `verify`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_npuschema"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("npuschema-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp dir");
    d
}

/// A blob whose stream is real Ethos-U55 commands: DMA 16 bytes from region 0 to region 1.
fn blob() -> Vec<u8> {
    let weights = [7u8; 64];
    let mut stream = Vec::new();
    for (code, param, payload) in [
        (0x0130u16, 0u16, None), // NPU_SET_DMA0_SRC_REGION 0
        (0x0131, 1, None),       // NPU_SET_DMA0_DST_REGION 1
        (0x4030, 0, Some(0u32)), // NPU_SET_DMA0_SRC 0
        (0x4031, 0, Some(16)),   // NPU_SET_DMA0_DST 16
        (0x4032, 0, Some(16)),   // NPU_SET_DMA0_LEN 16
        (0x0010, 0, None),       // NPU_OP_DMA_START
        (0x0011, 0, None),       // NPU_OP_DMA_WAIT
        (0x0000, 0xFFFF, None),  // NPU_OP_STOP
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
            role: Role::Scratch,
            data: RegionData::Runtime(48),
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

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p.display().to_string()
}

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn check_exit_codes_and_lines() {
    let d = tmp("check");
    let good = write(&d, "good.npub", &blob());
    let mut b = blob();
    b[100] ^= 1;
    let bad = write(&d, "bad.npub", &b);

    let o = run(&["check", &good]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        format!("{good}: OK")
    );

    let o = run(&["check", &good, &bad]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!(
            "{bad}: checksum-mismatch: header.checksum at 0x1c"
        )),
        "{text}"
    );

    let o = run(&["check", "--json", &bad]);
    assert_eq!(o.status.code(), Some(1));
    let v = &json_lines(&o)[0];
    assert_eq!(v["file"], bad.as_str());
    assert_eq!(v["format"], "npu1");
    assert_eq!(v["valid"], false);
    assert_eq!(v["error"]["code"], "checksum-mismatch");
    assert_eq!(v["error"]["field"], "header.checksum");
    assert_eq!(v["error"]["offset"], 28);
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("checksum-mismatch: "))
    );

    let o = run(&["check", "--json", &good]);
    let v = &json_lines(&o)[0];
    assert_eq!(
        (v["valid"].as_bool(), v["error"].is_null()),
        (Some(true), true)
    );

    let missing = d.join("missing.npub").display().to_string();
    assert_eq!(
        run(&["check", &missing]).status.code(),
        Some(2),
        "I/O error"
    );
    assert_eq!(run(&["check"]).status.code(), Some(2), "usage error");
}

#[test]
fn check_walks_directories() {
    let d = tmp("walk");
    std::fs::create_dir_all(d.join("a/b")).expect("dirs");
    write(&d.join("a"), "one.npub", &blob());
    write(&d.join("a/b"), "two.npub", &blob());
    write(&d.join("a/b"), "notes.txt", b"not a container");
    let o = run(&["check", "--json", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(0));
    let lines = json_lines(&o);
    assert_eq!(
        lines.len(),
        2,
        "only container files are picked up in directories"
    );
    assert!(
        lines[0]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("a/b/two.npub") || f.ends_with("a/one.npub"))
    );
}

#[test]
fn check_rejects_unknown_magic() {
    let d = tmp("magic");
    // A name that no format claims: unknown-format.
    let f = write(&d, "x.bin", b"ABCD and more bytes");
    let o = run(&["check", "--json", &f]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json_lines(&o)[0]["error"]["code"], "unknown-format");
    // Named .npub, the file gets NPU1's own verdict (shorter than its header here).
    let f = write(&d, "x.npub", b"ABCD and more bytes");
    let o = run(&["check", "--json", &f]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json_lines(&o)[0]["error"]["code"], "truncated-header");
}

#[test]
fn inspect_json_has_the_documented_keys() {
    let d = tmp("inspect");
    let b = blob();
    let f = write(&d, "m.npub", &b);
    let o = run(&["inspect", "--json", &f]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = &json_lines(&o)[0];
    for k in [
        "format",
        "magic",
        "version",
        "total_bytes",
        "region_count",
        "cmd_offset",
        "cmd_bytes",
        "accel",
        "accel_name",
        "checksum",
        "regions",
        "arena_bytes",
        "layout",
    ] {
        assert!(v.get(k).is_some(), "missing key {k}");
    }
    assert_eq!(v["format"], "npu1");
    assert_eq!(v["magic"], 0x3155_504E);
    assert_eq!(v["total_bytes"], b.len());
    assert_eq!(v["accel"], 128);
    assert_eq!(v["accel_name"], "macs128");
    assert_eq!(v["checksum"]["stored"], v["checksum"]["computed"]);
    let r = &v["regions"];
    assert_eq!(r[0]["role_name"], "weights");
    assert_eq!(r[0]["baked"], true);
    assert_eq!(r[0]["size"], 64);
    assert_eq!(r[1]["baked"], false);
    assert_eq!(v["arena_bytes"], 48);
    // The layout covers the file exactly, in order.
    let layout = v["layout"].as_array().expect("layout");
    assert_eq!(layout[0]["start"], 0);
    assert_eq!(
        layout.last().map(|s| s["end"].clone()),
        Some(serde_json::json!(b.len()))
    );
    for w in layout.windows(2) {
        assert_eq!(w[0]["end"], w[1]["start"]);
    }
    assert!(layout.iter().any(|s| s["what"] == "command-stream"));

    let mut bad = b.clone();
    bad[0] = 0;
    let f = write(&d, "bad.npub", &bad);
    assert_eq!(run(&["inspect", &f]).status.code(), Some(1));
}

#[test]
fn gen_writes_what_the_generated_crate_holds() {
    let d = tmp("gen");
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/npu1.yaml");
    let o = run(&[
        "gen",
        &schema.display().to_string(),
        "-o",
        &d.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let written = std::fs::read_to_string(d.join("npu1.rs")).expect("written");
    let checked_in = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/src/npu1.rs"),
    )
    .expect("checked in");
    assert_eq!(written, checked_in);

    let bad = write(
        &d,
        "bad.yaml",
        b"schema: x\nfile: {name: X, header: {struct: Nope, code: c}}\n",
    );
    let o = run(&["gen", &bad, "-o", &d.display().to_string()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bad.yaml:2:"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn disasm_and_verify_read_npub_files() {
    let d = tmp("disasm");
    let b = blob();
    let f = write(&d, "m.npub", &b);
    let o = run(&["disasm", "--json", &f]);
    assert_eq!(o.status.code(), Some(0));
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[0]["name"], "NPU_SET_DMA0_SRC_REGION");
    assert_eq!(lines[2]["code"], 0x4030);
    assert_eq!(lines[2]["payload"], 0);
    assert_eq!(lines[3]["offset"], 16); // two 4-byte commands, then an 8-byte one
    assert!(lines[0]["payload"].is_null());
    assert_eq!(lines[7]["name"], "NPU_OP_STOP");

    assert_eq!(run(&["verify", &f]).status.code(), Some(0));
    // Shrink the runtime region below the DMA's destination end (16 + 16 = 32 bytes).
    let specs_small = {
        let v = npuschema_generated::npu1::Npu1::validate(&b).expect("valid");
        let stream = v.cmd_stream().to_vec();
        let weights = [7u8; 64];
        let specs = [
            RegionSpec {
                role: Role::Weights,
                data: RegionData::Baked(&weights),
            },
            RegionSpec {
                role: Role::Scratch,
                data: RegionData::Runtime(24),
            },
        ];
        Npu1Writer::new()
            .version(npuschema_generated::npu1::VERSION_V1)
            .regions(&specs)
            .cmd_stream(&stream)
            .to_vec()
            .expect("writes")
    };
    let f = write(&d, "small.npub", &specs_small);
    let o = run(&["verify", &f]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("region-overflow"));
}
