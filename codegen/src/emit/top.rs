//! The generated module: [`tokens`] assembles the constants, enums, views, validators,
//! writers, register blocks and command sets (each from its emitter) and the error-site table.

use proc_macro2::TokenStream;
use quote::quote;

use crate::check::Checked;
use crate::emit::{Em, ModuleOut, sites_table};

/// The generated module body as tokens, its error sites numbered by the lowered model
/// (`lower/sites.rs`).
pub fn tokens(c: &Checked) -> TokenStream {
    let list = ModuleOut::numbered(crate::lower::sites::number(c));
    let body = module(c, &list);
    let (sites, unnumbered) = list.into_sites();
    let table = sites_table(&sites);
    // A check whose site the model does not give: a generator bug, never shipped.
    let missing = unnumbered.iter().map(|k| {
        let field = if k.table.is_empty() {
            k.name.clone()
        } else {
            format!("{}[].{}", k.table, k.name)
        };
        let msg = format!(
            "npuschema: internal error: the check `{}` on `{field}` ({:?}) has no error site in the lowered model (codegen/src/lower/sites.rs); please report it",
            k.code, k.shape
        );
        quote!(compile_error!(#msg);)
    });
    quote! {
        #body
        #table
        #(#missing)*
    }
}

/// The module without its `ERROR_SITES` table (which [`tokens`] adds).
pub(crate) fn module(c: &Checked, sites: &ModuleOut) -> TokenStream {
    let em = Em { c, sites };
    let name = &c.schema.name.text;
    let sha = &c.sha256;
    let sdoc = format!(
        " Schema `{name}`: {}",
        crate::emit::doc::flow(&c.schema.doc)
    );
    let constants = em.constants();
    let enums = em.enums();
    let flags = em.flags();
    let bitfields = crate::emit::sections::bitfields(c);
    let views = em.views();
    let file = if !c.schema.has_file {
        quote!()
    } else if c.schema.file.ext.variants.is_some() {
        crate::emit::sections::variants(c, sites)
    } else {
        em.file_view()
    };
    let writer = crate::emit::file_writer::tokens(c);
    let registers = crate::emit::regs::tokens(c);
    let commands = crate::emit::commands::tokens(c);
    let stream_writers = crate::emit::stream::writers(&em);
    let struct_values = crate::emit::nested_writer::value_types(c);
    quote! {
        #[allow(unused_imports)]
        use ::npuschema_core as __rt;
        #[doc = #sdoc]
        pub const SCHEMA_NAME: &str = #name;
        /// SHA-256 of the schema text this code was generated from.
        pub const SCHEMA_SHA256: &str = #sha;
        #constants
        #enums
        #flags
        #bitfields
        #views
        #file
        #writer
        #registers
        #commands
        #stream_writers
        #struct_values
    }
}
