//! The register block (`registers:`): its mistakes, each with file:line:column (golden file
//! `schema_errors/registers.expected`), and what a correct block generates, in a schema
//! with a file and in one with registers only.

use std::path::Path;

#[test]
fn register_mistakes_are_reported_with_their_place() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema_errors");
    let text = std::fs::read_to_string(dir.join("registers.yaml")).expect("fixture");
    let shown = "schema_errors/registers.yaml";
    let diags = match npuschema_codegen::load_str(&text, shown) {
        Ok(_) => panic!("{shown} must be rejected"),
        Err(d) => d.to_string(),
    };
    let expected_path = dir.join("registers.expected");
    if std::env::var_os("NPUSCHEMA_BLESS").is_some() {
        std::fs::write(&expected_path, &diags).expect("bless");
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert_eq!(diags, expected, "diagnostics for {shown} differ");
}

const BLOCK: &str = "
registers:
  size: 0x100
  map:
    CTRL:
      offset: 0x04
      access: read-write
      reset: 0x3
      doc: Control.
      fields:
        enable: 0
        mode: { bits: 1..2, enum: Mode }
    LUT:
      offset: 0x40
      count: 4
      stride: 8
      access: write-1-to-clear
";

const ENUMS: &str = "
enums:
  Mode:
    repr: u8
    open: true
    values:
      'off': 0
      slow: 1
";

#[test]
fn a_schema_with_only_registers_needs_no_file() {
    let text = format!("schema: dev\n{ENUMS}{BLOCK}");
    let c = npuschema_codegen::load_str(&text, "dev.yaml").unwrap_or_else(|d| panic!("{d}"));
    assert!(!c.has_file());
    let code = npuschema_codegen::generate(&c);
    for item in [
        "pub const CTRL: u32 = 0x4;",
        "pub const CTRL_RESET: u32 = 0x3;",
        "pub const CTRL_ACCESS: Access = Access::ReadWrite;",
        "pub struct Ctrl(u32);",
        "pub const fn with_mode(self, v: Mode) -> Self",
        "pub const fn mode(self) -> Mode",
        "pub const fn mode_raw(self) -> u8",
        "pub const LUT_COUNT: u32 = 4;",
        "pub const fn lut(k: u32) -> u32",
        "0x40..=0x58 if offset.wrapping_sub(0x40).wrapping_rem(8) == 0 => Some(\"LUT\")",
        "if offset.wrapping_rem(4) != 0",
    ] {
        assert!(code.contains(item), "missing `{item}` in:\n{code}");
    }
    // No file: no view, no validator.
    assert!(!code.contains("fn validate"), "{code}");
}

#[test]
fn a_schema_with_a_file_may_have_registers_too() {
    let file = "
structs:
  Header:
    fields:
      - { name: magic, type: u32 }
file:
  name: Dev
  header: { struct: Header, code: truncated }
  validate:
    - { code: bad-magic, expect: header.magic, equals: 7 }
";
    let text = format!("schema: devfile\n{ENUMS}{file}{BLOCK}");
    let c = npuschema_codegen::load_str(&text, "devfile.yaml").unwrap_or_else(|d| panic!("{d}"));
    assert!(c.has_file());
    let code = npuschema_codegen::generate(&c);
    assert!(code.contains("pub struct Ctrl(u32);"), "{code}");
    assert!(code.contains("pub struct Dev<'a>"), "{code}");
}

#[test]
fn without_registers_a_file_is_still_required() {
    let e = npuschema_codegen::load_str("schema: nothing\n", "nothing.yaml")
        .err()
        .expect("rejected")
        .to_string();
    assert!(e.contains("missing the key `file`"), "{e}");
}
