//! Another per-record range of a directory table (besides its payloads: a section's
//! relocations, its line table), in the writer: each section's `<Entry>Spec`
//! takes its bytes as the plain writer's tables take a per-record range's (`Present(bytes)`
//! or `Absent(len)`); the bytes of the sections that carry them are placed back to back,
//! each at the writer's `align`, where `writer.order` names the range (the plan's step is
//! `emit/file_writer.rs`'s `Item::RecordRange`), and each record's offset, length and flag
//! fields are set with them (`emit/writer.rs`'s `range_sets`, shared with the plain
//! writer); a `when` that is not one flag bit is checked on the record as written
//! (`record_when_checks`). Planned by `lower/writer.rs` (`extra_ranges`).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::Checked;
use crate::lower::plan::DirPlan;
use crate::lower::writer::extra_ranges;

/// The directory's `<Entry>Spec` fields for its other per-record ranges, and the enums
/// they take.
pub(crate) fn spec(c: &Checked, x: &DirPlan<'_>) -> (Vec<TokenStream>, Vec<TokenStream>) {
    extra_ranges(c, x)
        .into_iter()
        .map(|(_, r)| crate::emit::writer::range_spec(c, x.table, r))
        .unzip()
}

/// `write_into`'s code for the directory's other per-record ranges: the cursors set before
/// its records are written (from `plan.<range>_start`), and the code run for each record
/// (its spec `s`, its bytes `rec`) that writes the range's bytes and sets the record's
/// fields.
pub(crate) fn writes(c: &Checked, x: &DirPlan<'_>, align: u64) -> (TokenStream, TokenStream) {
    let t = x.table;
    let align = Literal::u64_suffixed(align);
    let mut cursors = Vec::new();
    let mut per_record = Vec::new();
    for (ri, r) in extra_ranges(c, x) {
        let cur = format_ident!("{}_cursor", r.name.text);
        let start = format_ident!("{}_start", r.name.text);
        let en = format_ident!("{}{}", t.record.text, crate::names::camel(&r.name.text));
        let present = crate::emit::writer::variant(r.present.as_ref(), "Present");
        let absent = crate::emit::writer::variant(r.absent.as_ref(), "Absent");
        let rn = format_ident!("{}", r.name.text);
        let item = format!("{}[].{}", t.name.text, r.name.text);
        let (on_present, on_absent) = crate::emit::writer::range_sets(c, t, ri, r);
        cursors.push(quote!(let mut #cur: u64 = plan.#start;));
        // An offset solved for a record field: the first place it can store (as `plan`).
        let at = crate::emit::linform::record_range_at(c, r, &quote!(#cur), &align, &item);
        per_record.push(quote! {
            match s.#rn {
                #en::#present(bytes) => {
                    let at = #at;
                    #cur = __rt::after(at, Some(bytes.len() as u64), #item)?;
                    #(#on_present)*
                    __rt::put(out, at, bytes)?;
                }
                #en::#absent(n) => { #(#on_absent)* let _ = n; }
            }
        });
    }
    // A `when` that is not one flag bit: checked on the record as written.
    let ranges = extra_ranges(c, x);
    let checks = crate::emit::writer::record_when_checks(c, t, &ranges);
    let checks = if checks.is_empty() {
        quote!()
    } else {
        quote!({ let spec = s; #checks })
    };
    (
        quote!(#(#cursors)*),
        quote! {
            #(#per_record)*
            #checks
        },
    )
}
