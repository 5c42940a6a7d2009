//! The writer's optional parts (`check/optional_parts.rs`), emitted through hooks in
//! `emit/file_writer.rs`:
//!
//! - a file-level range with `when` is `Option<&'a [u8]>` in `<File>Spec`, a table whose
//!   `table_fits` has `when` is `Option<&'a [<Record>Spec]>`; left out, it has no place, no
//!   bytes, and its offset, length and count fields are zero. The header flag bits that are
//!   such conditions are set or cleared (`when_writer::range_bit_patches`,
//!   `table_bit_patches`), the other conditions checked on the header as written
//!   (`when_writer::checks`, `WriteError::WhenDisagrees`).
//! - a payload range with `when` is `Option<&'a [u8]>` in `<Record>Spec`; a section
//!   without one has no place and zero in its offset and length fields (`seal` gets `(type,
//!   0, 0)` for it). A record flag bit that is the condition is set or cleared from whether
//!   the payload is given; any other condition is evaluated on the record as written, and a
//!   disagreement is `WriteError::SectionWhenDisagrees` naming the table and the section.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::{Checked, FieldKind, Scope};
use crate::emit::{Em, Env, lit_usize};
use crate::lower::plan::DirPlan;
use crate::model::Placement;
use crate::schema::Table;
use crate::schema::top::Struct;

/// Schema text inside generated docs: square brackets escaped (not intra-doc links).
fn esc(s: &str) -> String {
    s.replace('[', "\\[").replace(']', "\\]")
}

fn ident(s: &str) -> proc_macro2::Ident {
    format_ident!("{}", s)
}

