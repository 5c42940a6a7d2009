//! Writers for string tables (`strings.rs`): the strings the file's writer builds.
//!
//! - A *record's string* (`{ table: T, in: R, offset: f }` or without `in`): each record's
//!   `<Record>Spec` has the string as a field of the string's name (`&'a str` when a
//!   `string_utf8` step checks it, else `&'a [u8]`), and the record's offset field `f` is
//!   derived: where the writer put that record's string.
//! - A *string table*: a file-level range `R` that strings lie in (`in: R`) is built by the
//!   writer, not given: its bytes are its strings, in the order of `strings:` and, for a
//!   record's string, of the table's records, each with its NUL or after its length word,
//!   back to back from the range's start. The range is placed where `writer.order` names
//!   it; its `offset` and `length` header fields get its place and size. A file's string in
//!   `R` (its offset one header field) is one of them.
//! - A record's string without `in` (offsets from the file's start) is placed where
//!   `writer.order` names the string: every record's string, back to back.
//!
//! Plan fields: `<s>_at` (the offset the string, or the first record's string, gets) and
//! `<s>_place` (where offset 0 is), `<R>_at` and `<R>_len` for a built range.
//!
//! Hooks: `check/strings.rs` (`writable`), `emit/strings.rs` (the writes), `emit/writer.rs`
//! (the built ranges' plan and length, the specs' fields, the records' offset fields),
//! `emit/file_writer.rs` (a file's string), `check/top.rs` (`check`).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::{Checked, FieldKind};
use crate::schema::strings::StringDef;
use crate::schema::{Range, Table};

/// The bytes a string takes besides its own: its NUL, or its length word.
fn extra(s: &StringDef) -> Literal {
    Literal::u64_suffixed(s.prefix.map_or(1, |(t, _)| t.bytes()))
}

