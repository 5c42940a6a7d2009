//! `check`, `inspect` and `explain` over any schema: `--schema S.yaml` loads and checks the
//! schema with the generator's frontend and runs the schema interpreter
//! (`npuschema_codegen::interp`) on the files, so a schema for a new format can be tried
//! on real files without building anything. The interpreter is held to the generated code
//! by `tests/tests/interp_differential.rs`, so the verdicts are the generated validator's.
//!
//! A schema mistake prints the generator's diagnostics (`file:line:column: error: ...`) and
//! exits 2. Otherwise the contracts are those of the built-in commands: exit 0 all valid, 1
//! any invalid, 2 usage or I/O error; `check --json` prints one
//! `{"file","format","valid","error":null|{"code","field","offset","message"}}` per line,
//! `format` being the schema's name.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use npuschema_codegen::interp::{Interp, View};
use rayon::prelude::*;
use serde_json::json;

use crate::{check, explain, inspect};

/// `check`, with `--schema` (and `--ext` for its directory walk).
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Validate with this schema (any format) instead of choosing NPU1 or VPMN by magic.
    #[arg(long, value_name = "SCHEMA.yaml")]
    pub schema: Option<PathBuf>,
    /// With --schema: the file extensions a directory walk picks (repeatable; default:
    /// every file).
    #[arg(long, value_name = "EXT", requires = "schema")]
    pub ext: Vec<String>,
    /// The built-in command's arguments.
    #[command(flatten)]
    pub inner: check::Args,
}

/// `inspect`, with `--schema`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// Decode with this schema (any format): the interpreter's view of every field.
    #[arg(long, value_name = "SCHEMA.yaml")]
    pub schema: Option<PathBuf>,
    /// The built-in command's arguments.
    #[command(flatten)]
    pub inner: inspect::Args,
}

/// `explain`, with `--schema`.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// Explain with this schema (any format): every byte range named by its field path.
    #[arg(long, value_name = "SCHEMA.yaml")]
    pub schema: Option<PathBuf>,
    /// The built-in command's arguments.
    #[command(flatten)]
    pub inner: explain::Args,
}

/// What a command prints and its exit status: the library half, which tests call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit status: 0 valid, 1 invalid, 2 usage, I/O or schema error.
    pub code: u8,
}

impl Output {
    fn fail(stderr: String, code: u8) -> Self {
        Self {
            stdout: String::new(),
            stderr,
            code,
        }
    }

    /// Print it and give the exit status.
    #[must_use]
    pub fn emit(self) -> ExitCode {
        let mut ok = std::io::stdout()
            .lock()
            .write_all(self.stdout.as_bytes())
            .is_ok();
        ok &= std::io::stderr()
            .lock()
            .write_all(self.stderr.as_bytes())
            .is_ok();
        if ok {
            ExitCode::from(self.code)
        } else {
            ExitCode::from(2)
        }
    }
}

/// Load and check a schema; on a mistake, every diagnostic (file:line:column), exit 2.
fn load(cmd: &str, path: &Path) -> Result<npuschema_codegen::Checked, Output> {
    let text = crate::io::read_schema(path)
        .map_err(|m| Output::fail(format!("npuschema {cmd}: {m}\n"), 2))?;
    let c = npuschema_codegen::load_str(&text, &path.display().to_string()).map_err(|d| {
        let mut msg = d.to_string();
        if !msg.ends_with('\n') {
            msg.push('\n');
        }
        Output::fail(msg, 2)
    })?;
    if !c.has_file() {
        let only = if c.has_commands() {
            "an instruction set (`commands`)"
        } else {
            "registers"
        };
        return Err(Output::fail(
            format!(
                "npuschema {cmd}: {}: schema `{}` declares {only} only (no `file`): it describes a device, not bytes, so there is nothing to read\n",
                crate::io::line_path(path),
                c.name()
            ),
            2,
        ));
    }
    Ok(c)
}

/// Whether a walked file is one `check --schema` takes: every file, or one whose
/// extension (in any case) is among `ext`.
fn wanted_ext(p: &Path, ext: &[String]) -> bool {
    ext.is_empty()
        || p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
            ext.iter()
                .any(|x| x.trim_start_matches('.').eq_ignore_ascii_case(e))
        })
}

/// Read a file as `check` does: bounded by the input limit (`NPUSCHEMA_MAX_INPUT_BYTES`).
fn read_bounded(p: &Path) -> Result<Vec<u8>, (&'static str, String)> {
    crate::io::read_all(p, crate::io::max_input_bytes()).map_err(|e| (e.code(), e.to_string()))
}

