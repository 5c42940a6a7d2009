//! `npuschema site NUMBER [--format npu1|vpmn]`, `npuschema site --schema S.yaml NUMBER`,
//! `npuschema site --list`: name the check behind a [`Brief`](npuschema_core::Brief)
//! number, the two-byte error that firmware built for size reports (and that the
//! `npu1_validate_bind` C export returns as its status).
//!
//! With `--schema`, any schema's numbers: the sites of the validator generated from it,
//! as the interpreter numbers them (the generator's numbering, which `interp_differential`
//! holds the two to).
//!
//! For NPU1 the numbers cover a whole load: the generated validator's sites
//! (`npuschema_generated::npu1::ERROR_SITES`, from 1) and the binder's
//! (`npuschema_runtime::binder::ERROR_SITES`, from `0x81`). Numbers are fixed by the schema
//! file the firmware was built from; run the tool built from the same schema.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use npuschema_core::ErrorSite;
use npuschema_generated::{npu1, vpmn};
use npuschema_runtime::binder;

/// Arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The number a `Brief` holds (decimal, or hex with 0x).
    #[arg(required_unless_present = "list")]
    pub number: Option<String>,
    /// The format whose validator reported it (npu1 includes the arena binder).
    #[arg(long, default_value = "npu1", value_parser = ["npu1", "vpmn"])]
    pub format: String,
    /// List every site of the format instead.
    #[arg(long)]
    pub list: bool,
    /// The schema the firmware was built from (any schema with a `file`), instead of a
    /// shipped format.
    #[arg(long, conflicts_with = "format")]
    pub schema: Option<PathBuf>,
}

/// Every site of the validator generated from the schema at `path` (numbered as its
/// `ERROR_SITES`), or the schema's diagnostics.
///
/// # Errors
/// The schema's mistakes, or that it declares no `file` (nothing to validate).
pub fn schema_sites(path: &Path) -> Result<Vec<(&'static ErrorSite, &'static str)>, String> {
    // Read as every command reads a schema: bounded, and a FIFO without a writer or a
    // device refused rather than waited on.
    let text = crate::io::read_schema(path)?;
    let c = npuschema_codegen::load_str(&text, &path.display().to_string())
        .map_err(|d| d.to_string())?;
    if !c.has_file() {
        return Err(format!(
            "{}: schema `{}` declares no `file`, so it has no validator and no error sites",
            path.display(),
            c.name()
        ));
    }
    let it = npuschema_codegen::interp::Interp::new(&c);
    Ok(it.sites().iter().map(|s| (s, "validator")).collect())
}

/// Every site of a format, with where it lives.
#[must_use]
pub fn sites(format: &str) -> Vec<(&'static ErrorSite, &'static str)> {
    if format == "vpmn" {
        vpmn::ERROR_SITES.iter().map(|s| (s, "validator")).collect()
    } else {
        npu1::ERROR_SITES
            .iter()
            .map(|s| (s, "validator"))
            .chain(binder::ERROR_SITES.iter().map(|s| (s, "binder")))
            .collect()
    }
}

/// The site with number `id` in a format, and where it lives.
#[must_use]
pub fn lookup(format: &str, id: u16) -> Option<(&'static ErrorSite, &'static str)> {
    sites(format).into_iter().find(|(s, _)| s.id == id)
}

/// One line for a site: `0x84: baked-region-out-of-bounds: regions[].data_offset (+0xc), binder`.
#[must_use]
pub fn describe(site: &ErrorSite, origin: &str) -> String {
    let table = if site.table.is_empty() {
        String::new()
    } else {
        format!("{}[].", site.table)
    };
    format!(
        "{:#x}: {}: {table}{} (+{:#x}), {origin}",
        site.id, site.code, site.name, site.offset
    )
}

fn parse(n: &str) -> Option<u16> {
    match n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
        Some(hex) => u16::from_str_radix(hex, 16).ok(),
        None => n.parse().ok(),
    }
}

