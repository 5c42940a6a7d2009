//! One mistake gives one diagnostic: an expression wrong in itself (a misspelt field) gets
//! its diagnostic, and what else fails at that expression because of it (the writer's plan,
//! "must name one field") is suppressed. `schema_errors/knock_on.yaml` holds three
//! misspelt fields, `knock_on.expected` their three diagnostics (five before). Regenerate
//! with `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen --test schema_errors_knock_on`
//! after reviewing the change.

mod golden;
use golden::golden;

/// Three misspelt fields in a schema with a writer: three diagnostics.
#[test]
fn three_mistakes_three_diagnostics() {
    golden("knock_on");
}

/// A file and its stream of one name, both with a writer: their `<X>Spec` and `<X>Writer`
/// clash, one diagnostic for the pair (two before).
#[test]
fn two_generators_of_one_name_one_diagnostic() {
    golden("knock_on_names");
}
