//! The README's "Use it in your own crate", followed literally: a new crate in a temporary
//! directory outside the repository, its `Cargo.toml`, `build.rs` and `src/lib.rs` taken
//! from the README's marked blocks (the path dependencies pointed at this checkout), and
//! `schema/npu1.yaml` copied in. To prove that generated code is warning-free where a user
//! gets it, the test then puts `#![deny(warnings)]` on the crate and adds every schema of
//! `schema/`, `tests/schemas/` and `codegen/tests/own_crate/` twice: through the build script, as a user would
//! (`npuschema_codegen::Builder` writing to `OUT_DIR`, one subdirectory per schema, and
//! `include!`: clippy lints this code as the crate's own), and through the macro (whose
//! expansion clippy does not lint). It runs `cargo build --offline` and
//! `cargo clippy --offline -- -D warnings` once on the one crate (dependencies come from the
//! local registry cache; the build directory is kept under the workspace's target
//! directory, so a second run only rebuilds the new crate).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The README block after `<!-- own-crate:NAME -->`.
fn readme_block(readme: &str, name: &str) -> String {
    let marker = format!("<!-- own-crate:{name} -->");
    let at = readme
        .find(&marker)
        .unwrap_or_else(|| panic!("README has no block marked {marker}"));
    let rest = &readme[at + marker.len()..];
    let open = rest.find("```").expect("a code block follows the marker");
    let body = &rest[open..];
    let body = &body[body.find('\n').expect("fence line") + 1..];
    body[..body.find("```").expect("closing fence")].to_string()
}

fn run(dir: &Path, target: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        // The outer `cargo test`'s settings are not the new crate's.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "`cargo {}` failed in {}:\n{stderr}",
        args.join(" "),
        dir.display()
    );
    assert!(
        !stderr.contains("warning"),
        "`cargo {}` warned:\n{stderr}",
        args.join(" ")
    );
}

#[test]
fn readme_own_crate_section_builds_warning_free() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repo root")
        .canonicalize()
        .expect("repo root exists");
    let readme = std::fs::read_to_string(repo.join("README.md")).expect("README");
    let dir = std::env::temp_dir().join(format!("npuschema-own-crate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).expect("src");
    std::fs::create_dir_all(dir.join("schema")).expect("schema dir");
    assert!(
        !dir.starts_with(&repo),
        "the crate lies outside the repository"
    );

    let checkout = format!("{}/", repo.display());
    let manifest = readme_block(&readme, "Cargo.toml");
    assert!(
        manifest.contains("path = \"../npuschema/"),
        "README's path form"
    );
    // A crate of its own, not a member of a workspace above the temp directory.
    let manifest = manifest.replace("../npuschema/", &checkout) + "\n[workspace]\n";
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("Cargo.toml");
    // The README's build script, then one `Builder` per schema (each into its own
    // subdirectory of `OUT_DIR`: two test schemas may share a name).
    let readme_build = readme_block(&readme, "build.rs");
    assert!(readme_build.contains("fn main()"), "README's build.rs");
    let mut build = readme_build.replacen("fn main()", "fn readme_main()", 1);
    build += "\nfn main() {\n    readme_main();\n    let out = std::path::PathBuf::from(std::env::var_os(\"OUT_DIR\").expect(\"OUT_DIR\"));\n    for (tag, schema) in [\n";
    std::fs::copy(repo.join("schema/npu1.yaml"), dir.join("schema/npu1.yaml")).expect("copy");

    let mut lib = String::from("#![deny(warnings)]\n");
    lib += &readme_block(&readme, "src/lib.rs");
    let mut n = 0;
    // `codegen/tests/own_crate/`: expressions that once made clippy refuse the generated code.
    for sub in [
        "schema",
        "formats",
        "tests/schemas",
        "codegen/tests/own_crate",
    ] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(repo.join(sub))
            .expect("schemas")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        entries.sort();
        for p in entries {
            let stem = p.file_stem().and_then(|s| s.to_str()).expect("name");
            let tag = format!("{}_{stem}", sub.replace('/', "_"));
            let copied = format!("schema/all_{tag}.yaml");
            std::fs::copy(&p, dir.join(&copied)).expect("copy schema");
            // What build.rs writes (the file is named after the schema), and the macro's
            // tokens.
            let name = npuschema_codegen::load(&p)
                .unwrap_or_else(|d| panic!("{d}"))
                .name()
                .to_string();
            build += &format!("        (\"{tag}\", \"{copied}\"),\n");
            lib += &format!(
                "\n/// `{sub}/{stem}.yaml`, from build.rs.\npub mod build_{tag} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{tag}/{name}.rs\"));\n}}\n\n/// `{sub}/{stem}.yaml`, by the macro.\npub mod macro_{tag} {{\n    npuschema_macro::include_schema!(\"{copied}\");\n}}\n"
            );
            n += 1;
        }
    }
    assert!(n >= 3, "every shipped and test schema ({n})");
    build += "    ] {\n        let dir = out.join(tag);\n        std::fs::create_dir_all(&dir).expect(\"out dir\");\n        if let Err(e) = npuschema_codegen::Builder::new().schema(schema).out_dir(dir).build() {\n            eprintln!(\"{e}\");\n            std::process::exit(1);\n        }\n    }\n}\n";
    std::fs::write(dir.join("build.rs"), build).expect("build.rs");
    std::fs::write(dir.join("src/lib.rs"), lib).expect("lib.rs");

    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("own-crate");
    run(&dir, &target, &["build", "--offline", "--quiet"]);
    run(
        &dir,
        &target,
        &["clippy", "--offline", "--quiet", "--", "-D", "warnings"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}
