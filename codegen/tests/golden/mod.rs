//! The golden runner every `schema_errors*` test uses: load `schema_errors/<kind>.yaml`, which must
//! be rejected, and compare its diagnostics with `<kind>.expected` (rewritten first when
//! `NPUSCHEMA_BLESS` is set; review the diff).

use std::path::Path;

/// Assert the diagnostics of `schema_errors/<kind>.yaml` are `<kind>.expected`.
pub fn golden(kind: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema_errors");
    let yaml = dir.join(format!("{kind}.yaml"));
    let text = std::fs::read_to_string(&yaml).expect("fixture");
    let shown = format!("schema_errors/{kind}.yaml");
    let diags = match npuschema_codegen::load_str(&text, &shown) {
        Ok(_) => panic!("{shown} must be rejected"),
        Err(d) => d.to_string(),
    };
    let expected_path = dir.join(format!("{kind}.expected"));
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
