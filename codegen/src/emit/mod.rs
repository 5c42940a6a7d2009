//! Rust emission: checked schema to tokens (for the macro) and to formatted source (for
//! build.rs, the CLI and the checked-in `generated/` crate).
//!
//! This module holds what every emitter shares and imports no other emit module: the
//! emitter context [`Em`], error blame and error sites ([`fail`]), literal and byte-order
//! helpers. Above it: one module per construct, `view.rs` (views and validators) and
//! `top.rs` ([`top::tokens`], the whole generated module).

pub(crate) mod commands;
pub(crate) mod doc;
pub(crate) mod file_writer;
pub(crate) mod fill;
pub(crate) mod index;
pub(crate) mod linform;
pub(crate) mod located_span;
pub(crate) mod nested;
pub(crate) mod nested_writer;
pub(crate) mod optional_parts;
pub(crate) mod ownership;
pub(crate) mod positions;
pub(crate) mod record_ranges;
pub(crate) mod record_writer;
pub(crate) mod recpos;
pub(crate) mod regs;
pub(crate) mod sections;
pub(crate) mod split;
pub(crate) mod stream;
pub(crate) mod strings;
pub(crate) mod strtab_writer;
pub(crate) mod table;
pub(crate) mod top;
pub(crate) mod trailer;
pub(crate) mod typestate;
pub(crate) mod view;
pub(crate) mod when_writer;
pub(crate) mod writer;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::{Checked, Scope};
use crate::expr::Expr;
use crate::schema::IntTy;
use crate::sites::{Shape, SiteKey, SiteList};

fn lit_u64(v: u64) -> Literal {
    Literal::u64_unsuffixed(v)
}

pub(crate) fn lit_usize(v: u64) -> Literal {
    Literal::usize_unsuffixed(usize::try_from(v).unwrap_or(usize::MAX))
}

fn int_ident(t: IntTy) -> proc_macro2::Ident {
    format_ident!("{}", t.rust())
}

/// The field a generated error blames: its table (`""` outside one), the record index, its
/// name or path, the run-time base of its struct and its constant offset there. The error's
/// offset is `base + off`.
#[derive(Clone)]
pub(crate) struct Blame {
    pub(crate) table: String,
    pub(crate) index: Idx,
    pub(crate) name: String,
    pub(crate) base: TokenStream,
    pub(crate) off: u64,
}

/// A record index in generated code.
#[derive(Clone)]
pub(crate) enum Idx {
    /// Outside a table.
    None,
    /// A `usize` expression.
    Usize(TokenStream),
    /// A `u64` expression (converted at the error site).
    U64(TokenStream),
}

impl Blame {
    /// A field at a fixed offset.
    pub(crate) fn plain(name: impl Into<String>, off: u64) -> Self {
        Self {
            table: String::new(),
            index: Idx::None,
            name: name.into(),
            base: quote!(0),
            off,
        }
    }

    /// A field outside any table at a run-time offset (`u64` tokens).
    pub(crate) fn at(name: impl Into<String>, base: TokenStream) -> Self {
        Self {
            table: String::new(),
            index: Idx::None,
            name: name.into(),
            base,
            off: 0,
        }
    }

    /// Field `name` of record `index` of `table`, at `base + off`.
    pub(crate) fn record(
        table: impl Into<String>,
        index: Idx,
        name: impl Into<String>,
        base: TokenStream,
        off: u64,
    ) -> Self {
        Self {
            table: table.into(),
            index,
            name: name.into(),
            base,
            off,
        }
    }
}

/// A value of a `Detail::Compare`: a plain `u64`, or an `Option<u64>` (`None` on overflow).
pub(crate) enum Opd {
    Val(TokenStream),
    Opt(TokenStream),
}

/// The detail of a generated error: its shape, with the run-time values as `u64` tokens.
pub(crate) enum Det {
    None,
    Short(TokenStream, TokenStream),
    Mismatch(TokenStream, TokenStream),
    Compare(Opd, Opd, [String; 3]),
    Range(TokenStream, TokenStream, String, TokenStream),
    UnknownBits(TokenStream, TokenStream),
    UnknownValue(TokenStream),
}

