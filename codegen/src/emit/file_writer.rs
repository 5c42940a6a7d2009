//! The one writer emitter: every file (or variant) with a `writer` block, with section
//! directories or without (a plan with no `dirs`). The layout is the one the schema implies:
//! the header at 0, then the
//! items of `writer.order` (located records, the directory table, the payloads, other
//! file-level ranges and strings, other tables and their per-record ranges, a stream's
//! range, a string table, records' strings) in that order, each at the writer's `align`;
//! the payloads in directory order, each also at the alignment its record's
//! `payload_align` field gives (0 and 1: none). Other tables, their per-record ranges and
//! the strings are written by `emit/writer.rs::table_code` and `emit/strtab_writer.rs`,
//! which read their places from `<File>Plan`; a stream's records
//! by its `<Stream>Writer`; a version-gated record in its gate's layout. As for every writer,
//! what the validation rules fix is derived (a field that must equal a constant or `len`,
//! a record's or table's place, a count, a stride, a payload's offset and length, the
//! directory checksums); every other field is an input. What the writer cannot derive (a
//! place that is neither one field nor a constant, a table or range it does not lay out) is
//! refused by [`crate::lower::writer::check`] with a diagnostic that says so.
//!
//! Emitted (per file or variant): `<File>Spec<'a>` (the inputs and `&'a [<Record>Spec<'a>]`;
//! `<File>Spec` when it borrows nothing, values alone), `new`, `encoded_len`, `write_into`, `seal` (the checksums of bytes laid out as a directory
//! says, computed in place) and one function per payload checksum; for a file without a
//! directory, the typestate builder `<File>Writer` over the spec (`typestate.rs`).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::writer_rules::range_kind;
use crate::check::writer_rules::{field_kind, targets};
use crate::check::{Checked, FieldKind, Owner, Scope};
use crate::emit::lit_usize;
use crate::emit::record_writer::{gate_value, write_fields};
use crate::emit::typestate::{Set, SpecField};
use crate::lower::writer::analyse;
use crate::model::{Item, RangeKind, Rule};
use crate::schema::IntTy;
use crate::schema::ext::{DirChecksum, DirChecksumKind, Directory};
use crate::schema::top::Struct;

// ----- emission ----------------------------------------------------------------------------

/// Schema prose inside generated docs: square brackets escaped (not intra-doc links).
fn esc(s: &str) -> String {
    s.replace('[', "\\[").replace(']', "\\]")
}

fn ident(s: &str) -> proc_macro2::Ident {
    format_ident!("{}", s)
}

/// Whether a stream's record spec (its header's fields) holds a float (no `Eq`).
fn stream_has_floats(c: &Checked, header: &str) -> bool {
    c.strukt(header).is_some_and(|st| {
        st.fields.iter().enumerate().any(|(i, _)| {
            field_kind(c, st, i).is_some_and(|k| crate::emit::nested_writer::value_has_floats(c, k))
        })
    })
}

