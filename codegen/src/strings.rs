//! Strings: NUL-terminated or length-prefixed byte strings at an offset inside a byte range
//! (a string table such as ELF's `.shstrtab`, or the whole file), one for the file or one
//! per record of a table. Load, check and emit; the interpreter's side is
//! `interp/strings.rs`.
//!
//! ```yaml
//! file:
//!   strings:
//!     name: { table: sections, in: names, offset: name_offset }   # NUL-terminated, in `names`
//!     title: { offset: header.title_offset, prefix: u16 }         # a u16 length, then the bytes
//!   validate:
//!     - { code: bad-title, string_fits: title }
//!     - for_each: sections
//!       validate:
//!         - { code: bad-name, string_fits: name }
//!         - { code: name-not-utf8, string_utf8: name }
//! ```

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::{Checked, Scope, StepState};
use crate::diag::Diags;
use crate::emit::{Blame, Det, Em, Env, Opd, fail};
use crate::expr::ExprAt;
use crate::schema::{IntTy, MapReader, Name, Step, doc, expr_at, name, named_entries, string};
use crate::yaml::{Node, Pos};

/// Step kinds handled here.
pub const STEP_KINDS: &[&str] = &["string_fits", "string_utf8"];

/// One `strings:` entry.
#[derive(Clone, Debug)]
pub struct StringDef {
    /// Its name: the view's accessor.
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The table with one string per record (its `offset` reads the record's fields).
    pub table: Option<Name>,
    /// The file-level range the string lies in (`in`); the whole file when absent.
    pub range: Option<Name>,
    /// Where the string starts, from the start of the range.
    pub offset: ExprAt,
    /// Length-prefixed: the length word's type; NUL-terminated when absent.
    pub prefix: Option<(IntTy, Pos)>,
    /// The length word's byte order (`byte_order`, else the schema's).
    pub big: Option<bool>,
}

impl StringDef {
    /// The length word's width in bytes (0: NUL-terminated).
    pub fn prefix_bytes(&self) -> u8 {
        self.prefix
            .map_or(0, |(t, _)| u8::try_from(t.bytes()).unwrap_or(0))
    }
}

/// A string step.
#[derive(Clone, Debug)]
pub enum StrStep {
    /// `{ code, string_fits: NAME }`: the string lies inside its range (its NUL, or its
    /// length word and every byte it counts).
    Fits {
        /// Error code.
        code: Name,
        /// The string.
        string: Name,
    },
    /// `{ code, string_utf8: NAME }`: the string is UTF-8.
    Utf8 {
        /// Error code.
        code: Name,
        /// The string.
        string: Name,
    },
}

impl StrStep {
    /// The string the step checks.
    pub fn string(&self) -> &Name {
        match self {
            StrStep::Fits { string, .. } | StrStep::Utf8 { string, .. } => string,
        }
    }
    /// The step's code.
    pub fn code(&self) -> &Name {
        match self {
            StrStep::Fits { code, .. } | StrStep::Utf8 { code, .. } => code,
        }
    }
}

// ----- load --------------------------------------------------------------------------------

/// `strings:` of a file.
pub(crate) fn load(node: Option<&Node>, d: &mut Diags) -> Vec<StringDef> {
    let mut out = Vec::new();
    let Some(node) = node else { return out };
    for (sname, v) in named_entries(node, "strings", d) {
        let Some(mut m) = MapReader::new(v, &format!("string `{}`", sname.text), d) else {
            continue;
        };
        let sdoc = doc(&mut m, d);
        let table = m.opt("table").and_then(|n| name(n, "table", d));
        let range = m.opt("in").and_then(|n| name(n, "in", d));
        let offset = m.req("offset", d).and_then(|n| expr_at(n, "offset", d));
        let prefix = m.opt("prefix").and_then(|n| {
            let s = string(n, "prefix", d)?;
            match IntTy::parse(&s) {
                Some(t) if !t.signed() => Some((t, n.pos)),
                _ => {
                    d.error(
                        n.pos,
                        format!("prefix `{s}` is not an unsigned integer type (u8, u16, u32, u64)"),
                    );
                    None
                }
            }
        });
        let big = m
            .opt("byte_order")
            .and_then(|n| match string(n, "byte_order", d)?.as_str() {
                "little" => Some(false),
                "big" => Some(true),
                other => {
                    d.error(
                        n.pos,
                        format!("byte_order `{other}` is not `little` or `big`"),
                    );
                    None
                }
            });
        m.finish(&["doc", "table", "in", "offset", "prefix", "byte_order"], d);
        if let Some(offset) = offset {
            out.push(StringDef {
                name: sname,
                doc: sdoc,
                table,
                range,
                offset,
                prefix,
                big,
            });
        }
    }
    out
}

/// The length words without a `byte_order` of their own take the schema's.
pub(crate) fn default_order(strings: &mut [StringDef], schema_big: bool) {
    for s in strings {
        s.big.get_or_insert(schema_big);
    }
}

/// A `string_fits` or `string_utf8` step.
pub(crate) fn step(kind: &str, mut sm: MapReader<'_>, d: &mut Diags) -> Option<StrStep> {
    let code = sm.req("code", d).and_then(|n| name(n, "code", d));
    let target = sm.opt(kind).and_then(|n| name(n, kind, d));
    sm.finish(&[kind, "code"], d);
    let (code, string) = (code?, target?);
    Some(if kind == "string_fits" {
        StrStep::Fits { code, string }
    } else {
        StrStep::Utf8 { code, string }
    })
}

// ----- check -------------------------------------------------------------------------------

fn def<'c>(c: &'c Checked, n: &str) -> Option<&'c StringDef> {
    c.schema.file.strings.iter().find(|s| s.name.text == n)
}

