//! Writer emission. The writer is derived from the validation rules, so the two cannot
//! disagree: a field that must equal a constant is written with it, a field that must equal
//! `len` gets the file's length, a table's count field its number of records, a range's
//! offset and length fields the place the writer chose, a checksum's field the checksum, and
//! a flag bit that gates a per-record range is set when the record carries the bytes.
//! Every other field is an input: a setter for header fields, a field of the record's
//! `...Spec` struct for table records.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::check::expr::single_field;
use crate::check::writer::record_rules;
use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::expr::Expr;
use crate::model::{Part, Rule, Sum, What};
use crate::names::camel;
use crate::schema::{IntTy, Range, Table};

/// Writer tokens, empty when the schema has no `writer` section.
pub fn tokens(c: &Checked) -> TokenStream {
    let file = &c.schema.file;
    let Some(w) = &file.writer else {
        return quote!();
    };
    if !file.ext.directories.is_empty() {
        // A section directory's writer: `emit/dir_writer.rs`.
        return quote!();
    }
    let Some(hs) = c.header() else {
        return quote!();
    };
    let hl = &c.layouts[&hs.name.text];
    let id = format_ident!("{}Writer", file.name.text);
    let plan_ty = format_ident!("{}Plan", file.name.text);
    let hty = format_ident!("{}", hs.name.text);
    let align = Literal::u64_suffixed(w.align);
    let hsize = Literal::usize_unsuffixed(usize::try_from(hl.size).unwrap_or(0));
    let hsize64 = Literal::u64_suffixed(hl.size);

    // ---- header rules (`check/writer.rs`)
    let Ok(Some(plan)) = crate::check::located_writer::analyse(c) else {
        return TokenStream::new();
    };
    let hrules = plan.header;
    // Fields inside struct-typed header fields that the rules derive (`nested_writer.rs`).
    let leaf_rules = plan.leaves;
    let top_ranges: Vec<&Range> = file.ranges.iter().filter(|r| r.table.is_none()).collect();
    let strings = crate::emit::strings::writer_parts(c);

    // A range that holds strings is built by the writer, not given (`strtab_writer.rs`).
    let top_ranges: Vec<&Range> = top_ranges
        .into_iter()
        .filter(|r| !crate::check::strtab_writer::is_built(c, &r.name.text))
        .collect();
    // A range with `when` (one header flag bit, `check/when_writer.rs`) is optional: not
    // part of the typestate; the writer sets its bit when it is given and clears it if not.
    let (opt_ranges, top_ranges): (Vec<&Range>, Vec<&Range>) =
        top_ranges.into_iter().partition(|r| r.when.is_some());
    let given = |t: &Table| {
        let g = crate::emit::when_writer::given(t);
        quote!(self.#g)
    };
    let mut opt_bits: Vec<(usize, TokenStream)> =
        crate::emit::when_writer::range_bit_patches(c, hl);
    // And those of the tables whose `table_fits` has `when` one flag bit (`when_writer.rs`).
    opt_bits.extend(crate::emit::when_writer::table_bit_patches(c, hl, &given));

    // ---- inputs: header setters
    let mut in_fields = Vec::new();
    let mut setters = Vec::new();
    let mut moves = Vec::new();
    // The same inputs as the public fields of `<File>Spec` (the one writer shape every
    // format has), and the writer's fields made from them.
    let mut spec_fields = Vec::new();
    let mut spec_defaults = Vec::new();
    let mut spec_inits = Vec::new();
    for (i, f) in hs.fields.iter().enumerate() {
        if !hrules[i].is_input() {
            continue;
        }
        let name = format_ident!("{}", f.name.text);
        let (ty, default) = field_type(c, hl.fields[i].1);
        let doc = format!(" Set `{}`: {}", f.name.text, crate::emit::doc::flow(&f.doc));
        let sdoc = format!(" `{}`: {}", f.name.text, crate::emit::doc::flow(&f.doc));
        spec_fields.push(quote!(#[doc = #sdoc] pub #name: #ty,));
        spec_defaults.push(quote!(#name: #default,));
        spec_inits.push(quote!(#name: spec.#name,));
        in_fields.push(quote!(#name: #ty,));
        moves.push(quote!(#name: self.#name,));
        setters.push(quote! {
            #[doc = #doc]
            pub fn #name(mut self, value: #ty) -> Self { self.#name = value; self }
        });
    }

    // The located records' inputs (`located_writer.rs`): a setter `<record>_<field>` each.
    for (n, kind, doc) in crate::emit::located_writer::inputs(c) {
        let name = format_ident!("{}", n);
        let (ty, default) = field_type(c, kind);
        let sdoc = doc.replacen(" Set ", " ", 1);
        spec_fields.push(quote!(#[doc = #sdoc] pub #name: #ty,));
        spec_defaults.push(quote!(#name: #default,));
        spec_inits.push(quote!(#name: spec.#name,));
        in_fields.push(quote!(#name: #ty,));
        moves.push(quote!(#name: self.#name,));
        setters.push(quote! {
            #[doc = #doc]
            pub fn #name(mut self, value: #ty) -> Self { self.#name = value; self }
        });
    }

    spec_fields.extend(strings.spec_fields);
    spec_defaults.extend(strings.spec_defaults);
    spec_inits.extend(strings.spec_inits);
    in_fields.extend(strings.fields);
    moves.extend(strings.moves);
    setters.extend(strings.setters);

    // ---- tables: spec structs
    let mut spec_items = Vec::new();
    for t in &file.tables {
        let name = format_ident!("{}", t.name.text);
        let spec = spec_ty(c, t);
        let doc = format!(" Set the records of `{}`.", t.name.text);
        in_fields.push(quote!(#name: &'a [#spec],));
        moves.push(quote!(#name: self.#name,));
        let sdoc = format!(" The records of `{}`.", t.name.text);
        if crate::emit::when_writer::optional_table(c, t) {
            // Optional (`when`): left out unless set (`emit/when_writer.rs`).
            let g = crate::emit::when_writer::given(t);
            let sdoc = format!(
                " The records of `{}` (optional: `None` leaves it out).",
                t.name.text
            );
            spec_fields.push(quote!(#[doc = #sdoc] pub #name: Option<&'a [#spec]>,));
            spec_defaults.push(quote!(#name: None,));
            spec_inits.push(quote!(#name: match spec.#name { Some(r) => r, None => &[] }, #g: spec.#name.is_some(),));
            let doc = if crate::check::when_writer::table_bit(c, t).is_some() {
                format!(
                    " Set the records of `{}` (optional: left out, its count zero and its flag bit cleared, unless set).",
                    t.name.text
                )
            } else {
                format!(
                    " Set the records of `{}` (optional: left out, its count zero, unless set; `write_into` checks its `when` on the header it writes).",
                    t.name.text
                )
            };
            in_fields.push(quote!(#g: bool,));
            moves.push(quote!(#g: self.#g,));
            setters.push(quote! {
                #[doc = #doc]
                pub fn #name(mut self, value: &'a [#spec]) -> Self { self.#name = value; self.#g = true; self }
            });
        } else {
            spec_fields.push(quote!(#[doc = #sdoc] pub #name: &'a [#spec],));
            spec_defaults.push(quote!(#name: &[],));
            spec_inits.push(quote!(#name: spec.#name,));
            setters.push(quote! {
                #[doc = #doc]
                pub fn #name(mut self, value: &'a [#spec]) -> Self { self.#name = value; self }
            });
        }
        spec_items.push(spec_struct(c, t));
    }

    // ---- optional top-level ranges (`when`)
    for r in &opt_ranges {
        let name = format_ident!("{}", r.name.text);
        let doc = if crate::check::when_writer::flag_bit(c, r).is_some() {
            format!(
                " Set `{}` (optional: left out, and its flag bit cleared, unless set): {}",
                r.name.text,
                crate::emit::doc::flow(&r.doc)
            )
        } else {
            format!(
                " Set `{}` (optional: left out unless set; `write_into` checks `when: {}` on the header it writes): {}",
                r.name.text,
                r.when.as_ref().map_or("", |w| w.text.as_str()),
                crate::emit::doc::flow(&r.doc)
            )
        };
        let sdoc = format!(
            " `{}` (optional: `None` leaves it out): {}",
            r.name.text,
            crate::emit::doc::flow(&r.doc)
        );
        spec_fields.push(quote!(#[doc = #sdoc] pub #name: Option<&'a [u8]>,));
        spec_defaults.push(quote!(#name: None,));
        spec_inits.push(quote!(#name: spec.#name,));
        in_fields.push(quote!(#name: Option<&'a [u8]>,));
        moves.push(quote!(#name: self.#name,));
        setters.push(quote! {
            #[doc = #doc]
            pub fn #name(mut self, value: &'a [u8]) -> Self { self.#name = Some(value); self }
        });
    }

    // ---- required top-level ranges: typestate
    let state_params: Vec<_> = top_ranges
        .iter()
        .map(|r| format_ident!("{}State", camel(&r.name.text)))
        .collect();
    let mut range_setters = Vec::new();
    for (k, r) in top_ranges.iter().enumerate() {
        let name = format_ident!("{}", r.name.text);
        let sdoc = format!(" `{}`: {}", r.name.text, crate::emit::doc::flow(&r.doc));
        spec_fields.push(quote!(#[doc = #sdoc] pub #name: &'a [u8],));
        spec_defaults.push(quote!(#name: &[],));
        spec_inits.push(quote!(#name: spec.#name,));
        in_fields.push(quote!(#name: &'a [u8],));
        let out_params = state_params
            .iter()
            .enumerate()
            .map(|(j, p)| if j == k { quote!(Set) } else { quote!(#p) });
        let out_params2 = out_params.clone();
        let field_moves = top_ranges.iter().map(|o| {
            let n = format_ident!("{}", o.name.text);
            if o.name.text == r.name.text {
                quote!(#n: value,)
            } else {
                quote!(#n: self.#n,)
            }
        });
        let doc = format!(
            " Set `{}` (required): {}",
            r.name.text,
            crate::emit::doc::flow(&r.doc)
        );
        let moves2 = moves.clone();
        range_setters.push(quote! {
            #[doc = #doc]
            pub fn #name(self, value: &'a [u8]) -> #id<'a, #(#out_params2),*> {
                #id { #(#moves2)* #(#field_moves)* _state: core::marker::PhantomData }
            }
        });
        let _ = out_params;
    }
    let unset_params = state_params.iter().map(|_| quote!(Unset));
    let unset_params2 = unset_params.clone();
    let set_params = state_params.iter().map(|_| quote!(Set));

    // The located records a checksum's span reads, as written (`emit/located_writer.rs`).
    let span_views = crate::emit::located_writer::span_views(c);

    // ---- plan: where everything goes
    let mut plan_fields = Vec::new();
    let mut plan_steps = Vec::new();
    let mut plan_inits = Vec::new();
    for item in &w.order {
        if let Some((step, at)) = crate::emit::strings::plan_step(c, &item.text, &align) {
            plan_fields.push(quote!(#at: u64,));
            plan_inits.push(quote!(#at,));
            plan_steps.push(step);
        } else if let Some((f, i, step)) =
            crate::emit::strtab_writer::plan_step(c, &item.text, &align)
        {
            plan_fields.extend(f);
            plan_inits.extend(i);
            plan_steps.push(step);
        } else if let Some((f, i, step)) =
            crate::emit::located_writer::plan_step(c, &item.text, &align)
        {
            plan_fields.push(f);
            plan_inits.push(i);
            plan_steps.push(step);
        } else if let Some(t) = c.table(&item.text) {
            let at_var = format_ident!("{}_at", t.name.text);
            let name = format_ident!("{}", t.name.text);
            let size = Literal::u64_suffixed(c.layouts.get(&t.record.text).map_or(0, |l| l.size));
            let count_check = count_check(c, t);
            let item_name = t.name.text.as_str();
            // At one header field: at the cursor, aligned, and the field set to it; else at
            // the constant place, which must not lie before the cursor.
            let at = if crate::check::writer::at_is_field(c, t) {
                quote!(__rt::align_up(cursor, #align).ok_or(__rt::WriteError::TooLarge { field: #item_name, value: cursor })?)
            } else if let Some(f) = crate::check::linform::place_form(c, &t.name.text) {
                // A linear form of a header field: the first place it can store (`linform.rs`).
                let start = quote!(__rt::align_up(cursor, #align).ok_or(__rt::WriteError::TooLarge { field: #item_name, value: cursor })?);
                crate::emit::linform::place(&f, &start, item_name)
            } else if let Some(e) = crate::check::trailer::table_end(c, t) {
                // At the end of the file: right after what precedes it (`emit/trailer.rs`).
                crate::emit::trailer::table_place(c, t, &e)
            } else {
                let at = top_value(c, &t.at.expr);
                quote!(match #at { Some(a) if a >= cursor => a, _ => return Err(__rt::WriteError::Layout { item: #item_name }) })
            };
            plan_fields.push(quote!(#at_var: u64,));
            plan_inits.push(quote!(#at_var,));
            let place = quote! {
                #count_check
                let #at_var: u64 = #at;
                cursor = (self.#name.len() as u64).checked_mul(#size).and_then(|n| n.checked_add(#at_var))
                    .ok_or(__rt::WriteError::TooLarge { field: #item_name, value: u64::MAX })?;
            };
            if crate::emit::when_writer::optional_table(c, t) {
                // Left out: no place, no bytes (`emit/when_writer.rs`).
                let g = crate::emit::when_writer::given(t);
                plan_steps.push(quote! {
                    let #at_var: u64 = if self.#g { #place #at_var } else { 0 };
                });
            } else {
                plan_steps.push(place);
            }
        } else if let Some(r) = file.ranges.iter().find(|r| r.name.text == item.text) {
            let item_name = r.name.text.as_str();
            match &r.table {
                None if r.when.is_some() => {
                    let at_var = format_ident!("{}_at", r.name.text);
                    let name = format_ident!("{}", r.name.text);
                    plan_fields.push(quote!(#at_var: u64,));
                    plan_inits.push(quote!(#at_var,));
                    plan_steps.push(quote! {
                        let #at_var = match self.#name {
                            Some(bytes) => {
                                let at = __rt::align_up(cursor, #align).ok_or(__rt::WriteError::TooLarge { field: #item_name, value: cursor })?;
                                cursor = at.checked_add(bytes.len() as u64).ok_or(__rt::WriteError::TooLarge { field: #item_name, value: at })?;
                                at
                            }
                            None => 0,
                        };
                    });
                }
                None => {
                    let at_var = format_ident!("{}_at", r.name.text);
                    let name = format_ident!("{}", r.name.text);
                    plan_fields.push(quote!(#at_var: u64,));
                    plan_inits.push(quote!(#at_var,));
                    // At its constant offset when it has one (`check/range_place.rs`).
                    let place = match crate::check::range_place::const_offset(c, r) {
                        Some(e) => {
                            let at = top_value(c, e);
                            quote!(match #at { Some(a) if a >= cursor => a, _ => return Err(__rt::WriteError::Layout { item: #item_name }) })
                        }
                        None => {
                            quote!(__rt::align_up(cursor, #align).ok_or(__rt::WriteError::TooLarge { field: #item_name, value: cursor })?)
                        }
                    };
                    // A linear form of a header field: the first place it can store (`linform.rs`).
                    let place = match crate::check::linform::place_form(c, item_name) {
                        Some(f) => crate::emit::linform::place(&f, &place, item_name),
                        None => place,
                    };
                    // A trailer right after what precedes it; a fixed length checked (`emit/trailer.rs`).
                    let place = crate::emit::trailer::place(c, r, place);
                    let length_check = crate::emit::trailer::length_check(c, r);
                    plan_steps.push(quote! {
                        #length_check
                        let #at_var = #place;
                        cursor = #at_var.checked_add(self.#name.len() as u64).ok_or(__rt::WriteError::TooLarge { field: #item_name, value: #at_var })?;
                    });
                }
                Some(tn) => {
                    let start_var = format_ident!("{}_start", r.name.text);
                    let tname = format_ident!("{}", tn.text);
                    let Some(t) = c.table(&tn.text) else { continue };
                    let spec_enum = format_ident!("{}{}", t.record.text, camel(&r.name.text));
                    let present = variant(r.present.as_ref(), "Present");
                    plan_fields.push(quote!(#start_var: u64,));
                    plan_inits.push(quote!(#start_var,));
                    let rn = format_ident!("{}", r.name.text);
                    // An offset solved for a record field: the first place it can store.
                    let at = crate::emit::linform::record_range_at(
                        c,
                        r,
                        &quote!(cursor),
                        &align,
                        item_name,
                    );
                    plan_steps.push(quote! {
                        let #start_var = cursor;
                        for spec in self.#tname {
                            if let #spec_enum::#present(bytes) = spec.#rn {
                                let at = #at;
                                cursor = at.checked_add(bytes.len() as u64).ok_or(__rt::WriteError::TooLarge { field: #item_name, value: at })?;
                            }
                        }
                    });
                }
            }
        }
    }

    // ---- header bytes: the header's inputs and derived values, written as every writer
    // writes a record's fields (`record_writer.rs`), and the checksums patched in last
    let mut header_writes = Vec::new();
    let mut checksum_patch = Vec::new();
    let src = |n: &str| {
        let n = format_ident!("{}", n);
        quote!(self.#n)
    };
    for (i, f) in hs.fields.iter().enumerate() {
        let (off, kind) = hl.fields[i];
        let path = format!("header.{}", f.name.text);
        let patches: Vec<&TokenStream> = opt_bits
            .iter()
            .filter(|(fi, _)| *fi == i)
            .map(|(_, p)| p)
            .collect();
        if hrules[i].is_input() && !patches.is_empty() {
            // The flag bits of the optional ranges and tables: set when the part is given.
            let o = Literal::usize_unsuffixed(usize::try_from(off).unwrap_or(0));
            let name = format_ident!("{}", f.name.text);
            let tob = crate::emit::to_bytes(f.big);
            let raw = match kind {
                FieldKind::Enum(_) => quote!(self.#name.raw()),
                FieldKind::Flags(_) | FieldKind::Bits(_) => quote!(self.#name.bits()),
                _ => quote!(self.#name),
            };
            header_writes.push(quote! {{
                let bits = #raw;
                #(#patches)*
                __rt::set(&mut rec, #o, bits.#tob());
            }});
            continue;
        }
        if let Some(ity) = kind.int_ty(&c.schema) {
            checksum_patch.extend(checksum_patch_of(c, &hrules[i], (off, ity, f.big), &path));
        }
        header_writes.extend(crate::emit::record_writer::write_field(
            c,
            f,
            i,
            off,
            None,
            kind,
            &hrules,
            &src,
            &[],
            &[],
            "header",
        ));
    }
    // The fields inside struct-typed fields that the rules derive, over the values given.
    for (l, p, rule) in &leaf_rules {
        if let Some((ity, big)) = crate::emit::nested_writer::leaf_store(c, *l) {
            checksum_patch.extend(checksum_patch_of(c, rule, (l.at, ity, big), p));
            if let Rule::Derived(what, part) = rule
                && !matches!(what, What::Checksum(_))
            {
                let o = Literal::usize_unsuffixed(usize::try_from(l.at).unwrap_or(0));
                header_writes.push(crate::emit::record_writer::write_derived(
                    c,
                    (what, part),
                    (&quote!(#o), ity, big),
                    p,
                    &[],
                    &[],
                ));
            }
        }
    }

    // ---- tables and their record ranges
    let mut table_writes = Vec::new();
    let mut data_writes = Vec::new();
    for t in &file.tables {
        let (rec_code, data_code) = table_code(c, t, w.align);
        table_writes.push(rec_code);
        data_writes.push(data_code);
    }
    let range_writes = top_ranges
        .iter()
        .map(|r| {
            let at = format_ident!("{}_at", r.name.text);
            let n = format_ident!("{}", r.name.text);
            quote!(__rt::put(out, plan.#at, self.#n)?;)
        })
        .chain(opt_ranges.iter().map(|r| {
            let at = format_ident!("{}_at", r.name.text);
            let n = format_ident!("{}", r.name.text);
            quote!(if let Some(bytes) = self.#n { __rt::put(out, plan.#at, bytes)?; })
        }))
        .collect::<Vec<_>>();

    let string_writes = strings.writes;
    // The conditions of the optional parts, checked on the header as written.
    let when_checks = crate::emit::when_writer::checks(c, &given);
    let located_writes = crate::emit::located_writer::writes(c);
    let doc = format!(
        " Writes a {name} file in one forward pass into a caller's buffer: every offset computed, the\n ranges aligned to {a} bytes, the checksum patched in. Derived fields are not settable.",
        name = c.schema.name.text,
        a = w.align
    );
    let file_ty = format_ident!("{}", file.name.text);
    // A long body is cut into helper methods (`split.rs`); these are in scope before it.
    let splitter = crate::emit::split::Splitter::writer("write_into");
    let write_body = splitter.split(
        quote! {
            let mut rec: [u8; #hsize] = [0u8; #hsize];
            #(#header_writes)*
            __rt::put(out, 0, &rec)?;
            // The header as written, for expressions that name its fields.
            let header: #hty<'_> = #hty { raw: &rec, buf: &rec, index: 0 };
            let _ = &header;
            #(#when_checks)*
            #(#located_writes)*
            #(#table_writes)*
            #(#range_writes)*
            #(#string_writes)*
            #(#data_writes)*
            #span_views
            #(#checksum_patch)*
            Ok(out.len())
        },
        &[
            crate::emit::split::Binding::typed("self", quote!(Self)),
            crate::emit::split::Binding::typed("plan", quote!(#plan_ty)),
            crate::emit::split::Binding::typed("out", quote!(&mut [u8])),
            crate::emit::split::Binding::typed("len", quote!(u64)),
        ],
    );
    let write_helpers = splitter.take_helpers();
    let plan_splitter = crate::emit::split::Splitter::writer("plan");
    let plan_body = plan_splitter.split(
        quote! {
            let mut cursor: u64 = #hsize64;
            #(#plan_steps)*
            Ok(#plan_ty { total: cursor, #(#plan_inits)* })
        },
        &[crate::emit::split::Binding::typed("self", quote!(Self))],
    );
    let plan_helpers = plan_splitter.take_helpers();
    let spec_id = format_ident!("{}Spec", file.name.text);
    let spec_doc = format!(
        " The values a {name} file is written from, as plain fields: the shape every format's writer takes (`{id}` is a typestate builder over the same values that cannot leave a required range unset).",
        name = c.schema.name.text
    );
    let set_params2 = state_params.iter().map(|_| quote!(Set));
    quote! {
        #[doc = #spec_doc]
        #[derive(Clone, Copy, Debug)]
        pub struct #spec_id<'a> {
            #(#spec_fields)*
        }
        impl Default for #spec_id<'_> {
            fn default() -> Self { Self::new() }
        }
        impl<'a> #spec_id<'a> {
            /// Every value zero or empty, every optional part left out.
            pub const fn new() -> Self {
                Self { #(#spec_defaults)* }
            }
            /// The typestate writer holding these values.
            pub fn writer(&self) -> #id<'a, #(#set_params2),*> {
                #id::__from_spec(*self)
            }
            /// How many bytes the file needs.
            ///
            /// # Errors
            /// When a size does not fit the fields that must hold it.
            pub fn encoded_len(&self) -> Result<usize, __rt::WriteError> {
                self.writer().encoded_len()
            }
            /// Write the file into `out`; returns the bytes written (`encoded_len`).
            ///
            /// # Errors
            /// When `out` is too small or a value does not fit its field.
            pub fn write_into(&self, out: &mut [u8]) -> Result<usize, __rt::WriteError> {
                self.writer().write_into(out)
            }
            // `to_vec()` when `npuschema-core` has its `alloc` feature; nothing otherwise.
            __rt::writer_alloc_methods!();
        }
        /// Writer typestate: a required part is not set yet.
        #[derive(Clone, Copy, Debug)]
        pub struct Unset;
        /// Writer typestate: a required part is set.
        #[derive(Clone, Copy, Debug)]
        pub struct Set;
        #(#spec_items)*
        #[doc = #doc]
        #[derive(Clone, Copy, Debug)]
        #[must_use]
        pub struct #id<'a, #(#state_params),*> {
            #(#in_fields)*
            _state: core::marker::PhantomData<(#(#state_params,)*)>,
        }
        #[derive(Clone, Copy, Debug)]
        struct #plan_ty { total: u64, #(#plan_fields)* }
        impl<'a> #id<'a, #(#unset_params),*> {
            /// A writer with nothing set.
            pub const fn new() -> Self {
                Self::__from_spec(#spec_id::new())
            }
        }
        impl Default for #id<'_, #(#unset_params2),*> {
            fn default() -> Self { Self::new() }
        }
        impl<'a, #(#state_params),*> #id<'a, #(#state_params),*> {
            /// The writer holding `spec`'s values, in any typestate: `new` and
            /// `<File>Spec::writer` both start from it, so the two agree by construction.
            const fn __from_spec(spec: #spec_id<'a>) -> Self {
                Self { #(#spec_inits)* _state: core::marker::PhantomData }
            }
            #(#setters)*
            #(#range_setters)*
        }
        impl<'a> #id<'a, #(#set_params),*> {
            fn plan(&self) -> Result<#plan_ty, __rt::WriteError> {
                #plan_body
            }
            #(#plan_helpers)*
            /// How many bytes the file needs.
            ///
            /// # Errors
            /// When a size does not fit the fields that must hold it.
            pub fn encoded_len(&self) -> Result<usize, __rt::WriteError> {
                let total = self.plan()?.total;
                usize::try_from(total).map_err(|_| __rt::WriteError::TooLarge { field: "total", value: total })
            }
            /// Write the file into `out`; returns the bytes written (`encoded_len`).
            ///
            /// # Errors
            /// When `out` is too small or a value does not fit its field.
            pub fn write_into(&self, out: &mut [u8]) -> Result<usize, __rt::WriteError> {
                let plan: #plan_ty = self.plan()?;
                let available = out.len() as u64;
                let Some(out): Option<&mut [u8]> = usize::try_from(plan.total).ok().and_then(|n| out.get_mut(..n)) else {
                    return Err(__rt::WriteError::BufferTooSmall { needed: plan.total, available });
                };
                out.fill(0);
                let len: u64 = plan.total;
                let _ = len;
                #write_body
            }
            #(#write_helpers)*
            // `to_vec()` when `npuschema-core` has its `alloc` feature; nothing otherwise.
            __rt::writer_alloc_methods!();
        }
        const _: fn() = || { let _ = #file_ty::validate; };
    }
}

/// The patch of a file checksum stored in a header field (`rule` a `Checksum`), stored as
/// `ity` at `off` in byte order `big`, computed once the file is written; none for another
/// rule.
fn checksum_patch_of(
    c: &Checked,
    rule: &Rule,
    (off, ity, big): (u64, IntTy, bool),
    path: &str,
) -> Option<TokenStream> {
    let Rule::Derived(What::Checksum(Sum::File(ki)), _) = rule else {
        return None;
    };
    let k = c.schema.file.checksums.get(*ki)?;
    let store = crate::emit::record_writer::checksum_store(c, k, (off, ity, big), path);
    Some(quote!({ #store }))
}

pub(crate) fn field_type(c: &Checked, kind: FieldKind) -> (TokenStream, TokenStream) {
    match kind {
        FieldKind::Float(w) => {
            let ty = format_ident!("{}", if w { "f64" } else { "f32" });
            (quote!(#ty), quote!(0.0))
        }
        FieldKind::Int(t) => {
            let ty = format_ident!("{}", t.rust());
            (quote!(#ty), quote!(0))
        }
        FieldKind::Enum(e) => {
            let en = &c.schema.enums[e];
            let ty = format_ident!("{}", en.name.text);
            if en.open {
                (quote!(#ty), quote!(#ty::from_raw(0)))
            } else {
                let first = format_ident!(
                    "{}",
                    camel(
                        &en.values
                            .first()
                            .map_or("Missing".to_string(), |v| v.name.text.clone())
                    )
                );
                (quote!(#ty), quote!(#ty::#first))
            }
        }
        FieldKind::Flags(f) => {
            let ty = format_ident!("{}", c.schema.flags[f].name.text);
            (quote!(#ty), quote!(#ty::empty()))
        }
        FieldKind::Bits(b) => {
            let ty = format_ident!(
                "{}",
                c.schema
                    .bitfields
                    .get(b)
                    .map_or("Missing", |x| x.name.text.as_str())
            );
            (quote!(#ty), quote!(#ty::from_bits(0)))
        }
        FieldKind::Array(t, n) => {
            let ty = format_ident!("{}", t.rust());
            let n = Literal::usize_unsuffixed(usize::try_from(n).unwrap_or(0));
            (quote!([#ty; #n]), quote!([0; #n]))
        }
        FieldKind::Bytes(n) | FieldKind::Str(n) => {
            let n = Literal::usize_unsuffixed(usize::try_from(n).unwrap_or(0));
            (quote!(&'a [u8; #n]), quote!(&[0u8; #n]))
        }
        // A struct-typed field: the struct's value type (`nested_writer.rs`).
        k @ (FieldKind::Struct(..) | FieldKind::Structs(..)) => {
            crate::emit::nested_writer::input_type(c, k).unwrap_or_else(|| (quote!(u8), quote!(0)))
        }
    }
}

/// The writer's variant name for a per-record range's `present` / `absent` case: the
/// schema's name in UpperCamel, or `default`.
pub(crate) fn variant(name: Option<&crate::schema::Name>, default: &str) -> proc_macro2::Ident {
    format_ident!("{}", name.map_or(default.to_string(), |n| camel(&n.text)))
}

fn top_value(c: &Checked, e: &Expr) -> TokenStream {
    crate::emit::value_tokens(c, e, Scope::Top)
}

/// The spec type of a table's records: `<Record>Spec<'a>` when a per-record range lends it
/// bytes, `<Record>Spec` when it owns all its fields.
pub(crate) fn spec_ty(c: &Checked, t: &Table) -> TokenStream {
    let spec = format_ident!("{}Spec", t.record.text);
    let borrows = c
        .schema
        .file
        .ranges
        .iter()
        .any(|r| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
        || !crate::check::strtab_writer::record_strings(c, t).is_empty();
    if borrows {
        quote!(#spec<'a>)
    } else {
        quote!(#spec)
    }
}

/// The spec struct (and per-range data enum) for a table's records.
pub(crate) fn spec_struct(c: &Checked, t: &Table) -> TokenStream {
    let file = &c.schema.file;
    let Some(st) = c.strukt(&t.record.text) else {
        return quote!();
    };
    let l = &c.layouts[&t.record.text];
    let rules = record_rules(c, t);
    let mut fields = Vec::new();
    let mut enums = Vec::new();
    for (i, f) in st.fields.iter().enumerate() {
        if rules[i].is_input() {
            let name = format_ident!("{}", f.name.text);
            let (ty, _) = field_type(c, l.fields[i].1);
            let doc = format!(" {}", crate::emit::doc::flow(&f.doc));
            let doc = if doc.trim().is_empty() {
                format!(" `{}`.", f.name.text)
            } else {
                doc
            };
            fields.push(quote!(#[doc = #doc] pub #name: #ty,));
        }
    }
    for r in file
        .ranges
        .iter()
        .filter(|r| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
    {
        let (f, e) = range_spec(c, t, r);
        fields.push(f);
        enums.push(e);
    }
    fields.extend(crate::emit::strtab_writer::spec_fields(c, t));
    let doc = format!(
        " One record of `{}` for the writer: the fields it cannot derive.",
        t.name.text
    );
    // A float input has no `Eq`.
    let floats = st.fields.iter().enumerate().any(|(i, _)| {
        rules[i].is_input() && crate::emit::nested_writer::value_has_floats(c, l.fields[i].1)
    });
    let eq = if floats { quote!() } else { quote!(, Eq) };
    let spec_t = spec_ty(c, t);
    quote! {
        #(#enums)*
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq #eq)]
        pub struct #spec_t { #(#fields)* }
    }
}

/// The field of a record's `<Record>Spec` for its per-record range `r` (its bytes, or the
/// length recorded when the record carries none) and the enum it takes. Shared by the
/// plain writer's tables and another per-record range of a directory table.
pub(crate) fn range_spec(c: &Checked, t: &Table, r: &Range) -> (TokenStream, TokenStream) {
    let l = &c.layouts[&t.record.text];
    let name = format_ident!("{}", r.name.text);
    let en = format_ident!("{}{}", t.record.text, camel(&r.name.text));
    let present = variant(r.present.as_ref(), "Present");
    let absent = variant(r.absent.as_ref(), "Absent");
    let len_kind = single_field(c, &r.length.expr, Scope::RecordOnly(t))
        .and_then(|(_, i)| l.fields.get(i))
        .map(|f| f.1)
        .or_else(|| {
            // A length inside a struct-typed field (`span.length`).
            crate::emit::nested_writer::leaf_of(c, &r.length.expr, Scope::RecordOnly(t))
                .and_then(|(_, lf)| c.leaf(lf))
                .map(|x| x.2)
        });
    let len_ty = match len_kind {
        Some(FieldKind::Int(ti)) => format_ident!("{}", ti.rust()),
        _ => format_ident!("u64"),
    };
    let doc = format!(
        " Whether a record carries its `{}` bytes in the file.",
        r.name.text
    );
    let pdoc = match crate::emit::doc::flow(&r.doc).as_str() {
        d if !d.is_empty() => format!(" The bytes, stored in the file ({d})."),
        _ => " The bytes, stored in the file.".to_string(),
    };
    let field = quote!(#[doc = #doc] pub #name: #en<'a>,);
    let en_def = quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum #en<'a> {
            #[doc = #pdoc]
            #present(&'a [u8]),
            /// Not stored in the file: only its length is recorded.
            #absent(#len_ty),
        }
    };
    (field, en_def)
}

/// The fields inside a record's struct-typed fields that a per-record range's `offset` or
/// `length` names (`span.offset`): derived like a field of the record (`nested_writer.rs`).
fn record_leaf_rules(c: &Checked, t: &Table) -> Vec<(crate::check::Leaf, String, What)> {
    let mut out = Vec::new();
    for (ri, r) in c.schema.file.ranges.iter().enumerate() {
        if r.table.as_ref().is_none_or(|x| x.text != t.name.text) {
            continue;
        }
        for (e, rule) in [
            (&r.offset.expr, What::RecordOffset(ri)),
            (&r.length.expr, What::RecordLength(ri)),
        ] {
            if let (Some((_, l)), Expr::Ref(p)) = (
                crate::emit::nested_writer::leaf_of(c, e, Scope::RecordOnly(t)),
                e,
            ) {
                out.push((l, format!("{}[].{}", t.name.text, p.join(".")), rule));
            }
        }
        // A flag bit inside a struct-typed field that says the record carries the bytes.
        if let Some(w) = &r.when
            && let Expr::Ref(p) = &w.expr
            && let Ok(Resolved::Nested(Owner::Record, l)) = c.resolve(p, Scope::RecordOnly(t))
            && l.bit.is_some()
        {
            out.push((
                l,
                format!("{}[].{}", t.name.text, p.join(".")),
                What::RecordFlag(ri),
            ));
        }
    }
    out
}

/// The check that the records given match a `count` the schema fixes (a number or constant).
pub(crate) fn count_check(c: &Checked, t: &Table) -> TokenStream {
    let Some(n) = crate::check::table_writer::fixed_count(c, t) else {
        return quote!();
    };
    let n = Literal::u64_suffixed(n);
    let recs = crate::emit::when_writer::records(c, t);
    let item = t.name.text.as_str();
    quote! {
        if #recs.len() as u64 != #n {
            return Err(__rt::WriteError::WrongCount { table: #item, expected: #n, given: #recs.len() as u64 });
        }
    }
}

/// The code that sets a record's fields for its per-record range `r` (index `ri` into
/// `file.ranges`) of table `t`: when the record carries the bytes (`bytes`, placed at
/// `at`) and when not (`n`, the length recorded), over the record's bytes `rec`. Shared by
/// the plain writer's tables and another per-record range of a directory table
/// (`emit/dir_writer.rs`).
pub(crate) fn range_sets(
    c: &Checked,
    t: &Table,
    ri: usize,
    r: &Range,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let Some(st) = c.strukt(&t.record.text) else {
        return (Vec::new(), Vec::new());
    };
    let Some(l) = c.layouts.get(&t.record.text) else {
        return (Vec::new(), Vec::new());
    };
    let rules = record_rules(c, t);
    let ri = &ri;
    let mut on_present = Vec::new();
    let mut on_absent = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let (off, kind) = l.fields[i];
        let o = Literal::usize_unsuffixed(usize::try_from(off).unwrap_or(0));
        let fname = &st.fields[i].name.text;
        let path = format!("{}[].{}", t.name.text, fname);
        let tob = crate::emit::to_bytes(st.fields[i].big);
        let Some(ity) = kind.int_ty(&c.schema) else {
            continue;
        };
        let ty = format_ident!("{}", ity.rust());
        match rule {
            Rule::Derived(What::RecordOffset(x), Part::Whole) if x == ri => {
                on_present.push(quote! {
                    let v = #ty::try_from(at).map_err(|_| __rt::WriteError::TooLarge { field: #path, value: at })?;
                    __rt::set(&mut rec, #o, v.#tob());
                });
            }
            Rule::Derived(What::RecordLength(x), Part::Whole) if x == ri => {
                on_present.push(quote! {
                    let v = #ty::try_from(bytes.len()).map_err(|_| __rt::WriteError::TooLarge { field: #path, value: bytes.len() as u64 })?;
                    __rt::set(&mut rec, #o, v.#tob());
                });
                on_absent.push(quote!(__rt::set(&mut rec, #o, n.#tob());));
            }
            // Solved for the field through a linear form (`emit/linform.rs`).
            Rule::Derived(What::RecordOffset(x), Part::Lin(f)) if x == ri => {
                let store = (off, ity, st.fields[i].big);
                on_present.push(crate::emit::linform::solved_store(
                    f,
                    &quote!(at),
                    store,
                    &path,
                    &quote!(rec),
                ))
            }
            Rule::Derived(What::RecordLength(x), Part::Lin(f)) if x == ri => {
                let store = (off, ity, st.fields[i].big);
                let s = crate::emit::linform::solved_store(
                    f,
                    &quote!(bytes.len() as u64),
                    store,
                    &path,
                    &quote!(rec),
                );
                on_present.push(quote!({ #s }));
                let s =
                    crate::emit::linform::solved_store(f, &quote!(n), store, &path, &quote!(rec));
                on_absent.push(quote!({ #s }));
            }
            _ => {}
        }
    }
    // The flag bit that says the record carries the bytes: set when it does, cleared when
    // not, over the field's value (the writer's, or the spec's when the flags type has
    // other bits: `check/writer.rs`'s `record_rules`).
    if let Some(w) = &r.when
        && let Expr::Ref(p) = &w.expr
        && let Ok(Resolved::FlagBit(_, fi, bi)) = c.resolve(p, Scope::RecordOnly(t))
        && let (Some(&(off, FieldKind::Flags(fl))), Some(f)) = (l.fields.get(fi), st.fields.get(fi))
        && let Some(flags) = c.schema.flags.get(fl)
        && let Some(bit) = flags.bits.get(bi)
    {
        let fty = format_ident!("{}", flags.name.text);
        let bit = format_ident!("{}", bit.name.text);
        let ty = format_ident!("{}", flags.repr.rust());
        let tob = crate::emit::to_bytes(f.big);
        let from = crate::emit::from_bytes(f.big);
        let o = Literal::usize_unsuffixed(usize::try_from(off).unwrap_or(0));
        let w = Literal::usize_unsuffixed(usize::try_from(flags.repr.bytes()).unwrap_or(0));
        // (The writer's own field starts at zero: nothing to clear.)
        let input = rules.get(fi).is_some_and(Rule::is_input);
        for (on, list) in [(true, &mut on_present), (false, &mut on_absent)] {
            if !on && !input {
                continue;
            }
            let v = if on {
                quote!(v | #fty::#bit.bits())
            } else {
                quote!(v & !#fty::#bit.bits())
            };
            list.push(quote! {
                let v = #ty::#from(rec.get(#o..).and_then(<[u8]>::first_chunk::<#w>).copied().unwrap_or_default());
                __rt::set(&mut rec, #o, (#v).#tob());
            });
        }
    }
    for (lf, path, rule) in record_leaf_rules(c, t) {
        match rule {
            What::RecordOffset(x) if x == *ri => {
                on_present.push(crate::emit::nested_writer::set_leaf(
                    c,
                    lf,
                    &quote!(at),
                    false,
                    &path,
                    &quote!(&mut rec),
                ))
            }
            What::RecordLength(x) if x == *ri => {
                on_present.push(crate::emit::nested_writer::set_leaf(
                    c,
                    lf,
                    &quote!(bytes.len() as u64),
                    false,
                    &path,
                    &quote!(&mut rec),
                ));
                on_absent.push(crate::emit::nested_writer::set_leaf(
                    c,
                    lf,
                    // `n` has the leaf's type when it is an integer (`spec_struct`).
                    &match c.leaf(lf).map(|x| x.2) {
                        Some(FieldKind::Int(IntTy::U64)) | None => quote!(n),
                        Some(FieldKind::Int(t)) if !t.signed() => quote!(u64::from(n)),
                        Some(FieldKind::Int(_)) => {
                            quote!(u64::try_from(n).unwrap_or(u64::MAX))
                        }
                        Some(_) => quote!(n),
                    },
                    false,
                    &path,
                    &quote!(&mut rec),
                ));
            }
            // The bit set when the record carries the bytes, cleared when not; the
            // other bits as its `<Struct>Value` gives them.
            What::RecordFlag(x) if x == *ri => {
                on_present.push(crate::emit::nested_writer::set_leaf_bit(
                    c,
                    lf,
                    true,
                    &quote!(rec),
                ));
                on_absent.push(crate::emit::nested_writer::set_leaf_bit(
                    c,
                    lf,
                    false,
                    &quote!(rec),
                ));
            }
            _ => {}
        }
    }
    (on_present, on_absent)
}

/// After a record of table `t` is complete in `rec` (its spec `spec`, its index `i`): the
/// check of each per-record range's `when` that is not one flag bit of the record (one
/// that is, the writer sets): evaluated on the record as written, it must hold exactly
/// when the spec gives the bytes (`WriteError::RecordWhenDisagrees`). Shared by the plain
/// writer's tables and the directory writer's other per-record ranges.
pub(crate) fn record_when_checks(
    c: &Checked,
    t: &Table,
    ranges: &[(usize, &Range)],
) -> TokenStream {
    let mut out = Vec::new();
    for (_, r) in ranges {
        let Some(w) = &r.when else { continue };
        if crate::check::writer::record_flag_when(c, t, w) {
            continue;
        }
        let en = format_ident!("{}{}", t.record.text, camel(&r.name.text));
        let present = variant(r.present.as_ref(), "Present");
        let rn = format_ident!("{}", r.name.text);
        let part = format!("{}[].{}", t.name.text, r.name.text);
        let ty = format_ident!("{}", t.record.text);
        let cond = crate::emit::Em {
            c,
            sites: &crate::emit::ModuleOut::default(),
        }
        .cond(
            &w.expr,
            Scope::RecordOnly(t),
            &crate::emit::Env {
                header: quote!(header),
                record: quote!(wrec),
            },
        );
        out.push(quote! {
            {
                let wrec = #ty { raw: &rec, buf: &rec, index: u32::try_from(i).unwrap_or(u32::MAX) };
                let given = matches!(spec.#rn, #en::#present(_));
                if #cond != given {
                    return Err(__rt::WriteError::RecordWhenDisagrees { part: #part, index: i as u64, given });
                }
            }
        });
    }
    quote!(#(#out)*)
}

/// Code writing the table's records, and code writing its record ranges' bytes.
pub(crate) fn table_code(c: &Checked, t: &Table, align: u64) -> (TokenStream, TokenStream) {
    let file = &c.schema.file;
    let Some(st) = c.strukt(&t.record.text) else {
        return (quote!(), quote!());
    };
    let l = &c.layouts[&t.record.text];
    let rules = record_rules(c, t);
    let size = Literal::usize_unsuffixed(usize::try_from(l.size).unwrap_or(0));
    let size64 = Literal::u64_suffixed(l.size);
    let align = Literal::u64_suffixed(align);
    // (`self.<t>`, or an optional directory-writer table's records: `emit/when_writer.rs`.)
    let recs = crate::emit::when_writer::records(c, t);
    let at_var = format_ident!("{}_at", t.name.text);
    let rranges: Vec<(usize, &Range)> = file
        .ranges
        .iter()
        .enumerate()
        .filter(|(_, r)| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
        .collect();
    let cursors = rranges.iter().map(|(_, r)| {
        let cur = format_ident!("{}_cursor", r.name.text);
        let start = format_ident!("{}_start", r.name.text);
        quote!(let mut #cur = plan.#start;)
    });
    let cursors2 = cursors.clone();
    let mut per_range = Vec::new();
    let mut per_range_data = Vec::new();
    for (ri, r) in &rranges {
        let en = format_ident!("{}{}", t.record.text, camel(&r.name.text));
        let present = variant(r.present.as_ref(), "Present");
        let absent = variant(r.absent.as_ref(), "Absent");
        let rn = format_ident!("{}", r.name.text);
        let cur = format_ident!("{}_cursor", r.name.text);
        let item = format!("{}[].{}", t.name.text, r.name.text);
        let (on_present, on_absent) = range_sets(c, t, *ri, r);
        // An offset solved for a record field: the first place it can store (as `plan`).
        let at = crate::emit::linform::record_range_at(c, r, &quote!(#cur), &align, &item);
        per_range.push(quote! {
            match spec.#rn {
                #en::#present(bytes) => {
                    let at = #at;
                    #cur = at.saturating_add(bytes.len() as u64);
                    #(#on_present)*
                }
                #en::#absent(n) => { #(#on_absent)* let _ = n; }
            }
        });
        per_range_data.push(quote! {
            if let #en::#present(bytes) = spec.#rn {
                let at = #at;
                __rt::put(out, at, bytes)?;
                #cur = at.saturating_add(bytes.len() as u64);
            }
        });
    }
    // The inputs, written as every writer writes a record's (`record_writer.rs`).
    let mut inputs = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let (Some(&(off, kind)), Some(f)) = (l.fields.get(i), st.fields.get(i)) else {
            continue;
        };
        if rule.is_input() {
            let name = format_ident!("{}", f.name.text);
            inputs.push(crate::emit::record_writer::write_input(
                kind,
                off,
                None,
                f.big,
                &quote!(spec.#name),
            ));
        }
    }
    let when_checks = record_when_checks(c, t, &rranges);
    // The offsets of the records' strings (`strtab_writer.rs`).
    let (str_cursors, str_sets) = crate::emit::strtab_writer::record_offsets(c, t);
    let str_sets = str_sets.into_iter().map(|(_, s)| s);
    let records = quote! {
        {
            #(#cursors)*
            #str_cursors
            for (i, spec) in #recs.iter().enumerate() {
                let mut rec = [0u8; #size];
                #(#inputs)*
                #(#str_sets)*
                #(#per_range)*
                #when_checks
                __rt::put(out, plan.#at_var.saturating_add((i as u64).saturating_mul(#size64)), &rec)?;
            }
        }
    };
    let data = if per_range_data.is_empty() {
        quote!()
    } else {
        quote! {
            {
                #(#cursors2)*
                for spec in #recs { #(#per_range_data)* }
            }
        }
    };
    (records, data)
}
