//! A record stream whose records carry a checksum: its `<Stream>Writer` computes each record's
//! checksum and stores it (before, it left the stored word as the spec gave it, so every
//! record it wrote was rejected). The round trip is in tests/tests/schema_constructs.rs
//! (`the_stream_writer_computes_each_records_checksum`).

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
fn the_stream_writer_of_a_checksummed_stream_computes_it() {
    let with = generated(true);
    assert!(with.contains("pub struct RecordsWriter"));
    // The hash over the record as written, stored at the checksum's place.
    let w = &with[with.find("pub struct RecordsWriter").unwrap_or(0)..];
    assert!(
        w.contains("__rt::crc32(0, d)"),
        "the writer computes the CRC-32"
    );
    assert!(
        w.contains("records[].checksum"),
        "a checksum that cannot be placed is an error"
    );
    let without = generated(false);
    let w = &without[without.find("pub struct RecordsWriter").unwrap_or(0)..];
    assert!(
        !w.contains("__rt::crc32"),
        "a stream without one hashes nothing"
    );
}