/// The outcome for one file: validated (or not), or unreadable.
type Outcome = Result<Result<(), npuschema_core::Error>, (&'static str, String)>;

/// The JSON line for one file (the built-in `check --json` contract).
#[must_use]
pub fn json_line(path: &Path, format: &str, o: &Outcome) -> serde_json::Value {
    match o {
        Ok(result) => json!({
            "file": path.display().to_string(),
            "format": format,
            "valid": result.is_ok(),
            "error": match result {
                Ok(()) => serde_json::Value::Null,
                Err(e) => json!({
                    "code": e.code,
                    "field": e.field.to_string(),
                    "offset": e.offset,
                    "message": e.to_string(),
                    // The interpreter is the schema's validator: the built-in line's stage.
                    "stage": "validator",
                }),
            },
        }),
        Err((code, msg)) => json!({
            "file": path.display().to_string(),
            "format": null,
            "valid": false,
            "error": { "code": code, "field": "", "offset": 0, "message": msg },
        }),
    }
}

/// `check` (with or without `--schema`).
pub fn check(args: CheckArgs) -> ExitCode {
    match &args.schema {
        Some(schema) => check_output(schema, &args.inner.paths, &args.ext, args.inner.json).emit(),
        None => check::run(args.inner),
    }
}

/// `check --schema SCHEMA PATHS...`: every file (directories walked in parallel for the
/// `ext` extensions, every file when none), in path order.
#[must_use]
pub fn check_output(schema: &Path, paths: &[PathBuf], ext: &[String], json: bool) -> Output {
    let c = match load("check", schema) {
        Ok(c) => c,
        Err(o) => return o,
    };
    let it = Interp::new(&c);
    let mut w = crate::check::Walk::default();
    let mut seen_dirs = std::collections::HashSet::new();
    let wanted = |p: &Path| wanted_ext(p, ext);
    for p in paths {
        if p.is_dir() {
            crate::check::walk_for(p, &mut w, &mut seen_dirs, &wanted);
        } else {
            w.files.push(p.clone());
        }
    }
    let mut files = std::mem::take(&mut w.files);
    let io_errors = std::mem::take(&mut w.errors);
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
            let o = read_bounded(&p).map(|b| it.check::<npuschema_core::Error>(&b));
            bar.inc(1);
            (p, o)
        })
        .collect();
    bar.finish_and_clear();
    let mut out = Output::default();
    let mut any_invalid = false;
    let mut any_io = !io_errors.is_empty();
    for (p, why) in &w.skipped {
        let _ = writeln!(
            out.stderr,
            "npuschema check: skipped {}: {why}",
            crate::io::line_path(p)
        );
    }
    for (p, msg) in &io_errors {
        if json {
            let o: Outcome = Err(("io-error", msg.clone()));
            let _ = writeln!(out.stdout, "{}", json_line(p, it.schema_name(), &o));
        } else {
            let _ = writeln!(
                out.stderr,
                "npuschema check: {}: {msg}",
                crate::io::line_path(p)
            );
        }
    }
    if outcomes.is_empty() {
        any_io = true;
        let msg = format!(
            "nothing-checked: no file to check{}",
            if w.skipped.is_empty() {
                String::new()
            } else {
                format!(" ({} skipped)", w.skipped.len())
            }
        );
        if json {
            let line = json!({
                "file": null,
                "format": null,
                "valid": false,
                "error": { "code": "nothing-checked", "field": "", "offset": 0, "message": msg },
            });
            let _ = writeln!(out.stdout, "{line}");
        } else {
            let _ = writeln!(out.stderr, "npuschema check: {msg}");
        }
    }
    for (p, o) in &outcomes {
        let line = if json {
            json_line(p, it.schema_name(), o).to_string()
        } else {
            match o {
                Ok(Ok(())) => format!("{}: OK", crate::io::line_path(p)),
                Ok(Err(e)) => format!("{}: {e}", crate::io::line_path(p)),
                Err((_, msg)) => {
                    // Not a verdict: an error, on stderr, naming the command.
                    any_io = true;
                    let _ = writeln!(
                        out.stderr,
                        "npuschema check: {}: cannot read: {msg}",
                        crate::io::line_path(p)
                    );
                    continue;
                }
            }
        };
        match o {
            Ok(Err(_)) => any_invalid = true,
            Err(_) => any_io = true,
            Ok(Ok(())) => {}
        }
        let _ = writeln!(out.stdout, "{line}");
    }
    out.code = if any_io { 2 } else { u8::from(any_invalid) };
    out
}

