//! Emission of an instruction set (`commands:`): the opcode enum, the `Arch` enum, the field
//! table and one typed view per command with fields.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::Checked;
use crate::check::commands::{bits_text, variant, view_name};
use crate::emit::doc::doc_attr;
use crate::emit::{field_ty, hex, lit_u32};
use crate::schema::ext::range_mask;

/// The `UPPER_SNAKE` spelling of an `UpperCamel` name (`ActivationType` -> `ACTIVATION_TYPE`).
pub(crate) fn upper_snake_of(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// The unsigned type holding `width` bits (never `bool`).
pub(crate) fn int_of(width: u64) -> &'static str {
    match field_ty(width) {
        "bool" => "u8",
        t => t,
    }
}

/// The items of an opcode space, or nothing when the schema has none.
#[allow(clippy::too_many_lines)]
pub fn tokens(c: &Checked) -> TokenStream {
    let Some(s) = &c.schema.commands else {
        return quote!();
    };
    let ename = format_ident!("{}", s.name.text);
    let word = format_ident!("{}", s.word.rust());
    let wname = s.word.rust();
    let wbits = s.word.bytes().saturating_mul(8);
    let pwidth = s.param.width();
    let pty_s = int_of(pwidth);
    let pty = format_ident!("{}", pty_s);
    let word_bytes = Literal::usize_unsuffixed(usize::try_from(s.word.bytes()).unwrap_or(4));
    let opcode_mask = hex(s.opcode.mask());
    let opcode_shift = lit_u32(s.opcode.lo);
    let param_mask = hex(s.param.mask());
    let param_shift = lit_u32(s.param.lo);
    let long_flag = hex(s.long_bit.map_or(0, |(b, _)| range_mask(b, b)));
    let big = s.big_endian;
    let repr = if s.commands.len() <= 256 {
        format_ident!("u8")
    } else {
        format_ident!("u16")
    };
    let sdoc = doc_attr(if s.doc.is_empty() {
        "A command's opcode."
    } else {
        &s.doc
    });
    let variants: Vec<proc_macro2::Ident> = s
        .commands
        .iter()
        .map(|k| format_ident!("{}", variant(&k.name.text)))
        .collect();
    let names: Vec<String> = s
        .commands
        .iter()
        .map(|k| format!("{}{}", s.prefix, k.name.text))
        .collect();
    let vdocs = s.commands.iter().zip(&names).map(|(k, n)| {
        let head = format!(
            "`{n}`: {} code {:#x}.",
            if k.long { "long" } else { "short" },
            k.code
        );
        if k.doc.is_empty() {
            doc_attr(&head)
        } else {
            doc_attr(&format!("{head}\n\n{}", k.doc))
        }
    });
    let codes: Vec<TokenStream> = s.commands.iter().map(|k| hex(k.code)).collect();
    let short_arms = s
        .commands
        .iter()
        .zip(&variants)
        .filter(|(k, _)| !k.long)
        .map(|(k, v)| {
            let code = hex(k.code);
            quote!(#code => Some(Self::#v))
        });
    let long_arms = s
        .commands
        .iter()
        .zip(&variants)
        .filter(|(k, _)| k.long)
        .map(|(k, v)| {
            let code = hex(k.code);
            quote!(#code => Some(Self::#v))
        });
    let has_long = s.long_bit.is_some();
    let lookup = if has_long {
        quote! {
            if code & #long_flag == 0 {
                match op { #(#short_arms,)* _ => None }
            } else {
                match op { #(#long_arms,)* _ => None }
            }
        }
    } else {
        quote!(match op { #(#short_arms,)* _ => None })
    };
    let long_variants: Vec<&proc_macro2::Ident> = s
        .commands
        .iter()
        .zip(&variants)
        .filter(|(k, _)| k.long)
        .map(|(_, v)| v)
        .collect();
    let has_payload_body = if long_variants.is_empty() {
        quote!(false)
    } else {
        quote!(matches!(self, #(Self::#long_variants)|*))
    };
    let known = hex(s.opcode.mask() | s.long_bit.map_or(0, |(b, _)| range_mask(b, b)));
    let param_of = {
        let shifted = if s.param.lo == 0 {
            quote!(word & Self::PARAM_MASK)
        } else {
            quote!((word & Self::PARAM_MASK) >> Self::PARAM_SHIFT)
        };
        if pty_s == wname {
            shifted
        } else {
            quote!((#shifted) as #pty)
        }
    };
    let op_shifted = if s.opcode.lo == 0 {
        quote!(code & Self::OPCODE_MASK)
    } else {
        quote!((code & Self::OPCODE_MASK) >> Self::OPCODE_SHIFT)
    };
    let code_body = s.commands.iter().zip(&variants).map(|(k, v)| {
        let mut w = k.code << s.opcode.lo;
        if k.long
            && let Some((b, _)) = s.long_bit
        {
            w |= range_mask(b, b);
        }
        let w = hex(w);
        quote!(Self::#v => #w)
    });
    // Architectures.
    let arch_items = if s.archs.is_empty() {
        quote!()
    } else {
        let avars: Vec<proc_macro2::Ident> = s
            .archs
            .iter()
            .map(|(a, _)| format_ident!("{}", crate::names::camel(&a.text)))
            .collect();
        let anames: Vec<&str> = s.archs.iter().map(|(a, _)| a.text.as_str()).collect();
        let adocs = s.archs.iter().map(|(a, dd)| {
            if dd.is_empty() {
                doc_attr(&format!("`{}`.", a.text))
            } else {
                doc_attr(dd)
            }
        });
        let arms = s.archs.iter().zip(&avars).map(|((a, _), av)| {
            let members: Vec<&proc_macro2::Ident> = s
                .commands
                .iter()
                .zip(&variants)
                .filter(|(k, _)| k.archs.is_empty() || k.archs.iter().any(|x| x.text == a.text))
                .map(|(_, v)| v)
                .collect();
            let others: Vec<&proc_macro2::Ident> = s
                .commands
                .iter()
                .zip(&variants)
                .filter(|(k, _)| !(k.archs.is_empty() || k.archs.iter().any(|x| x.text == a.text)))
                .map(|(_, v)| v)
                .collect();
            if others.is_empty() {
                quote!(Arch::#av => true)
            } else if members.is_empty() {
                quote!(Arch::#av => false)
            } else if s.commands.len() <= 128 {
                // One bit per command, by index: a shift and a test, not a match.
                let mut mask = 0u128;
                for (k, c) in s.commands.iter().enumerate() {
                    if c.archs.is_empty() || c.archs.iter().any(|x| x.text == a.text) {
                        mask |= 1u128
                            .checked_shl(u32::try_from(k).unwrap_or(128))
                            .unwrap_or(0);
                    }
                }
                let mask: TokenStream = format!("{mask:#x}u128").parse().unwrap_or_default();
                quote!(Arch::#av => match #mask.checked_shr(self as u32) {
                    Some(m) => m & 1 != 0,
                    None => false,
                })
            } else if others.len() <= members.len() {
                quote!(Arch::#av => !matches!(self, #(Self::#others)|*))
            } else {
                quote!(Arch::#av => matches!(self, #(Self::#members)|*))
            }
        });
        quote! {
            /// The architectures of the command set.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub enum Arch { #(#adocs #avars,)* }
            impl Arch {
                /// Every architecture, in declaration order.
                pub const ALL: &'static [Arch] = &[#(Arch::#avars),*];
                /// The schema's name (`u55`).
                #[must_use]
                pub const fn name(self) -> &'static str {
                    match self { #(Arch::#avars => #anames,)* }
                }
                /// The architecture of that name.
                #[must_use]
                pub fn from_name(name: &str) -> Option<Arch> {
                    match name { #(#anames => Some(Arch::#avars),)* _ => None }
                }
            }
            impl CommandField {
                /// Whether architecture `arch` has this field.
                #[must_use]
                pub const fn in_arch(self, arch: Arch) -> bool {
                    match 1u64.checked_shl(arch as u32) {
                        Some(bit) => self.archs & bit != 0,
                        None => false,
                    }
                }
            }
            impl #ename {
                /// Whether architecture `arch` has this command.
                #[must_use]
                pub const fn in_arch(self, arch: Arch) -> bool {
                    match arch { #(#arms,)* }
                }
            }
        }
    };
    // Field tables and views.
    let mut views = Vec::new();
    let mut field_arms = Vec::new();
    let mut zero_arms = Vec::new();
    let mut arch_arms = Vec::new();
    for (k, v) in s.commands.iter().zip(&variants) {
        let mut zero = 0u64;
        for z in &k.zero {
            zero |= z.mask();
        }
        if zero != 0 {
            let z = hex(zero);
            zero_arms.push(quote!(Self::#v => #z));
        }
        if !s.archs.is_empty() {
            let avs = k
                .archs
                .iter()
                .map(|a| format_ident!("{}", crate::names::camel(&a.text)));
            if k.archs.is_empty() {
                let all = s
                    .archs
                    .iter()
                    .map(|(a, _)| format_ident!("{}", crate::names::camel(&a.text)));
                arch_arms.push(quote!(Self::#v => &[#(Arch::#all),*]));
            } else {
                arch_arms.push(quote!(Self::#v => &[#(Arch::#avs),*]));
            }
        }
        if k.fields.is_empty() {
            continue;
        }
        let infos = k.fields.iter().map(|f| {
            let fname = &f.name.text;
            let lsb = lit_u32(f.bits.lo);
            let w = lit_u32(f.bits.width());
            let payload = f.payload;
            let fhex = f.hex;
            let e = f
                .enumeration
                .as_ref()
                .and_then(|en| c.schema.enums.iter().find(|e| e.name.text == en.text));
            let (ename_s, vals) = match e {
                Some(e) => {
                    let vs = e.values.iter().map(|ev| {
                        let val = hex(ev.value);
                        let n = &ev.name.text;
                        quote!((#val, #n))
                    });
                    (upper_snake_of(&e.name.text), quote!(&[#(#vs),*]))
                }
                None => (String::new(), quote!(&[])),
            };
            let mut amask = 0u64;
            for (k, (a, _)) in s.archs.iter().enumerate() {
                if f.archs.is_empty() || f.archs.iter().any(|x| x.text == a.text) {
                    amask |= 1u64.checked_shl(u32::try_from(k).unwrap_or(64)).unwrap_or(0);
                }
            }
            if s.archs.is_empty() {
                amask = u64::MAX;
            }
            let amask = hex(amask);
            quote!(CommandField { name: #fname, payload: #payload, lsb: #lsb, width: #w, hex: #fhex, enum_name: #ename_s, values: #vals, archs: #amask })
        });
        field_arms.push(quote!(Self::#v => &[#(#infos),*]));
        // The typed view.
        let vty = format_ident!("{}", view_name(&k.name.text));
        let vdoc = format!(
            " The fields of `{}{}`: its parameter{}, read.",
            s.prefix,
            k.name.text,
            if k.long { " and payload" } else { "" }
        );
        let zero_v = hex(zero);
        let zero_ok = if zero == 0 {
            quote!(true)
        } else {
            quote!(self.param & Self::ZERO == 0)
        };
        let mut members = Vec::new();
        for f in &k.fields {
            let (src, src_ty) = if f.payload {
                (quote!(self.payload), wname)
            } else {
                (quote!(self.param), pty_s)
            };
            let fw = f.bits.width();
            let full = if f.payload { wbits } else { pwidth };
            // The field's bits as a whole expression (no outer parentheses: rustc's
            // unused_parens would flag them where the value is returned as it is).
            let simple = f.bits.lo == 0 && fw >= full;
            let masked = if simple {
                src.clone()
            } else {
                let m = hex(range_mask(0, fw.saturating_sub(1)));
                if f.bits.lo == 0 {
                    quote!(#src & #m)
                } else {
                    let sh = lit_u32(f.bits.lo);
                    quote!((#src >> #sh) & #m)
                }
            };
            let cast = |v: TokenStream, to: &str| {
                if to == src_ty {
                    v
                } else {
                    let t = format_ident!("{}", to);
                    if simple {
                        quote!(#v as #t)
                    } else {
                        quote!((#v) as #t)
                    }
                }
            };
            let getter = format_ident!("{}", f.name.text);
            let place = if f.payload { "payload" } else { "parameter" };
            let only = if f.archs.is_empty() {
                String::new()
            } else {
                let names: Vec<&str> = f.archs.iter().map(|a| a.text.as_str()).collect();
                format!(" Only on: {}.", names.join(", "))
            };
            let gdoc = doc_attr(
                format!(
                    "{}\n\n`{}`: {} of the {place}.{only}",
                    f.doc,
                    f.name.text,
                    bits_text(f.bits)
                )
                .trim_start(),
            );
            let e = f
                .enumeration
                .as_ref()
                .and_then(|en| c.schema.enums.iter().find(|e| e.name.text == en.text));
            match e {
                Some(e) => {
                    let ety = format_ident!("{}", e.name.text);
                    let erepr_s = e.repr.rust();
                    let erepr = format_ident!("{}", erepr_s);
                    let raw_get = format_ident!("{}_raw", f.name.text);
                    let ret = if e.open {
                        quote!(#ety)
                    } else {
                        quote!(Option<#ety>)
                    };
                    let raw_body = cast(masked, erepr_s);
                    let rd = format!(" `{}` as stored.", f.name.text);
                    members.push(quote! {
                        #gdoc
                        #[must_use]
                        pub const fn #getter(self) -> #ret { #ety::from_raw(self.#raw_get()) }
                        #[doc = #rd]
                        #[must_use]
                        pub const fn #raw_get(self) -> #erepr { #raw_body }
                    });
                }
                None => {
                    let fty = field_ty(fw);
                    let fty_id = format_ident!("{}", fty);
                    let body = if fty == "bool" {
                        quote!(#masked != 0)
                    } else {
                        cast(masked, fty)
                    };
                    members.push(quote! {
                        #gdoc
                        #[must_use]
                        pub const fn #getter(self) -> #fty_id { #body }
                    });
                }
            }
        }
        let kdoc = doc_attr(&k.doc);
        let (new_sig, new_body, new_doc) = if k.long {
            (
                quote!(pub const fn new(param: #pty, payload: #word) -> Self),
                quote!(Self { param, payload }),
                " From the command's parameter and payload word.",
            )
        } else {
            (
                quote!(pub const fn new(param: #pty) -> Self),
                quote!(Self { param, payload: 0 }),
                " From the command's parameter.",
            )
        };
        views.push(quote! {
            #[doc = #vdoc]
            #kdoc
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct #vty { param: #pty, payload: #word }
            impl #vty {
                /// The command these fields belong to.
                pub const OPCODE: #ename = #ename::#v;
                /// The parameter bits that must be zero.
                pub const ZERO: #pty = #zero_v;
                #[doc = #new_doc]
                #[must_use]
                #new_sig { #new_body }
                /// The parameter as stored.
                #[must_use]
                pub const fn param(self) -> #pty { self.param }
                /// The payload word (0 for a short command).
                #[must_use]
                pub const fn payload(self) -> #word { self.payload }
                /// Whether every must-be-zero bit of the parameter is clear.
                #[must_use]
                pub const fn zero_ok(self) -> bool { #zero_ok }
                #(#members)*
            }
        });
    }
    let fields_body = if field_arms.is_empty() {
        quote!(&[])
    } else if field_arms.len() == s.commands.len() {
        quote!(match self { #(#field_arms,)* })
    } else {
        quote!(match self { #(#field_arms,)* _ => &[] })
    };
    let zero_body = if zero_arms.is_empty() {
        quote!(0)
    } else if zero_arms.len() == s.commands.len() {
        quote!(match self { #(#zero_arms,)* })
    } else {
        quote!(match self { #(#zero_arms,)* _ => 0 })
    };
    let archs_fn = if s.archs.is_empty() {
        quote!()
    } else {
        quote! {
            /// The architectures that have this command.
            #[must_use]
            pub const fn archs(self) -> &'static [Arch] {
                match self { #(#arch_arms,)* }
            }
        }
    };
    let read_word = if big {
        quote!(#word::from_be_bytes)
    } else {
        quote!(#word::from_le_bytes)
    };
    let order = if big { "big" } else { "little" };
    let wd =
        format!(" Read the {order}-endian word at byte `offset` of `bytes`, `None` past the end.");
    let count = Literal::usize_unsuffixed(s.commands.len());
    quote! {
        #sdoc
        ///
        /// The discriminant is a dense index (`0..COUNT`, see `index`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(#repr)]
        pub enum #ename { #(#vdocs #variants,)* }
        impl #ename {
            /// Every command, in index order.
            pub const ALL: &'static [#ename] = &[#(Self::#variants),*];
            /// Number of commands: valid indices are `0..COUNT`.
            pub const COUNT: usize = #count;
            /// Bytes in one word of the stream.
            pub const WORD_BYTES: usize = #word_bytes;
            /// The opcode's bits in the first word.
            pub const OPCODE_MASK: #word = #opcode_mask;
            /// The opcode's lowest bit.
            pub const OPCODE_SHIFT: u32 = #opcode_shift;
            /// The parameter's bits in the first word.
            pub const PARAM_MASK: #word = #param_mask;
            /// The parameter's lowest bit.
            pub const PARAM_SHIFT: u32 = #param_shift;
            /// The bit of the first word that makes a command long (0 when none does).
            pub const LONG_FLAG: #word = #long_flag;
            /// The dense index, `0..COUNT`.
            #[must_use]
            pub const fn index(self) -> usize { self as usize }
            /// The command for the first word without its parameter (the opcode and the long
            /// bit), `None` for an unknown opcode or when any other bit is set.
            #[must_use]
            pub const fn from_code(code: #word) -> Option<Self> {
                if code & !#known != 0 {
                    return None;
                }
                let op = #op_shifted;
                #lookup
            }
            /// The command of a first word (its parameter ignored).
            #[must_use]
            pub const fn from_word(word: #word) -> Option<Self> {
                Self::from_code(word & !Self::PARAM_MASK)
            }
            /// The parameter of a first word.
            #[must_use]
            pub const fn param_of(word: #word) -> #pty {
                #param_of
            }
            /// The first word without its parameter: the opcode in place, and the long bit for
            /// a long command.
            #[must_use]
            pub const fn code(self) -> #word {
                match self { #(#code_body,)* }
            }
            /// The opcode number.
            #[must_use]
            pub const fn opcode(self) -> #word {
                match self { #(Self::#variants => #codes,)* }
            }
            /// The command's name.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self { #(Self::#variants => #names,)* }
            }
            /// Whether a payload word follows the first word.
            #[must_use]
            pub const fn has_payload(self) -> bool { #has_payload_body }
            /// The parameter bits that must be zero.
            #[must_use]
            pub const fn zero_mask(self) -> #pty { #zero_body }
            /// The fields of the parameter and payload, for a listing.
            #[must_use]
            pub const fn fields(self) -> &'static [CommandField] { #fields_body }
            #archs_fn
            #[doc = #wd]
            #[must_use]
            pub fn word_at(bytes: &[u8], offset: usize) -> Option<#word> {
                let end = offset.checked_add(Self::WORD_BYTES)?;
                match bytes.get(offset..end) {
                    Some(b) => match b.try_into() {
                        Ok(a) => Some(#read_word(a)),
                        Err(_) => None,
                    },
                    None => None,
                }
            }
        }
        impl core::fmt::Display for #ename {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.pad(self.name())
            }
        }
        #arch_items
        /// One field of a command's parameter or payload, as declared (for a listing).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct CommandField {
            /// Name.
            pub name: &'static str,
            /// In the payload word (else in the parameter).
            pub payload: bool,
            /// Lowest bit, within the parameter or the payload.
            pub lsb: u32,
            /// Width in bits.
            pub width: u32,
            /// Listed in hexadecimal.
            pub hex: bool,
            /// The enum's name in `UPPER_SNAKE` (`""` when the field has no enum).
            pub enum_name: &'static str,
            /// The enum's values and their schema names.
            pub values: &'static [(u64, &'static str)],
            /// The architectures that have the field: bit k for the k-th declared one (every
            /// bit when the space declares none).
            pub archs: u64,
        }
        impl CommandField {
            /// The field's value from a command's parameter and payload.
            #[must_use]
            pub const fn get(self, param: u64, payload: u64) -> u64 {
                let src = if self.payload { payload } else { param };
                let v = match src.checked_shr(self.lsb) { Some(v) => v, None => 0 };
                match 1u64.checked_shl(self.width) {
                    Some(m) => v & m.wrapping_sub(1),
                    None => v,
                }
            }
            /// The schema's name of value `v` of an enum field.
            #[must_use]
            pub fn value_name(self, v: u64) -> Option<&'static str> {
                self.values.iter().find(|(x, _)| *x == v).map(|(_, n)| *n)
            }
        }
        /// A command, as declared.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct CommandInfo {
            /// The command.
            pub opcode: #ename,
            /// Name.
            pub name: &'static str,
            /// The opcode number.
            pub code: #word,
            /// Whether a payload word follows.
            pub long: bool,
            /// Parameter bits that must be zero.
            pub zero: #pty,
            /// Fields.
            pub fields: &'static [CommandField],
        }
        impl #ename {
            /// The command as declared.
            #[must_use]
            pub const fn info(self) -> CommandInfo {
                CommandInfo {
                    opcode: self,
                    name: self.name(),
                    code: self.opcode(),
                    long: self.has_payload(),
                    zero: self.zero_mask(),
                    fields: self.fields(),
                }
            }
        }
        #(#views)*
    }
}
