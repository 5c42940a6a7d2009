//! YAML 1.1 traps in mapping keys (`yaml.rs`): a key YAML reads as a boolean (`ON:`, `off:`,
//! `y:`, `Yes:`, in block or flow style) gets the same diagnostic as such a value, at the
//! key's file:line:column, and is read as written, so nothing else is reported for it
//! (before, `ON:` silently became the name `true` and a reference to `flags.ON` failed with
//! "flags `Bits` has no bit `ON`"). A quoted key is a name.

const FILE: &str = "keys.yaml";

const TRAP: &str = "is read by YAML as a boolean (y, n, yes, no, on, off, true, false, null and ~ are not names to YAML 1.1)";

/// A small valid schema with `BITS` (the flags' bits, each line indented by 6) and `VALUES`
/// (an enum's values, flow style) spliced in. `header.flags.ON` and `header.flags.off` are
/// referenced, so a bit not read as `ON`/`off` would be reported there too.
fn schema(bits: &str, values: &str) -> String {
    format!(
        r#"schema: keys
enums:
  Answer:
    repr: u8
    open: true
    values: {{ {values} }}
flags:
  Bits:
    repr: u32
    bits:
{bits}
structs:
  Header:
    size: 12
    fields:
      - {{ name: flags, type: Bits }}
      - {{ name: answer, type: Answer }}
      - {{ name: pad, type: u8 }}
      - {{ name: pad2, type: u16 }}
      - {{ name: count, type: u32 }}
file:
  name: Keys
  header: {{ struct: Header, code: truncated-header }}
  validate:
    - {{ code: bad-flags, flags_known: header.flags }}
    - {{ code: on-needs-count, assert: "header.count > 0", field: header.count, when: "header.flags.ON" }}
    - {{ code: off-needs-no-count, assert: "header.count == 0", field: header.count, when: "header.flags.off" }}
"#
    )
}

/// The error lines (`file:line:col: error: message`) of loading `text`.
fn errors(text: &str) -> Vec<String> {
    match npuschema_codegen::load_str(text, FILE) {
        Ok(_) => Vec::new(),
        Err(d) => d
            .to_string()
            .lines()
            .filter(|l| l.contains(": error: "))
            .map(str::to_string)
            .collect(),
    }
}

#[test]
fn quoted_keys_are_names() {
    let text = schema(
        "      \"ON\": { bit: 0, doc: \"On.\" }\n      \"off\": 1",
        "\"yes\": 1, \"no\": 0",
    );
    assert_eq!(errors(&text), Vec::<String>::new());
}

#[test]
fn a_flags_bit_named_on_is_reported_at_its_key_and_nothing_else_is() {
    let text = schema(
        "      ON: { bit: 0, doc: \"On.\" }\n      \"off\": 1",
        "\"yes\": 1, \"no\": 0",
    );
    // `ON` is on line 11, column 7.
    assert_eq!(
        errors(&text),
        [format!(
            "{FILE}:11:7: error: a key in bits: `ON` {TRAP}; quote it: \"ON\""
        )]
    );
}

#[test]
fn every_trapped_key_is_reported_in_block_and_flow_style_with_the_word_written() {
    let text = schema("      ON: 0\n      off: 1\n      Y: 2", "Yes: 1, n: 0");
    assert_eq!(
        errors(&text),
        [
            format!("{FILE}:6:15: error: a key in values: `Yes` {TRAP}; quote it: \"Yes\""),
            format!("{FILE}:6:23: error: a key in values: `n` {TRAP}; quote it: \"n\""),
            format!("{FILE}:11:7: error: a key in bits: `ON` {TRAP}; quote it: \"ON\""),
            format!("{FILE}:12:7: error: a key in bits: `off` {TRAP}; quote it: \"off\""),
            format!("{FILE}:13:7: error: a key in bits: `Y` {TRAP}; quote it: \"Y\""),
        ]
    );
}

#[test]
fn the_rest_of_the_schema_is_still_checked() {
    // A trapped key and an unrelated mistake (an unknown bit in a condition): both reported.
    let text = schema("      ON: 0\n      \"off\": 1", "\"yes\": 1")
        .replace("\"header.flags.off\"", "\"header.flags.OFF\"");
    let got = errors(&text);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert_eq!(
        got[0],
        format!("{FILE}:11:7: error: a key in bits: `ON` {TRAP}; quote it: \"ON\"")
    );
    assert!(got[1].contains("flags `Bits` has no bit `OFF`"), "{got:#?}");
}
