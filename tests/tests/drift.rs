//! The checked-in generated code must be exactly what the generator makes from the schemas
//! (as prost does for its checked-in output). On a difference: run `scripts/regenerate`,
//! review `git diff generated/`, commit both.

use std::path::Path;

#[test]
fn generated_code_matches_the_schemas() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = 0;
    for entry in std::fs::read_dir(root.join("schema")).expect("schema/") {
        let schema = entry.expect("entry").path();
        if schema.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let c = npuschema_codegen::load(&schema).unwrap_or_else(|d| panic!("{d}"));
        let fresh = npuschema_codegen::generate(&c);
        let file = root.join("generated/src").join(format!("{}.rs", c.name()));
        let on_disk = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(
            fresh == on_disk,
            "{} is out of date with {}: run scripts/regenerate and review the diff",
            file.display(),
            schema.display()
        );
        checked += 1;
    }
    assert!(checked >= 1, "no schema found");
}
