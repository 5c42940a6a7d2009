//! npuschema's generator: one schema frontend (load, check) and one Rust emitter, behind
//! three entry points that all call [`generate`] or [`generate_tokens`]:
//!
//! - `build.rs`: [`Builder`] writes the code to `OUT_DIR` for `include!`;
//! - the `npuschema-macro` proc-macro: `include_schema!("schema/x.yaml")`;
//! - the CLI: `npuschema gen SCHEMA.yaml -o DIR`.
//!
//! # Layout
//!
//! The source is laid out by phase, and within a phase by construct. No two modules import
//! each other: `tests/layout.rs` derives the module graph from the source and fails on a
//! cycle or on a phase importing a later one.
//!
//! - base: `yaml.rs` (YAML with positions), `diag.rs` (diagnostics: one per mistake, what
//!   follows from a mistake folded into it), `expr.rs` (the
//!   expression syntax), `names.rs` (schema names to generated names), `sites.rs` (error
//!   sites and their list), `model.rs` (the lowered layout model's vocabulary: the items a
//!   writer places and the equations `field = form(source)` every writer's plan is stated
//!   in);
//! - load, `schema/`: `mod.rs` the leaf types and the YAML readers, one file per construct
//!   (`strings`, `streams`, `fill`, `ext`, `commands`, `regs`) with its types and loader,
//!   `top.rs` the aggregate types (`Schema`, `File`, `Step`, `Struct`) and
//!   `from_tree`, which calls every loader;
//! - resolve and check, `check/`: `mod.rs` the checked model (`Checked`, `FieldKind`,
//!   `Resolved`, `Scope`), `lookup.rs` queries on the loaded file, one file per construct,
//!   `expr.rs` name resolution and the expression checker, `top.rs` the driver;
//! - lower, `lower/`: what the checked schema means for a back end, stated once: the
//!   writer's one plan type (`plan.rs`), the lowering that makes it for every file and says
//!   what it cannot write (`writer.rs`), the names its spec types give (`names.rs`), the
//!   checks' error sites, numbered, and what each blames (`sites.rs`), and
//!   `top.rs`, which the crate root runs after the check phase;
//! - emit, `emit/`: `mod.rs` what the emitters share (the context `Em`, error blame and
//!   sites, literal helpers), `doc.rs` doc attributes, one file per construct (the directory
//!   constructs' in `sections.rs`, streams' in `stream.rs`), `file_writer.rs` (the one writer
//!   emitter, over `lower/`'s plan), `typestate.rs` and `writer.rs` (its typestate builder
//!   and table records), `view.rs` (views and validators), `top.rs` the generated module;
//! - `interp/`: the interpreter, which uses load, check and lower and shares no code with
//!   emit (it takes the error sites' numbers from the model, through the crate's `Checked`).
//!
//! In each phase directory, `mod.rs` imports no sibling and `top.rs` is the only module that
//! names every construct; a construct's module imports `mod.rs` and the modules it needs
//! below it, never its phase's `top.rs` (the layout test checks both).
//!
//! # Adding a construct
//!
//! A construct gets one new module per phase and a hook in each phase's `top.rs`. The
//! `fill` step is the example:
//!
//! - load: `schema/fill.rs` (`FillStep` and its loader `step`); hook: the `Step::Fill`
//!   variant and the step-kind dispatch in `schema/top.rs`;
//! - check: `check/fill.rs` (`check_step`, `step_exprs`); hook: the `Step::Fill` arms in
//!   `check/top.rs` (`check_steps`, `step_exprs`);
//! - lower: the step's error sites, `lower/sites.rs`'s `fill`; hook: the `Step::Fill` arm of
//!   its `Walk::step`;
//! - emit: `emit/fill.rs` (`emit_step`); hook: the `Step::Fill` arm of `Em::step` in
//!   `emit/view.rs`;
//! - interpret: `interp/fill.rs`, compiled and run from `interp.rs`;
//! - run time: what the generated code does that is not layout (a bounded search, records
//!   a stride apart) is one `no_std` function or type in `npuschema-core`, tested there
//!   (`search_back`, `Table`), which the emitted code calls;
//! - then: the schema language's README section, a diagnostics test in
//!   `tests/schema_errors*.rs`, and the real format that needs the construct in `formats/`
//!   (held to a reference crate on real files) or, for a construct no gallery format shows
//!   yet, a test schema in `tests/schemas/` (golden and differential).
//!
//! **A checksum algorithm** is not a construct but one row of `schema::Algorithm`: its name,
//! what it computes (the interpreter's `compute`) and the `npuschema-core` call generated
//! code makes (`core_fn`, and `core_zeroed_fn` for a checksum with `zero:` fields); every
//! checksum construct and writer reads it from there, so a new one (`sum32be`, OpenType's)
//! is a variant, its three arms, and its `no_std` functions in `npuschema-core`
//! (`checksum.rs`, and over `zeroed_pieces` in `zeroed.rs`). (A directory's combined
//! checksum is CRC-32 only: it combines per-section CRCs.)
//!
//! **Error sites.** A check's failures are numbered by the lowered model, once per schema
//! (`lower/sites.rs`, `number`: the file's steps in schema order, each step's sites in the
//! order its checks run; `Checked` keeps the list). What a check blames is stated there too
//! (`lower::sites::blame`). Neither back end numbers anything: the emitter looks each
//! `Em::fail`'s site up (`ModuleOut`; a site the model lacks makes the generated module fail
//! to compile, naming the check), the interpreter each `Comp::fail`'s. A construct's sites
//! are one function of `lower/sites.rs` (`fill`, `stream_fits`, ...) that the model's walk
//! and the interpreter both call; its emitter states the same sites from the same resolved
//! lists (`check/ownership.rs`'s `parts` and `pairs_of` are the example), and its lookups
//! hold it to them. `codegen/tests/site_model.rs` holds every schema's generated table and
//! the interpreter's to the model, and `tests/tests/site_numbers.rs` pins the shipped
//! formats' sites.
//!
//! **Writers.** Every writer states its plan in one vocabulary, `model.rs`: per stored field
//! a `Rule`, an input or `Derived(What, Part)` (what the field's value comes from, and
//! whether it stores the whole value, one half, or a linear form solved for it), and one
//! plan type, `lower/plan.rs`'s `Plan` (the items in the order the writer places them, the
//! rules of the header, of each located record and of each directory's records). A new
//! source of a derived value is one new `What` variant: `emit/record_writer.rs`'s
//! `derived_value` gives its value and `write_derived` stores it, for every writer. Every
//! format's writer takes one API shape, `<File>Spec` (`schema/README.md` says why). One
//! lowering makes every file's plan, `lower/writer.rs`'s `analyse` (a file without a
//! directory is a plan with no `dirs`), and one emitter writes it, `emit/file_writer.rs`: the
//! spec, its `plan` (each item placed at the cursor in `writer.order`), `write_into` and
//! `seal`; `emit/typestate.rs` adds the typestate builder `<File>Writer` over the spec's
//! fields for a file without a directory, and `emit/writer.rs` holds the table records' code
//! both call. A record stream's range is written by the stream's own writer
//! (`emit/stream.rs`), which the file's writer calls. What the writer cannot write is
//! refused where the plan is made (`lower/writer.rs`'s `check`, run by the crate root after
//! the check phase), a place another check has diagnosed said once.
//!
//! What the writer's code shares has one home; use it rather than restating it:
//!
//! - from `check/writer_rules.rs`: the values the steps fix (`fixed_values`), the located
//!   records' starting rules (`located_inputs`), a gate's plan (`gate_plan`), and a derived
//!   value needing an integer field (`derived_need_integers`);
//! - from `emit/record_writer.rs`: a derived value (`derived_value`) and its write
//!   (`write_derived`), every field's write (`write_field`, `write_fields`,
//!   `located_field_writes`), a gate's
//!   value (`gate_value`), and a record read back for a span (`read_back`);
//! - from `emit/linform.rs`: a linear form solved for its field (`solve`, `solved_store`);
//! - from `check/sum_span.rs`: a stored checksum never lies in its own span.
//!
//! A writer's refusal is a diagnostic in its `check/` module, never a run-time surprise.
//!
//! **Function length.** A construct emits its step's statements as it likes; it does not cut
//! them into functions. `emit/split.rs` cuts a validator body longer than about 130 lines into
//! helpers of the view, after every construct has emitted, so it applies to every construct
//! alike and moves no error site: one per part of the file (`lower/checks.rs` labels each
//! top-level step: the header, a table's or a stream's records, the checksums, the rules
//! after them; a new step kind that checks a collection or a checksum says so there), named
//! after it (`check_header`, `check_<table>`), and a part or a step too long for one helper
//! in runs of statements named after their first step's code. What
//! a construct owes it: annotate each binding a later step reads with its type
//! (`let rec: Rec<'a> = ..`, `let Some(x): Option<T> = .. else`), since a statement that reads
//! an untyped binding stays where it is (the cut binds a helper's results with their types
//! for the same reason). `tests/tests/generated_function_size.rs` fails on any generated
//! validator function over 150 lines, for the shipped, gallery and test schemas, and for each
//! of them with its records' one-line checks repeated seven times (a body still too long
//! after one cut is cut again; a walk's record checks are cut inside the closure that defers
//! their error; a file whose byte order a field chooses has its steps twice, so half the
//! budget each). A
//! validator's helper fails with `npuschema_core::Deferred` (the check's arguments) and the
//! validator makes the report where the failing paths meet, so a cut validator makes its
//! `Error` once, as an uncut one does (`scripts/code-size`'s full-`Error` row).
//!
//! A new expression form is the exception: the expression checker is one recursion, so its
//! check goes into `check/expr.rs` (as `table[expr].field`'s does) or into a construct module
//! that `check/expr.rs` calls and that does not call back (as `first(collection)`'s
//! `check/positions.rs`).

