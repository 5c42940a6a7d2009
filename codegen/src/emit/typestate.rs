//! The fields of `<File>Spec`, the one writer shape every format takes, and the typestate
//! builder `<File>Writer` a file without a section directory also gets: a layer over the
//! spec, generated from the same list of fields, whose setters assign the spec's fields and
//! whose `write_into` is the spec's. A range the file cannot be written without is a type
//! parameter, so leaving it unset is a compile error.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// How the builder sets a field of the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Set {
    /// A value, set by a setter of the same name.
    Value,
    /// An optional part (`Option<T>`): its setter takes the `T` and gives it.
    Given,
    /// A range the file needs (`&[u8]`): its setter moves the builder to `Set` for it.
    Required,
}

/// One public field of `<File>Spec`.
pub(crate) struct SpecField {
    pub(crate) name: Ident,
    /// Its type in the spec.
    pub(crate) ty: TokenStream,
    /// What `new()` gives it (a constant expression).
    pub(crate) default: TokenStream,
    /// Its doc comment (with a leading space), for the spec's field.
    pub(crate) doc: String,
    pub(crate) set: Set,
    /// For `Set::Given`: the type its setter takes.
    pub(crate) given: TokenStream,
}

impl SpecField {
    /// A field its setter sets as it is, with the default of its type.
    pub(crate) fn value(name: Ident, ty: TokenStream, default: TokenStream, doc: String) -> Self {
        SpecField {
            name,
            ty,
            default,
            doc,
            set: Set::Value,
            given: quote!(),
        }
    }

