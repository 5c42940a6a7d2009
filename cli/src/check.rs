//! `npuschema check [--json] [--format npu1|vpmn] PATH...`: validate files.
//!
//! The format is `--format` when given, else the one the magic names, else the one the
//! extension names (`.npub`, `.nb`, `.nbg`, in any case), so a damaged `.npub` gets NPU1's
//! own error. A directory is walked recursively for files with those extensions (a file
//! named on the command line is checked whatever its name): symbolic links are followed,
//! but each directory and each file is visited once (a link loop ends), and anything that
//! is not a regular file (a FIFO, a socket, a device) is skipped and named on stderr, never
//! opened. Files are read in bounded pieces ([`crate::io`]): at most the input limit, and
//! only the head of a file whose magic already decides the verdict.
//!
//! Files are checked in parallel; on a terminal a progress bar shows on stderr. Output is in
//! path order: plain, one line per file checked on stdout (`PATH: OK` or `PATH: <error>`),
//! and every error that is not a verdict on stderr, naming the command (`npuschema check:
//! PATH: cannot read: ...`, an unreadable directory, a skipped FIFO, `nothing-checked`);
//! `--json`, one object per line on stdout, those errors included. Exit status 0 when every file is valid, 1 when any is not, 2 for
//! usage or I/O errors, a file over the input limit, or when nothing was checked.

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;
use serde_json::{Value, json};

use crate::format::{self, Format};
use crate::io::InputError;

/// Arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
    /// Validate every file as this format (npu1 or vpmn) whatever its magic or name.
    #[arg(long, value_parser = clap::value_parser!(Format))]
    pub format: Option<Format>,
    /// Files or directories.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

impl clap::builder::ValueParserFactory for Format {
    type Parser = clap::builder::ValueParser;
    fn value_parser() -> Self::Parser {
        clap::builder::ValueParser::new(|s: &str| s.parse::<Format>())
    }
}

/// The outcome for one file.
#[derive(Debug)]
pub enum Outcome {
    /// Read and validated (or not).
    Checked {
        /// The format it was validated as, if any.
        format: Option<format::Format>,
        /// The verdict ([`format::verdict`]).
        result: Result<(), format::Refusal>,
        /// For a valid NPU1 file, the arena its runtime regions need (what `run --sim`
        /// allocates: `ArenaSize::any_start`).
        arena: Option<u64>,
    },
    /// Not read: `code` is `io-error` or `file-too-large`.
    Unread {
        /// A stable code.
        code: &'static str,
        /// What happened.
        message: String,
    },
}

impl Outcome {
    fn unread(e: &InputError) -> Self {
        Self::Unread {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

/// What a walk found besides the files to check.
#[derive(Debug, Default)]
pub struct Walk {
    /// Files to check, in the order found.
    pub files: Vec<PathBuf>,
    /// Paths that could not be read (a directory, a dangling link), with the error.
    pub errors: Vec<(PathBuf, String)>,
    /// Paths skipped, with why (not a regular file, already visited).
    pub skipped: Vec<(PathBuf, String)>,
}

/// Whether a walked file is one to check: its extension, in any case.
fn wanted(p: &Path) -> bool {
    format::by_extension(p).is_some()
}

/// Walk `root` (a directory) for the files to check, following symbolic links but visiting
/// every directory and every file once (by device and inode), and never opening anything
/// that is not a regular file or a directory.
pub fn walk(root: &Path, w: &mut Walk, seen_dirs: &mut HashSet<(u64, u64)>) {
    walk_for(root, w, seen_dirs, &wanted);
}

/// [`walk`], taking the files `wanted` says (by path) instead of the formats' extensions:
/// `check --schema` walks with it.
pub fn walk_for(
    root: &Path,
    w: &mut Walk,
    seen_dirs: &mut HashSet<(u64, u64)>,
    wanted: &dyn Fn(&Path) -> bool,
) {
    let mut seen_files: HashSet<(u64, u64)> = HashSet::new();
    if let Ok(m) = std::fs::metadata(root) {
        seen_dirs.insert((m.dev(), m.ino()));
    }
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                w.errors.push((dir, e.to_string()));
                continue;
            }
        };
        let mut names: Vec<PathBuf> = Vec::new();
        for entry in entries {
            match entry {
                Ok(e) => names.push(e.path()),
                Err(e) => w.errors.push((dir.clone(), e.to_string())),
            }
        }
        names.sort();
        let mut subdirs = Vec::new();
        for p in names {
            // Follows a link; what it points at decides.
            let meta = match std::fs::metadata(&p) {
                Ok(m) => m,
                Err(e) => {
                    if wanted(&p) {
                        w.errors.push((p, e.to_string()));
                    }
                    continue;
                }
            };
            let id = (meta.dev(), meta.ino());
            if meta.is_dir() {
                if seen_dirs.insert(id) {
                    subdirs.push(p);
                } else {
                    w.skipped.push((
                        p,
                        "a directory already walked (a link loop or a second link)".into(),
                    ));
                }
            } else if !wanted(&p) {
            } else if !meta.is_file() {
                let kind = crate::io::kind_name(meta.file_type());
                w.skipped.push((p, format!("{kind}, not a regular file")));
            } else if seen_files.insert(id) {
                w.files.push(p);
            } else {
                w.skipped
                    .push((p, "the same file as one already found (a link)".into()));
            }
        }
        // Reversed, so that the stack pops them in name order.
        stack.extend(subdirs.into_iter().rev());
    }
}

