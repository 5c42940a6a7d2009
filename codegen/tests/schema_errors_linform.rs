//! Golden test for what the plain writer refuses to solve for one field: a place, count,
//! offset or length that is not a linear form of one unsigned integer field (`F`, `F + C`,
//! `C + F`, `F - C`, `F * K`, `K * F`, `F * K` plus or minus `C`), or one of an optional range.
//! `schema_errors/linform_writer.yaml` holds the mistakes, `.expected` the diagnostics
//! (file:line:column). Regenerate with `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen
//! --test schema_errors_linform` after reviewing the change.

mod golden;
use golden::golden;

/// Two fields, a quotient, a signed field, a factor 0, a field scaled twice, and a linear form
/// in an optional range's offset: each refused where the schema says it.
#[test]
fn values_the_plain_writer_cannot_solve() {
    golden("linform_writer");
}

/// A trailer not last, a trailer whose length is not its distance from the end, ranges that
/// end before the end without the trailer they need right after them, and a length reading
/// `len` otherwise; the trailer last is written.
#[test]
fn ranges_relative_to_the_end_the_plain_writer_cannot_place() {
    golden("trailer_writer");
}

/// A directory writer's parts at the end of the file that are not last, a length reading
/// `len` otherwise, and a table at `len - 8` its records cannot fill.
#[test]
fn parts_at_the_end_a_directory_writer_cannot_place() {
    golden("dir_writer_end");
}

/// A directory writer's forms over a version-gated record's field, a signed field or two
/// fields, in an optional part that records zero when left out, and a string table placed or
/// a string in it offset by a form: each refused where the schema says it; the forms it
/// solves (`size * 4` of an optional payload, another table's place and count) pass.
#[test]
fn values_the_directory_writer_cannot_solve() {
    golden("dir_linform");
}
