//! How a generated validator holds a table, chosen from the table's `stride`: records back to
//! back (a constant stride equal to the record's size: `&[[u8; N]]`, a slice of arrays, the
//! cheapest to index and walk on a microcontroller) or records a stride apart that the file
//! gives, or a constant one larger than the record (`npuschema_core::Table`). Every emitter
//! that names a table's type, places it, walks it or computes a record's offset asks here, so
//! the two shapes read the same records by the same rule (`table_fits`: records `stride`
//! bytes apart, at least the record's size).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::check::Checked;
use crate::schema::Table;

/// A table's shape in generated code.
pub(crate) struct Shape {
    /// Records back to back (`&[[u8; N]]`).
    packed: bool,
    /// The record's size, as a `usize` literal.
    n: Literal,
    /// The record's size, as a `u64` literal.
    n64: Literal,
}

/// The shape of table `t`.
pub(crate) fn shape(c: &Checked, t: &Table) -> Shape {
    let size = c.layouts.get(&t.record.text).map_or(0, |l| l.size);
    Shape {
        packed: crate::check::table_writer::const_u64(c, &t.stride.expr) == Some(size),
        n: crate::emit::lit_usize(size),
        n64: Literal::u64_suffixed(size),
    }
}

impl Shape {
    /// The type holding the records (lifetime `'a`).
    pub(crate) fn ty(&self) -> TokenStream {
        let n = &self.n;
        if self.packed {
            quote!(&'a [[u8; #n]])
        } else {
            quote!(__rt::Table<'a, #n>)
        }
    }

    /// The type of an iterator over the records (lifetime `'a`).
    pub(crate) fn iter_ty(&self) -> TokenStream {
        let n = &self.n;
        if self.packed {
            quote!(core::slice::Iter<'a, [u8; #n]>)
        } else {
            quote!(__rt::TableIter<'a, #n>)
        }
    }

    /// A table without records.
    pub(crate) fn empty(&self) -> TokenStream {
        if self.packed {
            quote!(&[])
        } else {
            quote!(__rt::Table::EMPTY)
        }
    }

    /// The stride of back-to-back records (the record's size, a `u64` literal); `None` for
    /// a strided table, whose stride the file gives.
    pub(crate) fn packed_stride(&self) -> Option<&Literal> {
        self.packed.then_some(&self.n64)
    }

    /// An `Option` of the records, from the `Option<u64>` local `at`, the count and the
    /// limit (`Option<u64>` tokens `count` and `w`) and, for a strided table, the
    /// `Option<u64>` local `stride`: `count` records, `stride` apart, from `at` in `buf`,
    /// ending at or before the limit.
    pub(crate) fn place(&self, count: &TokenStream, w: &TokenStream) -> TokenStream {
        let n = &self.n;
        if self.packed {
            // The stride is the record's size, a constant: nothing to check at run time.
            quote! {
                match (at, #count, #w) {
                    (Some(a), Some(c), Some(w)) => __rt::table_within::<#n>(buf, a, c, w),
                    _ => None,
                }
            }
        } else {
            quote! {
                match (at, #count, stride, #w) {
                    (Some(a), Some(c), Some(s), Some(w)) => __rt::table_strided::<#n>(buf, a, c, s, w),
                    _ => None,
                }
            }
        }
    }

    /// The iterator type argument of `npuschema_core::Records` after the view type: none
    /// for back-to-back records (the default), `, TableIter<'a, N>` for strided ones.
    pub(crate) fn records_arg(&self) -> TokenStream {
        if self.packed {
            quote!()
        } else {
            let it = self.iter_ty();
            quote!(, #it)
        }
    }

    /// In a loop `for (i, raw) in <table>.iter().enumerate()` that binds `index: u64` from
    /// `i`: the binding of `rec_at` (record `i`'s offset in the file), to put before the
    /// `index` binding (`.0`) or after it (`.1`). The strided form reads the table, which
    /// `index` would shadow in a table of that name.
    pub(crate) fn rec_at(&self, var: &Ident, var_at: &Ident) -> (TokenStream, TokenStream) {
        let n64 = &self.n64;
        if self.packed {
            (
                quote!(),
                quote!(let rec_at: u64 = #var_at.saturating_add(index.saturating_mul(#n64));),
            )
        } else {
            (
                quote!(let rec_at: u64 = #var_at.saturating_add(#var.record_offset(u64::try_from(i).unwrap_or(u64::MAX)));),
                quote!(let _ = index;),
            )
        }
    }

    /// `u64` tokens: where record `index` (`u64` tokens) starts, from the table's start.
    pub(crate) fn offset(&self, var: &Ident, index: &TokenStream) -> TokenStream {
        let n64 = &self.n64;
        if self.packed {
            quote!(#index.saturating_mul(#n64))
        } else {
            quote!(#var.record_offset(#index))
        }
    }

    /// `&[u8]` tokens: the table's bytes, from its first record's start to its last one's
    /// end (empty without records).
    pub(crate) fn bytes(&self, var: &Ident) -> TokenStream {
        if self.packed {
            quote!(#var.as_flattened())
        } else {
            quote!(#var.as_bytes())
        }
    }

    /// `usize` tokens: how many bytes [`Self::bytes`] spans.
    pub(crate) fn extent(&self, var: &Ident) -> TokenStream {
        if self.packed {
            quote!(core::mem::size_of_val(#var))
        } else {
            quote!(#var.as_bytes().len())
        }
    }
}