/// The scope a string's `offset` is read in by its view accessor: the record alone for a
/// per-record string (`None`: its table is no table of the file).
fn view_scope<'c>(c: &'c Checked, s: &StringDef) -> Option<Scope<'c>> {
    match &s.table {
        None => Some(Scope::Top),
        Some(t) => c
            .schema
            .file
            .tables
            .iter()
            .find(|x| x.name.text == t.text)
            .map(Scope::RecordOnly),
    }
}

/// The definitions: names, tables, ranges, offsets, and one `string_fits` for each.
pub(crate) fn check_defs(c: &Checked, d: &mut Diags) {
    let file = &c.schema.file;
    let mut seen: Vec<&str> = Vec::new();
    for s in &file.strings {
        let n = s.name.text.as_str();
        if seen.contains(&n) {
            d.error(s.name.pos, format!("two strings named `{n}`"));
        }
        seen.push(n);
        let taken = file
            .tables
            .iter()
            .map(|t| &t.name.text)
            .chain(file.ranges.iter().map(|r| &r.name.text))
            .chain(file.checksums.iter().map(|k| &k.name.text))
            .chain(file.ext.records.iter().map(|r| &r.name.text))
            .chain(c.collections.iter().map(|t| &t.name.text))
            .any(|x| x == n || format!("{x}_str") == n || format!("{n}_str") == *x);
        if taken || matches!(n, "header" | "validate" | "validate_as" | "validate_with") {
            d.error(
                s.name.pos,
                format!("string `{n}`: the view already has a method of that name (a table, range, checksum or record); rename the string"),
            );
        }
        if let Some(t) = &s.table
            && !file.tables.iter().any(|x| x.name.text == t.text)
        {
            d.error(
                t.pos,
                format!("string `{n}`: `{}` is not a table of the file", t.text),
            );
            continue;
        }
        if let Some(r) = &s.range {
            match file.ranges.iter().find(|x| x.name.text == r.text) {
                None => d.error(r.pos, format!("string `{n}`: `in` names `{}`, which is not a range", r.text)),
                Some(x) if x.table.is_some() => d.error(r.pos, format!("string `{n}`: `in` names `{}`, a per-record range; a string lies in a file-level range", r.text)),
                Some(x) if x.when.is_some() => d.error(r.pos, format!("string `{n}`: `in` names `{}`, a range with `when`; a string lies in a range that is always there", r.text)),
                Some(_) => {}
            }
        }
        match view_scope(c, s) {
            Some(scope @ Scope::RecordOnly(_)) => crate::check::check_expr(
                c,
                &s.offset,
                scope,
                false,
                "offset (read by the file view's accessor from the record alone: its fields and constants)",
                d,
            ),
            Some(scope) => crate::check::check_expr(c, &s.offset, scope, false, "offset", d),
            None => {}
        }
        // (A directory's writer checks its strings itself: `dir_writer.rs`.)
        if let Some(w) = &file.writer
            && file.ext.directories.is_empty()
        {
            match writable(c, s) {
                Err(why) => d.error(
                    s.name.pos,
                    format!("string `{n}`: a writer cannot write it ({why}); remove `writer:` (the view and the validator do not need it) or write the string another way"),
                ),
                // In a range, the range is placed (`strtab_writer::check`).
                Ok(_) if s.range.is_none() && !w.order.iter().any(|x| x.text == n) => d.error(
                    s.name.pos,
                    format!("string `{n}`: the writer places it, so `writer.order` must name it"),
                ),
                Ok(_) => {}
            }
        }
        if !fitted_somewhere(&file.validate, n, s.table.as_ref().map(|t| t.text.as_str())) {
            d.error(
                s.name.pos,
                format!(
                    "string `{n}` has no string_fits step {}: its accessor could not be infallible",
                    match &s.table {
                        Some(t) => format!("in `for_each: {}`", t.text),
                        None => "at the top level of `validate`".to_string(),
                    }
                ),
            );
        }
    }
}