/// Check one file, as `forced` or as its magic or extension name it.
pub fn check_file_as(path: &Path, forced: Option<Format>) -> Outcome {
    match format::load(path, forced, crate::io::max_input_bytes()) {
        Ok(l) => {
            let result = l.verdict();
            let arena = match (l.format, &result, l.whole()) {
                (Some(Format::Npu1), Ok(()), Some(b)) => {
                    npuschema_generated::npu1::Npu1::validate(b)
                        .ok()
                        .map(|v| npuschema_runtime::binder::arena_size(&v).any_start)
                }
                _ => None,
            };
            Outcome::Checked {
                format: l.format,
                result,
                arena,
            }
        }
        Err(e) => Outcome::unread(&e),
    }
}

/// Check one file, choosing the format by magic, then by extension.
pub fn check_file(path: &Path) -> Outcome {
    check_file_as(path, None)
}

/// The name fields of a JSON line: `file` (the path as text, lossy when it is not UTF-8)
/// and, only for a name that is not UTF-8, `file_hex`: its exact bytes in hex.
fn name_fields(path: &Path) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("file".into(), json!(path.display().to_string()));
    if path.to_str().is_none() {
        let hex: String = path
            .as_os_str()
            .as_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        m.insert("file_hex".into(), json!(hex));
    }
    m
}

fn line(path: Option<&Path>, format: Option<Format>, error: Value) -> Value {
    let mut m = path.map(name_fields).unwrap_or_else(|| {
        let mut m = serde_json::Map::new();
        m.insert("file".into(), Value::Null);
        m
    });
    m.insert("format".into(), json!(format.map(Format::name)));
    m.insert("valid".into(), json!(error.is_null()));
    m.insert("error".into(), error);
    Value::Object(m)
}

fn plain_error(code: &str, message: &str) -> Value {
    json!({ "code": code, "field": "", "offset": 0, "message": message })
}

/// The one-verdict rule's exception, stated: a valid NPU1 file whose runtime regions need
/// more than `run --sim` allocates by default (`--max-arena`, 64 MiB) is valid (`check`
/// exit 0: the format and the firmware take it), and `check` warns
/// (`arena-over-sim-default`, with the `--max-arena` that runs it); `run --sim` refuses it
/// (`arena-over-limit`, exit 2) unless given that `--max-arena`.
#[must_use]
pub fn arena_warning(arena: Option<u64>) -> Option<(&'static str, String)> {
    let a = arena.filter(|a| *a > npuschema_sim::run::DEFAULT_MAX_ARENA)?;
    Some((
        "arena-over-sim-default",
        format!(
            "its runtime regions need an arena of {a} bytes, over run --sim's default --max-arena of {} bytes: run it with --max-arena {a}",
            npuschema_sim::run::DEFAULT_MAX_ARENA
        ),
    ))
}

