//! Writers for struct-typed fields (`inner: Inner`, `pairs: "Pair[4]"`, `nested.rs`).
//!
//! Every struct that some field has as its type gets a plain value type, `<Struct>Value`:
//! one public field per field of the struct (a struct-typed field as the inner struct's
//! value, an array of structs as an array of values), `ZERO`, `to_bytes` (the struct's
//! bytes, each field in its own byte order) and `from_bytes` (the inverse), and
//! `From<Struct<'_>>` from the view. The writers (the file's, a directory's, a record
//! stream's) take such a value where the struct-typed field is an input, and write it with
//! `to_bytes`. A field inside a struct-typed field that the rules derive (a range's offset
//! or length `header.slices[0].offset`, a count, an `expect` constant, a checksum) is
//! written over the value given, after it: [`leaf_of`] finds it, [`set_leaf`] writes it.
//!
//! Hooks: `emit/top.rs` (the value types), `check/top.rs` (their names and
//! `check/nested_writer.rs`'s checks), `emit/writer.rs` (inputs and derived leaves),
//! `emit/file_writer.rs` and `emit/stream.rs` (inputs).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::{Checked, FieldKind, Leaf, Owner, Resolved, Scope};
use crate::expr::Expr;
use crate::schema::IntTy;

fn lit(v: u64) -> Literal {
    Literal::usize_unsuffixed(usize::try_from(v).unwrap_or(usize::MAX))
}

/// The value type of struct `si`: `<Struct>Value`.
pub(crate) fn value_ident(c: &Checked, si: usize) -> proc_macro2::Ident {
    format_ident!(
        "{}Value",
        c.schema
            .structs
            .get(si)
            .map_or("Missing", |s| s.name.text.as_str())
    )
}

