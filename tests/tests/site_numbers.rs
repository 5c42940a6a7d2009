//! The error-site numbers of the shipped formats are an interface: firmware reports a
//! failing check as a `Brief` (the site number only) and a host decodes it with
//! `npuschema site`. This test pins every site of the NPU1 and VPMN modules (number, code,
//! field, offset in its struct, detail shape) in `tests/golden/sites-*.txt`, and holds the
//! interpreter's numbering to the generated one, so a renumbering is a deliberate edit of
//! the golden file, seen in review, never a side effect of a schema change.
//!
//! To accept a deliberate change: `NPUSCHEMA_BLESS=1 cargo test -p npuschema-tests --test
//! site_numbers`, then explain it in the commit.

use std::path::PathBuf;

use npuschema_core::ErrorSite;

fn table(sites: &[ErrorSite]) -> String {
    let mut out = String::new();
    for s in sites {
        let field = if s.table.is_empty() {
            s.name.to_string()
        } else {
            format!("{}[].{}", s.table, s.name)
        };
        out.push_str(&format!(
            "{:3} {} {} +{} {:?}\n",
            s.id, s.code, field, s.offset, s.detail
        ));
    }
    out
}

fn pinned(name: &str, sites: &[ErrorSite], schema: &str) {
    let got = table(sites);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("golden/sites-{name}.txt"));
    if std::env::var_os("NPUSCHEMA_BLESS").is_some() {
        std::fs::write(&path, &got).expect("write the golden table");
    }
    let want = std::fs::read_to_string(&path).expect("read the golden table");
    assert_eq!(
        got, want,
        "the error sites of {name} changed: site numbers are what firmware reports; \
         if this is deliberate, bless the table (see this file's doc) and explain it"
    );
    // The interpreter numbers the same schema's sites alike.
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let checked = npuschema_codegen::load(&repo.join(schema)).unwrap_or_else(|d| panic!("{d}"));
    let interp = npuschema_codegen::interp::Interp::new(&checked);
    assert_eq!(
        table(interp.sites()),
        got,
        "interpreter and generated {name} sites"
    );
}

#[test]
fn npu1_sites_are_pinned() {
    pinned(
        "npu1",
        &npuschema_generated::npu1::ERROR_SITES,
        "schema/npu1.yaml",
    );
}

#[test]
fn vpmn_sites_are_pinned() {
    pinned(
        "vpmn",
        &npuschema_generated::vpmn::ERROR_SITES,
        "schema/vpmn.yaml",
    );
}