    /// An optional part: `Option<inner>`, `None` by default.
    pub(crate) fn given(name: Ident, inner: TokenStream, doc: String) -> Self {
        SpecField {
            name,
            ty: quote!(Option<#inner>),
            default: quote!(None),
            doc,
            set: Set::Given,
            given: inner,
        }
    }

    /// Its declaration in the spec struct.
    pub(crate) fn decl(&self) -> TokenStream {
        let (doc, n, ty) = (&self.doc, &self.name, &self.ty);
        quote!(#[doc = #doc] pub #n: #ty,)
    }

    /// Its value in `new()`.
    pub(crate) fn init(&self) -> TokenStream {
        let (n, d) = (&self.name, &self.default);
        quote!(#n: #d,)
    }
}

/// Whether `<File>Spec` borrows its inputs (a range's bytes, a table's records, a string):
/// then it is `<File>Spec<'a>`; a spec of values alone (a header and located records) has no
/// lifetime.
pub(crate) fn borrows(fields: &[SpecField]) -> bool {
    fields.iter().any(|f| f.ty.to_string().contains("'a"))
}

/// `<File>Spec`'s generic arguments: `<'a>` when it borrows, else none.
pub(crate) fn spec_lifetime(fields: &[SpecField], lt: TokenStream) -> TokenStream {
    if borrows(fields) {
        quote!(<#lt>)
    } else {
        quote!()
    }
}

/// `<File>Spec`'s `new()` and `Default`.
pub(crate) fn spec_new(spec: &Ident, fields: &[SpecField]) -> TokenStream {
    let inits = fields.iter().map(SpecField::init);
    let any = spec_lifetime(fields, quote!('_));
    quote! {
        impl Default for #spec #any {
            fn default() -> Self { Self::new() }
        }
        impl #spec #any {
            /// Every value zero or empty, every optional part left out.
            pub const fn new() -> Self {
                Self { #(#inits)* }
            }
        }
    }
}

/// The typestate builder `<File>Writer` over `<File>Spec`, and `<File>Spec::writer`.
pub(crate) fn builder(file: &str, spec: &Ident, fields: &[SpecField]) -> TokenStream {
    let id = format_ident!("{}Writer", file);
    let required: Vec<&SpecField> = fields.iter().filter(|f| f.set == Set::Required).collect();
    let params: Vec<Ident> = required
        .iter()
        .map(|f| format_ident!("{}State", crate::names::camel(&f.name.to_string())))
        .collect();
    let unset = params.iter().map(|_| quote!(Unset));
    let unset2 = unset.clone();
    let set_all = params.iter().map(|_| quote!(Set));
    let set_all2 = set_all.clone();
    let mut setters = Vec::new();
    for f in fields {
        let n = &f.name;
        let how = match f.set {
            Set::Value => "",
            Set::Given => ", given (`Some`)",
            Set::Required => " (required)",
        };
        let doc = format!(" Sets `{spec}::{n}`{how}.{}", f.doc);
        match f.set {
            Set::Value => {
                let ty = &f.ty;
                setters.push(quote! {
                    #[doc = #doc]
                    pub fn #n(mut self, value: #ty) -> Self { self.spec.#n = value; self }
                });
            }
            Set::Given => {
                let ty = &f.given;
                setters.push(quote! {
                    #[doc = #doc]
                    pub fn #n(mut self, value: #ty) -> Self { self.spec.#n = Some(value); self }
                });
            }
            Set::Required => {
                let ty = &f.ty;
                let out = required.iter().zip(&params).map(|(r, p)| {
                    if r.name == f.name {
                        quote!(Set)
                    } else {
                        quote!(#p)
                    }
                });
                setters.push(quote! {
                    #[doc = #doc]
                    pub fn #n(self, value: #ty) -> #id<'a, #(#out),*> {
                        let mut spec = self.spec;
                        spec.#n = value;
                        #id { spec, _state: core::marker::PhantomData }
                    }
                });
            }
        }
    }
    let doc = format!(
        " The typestate builder of a {file} file: a setter per field of `{spec}`, and `write_into` once every range the file needs is set (an unset one is a compile error). It writes what `{spec}` writes."
    );
    let a = spec_lifetime(fields, quote!('a));
    // The builder's `'a` is the spec's; a spec that borrows nothing lends it no bytes.
    let marker = if borrows(fields) {
        quote!((#(#params,)*))
    } else {
        quote!((&'a (), #(#params,)*))
    };
    quote! {
        impl<'a> #spec #a {
            /// The typestate writer holding these values.
            pub fn writer(&self) -> #id<'a, #(#set_all),*> {
                #id { spec: *self, _state: core::marker::PhantomData }
            }
        }
        /// Writer typestate: a required part is not set yet.
        #[derive(Clone, Copy, Debug)]
        pub struct Unset;
        /// Writer typestate: a required part is set.
        #[derive(Clone, Copy, Debug)]
        pub struct Set;
        #[doc = #doc]
        #[derive(Clone, Copy, Debug)]
        #[must_use]
        pub struct #id<'a, #(#params),*> {
            spec: #spec #a,
            _state: core::marker::PhantomData<#marker>,
        }
        impl<'a> #id<'a, #(#unset),*> {
            /// A writer with nothing set.
            pub const fn new() -> Self {
                Self { spec: #spec::new(), _state: core::marker::PhantomData }
            }
        }
        impl Default for #id<'_, #(#unset2),*> {
            fn default() -> Self { Self::new() }
        }
        impl<'a, #(#params),*> #id<'a, #(#params),*> {
            #(#setters)*
        }
        impl #id<'_, #(#set_all2),*> {
            /// How many bytes the file needs.
            ///
            /// # Errors
            /// When a size or place does not fit the fields that must hold it.
            pub fn encoded_len(&self) -> Result<usize, __rt::WriteError> {
                self.spec.encoded_len()
            }
            /// Write the file into `out` (every gap zero); returns the bytes written
            /// (`encoded_len`).
            ///
            /// # Errors
            /// When `out` is too small or a value does not fit its field.
            pub fn write_into(&self, out: &mut [u8]) -> Result<usize, __rt::WriteError> {
                self.spec.write_into(out)
            }
            // `to_vec()` when `npuschema-core` has its `alloc` feature; nothing otherwise.
            __rt::writer_alloc_methods!();
        }
    }
}
