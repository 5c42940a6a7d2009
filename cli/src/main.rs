//! `npuschema`: generate code from schemas, and check, inspect, pack and run container files.
//!
//! Exit status: 0 success, 1 a file is invalid (or a check found problems), 2 usage or I/O
//! error.

mod arch;
mod disasm;
mod run;
mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use npuschema_cli::{generate, pack, schema_cmd, site};

/// Each subcommand lives in its own module with an `Args` type and a `run(Args) -> ExitCode`.
#[derive(Parser)]
#[command(
    name = "npuschema",
    version,
    about = "Schemas, validators and tooling for NPU model containers (NPU1 .npub, VPMN .nb)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Generate Rust readers, validators and writers from a schema.
    Gen(generate::Args),
    /// Validate container files (NPU1, VPMN), choosing the format by magic; or any format
    /// with --schema S.yaml (the schema interpreter, no build).
    Check(schema_cmd::CheckArgs),
    /// Decode a container file: header, regions or sections, checksums, layout; or any
    /// format with --schema S.yaml.
    Inspect(schema_cmd::InspectArgs),
    /// List a model's Ethos-U55 register command stream (Vela-style text, or --json;
    /// --arch u65 for an Ethos-U65's).
    Disasm(disasm::Args),
    /// Statically check a model's command stream against its region sizes (--arch u65 for
    /// an Ethos-U65's).
    Verify(verify::Args),
    /// Pack Vela's output (*_vela.tflite or *_vela.npz) into an NPU1 .npub.
    Pack(pack::Args),
    /// Annotated hexdump of a container: every header and region field named and decoded,
    /// the layout, and the load cross-checks with their numbers; or any format with
    /// --schema S.yaml (every byte range named by its field path).
    Explain(schema_cmd::ExplainArgs),
    /// Run an NPU1 .npub on the simulated Ethos-U55 through the firmware driver (--sim).
    Run(run::Args),
    /// Name the check behind a `Brief` error number from firmware (--list: all of them).
    Site(site::Args),
}

impl Cmd {
    /// The subcommand's name, for messages.
    fn name(&self) -> &'static str {
        match self {
            Self::Gen(_) => "gen",
            Self::Check(_) => "check",
            Self::Inspect(_) => "inspect",
            Self::Disasm(_) => "disasm",
            Self::Verify(_) => "verify",
            Self::Pack(_) => "pack",
            Self::Explain(_) => "explain",
            Self::Run(_) => "run",
            Self::Site(_) => "site",
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(m) = npuschema_cli::io::check_env() {
        eprintln!("npuschema {}: {m}", cli.cmd.name());
        return ExitCode::from(2);
    }
    if let Err(e) = npuschema_cli::io::remove_temporaries_on_signal() {
        eprintln!("npuschema: cannot install the signal handler that removes temporaries: {e}");
        return ExitCode::from(2);
    }
    match cli.cmd {
        Cmd::Gen(a) => generate::run(a),
        Cmd::Check(a) => schema_cmd::check(a),
        Cmd::Inspect(a) => schema_cmd::inspect(a),
        Cmd::Disasm(a) => disasm::run(a),
        Cmd::Verify(a) => verify::run(a),
        Cmd::Pack(a) => pack::run(a),
        Cmd::Explain(a) => schema_cmd::explain(a),
        Cmd::Run(a) => run::run(a),
        Cmd::Site(a) => site::run(a),
    }
}
