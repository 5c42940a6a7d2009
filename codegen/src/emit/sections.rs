//! Emission for the constructs of `schema/ext.rs`: bit-field words, composed values, arrays,
//! version-gated structs, located records, section directories and their collections,
//! directory checksums (one pass, each byte hashed once, combined with `crc32_combine`),
//! slot regions, and the variant dispatch.
//!
//! Everything emitted is `no_std`, allocation-free and panic-free: records are read through
//! fixed-size arrays with constant indices, file values go through checked arithmetic, and
//! per-section-type bookkeeping lives in stack arrays sized by the section-type enum.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::ext::{collection_of, field_of, type_value};
use crate::check::lookup::is_gated;
use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::emit::doc::doc_attr;
use crate::emit::{Blame, Det, Em, Env, Idx, Opd, lit_u64_suffixed as lit_u64, lit_usize};
use crate::expr::{Expr, ExprAt};
use crate::names::camel;
use crate::schema::ext::{self, DirChecksumKind, Directory, ExtStep, Slots};
use crate::schema::top::{Step, Struct};
use crate::schema::{FieldDef, IntTy, Table};

fn ident(s: &str) -> proc_macro2::Ident {
    format_ident!("{}", s)
}

/// `T::from_le_bytes([v[o], v[o+1], ...])` over a fixed-size array `v` (`from_be_bytes`
/// for a big-endian field).
fn read_at(var: &TokenStream, t: IntTy, off: u64, big: bool) -> TokenStream {
    let ty = ident(t.rust());
    let idx = (0..t.bytes()).map(|i| lit_usize(off.saturating_add(i)));
    let from = crate::emit::from_bytes(big);
    quote!(#ty::#from([#(#var[#idx]),*]))
}

/// Whether field `i` of struct `sname` is stored big-endian.
fn big_of(c: &Checked, sname: &str, i: usize) -> bool {
    c.strukt(sname)
        .and_then(|s| s.fields.get(i))
        .is_some_and(|f| f.big)
}

/// `u64` tokens for a stored word of type `t` (signed words sign-extend, as the numbers they are).
fn widen(t: IntTy, v: TokenStream) -> TokenStream {
    if t.signed() {
        quote!((#v as i64 as u64))
    } else {
        quote!(u64::from(#v))
    }
}

// ----- types and struct views ------------------------------------------------------------

/// The bit-field word types.
pub fn bitfields(c: &Checked) -> TokenStream {
    let items = c.schema.bitfields.iter().map(|b| {
        let id = ident(&b.name.text);
        let ty = ident(b.repr.rust());
        let doc = doc_attr(&b.doc);
        let getters = b.fields.iter().map(|f| {
            let name = ident(&f.name.text);
            let mask = ext::range_mask(f.lo, f.hi) >> f.lo;
            let full = ext::range_mask(0, b.repr.bytes().saturating_mul(8).saturating_sub(1));
            let shifted = if f.lo == 0 {
                quote!(self.0)
            } else {
                let lo = Literal::u32_unsuffixed(u32::try_from(f.lo).unwrap_or(0));
                quote!((self.0 >> #lo))
            };
            let body = if mask == full {
                shifted
            } else {
                let m: TokenStream = format!("{mask:#x}").parse().unwrap_or_default();
                quote!(#shifted & #m)
            };
            let d = doc_attr(
                format!("{}\n\nBits {}..={} of the word.", f.doc, f.lo, f.hi).trim_start(),
            );
            quote! {
                #d
                #[must_use]
                pub const fn #name(self) -> #ty { #body }
            }
        });
        quote! {
            #doc
            ///
            /// A word cut into bit ranges; every bit is kept.
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct #id(#ty);
            impl #id {
                /// From the raw word.
                #[must_use]
                pub const fn from_bits(bits: #ty) -> Self { Self(bits) }
                /// The raw word.
                #[must_use]
                pub const fn bits(self) -> #ty { self.0 }
                #(#getters)*
            }
        }
    });
    quote!(#(#items)*)
}

/// `(return type, body)` of a fixed-offset accessor for an array or bit-field word.
pub fn field_read(em: &Em<'_>, kind: FieldKind, off: u64, big: bool) -> (TokenStream, TokenStream) {
    let raw = quote!(self.raw);
    match kind {
        FieldKind::Array(t, n) => {
            let ty = ident(t.rust());
            let items = (0..n).map(|k| {
                read_at(
                    &raw,
                    t,
                    off.saturating_add(k.saturating_mul(t.bytes())),
                    big,
                )
            });
            let n = lit_usize(n);
            (quote!([#ty; #n]), quote!([#(#items),*]))
        }
        FieldKind::Bits(i) => {
            let Some(b) = em.c.schema.bitfields.get(i) else {
                return (quote!(u8), quote!(0));
            };
            let ty = ident(&b.name.text);
            let r = read_at(&raw, b.repr, off, big);
            (quote!(#ty), quote!(#ty::from_bits(#r)))
        }
        _ => (quote!(u8), quote!(0)),
    }
}

/// Accessors of a struct's composed values: `(name, tokens)`.
pub fn composed_accessors(em: &Em<'_>, st: &Struct) -> Vec<(String, TokenStream)> {
    let _ = em;
    st.composed
        .iter()
        .map(|c| {
            let name = ident(&c.name.text);
            let low = ident(&c.low.text);
            let high = ident(&c.high.text);
            let d = doc_attr(format!("{}\n\n`{}` (bits 0-31) and `{}` (bits 32-63) as one value.", c.doc, c.low.text, c.high.text).trim_start());
            (
                c.name.text.clone(),
                quote! {
                    #d
                    #[inline]
                    #[must_use]
                    pub fn #name(&self) -> u64 { u64::from(self.#low()) | (u64::from(self.#high()) << 32) }
                },
            )
        })
        .collect()
}

/// Whether `sname` is the record of a collection (so its view gets `index()`).
pub fn is_collection_record(c: &Checked, sname: &str) -> bool {
    c.files().iter().any(|f| {
        f.ext
            .directories
            .iter()
            .any(|d| d.layouts.iter().any(|l| l.record.text == sname))
    })
}

/// Offset expression of field `k` of a gated struct for gate value `gate` (tokens, `u64`).
pub(crate) fn gated_offset(c: &Checked, st: &Struct, k: usize, gate: &TokenStream) -> TokenStream {
    let Some(l) = c.layouts.get(&st.name.text) else {
        return quote!(0u64);
    };
    // One constant offset per layout: the layouts change only at the `since` values, so
    // the offset is chosen by comparisons and computed here, with no arithmetic at run time.
    let mut gates: Vec<u64> = st
        .fields
        .iter()
        .flat_map(|f| [f.since, f.until])
        .filter_map(|x| x.map(|x| x.0))
        .collect();
    gates.sort_unstable();
    gates.dedup();
    let offset_at = |g: u64| -> u64 {
        st.fields
            .iter()
            .zip(&l.fields)
            .take(k)
            .filter(|(f, _)| f.present_at(g))
            .map(|(_, (_, kind))| kind.width(&c.schema))
            .fold(0u64, u64::saturating_add)
    };
    let mut last = offset_at(0);
    let base = lit_u64(last);
    let mut out = quote!(#base);
    for g in gates {
        let v = offset_at(g);
        if v == last {
            continue;
        }
        last = v;
        let (gl, v) = (lit_u64(g), lit_u64(v));
        out = quote!(if #gate >= #gl { #v } else { #out });
    }
    out
}

/// The view of a struct with `since` fields: its layout depends on a gate value (a version),
/// which the view carries.
pub fn gated_view(em: &Em<'_>, st: &Struct) -> TokenStream {
    let c = em.c;
    let id = ident(&st.name.text);
    let Some(l) = c.layouts.get(&st.name.text) else {
        return quote!();
    };
    let doc = doc_attr(&st.doc);
    let all = gated_offset(c, st, st.fields.len(), &quote!(gate));
    let mut accessors = Vec::new();
    let mut debug_fields = Vec::new();
    for (k, (f, (_, kind))) in st.fields.iter().zip(&l.fields).enumerate() {
        let name = ident(&f.name.text);
        let fname = f.name.text.as_str();
        let at = gated_offset(c, st, k, &quote!(self.gate));
        let w = kind.width(&c.schema);
        let wl = lit_usize(w);
        let from = crate::emit::from_bytes(f.big);
        let (ty, conv): (TokenStream, TokenStream) = match *kind {
            FieldKind::Int(t) => {
                let ty = ident(t.rust());
                (quote!(#ty), quote!(#ty::#from(*b)))
            }
            FieldKind::Enum(i) => {
                let Some(e) = c.schema.enums.get(i) else {
                    continue;
                };
                let ety = ident(&e.name.text);
                let r = ident(e.repr.rust());
                if e.open {
                    (quote!(#ety), quote!(#ety::from_raw(#r::#from(*b))))
                } else {
                    let first = ident(&camel(
                        &e.values
                            .first()
                            .map_or("missing".into(), |v| v.name.text.clone()),
                    ));
                    (
                        quote!(#ety),
                        quote!(match #ety::from_raw(#r::#from(*b)) { Some(v) => v, None => #ety::#first }),
                    )
                }
            }
            FieldKind::Flags(i) => {
                let Some(fl) = c.schema.flags.get(i) else {
                    continue;
                };
                let fty = ident(&fl.name.text);
                let r = ident(fl.repr.rust());
                (quote!(#fty), quote!(#fty::from_bits_retain(#r::#from(*b))))
            }
            FieldKind::Bits(i) => {
                let Some(bf) = c.schema.bitfields.get(i) else {
                    continue;
                };
                let bty = ident(&bf.name.text);
                let r = ident(bf.repr.rust());
                (quote!(#bty), quote!(#bty::from_bits(#r::#from(*b))))
            }
            FieldKind::Array(t, n) => {
                let ety = ident(t.rust());
                let nl = lit_usize(n);
                let items =
                    (0..n).map(|j| read_at(&quote!(b), t, j.saturating_mul(t.bytes()), f.big));
                (quote!([#ety; #nl]), quote!([#(#items),*]))
            }
            FieldKind::Bytes(_) => (quote!(&'a [u8; #wl]), quote!(b)),
            // Refused in a gated struct (`nested::check_struct`).
            FieldKind::Struct(..) | FieldKind::Structs(..) => continue,
            FieldKind::Float(w) => {
                let ty = ident(if w { "f64" } else { "f32" });
                (quote!(#ty), quote!(#ty::#from(*b)))
            }
            FieldKind::Str(_) => (
                quote!(&'a [u8]),
                quote!({
                    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                    b.get(..end).unwrap_or(&[])
                }),
            ),
        };
        let gate_doc = match (f.since, f.until) {
            (Some((s, _)), None) => {
                format!("Present when the gate is at least {s:#x} (`None` otherwise).")
            }
            (None, Some((u, _))) => {
                format!("Present when the gate is below {u:#x} (`None` otherwise).")
            }
            (Some((s, _)), Some((u, _))) => format!(
                "Present when the gate is at least {s:#x} and below {u:#x} (`None` otherwise)."
            ),
            (None, None) => "Present in every layout.".to_string(),
        };
        let d = doc_attr(format!("{}\n\n{gate_doc}", f.doc).trim_start());
        let read = quote! {
            let at = #at;
            let b: &'a [u8; #wl] = __rt::chunk_at::<#wl>(self.raw, at)?;
            Some(#conv)
        };
        if f.is_gated() {
            let mut absent = Vec::new();
            if let Some((s, _)) = f.since {
                let s = lit_u64(s);
                absent.push(quote!(self.gate < #s));
            }
            if let Some((u, _)) = f.until {
                let u = lit_u64(u);
                absent.push(quote!(self.gate >= #u));
            }
            accessors.push(quote! {
                #d
                #[must_use]
                pub fn #name(&self) -> Option<#ty> {
                    if #(#absent)||* { return None; }
                    #read
                }
            });
        } else {
            // Validation proved the whole layout is inside `raw`, so the read cannot miss;
            // the fallback keeps the accessor total.
            let fallback = match *kind {
                FieldKind::Bytes(_) => quote!(&[0u8; #wl]),
                FieldKind::Str(_) => quote!(&[]),
                _ => quote!(),
            };
            let opt = format_ident!("{}_checked", f.name.text);
            let unwrap = if fallback.is_empty() {
                quote!(self.#opt().unwrap_or_default())
            } else {
                quote!(self.#opt().unwrap_or(#fallback))
            };
            accessors.push(quote! {
                #[inline]
                fn #opt(&self) -> Option<#ty> { #read }
                #d
                #[must_use]
                pub fn #name(&self) -> #ty { #unwrap }
            });
        }
        debug_fields.push(quote!(.field(#fname, &self.#name())));
    }
    let debug = crate::emit::debug_impl(&id, &st.name.text, &debug_fields);
    quote! {
        #doc
        ///
        /// Its layout depends on a gate value (fields marked `since` exist only from that
        /// value on), so the view carries the gate.
        #[derive(Clone, Copy)]
        pub struct #id<'a> {
            raw: &'a [u8],
            #[allow(dead_code)]
            buf: &'a [u8],
            #[allow(dead_code)]
            index: u32,
            gate: u64,
        }
        impl<'a> #id<'a> {
            /// Size in bytes of the layout for gate value `gate`.
            #[must_use]
            pub const fn size_for(gate: u64) -> u64 { #all }
            /// The gate value the layout was chosen by.
            #[must_use]
            pub fn gate(&self) -> u64 { self.gate }
            #(#accessors)*
            /// The raw bytes, borrowed from the buffer.
            #[must_use]
            pub fn as_bytes(&self) -> &'a [u8] { self.raw }
        }
        #debug
    }
}

// ----- expressions -----------------------------------------------------------------------

fn struct_of<'a>(em: &Em<'a>, owner: Owner, scope: Scope<'_>) -> Option<&'a Struct> {
    em.struct_of(owner, scope)
}

/// Whether a field of `owner` lives in a gated struct (its accessor may return `Option`).
pub fn gated_owner(em: &Em<'_>, owner: Owner, scope: Scope<'_>) -> bool {
    struct_of(em, owner, scope).is_some_and(is_gated)
}

/// `u64` tokens (with `?`) for composed values, bit ranges and fields of gated structs.
pub fn leaf(em: &Em<'_>, r: Resolved, scope: Scope<'_>, env: &Env) -> TokenStream {
    match r {
        Resolved::Composed(owner, ci) => {
            let base = em.base(owner, env);
            let name = struct_of(em, owner, scope)
                .and_then(|s| s.composed.get(ci))
                .map_or("missing".to_string(), |c| c.name.text.clone());
            let name = ident(&name);
            quote!(#base.#name())
        }
        Resolved::BitField(owner, fi, bi) => {
            let base = em.base(owner, env);
            let st = struct_of(em, owner, scope);
            let f = st
                .and_then(|s| s.fields.get(fi))
                .map_or("missing".to_string(), |f| f.name.text.clone());
            let kind = st
                .and_then(|s| em.c.layouts.get(&s.name.text))
                .and_then(|l| l.fields.get(fi))
                .map(|x| x.1);
            let Some(FieldKind::Bits(b)) = kind else {
                return quote!(0u64);
            };
            let Some(sub) =
                em.c.schema
                    .bitfields
                    .get(b)
                    .and_then(|bf| bf.fields.get(bi))
            else {
                return quote!(0u64);
            };
            let sub = ident(&sub.name.text);
            let f = ident(&f);
            let get = if gated_owner(em, owner, scope) {
                quote!(#base.#f()?)
            } else {
                quote!(#base.#f())
            };
            quote!(u64::from(#get.#sub()))
        }
        Resolved::Field(owner, fi) => {
            let base = em.base(owner, env);
            let st = struct_of(em, owner, scope);
            let f = st.and_then(|s| s.fields.get(fi));
            let kind = st
                .and_then(|s| em.c.layouts.get(&s.name.text))
                .and_then(|l| l.fields.get(fi))
                .map(|x| x.1);
            let name = ident(f.map_or("missing", |f| f.name.text.as_str()));
            let get = if f.is_some_and(FieldDef::is_gated) {
                quote!(#base.#name()?)
            } else {
                quote!(#base.#name())
            };
            match kind {
                Some(FieldKind::Int(t)) if t.signed() => quote!(u64::try_from(#get).ok()?),
                Some(FieldKind::Int(_)) => quote!(u64::from(#get)),
                Some(FieldKind::Float(_)) => quote!(u64::from(#get.to_bits())),
                Some(FieldKind::Enum(_)) => quote!(u64::from(#get.raw())),
                Some(FieldKind::Flags(_) | FieldKind::Bits(_)) => quote!(u64::from(#get.bits())),
                _ => quote!(0u64),
            }
        }
        _ => quote!(0u64),
    }
}

/// The view of record `k` of table `t`, with `?` when the table has fewer records.
pub fn element_base(em: &Em<'_>, t: usize, k: u64) -> TokenStream {
    let Some(t) = em.c.schema.file.tables.get(t) else {
        return quote!(missing);
    };
    let var = ident(&t.name.text);
    let rec = ident(&t.record.text);
    let order = crate::emit::order_init(em.c, &t.record.text, quote!(__big));
    if k == crate::check::index::COMPUTED {
        return crate::emit::index::element_base(&rec, &var, &order);
    }
    let kl = lit_usize(k);
    let k32 = Literal::u32_suffixed(u32::try_from(k).unwrap_or(u32::MAX));
    let get = if k == 0 {
        quote!(#var.first()?)
    } else {
        quote!(#var.get(#kl)?)
    };
    quote!((#rec { raw: #get, buf, index: #k32 #order }))
}

/// Built-in functions: `count(collection)`, `if(c, a, b)`, `end(record)`, `word(at, width)`.
pub fn call(em: &Em<'_>, f: &str, args: &[Expr], scope: Scope<'_>, env: &Env) -> TokenStream {
    match (f, args) {
        ("count", [Expr::Ref(p)]) => {
            let name = p.first().map_or("missing", |s| s.as_str());
            crate::emit::positions::layout_count(em.c, name).unwrap_or_else(|| {
                let v = format_ident!("__count_{}", name);
                quote!(#v)
            })
        }
        (
            crate::expr::NAME
            | crate::expr::LAST
            | crate::expr::FIRST_BODY
            | crate::expr::LAST_BODY,
            _,
        ) => crate::emit::positions::emit_call(f, args),
        ("end", [Expr::Ref(p)]) => {
            let rname = p.first().map_or("missing", |s| s.as_str());
            let Some(r) =
                em.c.schema
                    .file
                    .ext
                    .records
                    .iter()
                    .find(|r| r.name.text == rname)
            else {
                return quote!(0u64);
            };
            let var = ident(rname);
            let at = format_ident!("{}_at", rname);
            // A version-gated record's size is its gate's layout's: `#var` is the record's
            // view in a validator and the writer's `__rt::Gate` in a writer's plan
            // (`dir_writer.rs`'s plan, when `end(<record>)` is read), both with `gate()`.
            let size = match em.c.strukt(&r.strukt.text) {
                Some(st) if is_gated(st) => {
                    let ty = format_ident!("{}", r.strukt.text);
                    quote!(#ty::size_for(#var.gate()))
                }
                _ => lit_u64(em.c.layouts.get(&r.strukt.text).map_or(0, |l| l.size))
                    .into_token_stream_quiet(),
            };
            if r.when.is_some() {
                // Present only when its condition holds: no end when absent.
                quote!(#var.map(|_| #at)?.checked_add(#size)?)
            } else {
                quote!(#at.checked_add(#size)?)
            }
        }
        (crate::expr::WORD, [a, w]) => {
            let a = em.inner(a, scope, env);
            let w = em.inner(w, scope, env);
            // The file's order: chosen by its header (`__big`), or the schema's.
            let big = if em.c.schema.big_when.is_some() {
                quote!(__big)
            } else if em.c.schema.big {
                quote!(true)
            } else {
                quote!(false)
            };
            quote!(__rt::word_at(buf, #a, #w, #big)?)
        }
        ("if", [c, a, b]) => {
            let c = crate::emit::strip_parens(em.cond(c, scope, env));
            let a = em.inner(a, scope, env);
            let b = em.inner(b, scope, env);
            quote!(if #c { #a } else { #b })
        }
        _ => quote!(0u64),
    }
}

trait Quiet {
    fn into_token_stream_quiet(self) -> TokenStream;
}
impl Quiet for Literal {
    fn into_token_stream_quiet(self) -> TokenStream {
        quote!(#self)
    }
}

// ----- count bindings --------------------------------------------------------------------

fn step_counts(c: &Checked, s: &Step, out: &mut Vec<String>) {
    let file = &c.schema.file;
    let mut es: Vec<&ExprAt> = Vec::new();
    match s {
        Step::MinLen { min, .. } => es.push(min),
        Step::Expect { field, equals, .. } => es.extend([field, equals]),
        Step::Assert { expr, repeat, .. } => {
            es.push(expr);
            es.extend(repeat.as_ref().map(|r| &r.below));
        }
        Step::TableFits { table, within, .. } => {
            es.push(within);
            if let Some(t) = file.tables.iter().find(|t| t.name.text == table.text) {
                es.extend([&t.at, &t.count, &t.stride]);
            }
        }
        Step::RangeFits { range, within, .. } => {
            es.push(within);
            if let Some(r) = file.ranges.iter().find(|r| r.name.text == range.text) {
                es.extend([&r.offset, &r.length]);
            }
        }
        Step::ForEach { steps, .. } => steps.iter().for_each(|x| step_counts(c, x, out)),
        Step::When { when, step } => {
            es.push(when);
            step_counts(c, step, out);
        }
        Step::Ext(ExtStep::Items { first, check, .. }) => {
            es.extend(first.iter());
            es.push(check);
        }
        Step::Ext(ExtStep::RecordFits { within, record, .. }) => {
            es.push(within);
            if let Some(r) = file.ext.records.iter().find(|r| r.name.text == record.text) {
                es.push(&r.at);
            }
        }
        _ => {}
    }
    for e in es {
        crate::emit::positions::expr_counts(&e.expr, out);
    }
}

/// The per-type section count and first-index arrays of a directory.
fn index_vars(dir: &Directory) -> (proc_macro2::Ident, proc_macro2::Ident) {
    (
        format_ident!("__dcount_{}", dir.name.text),
        format_ident!("__dfirst_{}", dir.name.text),
    )
}

/// The directory whose `entry_size` step a `for_each` runs, if any.
fn entry_size_dir<'a>(c: &'a Checked, s: &Step) -> Option<&'a Directory> {
    let Step::ForEach { steps, .. } = s else {
        return None;
    };
    steps.iter().find_map(|x| match x {
        Step::Ext(ExtStep::EntrySize { directory, .. }) => dir_of(c, &directory.text),
        _ => None,
    })
}

/// Declarations a top-level step needs before it: `let __count_<collection>: u64 = ...;`
/// for every `count()` it uses (also inside its `for_each` bodies, so loops do not
/// recount), and the per-type index a directory's `entry_size` step fills in.
pub fn count_bindings(em: &Em<'_>, s: &Step) -> TokenStream {
    let index = entry_size_dir(em.c, s).map(|dir| {
        let (cnt, first) = index_vars(dir);
        let m = lit_usize(type_slots(em.c, dir));
        quote! {
            let mut #cnt: [u32; #m] = [0u32; #m];
            let mut #first: [u32; #m] = [u32::MAX; #m];
        }
    });
    let mut names = Vec::new();
    step_counts(em.c, s, &mut names);
    let lets = names.iter().filter_map(|n| {
        let (dir, layout) = collection_of(&em.c.schema.file, n)?;
        let size = lit_u64(
            em.c.layouts
                .get(&layout.record.text)
                .map_or(1, |l| l.size.max(1)),
        );
        let value = type_value(em.c, dir, &layout.value.text)?;
        let length = payload_expr(em, dir, false, quote!(0));
        let var = format_ident!("__count_{}", n);
        let body = quote! {
            let length: u64 = #length;
            n = n.saturating_add(length / #size);
        };
        let lp = dir_loop(em, dir, Some(value), body);
        Some(quote! {
            let #var: u64 = {
                let mut n: u64 = 0;
                #lp
                n
            };
        })
    });
    quote!(#index #(#lets)*)
}

// ----- directory loops -------------------------------------------------------------------

struct DirInfo<'a> {
    table: &'a Table,
    var: proc_macro2::Ident,
    var_at: proc_macro2::Ident,
    rec_ty: proc_macro2::Ident,
    type_off: u64,
    type_ty: IntTy,
    type_big: bool,
    type_name: String,
}

fn dir_info<'a>(c: &'a Checked, dir: &Directory) -> Option<DirInfo<'a>> {
    let table = c
        .schema
        .file
        .tables
        .iter()
        .find(|t| t.name.text == dir.table.text)?;
    let (type_i, type_off, kind) = field_of(c, &table.record.text, &dir.type_field.text)?;
    Some(DirInfo {
        table,
        var: ident(&table.name.text),
        var_at: format_ident!("{}_at", table.name.text),
        rec_ty: ident(&table.record.text),
        type_off,
        type_ty: kind.int_ty(&c.schema)?,
        type_big: big_of(c, &table.record.text, type_i),
        type_name: dir.type_field.text.clone(),
    })
}

/// `u64` tokens for the payload offset (`offset` true) or length of `__srec`, `default`
/// when the expression fails (it cannot, once the payload passed its range check).
fn payload_expr(em: &Em<'_>, dir: &Directory, offset: bool, default: TokenStream) -> TokenStream {
    let file = &em.c.schema.file;
    let Some(t) = file.tables.iter().find(|t| t.name.text == dir.table.text) else {
        return default;
    };
    let Some(r) = file.ranges.iter().find(|r| r.name.text == dir.payload.text) else {
        return default;
    };
    let env = Env {
        header: quote!(header),
        record: quote!(__srec),
        found: Vec::new(),
    };
    let e = if offset {
        &r.offset.expr
    } else {
        &r.length.expr
    };
    match em.plain(e, Scope::RecordOnly(t), &env) {
        Some(p) => p,
        None => {
            let v = em.value(e, Scope::RecordOnly(t), &env);
            quote!(#v.unwrap_or(#default))
        }
    }
}

/// A loop over the directory's records (optionally only those of one type), binding
/// `__si` (index), `__srec` (the view), `__stype` (the raw type) and `__sat` (its offset).
fn dir_loop(em: &Em<'_>, dir: &Directory, only: Option<u64>, body: TokenStream) -> TokenStream {
    let Some(di) = dir_info(em.c, dir) else {
        return quote!();
    };
    let off = crate::emit::table::shape(em.c, di.table)
        .offset(&di.var, &quote!(u64::try_from(__si).unwrap_or(u64::MAX)));
    let DirInfo {
        var,
        var_at,
        rec_ty,
        type_off,
        type_ty,
        ..
    } = di;
    let ty = widen(
        type_ty,
        read_at(&quote!(__sraw), type_ty, type_off, di.type_big),
    );
    let filter = only.map(|v| {
        let v = lit_u64(v);
        quote!(if __stype != #v { continue; })
    });
    // A loop over one type starts at that type's first section (from the index the
    // `entry_size` step built) and, when there is only one, stops after it.
    let range = match only {
        Some(v) => {
            let (cnt, first) = index_vars(dir);
            let v = lit_usize(slot_index(em.c, dir, v));
            quote! {
                .skip(#first.get(#v).map_or(usize::MAX, |f| usize::try_from(*f).unwrap_or(usize::MAX)))
                .take(if #cnt.get(#v) == Some(&1) { 1 } else { usize::MAX })
            }
        }
        None => quote!(),
    };
    quote! {
        for (__si, __sraw) in #var.iter().enumerate() #range {
            let __stype: u64 = #ty;
            #filter
            let __srec: #rec_ty<'a> = #rec_ty { raw: __sraw, buf, index: u32::try_from(__si).unwrap_or(u32::MAX) };
            let __sat: u64 = #var_at.saturating_add(#off);
            let _ = (&__srec, __sat);
            #body
        }
    }
}

/// A loop over every record of a collection, binding `rec`, `rec_at` and `index` as a
/// table's `for_each` does (the index runs across the sections).
fn collection_loop(em: &Em<'_>, name: &str, body: TokenStream) -> TokenStream {
    let file = &em.c.schema.file;
    let Some((dir, layout)) = collection_of(file, name) else {
        return quote!();
    };
    let Some(value) = type_value(em.c, dir, &layout.value.text) else {
        return quote!();
    };
    let rec_ty = ident(&layout.record.text);
    let size = em.c.layouts.get(&layout.record.text).map_or(0, |l| l.size);
    let n = lit_usize(size);
    let n64 = lit_u64(size);
    let payload = ident(&dir.payload.text);
    let pat = payload_expr(em, dir, true, quote!(0));
    let inner = quote! {
        let Some(__p): Option<&'a [u8]> = __srec.#payload() else { continue; };
        let __pat: u64 = #pat;
        for (__j, raw) in __p.as_chunks::<#n>().0.iter().enumerate() {
            let index: u64 = __ci;
            __ci = __ci.saturating_add(1);
            let rec: #rec_ty<'a> = #rec_ty { raw, buf, index: u32::try_from(index).unwrap_or(u32::MAX) };
            let rec_at: u64 = __pat.saturating_add(u64::try_from(__j).unwrap_or(u64::MAX).saturating_mul(#n64));
            let _ = (&rec, rec_at, index);
            #body
        }
    };
    let lp = dir_loop(em, dir, Some(value), inner);
    quote! {
        {
            let mut __ci: u64 = 0;
            #lp
        }
    }
}

/// `for_each` over a collection.
pub fn for_each_collection(em: &Em<'_>, name: &str, steps: &[Step]) -> TokenStream {
    let Some(t) = em.c.collections.iter().find(|t| t.name.text == name) else {
        return quote!();
    };
    let body = em.steps(steps, Scope::Record(t));
    let dir_doc = collection_of(&em.c.schema.file, name)
        .map_or(String::new(), |(d, _)| crate::emit::doc::flow(&d.doc));
    let comment = format!(
        "@step For every record of collection `{name}` (every section of its type): {dir_doc}"
    );
    let lp = collection_loop(em, name, body);
    let reps = crate::emit::reps_decls(steps);
    quote! {
        #reps
        #[doc = #comment]
        #lp
    }
}

// ----- steps -----------------------------------------------------------------------------

/// A value bound to `name`: `(binding, as Option<u64>, as u64 with `default` on failure)`.
/// A value that cannot fail is bound as a plain `u64`, so no literal `Some` is unwrapped.
fn bind_value(
    em: &Em<'_>,
    e: &Expr,
    scope: Scope<'_>,
    env: &Env,
    name: &str,
) -> (
    TokenStream,
    TokenStream,
    impl Fn(TokenStream) -> TokenStream,
) {
    let id = ident(name);
    // A value no step of which can fail (`info.version & 0xFFFF` too): a plain `u64`.
    match em.infallible(e, scope, env) {
        Some(p) => {
            let bind = quote!(let #id: u64 = #p;);
            let opt = quote!(Some(#id));
            let id2 = id.clone();
            (
                bind,
                opt,
                Box::new(move |_d: TokenStream| quote!(#id2))
                    as Box<dyn Fn(TokenStream) -> TokenStream>,
            )
        }
        None => {
            let v = em.value(e, scope, env);
            let bind = quote!(let #id: Option<u64> = #v;);
            let opt = quote!(#id);
            let id2 = id.clone();
            (
                bind,
                opt,
                Box::new(move |d: TokenStream| quote!(#id2.unwrap_or(#d)))
                    as Box<dyn Fn(TokenStream) -> TokenStream>,
            )
        }
    }
}

fn err(em: &Em<'_>, code: &str, b: &Blame, d: Det) -> TokenStream {
    let f = em.fail(code, b, d);
    quote!(return #f;)
}

fn dir_of<'a>(c: &'a Checked, name: &str) -> Option<&'a Directory> {
    c.schema
        .file
        .ext
        .directories
        .iter()
        .find(|d| d.name.text == name)
}

fn slots_of<'a>(c: &'a Checked, name: &str) -> Option<&'a Slots> {
    c.schema.file.ext.slots.iter().find(|s| s.name.text == name)
}

/// Number of per-type slots: one per section type the schema names (see
/// [`crate::check::ext::type_slots`]).
fn type_slots(c: &Checked, dir: &Directory) -> u64 {
    u64::try_from(crate::check::ext::type_slots(c, dir).len())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// `Option<usize>` tokens: the slot of the section type `t` (a `u64`). When the named
/// types are exactly `0..n` the slot is the value itself (an out-of-range value finds no
/// slot through `get`); otherwise a `match` over the named types.
fn slot_of(c: &Checked, dir: &Directory, t: TokenStream) -> TokenStream {
    let slots = crate::check::ext::type_slots(c, dir);
    if crate::check::ext::slots_dense(&slots) {
        return quote!(usize::try_from(#t).ok());
    }
    let arms = slots.iter().enumerate().map(|(i, v)| {
        let (v, i) = (lit_u64(*v), lit_usize(u64::try_from(i).unwrap_or(u64::MAX)));
        quote!(#v => Some(#i),)
    });
    quote!(match #t { #(#arms)* _ => None::<usize> })
}

/// The slot index of the named type `v` (its position among the named types).
fn slot_index(c: &Checked, dir: &Directory, v: u64) -> u64 {
    crate::check::ext::type_slots(c, dir)
        .iter()
        .position(|x| *x == v)
        .and_then(|i| u64::try_from(i).ok())
        .unwrap_or(u64::MAX)
}

/// A record field of a collection's record, read as `u64`: `(tokens, offset in record)`.
fn rec_field(c: &Checked, rec: &str, field: &str, var: TokenStream) -> (TokenStream, u64) {
    match field_of(c, rec, field) {
        Some((i, off, kind)) => match kind.int_ty(&c.schema) {
            Some(t) => (
                widen(
                    t,
                    read_at(&quote!(#var.as_bytes()), t, off, big_of(c, rec, i)),
                ),
                off,
            ),
            None => (quote!(0u64), off),
        },
        None => (quote!(0u64), 0),
    }
}

/// Emit one step of this module. `prev`/`next` are the neighbouring steps (for fusion).
pub fn step(
    em: &Em<'_>,
    x: &ExtStep,
    prev: Option<&Step>,
    next: Option<&Step>,
    scope: Scope<'_>,
    env: &Env,
) -> TokenStream {
    let c = em.c;
    let file = &c.schema.file;
    match x {
        ExtStep::RecordFits {
            code,
            record,
            within,
        } => {
            let codes = &code.text;
            let Some(r) = file.ext.records.iter().find(|r| r.name.text == record.text) else {
                return quote!();
            };
            let Some(st) = c.strukt(&r.strukt.text) else {
                return quote!();
            };
            let var = ident(&r.name.text);
            let var_at = format_ident!("{}_at", r.name.text);
            let ty = ident(&st.name.text);
            let order = crate::emit::order_init(c, &st.name.text, quote!(__big));
            let (bind_at, at_opt, at_or) = bind_value(em, &r.at.expr, scope, env, "at");
            let (bind_w, w_opt, w_or) = bind_value(em, &within.expr, scope, env, "within");
            let wname = Em::short_name(within);
            // Blame the field that locates the record, or else the record itself (one per
            // record of a collection: `centrals[3].descriptor`).
            let blamed = if crate::check::expr::single_field(c, &r.at.expr, scope).is_some() {
                em.blame(&r.at.expr, scope)
            } else if let (Some(tn), Scope::Record(_)) = (&r.table, scope) {
                Blame::record(
                    &tn.text,
                    Idx::U64(quote!(index)),
                    &r.name.text,
                    at_or(quote!(0)),
                    0,
                )
            } else {
                Blame::at(&r.name.text, at_or(quote!(0)))
            };
            let comment = match &r.search {
                Some(s) => format!(
                    "@step {codes}: record `{}` ({}) is found at the last place at or before {}, at most {} bytes before it, where `{}`, and lies within `{}`.",
                    r.name.text, st.name.text, r.at.text, s.back.text, s.cond.text, within.text
                ),
                None => format!(
                    "@step {codes}: record `{}` ({} at {}) must lie within `{}`.",
                    r.name.text, st.name.text, r.at.text, within.text
                ),
            };
            let (start, limit) = (at_or(quote!(u64::MAX)), w_or(quote!(0)));
            let fail = |len: TokenStream| {
                err(
                    em,
                    codes,
                    &blamed,
                    Det::Range(start.clone(), len, wname.clone(), limit.clone()),
                )
            };
            if let Some(g) = &r.gate {
                let (bind_g, g_opt, g_or) = bind_value(em, &g.expr, scope, env, "gate");
                let glen = g_or(quote!(0));
                let fail = fail(quote!(#ty::size_for(#glen)));
                quote! {
                    #[doc = #comment]
                    let (#var, #var_at): (#ty<'a>, u64) = {
                        #bind_at
                        #bind_w
                        #bind_g
                        let parts = match (#at_opt, #g_opt, #w_opt) {
                            (Some(a), Some(g), Some(w)) => {
                                let n = #ty::size_for(g);
                                __rt::range_within(buf, a, n, w).map(|raw| (raw, a, g))
                            }
                            _ => None,
                        };
                        match parts {
                            Some((raw, a, gate)) => (#ty { raw, buf, index: 0, gate }, a),
                            None => { #fail }
                        }
                    };
                    // Read when a later step blames one of its fields or reads `end(...)`.
                    let _ = #var_at;
                }
            } else {
                let size = c.layouts.get(&st.name.text).map_or(0, |l| l.size);
                let n = lit_usize(size);
                let n64 = lit_u64(size);
                if let Some(s) = &r.search {
                    // The places searched: from `at - back` to `at`.
                    let back = crate::check::table_writer::const_u64(c, &s.back.expr).unwrap_or(0);
                    let back = lit_u64(back);
                    let t = crate::check::lookup::record_table(r);
                    let env = Env {
                        header: quote!(header),
                        record: quote!(rec),
                        found: Vec::new(),
                    };
                    let cond = crate::emit::strip_parens(em.cond(
                        &s.cond.expr,
                        Scope::RecordOnly(&t),
                        &env,
                    ));
                    let fail = err(
                        em,
                        codes,
                        &blamed,
                        Det::Compare(
                            Opd::Opt(quote!(#at_opt.map(|a: u64| a.saturating_sub(#back)))),
                            Opd::Opt(quote!(#at_opt)),
                            crate::check::ext::search_names(s),
                        ),
                    );
                    return quote! {
                        #[doc = #comment]
                        let (#var, #var_at): (#ty<'a>, u64) = {
                            #bind_at
                            #bind_w
                            let parts = match (#at_opt, #w_opt) {
                                (Some(a), Some(w)) => __rt::search_back::<#n>(buf, a, #back, w, |raw| {
                                    let rec = #ty { raw, buf, index: 0 #order };
                                    #cond
                                }),
                                _ => None,
                            };
                            match parts {
                                Some((raw, a)) => (#ty { raw, buf, index: 0 #order }, a),
                                None => { #fail }
                            }
                        };
                        // Read when a later step blames one of its fields or reads `end(...)`.
                        let _ = #var_at;
                    };
                }
                let fail = fail(quote!(#n64));
                let view = quote!(#ty { raw, buf, index: 0 #order });
                // Present only when its condition holds (`when`): placed then, `None`
                // otherwise.
                let (var_ty, view) = match &r.when {
                    Some(_) => (quote!(Option<#ty<'a>>), quote!(Some(#view))),
                    None => (quote!(#ty<'a>), view),
                };
                let placed = quote! {
                    #bind_at
                    #bind_w
                    let parts = match (#at_opt, #w_opt) {
                        (Some(a), Some(w)) if w.checked_sub(a).is_some_and(|room| room >= #n64) => {
                            __rt::chunk_at::<#n>(buf, a).map(|raw| (raw, a))
                        }
                        _ => None,
                    };
                    match parts {
                        Some((raw, a)) => (#view, a),
                        None => { #fail }
                    }
                };
                let Some(w) = &r.when else {
                    return quote! {
                        #[doc = #comment]
                        let (#var, #var_at): (#var_ty, u64) = { #placed };
                        // Read when a later step blames one of its fields or reads `end(...)`.
                        let _ = #var_at;
                    };
                };
                let cond = crate::emit::strip_parens(em.cond(&w.expr, scope, env));
                let comment = format!(
                    "@step {codes}: record `{}` ({} at {}), present when `{}`, must then lie within `{}`.",
                    r.name.text, st.name.text, r.at.text, w.text, within.text
                );
                quote! {
                    #[doc = #comment]
                    let (#var, #var_at): (#var_ty, u64) = if #cond { #placed } else { (None, 0) };
                    // Read when a later step reads one of its fields or `end(...)`.
                    let _ = (&#var, #var_at);
                }
            }
        }
        ExtStep::EntrySize { code, directory } => {
            let codes = &code.text;
            let Some(dir) = dir_of(c, &directory.text) else {
                return quote!();
            };
            let Some(di) = dir_info(c, dir) else {
                return quote!();
            };
            let tn = di.table.name.text.as_str();
            let (cnt, first) = index_vars(dir);
            let Scope::Record(t) = scope else {
                return quote!();
            };
            let es_name = dir.entry_size.text.as_str();
            let (es, es_off) = rec_field(c, &t.record.text, es_name, quote!(rec));
            let type_read = widen(
                di.type_ty,
                read_at(
                    &quote!(rec.as_bytes()),
                    di.type_ty,
                    di.type_off,
                    di.type_big,
                ),
            );
            let Some(r) = file.ranges.iter().find(|r| r.name.text == dir.payload.text) else {
                return quote!();
            };
            let renv = Env {
                header: quote!(header),
                record: quote!(rec),
                found: Vec::new(),
            };
            let length = match em.plain(&r.length.expr, Scope::RecordOnly(t), &renv) {
                Some(p) => p,
                // (Bound first: `checked_mul(K).unwrap_or(u64::MAX)` is clippy's
                // `manual_saturating_arithmetic` in the user's crate.)
                None => {
                    let v = em.value(&r.length.expr, Scope::RecordOnly(t), &renv);
                    quote!({ let length: Option<u64> = #v; length.unwrap_or(u64::MAX) })
                }
            };
            let slot = slot_of(c, dir, quote!(ty));
            let arms: Vec<TokenStream> = dir
                .layouts
                .iter()
                .filter_map(|l| {
                    let v = lit_u64(type_value(c, dir, &l.value.text)?);
                    let size = lit_u64(c.layouts.get(&l.record.text)?.size);
                    Some(quote!(#v => Some(#size),))
                })
                .collect();
            let field = Blame::record(tn, Idx::U64(quote!(index)), es_name, quote!(rec_at), es_off);
            let e1 = err(
                em,
                codes,
                &field,
                Det::Compare(
                    Opd::Val(quote!(size)),
                    Opd::Val(quote!(es)),
                    [
                        "section size".into(),
                        "is not a multiple of".into(),
                        "entry size".into(),
                    ],
                ),
            );
            let e2 = err(em, codes, &field, Det::Mismatch(quote!(es), quote!(want)));
            let comment = format!(
                "@step {codes}: the payload of every section of `{}` is a whole number of `{es_name}` entries; a section type with a record layout has entries of exactly that record's size.",
                dir.name.text
            );
            // A directory without layouts has no entry size to compare with (`match ty { _ =>
            // None }` would be clippy's `match_single_binding` in the user's crate).
            let layout_check = if arms.is_empty() {
                quote! {
                    let ty: u64 = #type_read;
                    let _ = ty;
                }
            } else {
                quote! {
                    let ty: u64 = #type_read;
                    let want: Option<u64> = match ty { #(#arms)* _ => None };
                    if let Some(want) = want
                        && es != want
                    {
                        #e2
                    }
                }
            };
            quote! {
                #[doc = #comment]
                {
                    let es: u64 = #es;
                    let size: u64 = #length;
                    if es != 0 && size.checked_rem(es) != Some(0) { #e1 }
                    #layout_check
                    // The per-type index later steps use to find a type's sections.
                    if let Some(n) = #slot.and_then(|i| #cnt.get_mut(i)) {
                        if *n == 0
                            && let Some(f) = #slot.and_then(|i| #first.get_mut(i))
                        {
                            *f = u32::try_from(index).unwrap_or(u32::MAX);
                        }
                        *n = n.saturating_add(1);
                    }
                }
            }
        }
        ExtStep::Items {
            code,
            array,
            first,
            check,
        } => {
            let codes = &code.text;
            let Scope::Record(t) = scope else {
                return quote!();
            };
            let Some((_, off, FieldKind::Array(ity, n))) = field_of(c, &t.record.text, &array.text)
            else {
                return quote!();
            };
            let Expr::Bin(op, _, rhs) = &check.expr else {
                return quote!();
            };
            // The right side as an `Option<u64>` (`rhs_opt`), bound plainly when it cannot
            // overflow.
            let (rhs_bind, rhs_opt, rhs_opd) = match em.plain(rhs, scope, env) {
                Some(p) => (
                    quote!(let rhs: u64 = #p;),
                    quote!(Some(rhs)),
                    Opd::Val(quote!(rhs)),
                ),
                None => {
                    let v = em.value(rhs, scope, env);
                    (
                        quote!(let rhs: Option<u64> = #v;),
                        quote!(rhs),
                        Opd::Opt(quote!(rhs)),
                    )
                }
            };
            let o: TokenStream = op.symbol().parse().unwrap_or_default();
            let neg = op.negated().symbol();
            let rhs_name = match &**rhs {
                Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
                _ => String::new(),
            };
            let name = ident(&array.text);
            let an = array.text.as_str();
            let tn = t.name.text.as_str();
            let first_v = match first {
                Some(f) => match em.plain(&f.expr, scope, env) {
                    Some(p) => p,
                    None => {
                        let v = em.value(&f.expr, scope, env);
                        quote!(#v.unwrap_or(u64::MAX))
                    }
                },
                None => lit_u64(n).into_token_stream_quiet(),
            };
            let w = lit_u64(ity.bytes());
            let item = widen(ity, quote!(*v));
            let comment = format!(
                "@step {codes}: the first `{}` items of `{}` must satisfy `{}`.",
                first.as_ref().map_or("all", |f| f.text.as_str()),
                array.text,
                check.text
            );
            let fail = err(
                em,
                codes,
                &Blame::record(
                    tn,
                    Idx::U64(quote!(index)),
                    an,
                    quote!(rec_at.saturating_add(k.saturating_mul(#w))),
                    off,
                ),
                Det::Compare(
                    Opd::Val(quote!(item)),
                    rhs_opd,
                    ["item".into(), neg.to_string(), rhs_name.to_string()],
                ),
            );
            quote! {
                #[doc = #comment]
                {
                    let items = rec.#name();
                    let first: u64 = #first_v;
                    for (k, v) in items.iter().enumerate() {
                        let k = u64::try_from(k).unwrap_or(u64::MAX);
                        if k >= first { break; }
                        let item: u64 = #item;
                        #rhs_bind
                        if !matches!(#rhs_opt, Some(b) if item #o b) { #fail }
                    }
                }
            }
        }
        ExtStep::RecordChecksums {
            code,
            missing,
            duplicate,
            checksum,
        } => record_checksums(em, code, missing, duplicate, checksum, next),
        ExtStep::PayloadChecksum { code, checksum } => {
            payload_checksum(em, code, checksum, prev, scope, env)
        }
        ExtStep::OwnedApart {
            code,
            too_many,
            ownership,
        } => crate::emit::ownership::step(em, code, too_many, ownership),
        ExtStep::SlotsPaired { code, slots } => {
            slots_paired(em, &code.text, slots_of(c, &slots.text))
        }
        ExtStep::SlotsValid { code, slots } => {
            slots_valid(em, &code.text, slots_of(c, &slots.text))
        }
        ExtStep::SlotsPaddingZero { code, slots } => {
            slots_padding(em, &code.text, slots_of(c, &slots.text))
        }
    }
}

fn want_var(name: &str) -> proc_macro2::Ident {
    format_ident!("__want_{}", name)
}

fn record_checksums(
    em: &Em<'_>,
    code: &crate::schema::Name,
    missing: &crate::schema::Name,
    duplicate: &crate::schema::Name,
    checksum: &crate::schema::Name,
    next: Option<&Step>,
) -> TokenStream {
    let c = em.c;
    let Some((dir, k)) = crate::check::ext::dir_checksum(&c.schema.file, &checksum.text) else {
        return quote!();
    };
    let DirChecksumKind::Records {
        records,
        target,
        stored,
    } = &k.kind
    else {
        return quote!();
    };
    let Some((_, layout)) = collection_of(&c.schema.file, &records.text) else {
        return quote!();
    };
    let rec_name = layout.record.text.as_str();
    let m = lit_usize(type_slots(c, dir));
    let (tval, toff) = rec_field(c, rec_name, &target.text, quote!(rec));
    let (sval, soff) = rec_field(c, rec_name, &stored.text, quote!(rec));
    let soff = lit_u64(soff);
    let col = records.text.as_str();
    let (tn, sn) = (target.text.as_str(), stored.text.as_str());
    let want = want_var(&k.name.text);
    let (dcount, _) = index_vars(dir);
    let slot_t = slot_of(c, dir, quote!(t));
    let slot_s = slot_of(c, dir, quote!(__stype));
    let target_field = Blame::record(col, Idx::U64(quote!(index)), tn, quote!(rec_at), toff);
    let miss = err(
        em,
        &missing.text,
        &target_field,
        Det::Compare(
            Opd::Val(quote!(found)),
            Opd::Val(quote!(1)),
            ["sections of this type".into(), "!=".into(), String::new()],
        ),
    );
    let miss_loop = collection_loop(
        em,
        col,
        quote! {
            let t: u64 = #tval;
            let found = #slot_t.and_then(|i| #dcount.get(i)).map_or(0, |n| u64::from(*n));
            if found != 1 { #miss }
        },
    );
    let dup = err(
        em,
        &duplicate.text,
        &target_field,
        Det::Compare(
            Opd::Val(quote!(t)),
            Opd::Val(quote!(first)),
            [
                "section type".into(),
                "already named by record".into(),
                String::new(),
            ],
        ),
    );
    let dup_loop = collection_loop(
        em,
        col,
        quote! {
            let t: u64 = #tval;
            if let Some(slot) = #slot_t.and_then(|i| #want.get_mut(i)) {
                if let Some((_, first, _)) = *slot { #dup }
                *slot = Some((#sval, index, rec_at.saturating_add(#soff)));
            }
        },
    );
    // Right before a payload checksum over the same directory, the sums are checked in its
    // pass; otherwise here, in a pass of their own.
    let fused = crate::lower::sites::fused_next(&c.schema.file, next, dir);
    let verify = if fused {
        quote!()
    } else {
        let mism = err(
            em,
            &code.text,
            &Blame::record(col, Idx::U64(quote!(k)), sn, quote!(at), 0),
            Det::Mismatch(quote!(v), quote!(u64::from(computed))),
        );
        let payload = ident(&dir.payload.text);
        dir_loop(
            em,
            dir,
            None,
            quote! {
                if let Some(Some((v, k, at))) = #slot_s.and_then(|i| #want.get(i)).copied() {
                    let computed = __srec.#payload().map_or(0, |p| __rt::crc32(0, p));
                    if u64::from(computed) != v { #mism }
                }
            },
        )
    };
    let comment = format!(
        "@step {}, {}, {}: every record of `{col}` names (by `{tn}`) a section present exactly once, no section twice, and `{sn}` is the {:?} of that section's payload{}. {}",
        missing.text,
        duplicate.text,
        code.text,
        k.algorithm,
        if fused {
            " (checked in the next step's pass)"
        } else {
            ""
        },
        crate::emit::doc::flow(&k.doc)
    );
    quote! {
        #[doc = #comment]
        #miss_loop
        let mut #want: [Option<(u64, u64, u64)>; #m] = [None; #m];
        #dup_loop
        #verify
    }
}

/// The `npuschema_core::ZeroedFields` entries of a payload checksum: each section type
/// whose records have fields hashed as zero, its record size and the fields (offset, width)
/// in increasing offset. The validator and the writer's checksum function both pass it to
/// `npuschema_core::crc32_payloads`.
pub(crate) fn zeroed_table(
    c: &Checked,
    dir: &Directory,
    zero: &[(crate::schema::Name, crate::schema::Name)],
) -> Vec<TokenStream> {
    let mut zeroed = Vec::new();
    for l in &dir.layouts {
        let mut fields: Vec<(u64, u64)> = zero
            .iter()
            .filter(|(col, _)| col.text == l.collection.text)
            .filter_map(|(_, f)| {
                let (_, off, kind) = field_of(c, &l.record.text, &f.text)?;
                Some((off, kind.width(&c.schema)))
            })
            .collect();
        if fields.is_empty() {
            continue;
        }
        fields.sort_unstable();
        let Some(v) = type_value(c, dir, &l.value.text) else {
            continue;
        };
        let n = lit_usize(c.layouts.get(&l.record.text).map_or(0, |x| x.size));
        let v = lit_u64(v);
        let fs = fields.iter().map(|&(o, w)| {
            let (o, w) = (lit_usize(o), lit_usize(w));
            quote!((#o, #w))
        });
        zeroed.push(quote!(__rt::ZeroedFields { kind: #v, record: #n, fields: &[#(#fs),*] }));
    }
    zeroed
}

fn payload_checksum(
    em: &Em<'_>,
    code: &crate::schema::Name,
    checksum: &crate::schema::Name,
    prev: Option<&Step>,
    scope: Scope<'_>,
    env: &Env,
) -> TokenStream {
    let c = em.c;
    let file = &c.schema.file;
    let Some((dir, k)) = crate::check::ext::dir_checksum(file, &checksum.text) else {
        return quote!();
    };
    let DirChecksumKind::Payloads { zero, stored } = &k.kind else {
        return quote!();
    };
    let Some(di) = dir_info(c, dir) else {
        return quote!();
    };
    let codes = &code.text;
    let tn = di.table.name.text.as_str();
    let pn = dir.payload.text.as_str();
    let zeroed = zeroed_table(c, dir, zero);
    // Sections a `record_checksums` step right before names: their own CRC is checked
    // in this pass (its mismatch site is that step's) and combined into the file's.
    let fused = crate::lower::sites::fused_prev(&c.schema.file, prev, dir).map(|(rcode, rk)| {
        let DirChecksumKind::Records {
            records,
            stored: sfield,
            ..
        } = &rk.kind
        else {
            return (quote!(|_: u64| None), quote!());
        };
        let want = want_var(&rk.name.text);
        let slot_t = slot_of(c, dir, quote!(t));
        let mism = err(
            em,
            &rcode.text,
            &Blame::record(
                &records.text,
                Idx::U64(quote!(k)),
                &sfield.text,
                quote!(at),
                0,
            ),
            Det::Mismatch(quote!(v), quote!(u64::from(own))),
        );
        (
            quote!(|t: u64| #slot_t.and_then(|i| #want.get(i)).copied().flatten()),
            quote! {
                Err(__rt::PayloadsError::Mismatch { stored: v, computed: own, record: k, at }) => {
                    #mism
                }
            },
        )
    });
    let gone = err(
        em,
        codes,
        &Blame::record(tn, Idx::Usize(quote!(__si)), pn, quote!(__sat), 0),
        Det::None,
    );
    let (var, var_at, drec) = (&di.var, &di.var_at, &di.rec_ty);
    let (want_fn, mism_arm) = match fused {
        Some(f) => f,
        // No section is checked on its own, so no section mismatch can happen.
        None => (
            quote!(|_: u64| None),
            quote! {
                Err(__rt::PayloadsError::Mismatch { .. }) => {
                    let __si = 0usize;
                    let __sat = #var_at;
                    #gone
                }
            },
        ),
    };
    let stype = widen(
        di.type_ty,
        read_at(&quote!(raw), di.type_ty, di.type_off, di.type_big),
    );
    let sat_off = crate::emit::table::shape(em.c, di.table)
        .offset(&di.var, &quote!(u64::try_from(__si).unwrap_or(u64::MAX)));
    let (off, len) = (
        payload_expr(em, dir, true, quote!(0)),
        payload_expr(em, dir, false, quote!(0)),
    );
    let (bind_stored, stored_opt, stored_or) = bind_value(em, &stored.expr, scope, env, "stored");
    let found = stored_or(quote!(u64::MAX));
    let mism = err(
        em,
        codes,
        &em.blame(&stored.expr, scope),
        Det::Mismatch(found, quote!(u64::from(__crc))),
    );
    let comment = format!(
        "@step {codes}: {:?} over every payload of `{}` in directory order (gaps excluded; {}) must equal `{}` (`npuschema_core::crc32_payloads`). {}",
        k.algorithm,
        dir.name.text,
        if zero.is_empty() {
            "nothing normalised".to_string()
        } else {
            format!(
                "{} hashed as zero",
                zero.iter()
                    .map(|(a, b)| format!("{}.{}", a.text, b.text))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        stored.text,
        crate::emit::doc::flow(&k.doc)
    );
    let zeroed_len = lit_usize(u64::try_from(zeroed.len()).unwrap_or(u64::MAX));
    quote! {
        #[doc = #comment]
        {
            const ZEROED: [__rt::ZeroedFields; #zeroed_len] = [#(#zeroed),*];
            let __sections = #var.iter().map(|raw| {
                let __srec = #drec { raw, buf, index: 0 };
                let _ = &__srec;
                (#stype, #off, #len)
            });
            let __crc: u32 = match __rt::crc32_payloads(buf, __sections, &ZEROED, #want_fn) {
                Ok(crc) => crc,
                Err(__rt::PayloadsError::Unreadable { section: __si }) => {
                    let __sat: u64 = #var_at.saturating_add(#sat_off);
                    #gone
                }
                #mism_arm
            };
            #bind_stored
            if #stored_opt != Some(u64::from(__crc)) { #mism }
        }
    }
}

/// The region of a slots definition: `Option<(payload, directory index, payload offset)>`.
fn region_binding(em: &Em<'_>, s: &Slots) -> TokenStream {
    let c = em.c;
    let Some(dir) = dir_of(c, &s.directory.text) else {
        return quote!(let __region: Option<(&[u8], u64, u64)> = None;);
    };
    let Some(v) = type_value(c, dir, &s.region.text) else {
        return quote!(let __region: Option<(&[u8], u64, u64)> = None;);
    };
    let payload = ident(&dir.payload.text);
    let pat = payload_expr(em, dir, true, quote!(0));
    let lp = dir_loop(
        em,
        dir,
        Some(v),
        quote! {
            if __region.is_none()
                && let Some(p) = __srec.#payload()
            {
                __region = Some((p, u64::try_from(__si).unwrap_or(u64::MAX), #pat));
            }
        },
    );
    quote! {
        let mut __region: Option<(&'a [u8], u64, u64)> = None;
        #lp
    }
}

fn slot_fields(c: &Checked, s: &Slots) -> Option<(String, u64, u64, TokenStream, TokenStream)> {
    let (_, layout) = collection_of(&c.schema.file, &s.entries.text)?;
    let r = layout.record.text.clone();
    let (ov, oo) = rec_field(c, &r, &s.offset.text, quote!(rec));
    let (sv, so) = rec_field(c, &r, &s.size.text, quote!(rec));
    Some((r, oo, so, ov, sv))
}

fn slots_paired(em: &Em<'_>, code: &str, s: Option<&Slots>) -> TokenStream {
    let c = em.c;
    let Some(s) = s else { return quote!() };
    let Some(dir) = dir_of(c, &s.directory.text) else {
        return quote!();
    };
    let Some(di) = dir_info(c, dir) else {
        return quote!();
    };
    let Some((_, layout)) = collection_of(&c.schema.file, &s.entries.text) else {
        return quote!();
    };
    let (Some(rv), Some(ev)) = (
        type_value(c, dir, &s.region.text),
        type_value(c, dir, &layout.value.text),
    ) else {
        return quote!();
    };
    let tn = di.table.name.text.as_str();
    let tyn = di.type_name.as_str();
    let rname = format!("{} sections", s.region.text);
    let ename = format!("{} sections", layout.value.text);
    // The per-type counts and first indexes the directory's `entry_size` step kept (the
    // checker has this step after it): no walk of the directory.
    let (cnt, firsts) = index_vars(dir);
    let (ri, ei) = (
        lit_usize(slot_index(c, dir, rv)),
        lit_usize(slot_index(c, dir, ev)),
    );
    // A region and entries of one type (no schema does it) count as the region's.
    let ne = if rv == ev {
        quote!(0u64)
    } else {
        quote!(u64::from(#cnt.get(#ei).copied().unwrap_or(0)))
    };
    let off = crate::emit::table::shape(c, di.table).offset(&di.var, &quote!(fi));
    let var_at = &di.var_at;
    let fail = err(
        em,
        code,
        &Blame::record(tn, Idx::U64(quote!(fi)), tyn, quote!(fat), di.type_off),
        Det::Compare(
            Opd::Val(quote!(nr)),
            Opd::Val(quote!(ne)),
            [rname, "unpaired with".into(), ename],
        ),
    );
    let comment = format!(
        "@step {code}: sections `{}` and `{}` are both present once, or both absent. {}",
        s.region.text,
        layout.value.text,
        crate::emit::doc::flow(&s.doc)
    );
    quote! {
        #[doc = #comment]
        {
            let nr: u64 = u64::from(#cnt.get(#ri).copied().unwrap_or(0));
            let ne: u64 = #ne;
            if !((nr == 0 && ne == 0) || (nr == 1 && ne == 1)) {
                // Blamed: the first section of either type, in directory order.
                let fi: u64 = u64::from(
                    #firsts.get(#ri).copied().unwrap_or(u32::MAX)
                        .min(#firsts.get(#ei).copied().unwrap_or(u32::MAX)),
                );
                let fat: u64 = #var_at.saturating_add(#off);
                #fail
            }
        }
    }
}

fn slots_valid(em: &Em<'_>, code: &str, s: Option<&Slots>) -> TokenStream {
    let c = em.c;
    let Some(s) = s else { return quote!() };
    let Some((_, oo, so, ov, sv)) = slot_fields(c, s) else {
        return quote!();
    };
    let col = s.entries.text.as_str();
    let (on, sn) = (s.offset.text.as_str(), s.size.text.as_str());
    let align = lit_u64(s.align);
    let region = region_binding(em, s);
    let rname = format!("{} region", s.region.text);
    let fo = Blame::record(col, Idx::U64(quote!(index)), on, quote!(rec_at), oo);
    let fs = Blame::record(col, Idx::U64(quote!(index)), sn, quote!(rec_at), so);
    let cmp = |lhs: TokenStream, rhs: TokenStream, names: [&str; 3]| {
        Det::Compare(Opd::Val(lhs), Opd::Val(rhs), names.map(String::from))
    };
    let e_zero = err(
        em,
        code,
        &fs,
        cmp(quote!(size), quote!(0), ["size", "==", ""]),
    );
    let e_align = err(
        em,
        code,
        &fo,
        cmp(
            quote!(off),
            quote!(#align),
            ["offset", "is not a multiple of", ""],
        ),
    );
    let e_order = err(
        em,
        code,
        &fo,
        cmp(
            quote!(off),
            quote!(cursor),
            ["offset", "<", "end of the previous slot"],
        ),
    );
    let e_past = err(
        em,
        code,
        &fs,
        Det::Range(quote!(off), quote!(size), rname, quote!(rlen)),
    );
    let lp = collection_loop(
        em,
        col,
        quote! {
            let off: u64 = #ov;
            let size: u64 = #sv;
            if size == 0 { #e_zero }
            if off.checked_rem(#align) != Some(0) { #e_align }
            if off < cursor { #e_order }
            let end = off.checked_add(size);
            let Some(end) = end.filter(|e| *e <= rlen) else { #e_past };
            cursor = end;
        },
    );
    let comment = format!(
        "@step {code}: every `{col}` entry has a nonzero size, a {}-aligned offset, lies inside the `{}` region, and starts at or after the previous one's end. {}",
        s.align,
        s.region.text,
        crate::emit::doc::flow(&s.doc)
    );
    quote! {
        #[doc = #comment]
        {
            #region
            let rlen: u64 = __region.map_or(0, |r| u64::try_from(r.0.len()).unwrap_or(u64::MAX));
            let mut cursor: u64 = 0;
            #lp
        }
    }
}

fn slots_padding(em: &Em<'_>, code: &str, s: Option<&Slots>) -> TokenStream {
    let c = em.c;
    let Some(s) = s else { return quote!() };
    let Some(dir) = dir_of(c, &s.directory.text) else {
        return quote!();
    };
    let Some(di) = dir_info(c, dir) else {
        return quote!();
    };
    let Some((_, _, _, ov, sv)) = slot_fields(c, s) else {
        return quote!();
    };
    let col = s.entries.text.as_str();
    let region = region_binding(em, s);
    let tn = di.table.name.text.as_str();
    let pn = dir.payload.text.as_str();
    let fail = err(
        em,
        code,
        &Blame::record(
            tn,
            Idx::U64(quote!(rsi)),
            pn,
            quote!(rat.saturating_add(at)),
            0,
        ),
        Det::Mismatch(quote!(u64::from(byte)), quote!(0)),
    );
    let lp = collection_loop(
        em,
        col,
        quote! {
            let off: u64 = #ov;
            let size: u64 = #sv;
            if off > cursor
                && let Some((at, byte)) = first_nonzero(cursor, off)
            {
                #fail
            }
            cursor = cursor.max(off.saturating_add(size));
        },
    );
    let comment = format!(
        "@step {code}: every byte of the `{}` region outside the `{col}` slots is zero. {}",
        s.region.text,
        crate::emit::doc::flow(&s.doc)
    );
    quote! {
        #[doc = #comment]
        {
            #region
            if let Some((r, rsi, rat)) = __region {
                let first_nonzero = |from: u64, to: u64| -> Option<(u64, u8)> {
                    let (f, t) = (usize::try_from(from).ok()?, usize::try_from(to).ok()?);
                    let gap = r.get(f..t.min(r.len()))?;
                    let i = gap.iter().position(|&b| b != 0)?;
                    Some((from.saturating_add(u64::try_from(i).unwrap_or(u64::MAX)), gap.get(i).copied().unwrap_or(0)))
                };
                let mut cursor: u64 = 0;
                #lp
                let rlen = u64::try_from(r.len()).unwrap_or(u64::MAX);
                if let Some((at, byte)) = first_nonzero(cursor, rlen) { #fail }
            }
        }
    }
}

// ----- file view items -------------------------------------------------------------------

/// Extra parts of a file view: struct fields, their initialisers in `validate`, accessors,
/// and items after the view (iterator types).
#[derive(Default)]
pub struct FileItems {
    /// `name: type,`
    pub fields: Vec<TokenStream>,
    /// `name: value,`
    pub inits: Vec<TokenStream>,
    /// Methods of the view.
    pub accessors: Vec<TokenStream>,
    /// Items beside the view.
    pub items: Vec<TokenStream>,
}

/// The code of a record per record's accessor (`file_items`) that places record `r` of
/// collection `t` from `rec`: `r` and `r_at` bound, as the validator binds them (an
/// `Option` for a record present only `when` its condition holds). `last`: the accessor's
/// own record, which returns `None` when its condition does not hold.
fn per_record_place(
    em: &Em<'_>,
    r: &crate::schema::ext::Record,
    t: &Table,
    last: bool,
) -> TokenStream {
    let c = em.c;
    let Some(st) = c.strukt(&r.strukt.text) else {
        return quote!();
    };
    let var = ident(&r.name.text);
    let var_at = format_ident!("{}_at", r.name.text);
    let ty = ident(&st.name.text);
    let n = lit_usize(c.layouts.get(&st.name.text).map_or(0, |l| l.size));
    let order = crate::emit::order_init(c, &st.name.text, quote!(self.__big));
    let env = Env {
        header: quote!(rec),
        record: quote!(rec),
        found: Vec::new(),
    };
    let scope = Scope::Record(t);
    let at = match em.infallible(&r.at.expr, scope, &env) {
        Some(v) => v,
        None => {
            let v = em.value(&r.at.expr, scope, &env);
            quote!(#v?)
        }
    };
    let view = quote!(#ty { raw: __rt::chunk_at::<#n>(self.buf, #var_at)?, buf: self.buf, index: 0 #order });
    match &r.when {
        None => quote! {
            let #var_at: u64 = #at;
            let #var = #view;
            let _ = (&#var, #var_at);
        },
        Some(w) => {
            let cond = crate::emit::strip_parens(em.cond(&w.expr, scope, &env));
            if last {
                quote! {
                    let #var = if #cond {
                        let #var_at: u64 = #at;
                        #view
                    } else {
                        return None;
                    };
                }
            } else {
                quote! {
                    let (#var, #var_at): (Option<#ty<'a>>, u64) = if #cond {
                        let #var_at: u64 = #at;
                        (Some(#view), #var_at)
                    } else {
                        (None, 0)
                    };
                    let _ = (&#var, #var_at);
                }
            }
        }
    }
}

/// Located records and collections of the file being emitted.
pub fn file_items(em: &Em<'_>) -> FileItems {
    let c = em.c;
    let file = &c.schema.file;
    let mut out = FileItems::default();
    for (ri, r) in file.ext.records.iter().enumerate() {
        let Some(st) = c.strukt(&r.strukt.text) else {
            continue;
        };
        let var = ident(&r.name.text);
        let ty = ident(&st.name.text);
        let d = doc_attr(&r.doc);
        let order = crate::emit::order_init(c, &st.name.text, quote!(self.__big));
        if let Some(tn) = &r.table {
            // One per record of a table or stream: found from the record on each call, after
            // the records of that collection it reads (`per_record_reads`), placed in turn.
            let Some(t) = c.table(&tn.text) else { continue };
            let rec_ty = ident(&t.record.text);
            let mut placed = Vec::new();
            for j in crate::check::ext::per_record_reads(c, ri) {
                if let Some(dr) = file.ext.records.get(j) {
                    placed.push(per_record_place(em, dr, t, false));
                }
            }
            placed.push(per_record_place(em, r, t, true));
            let rdoc = match &r.when {
                None => format!(
                    " The `{}` of `rec`, a record of `{}`, at `{}`: `None` when it does not lie in the buffer (a record of another file; validation proved every record of this one has it).",
                    r.name.text, tn.text, r.at.text
                ),
                Some(w) => format!(
                    " The `{}` of `rec`, a record of `{}`, at `{}` when `{}`: `None` when that does not hold (the record is not there), or when it does not lie in the buffer (a record of another file; validation proved every record of this one that has it has it there).",
                    r.name.text, tn.text, r.at.text, w.text
                ),
            };
            out.accessors.push(quote! {
                #d
                #[doc = ""]
                #[doc = #rdoc]
                #[must_use]
                pub fn #var(&self, rec: &#rec_ty<'a>) -> Option<#ty<'a>> {
                    #(#placed)*
                    Some(#var)
                }
            });
            continue;
        }
        if is_gated(st) {
            let gv = format_ident!("{}_gate", r.name.text);
            out.fields.push(quote!(#var: &'a [u8], #gv: u64,));
            out.inits.push(quote!(#var: #var.raw, #gv: #var.gate,));
            out.accessors.push(quote! {
                #d
                #[must_use]
                pub fn #var(&self) -> #ty<'a> { #ty { raw: self.#var, buf: self.buf, index: 0, gate: self.#gv } }
            });
        } else if let Some(w) = &r.when {
            let n = lit_usize(c.layouts.get(&st.name.text).map_or(0, |l| l.size));
            let wdoc = format!(
                " `None` when `{}` does not hold (the record is not there).",
                w.text
            );
            out.fields.push(quote!(#var: Option<&'a [u8; #n]>,));
            out.inits.push(quote!(#var: #var.map(|r| r.raw),));
            out.accessors.push(quote! {
                #d
                #[doc = ""]
                #[doc = #wdoc]
                #[must_use]
                pub fn #var(&self) -> Option<#ty<'a>> {
                    self.#var.map(|raw| #ty { raw, buf: self.buf, index: 0 #order })
                }
            });
        } else {
            let n = lit_usize(c.layouts.get(&st.name.text).map_or(0, |l| l.size));
            out.fields.push(quote!(#var: &'a [u8; #n],));
            out.inits.push(quote!(#var: #var.raw,));
            out.accessors.push(quote! {
                #d
                #[must_use]
                pub fn #var(&self) -> #ty<'a> { #ty { raw: self.#var, buf: self.buf, index: 0 #order } }
            });
        }
    }
    out.accessors.extend(crate::emit::ownership::accessors(em));
    for dir in &file.ext.directories {
        let Some(di) = dir_info(c, dir) else { continue };
        let dshape = crate::emit::table::shape(c, di.table);
        let (dir_ty, dir_iter) = (dshape.ty(), dshape.iter_ty());
        let dvar = &di.var;
        let drec = &di.rec_ty;
        let type_read = widen(
            di.type_ty,
            read_at(&quote!(raw), di.type_ty, di.type_off, di.type_big),
        );
        let payload = ident(&dir.payload.text);
        // One walk over the directory for every collection: the records of the sections of
        // one type, in directory order, each with its index among them. Each collection's
        // iterator is this walk with its type value and record size, and its record view.
        let walk = format_ident!("__{}{}Records", file.name.text, camel(&dir.name.text));
        if dir.layouts.is_empty() {
            continue;
        }
        let wdoc = format!(
            " The records of every section of one type of directory `{}`, in directory order, with their index among them: the walk behind each of its collections' iterators.",
            dir.name.text
        );
        out.items.push(quote! {
            #[doc = #wdoc]
            #[derive(Clone)]
            struct #walk<'a, const N: usize> {
                dir: #dir_iter,
                dir_index: u32,
                cur: core::slice::Iter<'a, [u8; N]>,
                buf: &'a [u8],
                next: u32,
                want: u64,
            }
            impl<'a, const N: usize> #walk<'a, N> {
                fn new(dir: #dir_ty, buf: &'a [u8], want: u64) -> Self {
                    Self { dir: dir.iter(), dir_index: 0, cur: Default::default(), buf, next: 0, want }
                }
                /// The next record of a section of type `want`, and its index among them.
                fn next_raw(&mut self) -> Option<(&'a [u8; N], u32)> {
                    loop {
                        if let Some(raw) = self.cur.next() {
                            let index = self.next;
                            self.next = self.next.saturating_add(1);
                            return Some((raw, index));
                        }
                        let raw = self.dir.next()?;
                        let s = #drec { raw, buf: self.buf, index: self.dir_index };
                        self.dir_index = self.dir_index.saturating_add(1);
                        if #type_read == self.want
                            && let Some(p) = s.#payload()
                        {
                            self.cur = p.as_chunks::<N>().0.iter();
                        }
                    }
                }
            }
        });
        for l in &dir.layouts {
            let Some(v) = type_value(c, dir, &l.value.text) else {
                continue;
            };
            let v = lit_u64(v);
            let name = ident(&l.collection.text);
            let it = format_ident!("{}Iter", camel(&l.collection.text));
            let rec = ident(&l.record.text);
            let n = lit_usize(c.layouts.get(&l.record.text).map_or(0, |x| x.size));
            let d = doc_attr(&l.doc);
            let idoc = format!(
                " Iterator over collection `{}`: the records of every section of type `{}`, in directory order.",
                l.collection.text, l.value.text
            );
            out.accessors.push(quote! {
                #d
                ///
                /// The records of every section of this type, in directory order.
                #[must_use]
                pub fn #name(&self) -> #it<'a> {
                    #it(#walk::new(self.#dvar, self.buf, #v))
                }
            });
            out.items.push(quote! {
                #[doc = #idoc]
                #[derive(Clone)]
                pub struct #it<'a>(#walk<'a, #n>);
                impl<'a> Iterator for #it<'a> {
                    type Item = #rec<'a>;
                    fn next(&mut self) -> Option<#rec<'a>> {
                        let (raw, index) = self.0.next_raw()?;
                        Some(#rec { raw, buf: self.0.buf, index })
                    }
                }
                impl core::iter::FusedIterator for #it<'_> {}
            });
        }
    }
    out
}

// ----- variants --------------------------------------------------------------------------

/// The dispatch enum over the variants, and each variant's view.
pub fn variants(c: &Checked, sites: &crate::emit::ModuleOut) -> TokenStream {
    let Some(vs) = &c.schema.file.ext.variants else {
        return quote!();
    };
    let file = &c.schema.file;
    let em = Em { c, sites };
    let id = ident(&file.name.text);
    let doc = doc_attr(&file.doc);
    let Some(hs) = c.header() else {
        return quote!();
    };
    let hty = ident(&hs.name.text);
    let hsize = c.layouts.get(&hs.name.text).map_or(0, |l| l.size);
    let (hs_l, hs64) = (lit_usize(hsize), lit_u64(hsize));
    let hfail = em.fail(
        &file.header_code.text,
        &Blame::plain("header", 0),
        Det::Short(quote!(#hs64), quote!(len)),
    );
    let common = em.steps(&file.validate, Scope::Top);
    let env = Env {
        header: quote!(header),
        record: quote!(rec),
        found: Vec::new(),
    };
    // The file's byte order, chosen by the common header (`big_when`): its view carries it;
    // each variant reads it again from its own header.
    let header_bind = match &c.schema.big_when {
        Some(b) => {
            let cond = crate::emit::strip_parens(em.cond(&b.expr, Scope::Top, &env));
            let comment = format!("@step the file's byte order: big-endian when `{}`.", b.text);
            let first = crate::emit::order_init(c, &hs.name.text, quote!(false));
            let then = crate::emit::order_init(c, &hs.name.text, quote!(__big));
            quote! {
                let header: #hty<'a> = #hty { raw: header_raw, buf, index: 0 #first };
                #[doc = #comment]
                let __big: bool = #cond;
                let header: #hty<'a> = #hty { raw: header_raw, buf, index: 0 #then };
            }
        }
        None => quote!(let header = #hty { raw: header_raw, buf, index: 0 };),
    };
    let mut arms = Vec::new();
    let mut variants = Vec::new();
    let mut views = Vec::new();
    let mut bytes_arms = Vec::new();
    for (v, vc) in vs.list.iter().zip(&c.variants) {
        let key = ident(&camel(&v.key.text));
        let vty = ident(&v.file.name.text);
        let cond = crate::emit::strip_parens(em.cond(&v.when.expr, Scope::Top, &env));
        let vd = doc_attr(&format!(
            "Selected when `{}`. {}",
            v.when.text,
            crate::emit::doc::flow(&v.file.doc)
        ));
        arms.push(quote!(if #cond { return #vty::validate_as(buf).map(Self::#key); }));
        variants.push(quote!(#vd #key(#vty<'a>),));
        bytes_arms.push(quote!(Self::#key(v) => v.as_bytes(),));
        views.push(Em { c: vc, sites }.file_view());
    }
    let fv = match em.plain(&vs.field.expr, Scope::Top, &env) {
        Some(p) => p,
        None => {
            let v = em.value(&vs.field.expr, Scope::Top, &env);
            quote!(#v.unwrap_or(u64::MAX))
        }
    };
    let fail = em.fail(
        &vs.code.text,
        &em.blame(&vs.field.expr, Scope::Top),
        Det::UnknownValue(fv),
    );
    let vdoc = format!(
        " Validate `buf`: the common header (`{}`), its steps, then the layout its `{}` selects, validated in full.",
        hs.name.text, vs.field.text
    );
    quote! {
        #doc
        ///
        /// One validated view per layout; [`Self::validate`] picks the layout.
        #[derive(Clone, Copy, Debug)]
        pub enum #id<'a> {
            #(#variants)*
        }
        impl<'a> #id<'a> {
            #[doc = #vdoc]
            ///
            /// # Errors
            /// The first failed check, with its code, field and byte offset.
            #[inline]
            pub fn validate(buf: &'a [u8]) -> Result<Self, __rt::Error> {
                Self::validate_as(buf)
            }
            /// As [`Self::validate`], reporting a failure as `E`: [`__rt::Error`] for
            /// everything, [`__rt::Brief`] for only the failing check's number (the
            /// smallest code on a microcontroller; [`error_site`] names it), or your own
            /// [`__rt::Report`].
            ///
            /// # Errors
            /// The first failed check, as `E`.
            pub fn validate_as<E: __rt::Report>(buf: &'a [u8]) -> Result<Self, E> {
                let len = u64::try_from(buf.len()).unwrap_or(u64::MAX);
                let Some(header_raw) = __rt::chunk_at::<#hs_l>(buf, 0) else {
                    return #hfail;
                };
                #header_bind
                let _ = (&header, len);
                #common
                #(#arms)*
                #fail
            }
            /// The whole validated buffer.
            #[must_use]
            pub fn as_bytes(&self) -> &'a [u8] {
                match self { #(#bytes_arms)* }
            }
        }
        #(#views)*
    }
}
