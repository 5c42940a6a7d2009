//! `npuschema check [--json] PATH...`: validate files, choosing the format by magic.
//!
//! A directory is walked recursively for `.npub`, `.nb` and `.nbg` files (a file named on
//! the command line is checked whatever its name). Files are checked in parallel; on a
//! terminal a progress bar shows on stderr. Output is in path order: plain, one line per
//! file (`PATH: OK` or `PATH: <error>`); `--json`, one object per line. Exit status 0 when
//! every file is valid, 1 when any is not, 2 for usage or I/O errors.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;
use serde_json::json;

use crate::format;

/// Arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
    /// Files or directories.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// The outcome for one file.
#[derive(Debug)]
pub enum Outcome {
    /// Read and validated (or not).
    Checked {
        /// The format its magic names, if any.
        format: Option<format::Format>,
        /// The validation result.
        result: Result<(), npuschema_core::Error>,
    },
    /// Could not be read.
    Io(String),
}

const EXTENSIONS: &[&str] = &["npub", "nb", "nbg"];

fn walk(dir: &Path, out: &mut Vec<PathBuf>, errors: &mut Vec<(PathBuf, String)>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push((dir.to_path_buf(), e.to_string()));
            return;
        }
    };
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() {
            walk(&p, out, errors);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e))
        {
            out.push(p);
        }
    }
}

/// Check one file.
pub fn check_file(path: &Path) -> Outcome {
    match std::fs::read(path) {
        Ok(bytes) => {
            let (format, result) = format::validate(&bytes);
            Outcome::Checked { format, result }
        }
        Err(e) => Outcome::Io(e.to_string()),
    }
}

/// The JSON object for one file.
pub fn json_line(path: &Path, outcome: &Outcome) -> serde_json::Value {
    match outcome {
        Outcome::Checked { format, result } => json!({
            "file": path.display().to_string(),
            "format": format.map(format::Format::name),
            "valid": result.is_ok(),
            "error": match result {
                Ok(()) => serde_json::Value::Null,
                Err(e) => json!({
                    "code": e.code,
                    "field": e.field.to_string(),
                    "offset": e.offset,
                    "message": e.to_string(),
                }),
            },
        }),
        Outcome::Io(msg) => json!({
            "file": path.display().to_string(),
            "format": null,
            "valid": false,
            "error": { "code": "io-error", "field": "", "offset": 0, "message": msg },
        }),
    }
}

/// Run the subcommand.
pub fn run(args: Args) -> ExitCode {
    let mut files = Vec::new();
    let mut io_errors = Vec::new();
    for p in &args.paths {
        if p.is_dir() {
            walk(p, &mut files, &mut io_errors);
        } else {
            files.push(p.clone());
        }
    }
    files.sort();
    let bar = if std::io::stderr().is_terminal() && files.len() > 1 {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files checked")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let outcomes: Vec<(PathBuf, Outcome)> = files
        .into_par_iter()
        .map(|p| {
            let o = check_file(&p);
            bar.inc(1);
            (p, o)
        })
        .collect();
    bar.finish_and_clear();

    let mut any_invalid = false;
    let mut any_io = !io_errors.is_empty();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (p, msg) in &io_errors {
        eprintln!("{}: {msg}", p.display());
    }
    for (p, o) in &outcomes {
        let line = if args.json {
            json_line(p, o).to_string()
        } else {
            match o {
                Outcome::Checked { result: Ok(()), .. } => format!("{}: OK", p.display()),
                Outcome::Checked { result: Err(e), .. } => format!("{}: {e}", p.display()),
                Outcome::Io(msg) => format!("{}: cannot read: {msg}", p.display()),
            }
        };
        match o {
            Outcome::Checked { result: Err(_), .. } => any_invalid = true,
            Outcome::Io(_) => any_io = true,
            Outcome::Checked { .. } => {}
        }
        if writeln!(out, "{line}").is_err() {
            return ExitCode::from(2);
        }
    }
    if any_io {
        ExitCode::from(2)
    } else if any_invalid {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