/// The `<File>Spec` field of a file's string `s` (`&'a str` when a `string_utf8` step
/// checks it), placed `where_`.
fn str_field(c: &Checked, s: &crate::schema::strings::StringDef, where_: &str) -> SpecField {
    let n = ident(&s.name.text);
    let what = match s.prefix {
        Some((t, _)) => format!("written after its `{}` length", t.rust()),
        None => "written with a NUL after it (it must hold none)".to_string(),
    };
    let doc = format!(
        " String `{}`, {where_}, {what}: {}",
        s.name.text,
        esc(&crate::emit::doc::flow(&s.doc))
    );
    if crate::check::strtab_writer::utf8_checked(&c.schema.file.validate, &s.name.text) {
        SpecField::value(n, quote!(&'a str), quote!(""), doc)
    } else {
        SpecField::value(n, quote!(&'a [u8]), quote!(&[]), doc)
    }
}

/// Input fields of `st` as spec struct fields named by `name`.
fn spec_fields(
    c: &Checked,
    st: &Struct,
    rules: &[Rule],
    name: &dyn Fn(&str) -> String,
) -> (Vec<SpecField>, bool) {
    let Some(l) = c.layouts.get(&st.name.text) else {
        return (Vec::new(), false);
    };
    let mut out = Vec::new();
    let mut floats = false;
    for (i, f) in st.fields.iter().enumerate() {
        if !matches!(rules.get(i), Some(Rule::Input)) {
            continue;
        }
        let Some(&(_, kind)) = l.fields.get(i) else {
            continue;
        };
        floats |= crate::emit::nested_writer::value_has_floats(c, kind);
        let (ty, default) = crate::emit::writer::field_type(c, kind);
        let n = name(&f.name.text);
        let first = esc(&crate::emit::doc::flow(&f.doc));
        let doc = if first.is_empty() {
            format!(" `{}.{}`.", st.name.text, f.name.text)
        } else {
            format!(" `{}.{}`: {first}", st.name.text, f.name.text)
        };
        out.push(SpecField::value(ident(&n), ty, default, doc));
    }
    (out, floats)
}

/// The u64 value of unsigned field `name` of a `[u8; N]` record `rec` of struct `sname`.
fn read_field(c: &Checked, sname: &str, name: &str, rec: &TokenStream) -> TokenStream {
    let Some((i, off, kind)) = crate::check::ext::field_of(c, sname, name) else {
        return quote!(0u64);
    };
    let Some(ity) = kind.int_ty(&c.schema) else {
        return quote!(0u64);
    };
    let big = c
        .strukt(sname)
        .and_then(|s| s.fields.get(i))
        .is_some_and(|f| f.big);
    let from = crate::emit::from_bytes(big);
    let ty = ident(ity.rust());
    let o = lit_usize(off);
    let w = lit_usize(ity.bytes());
    quote!(#rec.get(#o..).and_then(<[u8]>::first_chunk::<#w>).map_or(0u64, |b| u64::from(#ty::#from(*b))))
}

/// Code recomputing a records checksum in `out` over the placed `sections`.
fn records_sum(c: &Checked, dir: &Directory, k: &DirChecksum) -> TokenStream {
    let DirChecksumKind::Records {
        records,
        target,
        stored,
    } = &k.kind
    else {
        return quote!();
    };
    let file = &c.schema.file;
    let Some((_, layout)) = crate::check::ext::collection_of(file, &records.text) else {
        return quote!();
    };
    let Some(v) = crate::check::ext::type_value(c, dir, &layout.value.text) else {
        return quote!();
    };
    let rname = layout.record.text.as_str();
    let size = c.layouts.get(rname).map_or(0, |l| l.size);
    let (rs, rs64) = (lit_usize(size), Literal::u64_suffixed(size));
    let v = Literal::u64_suffixed(v);
    let tval = read_field(c, rname, &target.text, &quote!(rec));
    let Some((si, soff, skind)) = crate::check::ext::field_of(c, rname, &stored.text) else {
        return quote!();
    };
    let sbig = c
        .strukt(rname)
        .and_then(|s| s.fields.get(si))
        .is_some_and(|f| f.big);
    let sval = match skind.int_ty(&c.schema) {
        Some(IntTy::U64) => quote!(u64::from(sum)),
        _ => quote!(sum),
    };
    let tob = crate::emit::to_bytes(sbig);
    let soff = Literal::u64_suffixed(soff);
    let sum = k.algorithm.core_fn(&quote!(p));
    quote! {
        for (t, off, size) in sections.clone() {
            if t != #v {
                continue;
            }
            let n = __rt::range_at(out, off, size).map_or(0, |p| p.len() / #rs);
            for j in 0..n {
                let Some(at) = u64::try_from(j).ok().and_then(|j| j.checked_mul(#rs64)).and_then(|x| x.checked_add(off)) else {
                    continue;
                };
                let Some(rec) = __rt::chunk_at::<#rs>(out, at).copied() else {
                    continue;
                };
                let target: u64 = #tval;
                let mut hits = sections.clone().filter(|x| x.0 == target);
                let (Some((_, po, ps)), None) = (hits.next(), hits.next()) else {
                    continue;
                };
                let Some(p) = __rt::range_at(out, po, ps) else {
                    continue;
                };
                let sum = #sum;
                __rt::put(out, at.saturating_add(#soff), &#sval.#tob())?;
            }
        }
    }
}

/// The function computing a payload checksum, and the `seal` code storing it.
fn payload_sum(c: &Checked, dir: &Directory, k: &DirChecksum) -> (TokenStream, TokenStream) {
    let DirChecksumKind::Payloads { zero, stored } = &k.kind else {
        return (quote!(), quote!());
    };
    let file = &c.schema.file;
    let zeroed = crate::emit::sections::zeroed_table(c, dir, zero);
    let nz = lit_usize(u64::try_from(zeroed.len()).unwrap_or(u64::MAX));
    let name = ident(&k.name.text);
    let doc = format!(
        " `{}`: the {:?} over the payloads of `sections` (type, offset, size), in that order, each as `buf` holds it (one not inside `buf` is skipped){}. {}",
        k.name.text,
        k.algorithm,
        if zero.is_empty() {
            String::new()
        } else {
            format!(
                ", with {} hashed as zero",
                zero.iter()
                    .map(|(a, b)| format!("`{}.{}`", a.text, b.text))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        esc(&crate::emit::doc::flow(&k.doc))
    );
    let func = quote! {
        #[doc = #doc]
        #[must_use]
        pub fn #name<I>(buf: &[u8], sections: I) -> u32
        where
            I: Iterator<Item = (u64, u64, u64)>,
        {
            const ZEROED: [__rt::ZeroedFields; #nz] = [#(#zeroed),*];
            let readable = sections.filter(|&(_, off, size)| __rt::range_at(buf, off, size).is_some());
            // Every payload readable and no section checked on its own: it cannot fail.
            __rt::crc32_payloads(buf, readable, &ZEROED, |_| None).unwrap_or(0)
        }
    };
    let Some((Owner::Header, f)) = targets(c, &stored.expr, Scope::Top) else {
        return (func, quote!());
    };
    let Some(&(i, _)) = f.first() else {
        return (func, quote!());
    };
    let Some(h) = c.header() else {
        return (func, quote!());
    };
    let Some(&(off, kind)) = c.layouts.get(&h.name.text).and_then(|l| l.fields.get(i)) else {
        return (func, quote!());
    };
    let hval = match kind.int_ty(&c.schema) {
        Some(IntTy::U64) => quote!(u64::from(sum)),
        _ => quote!(sum),
    };
    let tob = crate::emit::to_bytes(h.fields.get(i).is_some_and(|f| f.big));
    let off = Literal::u64_suffixed(off);
    let _ = file;
    let store = quote! {
        let sum = Self::#name(out, sections.clone());
        __rt::put(out, #off, &#hval.#tob())?;
    };
    (func, store)
}

/// `seal`'s code computing a top-level checksum over the bytes `out` holds, its span read
/// from the header as written, and storing it (after the directory's checksums).
fn top_sum(c: &Checked, k: &crate::schema::Checksum) -> TokenStream {
    let (Ok(i), Some(h)) = (
        crate::check::writer_rules::top_checksum_field(c, k),
        c.header(),
    ) else {
        return quote!();
    };
    let Some((hsize, off, kind)) = c
        .layouts
        .get(&h.name.text)
        .and_then(|l| l.fields.get(i).map(|f| (l.size, f.0, f.1)))
    else {
        return quote!();
    };
    let Some(ity) = kind.int_ty(&c.schema) else {
        return quote!();
    };
    let hty = ident(&h.name.text);
    let hs = lit_usize(hsize);
    let big = h.fields.get(i).is_some_and(|f| f.big);
    let item = k.name.text.as_str();
    let store = crate::emit::record_writer::checksum_store(c, k, (off, ity, big), item);
    // The located records its span reads (`located_span.rs`).
    let located = crate::emit::located_span::bind(c, k);
    quote! {
        {
            let Some(hb) = __rt::chunk_at::<#hs>(out, 0).copied() else {
                return Err(__rt::WriteError::Layout { item: #item });
            };
            let header = #hty { raw: &hb, buf: &hb, index: 0 };
            let _ = &header;
            let len = u64::try_from(out.len()).unwrap_or(u64::MAX);
            let _ = len;
            #located
            #store
        }
    }
}

/// The directory writer of one file layout (empty when it has none).
fn file_tokens(c: &Checked) -> TokenStream {
    let Ok(Some(plan)) = analyse(c) else {
        return quote!();
    };
    let file = &c.schema.file;
    let Some(hs) = c.header() else {
        return quote!();
    };
    let mut ds = Vec::new();
    for x in &plan.dirs {
        let Some(entry) = c.strukt(&x.table.record.text) else {
            return quote!();
        };
        ds.push(Dir {
            entry,
            esize: c.layouts.get(&entry.name.text).map_or(0, |l| l.size),
            espec: format_ident!("{}Spec", entry.name.text),
            secs: ident(&x.table.name.text),
            pay: ident(&x.range.name.text),
            // One directory: `place` (and `seal`'s `sections`); more: one of each per table.
            place: if plan.dirs.len() == 1 {
                format_ident!("place")
            } else {
                format_ident!("place_{}", x.table.name.text)
            },
            sections: if plan.dirs.len() == 1 {
                format_ident!("sections")
            } else {
                format_ident!("{}_sections", x.table.name.text)
            },
        });
    }
    let dirs: Vec<(proc_macro2::Ident, u64)> =
        ds.iter().map(|d| (d.secs.clone(), d.esize)).collect();
    let hsize = c.layouts.get(&hs.name.text).map_or(0, |l| l.size);
    let spec = format_ident!("{}Spec", file.name.text);
    let align = Literal::u64_suffixed(plan.w.align);

    // ---- spec structs
    let (hfields, hfl) = spec_fields(c, hs, &plan.header, &|n| n.to_string());
    let mut file_fields = hfields;
    let mut floats = hfl;
    for (k, r) in file.ext.records.iter().enumerate() {
        let (Some(st), Some(rules)) = (c.strukt(&r.strukt.text), plan.records.get(k)) else {
            continue;
        };
        let rn = r.name.text.clone();
        let (f, fl) = spec_fields(c, st, rules, &|n| format!("{rn}_{n}"));
        file_fields.extend(f);
        floats |= fl;
    }
    // The other file-level ranges it places, as bytes, a stream's records or the strings
    // of a string table; the other tables' records.
    let mut spec_items = Vec::new();
    for (it, _) in &plan.items {
        if let Item::Range(k) = it
            && let Some(r) = file.ranges.get(*k)
        {
            match range_kind(c, *k) {
                RangeKind::Bytes => {
                    let n = ident(&r.name.text);
                    let doc = format!(
                        " Range `{}`, placed where `writer.order` names it: {}",
                        r.name.text,
                        esc(&crate::emit::doc::flow(&r.doc))
                    );
                    // With `when`: optional (`optional_parts.rs`); else one the builder needs.
                    let doc = doc + &crate::emit::optional_parts::range_doc(c, r);
                    file_fields.push(match &r.when {
                        Some(_) => SpecField::given(n, quote!(&'a [u8]), doc),
                        None => SpecField {
                            set: Set::Required,
                            ..SpecField::value(n, quote!(&'a [u8]), quote!(&[]), doc)
                        },
                    });
                }
                RangeKind::Stream(si) => {
                    let Some(st) = file.streams.get(si) else {
                        continue;
                    };
                    let n = ident(&st.name.text);
                    let sspec = format_ident!("{}Spec", crate::names::camel(&st.name.text));
                    let doc = format!(
                        " The records of stream `{}`, written by its writer into range `{}`, placed where `writer.order` names it: {}",
                        st.name.text,
                        r.name.text,
                        esc(&crate::emit::doc::flow(&r.doc))
                    );
                    floats |= stream_has_floats(c, &st.header.text);
                    file_fields.push(SpecField::value(
                        n,
                        quote!(&'a [#sspec<'a>]),
                        quote!(&[]),
                        doc,
                    ));
                }
                RangeKind::Built => {
                    for s in file.strings.iter().filter(|s| {
                        s.table.is_none() && s.range.as_ref().is_some_and(|x| x.text == r.name.text)
                    }) {
                        file_fields.push(str_field(
                            c,
                            s,
                            &format!("in string table `{}`", r.name.text),
                        ));
                    }
                }
            }
        }
        if let Item::OtherTable(k) = it
            && let Some(t) = file.tables.get(*k)
        {
            let n = ident(&t.name.text);
            let ty = crate::emit::writer::spec_ty(c, t);
            let doc = format!(
                " The records of table `{}`, placed where `writer.order` names it.",
                t.name.text
            );
            floats |= c.strukt(&t.record.text).is_some_and(|st| {
                st.fields.iter().enumerate().any(|(i, _)| {
                    field_kind(c, st, i)
                        .is_some_and(|k| crate::emit::nested_writer::value_has_floats(c, k))
                })
            });
            // `table_fits` with `when`: optional (`optional_parts.rs`).
            let doc = doc + &crate::emit::optional_parts::table_doc(c, t);
            file_fields.push(if crate::check::optional_parts::optional_table(c, t) {
                SpecField::given(n, quote!(&'a [#ty]), doc)
            } else {
                SpecField::value(n, quote!(&'a [#ty]), quote!(&[]), doc)
            });
            spec_items.push(crate::emit::writer::spec_struct(c, t));
        }
        if let Item::Str(k) = it
            && let Some(s) = file.strings.get(*k)
        {
            file_fields.push(str_field(c, s, "placed where `writer.order` names it"));
        }
    }
    // Each directory's `<Record>Spec`, and its field in `<File>Spec`.
    let mut entry_specs = Vec::new();
    let mut dir_fields = Vec::new();
    let mut any_efl = false;
    for (x, d) in plan.dirs.iter().zip(&ds) {
        let (efields, efl) = spec_fields(c, d.entry, &x.entry, &|n| n.to_string());
        let mut efields: Vec<TokenStream> = efields.iter().map(SpecField::decl).collect();
        // The records' strings in a string table: one field each (`strtab_writer.rs`).
        efields.extend(crate::emit::strtab_writer::spec_fields(c, x.table));
        // Its other per-record ranges: a field each, and the enums they take.
        let (rfields, renums) = crate::emit::record_ranges::spec(c, x);
        efields.extend(rfields);
        spec_items.extend(renums);
        any_efl |= efl;
        let eq_entry = if efl { quote!() } else { quote!(, Eq) };
        let sdoc = format!(
            " `{}`, for the writer: its payload and the fields the writer does not derive.",
            x.table.name.text
        );
        let pdoc = match crate::emit::doc::flow(&x.range.doc).as_str() {
            d if !d.is_empty() => {
                format!(" The payload (`{}`): {}", x.range.name.text, esc(d))
            }
            _ => format!(" The payload (`{}`).", x.range.name.text),
        } + &crate::emit::optional_parts::payload_doc(c, x);
        let secs_doc = format!(
            " The records of `{}` with their payloads, in order.",
            x.table.name.text
        );
        let (espec, pay, secs) = (&d.espec, &d.pay, &d.secs);
        // With `when`: optional per section (`optional_parts.rs`).
        let pty = crate::emit::optional_parts::payload_ty(x);
        entry_specs.push(quote! {
            #[doc = #sdoc]
            #[derive(Clone, Copy, Debug, PartialEq #eq_entry)]
            pub struct #espec<'a> {
                #(#efields)*
                #[doc = #pdoc]
                pub #pay: #pty,
            }
        });
        dir_fields.push(SpecField::value(
            secs.clone(),
            quote!(&'a [#espec<'a>]),
            quote!(&[]),
            secs_doc,
        ));
    }
    let eq_file = if floats || any_efl {
        quote!()
    } else {
        quote!(, Eq)
    };
    let fdoc = if plan.dirs.is_empty() {
        format!(
            " A {} file to write: the fields the writer does not derive. The header, then the items of `writer.order` ({}) in that order, each at a multiple of {} unless the schema places it, every derived field and checksum computed. `{}Writer` is a typestate builder over the same fields.",
            file.name.text,
            plan.w
                .order
                .iter()
                .map(|o| format!("`{}`", o.text))
                .collect::<Vec<_>>()
                .join(", "),
            plan.w.align,
            file.name.text
        )
    } else {
        format!(
            " A {} file to write: the fields the writer does not derive, and the sections in directory (and file) order. The header, {}, {} laid out in that order{}, every derived field and the directory checksums computed.",
            file.name.text,
            if file.ext.records.is_empty() {
                "no located record".to_string()
            } else {
                file.ext
                    .records
                    .iter()
                    .map(|r| format!("`{}`", r.name.text))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            if plan.dirs.len() == 1 {
                "the directory and the payloads are".to_string()
            } else {
                format!(
                    "then for each directory ({}) its table and its payloads, are",
                    plan.dirs
                        .iter()
                        .map(|x| format!("`{}`", x.table.name.text))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
            match &plan.w.payload_align {
                Some(p) => format!(
                    ", each payload at a multiple of its `{}` (0 and 1: none)",
                    p.text
                ),
                None => String::new(),
            }
        )
    };

    // ---- placement
    let place_vars: Vec<(Item, proc_macro2::Ident)> = plan
        .items
        .iter()
        .enumerate()
        .map(|(i, (it, _))| (*it, format_ident!("__p{}", i)))
        .collect();
    let pv: Vec<&proc_macro2::Ident> = place_vars.iter().map(|(_, v)| v).collect();
    let nitems = plan.items.len();
    let mut plan_steps = Vec::new();
    // What the table and string-table code (`writer.rs`, `strtab_writer.rs`) reads from the plan
    // (`<table>_at`, `<range>_start`, `<string>_at`, ...), in `<File>Plan`.
    let mut extra_fields: Vec<TokenStream> = Vec::new();
    let mut extra_inits: Vec<TokenStream> = Vec::new();
    for (i, (it, placement)) in plan.items.iter().enumerate() {
        let v = &pv[i];
        let (name, size) = match it {
            Item::Record(k) => {
                let r = file.ext.records.get(*k);
                let size = r
                    .and_then(|r| c.layouts.get(&r.strukt.text))
                    .map_or(0, |l| l.size);
                let s = Literal::u64_suffixed(size);
                let size = match (gate_value(c, &plan.gates, &plan.computed_gates, *k), r) {
                    // A version-gated record: the size of its gate's layout.
                    (Some(g), Some(r)) => {
                        let ty = ident(&r.strukt.text);
                        quote!(Some(#ty::size_for(#g)))
                    }
                    _ => quote!(Some(#s)),
                };
                (r.map_or(String::new(), |r| r.name.text.clone()), size)
            }
            Item::Table(d) => {
                let (Some(x), Some(dd)) = (plan.dirs.get(*d), ds.get(*d)) else {
                    continue;
                };
                let s = Literal::u64_suffixed(dd.esize);
                let secs = &dd.secs;
                (
                    x.table.name.text.clone(),
                    quote!(u64::try_from(self.#secs.len()).ok().and_then(|n| n.checked_mul(#s))),
                )
            }
            Item::Str(k) => {
                let s = file.strings.get(*k);
                let n = ident(s.map_or("missing", |s| s.name.text.as_str()));
                let extra =
                    Literal::u64_suffixed(s.and_then(|s| s.prefix).map_or(1, |(t, _)| t.bytes()));
                (
                    s.map_or(String::new(), |s| s.name.text.clone()),
                    quote!(u64::try_from(self.#n.len()).ok().and_then(|n| n.checked_add(#extra))),
                )
            }
            Item::Range(k) => {
                let r = file.ranges.get(*k);
                let rn = r.map_or("missing", |r| r.name.text.as_str());
                let n = ident(rn);
                match range_kind(c, *k) {
                    RangeKind::Bytes if r.is_some_and(|r| r.when.is_some()) => {
                        let at = crate::emit::optional_parts::at_tokens(c, placement, rn, &align);
                        let at = crate::emit::linform::item_place(&plan, *it, at, rn);
                        plan_steps.push(crate::emit::optional_parts::range_plan(rn, v, &at));
                        continue;
                    }
                    RangeKind::Bytes => {
                        // A constant length: the bytes given must have it (`emit/trailer.rs`).
                        if let Some(r) = r {
                            plan_steps.push(crate::emit::trailer::length_check(c, r));
                        }
                        (rn.to_string(), quote!(u64::try_from(self.#n.len()).ok()))
                    }
                    RangeKind::Stream(si) => {
                        // The stream's writer says how many bytes its records take.
                        let Some(st) = file.streams.get(si) else {
                            continue;
                        };
                        let sn = ident(&st.name.text);
                        let sw = format_ident!("{}Writer", crate::names::camel(&st.name.text));
                        let len = format_ident!("{}_len", rn);
                        plan_steps.push(quote! {
                            let #len: u64 = u64::try_from(#sw::new(self.#sn).encoded_len()?).map_err(|_| __rt::WriteError::TooLarge { field: #rn, value: u64::MAX })?;
                        });
                        // In `<File>Plan` when a field stores it.
                        if length_stored(&plan, *k) {
                            extra_fields.push(quote!(#len: u64,));
                            extra_inits.push(quote!(#len,));
                        }
                        (rn.to_string(), quote!(Some(#len)))
                    }
                    RangeKind::Built => {
                        // A string table: built and placed (`strtab_writer.rs`).
                        let Some((f, init, step)) =
                            crate::emit::strtab_writer::plan_step(c, rn, &align)
                        else {
                            continue;
                        };
                        let at = format_ident!("{}_at", rn);
                        plan_steps.push(quote!(#step let #v: u64 = #at;));
                        extra_fields.extend(f);
                        extra_inits.extend(init);
                        continue;
                    }
                }
            }
            Item::RecordStr(k) => {
                // Every record's string, back to back (`strtab_writer.rs`).
                let sn = file
                    .strings
                    .get(*k)
                    .map_or("missing", |s| s.name.text.as_str());
                let Some((f, init, step)) = crate::emit::strtab_writer::plan_step(c, sn, &align)
                else {
                    continue;
                };
                let at = format_ident!("{}_at", sn);
                plan_steps.push(quote!(#step let #v: u64 = #at;));
                extra_fields.extend(f);
                extra_inits.extend(init);
                continue;
            }
            Item::RecordRange(k) => {
                // The bytes of the records that carry them, each aligned, as for the plain
                // writer (`emit/writer.rs`).
                let Some(r) = file.ranges.get(*k) else {
                    continue;
                };
                let Some(t) = r.table.as_ref().and_then(|t| c.table(&t.text)) else {
                    continue;
                };
                let item_name = r.name.text.as_str();
                let start = format_ident!("{}_start", r.name.text);
                // (`self.<t>`, or an optional table's records: `emit/when_writer.rs`.)
                let tn = crate::emit::when_writer::records(c, t);
                let rn = ident(&r.name.text);
                let en = format_ident!("{}{}", t.record.text, crate::names::camel(&r.name.text));
                let present = crate::emit::writer::variant(r.present.as_ref(), "Present");
                // An offset solved for a record field: the first place it can store.
                let at =
                    crate::emit::linform::record_range_at(c, r, &quote!(cursor), &align, item_name);
                plan_steps.push(quote! {
                    let #v: u64 = cursor;
                    let #start: u64 = cursor;
                    for spec in #tn {
                        if let #en::#present(bytes) = spec.#rn {
                            let at = #at;
                            cursor = __rt::after(at, Some(bytes.len() as u64), #item_name)?;
                        }
                    }
                });
                extra_fields.push(quote!(#start: u64,));
                extra_inits.push(quote!(#start,));
                continue;
            }
            Item::OtherTable(k) => {
                let t = file.tables.get(*k);
                let tn = t.map_or("missing", |t| t.name.text.as_str());
                let n = ident(tn);
                let size = t
                    .and_then(|t| c.layouts.get(&t.record.text))
                    .map_or(0, |l| l.size);
                let s = Literal::u64_suffixed(size);
                let at = format_ident!("{}_at", tn);
                extra_fields.push(quote!(#at: u64,));
                extra_inits.push(quote!(#at: #v,));
                if let Some(t) = t.filter(|t| crate::check::optional_parts::optional_table(c, t)) {
                    let at = crate::emit::optional_parts::at_tokens(c, placement, tn, &align);
                    let at = crate::emit::linform::item_place(&plan, *it, at, tn);
                    plan_steps.push(crate::emit::optional_parts::table_plan(c, t, size, v, &at));
                    continue;
                }
                if let Some(t) = t {
                    plan_steps.push(crate::emit::writer::count_check(c, t));
                    // At `len - E`, E a constant its records must fill (`emit/trailer.rs`).
                    if let Some(e) = crate::check::trailer::table_end(c, t) {
                        plan_steps.push(crate::emit::trailer::table_check(c, t, &e));
                    }
                }
                (
                    tn.to_string(),
                    quote!(u64::try_from(self.#n.len()).ok().and_then(|n| n.checked_mul(#s))),
                )
            }
            Item::Payload(d) => {
                let (Some(x), Some(dd)) = (plan.dirs.get(*d), ds.get(*d)) else {
                    continue;
                };
                let pname = x.range.name.text.clone();
                let (secs, pay, place) = (&dd.secs, &dd.pay, &dd.place);
                if crate::emit::optional_parts::optional_payload(x) {
                    let names = crate::emit::optional_parts::Names {
                        secs,
                        pay,
                        place,
                        pname: &pname,
                    };
                    let lp = crate::emit::optional_parts::payload_plan(&names);
                    plan_steps.push(quote!(let #v = cursor; #lp));
                    continue;
                }
                plan_steps.push(quote! {
                    let #v = cursor;
                    for s in self.#secs {
                        let at = Self::#place(cursor, s).ok_or(__rt::WriteError::TooLarge { field: #pname, value: cursor })?;
                        cursor = __rt::after(at, u64::try_from(s.#pay.len()).ok(), #pname)?;
                    }
                });
                continue;
            }
        };
        let at = crate::emit::optional_parts::at_tokens(c, placement, &name, &align);
        // Stored as a linear form of one field: where the form can store (`linform.rs`).
        let at = crate::emit::linform::item_place(&plan, *it, at, &name);
        // (One statement: the place, and the cursor moved past the item.)
        plan_steps.push(quote! {
            let #v: u64 = {
                let at: u64 = #at;
                cursor = __rt::after(at, #size, #name)?;
                at
            };
        });
        // A place computed from `end(<record>)`: the record's place and gate, bound as the
        // validator's code names them (`<record>_at`, `<record>`).
        if let Item::Record(k) = it
            && end_is_read(c, &name)
        {
            let at_var = format_ident!("{}_at", name);
            let var = ident(&name);
            let gate = match gate_value(c, &plan.gates, &plan.computed_gates, *k) {
                Some(g) => quote!(let #var = __rt::Gate(#g);),
                None => quote!(),
            };
            plan_steps.push(quote!(let #at_var: u64 = #v; #gate));
        }
    }

    // ---- writes
    let hpath = "header".to_string();
    let header_writes = write_fields(
        c,
        hs,
        &plan.header,
        &|n| {
            let n = ident(n);
            quote!(self.#n)
        },
        &place_vars,
        &dirs,
        &hpath,
        None,
    );
    // The fields inside struct-typed header fields that the plan derives, over the values
    // given (`nested_writer.rs`).
    let mut header_writes = header_writes;
    for (l, p, rule) in &plan.leaves {
        if let (Some((ity, big)), Rule::Derived(what, part)) =
            (crate::emit::nested_writer::leaf_store(c, *l), rule)
        {
            let o = lit_usize(l.at);
            header_writes.push(crate::emit::record_writer::write_derived(
                c,
                (what, part),
                (&quote!(#o), ity, big),
                p,
                &place_vars,
                &dirs,
            ));
        }
    }
    let hs_l = lit_usize(hsize);
    // The optional parts' header flag bits, and their other conditions (`optional_parts.rs`).
    let header_bits = crate::emit::optional_parts::header_bits(c, hs);
    let header_checks = crate::emit::optional_parts::header_checks(c, hs);
    let mut record_writes = Vec::new();
    for (k, r) in file.ext.records.iter().enumerate() {
        let (Some(st), Some(rules)) = (c.strukt(&r.strukt.text), plan.records.get(k)) else {
            continue;
        };
        let writes = crate::emit::record_writer::located_field_writes(
            c,
            st,
            rules,
            r,
            &place_vars,
            &dirs,
            gate_value(c, &plan.gates, &plan.computed_gates, k).is_some(),
        );
        let size = lit_usize(c.layouts.get(&st.name.text).map_or(0, |l| l.size));
        let Some((_, v)) = place_vars.iter().find(|(x, _)| *x == Item::Record(k)) else {
            continue;
        };
        match gate_value(c, &plan.gates, &plan.computed_gates, k) {
            // The layout of its gate: its fields there, its size `size_for(gate)` (the
            // buffer holds every field).
            Some(g) => {
                let ty = ident(&st.name.text);
                let item = r.name.text.as_str();
                record_writes.push(quote! {
                    {
                        let gate: u64 = #g;
                        let mut rec: [u8; #size] = [0u8; #size];
                        #(#writes)*
                        let n: usize = usize::try_from(#ty::size_for(gate)).unwrap_or(usize::MAX);
                        __rt::put(out, #v, rec.get(..n).ok_or(__rt::WriteError::Layout { item: #item })?)?;
                    }
                });
            }
            None => record_writes.push(quote! {
                {
                    let mut rec: [u8; #size] = [0u8; #size];
                    #(#writes)*
                    __rt::put(out, #v, &rec)?;
                }
            }),
        }
    }
    for (it, v) in &place_vars {
        if let Item::Range(k) = it
            && let Some(r) = file.ranges.get(*k)
        {
            let n = ident(&r.name.text);
            match range_kind(c, *k) {
                RangeKind::Bytes if r.when.is_some() => record_writes
                    .push(quote!(if let Some(bytes) = self.#n { __rt::put(out, #v, bytes)?; })),
                RangeKind::Bytes => record_writes.push(quote!(__rt::put(out, #v, self.#n)?;)),
                RangeKind::Stream(si) => {
                    if let Some(st) = file.streams.get(si) {
                        let sn = ident(&st.name.text);
                        let sw = format_ident!("{}Writer", crate::names::camel(&st.name.text));
                        let item = r.name.text.as_str();
                        record_writes.push(quote! {
                            {
                                let dst = usize::try_from(#v).ok().and_then(|a| out.get_mut(a..)).ok_or(__rt::WriteError::Layout { item: #item })?;
                                #sw::new(self.#sn).write_into(dst)?;
                            }
                        });
                    }
                }
                // Written with the other strings (`strtab_writer::writes_for`).
                RangeKind::Built => {}
            }
        }
        if let Item::OtherTable(k) = it
            && let Some(t) = file.tables.get(*k)
        {
            // The records, and the bytes of their per-record ranges (`writer.rs`'s `table_code`,
            // writes them (from `plan.<table>_at`, `plan.<range>_start`).
            let (recs, data) = crate::emit::writer::table_code(c, t, plan.w.align);
            record_writes.push(recs);
            record_writes.push(data);
        }
        if let Item::Str(k) = it
            && let Some(s) = file.strings.get(*k)
        {
            record_writes.push(crate::emit::strtab_writer::write_string(c, s, v));
        }
    }
    // Each record's string and each string in a string table.
    record_writes.extend(crate::emit::strtab_writer::writes_for(c));

    // ---- per directory: its records and payloads, where its sections are, its checksums
    let mut dir_writes = Vec::new();
    let mut placed_lets = Vec::new();
    let mut placed_vars = Vec::new();
    let mut place_fns = Vec::new();
    let mut seal_records = Vec::new();
    let mut seal_payloads = Vec::new();
    let mut sum_fns = Vec::new();
    let mut seal_params = Vec::new();
    let mut seal_generics = Vec::new();
    for (di, (x, d)) in plan.dirs.iter().zip(&ds).enumerate() {
        let epath = format!("{}[]", x.table.name.text);
        let entry_writes = write_fields(
            c,
            d.entry,
            &x.entry,
            &|n| {
                let n = ident(n);
                quote!(s.#n)
            },
            &place_vars,
            &dirs,
            &epath,
            None,
        );
        let es_l = lit_usize(d.esize);
        let es64 = Literal::u64_suffixed(d.esize);
        let table_var = place_vars
            .iter()
            .find(|(it, _)| *it == Item::Table(di))
            .map_or_else(|| format_ident!("__p0"), |(_, v)| v.clone());
        let pay_var = place_vars
            .iter()
            .find(|(it, _)| *it == Item::Payload(di))
            .map_or_else(|| format_ident!("__p0"), |(_, v)| v.clone());
        let pname = x.range.name.text.as_str();
        let tname = x.table.name.text.as_str();
        let (secs, pay, place, espec) = (&d.secs, &d.pay, &d.place, &d.espec);
        // The raw type of a section spec, as u64.
        let t = ident(&x.dir.type_field.text);
        let type_raw = match d
            .entry
            .fields
            .iter()
            .position(|f| f.name.text == x.dir.type_field.text)
            .and_then(|i| field_kind(c, d.entry, i))
        {
            Some(FieldKind::Enum(_)) => quote!(u64::from(s.#t.raw())),
            _ => quote!(u64::from(s.#t)),
        };
        let place_body = match x.align_field.and_then(|i| d.entry.fields.get(i)) {
            Some(f) => {
                let a = ident(&f.name.text);
                quote! {
                    let at = __rt::align_up(cursor, #align)?;
                    match u64::from(s.#a) {
                        0 => Some(at),
                        a => at.checked_next_multiple_of(a),
                    }
                }
            }
            None => quote! {
                let _ = s;
                __rt::align_up(cursor, #align)
            },
        };
        let place_doc = if plan.dirs.len() == 1 {
            " Where the payload of `s` goes when the cursor is at `cursor`.".to_string()
        } else {
            format!(" Where the payload of `s` (of `{tname}`) goes when the cursor is at `cursor`.")
        };
        // A payload offset stored as a linear form: where it can store (`linform.rs`).
        let place_body = crate::emit::linform::payload_place(x, place_body);
        place_fns.push(quote! {
            #[doc = #place_doc]
            fn #place(cursor: u64, s: &#espec<'_>) -> Option<u64> {
                #place_body
            }
        });
        // The offsets of the records' strings in their string table, as another table's are set
        // table's (`strtab_writer::record_offsets`, reading the record's spec as `spec`).
        let (str_cursors, str_sets) = crate::emit::strtab_writer::record_offsets(c, x.table);
        let str_sets: Vec<TokenStream> = str_sets.into_iter().map(|(_, t)| t).collect();
        let str_sets = if str_sets.is_empty() {
            quote!()
        } else {
            quote!({ let spec = s; #(#str_sets)* })
        };
        let (range_cursors, range_writes) = crate::emit::record_ranges::writes(c, x, plan.w.align);
        let names = crate::emit::optional_parts::Names {
            secs,
            pay,
            place,
            pname,
        };
        if crate::emit::optional_parts::optional_payload(x) {
            // Optional payloads (`optional_parts.rs`); the other per-record ranges as below.
            let body = quote!(#(#entry_writes)* #str_sets #range_writes);
            let lp = crate::emit::optional_parts::payload_writes(
                c, x, d.entry, &names, &pay_var, d.esize, &table_var, &body,
            );
            dir_writes.push(quote!(#str_cursors #range_cursors #lp));
        } else {
            dir_writes.push(quote! {
            let mut cursor: u64 = #pay_var;
            #str_cursors
            #range_cursors
            for (i, s) in self.#secs.iter().enumerate() {
                let at = Self::#place(cursor, s).ok_or(__rt::WriteError::TooLarge { field: #pname, value: cursor })?;
                let n = u64::try_from(s.#pay.len()).map_err(|_| __rt::WriteError::TooLarge { field: #pname, value: u64::MAX })?;
                let mut rec: [u8; #es_l] = [0u8; #es_l];
                #(#entry_writes)*
                #str_sets
                #range_writes
                let rec_at = u64::try_from(i).ok().and_then(|i| i.checked_mul(#es64)).and_then(|x| x.checked_add(#table_var)).ok_or(__rt::WriteError::TooLarge { field: #tname, value: #table_var })?;
                __rt::put(out, rec_at, &rec)?;
                __rt::put(out, at, s.#pay)?;
                cursor = __rt::after(at, Some(n), #pname)?;
            }
        });
        }
        let placed = if plan.dirs.len() == 1 {
            format_ident!("placed")
        } else {
            format_ident!("placed_{}", x.table.name.text)
        };
        if crate::emit::optional_parts::optional_payload(x) {
            placed_lets.push(crate::emit::optional_parts::payload_placed(
                &names, &placed, &pay_var, &type_raw,
            ));
        } else {
            placed_lets.push(quote! {
                let #placed = self.#secs.iter().scan(#pay_var, |cursor, s| {
                    let at = Self::#place(*cursor, s)?;
                    let n = u64::try_from(s.#pay.len()).ok()?;
                    *cursor = at.checked_add(n)?;
                    Some((#type_raw, at, n))
                });
            });
        }
        placed_vars.push(placed);
        // The checksums: one directory's read `sections`; with more, each directory's
        // code reads its own (`<table>_sections`), bound to `sections` around it.
        let mut recs = Vec::new();
        let mut pays = Vec::new();
        for k in &x.dir.checksums {
            match &k.kind {
                DirChecksumKind::Records { .. } => recs.push(records_sum(c, x.dir, k)),
                DirChecksumKind::Payloads { .. } => {
                    let (f, s) = payload_sum(c, x.dir, k);
                    sum_fns.push(f);
                    pays.push(s);
                }
            }
        }
        let sections = &d.sections;
        if plan.dirs.len() == 1 {
            seal_records.extend(recs);
            seal_payloads.extend(pays);
        } else {
            if !recs.is_empty() {
                seal_records.push(quote!({ let sections = #sections.clone(); #(#recs)* }));
            }
            if !pays.is_empty() {
                seal_payloads.push(quote!({ let sections = #sections.clone(); #(#pays)* }));
            }
        }
        let gi = if plan.dirs.len() == 1 {
            format_ident!("I")
        } else {
            format_ident!("I{}", di)
        };
        seal_params.push(quote!(#sections: #gi));
        seal_generics.push(gi);
    }
    let dir_checksums: Vec<&crate::schema::ext::DirChecksum> =
        plan.dirs.iter().flat_map(|x| &x.dir.checksums).collect();
    let seal_doc = if plan.dirs.is_empty() {
        format!(
            " Compute, in place, the checksums of `{}` bytes: {}. For bytes edited after `write_into`.",
            file.name.text,
            checksum_list(&dir_checksums, file)
        )
    } else if plan.dirs.len() == 1 {
        format!(
            " Compute, in place, the checksums of `{}` bytes laid out as `sections` (each section's type, payload offset and payload size, in directory order) says: {}. Reads defensively: a payload or record not inside `out` is skipped.",
            file.name.text,
            checksum_list(&dir_checksums, file)
        )
    } else {
        format!(
            " Compute, in place, the checksums of `{}` bytes laid out as {} say (each directory's sections: type, payload offset and payload size, in directory order): {}. Reads defensively: a payload or record not inside `out` is skipped.",
            file.name.text,
            ds.iter()
                .map(|d| format!("`{}`", d.sections))
                .collect::<Vec<_>>()
                .join(", "),
            checksum_list(&dir_checksums, file)
        )
    };
    let seal_top: Vec<TokenStream> = file.checksums.iter().map(|k| top_sum(c, k)).collect();
    let fname = file.name.text.as_str();
    let seal_unused: Vec<&proc_macro2::Ident> = ds.iter().map(|d| &d.sections).collect();

    // With tables, streams or strings that `table_code` and `strtab_writer.rs` write, the plan also
    // carries what that code reads (`plan.<name>`).
    let plan_ty = format_ident!("{}Plan", file.name.text);
    let (plan_ret, plan_extra, plan_skip, plan_bind, plan_struct) = if extra_fields.is_empty() {
        (
            quote!((u64, [u64; #nitems])),
            quote!(),
            quote!(),
            quote!(),
            quote!(),
        )
    } else {
        (
            quote!((u64, [u64; #nitems], #plan_ty)),
            quote!(, #plan_ty { #(#extra_inits)* }),
            quote!(, _),
            quote!(, plan),
            quote! {
                /// Where the writer puts the tables, streams and strings it places.
                #[derive(Clone, Copy, Debug)]
                struct #plan_ty { #(#extra_fields)* }
            },
        )
    };
    // A long body is cut into helper methods (`split.rs`); these are in scope before it.
    let splitter = crate::emit::split::Splitter::writer("write_into");
    let mut env = vec![
        crate::emit::split::Binding::typed("self", quote!(Self)),
        crate::emit::split::Binding::typed("total", quote!(u64)),
        crate::emit::split::Binding::typed("places", quote!([u64; #nitems])),
    ];
    env.extend(
        pv.iter()
            .map(|v| crate::emit::split::Binding::typed(&v.to_string(), quote!(u64))),
    );
    if !extra_fields.is_empty() {
        env.push(crate::emit::split::Binding::typed("plan", quote!(#plan_ty)));
    }
    env.push(crate::emit::split::Binding::typed("out", quote!(&mut [u8])));
    env.push(crate::emit::split::Binding::typed("len", quote!(u64)));
    let write_body = splitter.split(
        quote! {
            {
                let mut rec: [u8; #hs_l] = [0u8; #hs_l];
                #(#header_writes)*
                #(#header_bits)*
                __rt::put(out, 0, &rec)?;
            }
            #header_checks
            #(#record_writes)*
            #(#dir_writes)*
            #(#placed_lets)*
            Self::seal(out, #(#placed_vars),*)?;
            Ok(out.len())
        },
        &env,
    );
    let write_helpers = splitter.take_helpers();
    let plan_splitter = crate::emit::split::Splitter::writer("plan");
    // (A header alone: nothing after it moves the cursor.)
    let cursor_mut = (!plan_steps.is_empty()).then(|| quote!(mut));
    let plan_body = plan_splitter.split(
        quote! {
            let #cursor_mut cursor: u64 = #hsize;
            #(#plan_steps)*
            Ok((cursor, [#(#pv),*] #plan_extra))
        },
        &[crate::emit::split::Binding::typed("self", quote!(Self))],
    );
    let plan_helpers = plan_splitter.take_helpers();
    // The spec's fields, `new()`, and (a file without a directory) the typestate builder
    // over them (`typestate.rs`).
    file_fields.extend(dir_fields);
    let decls: Vec<TokenStream> = file_fields.iter().map(SpecField::decl).collect();
    let spec_new = crate::emit::typestate::spec_new(&spec, &file_fields);
    let spec_a = crate::emit::typestate::spec_lifetime(&file_fields, quote!('a));
    let spec_any = crate::emit::typestate::spec_lifetime(&file_fields, quote!('_));
    let builder = if crate::check::writer::has_builder(c) {
        crate::emit::typestate::builder(fname, &spec, &file_fields)
    } else {
        quote!()
    };
    quote! {
        #plan_struct
        #(#spec_items)*
        #(#entry_specs)*
        #[doc = #fdoc]
        #[derive(Clone, Copy, Debug, PartialEq #eq_file)]
        pub struct #spec #spec_a {
            #(#decls)*
        }
        #spec_new
        #builder
        impl #spec #spec_any {
            #(#place_fns)*
            /// The file's size and the place of each item of the writer's order.
            fn plan(&self) -> Result<#plan_ret, __rt::WriteError> {
                #plan_body
            }
            #(#plan_helpers)*
            /// How many bytes the file needs.
            ///
            /// # Errors
            /// When a size or place does not fit the fields that must hold it.
            pub fn encoded_len(&self) -> Result<usize, __rt::WriteError> {
                let (total, _ #plan_skip) = self.plan()?;
                usize::try_from(total).map_err(|_| __rt::WriteError::TooLarge { field: #fname, value: total })
            }
            /// Write the file into `out` (every gap zero); returns the bytes written
            /// (`encoded_len`).
            ///
            /// # Errors
            /// When `out` is too small or a value does not fit its field.
            pub fn write_into(&self, out: &mut [u8]) -> Result<usize, __rt::WriteError> {
                let (total, places #plan_bind): #plan_ret = self.plan()?;
                let [#(#pv),*]: [u64; #nitems] = places;
                let available = u64::try_from(out.len()).unwrap_or(u64::MAX);
                let Some(out): Option<&mut [u8]> = usize::try_from(total).ok().and_then(|n| out.get_mut(..n)) else {
                    return Err(__rt::WriteError::BufferTooSmall { needed: total, available });
                };
                out.fill(0);
                let len: u64 = total;
                let _ = len;
                #write_body
            }
            #(#write_helpers)*
            #[doc = #seal_doc]
            ///
            /// # Errors
            /// When a stored checksum's field is not inside `out`.
            pub fn seal<#(#seal_generics),*>(out: &mut [u8], #(#seal_params),*) -> Result<(), __rt::WriteError>
            where
                #(#seal_generics: Iterator<Item = (u64, u64, u64)> + Clone,)*
            {
                #(#seal_records)*
                #(#seal_payloads)*
                #(#seal_top)*
                let _ = (out, #(#seal_unused),*);
                Ok(())
            }
            #(#sum_fns)*
            // `to_vec()` when `npuschema-core` has its `alloc` feature; nothing otherwise.
            __rt::writer_alloc_methods!();
        }
    }
}

/// The checksums `seal` computes, in order: the directories', then the file's (over the
/// bytes as the others left them).
fn checksum_list(
    dir: &[&crate::schema::ext::DirChecksum],
    file: &crate::schema::top::File,
) -> String {
    if dir.is_empty() && file.checksums.is_empty() {
        "there are none".to_string()
    } else {
        dir.iter()
            .map(|k| format!("`{}`", k.name.text))
            .chain(file.checksums.iter().map(|k| format!("`{}`", k.name.text)))
            .collect::<Vec<_>>()
            .join(", then ")
    }
}

/// Whether a place, count or length the writer computes reads `end(<name>)`.
fn end_is_read(c: &Checked, name: &str) -> bool {
    fn reads(e: &crate::expr::Expr, name: &str) -> bool {
        use crate::expr::Expr;
        match e {
            Expr::Call(f, args) => {
                (f == "end"
                    && matches!(args.as_slice(), [Expr::Ref(p)] if p.len() == 1 && p[0] == name))
                    || args.iter().any(|a| reads(a, name))
            }
            Expr::Bin(_, a, b) => reads(a, name) || reads(b, name),
            Expr::Not(a) => reads(a, name),
            Expr::At(_, i, _) | Expr::Key(_, i) => reads(i, name),
            Expr::Num(_) | Expr::Ref(_) => false,
        }
    }
    let file = &c.schema.file;
    file.tables
        .iter()
        .any(|t| reads(&t.at.expr, name) || reads(&t.count.expr, name))
        || file.ranges.iter().any(|r| {
            r.table.is_none() && (reads(&r.offset.expr, name) || reads(&r.length.expr, name))
        })
        || file.ext.records.iter().any(|r| reads(&r.at.expr, name))
}

/// Whether a field the plan derives stores the length of range `k`.
fn length_stored(plan: &crate::lower::plan::Plan<'_>, k: usize) -> bool {
    let is = |r: &Rule| matches!(r.what(), Some(crate::model::What::RangeLength(x)) if *x == k);
    plan.header.iter().any(is)
        || plan.records.iter().flatten().any(is)
        || plan.leaves.iter().any(|(_, _, r)| is(r))
        || plan.dirs.iter().flat_map(|x| &x.entry).any(is)
}

/// One directory of a directory writer, as the emitter names it.
struct Dir<'x> {
    entry: &'x Struct,
    esize: u64,
    /// `<Record>Spec`.
    espec: proc_macro2::Ident,
    /// `<File>Spec`'s field of its records (the table's name).
    secs: proc_macro2::Ident,
    /// `<Record>Spec`'s field of the payload (the payload range's name).
    pay: proc_macro2::Ident,
    /// The function placing a payload (`place`, or `place_<table>` with more directories).
    place: proc_macro2::Ident,
    /// `seal`'s parameter (`sections`, or `<table>_sections`).
    sections: proc_macro2::Ident,
}

/// The directory writers of a schema: its file's, or each variant's.
pub(crate) fn tokens(c: &Checked) -> TokenStream {
    if c.variants.is_empty() {
        file_tokens(c)
    } else {
        let all = c.variants.iter().map(file_tokens);
        quote!(#(#all)*)
    }
}
