//! Golden test for `ownership` and its `owned_apart` step: `schema_errors/ownership.yaml`
//! holds the mistakes, `ownership.expected` the diagnostics the loader must print
//! (file:line:column). Regenerate with `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen
//! --test schema_errors_ownership` after reviewing the change.

mod golden;
use golden::golden;

/// `owned_apart` misused: see the schema's comment.
#[test]
fn ownership_misused() {
    golden("ownership");
}