/// Run the subcommand.
#[must_use]
pub fn run(a: Args) -> ExitCode {
    let (all, what) = match &a.schema {
        Some(path) => match schema_sites(path) {
            Ok(s) => (s, format!("`{}`", path.display())),
            Err(msg) => {
                eprintln!("npuschema site: {}", msg.trim_end());
                return ExitCode::from(2);
            }
        },
        None => (sites(&a.format), a.format.clone()),
    };
    if a.list {
        let text: String = all
            .into_iter()
            .map(|(s, origin)| describe(s, origin) + "\n")
            .collect();
        return crate::io::print_then("site", text, ExitCode::SUCCESS);
    }
    let Some(id) = a.number.as_deref().and_then(parse) else {
        eprintln!("npuschema site: give a number from 1 to 0xffff (decimal or 0x hex)");
        return ExitCode::from(2);
    };
    match all.into_iter().find(|(s, _)| s.id == id) {
        Some((s, origin)) => {
            crate::io::print_then("site", describe(s, origin) + "\n", ExitCode::SUCCESS)
        }
        None => {
            eprintln!("npuschema site: {id:#x} is not a {what} check");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_name_their_checks() {
        let (s, origin) = lookup("npu1", 2).unwrap();
        assert_eq!((s.code, origin), ("bad-magic", "validator"));
        let (s, origin) = lookup("npu1", 0x84).unwrap();
        assert_eq!(
            describe(s, origin),
            "0x84: baked-region-out-of-bounds: regions[].data_offset (+0xc), binder"
        );
        assert!(lookup("npu1", 0).is_none());
        assert!(lookup("vpmn", 0x84).is_none());
        assert_eq!(lookup("vpmn", 1).map(|(s, _)| s.id), Some(1));
        assert_eq!(parse("0x84"), Some(0x84));
        assert_eq!(parse("260"), Some(260));
        assert_eq!(parse("0x10000"), None);
    }

    /// `--schema` numbers a shipped schema's sites as its generated validator does: every
    /// site of `schema/npu1.yaml` and `schema/vpmn.yaml` is the checked-in module's, id for
    /// id (the binder's, numbered by the runtime, are not the schema's).
    /// A schema read as every command reads one: `/dev/zero` is refused by its size, not
    /// read until memory runs out.
    #[test]
    #[cfg(unix)]
    fn schema_sites_read_the_schema_bounded() {
        let e = schema_sites(Path::new("/dev/zero")).unwrap_err();
        assert!(e.contains("schema-too-large"), "{e}");
    }

    #[test]
    fn schema_sites_are_the_generated_ones() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for (name, generated) in [
            ("npu1", &npu1::ERROR_SITES[..]),
            ("vpmn", &vpmn::ERROR_SITES[..]),
        ] {
            let got = schema_sites(&root.join(format!("schema/{name}.yaml"))).unwrap();
            assert_eq!(got.len(), generated.len(), "{name}");
            for ((s, origin), g) in got.iter().zip(generated) {
                assert_eq!(*origin, "validator");
                assert_eq!(
                    describe(s, origin),
                    describe(g, "validator"),
                    "{name} site {:#x}",
                    g.id
                );
            }
        }
        // A test schema: its numbers from 1, each naming a check of the schema.
        let tail = schema_sites(&root.join("formats/png.yaml")).unwrap();
        assert!(!tail.is_empty());
        for (i, (s, _)) in tail.iter().enumerate() {
            assert_eq!(usize::from(s.id), i + 1);
            assert!(!s.code.is_empty());
        }
        // A register map has no validator.
        let regs = schema_sites(&root.join("schema/ethos_u55_regs.yaml")).unwrap_err();
        assert!(regs.contains("no `file`"), "{regs}");
        assert!(schema_sites(&root.join("schema/missing.yaml")).is_err());
    }
}
