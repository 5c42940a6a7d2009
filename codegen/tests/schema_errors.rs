//! Golden tests: each `schema_errors/<kind>.yaml` holds schema mistakes of one kind, and
//! `<kind>.expected` the diagnostics the loader must print for it, file:line:column and all.
//! Regenerate an expected file with `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen
//! --test schema_errors` after reviewing the change.

use std::path::Path;

fn golden(kind: &str) {
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

#[test]
fn yaml_syntax() {
    golden("yaml_syntax");
}
#[test]
fn unknown_key() {
    golden("unknown_key");
}
#[test]
fn unknown_field_reference() {
    golden("unknown_field_reference");
}
#[test]
fn overlapping_fields() {
    golden("overlapping_fields");
}
#[test]
fn offset_differs_from_layout() {
    golden("offset_differs");
}
#[test]
fn width_does_not_fit_the_type() {
    golden("width_does_not_fit");
}
#[test]
fn duplicate_names() {
    golden("duplicate_names");
}
#[test]
fn undefined_enum() {
    golden("undefined_enum");
}
#[test]
fn every_mistake_is_reported_at_once() {
    golden("all_at_once");
}

#[test]
fn the_shipped_schemas_load() {
    let mut n = 0;
    for dir in ["../schema", "../tests/schemas"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        for entry in std::fs::read_dir(&root).expect("schema dir") {
            let p = entry.expect("entry").path();
            if p.extension().is_some_and(|e| e == "yaml") {
                if let Err(d) = npuschema_codegen::load(&p) {
                    panic!("{d}");
                }
                n += 1;
            }
        }
    }
    assert!(n >= 3, "the shipped and test schemas are found ({n})");
}
#[test]
fn directory_constructs() {
    golden("directories");
}
/// A closed enum read without an `enum_known` step would have no value to return for an
/// undefined raw value: the checker requires the step for every closed-enum field the file
/// reads (header, table records, located records, collections).
#[test]
fn closed_enum_without_enum_known() {
    golden("enum_unchecked");
}
/// Two variants with a table of the same name would emit two iterator types of one name
/// (E0428); a table named like a struct likewise. Refused, with both places.
#[test]
fn generated_names_collide() {
    golden("variant_collision");
}
/// One mistake, one diagnostic: a misspelt key is read as the key it is close to and
/// reported once (no missing key, no reference to what it defined).
#[test]
fn key_typo_gives_one_diagnostic() {
    golden("key_typo");
}
/// `n`, `off`, `null` as names: YAML 1.1 reads them as a boolean or nothing; the message
/// says so, with the word as written.
#[test]
fn yaml_1_1_traps() {
    golden("yaml_traps");
}
