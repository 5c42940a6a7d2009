//! `include_schema!("path/to/schema.yaml")`: expands, in place, to the same code that
//! `npuschema gen` and `npuschema_codegen::Builder` write for that schema. The path is
//! relative to the invoking crate's root (`CARGO_MANIFEST_DIR`, the directory of its
//! `Cargo.toml`), not to the source file.
//!
//! ```ignore
//! mod npu1 { npuschema_macro::include_schema!("schema/npu1.yaml"); }
//! ```
//!
//! The expanded code names `::npuschema_core`, so the invoking crate also depends on
//! `npuschema-core` (a proc-macro crate can export nothing but macros, so it cannot
//! re-export it). Schema mistakes become compile errors, one per mistake, each with the
//! schema's file:line:column.

use proc_macro::TokenStream;
use quote::quote;

/// Expand a schema file to its generated readers, validators and writers.
#[proc_macro]
pub fn include_schema(input: TokenStream) -> TokenStream {
    let lit = syn::parse_macro_input!(input as syn::LitStr);
    let rel = lit.value();
    let base = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let path = base.join(&rel);
    match npuschema_codegen::load(&path) {
        Ok(checked) => {
            let code = npuschema_codegen::generate_tokens(&checked);
            // Make the compiler rebuild when the schema changes.
            let shown = path.display().to_string();
            quote! {
                const _: &[u8] = include_bytes!(#shown);
                #code
            }
            .into()
        }
        // One compile error per mistake, each printed once by the compiler as
        // `error: file:line:column: message`.
        Err(diags) => npuschema_codegen::compile_errors(&diags, lit.span()).into(),
    }
}
