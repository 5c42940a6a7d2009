//! Golden tests for the `fill` step and `record.<part>` in a record stream's `for_each`:
//! each `schema_errors/<kind>.yaml` holds mistakes of one kind, `<kind>.expected` the
//! diagnostics the loader must print (file:line:column). Regenerate with
//! `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen --test schema_errors_fill` after
//! reviewing the change.

use std::path::Path;

mod golden;
use golden::golden;

/// `fill` misused: no such range, a per-record or conditional range, a range before its
/// `range_fits`, a byte that is no byte (above 0xFF, a signed constant, a field, an
/// expression), an offset that does not resolve, a span without `to`, `when` on the step,
/// an unknown key.
#[test]
fn fill_misused() {
    golden("fill");
}

/// `record.<part>` outside a `for_each` over a record stream (at file level, in a table's
/// `for_each`, in the stream's `size`), an unknown part, and as an `assert`'s field.
#[test]
fn record_positions_misused() {
    golden("recpos");
}

/// Both new constructs load and check in the schemas that use them (no diagnostic).
#[test]
fn the_schemas_that_use_them_load() {
    for p in [
        "../tests/schemas/padded.yaml",
        "../schema/ethos_u_cop2.yaml",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(p);
        if let Err(d) = npuschema_codegen::load(&path) {
            panic!("{p}: {d}");
        }
    }
}
