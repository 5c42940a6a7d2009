//! Golden test for a directory writer's optional parts it cannot write
//! (`check/optional_parts.rs`): `schema_errors/dir_when.yaml` holds them, `dir_when.expected` the
//! diagnostics the loader must print (file:line:column). Regenerate with
//! `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen --test schema_errors_dir_when` after
//! reviewing the change.

mod golden;
use golden::golden;

/// A payload with `when` next to a payload checksum, a range whose condition reads a
/// checksum's field, a directory's own table behind a `when` table_fits, and a table whose
/// condition reads one; the parts it writes (a payload condition reading the payload's
/// size, a table with a per-record range) get no diagnostic.
#[test]
fn dir_when_refusals() {
    golden("dir_when");
}
