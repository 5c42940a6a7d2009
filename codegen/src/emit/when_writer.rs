//! The plain writer's checks of its conditional parts (`check/when_writer.rs`): once the
//! header is written, each condition the writer cannot choose is evaluated over the header
//! as written, with the validator's expression code (`Em::cond`), and a part given while its
//! condition is false, or left out while it is true, is `WriteError::WhenDisagrees`. A table
//! with `when` remembers whether its records were given (`_given_<table>`); when its
//! condition is one header flag bit, the writer sets the bit when it is given instead.
//! The directory writer (`emit/optional_parts.rs`) uses the same code, its optional table an
//! `Option` in its spec (`records`, and the `given` tokens it passes).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::when_writer::{flag_bit, table_bit, when_tables};
use crate::check::{Checked, FieldKind, Layout, Scope};
use crate::emit::{Em, Env};
use crate::schema::Table;

/// The writer's private field that says table `t`'s records were given.
pub(crate) fn given(t: &Table) -> proc_macro2::Ident {
    format_ident!("_given_{}", t.name.text)
}

fn cond(c: &Checked, e: &crate::expr::Expr) -> TokenStream {
    Em {
        c,
        sites: &crate::emit::ModuleOut::default(),
    }
    .cond(
        e,
        Scope::Top,
        &Env {
            header: quote!(header),
            record: quote!(rec),
            found: Vec::new(),
        },
    )
}

/// The records of table `t` as a slice: `self.<t>`, or for a directory writer's optional
/// table (an `Option`, `check/optional_parts.rs`) none when it is left out.
pub(crate) fn records(c: &Checked, t: &Table) -> TokenStream {
    let n = format_ident!("{}", t.name.text);
    if crate::check::optional_parts::optional_table(c, t) {
        quote!(self.#n.unwrap_or(&[]))
    } else {
        quote!(self.#n)
    }
}

/// The checks, run in `write_into` with `header` the header as written and `len` the
/// file's length; `given` the `bool` tokens saying an optional table was given.
pub(crate) fn checks(c: &Checked, given_table: &dyn Fn(&Table) -> TokenStream) -> Vec<TokenStream> {
    let file = &c.schema.file;
    let mut out = Vec::new();
    for r in file.ranges.iter().filter(|r| {
        r.table.is_none()
            && flag_bit(c, r).is_none()
            && !crate::check::strtab_writer::is_built(c, &r.name.text)
    }) {
        let Some(w) = &r.when else { continue };
        let cond = cond(c, &w.expr);
        let n = format_ident!("{}", r.name.text);
        let part = r.name.text.as_str();
        out.push(quote! {
            let given: bool = self.#n.is_some();
            if #cond != given {
                return Err(__rt::WriteError::WhenDisagrees { part: #part, given });
            }
        });
    }
    let order = file.writer.as_ref().map(|w| &w.order[..]).unwrap_or(&[]);
    for (t, w) in when_tables(c) {
        if !order.iter().any(|o| o.text == t.name.text) || table_bit(c, t).is_some() {
            continue;
        }
        let cond = cond(c, &w.expr);
        let g = given_table(t);
        let part = t.name.text.as_str();
        out.push(quote! {
            let given: bool = #g;
            if #cond != given {
                return Err(__rt::WriteError::WhenDisagrees { part: #part, given });
            }
        });
    }
    out
}

/// The flag bits of the file-level ranges whose `when` is one header flag bit, as patches of
/// the flags field's `bits` (by header field index): set when the range is given (an
/// `Option` in both writers), else cleared.
pub(crate) fn range_bit_patches(c: &Checked, hl: &Layout) -> Vec<(usize, TokenStream)> {
    c.schema
        .file
        .ranges
        .iter()
        .filter(|r| r.table.is_none() && !crate::check::strtab_writer::is_built(c, &r.name.text))
        .filter_map(|r| {
            let (fi, bi) = flag_bit(c, r)?;
            let FieldKind::Flags(fl) = hl.fields.get(fi)?.1 else {
                return None;
            };
            let flags = c.schema.flags.get(fl)?;
            let fty = format_ident!("{}", flags.name.text);
            let bit = format_ident!("{}", flags.bits.get(bi)?.name.text);
            let n = format_ident!("{}", r.name.text);
            Some((
                fi,
                quote! {
                    let bits = if self.#n.is_some() { bits | #fty::#bit.bits() } else { bits & !#fty::#bit.bits() };
                },
            ))
        })
        .collect()
}

/// The flag bits of the tables whose condition is one header flag bit, as patches of the
/// flags field's `bits` (by header field index): set when the table is given (`given`),
/// else cleared.
pub(crate) fn table_bit_patches(
    c: &Checked,
    hl: &Layout,
    given_table: &dyn Fn(&Table) -> TokenStream,
) -> Vec<(usize, TokenStream)> {
    let order = c
        .schema
        .file
        .writer
        .as_ref()
        .map(|w| &w.order[..])
        .unwrap_or(&[]);
    when_tables(c)
        .into_iter()
        .filter(|(t, _)| order.iter().any(|o| o.text == t.name.text))
        .filter_map(|(t, _)| {
            let (fi, bi) = table_bit(c, t)?;
            let FieldKind::Flags(fl) = hl.fields.get(fi)?.1 else {
                return None;
            };
            let flags = c.schema.flags.get(fl)?;
            let fty = format_ident!("{}", flags.name.text);
            let bit = format_ident!("{}", flags.bits.get(bi)?.name.text);
            let g = given_table(t);
            Some((
                fi,
                quote! {
                    let bits = if #g { bits | #fty::#bit.bits() } else { bits & !#fty::#bit.bits() };
                },
            ))
        })
        .collect()
}
