//! `npuschema pack INPUT -o OUT.npub [--accel auto|32|64|128|256] [--format-version 1|2] [--json]`.

use std::path::PathBuf;
use std::process::ExitCode;

use serde::Serialize;

use super::blob::{AccelChoice, FormatVersion, pack_file_as};
use super::model::PackError;

/// Arguments of `npuschema pack`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Vela's output: `<model>_vela.tflite` (default output) or `<model>_vela.npz`
    /// (`--output-format raw`); COP1 or COP2 payloads.
    pub input: PathBuf,
    /// The NPU1 file to write. Written only when it validates and its command stream passes
    /// the static check.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Accelerator configuration: `auto` takes it from the payload's CONFIG word; a number
    /// must agree with it.
    #[arg(long, default_value = "auto", value_parser = clap::value_parser!(AccelChoice))]
    pub accel: AccelChoice,
    /// NPU1 version to write: 2 (the default: the compiled-for words and the I/O tensor
    /// table) or 1 (no tensor table; byte for byte what version-1 readers expect).
    #[arg(long = "format-version", default_value = "2", value_parser = clap::value_parser!(FormatVersion))]
    pub format_version: FormatVersion,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

impl clap::builder::ValueParserFactory for FormatVersion {
    type Parser = clap::builder::ValueParser;
    fn value_parser() -> Self::Parser {
        clap::builder::ValueParser::new(|s: &str| s.parse::<FormatVersion>())
    }
}

impl clap::builder::ValueParserFactory for AccelChoice {
    type Parser = clap::builder::ValueParser;
    fn value_parser() -> Self::Parser {
        clap::builder::ValueParser::new(|s: &str| s.parse::<AccelChoice>())
    }
}

#[derive(Serialize)]
struct JsonError<'a> {
    code: &'a str,
    field: &'a str,
    offset: Option<u64>,
    detail: &'a str,
}

/// Exit status for a failure: 2 for I/O trouble, 1 for an input that cannot be packed.
fn status(e: &PackError) -> ExitCode {
    if matches!(
        e.code,
        "io-error"
            | "input-too-large"
            | "output-is-input"
            | "output-replaced"
            | "output-not-a-regular-file"
    ) {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}

/// Run `npuschema pack`.
pub fn run(args: Args) -> ExitCode {
    match pack_file_as(&args.input, &args.output, args.accel, args.format_version) {
        Ok(report) => {
            let text = if args.json {
                format!("{}\n", report.to_json())
            } else {
                report.to_text()
            };
            crate::io::print_then("pack", text, ExitCode::SUCCESS)
        }
        Err(e) => {
            if args.json {
                let j = JsonError {
                    code: e.code,
                    field: &e.field,
                    offset: e.offset,
                    detail: &e.detail,
                };
                let body = serde_json::json!({ "error": j });
                // One line, as every command's `--json` refusal.
                let text = serde_json::to_string(&body).unwrap_or_default() + "\n";
                // The error is also on stderr; a closed stdout changes nothing here.
                let _ = crate::io::print(text);
            }
            eprintln!("npuschema pack: {e}");
            eprintln!(
                "npuschema pack: nothing written to {}",
                args.output.display()
            );
            status(&e)
        }
    }
}