/// `bool` tokens: optional table `t` (an `Option` in `<File>Spec`) was given.
fn given(t: &Table) -> TokenStream {
    let n = ident(&t.name.text);
    quote!(self.#n.is_some())
}

/// Whether a directory's payloads are optional (its payload range has `when`).
pub(crate) fn optional_payload(x: &DirPlan<'_>) -> bool {
    x.range.when.is_some()
}

/// The type of a section's payload in `<Record>Spec`.
pub(crate) fn payload_ty(x: &DirPlan<'_>) -> TokenStream {
    if optional_payload(x) {
        quote!(Option<&'a [u8]>)
    } else {
        quote!(&'a [u8])
    }
}

/// What `<File>Spec`'s doc adds for file-level range `r` with `when` (nothing without).
pub(crate) fn range_doc(c: &Checked, r: &crate::schema::Range) -> String {
    let Some(w) = &r.when else {
        return String::new();
    };
    let how = if crate::check::when_writer::flag_bit(c, r).is_some() {
        "the writer sets its flag bit when it is given and clears it when not".to_string()
    } else {
        "`write_into` checks the condition on the header it writes (`WriteError::WhenDisagrees`)"
            .to_string()
    };
    format!(
        " Optional (`when: {}`): `None` leaves it out (no bytes, its offset and length fields zero); {how}.",
        esc(&w.text)
    )
}

/// What `<File>Spec`'s doc adds for table `t` when it is optional (nothing otherwise).
pub(crate) fn table_doc(c: &Checked, t: &Table) -> String {
    if !crate::check::optional_parts::optional_table(c, t) {
        return String::new();
    }
    let Some(w) = crate::check::when_writer::table_when(c, t) else {
        return String::new();
    };
    let how = if crate::check::when_writer::bit_of(c, w).is_some() {
        "the writer sets its flag bit when it is given and clears it when not"
    } else {
        "`write_into` checks the condition on the header it writes (`WriteError::WhenDisagrees`)"
    };
    format!(
        " Optional (`table_fits` `when: {}`): `None` leaves it out (no bytes, its place and count fields zero); {how}.",
        esc(&w.text)
    )
}

/// What `<Record>Spec`'s payload doc adds when payloads are optional (nothing otherwise).
pub(crate) fn payload_doc(c: &Checked, x: &DirPlan<'_>) -> String {
    let Some(w) = &x.range.when else {
        return String::new();
    };
    let how = if crate::check::optional_parts::payload_bit(c, x.table, x.range).is_some() {
        "the writer sets the record's flag bit when it is given and clears it when not"
    } else {
        "`write_into` checks the condition on the record it writes (`WriteError::SectionWhenDisagrees`)"
    };
    format!(
        " Optional (`when: {}`): `None` for a section without one (no bytes, its offset and length fields zero); {how}.",
        esc(&w.text)
    )
}

/// Where an item goes, as `u64` tokens ending in `?` (at the cursor, aligned, at its
/// constant place, which must not lie before the cursor, or at the end of the file: right
/// after what precedes it).
pub(crate) fn at_tokens(
    c: &Checked,
    placement: &Placement,
    name: &str,
    align: &Literal,
) -> TokenStream {
    match placement {
        Placement::Derived => {
            quote!(__rt::aligned(cursor, #align, #name)?)
        }
        Placement::Fixed(e) => {
            let val = crate::emit::value_tokens(c, e, Scope::Top);
            quote!(match #val { Some(a) if a >= cursor => a, _ => return Err(__rt::WriteError::Layout { item: #name }) })
        }
        // At the end of the file: right after what precedes it (`check/trailer.rs`).
        Placement::End => quote!(cursor),
    }
}

/// The plan step of an optional file-level range (`self.<n>`, bytes) placed as `v`.
pub(crate) fn range_plan(n: &str, v: &proc_macro2::Ident, at: &TokenStream) -> TokenStream {
    let f = ident(n);
    quote! {
        let #v: u64 = match self.#f {
            Some(bytes) => {
                let at: u64 = #at;
                cursor = __rt::after(at, u64::try_from(bytes.len()).ok(), #n)?;
                at
            }
            None => 0,
        };
    }
}

/// The plan step of an optional table `t` (records of `size` bytes) placed as `v`.
pub(crate) fn table_plan(
    c: &Checked,
    t: &Table,
    size: u64,
    v: &proc_macro2::Ident,
    at: &TokenStream,
) -> TokenStream {
    let f = ident(&t.name.text);
    let n = t.name.text.as_str();
    let s = Literal::u64_suffixed(size);
    let count_check = crate::emit::writer::count_check(c, t);
    quote! {
        let #v: u64 = match self.#f {
            Some(recs) => {
                #count_check
                let at: u64 = #at;
                cursor = __rt::after(at, u64::try_from(recs.len()).ok().and_then(|n| n.checked_mul(#s)), #n)?;
                at
            }
            None => 0,
        };
    }
}

/// The header's code, after its fields are written into `rec`: the flag bits of the
/// optional ranges and tables set when they are given, cleared when not.
pub(crate) fn header_bits(c: &Checked, hs: &Struct) -> Vec<TokenStream> {
    let Some(hl) = c.layouts.get(&hs.name.text) else {
        return Vec::new();
    };
    let mut patches = crate::emit::when_writer::range_bit_patches(c, hl);
    patches.extend(crate::emit::when_writer::table_bit_patches(c, hl, &given));
    let mut out = Vec::new();
    for (fi, f) in hs.fields.iter().enumerate() {
        let ps: Vec<&TokenStream> = patches
            .iter()
            .filter(|(i, _)| *i == fi)
            .map(|(_, p)| p)
            .collect();
        let Some(&(off, _)) = hl.fields.get(fi) else {
            continue;
        };
        if ps.is_empty() {
            continue;
        }
        let n = ident(&f.name.text);
        let o = lit_usize(off);
        let tob = crate::emit::to_bytes(f.big);
        out.push(quote! {
            {
                let bits = self.#n.bits();
                #(#ps)*
                __rt::set(&mut rec, #o, bits.#tob());
            }
        });
    }
    out
}

/// The checks of the optional parts' conditions on the header as written in `out` (empty
/// when there are none).
pub(crate) fn header_checks(c: &Checked, hs: &Struct) -> TokenStream {
    let checks = crate::emit::when_writer::checks(c, &given);
    if checks.is_empty() {
        return quote!();
    }
    let hty = ident(&hs.name.text);
    let size = lit_usize(c.layouts.get(&hs.name.text).map_or(0, |l| l.size));
    quote! {
        {
            let hb = __rt::chunk_at::<#size>(out, 0).copied().ok_or(__rt::WriteError::Layout { item: "header" })?;
            let header = #hty { raw: &hb, buf: &hb, index: 0 };
            let _ = &header;
            #(#checks)*
        }
    }
}

/// Idents of one directory, as `emit/file_writer.rs` names them.
pub(crate) struct Names<'x> {
    /// `<File>Spec`'s field of the records.
    pub(crate) secs: &'x proc_macro2::Ident,
    /// `<Record>Spec`'s field of the payload.
    pub(crate) pay: &'x proc_macro2::Ident,
    /// The payload placing function.
    pub(crate) place: &'x proc_macro2::Ident,
    /// The payload range's name.
    pub(crate) pname: &'x str,
}

/// The plan's loop over optional payloads: only those given take room.
pub(crate) fn payload_plan(n: &Names<'_>) -> TokenStream {
    let Names {
        secs,
        pay,
        place,
        pname,
    } = n;
    quote! {
        for s in self.#secs {
            let Some(p) = s.#pay else { continue };
            let at = Self::#place(cursor, s).ok_or(__rt::WriteError::TooLarge { field: #pname, value: cursor })?;
            cursor = __rt::after(at, u64::try_from(p.len()).ok(), #pname)?;
        }
    }
}

/// `seal`'s `(type, offset, size)` of each section when payloads are optional: `(type, 0,
/// 0)` for one without.
pub(crate) fn payload_placed(
    n: &Names<'_>,
    placed: &proc_macro2::Ident,
    start: &proc_macro2::Ident,
    type_raw: &TokenStream,
) -> TokenStream {
    let Names {
        secs, pay, place, ..
    } = n;
    quote! {
        let #placed = self.#secs.iter().scan(#start, |cursor, s| {
            let Some(p) = s.#pay else {
                return Some((#type_raw, 0, 0));
            };
            let at = Self::#place(*cursor, s)?;
            let n = u64::try_from(p.len()).ok()?;
            *cursor = at.checked_add(n)?;
            Some((#type_raw, at, n))
        });
    }
}

/// The loop writing each record and its payload when payloads are optional: `body` writes
/// the record's fields into `rec` (with `at` and `n` the payload's place and length, zero
/// without one), then the condition is set or checked (`record_when`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn payload_writes(
    c: &Checked,
    x: &DirPlan<'_>,
    entry: &Struct,
    n: &Names<'_>,
    start: &proc_macro2::Ident,
    esize: u64,
    table_var: &proc_macro2::Ident,
    body: &TokenStream,
) -> TokenStream {
    let Names {
        secs,
        pay,
        place,
        pname,
    } = n;
    let tname = x.table.name.text.as_str();
    let es_l = lit_usize(esize);
    let es64 = Literal::u64_suffixed(esize);
    let when = record_when(c, x, entry);
    quote! {
        let mut cursor: u64 = #start;
        for (i, s) in self.#secs.iter().enumerate() {
            let present = s.#pay.is_some();
            let (at, n) = match s.#pay {
                Some(p) => {
                    let at = Self::#place(cursor, s).ok_or(__rt::WriteError::TooLarge { field: #pname, value: cursor })?;
                    let n = u64::try_from(p.len()).map_err(|_| __rt::WriteError::TooLarge { field: #pname, value: u64::MAX })?;
                    (at, n)
                }
                None => (0, 0),
            };
            let mut rec: [u8; #es_l] = [0u8; #es_l];
            #body
            #when
            let rec_at = u64::try_from(i).ok().and_then(|i| i.checked_mul(#es64)).and_then(|x| x.checked_add(#table_var)).ok_or(__rt::WriteError::TooLarge { field: #tname, value: #table_var })?;
            __rt::put(out, rec_at, &rec)?;
            if let Some(p) = s.#pay {
                __rt::put(out, at, p)?;
                cursor = __rt::after(at, Some(n), #pname)?;
            }
        }
    }
}

/// After a record's fields are in `rec` (its spec `s`, its index `i`, `present` whether its
/// payload is given): its flag bit set or cleared, or its condition checked on it.
fn record_when(c: &Checked, x: &DirPlan<'_>, entry: &Struct) -> TokenStream {
    let Some(w) = &x.range.when else {
        return quote!();
    };
    let tname = x.table.name.text.as_str();
    if let Some((fi, bi)) = crate::check::optional_parts::payload_bit(c, x.table, x.range) {
        let (Some(f), Some(&(off, FieldKind::Flags(fl)))) = (
            entry.fields.get(fi),
            c.layouts
                .get(&entry.name.text)
                .and_then(|l| l.fields.get(fi)),
        ) else {
            return quote!();
        };
        let Some(flags) = c.schema.flags.get(fl) else {
            return quote!();
        };
        let Some(b) = flags.bits.get(bi) else {
            return quote!();
        };
        let fty = ident(&flags.name.text);
        let bit = ident(&b.name.text);
        let name = ident(&f.name.text);
        let o = lit_usize(off);
        let tob = crate::emit::to_bytes(f.big);
        return quote! {
            {
                let bits = s.#name.bits();
                let bits = if present { bits | #fty::#bit.bits() } else { bits & !#fty::#bit.bits() };
                __rt::set(&mut rec, #o, bits.#tob());
            }
        };
    }
    let ety = ident(&entry.name.text);
    let cond = Em {
        c,
        sites: &crate::emit::ModuleOut::default(),
    }
    .cond(
        &w.expr,
        Scope::RecordOnly(x.table),
        &Env {
            header: quote!(header),
            record: quote!(wrec),
            found: Vec::new(),
        },
    );
    quote! {
        {
            let wrec = #ety { raw: &rec, buf: &rec, index: u32::try_from(i).unwrap_or(u32::MAX) };
            let _ = &wrec;
            if #cond != present {
                return Err(__rt::WriteError::SectionWhenDisagrees { table: #tname, index: u64::try_from(i).unwrap_or(u64::MAX), given: present });
            }
        }
    }
}
