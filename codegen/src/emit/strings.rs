//! Emission of strings in byte ranges (`schema/strings.rs`): the view's string accessors,
//! the `string_fits`/`string_utf8` steps and the writer's string placement.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::check::Scope;
use crate::check::strings::def;
use crate::emit::{Blame, Det, Em, Env, Opd};
use crate::schema::strings::{StrStep, StringDef};

/// The string's offset bound to `offset` (evaluated with `env`), the lookup of the string
/// in `range` (an `Option<&[u8]>`), and the offset as a `u64` for an error.
pub(crate) fn lookup(
    em: &Em<'_>,
    s: &StringDef,
    scope: Scope<'_>,
    env: &Env,
) -> (TokenStream, TokenStream, TokenStream) {
    let p = s.prefix_bytes();
    let big = s.big.unwrap_or(false);
    match em.plain(&s.offset.expr, scope, env) {
        // An offset that cannot fail to compute (a field, a constant): a plain `u64`.
        Some(v) => (
            quote!(let offset: u64 = #v;),
            quote!(__rt::string_at(range, offset, #p, #big)),
            quote!(offset),
        ),
        None => {
            let v = em.value(&s.offset.expr, scope, env);
            (
                quote!(let offset: Option<u64> = #v;),
                quote!(offset.and_then(|o| __rt::string_at(range, o, #p, #big))),
                quote!(offset.unwrap_or(u64::MAX)),
            )
        }
    }
}

/// The bytes the string lies in: its range's variable (bound by its `range_fits`), or the
/// whole buffer.
pub(crate) fn range_of(s: &StringDef, holder: &TokenStream) -> TokenStream {
    match &s.range {
        Some(r) => {
            let v = format_ident!("{}", r.text);
            quote!(#holder #v)
        }
        None => quote!(#holder buf),
    }
}

pub(crate) fn limit_name(s: &StringDef) -> String {
    s.range
        .as_ref()
        .map_or("len".to_string(), |r| r.text.clone())
}

/// The binding of a record's string that a `for_each` body's `string_fits` step, guarded by
/// no `when`, finds for every record: `let __str_<name>: Option<&'a [u8]> = ..;`, placed just
/// before that step. The steps after it in the body (its own check, `string_utf8`, a
/// `unique`/`ordered` key) take the bytes found instead of looking the string up again: a
/// NUL-terminated string is one scan, not one per step. `None` for a file's string.
pub(crate) fn found_once(
    em: &Em<'_>,
    s: &StrStep,
    scope: Scope<'_>,
    env: &Env,
) -> Option<TokenStream> {
    let sd = def(em.c, &s.string().text)?;
    sd.table.as_ref()?;
    let (decl, find_in, _) = lookup(em, sd, scope, env);
    let range = range_of(sd, &quote!());
    let var = found_var(sd);
    let comment = format!(
        "@step string `{}` at `{}`, found once for the steps below.",
        sd.name.text, sd.offset.text
    );
    Some(quote! {
        #[doc = #comment]
        let #var: Option<&'a [u8]> = {
            #decl
            let range: &'a [u8] = #range;
            #find_in
        };
    })
}

/// The variable [`found_once`] binds.
pub(crate) fn found_var(sd: &StringDef) -> proc_macro2::Ident {
    format_ident!("__str_{}", sd.name.text)
}

/// The lookup of a record's string: its bytes found once ([`found_once`]) when `env` says
/// they were, else `find_in`.
pub(crate) fn found_or(sd: &StringDef, env: &Env, find_in: &TokenStream) -> TokenStream {
    if env.found.contains(&sd.name.text) {
        let var = found_var(sd);
        quote!(#var)
    } else {
        find_in.clone()
    }
}

/// A string step in validation. A file's string is bound to a variable of its name (for the
/// view); a record's string is only checked.
pub(crate) fn emit_step(em: &Em<'_>, s: &StrStep, scope: Scope<'_>, env: &Env) -> TokenStream {
    let Some(sd) = def(em.c, &s.string().text) else {
        return quote!();
    };
    let code = &s.code().text;
    let b: Blame = em.blame(&sd.offset.expr, scope);
    let (decl, find_in, start) = lookup(em, sd, scope, env);
    let range = range_of(sd, &quote!());
    let p = sd.prefix_bytes();
    let big = sd.big.unwrap_or(false);
    let var = format_ident!("{}", sd.name.text);
    let per_record = sd.table.is_some();
    match s {
        StrStep::Fits { .. } => {
            let comment = format!(
                "@step {code}: string `{}` at `{}` must lie inside `{}`.",
                sd.name.text,
                sd.offset.text,
                limit_name(sd)
            );
            let f = em.fail(
                code,
                &b,
                Det::Range(
                    start.clone(),
                    quote!(__rt::string_extent(range, #start, #p, #big)),
                    limit_name(sd),
                    quote!(u64::try_from(range.len()).unwrap_or(u64::MAX)),
                ),
            );
            let find_in = found_or(sd, env, &find_in);
            let find = quote! {
                #decl
                let range: &'a [u8] = #range;
                let Some(s) = #find_in else {
                    return #f;
                };
            };
            if per_record {
                quote! {
                    #[doc = #comment]
                    {
                        #find
                        let _ = s;
                    }
                }
            } else {
                quote! {
                    #[doc = #comment]
                    let #var: &'a [u8] = { #find s };
                }
            }
        }
        StrStep::Utf8 { .. } => {
            let comment = format!("@step {code}: string `{}` must be UTF-8.", sd.name.text);
            let f = em.fail(
                code,
                &b,
                Det::Compare(
                    Opd::Val(quote!(u64::try_from(at).unwrap_or(u64::MAX))),
                    Opd::Val(quote!(u64::try_from(s.len()).unwrap_or(u64::MAX))),
                    [
                        "valid_utf8".to_string(),
                        "<".to_string(),
                        "length".to_string(),
                    ],
                ),
            );
            let get = if per_record && env.found.contains(&sd.name.text) {
                let var = found_var(sd);
                quote!(let s: &'a [u8] = #var.unwrap_or(&[]);)
            } else if per_record {
                quote! {
                    #decl
                    let range: &'a [u8] = #range;
                    let s: &'a [u8] = #find_in.unwrap_or(&[]);
                }
            } else {
                quote!(let s: &'a [u8] = #var;)
            };
            quote! {
                #[doc = #comment]
                {
                    #get
                    if let Some(at) = __rt::utf8_invalid_at(s) {
                        return #f;
                    }
                }
            }
        }
    }
}

/// The view's fields and accessors for the strings.
pub(crate) fn file_items(em: &Em<'_>) -> crate::emit::sections::FileItems {
    let mut out = crate::emit::sections::FileItems::default();
    for s in &em.c.schema.file.strings {
        let var = format_ident!("{}", s.name.text);
        let var_str = format_ident!("{}_str", s.name.text);
        let sdoc = if s.doc.is_empty() {
            String::new()
        } else {
            s.doc.trim_end().to_string()
        };
        let what = match s.prefix {
            Some((t, _)) => format!("after its `{}` length", t.rust()),
            None => "up to its NUL (not included)".to_string(),
        };
        let doc = format!(
            " {sdoc}\n\nString `{}` at `{}` in `{}`, {what}: borrowed from the validated buffer.",
            s.name.text,
            s.offset.text,
            limit_name(s)
        );
        let doc_str = format!(
            " String `{}` as text: `Err` when it is not UTF-8 (checked here, on each call; a `string_utf8` step checks it once while validating).",
            s.name.text
        );
        match &s.table {
            None => {
                out.fields.push(quote!(#var: &'a [u8],));
                out.inits.push(quote!(#var,));
                out.accessors.push(quote! {
                    #[doc = #doc]
                    #[must_use]
                    #[inline]
                    pub fn #var(&self) -> &'a [u8] { self.#var }
                    #[doc = #doc_str]
                    ///
                    /// # Errors
                    /// When the bytes are not UTF-8.
                    #[inline]
                    pub fn #var_str(&self) -> Result<&'a str, core::str::Utf8Error> {
                        core::str::from_utf8(self.#var)
                    }
                });
            }
            Some(t) => {
                let Some(table) =
                    em.c.schema
                        .file
                        .tables
                        .iter()
                        .find(|x| x.name.text == t.text)
                else {
                    continue;
                };
                let rec_ty = format_ident!("{}", table.record.text);
                let scope = Scope::RecordOnly(table);
                let env = Env {
                    header: quote!(rec),
                    record: quote!(rec),
                    found: Vec::new(),
                };
                let (decl, find_in, _) = lookup(em, s, scope, &env);
                let range = range_of(s, &quote!(self.));
                let rdoc = "\n\nThe record's string (empty for a record of another file: validation proved every record of this one has its string).";
                out.accessors.push(quote! {
                    #[doc = #doc]
                    #[doc = #rdoc]
                    #[must_use]
                    pub fn #var(&self, rec: &#rec_ty<'a>) -> &'a [u8] {
                        let _ = rec;
                        #decl
                        let range: &'a [u8] = #range;
                        #find_in.unwrap_or(&[])
                    }
                    #[doc = #doc_str]
                    ///
                    /// # Errors
                    /// When the bytes are not UTF-8.
                    #[inline]
                    pub fn #var_str(&self, rec: &#rec_ty<'a>) -> Result<&'a str, core::str::Utf8Error> {
                        core::str::from_utf8(self.#var(rec))
                    }
                });
            }
        }
    }
    out
}