mod check;
mod diag;
mod emit;
mod expr;
pub mod interp;
mod lower;
mod model;
mod names;
mod schema;
mod sites;
mod yaml;

use std::path::{Path, PathBuf};

pub use diag::{Diag, Diags};
pub use yaml::Pos;

/// A loaded and checked schema, ready to emit.
pub struct Checked(check::Checked, std::sync::OnceLock<sites::SiteList>);

impl Checked {
    /// The schema's name (`npu1`), used as the module and file name.
    pub fn name(&self) -> &str {
        &self.0.schema.name.text
    }
    /// SHA-256 of the schema text, hex.
    pub fn sha256(&self) -> &str {
        &self.0.sha256
    }
    /// Whether the schema describes bytes (has a `file`). A schema with only `registers`
    /// describes a device: it has nothing to read, so nothing to interpret.
    pub fn has_file(&self) -> bool {
        self.0.schema.has_file
    }
    /// Whether the schema declares an instruction set (`commands`).
    pub fn has_commands(&self) -> bool {
        self.0.schema.commands.is_some()
    }
    /// The error sites, in number order: the lowered model's (`lower/sites.rs`), which the
    /// generated module's `ERROR_SITES` and the interpreter both take.
    pub(crate) fn site_list(&self) -> &sites::SiteList {
        self.1.get_or_init(|| crate::lower::sites::number(&self.0))
    }
}

