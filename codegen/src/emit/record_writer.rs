//! Writing one record's fields into a `rec` buffer: its inputs and the values a writer
//! derives (`check::dir_writer::What`), at the offsets of its layout or, for a
//! version-gated record, of its gate's layout, for the writer (`dir_writer.rs`): the header,
//! the located records and the directories' records.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::writer_rules::range_kind;
use crate::check::{Checked, FieldKind, Owner, Scope};
use crate::emit::lit_usize;
use crate::model::{Item, Part, RangeKind, Rule, What};
use crate::schema::top::Struct;

fn ident(s: &str) -> proc_macro2::Ident {
    format_ident!("{}", s)
}

/// Tokens writing an input field `src` (of kind `kind`) into `rec` at `off` (or, in a
/// version-gated record, at `at`, a `usize` computed from the gate).
pub(crate) fn write_input(
    kind: FieldKind,
    off: u64,
    at: Option<&TokenStream>,
    big: bool,
    src: &TokenStream,
) -> TokenStream {
    let o = at.cloned().unwrap_or_else(|| {
        let l = lit_usize(off);
        quote!(#l)
    });
    let tob = crate::emit::to_bytes(big);
    match kind {
        FieldKind::Enum(_) => quote!(__rt::set(&mut rec, #o, #src.raw().#tob());),
        FieldKind::Flags(_) | FieldKind::Bits(_) => {
            quote!(__rt::set(&mut rec, #o, #src.bits().#tob());)
        }
        FieldKind::Array(t, _) => {
            // Element `k` at `o + k * width`, written without a `+ 0` or a `* 1` (clippy's
            // `identity_op` in the user's crate).
            let step = match t.bytes() {
                1 => quote!(k),
                w => {
                    let w = lit_usize(w);
                    quote!(k * #w)
                }
            };
            let at = if at.is_none() && off == 0 {
                step
            } else {
                quote!(#o + #step)
            };
            quote! {
                for (k, v) in #src.iter().enumerate() {
                    __rt::set(&mut rec, #at, v.#tob());
                }
            }
        }
        FieldKind::Int(_) | FieldKind::Float(_) => quote!(__rt::set(&mut rec, #o, #src.#tob());),
        // A struct-typed field: its value's bytes (`nested_writer.rs`).
        k @ (FieldKind::Struct(..) | FieldKind::Structs(..)) => {
            crate::emit::nested_writer::write_input(k, off, src, &quote!(&mut rec))
                .unwrap_or_default()
        }
        FieldKind::Bytes(_) | FieldKind::Str(_) => {
            quote!(__rt::set(&mut rec, #o, *#src);)
        }
    }
}

/// The `u64` tokens of a derived value, and whether they are an `Option<u64>`: the one
/// source of every derived value (the header's fields, the located records', the
/// directories' records' and the linear forms solved from them). `place_vars`: the variables
/// holding the places the writer chose; an item not among them is read from the writer's
/// plan (`plan.<item>_at`).
pub(crate) fn derived_value(
    c: &Checked,
    what: &What,
    place_vars: &[(Item, proc_macro2::Ident)],
    dirs: &[(proc_macro2::Ident, u64)],
) -> (TokenStream, bool) {
    match what {
        What::Value(e) => match crate::emit::plain_tokens(c, e, Scope::Top) {
            Some(t) => (t, false),
            None => (crate::emit::value_tokens(c, e, Scope::Top), true),
        },
        // A string table's place, in the plan with its strings'.
        What::Place(Item::Range(k)) if range_kind(c, *k) == RangeKind::Built => {
            let at = format_ident!(
                "{}_at",
                c.schema
                    .file
                    .ranges
                    .get(*k)
                    .map_or("missing", |r| r.name.text.as_str())
            );
            (quote!(plan.#at), false)
        }
        What::Place(it) => {
            let v = place_vars
                .iter()
                .find(|(x, _)| x == it)
                .map(|(_, v)| quote!(#v))
                .unwrap_or_else(|| {
                    let at = format_ident!("{}_at", c.item_name(*it).unwrap_or("missing"));
                    quote!(plan.#at)
                });
            (v, false)
        }
        What::Count(d) => match dirs.get(*d) {
            Some((secs, _)) => (
                quote!(u64::try_from(self.#secs.len()).unwrap_or(u64::MAX)),
                false,
            ),
            None => (quote!(0u64), false),
        },
        What::Stride(d) => {
            let s = Literal::u64_suffixed(dirs.get(*d).map_or(0, |x| x.1));
            (quote!(#s), false)
        }
        What::PayloadOffset => (quote!(at), false),
        What::PayloadLength => (quote!(n), false),
        What::Checksum => (quote!(0u64), false),
        What::RangeLength(k) if range_kind(c, *k) != RangeKind::Bytes => {
            // A stream's (the writer builds it from its records) or a string table's
            // length, found by the plan.
            let len = format_ident!(
                "{}_len",
                c.schema
                    .file
                    .ranges
                    .get(*k)
                    .map_or("missing", |r| r.name.text.as_str())
            );
            (quote!(plan.#len), false)
        }
        What::TableCount(k) => {
            let Some(t) = c.schema.file.tables.get(*k) else {
                return (quote!(0u64), false);
            };
            // (An optional table's records: none when it is left out, `when_writer.rs`.)
            let t = crate::emit::when_writer::records(c, t);
            (quote!(u64::try_from(#t.len()).unwrap_or(u64::MAX)), false)
        }
        What::RecordSize(k) => {
            let size = c
                .schema
                .file
                .tables
                .get(*k)
                .and_then(|t| c.layouts.get(&t.record.text))
                .map_or(0, |l| l.size);
            let s = Literal::u64_suffixed(size);
            (quote!(#s), false)
        }
        // Set with the record's string (`strtab_writer::record_offsets`) or with its
        // per-record range's bytes (`range_sets`).
        What::RecordOffset(_) | What::RecordLength(_) | What::RecordFlag(_) | What::RecordStr => {
            (quote!(0u64), false)
        }
        What::StrOffset(k) => {
            let at = format_ident!(
                "{}_at",
                c.schema
                    .file
                    .strings
                    .get(*k)
                    .map_or("missing", |s| s.name.text.as_str())
            );
            (quote!(plan.#at), false)
        }
        What::RangeLength(k) => {
            let r = c.schema.file.ranges.get(*k);
            let optional = r.is_some_and(|r| r.when.is_some());
            let r = ident(r.map_or("missing", |r| r.name.text.as_str()));
            if optional {
                // Left out (`optional_parts.rs`): zero.
                return (
                    quote!(self.#r.map_or(0, |b| u64::try_from(b.len()).unwrap_or(u64::MAX))),
                    false,
                );
            }
            (
                quote!(u64::try_from(self.#r.len()).unwrap_or(u64::MAX)),
                false,
            )
        }
    }
}

/// Tokens writing every field of `st` into `rec`: inputs from `prefix`, derived values. With
/// `gate` (a version-gated record's gate value, a `u64` variable) each field is written
/// where that layout has it, and only when it has it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_fields(
    c: &Checked,
    st: &Struct,
    rules: &[Rule],
    src: &dyn Fn(&str) -> TokenStream,
    place_vars: &[(Item, proc_macro2::Ident)],
    dirs: &[(proc_macro2::Ident, u64)],
    path: &str,
    gate: Option<&TokenStream>,
) -> Vec<TokenStream> {
    let Some(l) = c.layouts.get(&st.name.text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, f) in st.fields.iter().enumerate() {
        let Some(&(off, kind)) = l.fields.get(i) else {
            continue;
        };
        let Some(g) = gate else {
            out.extend(write_field(
                c, f, i, off, None, kind, rules, src, place_vars, dirs, path,
            ));
            continue;
        };
        // Where the gated view reads the field (`sections::gated_offset`), as a `u64`.
        let at = crate::emit::sections::gated_offset(c, st, i, g);
        let o = quote!(__o);
        let body = write_field(
            c,
            f,
            i,
            off,
            Some(&o),
            kind,
            rules,
            src,
            place_vars,
            dirs,
            path,
        );
        let mut cond = Vec::new();
        if let Some((s, _)) = f.since {
            let s = Literal::u64_suffixed(s);
            cond.push(quote!(#g >= #s));
        }
        if let Some((u, _)) = f.until {
            let u = Literal::u64_suffixed(u);
            cond.push(quote!(#g < #u));
        }
        let body = body.unwrap_or_default();
        let code = quote! {
            let __o: u64 = #at;
            let __o: usize = usize::try_from(__o).unwrap_or(usize::MAX);
            #body
        };
        // A field only some layouts have that locates an optional part: the part given in
        // a layout without it is refused (`check::dir_writer::optional_part`).
        let absent = match rules.get(i) {
            Some(Rule::Derived(w, _)) if crate::check::writer_rules::optional_part(c, w) => {
                let given = optional_given(c, w);
                let fpath = format!("{path}.{}", f.name.text);
                // (`gate: gate` is clippy's `redundant_field_names`.)
                let gate = if g.to_string() == "gate" {
                    quote!(gate)
                } else {
                    quote!(gate: #g)
                };
                quote! {
                    else if #given {
                        return Err(__rt::WriteError::NotInLayout { field: #fpath, #gate });
                    }
                }
            }
            _ => quote!(),
        };
        out.push(if cond.is_empty() {
            quote!({ #code })
        } else {
            quote!(if #(#cond)&&* { #code } #absent)
        });
    }
    out
}

/// Whether the optional part `w` locates or sizes (a range or table with `when`) is given.
fn optional_given(c: &Checked, w: &What) -> TokenStream {
    let file = &c.schema.file;
    match *w {
        What::Place(Item::Range(k)) | What::RangeLength(k) => {
            let r = ident(
                file.ranges
                    .get(k)
                    .map_or("missing", |r| r.name.text.as_str()),
            );
            quote!(self.#r.is_some())
        }
        What::Place(Item::OtherTable(k)) | What::TableCount(k) | What::RecordSize(k) => {
            match file.tables.get(k) {
                // A directory writer's optional table is an `Option` (`optional_parts.rs`).
                Some(t) if crate::check::optional_parts::optional_table(c, t) => {
                    let n = ident(&t.name.text);
                    quote!(self.#n.is_some())
                }
                Some(t) => {
                    let g = crate::emit::when_writer::given(t);
                    quote!(self.#g)
                }
                None => quote!(true),
            }
        }
        _ => quote!(true),
    }
}

/// The write of field `i` (`f`, at `off` or `at`) of a record: its input or derived value.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_field(
    c: &Checked,
    f: &crate::schema::FieldDef,
    i: usize,
    off: u64,
    at: Option<&TokenStream>,
    kind: FieldKind,
    rules: &[Rule],
    src: &dyn Fn(&str) -> TokenStream,
    place_vars: &[(Item, proc_macro2::Ident)],
    dirs: &[(proc_macro2::Ident, u64)],
    path: &str,
) -> Option<TokenStream> {
    {
        match rules.get(i) {
            // Zero until `seal` computes it.
            // Zero until `seal` computes it; a directory record's string offset: set with
            // its string; another per-record range's fields: set with its bytes.
            Some(Rule::Derived(w, _)) if matches!(w, What::Checksum) || w.per_record() => None,
            Some(Rule::Derived(what, part)) => {
                let ity = kind.int_ty(&c.schema)?;
                let o = at.cloned().unwrap_or_else(|| {
                    let l = lit_usize(off);
                    quote!(#l)
                });
                let fpath = format!("{path}.{}", f.name.text);
                Some(write_derived(
                    c,
                    (what, part),
                    (&o, ity, f.big),
                    &fpath,
                    place_vars,
                    dirs,
                ))
            }
            _ => Some(write_input(kind, off, at, f.big, &src(&f.name.text))),
        }
    }
}

/// The write of a derived value (`what`, stored as `part` of it) into `rec` at `o` (a
/// `usize` expression) as `ity` in byte order `big`: `TooLarge` naming `fpath` when the
/// field cannot hold it. Every writer's derived fields are written by it: a record's,
/// a located record's, the header's and the fields inside its struct-typed fields.
pub(crate) fn write_derived(
    c: &Checked,
    (what, part): (&What, &Part),
    (o, ity, big): (&TokenStream, crate::schema::IntTy, bool),
    fpath: &str,
    place_vars: &[(Item, proc_macro2::Ident)],
    dirs: &[(proc_macro2::Ident, u64)],
) -> TokenStream {
    let (v, fallible) = derived_value(c, what, place_vars, dirs);
    let bind = if fallible {
        quote!(let v: u64 = (#v).ok_or(__rt::WriteError::TooLarge { field: #fpath, value: u64::MAX })?;)
    } else {
        quote!(let v: u64 = #v;)
    };
    let part = match part {
        Part::Whole => quote!(),
        Part::Low => quote!(let v = v & 0xFFFF_FFFF;),
        Part::High => quote!(let v = v >> 32;),
        // Stored as a linear form of the field: solved for it (`linform.rs`).
        // (`F + 0`, `F * 1`: nothing to solve.)
        Part::Lin(f) => {
            let solve = crate::emit::linform::solve(f, fpath, &quote!(want));
            if solve.is_empty() {
                quote!()
            } else {
                quote!(let want = v; #solve)
            }
        }
    };
    let store = crate::emit::store(o, ity, big, fpath, &quote!(&mut rec));
    quote! {
        {
            #bind
            #part
            #store
        }
    }
}

/// The statements computing file checksum `k` over the bytes `out` holds and storing it
/// as `ity` at `off` in byte order `big` (`Layout` naming `item` when its span cannot be
/// read or the sum does not fit): every writer's file checksum, patched once the file is
/// written. A stored field never lies inside the bytes it covers (`check/sum_span.rs`).
pub(crate) fn checksum_store(
    c: &Checked,
    k: &crate::schema::Checksum,
    (off, ity, big): (u64, crate::schema::IntTy, bool),
    item: &str,
) -> TokenStream {
    let ty = ident(ity.rust());
    let tob = crate::emit::to_bytes(big);
    let from = crate::emit::value_tokens(c, &k.from.expr, Scope::Top);
    let to = crate::emit::value_tokens(c, &k.to.expr, Scope::Top);
    let sum = k.algorithm.core_fn(&quote!(d));
    let compute = quote!(u64::from(#sum));
    let off = Literal::u64_suffixed(off);
    let width = Literal::u64_suffixed(ity.bytes());
    quote! {
        let sum = match (#from, #to) {
            (Some(f), Some(t)) => __rt::covered_apart(out, f, t, #off, #width).map(|d| #compute),
            _ => None,
        };
        let sum = sum.and_then(|v| #ty::try_from(v).ok()).ok_or(__rt::WriteError::Layout { item: #item })?;
        __rt::put(out, #off, &sum.#tob())?;
    }
}

/// `u64` tokens computing a version-gated record's gate `e` (an expression
/// `check::dir_writer::computed_gate` accepts) from the writer's inputs, `field` giving each
/// field's tokens (as `u64`), with the views' checked arithmetic: an overflow is
/// `WriteError::TooLarge` for `item` (the tokens end in `?`).
pub(crate) fn gate_tokens(
    c: &Checked,
    e: &crate::expr::Expr,
    field: &dyn Fn(crate::check::Owner, usize) -> Option<TokenStream>,
    item: &str,
) -> TokenStream {
    use crate::expr::{BinOp, Expr};
    fn inner(
        c: &Checked,
        e: &Expr,
        field: &dyn Fn(crate::check::Owner, usize) -> Option<TokenStream>,
    ) -> TokenStream {
        match e {
            Expr::Num(v) => {
                let l = Literal::u64_suffixed(*v);
                quote!(#l)
            }
            Expr::Ref(p) => match c.resolve(p, Scope::Top) {
                Ok(crate::check::Resolved::Field(o, i)) => field(o, i).unwrap_or(quote!(0u64)),
                _ => crate::emit::plain_tokens(c, e, Scope::Top).unwrap_or(quote!(0u64)),
            },
            Expr::Bin(op, l, r) => {
                let l = inner(c, l, field);
                let r = inner(c, r, field);
                match op {
                    BinOp::Add => quote!(#l.checked_add(#r)?),
                    BinOp::Sub => quote!(#l.checked_sub(#r)?),
                    BinOp::Mul => quote!(#l.checked_mul(#r)?),
                    BinOp::Div => quote!(#l.checked_div(#r)?),
                    BinOp::Rem => quote!(#l.checked_rem(#r)?),
                    BinOp::And => quote!((#l & #r)),
                    BinOp::Or => quote!((#l | #r)),
                    BinOp::Shl => quote!(#l.checked_shl(u32::try_from(#r).ok()?)?),
                    BinOp::Shr => quote!(#l.checked_shr(u32::try_from(#r).ok()?)?),
                    _ => quote!(0u64),
                }
            }
            _ => quote!(0u64),
        }
    }
    let t = inner(c, e, field);
    let field_name = format!("{item}.gate");
    if t.to_string().contains('?') {
        // `Some(x?)` is `x` when the last step is a checked operation (an `Option`).
        let mut toks: Vec<proc_macro2::TokenTree> = t.clone().into_iter().collect();
        let opt = if matches!(toks.last(), Some(proc_macro2::TokenTree::Punct(q)) if q.as_char() == '?')
        {
            toks.pop();
            let body: TokenStream = toks.into_iter().collect();
            if body.to_string().contains('?') {
                quote!((|| -> Option<u64> { #body })())
            } else {
                body
            }
        } else {
            quote!((|| -> Option<u64> { Some(#t) })())
        };
        quote!(#opt.ok_or(__rt::WriteError::TooLarge { field: #field_name, value: u64::MAX })?)
    } else {
        // Used as an argument or a `let`'s value only: no parentheses needed.
        crate::emit::strip_parens(t)
    }
}

/// The gate value of located record `k`, when it is version-gated, for either writer's plan
/// (`gates`: the input field that holds it; `computed`: the expression over the inputs the
/// plan computes it from): `u64` tokens.
pub(crate) fn gate_value(
    c: &Checked,
    gates: &[Option<(Owner, usize)>],
    computed: &[Option<crate::expr::Expr>],
    k: usize,
) -> Option<TokenStream> {
    let Some((o, i)) = *gates.get(k)? else {
        let e = computed.get(k)?.as_ref()?;
        let item = &c.schema.file.ext.records.get(k)?.name.text;
        return Some(gate_tokens(c, e, &|o, i| input_u64(c, o, i), item));
    };
    let st = crate::check::writer_rules::struct_for(c, o, Scope::Top)?;
    let f = &st.fields.get(i)?.name.text;
    let n = input_name(c, o, f)?;
    Some(quote!(u64::from(self.#n)))
}

/// A writer's input field for field `f` of `o`: the header's `f`, a located record `r`'s
/// `r_f`.
fn input_name(c: &Checked, o: Owner, f: &str) -> Option<proc_macro2::Ident> {
    Some(match o {
        Owner::Located(j) => format_ident!("{}_{}", c.schema.file.ext.records.get(j)?.name.text, f),
        _ => format_ident!("{}", f),
    })
}

/// A writer's unsigned integer input field `i` of `o` as `u64` tokens.
fn input_u64(c: &Checked, o: Owner, i: usize) -> Option<TokenStream> {
    let st = crate::check::writer_rules::struct_for(c, o, Scope::Top)?;
    let f = &st.fields.get(i)?.name.text;
    let n = input_name(c, o, f)?;
    match crate::check::writer_rules::field_kind(c, st, i)? {
        FieldKind::Int(t) => Some(crate::emit::widen(t, quote!(self.#n))),
        _ => None,
    }
}

/// Located record `r` read back from the bytes being written (`out`) at `at` (tokens of an
/// `Option<u64>`) into a copy, `<r>_bytes`, and bound as its view `<r>` (so `out` can be
/// written after); with `gate` (a bound `u64`), in the layout of that gate: the bytes its
/// size for the gate takes, the rest of the copy zero. A record not inside `out` is
/// `WriteError::Layout` naming it. Both writers read records back so for a checksum's span.
pub(crate) fn read_back(
    c: &Checked,
    r: &crate::schema::ext::Record,
    at: &TokenStream,
    gate: Option<&proc_macro2::Ident>,
) -> TokenStream {
    let n = lit_usize(c.layouts.get(&r.strukt.text).map_or(0, |l| l.size));
    let ty = format_ident!("{}", r.strukt.text);
    let v = format_ident!("{}", r.name.text);
    let bytes = format_ident!("{}_bytes", r.name.text);
    let item = r.name.text.as_str();
    let Some(gate) = gate else {
        return quote! {
            let #bytes: [u8; #n] = #at
                .and_then(|a| usize::try_from(a).ok())
                .and_then(|a| out.get(a..))
                .and_then(<[u8]>::first_chunk::<#n>)
                .copied()
                .ok_or(__rt::WriteError::Layout { item: #item })?;
            let #v: #ty<'_> = #ty { raw: &#bytes, buf: &#bytes, index: 0 };
            let _ = &#v;
        };
    };
    quote! {
        let #bytes: [u8; #n] = {
            let m = usize::try_from(#ty::size_for(#gate)).unwrap_or(usize::MAX).min(#n);
            let src = #at
                .and_then(|a| usize::try_from(a).ok())
                .and_then(|a| out.get(a..))
                .and_then(|s| s.get(..m))
                .ok_or(__rt::WriteError::Layout { item: #item })?;
            let mut b = [0u8; #n];
            if let Some(d) = b.get_mut(..m) {
                d.copy_from_slice(src);
            }
            b
        };
        let #v: #ty<'_> = #ty {
            raw: #bytes.get(..usize::try_from(#ty::size_for(#gate)).unwrap_or(usize::MAX).min(#n)).unwrap_or(&[]),
            buf: &#bytes,
            index: 0,
            gate: #gate,
        };
        let _ = &#v;
    }
}

/// The field writes of located record `r` (struct `st`), whose inputs are the spec's
/// `<r>_<field>` fields, in the layout of its gate (bound as `gate`) when `gated`.
pub(crate) fn located_field_writes(
    c: &Checked,
    st: &Struct,
    rules: &[Rule],
    r: &crate::schema::ext::Record,
    place_vars: &[(Item, proc_macro2::Ident)],
    dirs: &[(proc_macro2::Ident, u64)],
    gated: bool,
) -> Vec<TokenStream> {
    let rn = r.name.text.as_str();
    let gate = gated.then(|| quote!(gate));
    write_fields(
        c,
        st,
        rules,
        &|n| {
            let n = format_ident!("{}_{}", rn, n);
            quote!(self.#n)
        },
        place_vars,
        dirs,
        rn,
        gate.as_ref(),
    )
}
