//! Golden test for a directory writer's top-level checksums whose spans `seal` cannot read
//! (`check/located_span.rs`, through `lower/writer.rs`): `schema_errors/dir_opt.yaml` holds
//! them, `dir_opt.expected` the diagnostics the loader must print (file:line:column).
//! Regenerate with `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen --test
//! schema_errors_dir_opt` after reviewing the change.

mod golden;
use golden::golden;

/// A span reading a record placed by another record's field, a version-gated record's
/// field, a function call; the span read from an ungated located record gets no diagnostic.
#[test]
fn dir_opt_refusals() {
    golden("dir_opt");
}