/// What the checks of one generated module share besides their inline code, handed to
/// every [`Em`] that emits them (no global state):
///
/// - the error sites, numbered by the lowered model (`lower/sites.rs`): [`Em::fail`] looks
///   a check's site up there; a site the model does not have is numbered after the model's
///   and kept in a list, and the module then does not compile ([`top::tokens`] adds a
///   `compile_error!` naming it), so a check never ships with a number the model did not
///   give it;
/// - helper functions a check is emitted as (a step too long to read inline, such as
///   `owned_apart`): the file view's `impl` takes them after its validator's steps;
/// - the record types whose `RecordView` impl the module has (one each, whichever file or
///   variant's table asked first).
#[derive(Default)]
pub(crate) struct ModuleOut(
    std::cell::RefCell<SiteList>,
    std::cell::RefCell<Vec<TokenStream>>,
    std::cell::RefCell<Vec<String>>,
    std::cell::RefCell<Vec<SiteKey>>,
);

impl ModuleOut {
    /// For a module whose sites are `sites` (the lowered model's list).
    pub(crate) fn numbered(sites: SiteList) -> Self {
        Self(
            std::cell::RefCell::new(sites),
            Default::default(),
            Default::default(),
            Default::default(),
        )
    }

    /// The index in `ERROR_SITES` of a site.
    fn index(&self, key: SiteKey) -> usize {
        if let Some(i) = self.0.borrow().find(&key) {
            return i;
        }
        self.3.borrow_mut().push(key.clone());
        self.0.borrow_mut().number(key)
    }

    /// The sites, in order, and those the model did not number.
    pub(crate) fn into_sites(self) -> (SiteList, Vec<SiteKey>) {
        (self.0.into_inner(), self.3.into_inner())
    }

    /// Whether record type `name` still needs its `RecordView` impl (true once per module).
    pub(crate) fn first_record_view(&self, name: &str) -> bool {
        let mut seen = self.2.borrow_mut();
        if seen.iter().any(|n| n == name) {
            return false;
        }
        seen.push(name.to_string());
        true
    }

    /// Add a helper function to the view whose validator is being emitted.
    pub(crate) fn push_helper(&self, f: TokenStream) {
        self.1.borrow_mut().push(f);
    }

    /// Add an item to the view whose validator is being emitted, unless the same item is
    /// there already (a table two steps on one stream both need).
    pub(crate) fn push_helper_once(&self, f: TokenStream) {
        let text = f.to_string();
        let mut pending = self.1.borrow_mut();
        if !pending.iter().any(|x| x.to_string() == text) {
            pending.push(f);
        }
    }

    /// The helper functions added since the last call.
    pub(crate) fn take_helpers(&self) -> Vec<TokenStream> {
        std::mem::take(&mut *self.1.borrow_mut())
    }
}