/// Read the file and validate it with the schema: the view, or the exit code after the
/// message (`npuschema CMD: FILE: ...`).
fn view_of(cmd: &str, schema: &Path, file: &Path) -> Result<(View, Vec<u8>), Output> {
    let c = load(cmd, schema)?;
    let it = Interp::new(&c);
    let name = crate::io::line_path(file);
    let bytes = read_bounded(file)
        .map_err(|(_, e)| Output::fail(format!("npuschema {cmd}: {name}: {e}\n"), 2))?;
    match it.validate(&bytes) {
        Ok(v) => Ok((v, bytes)),
        Err(e) => {
            let mut msg = format!("npuschema {cmd}: {name}: {e}\n");
            if let Some(rows) = hex_rows(&bytes, e.offset.saturating_sub(e.offset % 16), 2) {
                msg.push_str(&rows);
            }
            Err(Output::fail(msg, 1))
        }
    }
}

/// The view as text: every field with its offset, size and decoded value, every range and
/// every checksum.
#[must_use]
pub fn view_text(v: &View) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} ({}{}), {} bytes: valid",
        v.file,
        v.schema,
        v.variant
            .as_ref()
            .map_or(String::new(), |k| format!(", variant {k}")),
        v.len
    );
    for g in &v.groups {
        let _ = writeln!(
            o,
            "\n{} {} ({}, {} record(s))",
            g.kind, g.name, g.struct_name, g.total
        );
        if g.total > g.records.len() as u64 {
            let _ = writeln!(
                o,
                "  (the first {} listed, {} not: at most {} per group)",
                g.records.len(),
                g.total - g.records.len() as u64,
                npuschema_codegen::interp::LIST_LIMIT
            );
        }
        for r in &g.records {
            let _ = writeln!(o, "  {} @ {:#x} ({} bytes)", r.path, r.offset, r.size);
            for f in &r.fields {
                let _ = writeln!(
                    o,
                    "    {:<24} @ {:#08x} [{:>3}] = {}",
                    f.name, f.offset, f.size, f.value
                );
            }
            for (n, x) in &r.composed {
                let _ = writeln!(o, "    {n:<24} (composed)       = {x:#x}");
            }
            for x in &r.ranges {
                let _ = writeln!(
                    o,
                    "    {:<24} range {:#x} + {:#x}",
                    x.name, x.offset, x.length
                );
            }
        }
    }
    if !v.ranges.is_empty() {
        let _ = writeln!(o, "\nranges");
        for x in &v.ranges {
            let _ = writeln!(o, "  {:<24} {:#x} + {:#x}", x.path, x.offset, x.length);
        }
    }
    if !v.strings.is_empty() {
        let _ = writeln!(o, "\nstrings");
        for x in &v.strings {
            let shown = x.text.as_ref().map_or_else(
                || format!("(not UTF-8: {} bytes)", x.bytes.len()),
                |t| format!("{t:?}"),
            );
            let _ = writeln!(o, "  {:<24} @ {:#x} = {shown}", x.path, x.offset);
        }
    }
    write_checksums(&mut o, v);
    o
}

/// The checksums section of `inspect --schema` and `explain --schema`: each stored (or the
/// value it must reach, `equals`) and computed, and whether they agree.
fn write_checksums(o: &mut String, v: &View) {
    if v.checksums.is_empty() {
        return;
    }
    let _ = writeln!(o, "\nchecksums");
    for k in &v.checksums {
        let _ = writeln!(
            o,
            "  {:<24} {} {} {:#010x} computed {:#010x} {}",
            k.path,
            k.algorithm,
            if k.equals { "expected" } else { "stored" },
            k.stored,
            k.computed,
            if k.stored == k.computed {
                "ok"
            } else {
                "MISMATCH"
            }
        );
    }
}

/// `inspect` (with or without `--schema`).
pub fn inspect(args: InspectArgs) -> ExitCode {
    match &args.schema {
        Some(schema) => inspect_output(schema, &args.inner.file, args.inner.json).emit(),
        None => inspect::run(args.inner),
    }
}

/// `inspect --schema SCHEMA [--json] FILE`: the interpreter's view, as text or one JSON
/// object ([`View::to_json`]).
#[must_use]
pub fn inspect_output(schema: &Path, file: &Path, json: bool) -> Output {
    match view_of("inspect", schema, file) {
        Ok((v, _)) => Output {
            stdout: if json {
                format!("{}\n", v.to_json(&file.display().to_string()))
            } else {
                view_text(&v)
            },
            stderr: String::new(),
            code: 0,
        },
        Err(o) => o,
    }
}

