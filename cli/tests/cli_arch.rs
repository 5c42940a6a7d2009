//! `--arch u55|u65` of `disasm` and `verify`, through the real binary: a U65-only command
//! (`NPU_SET_PARALLEL_MODE`) is `unknown-opcode` under the default `u55` and decoded under
//! `u65`, and `disasm`, `disasm --json` and `verify` agree on both; the U65's `addr_hi` field
//! is listed under `u65` only; an unknown architecture is a usage error (exit 2) naming the
//! known ones; `--help` documents the option.

use std::path::PathBuf;
use std::process::{Command, Output};

use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};

fn bin() -> Command {
    match std::env::var_os("NPUSCHEMA_TEST_BIN") {
        Some(b) => Command::new(b),
        None => Command::new(env!("CARGO_BIN_EXE_npuschema")),
    }
}

fn run(args: &[&str], file: &PathBuf) -> Output {
    bin().args(args).arg(file).output().expect("runs")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8")
}

/// An NPU1 file whose command stream is `words` (one runtime region of 64 bytes).
fn npub(name: &str, words: &[u32]) -> PathBuf {
    let stream: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let specs = [RegionSpec {
        role: Role::Scratch,
        data: RegionData::Runtime(64),
    }];
    let bytes = Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes");
    let d = std::env::temp_dir().join(format!("npuschema-arch-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("tmp dir");
    let p = d.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

/// `NPU_SET_PARALLEL_MODE` (0x123, U65 only) with `dual_core_depth`, `NPU_SET_IFM_BASE0`
/// with `addr_hi` 0x12 and address 0x40, `NPU_OP_STOP`.
const U65_STREAM: [u32; 4] = [0x0001_0123, 0x0012_4000, 0x40, 0xFFFF_0000];

#[test]
fn a_u65_only_command_is_unknown_under_u55_and_decoded_under_u65() {
    let f = npub("u65.npub", &U65_STREAM);

    // u55, by default and by name: all three refuse at byte 0 with unknown-opcode.
    for arch in [&[][..], &["--arch", "u55"][..]] {
        let text = run(&[&["disasm"][..], arch].concat(), &f);
        assert_eq!(code(&text), 1, "{}", stderr(&text));
        assert!(
            stderr(&text).contains("unknown-opcode: command word 0x00010123 at byte 0x0"),
            "{}",
            stderr(&text)
        );
        // Only the header lines: no command before the unknown one.
        assert_eq!(stdout(&text).lines().count(), 2, "{}", stdout(&text));

        let json = run(&[&["disasm", "--json"][..], arch].concat(), &f);
        assert_eq!(code(&json), 1);
        let lines: Vec<serde_json::Value> = stdout(&json)
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines.len(), 1, "{}", stdout(&json));
        assert_eq!(lines[0]["error"]["code"], "unknown-opcode");
        assert_eq!(lines[0]["error"]["offset"], 0);

        let verify = run(&[&["verify"][..], arch].concat(), &f);
        assert_eq!(code(&verify), 1);
        assert!(
            stdout(&verify)
                .starts_with("error: unknown-opcode: command word 0x00010123 at byte 0x0"),
            "{}",
            stdout(&verify)
        );
    }

    // u65: all three decode the same three commands.
    let text = run(&["disasm", "--arch", "u65"], &f);
    assert_eq!(code(&text), 0, "{}", stderr(&text));
    let out = stdout(&text);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2 + 3, "{out}");
    assert_eq!(lines[0], "Register command stream: 4 words");
    assert!(
        lines[2].starts_with("0x000000:          0001 0123 - NPU_SET_PARALLEL_MODE"),
        "{out}"
    );
    assert!(
        lines[2].ends_with("1, parallel_mode = PARALLEL_MODE_DUAL_CORE_DEPTH"),
        "{out}"
    );
    assert!(
        lines[3].starts_with("0x000004: 00000040 0012 4000 - NPU_SET_IFM_BASE0"),
        "{out}"
    );
    assert!(lines[3].ends_with(", addr_hi = 0x12, addr = 0x40"), "{out}");
    assert!(
        lines[4].starts_with("0x00000c:          ffff 0000 - NPU_OP_STOP"),
        "{out}"
    );

    let json = run(&["disasm", "--json", "--arch", "u65"], &f);
    assert_eq!(code(&json), 0);
    let cmds: Vec<serde_json::Value> = stdout(&json)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let got: Vec<(u64, &str, u64)> = cmds
        .iter()
        .map(|c| {
            (
                c["offset"].as_u64().expect("offset"),
                c["name"].as_str().expect("name"),
                c["code"].as_u64().expect("code"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (0, "NPU_SET_PARALLEL_MODE", 0x123),
            (4, "NPU_SET_IFM_BASE0", 0x4000),
            (12, "NPU_OP_STOP", 0),
        ]
    );
    assert_eq!(cmds[0]["param"], 1);
    assert_eq!(cmds[1]["payload"], 0x40);

    let verify = run(&["verify", "--arch", "u65"], &f);
    assert_eq!(code(&verify), 0, "{}", stdout(&verify));
    assert_eq!(
        stdout(&verify),
        "3 commands, 0 memory operations, 0 findings\n"
    );
}

#[test]
fn the_u65_address_bits_are_listed_under_u65_only() {
    // NPU_SET_IFM_BASE0 (both architectures) with addr_hi = 0x12, then NPU_OP_STOP.
    let f = npub("both.npub", &U65_STREAM[1..]);
    let listed = |arch: &str| {
        let o = run(&["disasm", "--arch", arch], &f);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        stdout(&o).lines().nth(2).expect("first command").to_owned()
    };
    assert!(
        listed("u55").ends_with(" 18, addr = 0x40"),
        "{}",
        listed("u55")
    );
    assert!(
        listed("u65").ends_with(" 18, addr_hi = 0x12, addr = 0x40"),
        "{}",
        listed("u65")
    );
    for arch in ["u55", "u65"] {
        let o = run(&["verify", "--arch", arch], &f);
        assert_eq!(stdout(&o), "2 commands, 0 memory operations, 0 findings\n");
        assert_eq!(code(&o), 0);
    }
}

#[test]
fn an_unknown_architecture_is_a_usage_error_naming_the_known_ones() {
    let f = npub("stop.npub", &[0xFFFF_0000]);
    for cmd in [&["disasm"][..], &["disasm", "--json"][..], &["verify"][..]] {
        let o = run(&[cmd, &["--arch", "u85"][..]].concat(), &f);
        assert_eq!(code(&o), 2, "{cmd:?}");
        let err = stderr(&o);
        assert!(
            err.contains("unknown architecture `u85`; known architectures: u55, u65"),
            "{cmd:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{cmd:?}");
    }
}

#[test]
fn help_documents_the_option() {
    for cmd in ["disasm", "verify"] {
        let o = bin().args([cmd, "--help"]).output().expect("runs");
        assert_eq!(code(&o), 0);
        let help = stdout(&o);
        assert!(help.contains("--arch <ARCH>"), "{cmd}: {help}");
        assert!(help.contains("[default: u55]"), "{cmd}: {help}");
        assert!(help.contains("u65"), "{cmd}: {help}");
    }
}
