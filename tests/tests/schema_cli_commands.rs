//! `check`, `inspect` and `explain --schema` with a schema that declares an instruction set
//! only (`schema/ethos_u55_cmd.yaml`): there are no bytes to read, so each refuses the schema
//! with exit 2 and says why.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::Path;

use npuschema_cli::schema_cmd::{check_output, explain_output, inspect_output};

#[test]
fn a_commands_only_schema_is_refused_with_its_reason() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/ethos_u55_cmd.yaml");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    for (what, o) in [
        (
            "check",
            check_output(&schema, std::slice::from_ref(&file), &[], false),
        ),
        ("inspect", inspect_output(&schema, &file, false)),
        ("explain", explain_output(&schema, &file)),
    ] {
        assert_eq!(o.code, 2, "{what}: {o:?}");
        assert!(o.stdout.is_empty(), "{what}: {}", o.stdout);
        assert!(
            o.stderr
                .contains("declares an instruction set (`commands`) only")
                && o.stderr.contains("ethos_u55_cmd"),
            "{what}: {}",
            o.stderr
        );
    }
}
