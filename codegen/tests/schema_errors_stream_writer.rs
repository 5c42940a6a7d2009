//! Golden tests for what the stream writer and the plain writer refuse: a record stream's
//! `size` that is not one of the forms the writer solves for one header field
//! (`stream_size_writer.yaml`), and a range that runs to the end of the file placed before
//! something else, or another range whose place reads `len` (`range_to_end.yaml`). Each
//! `schema_errors/<kind>.yaml` holds the mistakes, `<kind>.expected` the diagnostics the
//! loader must print (file:line:column). Regenerate with `NPUSCHEMA_BLESS=1 cargo test -p
//! npuschema-codegen --test schema_errors_stream_writer` after reviewing the change.

mod golden;
use golden::golden;

/// The size forms refused in a schema with a writer (a quotient, `C - F`, two fields, a
/// factor 0, a signed field or constant, a field scaled twice, an `if`), and none of the
/// forms written (`F + C`, `C + F`, `F - C`, `F * K`, `K * F + C`, `F * K - C`).
#[test]
fn stream_sizes_the_writer_cannot_solve() {
    golden("stream_size_writer");
}

/// A range that runs to the end of the file but is not last in `writer.order`, and ranges
/// whose length or offset reads `len` otherwise.
#[test]
fn ranges_that_read_len_in_a_writer() {
    golden("range_to_end");
}

/// A checksum whose span covers its own stored field in every file (a top-level checksum
/// from 0 over a header that stores it, one to `len`, a stream record's word inside its
/// span) is refused at its `from`; spans after, before, or undecidable pass.
#[test]
fn checksum_spans_over_their_stored_field() {
    golden("checksum_span");
}

/// Records nested in a stream's records: `nested: true` without `max_depth`, `max_depth`
/// without a nested layout, out of 1..=32, with a terminator, and `record.depth` over a
/// stream that does not nest.
#[test]
fn nested_stream_records() {
    golden("nested_stream");
}

/// Records that form a chain (`chain:`): a signed link type, `max` of 0 or past `u32::MAX`,
/// `first` that reads a record's field or a position, `at` that reads the header, an unknown
/// byte order, `align`, `end` and nested records with a chain, and a chain in a schema with a
/// writer.
#[test]
fn chain_stream_records() {
    golden("chain_stream");
}

/// A stream within another stream's records (`within:`): a holding stream that is missing or
/// itself within another, a `range` of its own, `from`/`to` outside the holding header's
/// scope, a terminator, nested records or a chain with it, its walk before the holding
/// stream's, and a writer.
#[test]
fn within_stream_records() {
    golden("within_stream");
}
