//! Error sites are numbered once, by the lowered model (`codegen/src/lower/sites.rs`), and
//! both back ends take their numbers from it. For every schema of the repository (shipped,
//! test, gallery and the own-crate test's): the generated module numbers no site the model
//! lacks (such a site would make it fail to compile, with a `compile_error!` naming the
//! check), its `ERROR_SITES` has exactly the model's sites, and the interpreter's table is
//! the same length (it too numbers nothing of its own).

use std::path::{Path, PathBuf};

fn schemas() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in [
        "schema",
        "tests/schemas",
        "formats",
        "codegen/tests/own_crate",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "yaml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_site_is_numbered_by_the_model_and_both_engines_take_it() {
    let mut checked = 0;
    for p in schemas() {
        let Ok(c) = npuschema_codegen::load(&p) else {
            continue;
        };
        let text = npuschema_codegen::generate(&c);
        assert!(
            !text.contains("has no error site in the lowered model"),
            "{}: a check the model does not number",
            p.display()
        );
        let generated = text.matches("__rt::ErrorSite {").count();
        if c.has_file() {
            let interp = npuschema_codegen::interp::Interp::new(&c);
            assert_eq!(
                interp.sites().len(),
                generated,
                "{}: the interpreter has sites the model does not number",
                p.display()
            );
            assert!(generated > 0, "{}: a file with no site", p.display());
        }
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} schemas loaded");
}