/// The `ERROR_SITES` table of a module and its `error_site` lookup.
fn sites_table(sites: &SiteList) -> TokenStream {
    let sites = sites.keys();
    let n = sites.len();
    let len = Literal::usize_unsuffixed(n);
    if n > usize::from(u16::MAX) {
        let msg = format!("npuschema: {n} error sites do not fit 16-bit site numbers");
        return quote!(compile_error!(#msg););
    }
    let entries = sites.iter().enumerate().map(|(i, k)| {
        let id = Literal::u16_unsuffixed(u16::try_from(i + 1).unwrap_or(u16::MAX));
        let (code, table, name) = (&k.code, &k.table, &k.name);
        let off = Literal::u32_unsuffixed(k.offset);
        let kind = match &k.shape {
            Shape::None => quote!(None),
            Shape::Short => quote!(Short),
            Shape::Mismatch => quote!(Mismatch),
            Shape::Compare([l, op, r]) => quote!(Compare(&[#l, #op, #r])),
            Shape::Range(limit) => quote!(Range(#limit)),
            Shape::UnknownBits => quote!(UnknownBits),
            Shape::UnknownValue => quote!(UnknownValue),
        };
        quote! {
            __rt::ErrorSite {
                id: #id, code: #code, table: #table, name: #name, offset: #off,
                detail: __rt::DetailKind::#kind
            }
        }
    });
    quote! {
        /// Every place this module's validators can fail, numbered from 1 in the order of
        /// the schema's checks: entry `k` has id `k + 1`. A failing check hands its entry to
        /// [`__rt::fail`]; a [`__rt::Brief`] keeps only the id, which [`error_site`] turns
        /// back into the check (code, field, offset in its struct). Firmware that reports
        /// [`__rt::Brief`]s does not link this table.
        pub static ERROR_SITES: [__rt::ErrorSite; #len] = [#(#entries),*];

        /// The site with this number ([`__rt::ErrorSite::id`], what a [`__rt::Brief`]
        /// holds), if this module has it.
        #[must_use]
        pub fn error_site(id: u16) -> Option<&'static __rt::ErrorSite> {
            ERROR_SITES.get(usize::from(id).checked_sub(1)?)
        }
    }
}

/// An expression of type `Result<_, E: __rt::Report>` for a failed check: one call of
/// `__rt::fail` with the check's entry of `ERROR_SITES` (its number, code, field, offset,
/// detail shape) and the run-time numbers, so no `Error` is built inline.
pub(crate) fn fail(sites: &ModuleOut, code: &str, b: &Blame, d: Det) -> TokenStream {
    fail_parts(sites, code, b, d).tokens()
}

/// A failed check's parts: its site (numbered by the model) and the run-time numbers
/// `__rt::fail` is handed.
pub(crate) struct Fail {
    /// The site's number (`ErrorSite::id`).
    pub id: Literal,
    /// Its index in `ERROR_SITES`.
    pub index: Literal,
    /// `base`, `a`, `b`, `c` and the record index.
    pub args: [TokenStream; 5],
}

impl Fail {
    /// The `__rt::fail` call.
    pub(crate) fn tokens(&self) -> TokenStream {
        let (id, k) = (&self.id, &self.index);
        let [base, a, b, c, index] = &self.args;
        quote! {
            __rt::fail(#id, &ERROR_SITES[#k], #base, #a, #b, #c, #index)
        }
    }

    /// The `__rt::fail` call with a site chosen at run time by its number `id` (a `u16`
    /// from a constant table): the site is looked up in `ERROR_SITES` in this failing path
    /// only (`__rt::numbered_site`, this check's own site if the number had none), so a
    /// `Brief`, which keeps the number alone, links no site table. All else the same.
    pub(crate) fn tokens_by_number(&self, id: &TokenStream) -> TokenStream {
        let k = &self.index;
        let [base, a, b, c, index] = &self.args;
        quote! {
            __rt::fail(
                #id,
                __rt::numbered_site(&ERROR_SITES, #id, &ERROR_SITES[#k]),
                #base, #a, #b, #c, #index
            )
        }
    }
}

/// [`fail`]'s parts.
pub(crate) fn fail_parts(sites: &ModuleOut, code: &str, b: &Blame, d: Det) -> Fail {
    let zero = quote!(0);
    let (shape, a, bv, c) = match d {
        Det::None => (Shape::None, zero.clone(), zero.clone(), zero),
        Det::Short(x, y) => (Shape::Short, x, y, zero),
        Det::Mismatch(x, y) => (Shape::Mismatch, x, y, zero),
        Det::Compare(l, r, names) => {
            let mut mask = Vec::new();
            let mut val = |o: Opd, bit: u8| match o {
                Opd::Val(v) => v,
                Opd::Opt(v) => {
                    mask.push(if bit == 0 {
                        quote!(u64::from(#v.is_none()))
                    } else {
                        quote!(u64::from(#v.is_none()) << 1)
                    });
                    quote!(#v.unwrap_or(0))
                }
            };
            let (l, r) = (val(l, 0), val(r, 1));
            let c = if mask.is_empty() {
                zero
            } else {
                quote!(#(#mask)|*)
            };
            (Shape::Compare(names), l, r, c)
        }
        Det::Range(start, len, limit_name, limit) => (Shape::Range(limit_name), start, len, limit),
        Det::UnknownBits(v, u) => (Shape::UnknownBits, v, u, zero),
        Det::UnknownValue(v) => (Shape::UnknownValue, v, zero.clone(), zero),
    };
    // The site keeps a 32-bit offset; a larger constant is added at run time.
    let (base, offset) = match u32::try_from(b.off) {
        Ok(o) => (b.base.clone(), o),
        Err(_) => {
            let (base, off) = (&b.base, lit_u64(b.off));
            (quote!(#base.saturating_add(#off)), 0)
        }
    };
    let index = match &b.index {
        Idx::None => quote!(0),
        Idx::Usize(i) => i.clone(),
        Idx::U64(i) => quote!(usize::try_from(#i).unwrap_or(usize::MAX)),
    };
    let k = sites.index(SiteKey {
        code: code.to_string(),
        table: b.table.clone(),
        name: b.name.clone(),
        offset,
        shape,
    });
    Fail {
        id: Literal::u16_unsuffixed(u16::try_from(k + 1).unwrap_or(u16::MAX)),
        index: Literal::usize_unsuffixed(k),
        args: [base, a, bv, c, index],
    }
}

/// An expression without the parentheses that enclose all of it (`(a & b)` -> `a & b`).
pub(crate) fn strip_parens(ts: TokenStream) -> TokenStream {
    let mut it = ts.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(proc_macro2::TokenTree::Group(g)), None)
            if g.delimiter() == proc_macro2::Delimiter::Parenthesis =>
        {
            g.stream()
        }
        _ => ts,
    }
}

/// `from_le_bytes`, or `from_be_bytes` for a big-endian field.
pub(crate) fn from_bytes(big: bool) -> proc_macro2::Ident {
    format_ident!(
        "{}",
        if big {
            "from_be_bytes"
        } else {
            "from_le_bytes"
        }
    )
}

/// `, big: ORDER` in the literal of a view of struct `name` whose fields are in the file's
/// byte order (the view carries the order the header chose: `__big` in a validator,
/// `self.__big` in a validated view's accessor, `self.big` in a record view's); nothing for
/// a struct of a fixed order.
pub(crate) fn order_init(c: &crate::check::Checked, name: &str, order: TokenStream) -> TokenStream {
    if crate::check::order::runtime_struct(c, name) {
        quote!(, big: #order)
    } else {
        quote!()
    }
}

/// A read of the `N`-byte array `bytes` as integer type `ty`: in the field's fixed order, or,
/// for a field in the file's byte order, in the order the view carries (`self.big`).
pub(crate) fn word_from(
    ty: &proc_macro2::Ident,
    f: &crate::schema::FieldDef,
    width: u64,
    bytes: TokenStream,
) -> TokenStream {
    if f.file_order && width > 1 {
        quote! {{
            let b = #bytes;
            if self.big { #ty::from_be_bytes(b) } else { #ty::from_le_bytes(b) }
        }}
    } else {
        let from = from_bytes(f.big);
        quote!(#ty::#from(#bytes))
    }
}

/// `to_le_bytes`, or `to_be_bytes` for a big-endian field.
pub(crate) fn to_bytes(big: bool) -> proc_macro2::Ident {
    format_ident!("{}", if big { "to_be_bytes" } else { "to_le_bytes" })
}

/// Whether tokens `t` hold a `?` of their own: one outside the closures in them (`|| ->
/// Option<u64> { .. }`, `|r| { .. }`), whose `?`s return from the closure, not from where
/// `t` is written. Where none does, `t` needs no closure of its own (clippy's
/// `redundant_closure_call`): a condition whose sides read a record found by its key is
/// such a closure inside a value (`if(entries[tag == T].tag == T, 1, 0) + 1`).
pub(crate) fn fallible(t: &TokenStream) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    // `||` or `|x|` / `|(a, b)|` seen: the next brace group is a closure's body.
    let mut bars = 0u8;
    let mut header = false;
    for tt in t.clone() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == '?' && !header => return true,
            TokenTree::Punct(p) if p.as_char() == '|' => {
                bars += 1;
                if bars == 2 {
                    header = true;
                    bars = 0;
                }
            }
            TokenTree::Group(g) if header && g.delimiter() == Delimiter::Brace => {
                header = false;
            }
            TokenTree::Group(g) => {
                if !header && fallible(&g.stream()) {
                    return true;
                }
            }
            TokenTree::Ident(_) if bars == 1 => {}
            _ => {
                if bars == 1 {
                    // A `|` between two operands (`(a | b)`), not a closure's.
                    bars = 0;
                }
            }
        }
    }
    false
}

/// The count of runs of a repeated `assert` (`for: k, below: N`), named by where its
/// condition is written: declared before the loop that holds the step (or the step, at
/// file level), kept over the whole loop.
pub(crate) fn reps_var(expr: &crate::expr::ExprAt) -> proc_macro2::Ident {
    format_ident!("__reps_{}_{}", expr.pos.line, expr.pos.col)
}

/// The counts of the repeated `assert`s among a `for_each`'s steps (under `when` too),
/// declared before its loop: [`reps_var`].
pub(crate) fn reps_decls(steps: &[crate::schema::top::Step]) -> TokenStream {
    use crate::schema::top::Step;
    let vars = steps.iter().filter_map(|s| match s {
        Step::Assert {
            expr,
            repeat: Some(_),
            ..
        } => Some(reps_var(expr)),
        Step::When { step, .. } => match &**step {
            Step::Assert {
                expr,
                repeat: Some(_),
                ..
            } => Some(reps_var(expr)),
            _ => None,
        },
        _ => None,
    });
    quote!(#(let mut #vars: u64 = 0;)*)
}

/// The variable holding the previous record's key for an order check inside a `for_each`.
fn order_prev(code: &crate::schema::Name) -> proc_macro2::Ident {
    let clean: String = code
        .text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format_ident!("__prev_{}", clean)
}

/// The previous record's bytes of a string key of an order check in a `for_each` (with
/// [`order_prev`], its offset, for the error).
fn order_prev_bytes(code: &crate::schema::Name) -> proc_macro2::Ident {
    format_ident!("{}_bytes", order_prev(code))
}

/// `v` (a `u64`) stored as `ity` at `o` of the record array `buf` (`&mut rec`), in byte
/// order `big`, `TooLarge` naming `path` when the field cannot hold it: `__rt::store`, one
/// call per derived field of every writer.
pub(crate) fn store(
    o: &TokenStream,
    ity: crate::schema::IntTy,
    big: bool,
    path: &str,
    buf: &TokenStream,
) -> TokenStream {
    let width = proc_macro2::Literal::usize_unsuffixed(usize::try_from(ity.bytes()).unwrap_or(8));
    quote!(__rt::store(#buf, #o, #width, v, #big, #path)?;)
}

/// An unsigned value as `u64`: `u64::from(x)`, or `x` itself when it is one already.
pub(crate) fn widen(t: IntTy, x: TokenStream) -> TokenStream {
    if t == IntTy::U64 {
        x
    } else {
        quote!(u64::from(#x))
    }
}

/// How expressions reach the header and the current record.
pub(crate) struct Env {
    pub(crate) header: TokenStream,
    pub(crate) record: TokenStream,
    /// The record's strings found once, before the steps of a `for_each` over their table:
    /// bound as `__str_<name>: Option<&'a [u8]>` (`emit::strings::found_once`).
    pub(crate) found: Vec<String>,
}

pub(crate) struct Em<'a> {
    pub(crate) c: &'a Checked,
    /// The module's error sites, which [`Em::fail`] adds to.
    pub(crate) sites: &'a ModuleOut,
}

impl Em<'_> {
    /// A failed check's expression ([`fail`]), its site registered in this module's list.
    pub(crate) fn fail(&self, code: &str, b: &Blame, d: Det) -> TokenStream {
        fail(self.sites, code, b, d)
    }

    /// [`Em::fail`]'s parts (for a table of sites).
    pub(crate) fn fail_parts(&self, code: &str, b: &Blame, d: Det) -> Fail {
        fail_parts(self.sites, code, b, d)
    }
}

trait IntoTyped {
    fn into_token_stream_typed(self) -> TokenStream;
}
impl IntoTyped for Literal {
    fn into_token_stream_typed(self) -> TokenStream {
        quote!(#self)
    }
}

/// Tokens of type `u64` for an expression that cannot fail, else `None` (shared with the
/// writer emitter).
pub(crate) fn plain_tokens(c: &Checked, e: &Expr, scope: Scope<'_>) -> Option<TokenStream> {
    Em {
        c,
        sites: &ModuleOut::default(),
    }
    .plain(
        e,
        scope,
        &Env {
            header: quote!(header),
            record: quote!(rec),
            found: Vec::new(),
        },
    )
}

/// Tokens of type `Option<u64>` for an expression (shared with the writer emitter).
pub(crate) fn value_tokens(c: &Checked, e: &Expr, scope: Scope<'_>) -> TokenStream {
    Em {
        c,
        sites: &ModuleOut::default(),
    }
    .value(
        e,
        scope,
        &Env {
            header: quote!(header),
            record: quote!(rec),
            found: Vec::new(),
        },
    )
}

/// A `u64` literal with its suffix (`16u64`), where the type must show in the tokens.
pub(crate) fn lit_u64_suffixed(v: u64) -> Literal {
    Literal::u64_suffixed(v)
}

/// A hexadecimal integer literal (`0x1f`), for masks and addresses.
pub(crate) fn hex(v: u64) -> TokenStream {
    format!("{v:#x}").parse().unwrap_or_default()
}

pub(crate) fn lit_u32(v: u64) -> Literal {
    Literal::u32_unsuffixed(u32::try_from(v).unwrap_or(u32::MAX))
}

/// The Rust type of a bit field's value (instruction and register fields): `bool` for one
/// bit, else the narrowest unsigned type of `width` bits.
pub(crate) fn field_ty(width: u64) -> &'static str {
    match width {
        1 => "bool",
        2..=8 => "u8",
        9..=16 => "u16",
        17..=32 => "u32",
        _ => "u64",
    }
}

/// Fields a struct's `Debug` lists in one function: a struct of more (a header of a few
/// hundred words) lists them in helpers of this many, one line each, so that no generated
/// function passes the length a person audits (`tests/tests/generated_function_size.rs`).
const DEBUG_FIELDS_PER_PART: usize = 100;

/// `impl Debug` for the view `id` (the struct `sname`), its `fields` each a `.field(..)`
/// call: in `fmt` itself, or, past [`DEBUG_FIELDS_PER_PART`], in helpers `fmt` calls in
/// order (the same text is printed).
pub(crate) fn debug_impl(
    id: &proc_macro2::Ident,
    sname: &str,
    fields: &[TokenStream],
) -> TokenStream {
    if fields.len() <= DEBUG_FIELDS_PER_PART {
        return quote! {
            impl core::fmt::Debug for #id<'_> {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.debug_struct(#sname) #(#fields)* .finish()
                }
            }
        };
    }
    let parts: Vec<_> = fields
        .chunks(DEBUG_FIELDS_PER_PART)
        .enumerate()
        .map(|(k, chunk)| (format_ident!("__debug_part_{}", k + 1), chunk))
        .collect();
    let names = parts.iter().map(|(n, _)| n);
    let helpers = parts.iter().map(|(n, chunk)| {
        quote! {
            fn #n(&self, d: &mut core::fmt::DebugStruct<'_, '_>) {
                d #(#chunk)*;
            }
        }
    });
    quote! {
        impl #id<'_> {
            #(#helpers)*
        }
        impl core::fmt::Debug for #id<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let mut d = f.debug_struct(#sname);
                #(self.#names(&mut d);)*
                d.finish()
            }
        }
    }
}
