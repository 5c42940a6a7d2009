//! The instruction-set construct (`commands:`): its mistakes, each with file:line:column
//! (golden file `schema_errors/commands.expected`), and what a correct space generates.

use std::path::Path;

#[test]
fn command_set_mistakes_are_reported_with_their_place() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema_errors");
    let text = std::fs::read_to_string(dir.join("commands.yaml")).expect("fixture");
    let shown = "schema_errors/commands.yaml";
    let diags = match npuschema_codegen::load_str(&text, shown) {
        Ok(_) => panic!("{shown} must be rejected"),
        Err(d) => d.to_string(),
    };
    let expected_path = dir.join("commands.expected");
    if std::env::var_os("NPUSCHEMA_BLESS").is_some() {
        std::fs::write(&expected_path, &diags).expect("bless");
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert_eq!(diags, expected, "diagnostics for {shown} differ");
    // Every kind of mistake is among them (the golden file could be blessed wrong).
    for m in [
        "param overlaps the opcode's bits",
        "long_bit 3 is one of the opcode's or the param's bits",
        "architecture `Ext`: an architecture's name is lower_snake",
        "command `nop_lower`: a command's name is UPPER_SNAKE",
        "architecture `base` is listed twice",
        "unknown architecture `nosuch` (declared: base, Ext)",
        "overlap another field of command `LOAD`",
        "a Rust keyword cannot name a field's reader",
        "value `b` = 9 of enum `Small` does not fit the 3-bit field `mode`",
        "enum `Signed` (repr i8) must be unsigned",
        "undefined enum `Missing`",
        "field `far` is in the payload, but command `LOAD` is short",
        "must-be-zero bits 2..3 of command `LOAD` overlap one of its fields",
        "must-be-zero bits 12..15 do not fit the 8-bit param",
        "code 0x2 (short) is already command `LOAD`",
        "code 0x40 does not fit the 6-bit opcode",
        "generates `new`, which the command's view already has",
        "bits 10..12 of field `huge` do not fit the 8-bit param of command `LOAD_IT`",
        "bits 0..16 of field `out` do not fit the 16-bit payload",
        "in `stack` must be `param` or `payload`",
        "field `hi` of command `LOAD_IT`: unknown architecture `nosuch`",
        "both give the variant `LoadIt`",
        "command `LOAD` generates `LoadCmd`, which struct `LoadCmd`",
    ] {
        assert!(diags.contains(m), "missing `{m}` in:\n{diags}");
    }
}

const ISA: &str = "
enums:
  Cond: { repr: u8, values: { always: 0, zero: 1 } }
commands:
  name: Insn
  opcode: 0..9
  param: 16..31
  long_bit: 14
  archs: { a: ~, b: ~ }
  list:
    STOP: { code: 0 }
    JUMP:
      code: 0
      long: true
      arch: [b]
      zero: [2..15]
      fields:
        cond: { bits: 0..1, enum: Cond }
        target: { bits: 0..31, in: payload, hex: true }
";

#[test]
fn a_schema_with_only_commands_needs_no_file() {
    let text = format!("schema: isa0\n{ISA}");
    let c = npuschema_codegen::load_str(&text, "isa0.yaml").unwrap_or_else(|d| panic!("{d}"));
    assert!(!c.has_file());
    assert!(c.has_commands());
    let code = npuschema_codegen::generate(&c);
    for item in [
        "pub enum Insn {",
        "pub const COUNT: usize = 2;",
        "pub const fn from_code(code: u32) -> Option<Self>",
        "pub const fn in_arch(self, arch: Arch) -> bool",
        "match 0x1u128.checked_shr(self as u32)",
        "pub struct JumpCmd {",
        "pub const fn cond(self) -> Option<Cond>",
        "pub const fn target(self) -> u32",
        "pub const ZERO: u16 = 0xfffc;",
        "enum_name: \"COND\"",
        "Self::Jump => 0x4000",
    ] {
        assert!(code.contains(item), "missing `{item}` in:\n{code}");
    }
    assert!(!code.contains("fn validate"), "{code}");
}

#[test]
fn a_long_command_needs_a_long_bit() {
    let text = "schema: s\ncommands:\n  name: Op\n  opcode: 0..3\n  param: 8..15\n  list:\n    GO: { code: 1, long: true }\n";
    let e = npuschema_codegen::load_str(text, "s.yaml")
        .err()
        .expect("rejected")
        .to_string();
    assert!(
        e.contains("s.yaml:7:26: error: command `GO` is long, but the space has no `long_bit`"),
        "{e}"
    );
}
