//! Golden tests for structs inside structs and fixed arrays of structs: each
//! `schema_errors/<kind>.yaml` holds mistakes of one kind, `<kind>.expected` the
//! diagnostics the loader must print (file:line:column). Regenerate with
//! `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen --test schema_errors_nested` after
//! reviewing the change.

mod golden;
use golden::golden;

/// Structs that contain themselves (through another struct, directly, through an array):
/// each cycle reported once, at the field that closes it, with the chain of fields.
#[test]
fn cycles() {
    golden("nested_cycle");
}

/// Struct-typed fields misused: an unknown struct, an array of zero, an array too large to
/// hold, an array of an enum, a byte order on the field, an accessor name taken, a closed
/// enum inside.
#[test]
fn struct_types() {
    golden("nested_types");
}

/// Paths into struct-typed fields misused: a struct as a number, an array without an
/// index, an index past the end or on a single struct, a computed index, an unknown field,
/// too many parts, an undefined flag bit inside, a flag bit inside as a number or as the
/// blamed field, `enum_known` / `flags_known` inside; in a record's
/// scope, its own array's element read bare past the end or by a computed index.
#[test]
fn paths() {
    golden("nested_paths");
}
