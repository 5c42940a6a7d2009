//! The directory-era constructs (`schema/ext.rs`, `check/ext.rs`, `emit/sections.rs`) are
//! general: a second, made-up format loads and emits with them (moved whole from a unit test
//! in ext.rs, which reached the crate root from inside a construct module).

/// The constructs are not VPMN's: a toy container with a directory of typed sections, a
/// composed size, per-section and whole-payload CRCs, and two versions loads and emits.
#[test]
fn a_second_format_uses_the_same_constructs() {
    let text = r#"
schema: toy
constants: { MAGIC: 0x594F5400 }
enums:
  Kind: { repr: u16, values: { none: 0, names: 1, blob: 2, sums: 3 } }
structs:
  Head: { fields: [ { name: magic, type: u32 }, { name: version, type: u32 } ] }
  HeadV1:
    fields:
      - { name: magic, type: u32 }
      - { name: version, type: u32 }
      - { name: crc, type: u32 }
      - { name: count, type: u32 }
  Entry:
    fields:
      - { name: kind, type: Kind }
      - { name: pad, type: u16 }
      - { name: at_lo, type: u32 }
      - { name: at_hi, type: u32 }
      - { name: len, type: u32 }
      - { name: each, type: u32 }
    composed: { at: { low: at_lo, high: at_hi } }
  Name: { fields: [ { name: text, type: "str[16]" } ] }
  Sum: { fields: [ { name: kind, type: u32 }, { name: value, type: u32 } ] }
file:
  name: Toy
  header: { struct: Head, code: short }
  validate: [ { code: magic, expect: header.magic, equals: MAGIC } ]
  variants:
    code: version
    field: header.version
    list:
      one:
        name: ToyV1
        when: "header.version == 1"
        header: { struct: HeadV1, code: short }
        tables: { dir: { record: Entry, at: 16, count: header.count, stride: 20 } }
        ranges: { body: { table: dir, offset: at, length: len } }
        directories:
          d:
            table: dir
            type: kind
            payload: body
            entry_size: each
            layouts:
              names: { record: Name, collection: names }
              sums: { record: Sum, collection: sums }
            checksums:
              each_crc: { algorithm: crc32, records: sums, target: kind, stored: value }
              all_crc: { algorithm: crc32, zero: [sums.value], stored: header.crc }
        validate:
          - { code: dir-oob, table_fits: dir, within: len }
          - for_each: dir
            validate:
              - { code: kind, enum_known: kind }
              - { code: oob, range_fits: body, within: len }
              - { code: each, entry_size: d }
          - { code: few-names, assert: "count(names) >= 1", field: header.count }
          - { code: crc, record_checksums: each_crc, missing: no-target, duplicate: twice }
          - { code: file-crc, payload_checksum: all_crc }
"#;
    let c = npuschema_codegen::load_str(text, "toy.yaml").unwrap_or_else(|d| panic!("{d}"));
    let code = npuschema_codegen::generate(&c);
    for want in [
        "pub enum Toy<'a>",
        "One(ToyV1<'a>)",
        "pub fn names(&self) -> NamesIter<'a>",
        "crc32_payloads",
        "\"no-target\"",
    ] {
        assert!(code.contains(want), "generated code lacks {want}");
    }
    syn::parse_file(&code).unwrap_or_else(|e| panic!("generated code does not parse: {e}"));
}
