//! The writer's table records (for `file_writer.rs`, the one writer emitter): each table's
//! `<Record>Spec` and its per-record ranges' enums, the records' bytes and their per-record
//! ranges' bytes (`table_code`), a constant count checked, and the Rust type of an input
//! field (`field_type`). As for every field the writer writes, what the validation rules fix
//! is derived (a per-record range's offset and length fields, the flag bit that gates it),
//! so the writer and the validator cannot disagree; every other field of the record is an
//! input of its `<Record>Spec`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::expr::single_field;
use crate::check::writer::record_rules;
use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::expr::Expr;
use crate::model::{Part, Rule, What};
use crate::names::camel;
use crate::schema::{IntTy, Range, Table};

pub(crate) fn field_type(c: &Checked, kind: FieldKind) -> (TokenStream, TokenStream) {
    match kind {
        FieldKind::Float(w) => {
            let ty = format_ident!("{}", if w { "f64" } else { "f32" });
            (quote!(#ty), quote!(0.0))
        }
        FieldKind::Int(t) => {
            let ty = format_ident!("{}", t.rust());
            (quote!(#ty), quote!(0))
        }
        FieldKind::Enum(e) => {
            let en = &c.schema.enums[e];
            let ty = format_ident!("{}", en.name.text);
            if en.open {
                (quote!(#ty), quote!(#ty::from_raw(0)))
            } else {
                let first = format_ident!(
                    "{}",
                    camel(
                        &en.values
                            .first()
                            .map_or("Missing".to_string(), |v| v.name.text.clone())
                    )
                );
                (quote!(#ty), quote!(#ty::#first))
            }
        }
        FieldKind::Flags(f) => {
            let ty = format_ident!("{}", c.schema.flags[f].name.text);
            (quote!(#ty), quote!(#ty::empty()))
        }
        FieldKind::Bits(b) => {
            let ty = format_ident!(
                "{}",
                c.schema
                    .bitfields
                    .get(b)
                    .map_or("Missing", |x| x.name.text.as_str())
            );
            (quote!(#ty), quote!(#ty::from_bits(0)))
        }
        FieldKind::Array(t, n) => {
            let ty = format_ident!("{}", t.rust());
            let n = Literal::usize_unsuffixed(usize::try_from(n).unwrap_or(0));
            (quote!([#ty; #n]), quote!([0; #n]))
        }
        FieldKind::Bytes(n) | FieldKind::Str(n) => {
            let n = Literal::usize_unsuffixed(usize::try_from(n).unwrap_or(0));
            (quote!(&'a [u8; #n]), quote!(&[0u8; #n]))
        }
        // A struct-typed field: the struct's value type (`nested_writer.rs`).
        k @ (FieldKind::Struct(..) | FieldKind::Structs(..)) => {
            crate::emit::nested_writer::input_type(c, k).unwrap_or_else(|| (quote!(u8), quote!(0)))
        }
    }
}

/// The writer's variant name for a per-record range's `present` / `absent` case: the
/// schema's name in UpperCamel, or `default`.
pub(crate) fn variant(name: Option<&crate::schema::Name>, default: &str) -> proc_macro2::Ident {
    format_ident!("{}", name.map_or(default.to_string(), |n| camel(&n.text)))
}

/// The spec type of a table's records: `<Record>Spec<'a>` when a per-record range lends it
/// bytes, `<Record>Spec` when it owns all its fields.
pub(crate) fn spec_ty(c: &Checked, t: &Table) -> TokenStream {
    let spec = format_ident!("{}Spec", t.record.text);
    let borrows = c
        .schema
        .file
        .ranges
        .iter()
        .any(|r| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
        || !crate::check::strtab_writer::record_strings(c, t).is_empty();
    if borrows {
        quote!(#spec<'a>)
    } else {
        quote!(#spec)
    }
}

/// The spec struct (and per-range data enum) for a table's records.
pub(crate) fn spec_struct(c: &Checked, t: &Table) -> TokenStream {
    let file = &c.schema.file;
    let Some(st) = c.strukt(&t.record.text) else {
        return quote!();
    };
    let l = &c.layouts[&t.record.text];
    let rules = record_rules(c, t);
    let mut fields = Vec::new();
    let mut enums = Vec::new();
    for (i, f) in st.fields.iter().enumerate() {
        if rules[i].is_input() {
            let name = format_ident!("{}", f.name.text);
            let (ty, _) = field_type(c, l.fields[i].1);
            let doc = format!(" {}", crate::emit::doc::flow(&f.doc));
            let doc = if doc.trim().is_empty() {
                format!(" `{}`.", f.name.text)
            } else {
                doc
            };
            fields.push(quote!(#[doc = #doc] pub #name: #ty,));
        }
    }
    for r in file
        .ranges
        .iter()
        .filter(|r| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
    {
        let (f, e) = range_spec(c, t, r);
        fields.push(f);
        enums.push(e);
    }
    fields.extend(crate::emit::strtab_writer::spec_fields(c, t));
    let doc = format!(
        " One record of `{}` for the writer: the fields it cannot derive.",
        t.name.text
    );
    // A float input has no `Eq`.
    let floats = st.fields.iter().enumerate().any(|(i, _)| {
        rules[i].is_input() && crate::emit::nested_writer::value_has_floats(c, l.fields[i].1)
    });
    let eq = if floats { quote!() } else { quote!(, Eq) };
    let spec_t = spec_ty(c, t);
    quote! {
        #(#enums)*
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq #eq)]
        pub struct #spec_t { #(#fields)* }
    }
}

/// The field of a record's `<Record>Spec` for its per-record range `r` (its bytes, or the
/// length recorded when the record carries none) and the enum it takes. Shared by the
/// plain writer's tables and another per-record range of a directory table.
pub(crate) fn range_spec(c: &Checked, t: &Table, r: &Range) -> (TokenStream, TokenStream) {
    let l = &c.layouts[&t.record.text];
    let name = format_ident!("{}", r.name.text);
    let en = format_ident!("{}{}", t.record.text, camel(&r.name.text));
    let present = variant(r.present.as_ref(), "Present");
    let absent = variant(r.absent.as_ref(), "Absent");
    let len_kind = single_field(c, &r.length.expr, Scope::RecordOnly(t))
        .and_then(|(_, i)| l.fields.get(i))
        .map(|f| f.1)
        .or_else(|| {
            // A length inside a struct-typed field (`span.length`).
            crate::emit::nested_writer::leaf_of(c, &r.length.expr, Scope::RecordOnly(t))
                .and_then(|(_, lf)| c.leaf(lf))
                .map(|x| x.2)
        });
    let len_ty = match len_kind {
        Some(FieldKind::Int(ti)) => format_ident!("{}", ti.rust()),
        _ => format_ident!("u64"),
    };
    let doc = format!(
        " Whether a record carries its `{}` bytes in the file.",
        r.name.text
    );
    let pdoc = match crate::emit::doc::flow(&r.doc).as_str() {
        d if !d.is_empty() => format!(" The bytes, stored in the file ({d})."),
        _ => " The bytes, stored in the file.".to_string(),
    };
    let field = quote!(#[doc = #doc] pub #name: #en<'a>,);
    let en_def = quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum #en<'a> {
            #[doc = #pdoc]
            #present(&'a [u8]),
            /// Not stored in the file: only its length is recorded.
            #absent(#len_ty),
        }
    };
    (field, en_def)
}

/// The fields inside a record's struct-typed fields that a per-record range's `offset` or
/// `length` names (`span.offset`): derived like a field of the record (`nested_writer.rs`).
fn record_leaf_rules(c: &Checked, t: &Table) -> Vec<(crate::check::Leaf, String, What)> {
    let mut out = Vec::new();
    for (ri, r) in c.schema.file.ranges.iter().enumerate() {
        if r.table.as_ref().is_none_or(|x| x.text != t.name.text) {
            continue;
        }
        for (e, rule) in [
            (&r.offset.expr, What::RecordOffset(ri)),
            (&r.length.expr, What::RecordLength(ri)),
        ] {
            if let (Some((_, l)), Expr::Ref(p)) = (
                crate::emit::nested_writer::leaf_of(c, e, Scope::RecordOnly(t)),
                e,
            ) {
                out.push((l, format!("{}[].{}", t.name.text, p.join(".")), rule));
            }
        }
        // A flag bit inside a struct-typed field that says the record carries the bytes.
        if let Some(w) = &r.when
            && let Expr::Ref(p) = &w.expr
            && let Ok(Resolved::Nested(Owner::Record, l)) = c.resolve(p, Scope::RecordOnly(t))
            && l.bit.is_some()
        {
            out.push((
                l,
                format!("{}[].{}", t.name.text, p.join(".")),
                What::RecordFlag(ri),
            ));
        }
    }
    out
}

/// The check that the records given match a `count` the schema fixes (a number or constant).
pub(crate) fn count_check(c: &Checked, t: &Table) -> TokenStream {
    let Some(n) = crate::check::table_writer::fixed_count(c, t) else {
        return quote!();
    };
    let n = Literal::u64_suffixed(n);
    let recs = crate::emit::when_writer::records(c, t);
    let item = t.name.text.as_str();
    quote! {
        if #recs.len() as u64 != #n {
            return Err(__rt::WriteError::WrongCount { table: #item, expected: #n, given: #recs.len() as u64 });
        }
    }
}

/// The code that sets a record's fields for its per-record range `r` (index `ri` into
/// `file.ranges`) of table `t`: when the record carries the bytes (`bytes`, placed at
/// `at`) and when not (`n`, the length recorded), over the record's bytes `rec`. Shared by
/// the plain writer's tables and another per-record range of a directory table
/// (`emit/file_writer.rs`).
pub(crate) fn range_sets(
    c: &Checked,
    t: &Table,
    ri: usize,
    r: &Range,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let Some(st) = c.strukt(&t.record.text) else {
        return (Vec::new(), Vec::new());
    };
    let Some(l) = c.layouts.get(&t.record.text) else {
        return (Vec::new(), Vec::new());
    };
    let rules = record_rules(c, t);
    let ri = &ri;
    let mut on_present = Vec::new();
    let mut on_absent = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let (off, kind) = l.fields[i];
        let o = Literal::usize_unsuffixed(usize::try_from(off).unwrap_or(0));
        let fname = &st.fields[i].name.text;
        let path = format!("{}[].{}", t.name.text, fname);
        let tob = crate::emit::to_bytes(st.fields[i].big);
        let Some(ity) = kind.int_ty(&c.schema) else {
            continue;
        };
        let ty = format_ident!("{}", ity.rust());
        match rule {
            Rule::Derived(What::RecordOffset(x), Part::Whole) if x == ri => {
                on_present.push(quote! {
                    let v = #ty::try_from(at).map_err(|_| __rt::WriteError::TooLarge { field: #path, value: at })?;
                    __rt::set(&mut rec, #o, v.#tob());
                });
            }
            Rule::Derived(What::RecordLength(x), Part::Whole) if x == ri => {
                on_present.push(quote! {
                    let v = #ty::try_from(bytes.len()).map_err(|_| __rt::WriteError::TooLarge { field: #path, value: bytes.len() as u64 })?;
                    __rt::set(&mut rec, #o, v.#tob());
                });
                on_absent.push(quote!(__rt::set(&mut rec, #o, n.#tob());));
            }
            // Solved for the field through a linear form (`emit/linform.rs`).
            Rule::Derived(What::RecordOffset(x), Part::Lin(f)) if x == ri => {
                let store = (off, ity, st.fields[i].big);
                on_present.push(crate::emit::linform::solved_store(
                    f,
                    &quote!(at),
                    store,
                    &path,
                    &quote!(rec),
                ))
            }
            Rule::Derived(What::RecordLength(x), Part::Lin(f)) if x == ri => {
                let store = (off, ity, st.fields[i].big);
                let s = crate::emit::linform::solved_store(
                    f,
                    &quote!(bytes.len() as u64),
                    store,
                    &path,
                    &quote!(rec),
                );
                on_present.push(quote!({ #s }));
                let s =
                    crate::emit::linform::solved_store(f, &quote!(n), store, &path, &quote!(rec));
                on_absent.push(quote!({ #s }));
            }
            _ => {}
        }
    }
    // The flag bit that says the record carries the bytes: set when it does, cleared when
    // not, over the field's value (the writer's, or the spec's when the flags type has
    // other bits: `check/writer.rs`'s `record_rules`).
    if let Some(w) = &r.when
        && let Expr::Ref(p) = &w.expr
        && let Ok(Resolved::FlagBit(_, fi, bi)) = c.resolve(p, Scope::RecordOnly(t))
        && let (Some(&(off, FieldKind::Flags(fl))), Some(f)) = (l.fields.get(fi), st.fields.get(fi))
        && let Some(flags) = c.schema.flags.get(fl)
        && let Some(bit) = flags.bits.get(bi)
    {
        let fty = format_ident!("{}", flags.name.text);
        let bit = format_ident!("{}", bit.name.text);
        let ty = format_ident!("{}", flags.repr.rust());
        let tob = crate::emit::to_bytes(f.big);
        let from = crate::emit::from_bytes(f.big);
        let o = Literal::usize_unsuffixed(usize::try_from(off).unwrap_or(0));
        let w = Literal::usize_unsuffixed(usize::try_from(flags.repr.bytes()).unwrap_or(0));
        // (The writer's own field starts at zero: nothing to clear.)
        let input = rules.get(fi).is_some_and(Rule::is_input);
        for (on, list) in [(true, &mut on_present), (false, &mut on_absent)] {
            if !on && !input {
                continue;
            }
            let v = if on {
                quote!(v | #fty::#bit.bits())
            } else {
                quote!(v & !#fty::#bit.bits())
            };
            list.push(quote! {
                let v = #ty::#from(rec.get(#o..).and_then(<[u8]>::first_chunk::<#w>).copied().unwrap_or_default());
                __rt::set(&mut rec, #o, (#v).#tob());
            });
        }
    }
    for (lf, path, rule) in record_leaf_rules(c, t) {
        match rule {
            What::RecordOffset(x) if x == *ri => {
                on_present.push(crate::emit::nested_writer::set_leaf(
                    c,
                    lf,
                    &quote!(at),
                    false,
                    &path,
                    &quote!(&mut rec),
                ))
            }
            What::RecordLength(x) if x == *ri => {
                on_present.push(crate::emit::nested_writer::set_leaf(
                    c,
                    lf,
                    &quote!(bytes.len() as u64),
                    false,
                    &path,
                    &quote!(&mut rec),
                ));
                on_absent.push(crate::emit::nested_writer::set_leaf(
                    c,
                    lf,
                    // `n` has the leaf's type when it is an integer (`spec_struct`).
                    &match c.leaf(lf).map(|x| x.2) {
                        Some(FieldKind::Int(IntTy::U64)) | None => quote!(n),
                        Some(FieldKind::Int(t)) if !t.signed() => quote!(u64::from(n)),
                        Some(FieldKind::Int(_)) => {
                            quote!(u64::try_from(n).unwrap_or(u64::MAX))
                        }
                        Some(_) => quote!(n),
                    },
                    false,
                    &path,
                    &quote!(&mut rec),
                ));
            }
            // The bit set when the record carries the bytes, cleared when not; the
            // other bits as its `<Struct>Value` gives them.
            What::RecordFlag(x) if x == *ri => {
                on_present.push(crate::emit::nested_writer::set_leaf_bit(
                    c,
                    lf,
                    true,
                    &quote!(rec),
                ));
                on_absent.push(crate::emit::nested_writer::set_leaf_bit(
                    c,
                    lf,
                    false,
                    &quote!(rec),
                ));
            }
            _ => {}
        }
    }
    (on_present, on_absent)
}

/// After a record of table `t` is complete in `rec` (its spec `spec`, its index `i`): the
/// check of each per-record range's `when` that is not one flag bit of the record (one
/// that is, the writer sets): evaluated on the record as written, it must hold exactly
/// when the spec gives the bytes (`WriteError::RecordWhenDisagrees`). Shared by the plain
/// writer's tables and the directory writer's other per-record ranges.
pub(crate) fn record_when_checks(
    c: &Checked,
    t: &Table,
    ranges: &[(usize, &Range)],
) -> TokenStream {
    let mut out = Vec::new();
    for (_, r) in ranges {
        let Some(w) = &r.when else { continue };
        if crate::check::writer::record_flag_when(c, t, w) {
            continue;
        }
        let en = format_ident!("{}{}", t.record.text, camel(&r.name.text));
        let present = variant(r.present.as_ref(), "Present");
        let rn = format_ident!("{}", r.name.text);
        let part = format!("{}[].{}", t.name.text, r.name.text);
        let ty = format_ident!("{}", t.record.text);
        let cond = crate::emit::Em {
            c,
            sites: &crate::emit::ModuleOut::default(),
        }
        .cond(
            &w.expr,
            Scope::RecordOnly(t),
            &crate::emit::Env {
                header: quote!(header),
                record: quote!(wrec),
                found: Vec::new(),
            },
        );
        out.push(quote! {
            {
                let wrec = #ty { raw: &rec, buf: &rec, index: u32::try_from(i).unwrap_or(u32::MAX) };
                let given = matches!(spec.#rn, #en::#present(_));
                if #cond != given {
                    return Err(__rt::WriteError::RecordWhenDisagrees { part: #part, index: i as u64, given });
                }
            }
        });
    }
    quote!(#(#out)*)
}

/// Code writing the table's records, and code writing its record ranges' bytes.
pub(crate) fn table_code(c: &Checked, t: &Table, align: u64) -> (TokenStream, TokenStream) {
    let file = &c.schema.file;
    let Some(st) = c.strukt(&t.record.text) else {
        return (quote!(), quote!());
    };
    let l = &c.layouts[&t.record.text];
    let rules = record_rules(c, t);
    let size = Literal::usize_unsuffixed(usize::try_from(l.size).unwrap_or(0));
    let size64 = Literal::u64_suffixed(l.size);
    let align = Literal::u64_suffixed(align);
    // (`self.<t>`, or an optional directory-writer table's records: `emit/when_writer.rs`.)
    let recs = crate::emit::when_writer::records(c, t);
    let at_var = format_ident!("{}_at", t.name.text);
    let rranges: Vec<(usize, &Range)> = file
        .ranges
        .iter()
        .enumerate()
        .filter(|(_, r)| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
        .collect();
    let cursors = rranges.iter().map(|(_, r)| {
        let cur = format_ident!("{}_cursor", r.name.text);
        let start = format_ident!("{}_start", r.name.text);
        quote!(let mut #cur = plan.#start;)
    });
    let cursors2 = cursors.clone();
    let mut per_range = Vec::new();
    let mut per_range_data = Vec::new();
    for (ri, r) in &rranges {
        let en = format_ident!("{}{}", t.record.text, camel(&r.name.text));
        let present = variant(r.present.as_ref(), "Present");
        let absent = variant(r.absent.as_ref(), "Absent");
        let rn = format_ident!("{}", r.name.text);
        let cur = format_ident!("{}_cursor", r.name.text);
        let item = format!("{}[].{}", t.name.text, r.name.text);
        let (on_present, on_absent) = range_sets(c, t, *ri, r);
        // An offset solved for a record field: the first place it can store (as `plan`).
        let at = crate::emit::linform::record_range_at(c, r, &quote!(#cur), &align, &item);
        per_range.push(quote! {
            match spec.#rn {
                #en::#present(bytes) => {
                    let at = #at;
                    #cur = at.saturating_add(bytes.len() as u64);
                    #(#on_present)*
                }
                #en::#absent(n) => { #(#on_absent)* let _ = n; }
            }
        });
        per_range_data.push(quote! {
            if let #en::#present(bytes) = spec.#rn {
                let at = #at;
                __rt::put(out, at, bytes)?;
                #cur = at.saturating_add(bytes.len() as u64);
            }
        });
    }
    // The inputs, written as every writer writes a record's (`record_writer.rs`).
    let mut inputs = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let (Some(&(off, kind)), Some(f)) = (l.fields.get(i), st.fields.get(i)) else {
            continue;
        };
        if rule.is_input() {
            let name = format_ident!("{}", f.name.text);
            inputs.push(crate::emit::record_writer::write_input(
                kind,
                off,
                None,
                f.big,
                &quote!(spec.#name),
            ));
        }
    }
    let when_checks = record_when_checks(c, t, &rranges);
    // The offsets of the records' strings (`strtab_writer.rs`).
    let (str_cursors, str_sets) = crate::emit::strtab_writer::record_offsets(c, t);
    let str_sets = str_sets.into_iter().map(|(_, s)| s);
    let records = quote! {
        {
            #(#cursors)*
            #str_cursors
            for (i, spec) in #recs.iter().enumerate() {
                let mut rec = [0u8; #size];
                #(#inputs)*
                #(#str_sets)*
                #(#per_range)*
                #when_checks
                __rt::put(out, plan.#at_var.saturating_add((i as u64).saturating_mul(#size64)), &rec)?;
            }
        }
    };
    let data = if per_range_data.is_empty() {
        quote!()
    } else {
        quote! {
            {
                #(#cursors2)*
                for spec in #recs { #(#per_range_data)* }
            }
        }
    };
    (records, data)
}
