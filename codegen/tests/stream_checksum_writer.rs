//! A record stream whose records carry a checksum gets no `<Stream>Writer`: the stream writer
//! does not compute a record's checksum, so it would write records the validator rejects.
//! A stream without one keeps its writer.

const SCHEMA: &str = r#"
schema: sums
structs:
  Header:
    size: 8
    fields:
      - { name: magic, type: u32 }
      - { name: body_bytes, type: u32 }
  RecordHeader:
    size: 8
    fields:
      - { name: length, type: u32 }
      - { name: crc, type: u32 }
file:
  name: Sums
  header: { struct: Header, code: truncated-header }
  ranges:
    body: { offset: 8, length: header.body_bytes }
  streams:
    records:
      range: body
      header: RecordHeader
      size: length
CHECKSUM
  validate:
    - { code: bad-magic, expect: header.magic, equals: 7 }
    - { code: body-out-of-bounds, range_fits: body, within: len }
    - { code: bad-record, stream_fits: records }
STEP
"#;

fn generated(checksum: bool) -> String {
    let (k, step) = if checksum {
        (
            "      checksum: { algorithm: crc32, from: 8, to: \"8 + length\", stored: 4 }",
            "    - { code: bad-crc, stream_checksum: records }",
        )
    } else {
        ("", "")
    };
    let text = SCHEMA.replace("CHECKSUM", k).replace("STEP", step);
    let c = npuschema_codegen::load_str(&text, "sums.yaml")
        .unwrap_or_else(|d| panic!("the schema loads: {d}"));
    npuschema_codegen::generate(&c)
}

#[test]
fn a_stream_with_record_checksums_gets_no_stream_writer() {
    let with = generated(true);
    assert!(with.contains("bad-crc"), "the checksum is validated");
    assert!(
        !with.contains("RecordsWriter"),
        "no writer that would leave the checksum zero"
    );
    assert!(!with.contains("RecordsSpec"));
    let without = generated(false);
    assert!(
        without.contains("pub struct RecordsWriter"),
        "a stream without one keeps its writer"
    );
}
