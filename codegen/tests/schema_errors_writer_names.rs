//! Golden tests for the names of the members of generated types (`check/writer_names.rs`):
//! each `schema_errors/<kind>.yaml` holds a schema whose generated code would give one type
//! two members (or the module two types) of one name, which does not compile, and
//! `<kind>.expected` the diagnostics the loader must print instead (file:line:column, both
//! sources named). Regenerate with `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen --test
//! schema_errors_writer_names` after reviewing the change.

use std::path::Path;

mod golden;
use golden::golden;

/// The writer of a file without a directory and a stream writer: header fields named like a
/// table or a range (one field of the spec and one setter each), enums named like the writer's typestate `Set`
/// or a range's typestate parameter, a stream whose `<Stream>Spec` is a table's
/// `<Record>Spec`, a stream header field `body`; a record's view with a field named like a
/// per-record range, like its `index`, or like a string field's `_str` accessor.
#[test]
fn clashing_names_in_a_file_writer() {
    golden("writer_names");
}

/// A directory writer's `<File>Spec` (a header field next to a located record's field
/// `<record>_<field>`, a header field named like the table) and `<Entry>Spec` (an entry
/// field named like the payload range).
#[test]
fn clashing_names_in_a_directory_writer() {
    golden("writer_names_dir");
}

/// A directory writer's `<Entry>Spec`: a string of the directory's records (in a string
/// table) named like the payload range.
#[test]
fn clashing_names_with_a_directory_record_string() {
    golden("writer_names_dirstr");
}

/// The spec's fields (and the builder's setters) of the located records' fields
/// (`<record>_<field>`): a header field and a range named like one; a header field named
/// like the typestate builder's method `write_into`.
#[test]
fn clashing_names_with_a_located_record_in_a_plain_writer() {
    golden("writer_names_located");
}

/// A range that a directory writer places, named like the member a located record's field
/// gives its `<File>Spec` (`<record>_<field>`): reported once, at the later source.
#[test]
fn located_records_clash_with_each_other_and_with_ranges() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema_errors/writer_names_dir.yaml"),
    )
    .expect("fixture");
    // Rename the clashing header fields away, so that only the new clashes remain.
    let text = text
        .replace(
            "{ name: sub_header_sh_count, type: u32 }",
            "{ name: hdr_a, type: u32 }",
        )
        .replace(
            "{ name: sub_header_extra, type: u32 }",
            "{ name: hdr_b, type: u32 }",
        )
        .replace("{ name: entries, type: u32 }", "{ name: hdr_c, type: u32 }")
        .replace(
            "      - { name: payload, type: u32 }\n",
            "      - { name: spare, type: u32 }\n",
        )
        // The located record's `extra` meets the range `sub_header_extra`.
        .replace("    notes: {", "    sub_header_extra: {")
        .replace("range_fits: notes", "range_fits: sub_header_extra")
        .replace("payload, notes]", "payload, sub_header_extra]");
    let Err(d) = npuschema_codegen::load_str(&text, "x.yaml") else {
        panic!("the clash must be refused");
    };
    let shown = d.to_string();
    assert_eq!(shown.matches("error:").count(), 1, "{shown}");
    assert!(
        shown.contains("range `sub_header_extra` gives the writer's `DirSpec` the member `sub_header_extra`, which field `extra` of record `sub_header`"),
        "{shown}"
    );
}

/// A plain writer places each table and range where `writer.order` names it: one the order
/// leaves out was written to a place the writer never computed (code that did not compile);
/// now refused where the table or range is defined.
#[test]
fn a_table_or_range_the_writer_order_leaves_out() {
    golden("writer_unplaced");
}

/// Names the generated code uses as they are, each a Rust keyword (`fn type(&self)` does
/// not compile): refused where each is written.
#[test]
fn rust_keywords_as_names() {
    golden("keywords");
}

/// A value the plain writer derives (a constant an `expect` fixes) stored in a float header
/// field: refused, as the directory writer refuses it (both writers store integers).
#[test]
fn a_derived_value_needs_an_integer_field_in_a_plain_writer() {
    golden("writer_float_derived");
}
