//! Golden test for `first(collection)` (record positions in a stream, `check/positions.rs`):
//! `schema_errors/positions.yaml` holds its mistakes, `positions.expected` the diagnostics
//! the loader must print (file:line:column). Regenerate with `NPUSCHEMA_BLESS=1 cargo test
//! -p npuschema-codegen --test schema_errors_positions` after reviewing the change.

mod golden;

#[test]
fn first_misused() {
    golden::golden("positions");
}
