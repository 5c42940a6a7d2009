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
    /// Output directory (created if missing): the code goes to DIR/<schema name>.rs.
    #[arg(short = 'o', long = "out")]
    pub out: PathBuf,
}

/// Run the subcommand.
pub fn run(args: Args) -> ExitCode {
    let text = match crate::io::read_schema(&args.schema) {
        Ok(t) => t,
        Err(m) => {
            eprintln!("npuschema gen: {m}");
            return ExitCode::from(2);
        }
    };
    let checked = match npuschema_codegen::load_str(&text, &args.schema.display().to_string()) {
        Ok(c) => c,
        Err(d) => {
            eprintln!("{d}");
            return ExitCode::from(1);
        }
    };
    if let Ok(m) = std::fs::metadata(&args.out)
        && !m.is_dir()
    {
        eprintln!(
            "npuschema gen: -o {}: is {}, not a directory; -o takes a directory (gen writes DIR/{}.rs)",
            args.out.display(),
            crate::io::kind_name(m.file_type()),
            checked.name()
        );
        return ExitCode::from(2);
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!(
            "npuschema gen: -o {}: cannot create the output directory: {e}",
            args.out.display()
        );
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
