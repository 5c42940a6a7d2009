//! The complete schemas `schema/README.md` shows (a YAML block that starts with `schema:`
//! and elides nothing, `{ ... }`) generate as written: a reader who copies one gets code, not
//! a diagnostic. (The register map's example once had a reset value with a bit in no field.)

use std::path::Path;

#[test]
fn the_readmes_complete_schemas_generate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("schema/README.md")).expect("schema/README.md");
    let dir = std::env::temp_dir().join(format!("npuschema-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut generated = 0;
    let mut failures = Vec::new();
    for (k, block) in text.split("```yaml\n").skip(1).enumerate() {
        let Some((yaml, _)) = block.split_once("```") else {
            continue;
        };
        if !yaml.trim_start().starts_with("schema:") || yaml.contains("{ ... }") {
            continue;
        }
        let p = dir.join(format!("block{k}.yaml"));
        std::fs::write(&p, yaml).expect("write");
        match npuschema_codegen::generate_file(&p) {
            Ok(code) => {
                assert!(
                    code.contains("ERROR_SITES") || code.contains("pub const"),
                    "block {k}"
                );
                generated += 1;
            }
            Err(d) => failures.push(format!("yaml block {k}: {d}")),
        }
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        generated >= 2,
        "only {generated} complete schemas in schema/README.md"
    );
}
