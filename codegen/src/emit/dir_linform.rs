//! Linear forms of one field in the directory writer (`check/dir_linform.rs`): an item whose
//! place a field stores as `F * K ± C` goes to the first place at or after the (aligned)
//! cursor that the form can store, as in the plain writer (`linform::place`); a section's
//! payload likewise, inside its placing function (`linform::place_opt`). The field itself is
//! solved where the record is written (`record_writer.rs`, `Part::Lin`).

use proc_macro2::TokenStream;

use crate::check::linform::LinForm;
use crate::lower::plan::DirPlan;
use crate::lower::plan::Plan;
use crate::model::{Item, Part, Rule, What};

/// The linear form a field of the header or of a located record stores item `it`'s place
/// through, if one does.
pub(crate) fn place_form(plan: &Plan<'_>, it: Item) -> Option<LinForm<()>> {
    std::iter::once(&plan.header)
        .chain(&plan.records)
        .flatten()
        .find_map(|r| match r {
            Rule::Derived(What::Place(x), Part::Lin(f)) if *x == it => Some(*f),
            _ => None,
        })
}

/// `at` (a `u64` expression, the aligned cursor or a fixed place), moved to the first place
/// the form of item `it` can store when its place is stored through one.
pub(crate) fn place(plan: &Plan<'_>, it: Item, at: TokenStream, name: &str) -> TokenStream {
    match place_form(plan, it) {
        Some(f) => crate::emit::linform::place(&f, &at, name),
        None => at,
    }
}

/// The body of directory `x`'s payload placing function (an `Option<u64>`): `body` (the
/// aligned place), then, when the payload's offset is stored as a linear form of a record
/// field, the first place at or after it that the form can store.
pub(crate) fn payload_place(x: &DirPlan<'_>, body: TokenStream) -> TokenStream {
    let form = x.entry.iter().find_map(|r| match r {
        Rule::Derived(What::PayloadOffset, Part::Lin(f)) => Some(*f),
        _ => None,
    });
    match form {
        Some(f) => {
            let place = crate::emit::linform::place_opt(&f, &quote::quote!(at));
            quote::quote! {
                let at: u64 = { #body }?;
                #place
            }
        }
        None => body,
    }
}
