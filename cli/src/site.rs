//! `npuschema site NUMBER [--format npu1|vpmn]`, `npuschema site --list`: name the check
//! behind a [`Brief`](npuschema_core::Brief) number, the two-byte error that firmware built
//! for size reports (and that the `npu1_validate_bind` C export returns as its status).
//!
//! For NPU1 the numbers cover a whole load: the generated validator's sites
//! (`npuschema_generated::npu1::ERROR_SITES`, from 1) and the binder's
//! (`npuschema_runtime::binder::ERROR_SITES`, from `0x81`). Numbers are fixed by the schema
//! file the firmware was built from; run the tool built from the same schema.

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
    if a.list {
        let text: String = sites(&a.format)
            .into_iter()
            .map(|(s, origin)| describe(s, origin) + "\n")
            .collect();
        return crate::io::print_then("site", text, ExitCode::SUCCESS);
    }
    let Some(id) = a.number.as_deref().and_then(parse) else {
        eprintln!("npuschema site: give a number from 1 to 0xffff (decimal or 0x hex)");
        return ExitCode::from(2);
    };
    match lookup(&a.format, id) {
        Some((s, origin)) => {
            crate::io::print_then("site", describe(s, origin) + "\n", ExitCode::SUCCESS)
        }
        None => {
            eprintln!("npuschema site: {:#x} is not a {} check", id, a.format);
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
}
