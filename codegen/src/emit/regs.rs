//! Emission of a register block (`registers:`): offset and reset constants, the register
//! table and one typed value per register with fields.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::Checked;
use crate::check::regs::type_name;
use crate::emit::doc::doc_attr;
use crate::emit::{field_ty, hex, lit_u32};
use crate::schema::ext::range_mask;
use crate::schema::regs::{ACCESS, Access};

pub(crate) fn access_variant(a: Access) -> proc_macro2::Ident {
    let s = ACCESS
        .iter()
        .find(|x| x.1 == a)
        .map_or("ReadWrite", |x| x.2);
    format_ident!("{}", s)
}

/// The items of a register block, or nothing when the schema has none.
pub fn tokens(c: &Checked) -> TokenStream {
    let Some(b) = &c.schema.registers else {
        return quote!();
    };
    let repr = format_ident!("{}", b.repr.rust());
    let width = b.repr.bytes().saturating_mul(8);
    let size = hex(b.size);
    let bytes = lit_u32(b.repr.bytes());
    let mut items = Vec::new();
    let mut infos = Vec::new();
    let mut name_arms = Vec::new();
    for r in &b.registers {
        let n = &r.name.text;
        let off_id = format_ident!("{}", n);
        let off = hex(r.offset);
        let access = access_variant(r.access);
        let access_id = format_ident!("{}_ACCESS", n);
        let rdoc = doc_attr(&r.doc);
        let first = if r.count > 1 { " (of element 0)" } else { "" };
        let off_doc = format!(" `{n}`: byte offset from the block's base{first}.");
        items.push(quote! {
            #[doc = #off_doc]
            #rdoc
            pub const #off_id: u32 = #off;
            #[doc = concat!(" How software may access `", #n, "`.")]
            pub const #access_id: Access = Access::#access;
        });
        if let Some((reset, _)) = r.reset {
            let id = format_ident!("{}_RESET", n);
            let v = hex(reset);
            let d = format!(" `{n}` after a reset.");
            items.push(quote! {
                #[doc = #d]
                pub const #id: #repr = #v;
            });
        }
        if r.count > 1 {
            let count_id = format_ident!("{}_COUNT", n);
            let stride_id = format_ident!("{}_STRIDE", n);
            let func = format_ident!("{}", n.to_ascii_lowercase());
            let count = lit_u32(r.count);
            let stride = lit_u32(r.stride);
            let d_count = format!(" Number of `{n}` registers.");
            let d_stride = format!(" Bytes between two `{n}` registers.");
            let d_fn = format!(
                " Offset of `{n}[k]`. `k` is taken modulo {} (so the offset is always one of `{n}`'s).",
                r.count
            );
            items.push(quote! {
                #[doc = #d_count]
                pub const #count_id: u32 = #count;
                #[doc = #d_stride]
                pub const #stride_id: u32 = #stride;
                #[doc = #d_fn]
                #[must_use]
                pub const fn #func(k: u32) -> u32 {
                    // The checker proved `offset + (count - 1) * stride` fits the block.
                    #off_id.wrapping_add(k.wrapping_rem(#count_id).wrapping_mul(#stride_id))
                }
            });
        }
        // Register table and name lookup (an array by its range and stride, not one arm
        // per element: the match then stays a few comparisons, not a jump table).
        if r.count > 1 {
            let last = hex(r
                .offset
                .saturating_add((r.count - 1).saturating_mul(r.stride)));
            let stride = lit_u32(r.stride);
            // Offsets reaching the match are multiples of the register width already.
            if r.stride == b.repr.bytes() {
                name_arms.push(quote!(#off..=#last => Some(#n)));
            } else {
                name_arms.push(quote!(#off..=#last if offset.wrapping_sub(#off).wrapping_rem(#stride) == 0 => Some(#n)));
            }
        } else {
            name_arms.push(quote!(#off => Some(#n)));
        }
        let finfos = r.fields.iter().map(|f| {
            let fname = &f.range.name.text;
            let lsb = lit_u32(f.range.lo);
            let w = lit_u32(f.range.hi - f.range.lo + 1);
            quote!(FieldInfo { name: #fname, lsb: #lsb, width: #w })
        });
        let reset_info = match r.reset {
            Some((v, _)) => {
                let v = hex(v);
                quote!(Some(#v))
            }
            None => quote!(None),
        };
        let count = lit_u32(r.count);
        let stride = lit_u32(r.stride);
        infos.push(quote! {
            RegisterInfo {
                name: #n,
                offset: #off,
                count: #count,
                stride: #stride,
                access: Access::#access,
                reset: #reset_info,
                fields: &[#(#finfos),*],
            }
        });
        if r.fields.is_empty() {
            continue;
        }
        // The typed value.
        let ty = format_ident!("{}", type_name(n));
        let mut all = 0u64;
        let mut members = Vec::new();
        for f in &r.fields {
            let fr = &f.range;
            let fw = fr.hi - fr.lo + 1;
            let mask_v = range_mask(fr.lo, fr.hi);
            all |= mask_v;
            let upper = fr.name.text.to_ascii_uppercase();
            let mask_id = format_ident!("{}_MASK", upper);
            let shift_id = format_ident!("{}_SHIFT", upper);
            let mask = hex(mask_v);
            let shift = lit_u32(fr.lo);
            let getter = format_ident!("{}", fr.name.text);
            let setter = format_ident!("with_{}", fr.name.text);
            let bits_doc = if fw == 1 {
                format!("bit {}", fr.lo)
            } else {
                format!("bits {}..={}", fr.lo, fr.hi)
            };
            let gdoc =
                doc_attr(format!("{}\n\n`{}`: {bits_doc}.", fr.doc, fr.name.text).trim_start());
            let sdoc = format!(
                " This value with `{}` ({bits_doc}) set to `v`; bits of `v` beyond the field are dropped.",
                fr.name.text
            );
            let md = format!(" The bits of `{}` ({bits_doc}) in place.", fr.name.text);
            let sd = format!(" The lowest bit of `{}`.", fr.name.text);
            members.push(quote! {
                #[doc = #md]
                pub const #mask_id: #repr = #mask;
                #[doc = #sd]
                pub const #shift_id: u32 = #shift;
            });
            let raw_val = if fr.lo == 0 {
                quote!((self.0 & Self::#mask_id))
            } else {
                quote!(((self.0 & Self::#mask_id) >> Self::#shift_id))
            };
            let lo0 = fr.lo == 0;
            let put = |v: TokenStream| {
                if lo0 {
                    quote!(Self((self.0 & !Self::#mask_id) | ((#v) & Self::#mask_id)))
                } else {
                    quote!(Self((self.0 & !Self::#mask_id) | (((#v) << Self::#shift_id) & Self::#mask_id)))
                }
            };
            let repr_name = b.repr.rust();
            // `v as T`, or `v` when it already is a `T` (no needless cast for clippy).
            let cast = |v: TokenStream, from: &str, to: &str| {
                let t = format_ident!("{}", to);
                if from == to {
                    quote!(#v)
                } else {
                    quote!(#v as #t)
                }
            };
            let enum_def = f
                .enumeration
                .as_ref()
                .and_then(|en| c.schema.enums.iter().find(|e| e.name.text == en.text));
            match enum_def {
                Some(e) => {
                    let ety = format_ident!("{}", e.name.text);
                    let erepr = format_ident!("{}", e.repr.rust());
                    let raw_get = format_ident!("{}_raw", fr.name.text);
                    let raw_set = format_ident!("with_{}_raw", fr.name.text);
                    let (ret, body) = if e.open {
                        (quote!(#ety), quote!(#ety::from_raw(self.#raw_get())))
                    } else {
                        (
                            quote!(Option<#ety>),
                            quote!(#ety::from_raw(self.#raw_get())),
                        )
                    };
                    let rd = format!(" `{}` ({bits_doc}) as stored.", fr.name.text);
                    let rsd = format!(
                        " This value with `{}` ({bits_doc}) set to the raw `v`; bits of `v` beyond the field are dropped.",
                        fr.name.text
                    );
                    let set_body = put(cast(quote!(v.raw()), e.repr.rust(), repr_name));
                    let raw_set_body = put(cast(quote!(v), e.repr.rust(), repr_name));
                    let raw_get_body = cast(raw_val.clone(), repr_name, e.repr.rust());
                    members.push(quote! {
                        #gdoc
                        #[must_use]
                        pub const fn #getter(self) -> #ret { #body }
                        #[doc = #rd]
                        #[must_use]
                        pub const fn #raw_get(self) -> #erepr { #raw_get_body }
                        #[doc = #sdoc]
                        #[must_use]
                        pub const fn #setter(self, v: #ety) -> Self { #set_body }
                        #[doc = #rsd]
                        #[must_use]
                        pub const fn #raw_set(self, v: #erepr) -> Self { #raw_set_body }
                    });
                }
                None => {
                    let fty = field_ty(fw);
                    let fty_id = format_ident!("{}", fty);
                    let (get_body, set_body) = if fty == "bool" {
                        (
                            quote!(self.0 & Self::#mask_id != 0),
                            put(quote!(v as #repr)),
                        )
                    } else if fw == width {
                        (quote!(self.0), quote!(Self(v)))
                    } else {
                        (
                            cast(raw_val.clone(), repr_name, fty),
                            put(cast(quote!(v), fty, repr_name)),
                        )
                    };
                    members.push(quote! {
                        #gdoc
                        #[must_use]
                        pub const fn #getter(self) -> #fty_id { #get_body }
                        #[doc = #sdoc]
                        #[must_use]
                        pub const fn #setter(self, v: #fty_id) -> Self { #set_body }
                    });
                }
            }
        }
        let all = hex(all);
        let tdoc =
            format!(" A `{n}` register value: its bit fields read and built. Every bit is kept.");
        items.push(quote! {
            #[doc = #tdoc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct #ty(#repr);
            impl #ty {
                /// Every bit that belongs to a field.
                pub const FIELDS: #repr = #all;
                /// The all-zero value (not necessarily the reset value).
                #[must_use]
                pub const fn new() -> Self { Self(0) }
                /// From the raw word.
                #[must_use]
                pub const fn from_bits(bits: #repr) -> Self { Self(bits) }
                /// The raw word.
                #[must_use]
                pub const fn bits(self) -> #repr { self.0 }
                #(#members)*
            }
        });
    }
    quote! {
        /// How software may access a register.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Access {
            /// Read only: writes are ignored.
            Read,
            /// Write only.
            Write,
            /// Read and write.
            ReadWrite,
            /// Readable; writing 1 to a bit clears it, 0 leaves it.
            Write1Clear,
            /// Readable; writing 1 to a bit sets it, 0 leaves it.
            Write1Set,
        }
        /// One bit field of a register, as declared.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct FieldInfo {
            /// Name.
            pub name: &'static str,
            /// Lowest bit.
            pub lsb: u32,
            /// Width in bits.
            pub width: u32,
        }
        /// One register (or array of registers), as declared.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct RegisterInfo {
            /// Name.
            pub name: &'static str,
            /// Byte offset (of element 0).
            pub offset: u32,
            /// Number of elements (1: a single register).
            pub count: u32,
            /// Bytes between elements.
            pub stride: u32,
            /// Access.
            pub access: Access,
            /// Value after a reset, when defined.
            pub reset: Option<u64>,
            /// Bit fields, by ascending declaration order.
            pub fields: &'static [FieldInfo],
        }
        /// Size of the register block in bytes.
        pub const REGISTER_BLOCK_BYTES: u32 = #size;
        /// Every register, in declaration order.
        pub const REGISTERS: &[RegisterInfo] = &[#(#infos),*];
        /// The name of the register at byte offset `offset` (an array's name for any of its
        /// elements), `None` between registers.
        #[must_use]
        pub const fn register_name(offset: u32) -> Option<&'static str> {
            if offset.wrapping_rem(#bytes) != 0 {
                return None;
            }
            match offset {
                #(#name_arms,)*
                _ => None,
            }
        }
        #(#items)*
    }
}
