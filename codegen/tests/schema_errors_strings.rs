//! Golden tests for `table[expr].field` and the string constructs: each
//! `schema_errors/<kind>.yaml` holds mistakes of one kind, `<kind>.expected` the
//! diagnostics the loader must print (file:line:column). Regenerate with
//! `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen --test schema_errors_strings` after
//! reviewing the change.

mod golden;
use golden::golden;

/// `table[expr].field` misused: no such table or field, a flag bit, a condition as the
/// index, a read before `table_fits`, in a record's view, malformed, the reserved index.
#[test]
fn computed_index() {
    golden("indexed");
}

/// `table[key == value].field`, a record found by its key: the key a field of the record,
/// the value a number, after `table_fits`, and never once per record (quadratic work).
#[test]
fn key_lookup() {
    golden("keyed");
}

/// `S[key == value].field` for a stream within another's records: inside `for_each` over the
/// holding stream only, after S's stream_fits, by a key of S's header, never in what the
/// views compute (a checksum or a record per record of the holding stream).
#[test]
fn key_lookup_within_a_record() {
    golden("sub_keyed");
}

/// An assert repeated for an index (`for`, `below`) and `word(offset, width)`: both keys,
/// a condition that reads the index, a free name, the index in its condition only, and
/// word() of two numbers.
#[test]
fn repeated_asserts_and_words() {
    golden("repeated");
}

/// A checksum's `zero:` fields: one field each (the header's, a located record's after its
/// `record_fits`, the record's); a sum that must reach a value (`equals:`, with the `field`
/// an error names); neither with a writer.
#[test]
fn checksum_zero_fields_and_values_to_reach() {
    golden("checksum_zero");
    golden("checksum_equals");
    golden("checksum_zero_writer");
}

/// A writer with `table[expr].field` where the writer computes places and values (before
/// any table is written): refused, where it stands.
#[test]
fn computed_index_with_a_writer() {
    golden("indexed_writer");
}

/// Strings misused: no such table or range, a per-record or conditional range, a signed
/// prefix, a name the view already uses, an offset a record's view cannot compute, a
/// string with no `string_fits` (or one in the wrong place or before its range is
/// checked), `string_utf8` before `string_fits`, an unknown string.
#[test]
fn strings_misused() {
    golden("strings");
}

/// A writer writes a file's string at a header field's offset and builds string tables (a
/// record's string, a string in a range); computed offsets (in the file, in a range, in a
/// record), a string table whose offset or length is no header field or that the order does
/// not place, and a record's string named like a field of the record's spec are refused
/// with the reason, and a string outside a range must be placed by `writer.order`.
#[test]
fn strings_the_writer_cannot_write() {
    golden("strings_writer");
}
