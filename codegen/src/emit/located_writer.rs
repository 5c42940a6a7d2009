//! The plain writer's located records (`check/located_writer.rs`): each placed where
//! `writer.order` names it (a step of `<File>Plan`, `<record>_at`), written after the
//! header from the setters `<record>_<field>` (the names the directory writer's `<File>Spec`
//! gives them) and the values the writer derives (`record_writer.rs`, as next to a
//! directory). A version-gated record is written in the layout of its gate's value, its
//! size `size_for(gate)`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::dir_writer::field_kind;
use crate::check::located_writer::analyse;
use crate::check::plan::Plan;
use crate::check::{Checked, FieldKind, Scope};
use crate::emit::lit_usize;
use crate::emit::record_writer::gate_value;
use crate::model::{Item, Placement, Rule, What};

fn plan(c: &Checked) -> Option<Plan<'_>> {
    analyse(c).ok().flatten()
}

/// The writer's inputs of the located records: (setter name, field kind, doc), in record
/// and field order.
pub(crate) fn inputs(c: &Checked) -> Vec<(String, FieldKind, String)> {
    let Some(p) = plan(c) else { return Vec::new() };
    let mut out = Vec::new();
    for (k, r) in c.schema.file.ext.records.iter().enumerate() {
        let (Some(st), Some(rules)) = (c.strukt(&r.strukt.text), p.records.get(k)) else {
            continue;
        };
        for (i, f) in st.fields.iter().enumerate() {
            if !matches!(rules.get(i), Some(Rule::Input)) {
                continue;
            }
            let Some(kind) = field_kind(c, st, i) else {
                continue;
            };
            let doc = format!(
                " Set `{}.{}`: {}",
                r.name.text,
                f.name.text,
                f.doc
                    .lines()
                    .next()
                    .unwrap_or("")
                    .replace('[', "\\[")
                    .replace(']', "\\]")
            );
            out.push((format!("{}_{}", r.name.text, f.name.text), kind, doc));
        }
    }
    out
}