/// Whether a `string_fits` for `name` stands where it must: at the top level for a file's
/// string, in the table's `for_each` for a per-record one.
fn fitted_somewhere(steps: &[Step], name: &str, table: Option<&str>) -> bool {
    steps.iter().any(|s| match (s, table) {
        (Step::Str(StrStep::Fits { string, .. }), None) => string.text == name,
        (Step::ForEach { table: t, steps }, Some(want)) if t.text == want => steps
            .iter()
            .any(|x| matches!(x, Step::Str(StrStep::Fits { string, .. }) if string.text == name)),
        _ => false,
    })
}

/// The expressions a string step evaluates.
pub(crate) fn step_exprs<'c>(c: &'c Checked, s: &StrStep) -> Vec<&'c ExprAt> {
    def(c, &s.string().text)
        .map(|d| vec![&d.offset])
        .unwrap_or_default()
}

/// A string step where it stands: its string, its scope, its range checked before it, and
/// (for `string_utf8`) its `string_fits` before it.
pub(crate) fn check_step(
    c: &Checked,
    s: &StrStep,
    scope: Scope<'_>,
    st: &mut StepState,
    d: &mut Diags,
) {
    let n = s.string();
    let Some(sd) = def(c, &n.text) else {
        d.error(
            n.pos,
            format!(
                "`{}` is not a string (strings: {})",
                n.text,
                c.schema
                    .file
                    .strings
                    .iter()
                    .map(|x| x.name.text.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        return;
    };
    let here = match scope {
        Scope::Record(t) => Some(t.name.text.as_str()),
        _ => None,
    };
    let want = sd.table.as_ref().map(|t| t.text.as_str());
    if here != want {
        d.error(
            n.pos,
            format!(
                "string `{}` belongs to {}; check it {}",
                n.text,
                want.map_or("the file".to_string(), |t| format!("table `{t}`")),
                if want.is_some() {
                    "inside that table's for_each"
                } else {
                    "at file level"
                }
            ),
        );
        return;
    }
    crate::check::check_expr(c, &sd.offset, scope, false, "offset", d);
    match s {
        StrStep::Fits { .. } => {
            let file_range = |r: &Name| {
                c.schema
                    .file
                    .ranges
                    .iter()
                    .any(|x| x.name.text == r.text && x.table.is_none() && x.when.is_none())
            };
            // A range that is no file-level range is reported with the string.
            if let Some(r) = &sd.range
                && file_range(r)
                && !st.ranges_fitted.contains(&r.text)
            {
                d.error(
                    n.pos,
                    format!("string_fits `{}` comes before the range_fits step that checks its range `{}`", n.text, r.text),
                );
            }
            st.strings_fitted.push(n.text.clone());
        }
        StrStep::Utf8 { .. } => {
            if !st.strings_fitted.contains(&n.text) {
                d.error(
                    n.pos,
                    format!(
                        "string_utf8 `{}` comes before the string_fits step that finds the string",
                        n.text
                    ),
                );
            }
        }
    }
}

// ----- emit --------------------------------------------------------------------------------

/// The string's offset bound to `offset` (evaluated with `env`), the lookup of the string
/// in `range` (an `Option<&[u8]>`), and the offset as a `u64` for an error.
fn lookup(
    em: &Em<'_>,
    s: &StringDef,
    scope: Scope<'_>,
    env: &Env,
) -> (TokenStream, TokenStream, TokenStream) {
    let p = s.prefix_bytes();
    let big = s.big.unwrap_or(false);
    match em.plain(&s.offset.expr, scope, env) {
        // An offset that cannot fail to compute (a field, a constant): a plain `u64`.
        Some(v) => (
            quote!(let offset: u64 = #v;),
            quote!(__rt::string_at(range, offset, #p, #big)),
            quote!(offset),
        ),
        None => {
            let v = em.value(&s.offset.expr, scope, env);
            (
                quote!(let offset: Option<u64> = #v;),
                quote!(offset.and_then(|o| __rt::string_at(range, o, #p, #big))),
                quote!(offset.unwrap_or(u64::MAX)),
            )
        }
    }
}

/// The bytes the string lies in: its range's variable (bound by its `range_fits`), or the
/// whole buffer.
fn range_of(s: &StringDef, holder: &TokenStream) -> TokenStream {
    match &s.range {
        Some(r) => {
            let v = format_ident!("{}", r.text);
            quote!(#holder #v)
        }
        None => quote!(#holder buf),
    }
}

fn limit_name(s: &StringDef) -> String {
    s.range
        .as_ref()
        .map_or("len".to_string(), |r| r.text.clone())
}

/// A string step in validation. A file's string is bound to a variable of its name (for the
/// view); a record's string is only checked.
pub(crate) fn emit_step(em: &Em<'_>, s: &StrStep, scope: Scope<'_>, env: &Env) -> TokenStream {
    let Some(sd) = def(em.c, &s.string().text) else {
        return quote!();
    };
    let code = &s.code().text;
    let b: Blame = em.blame(&sd.offset.expr, scope);
    let (decl, find_in, start) = lookup(em, sd, scope, env);
    let range = range_of(sd, &quote!());
    let p = sd.prefix_bytes();
    let big = sd.big.unwrap_or(false);
    let var = format_ident!("{}", sd.name.text);
    let per_record = sd.table.is_some();
    match s {
        StrStep::Fits { .. } => {
            let comment = format!(
                "@step {code}: string `{}` at `{}` must lie inside `{}`.",
                sd.name.text,
                sd.offset.text,
                limit_name(sd)
            );
            let f = fail(
                code,
                &b,
                Det::Range(
                    start.clone(),
                    quote!(__rt::string_extent(range, #start, #p, #big)),
                    limit_name(sd),
                    quote!(u64::try_from(range.len()).unwrap_or(u64::MAX)),
                ),
            );
            let find = quote! {
                #decl
                let range: &'a [u8] = #range;
                let Some(s) = #find_in else {
                    return #f;
                };
            };
            if per_record {
                quote! {
                    #[doc = #comment]
                    {
                        #find
                        let _ = s;
                    }
                }
            } else {
                quote! {
                    #[doc = #comment]
                    let #var: &'a [u8] = { #find s };
                }
            }
        }
        StrStep::Utf8 { .. } => {
            let comment = format!("@step {code}: string `{}` must be UTF-8.", sd.name.text);
            let f = fail(
                code,
                &b,
                Det::Compare(
                    Opd::Val(quote!(u64::try_from(e.valid_up_to()).unwrap_or(u64::MAX))),
                    Opd::Val(quote!(u64::try_from(s.len()).unwrap_or(u64::MAX))),
                    [
                        "valid_utf8".to_string(),
                        "<".to_string(),
                        "length".to_string(),
                    ],
                ),
            );
            let get = if per_record {
                quote! {
                    #decl
                    let range: &'a [u8] = #range;
                    let s: &'a [u8] = #find_in.unwrap_or(&[]);
                }
            } else {
                quote!(let s: &'a [u8] = #var;)
            };
            quote! {
                #[doc = #comment]
                {
                    #get
                    if let Err(e) = core::str::from_utf8(s) {
                        return #f;
                    }
                }
            }
        }
    }
}

/// The view's fields and accessors for the strings.
pub(crate) fn file_items(em: &Em<'_>) -> crate::sections::FileItems {
    let mut out = crate::sections::FileItems::default();
    for s in &em.c.schema.file.strings {
        let var = format_ident!("{}", s.name.text);
        let var_str = format_ident!("{}_str", s.name.text);
        let sdoc = if s.doc.is_empty() {
            String::new()
        } else {
            s.doc.trim_end().to_string()
        };
        let what = match s.prefix {
            Some((t, _)) => format!("after its `{}` length", t.rust()),
            None => "up to its NUL (not included)".to_string(),
        };
        let doc = format!(
            " {sdoc}\n\nString `{}` at `{}` in `{}`, {what}: borrowed from the validated buffer.",
            s.name.text,
            s.offset.text,
            limit_name(s)
        );
        let doc_str = format!(
            " String `{}` as text: `Err` when it is not UTF-8 (checked here, on each call; a `string_utf8` step checks it once while validating).",
            s.name.text
        );
        match &s.table {
            None => {
                out.fields.push(quote!(#var: &'a [u8],));
                out.inits.push(quote!(#var,));
                out.accessors.push(quote! {
                    #[doc = #doc]
                    #[must_use]
                    #[inline]
                    pub fn #var(&self) -> &'a [u8] { self.#var }
                    #[doc = #doc_str]
                    ///
                    /// # Errors
                    /// When the bytes are not UTF-8.
                    #[inline]
                    pub fn #var_str(&self) -> Result<&'a str, core::str::Utf8Error> {
                        core::str::from_utf8(self.#var)
                    }
                });
            }
            Some(t) => {
                let Some(table) =
                    em.c.schema
                        .file
                        .tables
                        .iter()
                        .find(|x| x.name.text == t.text)
                else {
                    continue;
                };
                let rec_ty = format_ident!("{}", table.record.text);
                let scope = Scope::RecordOnly(table);
                let env = Env {
                    header: quote!(rec),
                    record: quote!(rec),
                };
                let (decl, find_in, _) = lookup(em, s, scope, &env);
                let range = range_of(s, &quote!(self.));
                let rdoc = "\n\nThe record's string (empty for a record of another file: validation proved every record of this one has its string).";
                out.accessors.push(quote! {
                    #[doc = #doc]
                    #[doc = #rdoc]
                    #[must_use]
                    pub fn #var(&self, rec: &#rec_ty<'a>) -> &'a [u8] {
                        let _ = rec;
                        #decl
                        let range: &'a [u8] = #range;
                        #find_in.unwrap_or(&[])
                    }
                    #[doc = #doc_str]
                    ///
                    /// # Errors
                    /// When the bytes are not UTF-8.
                    #[inline]
                    pub fn #var_str(&self, rec: &#rec_ty<'a>) -> Result<&'a str, core::str::Utf8Error> {
                        core::str::from_utf8(self.#var(rec))
                    }
                });
            }
        }
    }
    out
}

// ----- writer ------------------------------------------------------------------------------

/// The field (index) that holds a string's offset, when a writer can write the string: for
/// a file's string (in the whole file or in a range, which the writer then builds) one
/// header field, which the writer sets to where it placed the string; for a record's
/// string one integer field of the record (`strtab_writer.rs`).
pub(crate) fn writable(c: &Checked, s: &StringDef) -> Result<usize, &'static str> {
    if s.table.is_some() {
        // The record's offset field (`strtab_writer.rs`).
        return crate::strtab_writer::record_offset_field(c, s);
    }
    match crate::check::single_field(c, &s.offset.expr, Scope::Top) {
        Some((crate::check::Owner::Header, i)) => Ok(i),
        _ => Err("its offset is not one header field the writer could set"),
    }
}

/// Whether a `string_utf8` step checks the string (its setter then takes `&str`).
fn utf8_checked(c: &Checked, name: &str) -> bool {
    c.schema
        .file
        .validate
        .iter()
        .any(|x| matches!(x, Step::Str(StrStep::Utf8 { string, .. }) if string.text == name))
}

/// What the writer needs for the file's strings.
#[derive(Default)]
pub(crate) struct WriterParts {
    /// Header fields (index) set to a string's place (the string's name).
    pub offsets: Vec<(usize, String)>,
    /// `name: &'a [u8],` in the writer.
    pub fields: Vec<TokenStream>,
    /// `name: &[],` in `new`.
    pub defaults: Vec<TokenStream>,
    /// `name: self.name,` when the typestate changes.
    pub moves: Vec<TokenStream>,
    /// The setters.
    pub setters: Vec<TokenStream>,
    /// The writes into `out`, after the header.
    pub writes: Vec<TokenStream>,
}

/// The writer's parts for the strings (each writable one: `checks_defs` refused the others).
pub(crate) fn writer_parts(c: &Checked) -> WriterParts {
    let mut out = WriterParts {
        writes: crate::strtab_writer::writes(c),
        ..WriterParts::default()
    };
    for s in &c.schema.file.strings {
        // A record's string is its record spec's (`strtab_writer.rs`).
        if s.table.is_some() {
            continue;
        }
        let Ok(i) = writable(c, s) else { continue };
        let name = format_ident!("{}", s.name.text);
        let at = format_ident!("{}_at", s.name.text);
        out.offsets.push((i, s.name.text.clone()));
        out.fields.push(quote!(#name: &'a [u8],));
        out.defaults.push(quote!(#name: &[],));
        out.moves.push(quote!(#name: self.#name,));
        let what = match s.prefix {
            Some((t, _)) => format!("written after its `{}` length", t.rust()),
            None => "written with a NUL after it (it must hold none)".to_string(),
        };
        let doc = format!(
            " Set string `{}` (empty when not set), {what}.",
            s.name.text
        );
        out.setters.push(if utf8_checked(c, &s.name.text) {
            quote! {
                #[doc = #doc]
                pub fn #name(mut self, value: &'a str) -> Self { self.#name = value.as_bytes(); self }
            }
        } else {
            quote! {
                #[doc = #doc]
                pub fn #name(mut self, value: &'a [u8]) -> Self { self.#name = value; self }
            }
        });
        let item = s.name.text.as_str();
        if s.range.is_some() {
            // Written into its range (`strtab_writer::writes`).
            continue;
        }
        out.writes.push(match s.prefix {
            Some((t, _)) => {
                let ty = format_ident!("{}", t.rust());
                let w = proc_macro2::Literal::u64_suffixed(t.bytes());
                let tob = crate::emit::to_bytes(s.big.unwrap_or(false));
                quote! {
                    let n = self.#name.len() as u64;
                    let word = #ty::try_from(n).map_err(|_| __rt::WriteError::TooLarge { field: #item, value: n })?;
                    __rt::put(out, plan.#at, &word.#tob())?;
                    __rt::put(out, plan.#at.checked_add(#w).ok_or(__rt::WriteError::Layout { item: #item })?, self.#name)?;
                }
            }
            None => quote! {
                if self.#name.contains(&0) {
                    return Err(__rt::WriteError::Layout { item: #item });
                }
                __rt::put(out, plan.#at, self.#name)?;
            },
        });
    }
    out
}

/// The plan step placing string `name` (in `writer.order`): aligned, its length word or
/// NUL included.
pub(crate) fn plan_step(
    c: &Checked,
    name: &str,
    align: &proc_macro2::Literal,
) -> Option<(TokenStream, proc_macro2::Ident)> {
    let s = def(c, name).filter(|s| s.table.is_none() && s.range.is_none())?;
    let var = format_ident!("{}", s.name.text);
    let at = format_ident!("{}_at", s.name.text);
    let extra = proc_macro2::Literal::u64_suffixed(s.prefix.map_or(1, |(t, _)| t.bytes()));
    Some((
        quote! {
            let #at = __rt::align_up(cursor, #align).ok_or(__rt::WriteError::TooLarge { field: #name, value: cursor })?;
            cursor = (self.#var.len() as u64).checked_add(#extra).and_then(|n| n.checked_add(#at))
                .ok_or(__rt::WriteError::TooLarge { field: #name, value: #at })?;
        },
        at,
    ))
}