/// Load and check schema text. `file` names it in diagnostics.
///
/// # Errors
/// Every mistake found, each with file:line:column.
pub fn load_str(text: &str, file: &str) -> Result<Checked, Diags> {
    use sha2::Digest;
    let mut d = Diags::new(file);
    let tree = match yaml::parse(text, &mut |pos, message| d.error(pos, message)) {
        Ok(t) => t,
        Err(e) => {
            d.error(e.pos, format!("YAML syntax: {}", e.message));
            return Err(d);
        }
    };
    let sha = sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>();
    let schema = crate::schema::top::from_tree(&tree, &mut d);
    let checked = match schema {
        // Semantic checks run even after structural mistakes, so that every mistake is
        // reported at once; what could not be read is simply absent from the schema.
        Some(s) => crate::check::top::check(s, sha, &mut d),
        _ => None,
    };
    // The lowering's diagnostics (what the writer cannot write), over the checked schema.
    if let Some(c) = &checked {
        crate::lower::top::check(c, &mut d);
    }
    match checked {
        Some(c) if d.is_empty() => Ok(Checked(c, std::sync::OnceLock::new())),
        _ => {
            d.sort();
            Err(d)
        }
    }
}

/// Load and check a schema file.
///
/// # Errors
/// The file cannot be read, or the schema has mistakes.
pub fn load(path: &Path) -> Result<Checked, Diags> {
    let shown = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => load_str(&text, &shown),
        Err(e) => {
            let mut d = Diags::new(shown);
            d.error(Pos::default(), format!("cannot read the schema: {e}"));
            Err(d)
        }
    }
}

/// The generated code as tokens (for the proc-macro).
pub fn generate_tokens(c: &Checked) -> proc_macro2::TokenStream {
    strip_step_docs(crate::emit::top::tokens(&c.0))
}

/// A schema's mistakes as compile errors at `span` (for the proc-macro): one
/// `compile_error!` per mistake, reading `file:line:column: message` (the compiler adds the
/// `error: ` itself, so it is not in the message, and there is no summary line).
pub fn compile_errors(diags: &Diags, span: proc_macro2::Span) -> proc_macro2::TokenStream {
    let mut out = proc_macro2::TokenStream::new();
    for d in &diags.items {
        let msg = format!("{}:{}:{}: {}", diags.file, d.pos.line, d.pos.col, d.message);
        out.extend(syn::Error::new(span, msg).to_compile_error());
    }
    if out.is_empty() {
        out = syn::Error::new(span, format!("{}: rejected", diags.file)).to_compile_error();
    }
    out
}