/// The writer's input type of a struct-typed field and its default (`ZERO`), `None` for
/// any other kind.
pub(crate) fn input_type(c: &Checked, kind: FieldKind) -> Option<(TokenStream, TokenStream)> {
    match kind {
        FieldKind::Struct(si, _) => {
            let v = value_ident(c, si);
            Some((quote!(#v), quote!(#v::ZERO)))
        }
        FieldKind::Structs(si, _, n) => {
            let v = value_ident(c, si);
            let n = lit(n);
            Some((quote!([#v; #n]), quote!([#v::ZERO; #n])))
        }
        _ => None,
    }
}

/// Tokens writing the value `src` of a struct-typed field into the array `buf` at `off`,
/// `None` for any other kind. An array's element `k` goes to `off + k * size` (saturating:
/// past the array `set` writes nothing, and the checker bounds every struct's size).
pub(crate) fn write_input(
    kind: FieldKind,
    off: u64,
    src: &TokenStream,
    buf: &TokenStream,
) -> Option<TokenStream> {
    let o = lit(off);
    match kind {
        FieldKind::Struct(..) => Some(quote!(__rt::set(#buf, #o, #src.to_bytes());)),
        FieldKind::Structs(_, size, _) => {
            let size = lit(size);
            Some(quote! {
                for (k, v) in #src.iter().enumerate() {
                    __rt::set(#buf, k.saturating_mul(#size).saturating_add(#o), v.to_bytes());
                }
            })
        }
        _ => None,
    }
}

/// The field inside struct-typed fields that `e` names (a number, not a flag bit), with
/// its owner: `header.slices[0].offset`, or `span.length` in a record's scope.
pub(crate) fn leaf_of(c: &Checked, e: &Expr, scope: Scope<'_>) -> Option<(Owner, Leaf)> {
    match e {
        Expr::Ref(p) => match c.resolve(p, scope) {
            Ok(Resolved::Nested(o, l)) if l.bit.is_none() => Some((o, l)),
            _ => None,
        },
        _ => None,
    }
}

/// The integer type a derived leaf is stored as, and its byte order.
pub(crate) fn leaf_store(c: &Checked, l: Leaf) -> Option<(IntTy, bool)> {
    let (_, f, kind) = c.leaf(l)?;
    let t = match kind {
        FieldKind::Float(true) => IntTy::U64,
        FieldKind::Float(false) => IntTy::U32,
        k => k.int_ty(&c.schema)?,
    };
    Some((t, f.big))
}

/// The value types (empty when no field has a struct type).
pub(crate) fn value_types(c: &Checked) -> TokenStream {
    let items = crate::check::nested_writer::used(c)
        .into_iter()
        .filter_map(|si| value_type(c, si));
    quote!(#(#items)*)
}

fn value_type(c: &Checked, si: usize) -> Option<TokenStream> {
    let st = c.schema.structs.get(si)?;
    let l = c.layouts.get(&st.name.text)?;
    let id = value_ident(c, si);
    let view = format_ident!("{}", st.name.text);
    let size = lit(l.size);
    let mut fields = Vec::new();
    let mut zeros = Vec::new();
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    let mut floats = false;
    for (f, &(off, kind)) in st.fields.iter().zip(&l.fields) {
        let name = format_ident!("{}", f.name.text);
        let o = lit(off);
        let tob = crate::emit::to_bytes(f.big);
        let from = crate::emit::from_bytes(f.big);
        let word = |t: IntTy, at: TokenStream| {
            let ty = format_ident!("{}", t.rust());
            let w = lit(t.bytes());
            quote!(#ty::#from(match b.get(#at..).and_then(|s| s.first_chunk::<#w>()) { Some(x) => *x, None => [0; #w] }))
        };
        let (ty, zero, write, read) = match kind {
            FieldKind::Int(t) => (
                {
                    let ty = format_ident!("{}", t.rust());
                    quote!(#ty)
                },
                quote!(0),
                quote!(__rt::set(&mut b, #o, self.#name.#tob());),
                word(t, quote!(#o)),
            ),
            FieldKind::Float(w) => {
                floats = true;
                let (fty, bits) = if w {
                    (format_ident!("f64"), IntTy::U64)
                } else {
                    (format_ident!("f32"), IntTy::U32)
                };
                let r = word(bits, quote!(#o));
                (
                    quote!(#fty),
                    quote!(0.0),
                    quote!(__rt::set(&mut b, #o, self.#name.#tob());),
                    quote!(#fty::from_bits(#r)),
                )
            }
            FieldKind::Enum(e) => {
                let en = c.schema.enums.get(e)?;
                let ety = format_ident!("{}", en.name.text);
                let r = word(en.repr, quote!(#o));
                let (zero, read) = if en.open {
                    (quote!(#ety::from_raw(0)), quote!(#ety::from_raw(#r)))
                } else {
                    // (Refused inside a struct-typed field: `nested::check_struct`.)
                    let first =
                        format_ident!("{}", crate::names::camel(&en.values.first()?.name.text));
                    (
                        quote!(#ety::#first),
                        quote!(match #ety::from_raw(#r) { Some(v) => v, None => #ety::#first }),
                    )
                };
                (
                    quote!(#ety),
                    zero,
                    quote!(__rt::set(&mut b, #o, self.#name.raw().#tob());),
                    read,
                )
            }
            FieldKind::Flags(i) => {
                let fl = c.schema.flags.get(i)?;
                let fty = format_ident!("{}", fl.name.text);
                let r = word(fl.repr, quote!(#o));
                (
                    quote!(#fty),
                    quote!(#fty::empty()),
                    quote!(__rt::set(&mut b, #o, self.#name.bits().#tob());),
                    quote!(#fty::from_bits_retain(#r)),
                )
            }
            FieldKind::Bits(i) => {
                let bf = c.schema.bitfields.get(i)?;
                let bty = format_ident!("{}", bf.name.text);
                let r = word(bf.repr, quote!(#o));
                (
                    quote!(#bty),
                    quote!(#bty::from_bits(0)),
                    quote!(__rt::set(&mut b, #o, self.#name.bits().#tob());),
                    quote!(#bty::from_bits(#r)),
                )
            }
            FieldKind::Array(t, n) => {
                let ty = format_ident!("{}", t.rust());
                let w = lit(t.bytes());
                let nn = lit(n);
                let r = word(t, quote!(k.saturating_mul(#w).saturating_add(#o)));
                (
                    quote!([#ty; #nn]),
                    quote!([0; #nn]),
                    quote! {
                        for (k, v) in self.#name.iter().enumerate() {
                            __rt::set(&mut b, k.saturating_mul(#w).saturating_add(#o), v.#tob());
                        }
                    },
                    quote!(core::array::from_fn(|k| #r)),
                )
            }
            FieldKind::Bytes(n) | FieldKind::Str(n) => {
                let nn = lit(n);
                (
                    quote!([u8; #nn]),
                    quote!([0; #nn]),
                    quote!(__rt::set(&mut b, #o, self.#name);),
                    quote!(match b.get(#o..).and_then(|s| s.first_chunk::<#nn>()) { Some(x) => *x, None => [0; #nn] }),
                )
            }
            FieldKind::Struct(i, sz) => {
                let v = value_ident(c, i);
                let sz = lit(sz);
                (
                    quote!(#v),
                    quote!(#v::ZERO),
                    quote!(__rt::set(&mut b, #o, self.#name.to_bytes());),
                    quote!(#v::from_bytes(match b.get(#o..).and_then(|s| s.first_chunk::<#sz>()) { Some(x) => x, None => &[0; #sz] })),
                )
            }
            FieldKind::Structs(i, sz, n) => {
                let v = value_ident(c, i);
                let szl = lit(sz);
                let nn = lit(n);
                (
                    quote!([#v; #nn]),
                    quote!([#v::ZERO; #nn]),
                    quote! {
                        for (k, v) in self.#name.iter().enumerate() {
                            __rt::set(&mut b, k.saturating_mul(#szl).saturating_add(#o), v.to_bytes());
                        }
                    },
                    quote!(core::array::from_fn(|k| #v::from_bytes(
                        match b.get(k.saturating_mul(#szl).saturating_add(#o)..).and_then(|s| s.first_chunk::<#szl>()) { Some(x) => x, None => &[0; #szl] }
                    ))),
                )
            }
        };
        floats |= value_has_floats(c, kind);
        let first = crate::emit::doc::flow(&f.doc);
        let doc = if first.is_empty() {
            format!(" `{}.{}`.", st.name.text, f.name.text)
        } else {
            format!(" `{}.{}`: {first}", st.name.text, f.name.text)
        };
        fields.push(quote!(#[doc = #doc] pub #name: #ty,));
        zeros.push(quote!(#name: #zero,));
        writes.push(write);
        reads.push(quote!(#name: #read,));
    }
    let eq = if floats { quote!() } else { quote!(, Eq) };
    let doc = format!(
        " The fields of struct `{}` as values, for the writers: `to_bytes` lays them out ({} bytes, each field in its byte order), `from_bytes` and `From<{}>` read them back.",
        st.name.text, l.size, st.name.text
    );
    Some(quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq #eq)]
        pub struct #id { #(#fields)* }
        impl #id {
            /// Every field zero (an open enum's raw 0, no flag set).
            pub const ZERO: Self = Self { #(#zeros)* };
            /// The struct's bytes.
            #[must_use]
            pub fn to_bytes(&self) -> [u8; #size] {
                let mut b = [0u8; #size];
                #(#writes)*
                b
            }
            /// The fields of the struct's bytes `b`.
            #[must_use]
            pub fn from_bytes(b: &[u8; #size]) -> Self {
                Self { #(#reads)* }
            }
        }
        impl From<#view<'_>> for #id {
            fn from(v: #view<'_>) -> Self { Self::from_bytes(v.as_bytes()) }
        }
    })
}

/// Whether a struct-typed field's value holds a float somewhere inside (no `Eq` then).
pub(crate) fn value_has_floats(c: &Checked, kind: FieldKind) -> bool {
    let si = match kind {
        FieldKind::Struct(si, _) | FieldKind::Structs(si, _, _) => si,
        FieldKind::Float(_) => return true,
        _ => return false,
    };
    let Some(st) = c.schema.structs.get(si) else {
        return false;
    };
    c.layouts
        .get(&st.name.text)
        .is_some_and(|l| l.fields.iter().any(|(_, k)| value_has_floats(c, *k)))
}

/// Code setting (`on`) or clearing the one flag bit leaf `l` names (`tag.marks.HAS_DATA`) in
/// the record `rec` (a `[u8; N]`), keeping the field's other bits.
pub(crate) fn set_leaf_bit(c: &Checked, l: Leaf, on: bool, rec: &TokenStream) -> TokenStream {
    let (Some(bi), Some((t, big)), Some((_, _, FieldKind::Flags(fl)))) =
        (l.bit, leaf_store(c, l), c.leaf(l))
    else {
        return quote!();
    };
    let (Some(flags), Ok(w)) = (c.schema.flags.get(fl), usize::try_from(t.bytes())) else {
        return quote!();
    };
    let Some(bit) = flags.bits.get(bi) else {
        return quote!();
    };
    let fty = format_ident!("{}", flags.name.text);
    let bit = format_ident!("{}", bit.name.text);
    let ty = format_ident!("{}", t.rust());
    let tob = crate::emit::to_bytes(big);
    let from = crate::emit::from_bytes(big);
    let o = lit(l.at);
    let w = Literal::usize_unsuffixed(w);
    let v = if on {
        quote!(v | #fty::#bit.bits())
    } else {
        quote!(v & !#fty::#bit.bits())
    };
    quote! {
        {
            let v = #ty::#from(#rec.get(#o..).and_then(<[u8]>::first_chunk::<#w>).copied().unwrap_or_default());
            __rt::set(&mut #rec, #o, (#v).#tob());
        }
    }
}

/// Tokens writing the derived value `v` (`u64` tokens, an `Option<u64>` when `fallible`)
/// into leaf `l` of the array `buf` (`rec` or `h`) at the leaf's offset, in its byte order;
/// a value its field cannot hold is `TooLarge` for `path`.
pub(crate) fn set_leaf(
    c: &Checked,
    l: Leaf,
    v: &TokenStream,
    fallible: bool,
    path: &str,
    buf: &TokenStream,
) -> TokenStream {
    let Some((t, big)) = leaf_store(c, l) else {
        return quote!();
    };
    let o = lit(l.at);
    let store = crate::emit::store(&quote!(#o), t, big, path, buf);
    if fallible {
        quote! {
            let v: u64 = (#v).ok_or(__rt::WriteError::TooLarge { field: #path, value: u64::MAX })?;
            #store
        }
    } else {
        quote! {
            let v: u64 = #v;
            #store
        }
    }
}