/// `bytes` tokens of record string `s` of `spec`.
fn spec_bytes(c: &Checked, s: &StringDef, spec: &TokenStream) -> TokenStream {
    let n = format_ident!("{}", s.name.text);
    if crate::check::strtab_writer::utf8_checked(&c.schema.file.validate, &s.name.text) {
        quote!(#spec.#n.as_bytes())
    } else {
        quote!(#spec.#n)
    }
}

/// The spec fields of table `t`'s record strings.
pub(crate) fn spec_fields(c: &Checked, t: &Table) -> Vec<TokenStream> {
    crate::check::strtab_writer::record_strings(c, t)
        .into_iter()
        .map(|(s, _)| {
            let n = format_ident!("{}", s.name.text);
            let what = match s.prefix {
                Some((p, _)) => format!("written after its `{}` length", p.rust()),
                None => "written with a NUL after it (it must hold none)".to_string(),
            };
            let doc = format!(
                " String `{}` of the record, {what}; the record's offset field gets its place.",
                s.name.text
            );
            if crate::check::strtab_writer::utf8_checked(&c.schema.file.validate, &s.name.text) {
                quote!(#[doc = #doc] pub #n: &'a str,)
            } else {
                quote!(#[doc = #doc] pub #n: &'a [u8],)
            }
        })
        .collect()
}

/// For table `t`'s records: the cursors set before the records are written, and per
/// offset field (index) the code setting it in `rec` from the record `spec` and moving the
/// cursor on (the plan checked the sums, so the cursor saturates, never wraps).
pub(crate) fn record_offsets(c: &Checked, t: &Table) -> (TokenStream, Vec<(usize, TokenStream)>) {
    let Some(st) = c.strukt(&t.record.text) else {
        return (quote!(), Vec::new());
    };
    let Some(l) = c.layouts.get(&t.record.text) else {
        return (quote!(), Vec::new());
    };
    let mut inits = Vec::new();
    let mut sets = Vec::new();
    for (s, i) in crate::check::strtab_writer::record_strings(c, t) {
        let (Some(f), Some(&(off, FieldKind::Int(ity)))) = (st.fields.get(i), l.fields.get(i))
        else {
            continue;
        };
        let cur = format_ident!("{}_cursor", s.name.text);
        let at = format_ident!("{}_at", s.name.text);
        let ty = format_ident!("{}", ity.rust());
        let tob = crate::emit::to_bytes(f.big);
        let o = Literal::usize_unsuffixed(usize::try_from(off).unwrap_or(usize::MAX));
        let path = format!("{}[].{}", t.name.text, f.name.text);
        // `len()` of a `&str` is its bytes'.
        let n = format_ident!("{}", s.name.text);
        let ex = extra(s);
        inits.push(quote!(let mut #cur: u64 = plan.#at;));
        sets.push((
            i,
            quote! {
                let v = #ty::try_from(#cur).map_err(|_| __rt::WriteError::TooLarge { field: #path, value: #cur })?;
                __rt::set(&mut rec, #o, v.#tob());
                #cur = #cur.saturating_add((spec.#n.len() as u64).saturating_add(#ex));
            },
        ));
    }
    (quote!(#(#inits)*), sets)
}

/// Advance `rel` over the strings of `s` (checked: `TooLarge` for the string's name).
fn advance(c: &Checked, s: &StringDef, rel: &proc_macro2::Ident) -> TokenStream {
    let name = s.name.text.as_str();
    let ex = extra(s);
    match s.table.as_ref().and_then(|t| c.table(&t.text)) {
        Some(t) => {
            // (`self.<t>`, or an optional directory-writer table's: `emit/when_writer.rs`.)
            let tn = crate::emit::when_writer::records(c, t);
            let n = format_ident!("{}", s.name.text);
            quote! {
                for spec in #tn {
                    #rel = (spec.#n.len() as u64).checked_add(#ex).and_then(|n| n.checked_add(#rel))
                        .ok_or(__rt::WriteError::TooLarge { field: #name, value: #rel })?;
                }
            }
        }
        None => {
            let n = format_ident!("{}", s.name.text);
            quote! {
                #rel = (self.#n.len() as u64).checked_add(#ex).and_then(|n| n.checked_add(#rel))
                    .ok_or(__rt::WriteError::TooLarge { field: #name, value: #rel })?;
            }
        }
    }
}

/// The plan of `writer.order` item `item` when it is a built range or a record's string
/// without a range: its plan fields, their inits, and the step placing it.
pub(crate) fn plan_step(
    c: &Checked,
    item: &str,
    align: &Literal,
) -> Option<(Vec<TokenStream>, Vec<TokenStream>, TokenStream)> {
    let file = &c.schema.file;
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut step = Vec::new();
    let rel = format_ident!("rel");
    if let Some(r) = file.ranges.iter().find(|r| {
        r.name.text == item && r.table.is_none() && crate::check::strtab_writer::is_built(c, item)
    }) {
        let at = format_ident!("{}_at", r.name.text);
        let len = format_ident!("{}_len", r.name.text);
        step.push(quote! {
            let #at = __rt::aligned(cursor, #align, #item)?;
            let mut #rel: u64 = 0;
        });
        for s in in_range(c, r) {
            let sat = format_ident!("{}_at", s.name.text);
            let place = format_ident!("{}_place", s.name.text);
            let adv = advance(c, s, &rel);
            step.push(quote! {
                let #sat = #rel;
                let #place = #at;
                #adv
            });
            fields.push(quote!(#sat: u64, #place: u64,));
            inits.push(quote!(#sat, #place,));
        }
        step.push(quote! {
            let #len = #rel;
            cursor = #at.checked_add(#rel).ok_or(__rt::WriteError::TooLarge { field: #item, value: #at })?;
        });
        fields.push(quote!(#at: u64, #len: u64,));
        inits.push(quote!(#at, #len,));
    } else if let Some(s) = file.strings.iter().find(|s| {
        s.name.text == item
            && s.range.is_none()
            && s.table.is_some()
            && crate::check::strtab_writer::record_offset_field(c, s).is_ok()
    }) {
        let sat = format_ident!("{}_at", s.name.text);
        let place = format_ident!("{}_place", s.name.text);
        let adv = advance(c, s, &rel);
        step.push(quote! {
            let #sat = __rt::aligned(cursor, #align, #item)?;
            let #place: u64 = 0;
            let mut #rel: u64 = #sat;
            #adv
            cursor = #rel;
        });
        fields.push(quote!(#sat: u64, #place: u64,));
        inits.push(quote!(#sat, #place,));
    } else {
        return None;
    }
    Some((fields, inits, quote!(#(#step)*)))
}

/// The strings of built range `r` the writer writes, in `strings:` order.
fn in_range<'c>(c: &'c Checked, r: &Range) -> Vec<&'c StringDef> {
    c.schema
        .file
        .strings
        .iter()
        .filter(|s| s.range.as_ref().is_some_and(|x| x.text == r.name.text))
        .filter(|s| match &s.table {
            Some(_) => crate::check::strtab_writer::record_offset_field(c, s).is_ok(),
            None => crate::check::strings::writable(c, s).is_ok(),
        })
        .collect()
}

/// Tokens writing one string `bytes` at `at` (a `u64`): its length word first, or checked
/// to hold no NUL (the NUL after it is the zero the buffer was filled with).
fn write_one(s: &StringDef, bytes: &TokenStream, at: &TokenStream) -> TokenStream {
    let item = s.name.text.as_str();
    match s.prefix {
        Some((t, _)) => {
            let ty = format_ident!("{}", t.rust());
            let w = Literal::u64_suffixed(t.bytes());
            let tob = crate::emit::to_bytes(s.big.unwrap_or(false));
            quote! {
                let bytes: &[u8] = #bytes;
                let at: u64 = #at;
                let n = bytes.len() as u64;
                let word = #ty::try_from(n).map_err(|_| __rt::WriteError::TooLarge { field: #item, value: n })?;
                __rt::put(out, at, &word.#tob())?;
                __rt::put(out, at.checked_add(#w).ok_or(__rt::WriteError::Layout { item: #item })?, bytes)?;
            }
        }
        None => quote! {
            let bytes: &[u8] = #bytes;
            if bytes.contains(&0) {
                return Err(__rt::WriteError::Layout { item: #item });
            }
            __rt::put(out, #at, bytes)?;
        },
    }
}

/// Tokens writing the file's string `s` (the spec's field of its name) at `at`, a `u64`
/// variable: for a directory writer (`dir_writer.rs`).
pub(crate) fn write_string(c: &Checked, s: &StringDef, at: &proc_macro2::Ident) -> TokenStream {
    let n = format_ident!("{}", s.name.text);
    let bytes = if crate::check::strtab_writer::utf8_checked(&c.schema.file.validate, &s.name.text)
    {
        quote!(self.#n.as_bytes())
    } else {
        quote!(self.#n)
    };
    let one = write_one(s, &bytes, &quote!(#at));
    quote!({ #one })
}

/// `write_into`'s code writing each record's string and each string in a string table, from
/// `<File>Spec` (a file string is `&str` there when a `string_utf8` step checks it).
pub(crate) fn writes_for(c: &Checked) -> Vec<TokenStream> {
    let file = &c.schema.file;
    let mut out = Vec::new();
    if file.writer.is_none() {
        return out;
    }
    for s in &file.strings {
        let item = s.name.text.as_str();
        let sat = format_ident!("{}_at", s.name.text);
        let place = format_ident!("{}_place", s.name.text);
        match (&s.table, &s.range) {
            (Some(t), _) if crate::check::strtab_writer::record_offset_field(c, s).is_ok() => {
                let Some(t) = c.table(&t.text) else { continue };
                let tn = crate::emit::when_writer::records(c, t);
                let bytes = spec_bytes(c, s, &quote!(spec));
                let ex = extra(s);
                let one = write_one(
                    s,
                    &bytes,
                    &quote!(plan.#place.checked_add(cur).ok_or(__rt::WriteError::Layout { item: #item })?),
                );
                out.push(quote! {
                    {
                        let mut cur: u64 = plan.#sat;
                        for spec in #tn {
                            #one
                            cur = cur.saturating_add((bytes.len() as u64).saturating_add(#ex));
                        }
                    }
                });
            }
            (None, Some(_)) if crate::check::strings::writable(c, s).is_ok() => {
                let bytes = spec_bytes(c, s, &quote!(self));
                let one = write_one(
                    s,
                    &bytes,
                    &quote!(plan.#place.checked_add(plan.#sat).ok_or(__rt::WriteError::Layout { item: #item })?),
                );
                out.push(quote!({ #one }));
            }
            _ => {}
        }
    }
    out
}