/// The generated code as formatted Rust source (prettyplease), headed with the schema's
/// name and hash.
pub fn generate(c: &Checked) -> String {
    let tokens = crate::emit::top::tokens(&c.0);
    let body = match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(f) => step_comments(&prettyplease::unparse(&f)),
        // Unreachable for a checked schema; keep the raw tokens so the compiler shows where.
        Err(_) => tokens.to_string(),
    };
    format!(
        "// @generated by npuschema-codegen {} from schema `{}` (sha256 {}).\n// Do not edit: change the schema and regenerate.\n\n{}",
        env!("CARGO_PKG_VERSION"),
        c.name(),
        c.sha256(),
        body
    )
}

/// Validation steps carry their description as a marked doc attribute; in source text they
/// become plain comments.
fn step_comments(src: &str) -> String {
    src.lines()
        .map(|l| match l.find("///@step ") {
            Some(i) => format!("{}// {}", &l[..i], &l[i + "///@step ".len()..]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Remove the step comments from tokens (the macro's output has no comments).
fn strip_step_docs(ts: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, TokenTree};
    let mut out = Vec::new();
    let mut iter = ts.into_iter().peekable();
    while let Some(tt) = iter.next() {
        if let TokenTree::Punct(p) = &tt
            && p.as_char() == '#'
            && let Some(TokenTree::Group(g)) = iter.peek()
            && g.to_string().contains("\"@step ")
        {
            iter.next();
            continue;
        }
        match tt {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), strip_step_docs(g.stream()));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

/// Generate the code for a schema file, as source text.
///
/// # Errors
/// The schema's mistakes.
pub fn generate_file(path: &Path) -> Result<String, Diags> {
    load(path).map(|c| generate(&c))
}

/// Why [`Builder::build`] failed. `Display` (and `Debug`, so that `unwrap()` and `expect()`
/// show the same) prints one line per diagnostic, `file:line:column: error: message`.
pub enum BuildError {
    /// A schema's mistakes, all of them.
    Schema(Diags),
    /// The generated file could not be written.
    Write {
        /// Where.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// Neither `OUT_DIR` (set by cargo for build scripts) nor [`Builder::out_dir`].
    NoOutDir,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Schema(d) => write!(f, "{d}"),
            Self::Write { path, error } => write!(f, "{}: {error}", path.display()),
            Self::NoOutDir => f.write_str("OUT_DIR is not set and no out_dir was given"),
        }
    }
}

impl std::fmt::Debug for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The same clean lines as `Display`: `build().unwrap()` then prints real newlines.
        write!(f, "\n{self}")
    }
}

impl std::error::Error for BuildError {}

/// For `build.rs`: generate each schema into `OUT_DIR/<schema name>.rs`.
///
/// A schema path is relative to the build script's working directory, which cargo sets to
/// the package's root (the directory of its `Cargo.toml`).
///
/// ```no_run
/// // build.rs, in `fn main()`:
/// if let Err(e) = npuschema_codegen::Builder::new().schema("schema/npu1.yaml").build() {
///     eprintln!("{e}"); // one `file:line:column: error: ...` line per mistake
///     std::process::exit(1);
/// }
/// // lib.rs: mod npu1 { include!(concat!(env!("OUT_DIR"), "/npu1.rs")); }
/// ```
#[derive(Default)]
pub struct Builder {
    schemas: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
}

impl Builder {
    /// A builder with no schema.
    pub fn new() -> Self {
        Self::default()
    }
    /// Add a schema file.
    #[must_use]
    pub fn schema(mut self, path: impl Into<PathBuf>) -> Self {
        self.schemas.push(path.into());
        self
    }
    /// Write somewhere else than `OUT_DIR`.
    #[must_use]
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }
    /// Generate every schema. Prints `cargo:rerun-if-changed` for each.
    ///
    /// # Errors
    /// A schema's mistakes (all of them), or an I/O error.
    pub fn build(self) -> Result<Vec<PathBuf>, BuildError> {
        let out = match self
            .out_dir
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from))
        {
            Some(o) => o,
            None => return Err(BuildError::NoOutDir),
        };
        let mut written = Vec::new();
        for s in &self.schemas {
            println!("cargo:rerun-if-changed={}", s.display());
            let c = load(s).map_err(BuildError::Schema)?;
            let path = out.join(format!("{}.rs", c.name()));
            write_atomic(&path, generate(&c).as_bytes()).map_err(|error| BuildError::Write {
                path: path.clone(),
                error,
            })?;
            written.push(path);
        }
        Ok(written)
    }
}

/// Write through a unique temporary file renamed into place, so a reader never sees half a
/// file.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