/// The plan step placing located record `name` (`<name>_at`), when it is one: the plan's
/// field, its initialiser and the step.
pub(crate) fn plan_step(
    c: &Checked,
    name: &str,
    align: &Literal,
) -> Option<(TokenStream, TokenStream, TokenStream)> {
    let file = &c.schema.file;
    let k = file.ext.records.iter().position(|r| r.name.text == name)?;
    let p = plan(c)?;
    let r = file.ext.records.get(k)?;
    let at_var = format_ident!("{}_at", name);
    let size = c.layouts.get(&r.strukt.text).map_or(0, |l| l.size);
    let s = Literal::u64_suffixed(size);
    // A version-gated record: the size of its gate's layout; when a place the writer
    // computes reads `end(<name>)`, the record's gate is bound as `<name>` (`__rt::Gate`,
    // what `end` reads: `emit/sections.rs`).
    let (size, gate_binding) = match gate_value(c, &p.gates, &p.computed_gates, k) {
        Some(g) => {
            let ty = format_ident!("{}", r.strukt.text);
            let var = format_ident!("{}", name);
            let bind = if end_is_read(c, name) {
                quote!(let #var = __rt::Gate(#g);)
            } else {
                quote!()
            };
            (quote!(#ty::size_for(#g)), bind)
        }
        None => (quote!(#s), quote!()),
    };
    let at = match p.placement(Item::Record(k))? {
        // At the end of the file: right after what precedes it, the last item.
        Placement::End => quote!(cursor),
        Placement::Derived => {
            quote!(__rt::align_up(cursor, #align).ok_or(__rt::WriteError::TooLarge { field: #name, value: cursor })?)
        }
        Placement::Fixed(e) => {
            let val = crate::emit::value_tokens(c, e, Scope::Top);
            quote!(match #val { Some(a) if a >= cursor => a, _ => return Err(__rt::WriteError::Layout { item: #name }) })
        }
    };
    Some((
        quote!(#at_var: u64,),
        quote!(#at_var,),
        quote! {
            let #at_var: u64 = #at;
            cursor = #at_var.checked_add(#size).ok_or(__rt::WriteError::TooLarge { field: #name, value: #at_var })?;
            #gate_binding
        },
    ))
}

/// Whether a place, count or length the writer computes reads `end(<name>)`.
fn end_is_read(c: &Checked, name: &str) -> bool {
    fn reads(e: &crate::expr::Expr, name: &str) -> bool {
        use crate::expr::Expr;
        match e {
            Expr::Call(f, args) => {
                (f == "end"
                    && matches!(args.as_slice(), [Expr::Ref(p)] if p.len() == 1 && p[0] == name))
                    || args.iter().any(|a| reads(a, name))
            }
            Expr::Bin(_, a, b) => reads(a, name) || reads(b, name),
            Expr::Not(a) => reads(a, name),
            Expr::At(_, i, _) => reads(i, name),
            Expr::Num(_) | Expr::Ref(_) => false,
        }
    }
    let file = &c.schema.file;
    file.tables
        .iter()
        .any(|t| reads(&t.at.expr, name) || reads(&t.count.expr, name))
        || file.ranges.iter().any(|r| {
            r.table.is_none() && (reads(&r.offset.expr, name) || reads(&r.length.expr, name))
        })
        || file.ext.records.iter().any(|r| reads(&r.at.expr, name))
}

/// `write_into`'s code writing every located record at its place in `plan`.
pub(crate) fn writes(c: &Checked) -> Vec<TokenStream> {
    let Some(p) = plan(c) else { return Vec::new() };
    let file = &c.schema.file;
    let mut out = Vec::new();
    for (k, r) in file.ext.records.iter().enumerate() {
        let (Some(st), Some(rules)) = (c.strukt(&r.strukt.text), p.records.get(k)) else {
            continue;
        };
        // The places the record's fields hold, bound from the plan.
        let mut place_vars: Vec<(Item, proc_macro2::Ident)> = Vec::new();
        let mut binds = Vec::new();
        for rule in rules {
            let Rule::Derived(What::Place(it), _) = rule else {
                continue;
            };
            if place_vars.iter().any(|(x, _)| x == it) {
                continue;
            }
            let Some(n) = c.item_name(*it) else { continue };
            let v = format_ident!("{}_at", n);
            binds.push(quote!(let #v: u64 = plan.#v;));
            place_vars.push((*it, v));
        }
        let gate = gate_value(c, &p.gates, &p.computed_gates, k);
        let writes = crate::emit::record_writer::located_field_writes(
            c,
            st,
            rules,
            r,
            &place_vars,
            &[],
            gate.is_some(),
        );
        let size = lit_usize(c.layouts.get(&st.name.text).map_or(0, |l| l.size));
        let at = format_ident!("{}_at", r.name.text);
        let item = r.name.text.as_str();
        out.push(match gate {
            // The layout of its gate: its fields there, its size `size_for(gate)` (the
            // buffer holds every field).
            Some(g) => {
                let ty = format_ident!("{}", st.name.text);
                quote! {
                    {
                        let gate: u64 = #g;
                        #(#binds)*
                        let mut rec: [u8; #size] = [0u8; #size];
                        #(#writes)*
                        let n: usize = usize::try_from(#ty::size_for(gate)).unwrap_or(usize::MAX);
                        __rt::put(out, plan.#at, rec.get(..n).ok_or(__rt::WriteError::Layout { item: #item })?)?;
                    }
                }
            }
            None => quote! {
                {
                    #(#binds)*
                    let mut rec: [u8; #size] = [0u8; #size];
                    #(#writes)*
                    __rt::put(out, plan.#at, &rec)?;
                }
            },
        });
    }
    out
}

/// `write_into`'s bindings, before the checksums are patched in, of the located records a
/// checksum's span reads (`info.body_offset`): each record's view over a copy of its bytes
/// as written; a version-gated record's in the layout of its gate (the bytes its size for
/// that gate takes, the rest of the copy zero).
pub(crate) fn span_views(c: &Checked) -> TokenStream {
    let file = &c.schema.file;
    let mut out = Vec::new();
    let p = plan(c);
    for k in crate::check::located_writer::span_records(c) {
        let Some(r) = file.ext.records.get(k) else {
            continue;
        };
        let at_var = format_ident!("{}_at", r.name.text);
        let at = quote!(Some(plan.#at_var));
        match p
            .as_ref()
            .and_then(|p| gate_value(c, &p.gates, &p.computed_gates, k))
        {
            Some(g) => {
                let gate = format_ident!("{}_gate", r.name.text);
                out.push(quote!(let #gate: u64 = #g;));
                out.push(crate::emit::record_writer::read_back(
                    c,
                    r,
                    &at,
                    Some(&gate),
                ));
            }
            None => out.push(crate::emit::record_writer::read_back(c, r, &at, None)),
        }
    }
    quote!(#(#out)*)
}
