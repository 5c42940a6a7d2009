//! Golden test for `first(collection)` (record positions in a stream, `check/positions.rs`):
//! `schema_errors/positions.yaml` holds its mistakes, `positions.expected` the diagnostics
//! the loader must print (file:line:column). Regenerate with `NPUSCHEMA_BLESS=1 cargo test
//! -p npuschema-codegen --test schema_errors_positions` after reviewing the change.

use std::path::Path;

#[test]
fn first_misused() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema_errors");
    let text = std::fs::read_to_string(dir.join("positions.yaml")).expect("fixture");
    let shown = "schema_errors/positions.yaml";
    let diags = match npuschema_codegen::load_str(&text, shown) {
        Ok(_) => panic!("{shown} must be rejected"),
        Err(d) => d.to_string(),
    };
    let expected_path = dir.join("positions.expected");
    if std::env::var_os("NPUSCHEMA_BLESS").is_some() {
        std::fs::write(&expected_path, &diags).expect("bless");
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert_eq!(
        diags,
        expected,
        "diagnostics for {shown} differ from {}",
        expected_path.display()
    );
}