/// `rows` hex rows of 16 bytes from `start`.
fn hex_rows(b: &[u8], start: u64, rows: usize) -> Option<String> {
    let start = usize::try_from(start).ok()?;
    let mut o = String::new();
    for (i, chunk) in b.get(start..)?.chunks(16).take(rows).enumerate() {
        let hex: Vec<String> = chunk.iter().map(|x| format!("{x:02x}")).collect();
        let _ = writeln!(o, "  {:08x}  {}", start + 16 * i, hex.join(" "));
    }
    Some(o)
}

/// One named byte range of the explained file.
struct Span {
    start: u64,
    end: u64,
    label: String,
    /// A field's bytes are shown in full; a range's first row only.
    field: bool,
}

/// The annotated hexdump: every field and range of the view, in file order, with the bytes
/// no rule names marked as such.
#[must_use]
pub fn explain_text(v: &View, bytes: &[u8]) -> String {
    let mut spans: Vec<Span> = Vec::new();
    for g in &v.groups {
        for r in &g.records {
            for f in &r.fields {
                spans.push(Span {
                    start: f.offset,
                    end: f.offset.saturating_add(f.size),
                    label: format!("{} = {}", f.path, f.value),
                    field: true,
                });
            }
            for x in &r.ranges {
                spans.push(Span {
                    start: x.offset,
                    end: x.offset.saturating_add(x.length),
                    label: format!("{} ({} bytes)", x.path, x.length),
                    field: false,
                });
            }
        }
    }
    for x in &v.ranges {
        spans.push(Span {
            start: x.offset,
            end: x.offset.saturating_add(x.length),
            label: format!("{} ({} bytes)", x.path, x.length),
            field: false,
        });
    }
    spans.sort_by_key(|s| (s.start, !s.field, s.end));
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} ({}{}), {} bytes",
        v.file,
        v.schema,
        v.variant
            .as_ref()
            .map_or(String::new(), |k| format!(", variant {k}")),
        v.len
    );
    for g in v.groups.iter().filter(|g| g.total > g.records.len() as u64) {
        let _ = writeln!(
            o,
            "note: {} {} names its first {} of {} records (at most {} per group); the bytes of the others show as not named",
            g.kind,
            g.name,
            g.records.len(),
            g.total,
            npuschema_codegen::interp::LIST_LIMIT
        );
    }
    let mut covered = 0u64;
    let len = bytes.len() as u64;
    let show = |o: &mut String, start: u64, end: u64, label: &str, full: bool| {
        let mut at = start;
        let stop = if full {
            end
        } else {
            end.min(start.saturating_add(16))
        };
        let mut first = true;
        while at < stop.min(len) {
            let row_end = stop.min(at.saturating_add(16)).min(len);
            let hex: Vec<String> = bytes
                .get(at as usize..row_end as usize)
                .unwrap_or(&[])
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect();
            let _ = writeln!(
                o,
                "{:08x}  {:<47}  {}",
                at,
                hex.join(" "),
                if first { label } else { "" }
            );
            first = false;
            at = row_end;
        }
        if first {
            let _ = writeln!(o, "{start:08x}  {:<47}  {label}", "");
        } else if !full && end > stop {
            let _ = writeln!(o, "{:8}  {:<47}  ... to {end:#x}", "", "");
        }
    };
    for s in &spans {
        if s.start > covered {
            show(
                &mut o,
                covered,
                s.start,
                &format!("(no rule names these {} bytes)", s.start - covered),
                false,
            );
        }
        show(&mut o, s.start, s.end, &s.label, s.field);
        covered = covered.max(s.end);
    }
    if covered < len {
        show(
            &mut o,
            covered,
            len,
            &format!("(no rule names these {} bytes)", len - covered),
            false,
        );
    }
    write_checksums(&mut o, v);
    o
}

/// `explain` (with or without `--schema`).
pub fn explain(args: ExplainArgs) -> ExitCode {
    match &args.schema {
        Some(schema) => explain_output(schema, &args.inner.file).emit(),
        None => explain::run(args.inner),
    }
}

/// `explain --schema SCHEMA FILE`: the annotated hexdump of [`explain_text`].
#[must_use]
pub fn explain_output(schema: &Path, file: &Path) -> Output {
    match view_of("explain", schema, file) {
        Ok((v, bytes)) => Output {
            stdout: explain_text(&v, &bytes),
            stderr: String::new(),
            code: 0,
        },
        Err(o) => o,
    }
}
