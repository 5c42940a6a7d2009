//! `npuschema gen SCHEMA.yaml -o DIR`: write the generated Rust for a schema to
//! `DIR/<schema name>.rs`. The same code `build.rs` (via `npuschema_codegen::Builder`) and
//! the `include_schema!` macro produce.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The schema file.
    pub schema: PathBuf,
    /// Output directory.
    #[arg(short = 'o', long = "out")]
    pub out: PathBuf,
}

/// Run the subcommand.
pub fn run(args: Args) -> ExitCode {
    let checked = match npuschema_codegen::load(&args.schema) {
        Ok(c) => c,
        Err(d) => {
            eprintln!("{d}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("{}: {e}", args.out.display());
        return ExitCode::from(2);
    }
    let path = args.out.join(format!("{}.rs", checked.name()));
    let code = npuschema_codegen::generate(&checked);
    match crate::io::write_atomic(&path, code.as_bytes(), &[args.schema.as_path()]) {
        Ok(()) => crate::io::print_then(
            "gen",
            format!("wrote {}\n", path.display()),
            ExitCode::SUCCESS,
        ),
        Err(e) => {
            eprintln!("npuschema gen: {e}");
            ExitCode::from(2)
        }
    }
}