/// The JSON object for one file.
pub fn json_line(path: &Path, outcome: &Outcome) -> Value {
    match outcome {
        Outcome::Checked {
            format,
            result,
            arena,
        } => {
            let mut v = line(
                Some(path),
                *format,
                match result {
                    Ok(()) => Value::Null,
                    Err(e) => json!({
                        "code": e.code,
                        "field": e.field,
                        "offset": e.offset,
                        "message": e.message,
                        "stage": e.stage,
                    }),
                },
            );
            if let (Some((code, message)), Some(m)) = (arena_warning(*arena), v.as_object_mut()) {
                m.insert(
                    "warnings".into(),
                    json!([{ "code": code, "arena_bytes": arena, "message": message }]),
                );
            }
            v
        }
        Outcome::Unread { code, message } => line(Some(path), None, plain_error(code, message)),
    }
}

/// Run the subcommand.
pub fn run(args: Args) -> ExitCode {
    let mut w = Walk::default();
    let mut seen_dirs = HashSet::new();
    for p in &args.paths {
        if p.is_dir() {
            walk(p, &mut w, &mut seen_dirs);
        } else {
            w.files.push(p.clone());
        }
    }
    let mut files = std::mem::take(&mut w.files);
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
    let forced = args.format;
    let outcomes: Vec<(PathBuf, Outcome)> = files
        .into_par_iter()
        .map(|p| {
            let o = check_file_as(&p, forced);
            bar.inc(1);
            (p, o)
        })
        .collect();
    bar.finish_and_clear();

    for (p, why) in &w.skipped {
        eprintln!(
            "npuschema check: skipped {}: {why}",
            crate::io::line_path(p)
        );
    }
    let mut any_invalid = false;
    let mut any_io = !w.errors.is_empty();
    let mut lines: Vec<String> = Vec::new();
    for (p, msg) in &w.errors {
        if args.json {
            lines.push(line(Some(p), None, plain_error("io-error", msg)).to_string());
        } else {
            eprintln!("npuschema check: {}: {msg}", crate::io::line_path(p));
        }
    }
    for (p, o) in &outcomes {
        if let (false, Outcome::Unread { message, .. }) = (args.json, o) {
            // Not a verdict: an error, on stderr as every command's, naming the command.
            eprintln!(
                "npuschema check: {}: cannot read: {message}",
                crate::io::line_path(p)
            );
            any_io = true;
            continue;
        }
        lines.push(if args.json {
            json_line(p, o).to_string()
        } else {
            match o {
                Outcome::Checked {
                    result: Ok(()),
                    arena,
                    ..
                } => match arena_warning(*arena) {
                    Some((code, message)) => {
                        format!(
                            "{}: OK (warning: {code}: {message})",
                            crate::io::line_path(p)
                        )
                    }
                    None => format!("{}: OK", crate::io::line_path(p)),
                },
                Outcome::Checked { result: Err(e), .. } => {
                    format!("{}: {e}", crate::io::line_path(p))
                }
                Outcome::Unread { message, .. } => {
                    format!("{}: cannot read: {message}", crate::io::line_path(p))
                }
            }
        });
        match o {
            Outcome::Checked { result: Err(_), .. } => any_invalid = true,
            Outcome::Unread { .. } => any_io = true,
            Outcome::Checked { .. } => {}
        }
    }
    if outcomes.is_empty() {
        any_io = true;
        let msg = format!(
            "nothing-checked: no file to check (directories are searched for .npub, .nb and .nbg files{})",
            if w.skipped.is_empty() {
                String::new()
            } else {
                format!("; {} skipped", w.skipped.len())
            }
        );
        if args.json {
            lines.push(line(None, None, plain_error("nothing-checked", &msg)).to_string());
        } else {
            eprintln!("npuschema check: {msg}");
        }
    }
    let code = if any_io {
        ExitCode::from(2)
    } else if any_invalid {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = lines
        .iter()
        .try_for_each(|l| writeln!(out, "{l}"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => code,
        Err(e) => crate::io::stdout_error("check", &e, code),
    }
}
