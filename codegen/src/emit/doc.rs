//! A schema's `doc:` text as `#[doc]` attributes on the generated items.

use proc_macro2::TokenStream;
use quote::quote;

/// One `#[doc]` line per line of `doc`. Square brackets are escaped: a schema author writes
/// prose (`bits [7:4]`), not Rust intra-doc links, and rustdoc would otherwise try to resolve
/// `[7:4]` as a link (an error under `-D warnings`).
pub(crate) fn doc_attr(doc: &str) -> TokenStream {
    lines(&doc.replace('[', "\\[").replace(']', "\\]"))
}

/// A schema's `doc:` text whole, as one line (its lines trimmed and joined by a space), for
/// a generated doc that sets it inside a sentence of its own. (Cut at its first line, a doc
/// stopped mid-sentence.)
pub(crate) fn flow(doc: &str) -> String {
    doc.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The generator's own text, whose intra-doc links are meant: no escaping.
pub(crate) fn lines(doc: &str) -> TokenStream {
    let lines = doc.lines().map(|l| {
        let l = format!(" {l}");
        quote!(#[doc = #l])
    });
    quote!(#(#lines)*)
}

#[cfg(test)]
mod tests {
    #[test]
    fn schema_docs_escape_brackets_and_generator_docs_keep_links() {
        let d = super::doc_attr("bits [7:4]\nsecond").to_string();
        assert!(d.contains(r#"" bits \\[7:4\\]""#), "{d}");
        assert!(d.contains(r#"" second""#), "{d}");
        let l = super::lines("see [`X::y`]").to_string();
        assert!(l.contains("[`X::y`]"), "{l}");
    }
}
