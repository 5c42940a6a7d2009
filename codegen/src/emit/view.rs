//! The views and validators: the methods of [`Em`] that emit expressions (references,
//! values, conditions, blame), the constants, enums and flags, the struct and file views, and
//! the validator's steps (calling each construct's step emitter).

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, format_ident, quote};

use crate::check::expr::single_field;
use crate::check::{FieldKind, Owner, Resolved, Scope};
use crate::emit::doc::doc_attr;
use crate::emit::{
    Blame, Det, Em, Env, Idx, IntoTyped, Opd, from_bytes, int_ident, lit_u64, lit_usize,
    order_prev, order_prev_bytes, reps_var, strip_parens, widen,
};
use crate::expr::{BinOp, Expr, ExprAt};
use crate::names::camel;
use crate::schema::top::{Step, Struct};
use crate::schema::{IntTy, Range, Table};

impl<'a> Em<'a> {
    pub(crate) fn schema(&self) -> &crate::schema::top::Schema {
        &self.c.schema
    }

    pub(crate) fn struct_of(&self, owner: Owner, scope: Scope<'_>) -> Option<&'a Struct> {
        match (owner, scope) {
            (Owner::Header, _) => self.c.header(),
            (Owner::Located(i), _) => self
                .c
                .schema
                .file
                .ext
                .records
                .get(i)
                .and_then(|r| self.c.strukt(&r.strukt.text)),
            (Owner::Element(t, _), _) => self
                .c
                .schema
                .file
                .tables
                .get(t)
                .and_then(|t| self.c.strukt(&t.record.text)),
            (Owner::Record, Scope::Record(t) | Scope::RecordOnly(t)) => {
                self.c.strukt(&t.record.text)
            }
            _ => None,
        }
    }

    /// Tokens of type `u64` for a leaf; `?` may appear (in an `Option` context).
    /// Tokens reaching the view that owns a field.
    pub(crate) fn base(&self, owner: Owner, env: &Env) -> TokenStream {
        match owner {
            Owner::Header => env.header.clone(),
            Owner::Record => env.record.clone(),
            Owner::Located(i) => {
                let r = self
                    .c
                    .schema
                    .file
                    .ext
                    .records
                    .get(i)
                    .map_or("missing", |r| r.name.text.as_str());
                let id = format_ident!("{}", r);
                // Present only `when` its condition holds: an `Option`, read in value
                // positions (a read of an absent record has no value).
                if self
                    .c
                    .schema
                    .file
                    .ext
                    .records
                    .get(i)
                    .is_some_and(|r| r.when.is_some())
                {
                    quote!(#id?)
                } else {
                    quote!(#id)
                }
            }
            // Only in value positions (inside `Option` closures): a missing record fails.
            Owner::Element(t, k) => crate::emit::sections::element_base(self, t, k),
        }
    }

    pub(crate) fn leaf(&self, path: &[String], scope: Scope<'_>, env: &Env) -> TokenStream {
        match self.c.resolve(path, scope) {
            Ok(Resolved::Len) => quote!(len),
            Ok(Resolved::RecPos(k)) => crate::emit::recpos::emit(k),
            // Computed once by its `let` step, as an `Option<u64>` (`None`: it overflowed).
            Ok(Resolved::Let(i)) => {
                let id = format_ident!("__let_{}", self.c.lets.name(i).unwrap_or("missing"));
                quote!(#id?)
            }
            // The value itself: comparing with it reads no enum.
            Ok(Resolved::EnumValue(e, v)) => {
                let l = Literal::u64_suffixed(
                    self.schema().enums[e].values.get(v).map_or(0, |x| x.value),
                );
                quote!(#l)
            }
            Ok(Resolved::Const(i)) => {
                let k = &self.schema().constants[i];
                let id = format_ident!("{}", k.name.text);
                if k.ty.signed() {
                    quote!(u64::try_from(#id).ok()?)
                } else {
                    widen(k.ty, quote!(#id))
                }
            }
            Ok(r @ Resolved::Field(owner, _))
                if crate::emit::sections::gated_owner(self, owner, scope) =>
            {
                crate::emit::sections::leaf(self, r, scope, env)
            }
            Ok(Resolved::Field(owner, fi)) => {
                let st = self.struct_of(owner, scope);
                let f = st.and_then(|s| s.fields.get(fi));
                let kind = st
                    .and_then(|s| self.c.layouts.get(&s.name.text))
                    .and_then(|l| l.fields.get(fi))
                    .map(|x| x.1);
                let name = format_ident!("{}", f.map_or("missing", |f| f.name.text.as_str()));
                let base = self.base(owner, env);
                match kind {
                    Some(FieldKind::Int(t)) if t.signed() => {
                        quote!(u64::try_from(#base.#name()).ok()?)
                    }
                    Some(FieldKind::Int(t)) => widen(t, quote!(#base.#name())),
                    // A float is compared bitwise: its bits.
                    Some(FieldKind::Float(w)) => widen(
                        if w { IntTy::U64 } else { IntTy::U32 },
                        quote!(#base.#name().to_bits()),
                    ),
                    // The stored value (`<field>_raw()`): no `from_raw` + `raw` round trip.
                    Some(FieldKind::Enum(e)) => {
                        let raw =
                            format_ident!("{}_raw", f.map_or("missing", |f| f.name.text.as_str()));
                        widen(self.schema().enums[e].repr, quote!(#base.#raw()))
                    }
                    Some(k @ (FieldKind::Flags(_) | FieldKind::Bits(_))) => widen(
                        k.int_ty(self.schema()).unwrap_or(IntTy::U32),
                        quote!(#base.#name().bits()),
                    ),
                    _ => quote!(0u64),
                }
            }
            Ok(r @ (Resolved::Composed(..) | Resolved::BitField(..))) => {
                crate::emit::sections::leaf(self, r, scope, env)
            }
            Ok(Resolved::Nested(owner, l)) => crate::emit::nested::leaf(self, path, owner, l, env),
            _ => quote!(0u64),
        }
    }

    /// Tokens of type `u64` using `?` for every checked operation.
    pub(crate) fn inner(&self, e: &Expr, scope: Scope<'_>, env: &Env) -> TokenStream {
        match e {
            Expr::Num(v) => {
                let l = Literal::u64_suffixed(*v);
                quote!(#l)
            }
            Expr::Ref(p) => self.leaf(p, scope, env),
            Expr::Bin(op, l, r) => {
                let l = self.inner(l, scope, env);
                let r = self.inner(r, scope, env);
                match op {
                    BinOp::Add => quote!(#l.checked_add(#r)?),
                    BinOp::Sub => quote!(#l.checked_sub(#r)?),
                    BinOp::Mul => quote!(#l.checked_mul(#r)?),
                    BinOp::Div => quote!(#l.checked_div(#r)?),
                    BinOp::Rem => quote!(#l.checked_rem(#r)?),
                    BinOp::And => quote!((#l & #r)),
                    BinOp::Or => quote!((#l | #r)),
                    BinOp::Shl => quote!(#l.checked_shl(u32::try_from(#r).ok()?)?),
                    BinOp::Shr => quote!(#l.checked_shr(u32::try_from(#r).ok()?)?),
                    _ => quote!(0u64),
                }
            }
            // A key (`t[k == v]`) is emitted as the index of its `table[...]`, never alone.
            Expr::Not(_) | Expr::Key(..) => quote!(0u64),
            Expr::Call(f, args) => crate::emit::sections::call(self, f, args, scope, env),
            // A stream's record, walked for (stream.rs).
            Expr::At(t, i, f) if crate::check::index::walked(self.c, t, scope).is_some() => {
                crate::emit::stream::sub_find(self, (t, i, f), scope, env)
            }
            Expr::At(t, i, f) => crate::emit::index::emit(self, (t, i, f), scope, env),
        }
    }

    /// Tokens of type `Option<u64>`: `None` when any step overflowed.
    /// Tokens of type `u64` when the expression cannot fail (a literal, a constant, `len`,
    /// an unsigned field), so that generated code reads plainly; `None` otherwise.
    pub(crate) fn plain(&self, e: &Expr, scope: Scope<'_>, env: &Env) -> Option<TokenStream> {
        match e {
            // A collection's count is a `u64` computed before the step.
            Expr::Call(f, _) if f == "count" => Some(self.inner(e, scope, env)),
            Expr::Num(_) | Expr::Ref(_) => {
                let inner = self.inner(e, scope, env);
                (!inner.to_string().contains('?')).then_some(inner)
            }
            _ => None,
        }
    }

    /// `u64` tokens for an expression that cannot fail (no checked operation in it), with
    /// no enclosing parentheses; `None` when some part of it can.
    pub(crate) fn infallible(&self, e: &Expr, scope: Scope<'_>, env: &Env) -> Option<TokenStream> {
        if let Some(p) = self.plain(e, scope, env) {
            return Some(p);
        }
        let inner = strip_parens(self.inner(e, scope, env));
        (!crate::emit::fallible(&inner)).then_some(inner)
    }

    pub(crate) fn value(&self, e: &Expr, scope: Scope<'_>, env: &Env) -> TokenStream {
        if let Some(p) = self.plain(e, scope, env) {
            return quote!(Some(#p));
        }
        let inner = self.inner(e, scope, env);
        // `Some(x?)` is `x` when `x` is already an `Option` (a checked operation).
        let mut toks: Vec<proc_macro2::TokenTree> = inner.clone().into_iter().collect();
        if matches!(toks.last(), Some(proc_macro2::TokenTree::Punct(q)) if q.as_char() == '?') {
            toks.pop();
            let body: TokenStream = toks.into_iter().collect();
            if !crate::emit::fallible(&body) {
                // One checked operation on plain values: already an `Option`.
                return body;
            }
            return quote!((|| -> Option<u64> { #body })());
        }
        // Parentheses around the whole expression are redundant as an argument.
        let inner = strip_parens(inner);
        if !crate::emit::fallible(&inner) {
            // Nothing can fail: a plain value, no closure.
            return quote!(Some(#inner));
        }
        // `u64::from(x?)`, an optional field widened (a located record's, a gated one's):
        // `x.map(u64::from)`, no closure (at `opt-level = "z"` a closure here cost NPU1's
        // validator 32 B of stack on every load, the paths that do not run it included).
        if let Some(x) = widened_option(&inner) {
            return quote!(#x.map(u64::from));
        }
        quote!((|| -> Option<u64> { Some(#inner) })())
    }

    /// Tokens of type `bool`.
    pub(crate) fn cond(&self, e: &Expr, scope: Scope<'_>, env: &Env) -> TokenStream {
        match e {
            Expr::Ref(p) => match self.c.resolve(p, scope) {
                Ok(Resolved::FlagBit(owner, fi, bi)) => {
                    let st = self.struct_of(owner, scope);
                    let f = st.and_then(|s| s.fields.get(fi));
                    let kind = st
                        .and_then(|s| self.c.layouts.get(&s.name.text))
                        .and_then(|l| l.fields.get(fi))
                        .map(|x| x.1);
                    let Some(FieldKind::Flags(fl)) = kind else {
                        return quote!(false);
                    };
                    let flags = &self.schema().flags[fl];
                    let ty = format_ident!("{}", flags.name.text);
                    let bit = format_ident!("{}", flags.bits[bi].name.text);
                    let name = format_ident!("{}", f.map_or("missing", |f| f.name.text.as_str()));
                    let base = self.base(owner, env);
                    if base.to_string().contains('?') {
                        // A record present only `when` its condition holds: absent, no bit.
                        quote!((|| -> Option<bool> { Some(#base.#name().contains(#ty::#bit)) })().unwrap_or(false))
                    } else {
                        quote!(#base.#name().contains(#ty::#bit))
                    }
                }
                Ok(Resolved::Nested(owner, l)) => crate::emit::nested::cond(self, p, owner, l, env),
                _ => quote!(false),
            },
            Expr::Bin(op, l, r) if op.is_logical() => {
                let l = self.cond(l, scope, env);
                let r = self.cond(r, scope, env);
                if *op == BinOp::LogAnd {
                    quote!((#l && #r))
                } else {
                    quote!((#l || #r))
                }
            }
            Expr::Bin(op, l, r) => {
                let o: TokenStream = op.symbol().parse().unwrap_or_default();
                if let Some(c) = self.plain_compare(op.symbol(), l, r, scope, env) {
                    return c;
                }
                let l = self.value(l, scope, env);
                let r = self.value(r, scope, env);
                // A method chain, not `matches!`: the formatter lays out its operands (a
                // macro's arguments stay one wrapped token line, where an `if` inside would
                // read as a suspicious `else`).
                quote!(#l.zip(#r).is_some_and(|(a, b)| a #o b))
            }
            Expr::Not(x) => self.not_cond(x, scope, env),
            Expr::Num(_) | Expr::Call(..) | Expr::At(..) | Expr::Key(..) => quote!(false),
        }
    }

    /// Tokens of type `bool`: `e` does not hold. A comparison of two plain values is
    /// written with the opposite operator (`a != b`, not `!(a == b)`, which clippy's
    /// `nonminimal_bool` flags in the user's crate); a negation is dropped.
    pub(crate) fn not_cond(&self, e: &Expr, scope: Scope<'_>, env: &Env) -> TokenStream {
        let opposite = |op: &BinOp| match op {
            BinOp::Eq => Some("!="),
            BinOp::Ne => Some("=="),
            BinOp::Lt => Some(">="),
            BinOp::Le => Some(">"),
            BinOp::Gt => Some("<="),
            BinOp::Ge => Some("<"),
            _ => None,
        };
        match e {
            Expr::Not(x) => self.cond(x, scope, env),
            Expr::Bin(op, l, r) => match (
                opposite(op),
                opposite(op).and_then(|o| self.plain_compare(o, l, r, scope, env)),
            ) {
                (Some(_), Some(c)) => c,
                // Not both values, or the opposite comparison between them.
                (Some(o), None) => {
                    let o: TokenStream = o.parse().unwrap_or_default();
                    let l = self.value(l, scope, env);
                    let r = self.value(r, scope, env);
                    quote!(#l.zip(#r).is_none_or(|(a, b)| a #o b))
                }
                _ => {
                    let c = self.cond(e, scope, env);
                    quote!(!#c)
                }
            },
            _ => {
                let c = self.cond(e, scope, env);
                quote!(!#c)
            }
        }
    }

    /// The operands of a comparison as plain `u64` tokens, when both cannot fail and
    /// neither is 0 (`x >= 0` on a `u64` is a compiler warning in the user's
    /// crate, `unused_comparisons`, whatever the schema means by it): the comparison is
    /// then written as it is, not through `Option`s.
    /// `(a op b)` for two values that cannot fail (`op` a comparison's symbol), or `None`.
    /// Values are unsigned, so an order against 0 is written as what it means: `x > 0` as
    /// `x != 0` and `x <= 0` as `x == 0` (clippy's `absurd_extreme_comparisons` flags the
    /// first forms in the user's crate); `x >= 0` and `x < 0`, always true and always false
    /// (what the compiler calls useless), go the long way.
    fn plain_compare(
        &self,
        op: &str,
        l: &Expr,
        r: &Expr,
        scope: Scope<'_>,
        env: &Env,
    ) -> Option<TokenStream> {
        let (a, b) = (self.plain(l, scope, env)?, self.plain(r, scope, env)?);
        let zero = |t: &TokenStream| matches!(t.to_string().as_str(), "0" | "0u64");
        let op = match (op, zero(&a), zero(&b)) {
            ("==" | "!=", _, _) | (_, false, false) => op,
            (">", false, true) | ("<", true, false) => "!=",
            ("<=", false, true) | (">=", true, false) => "==",
            _ => return None,
        };
        let o: TokenStream = op.parse().unwrap_or_default();
        Some(quote!((#a #o #b)))
    }

    /// A short display name for a value expression: the last part of a single reference.
    pub(crate) fn short_name(e: &ExprAt) -> String {
        crate::lower::sites::short_name(e)
    }

    /// The field an error about `e` blames: the lowered model's ([`crate::lower::sites::blame`]),
    /// with where its record lies in the generated code (`rec_at`, `<record>_at`,
    /// `<table>_at`) and its index (`index`, a literal).
    pub(crate) fn blame(&self, e: &Expr, scope: Scope<'_>) -> Blame {
        use crate::lower::sites::{Base, Index};
        let b = crate::lower::sites::blame(self.c, e, scope);
        let file = &self.schema().file;
        let at = |name: Option<&str>| {
            let id = format_ident!("{}_at", name.unwrap_or("missing"));
            quote!(#id)
        };
        let base = match b.base {
            Base::Zero => quote!(0),
            Base::RecAt => quote!(rec_at),
            Base::Located(i) => at(file.ext.records.get(i).map(|r| r.name.text.as_str())),
            Base::TableAt(t) => at(file.tables.get(t).map(|t| t.name.text.as_str())),
        };
        let index = match b.index {
            Index::None => Idx::None,
            Index::Current => Idx::U64(quote!(index)),
            Index::Const(k) => {
                let k = proc_macro2::Literal::usize_unsuffixed(
                    usize::try_from(k).unwrap_or(usize::MAX),
                );
                Idx::Usize(quote!(#k))
            }
        };
        Blame::record(b.table, index, b.name, base, b.off)
    }

    // ----- items -------------------------------------------------------------------------

    pub(crate) fn constants(&self) -> TokenStream {
        let items = self.schema().constants.iter().map(|k| {
            let id = format_ident!("{}", k.name.text);
            let ty = int_ident(k.ty);
            let doc = doc_attr(&k.doc);
            let v: TokenStream = format!("{:#x}", k.value).parse().unwrap_or_default();
            let case = case_allow(&k.name.text);
            quote!(#doc #case pub const #id: #ty = #v;)
        });
        quote!(#(#items)*)
    }

    pub(crate) fn enums(&self) -> TokenStream {
        let items = self.schema().enums.iter().map(|e| {
            let id = format_ident!("{}", e.name.text);
            let ty = int_ident(e.repr);
            let doc = doc_attr(&e.doc);
            let variants: Vec<_> = e.values.iter().map(|v| format_ident!("{}", camel(&v.name.text))).collect();
            let docs = e.values.iter().map(|v| doc_attr(&v.doc));
            let nums: Vec<TokenStream> = e.values.iter().map(|v| lit_u64(v.value).into_token_stream_typed()).collect();
            let names: Vec<&str> = e.values.iter().map(|v| v.name.text.as_str()).collect();
            if e.open {
                quote! {
                    #doc
                    ///
                    /// Open: a value this schema does not name is kept as `Unknown`.
                    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                    pub enum #id {
                        #( #docs #variants, )*
                        /// A value this schema does not name.
                        Unknown(#ty),
                    }
                    impl #id {
                        /// The value for a raw number.
                        #[must_use]
                        pub const fn from_raw(raw: #ty) -> Self {
                            match raw { #( #nums => Self::#variants, )* other => Self::Unknown(other) }
                        }
                        /// The raw number.
                        #[must_use]
                        pub const fn raw(self) -> #ty {
                            match self { #( Self::#variants => #nums, )* Self::Unknown(v) => v }
                        }
                        /// The schema's name for the value, `None` when unknown.
                        #[must_use]
                        pub const fn name(self) -> Option<&'static str> {
                            match self { #( Self::#variants => Some(#names), )* Self::Unknown(_) => None }
                        }
                    }
                }
            } else {
                quote! {
                    #doc
                    ///
                    /// Closed: any other value is rejected by validation.
                    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                    pub enum #id { #( #docs #variants, )* }
                    impl #id {
                        /// The value for a raw number, `None` when the schema does not define it.
                        #[must_use]
                        pub const fn from_raw(raw: #ty) -> Option<Self> {
                            match raw { #( #nums => Some(Self::#variants), )* _ => None }
                        }
                        /// The raw number.
                        #[must_use]
                        pub const fn raw(self) -> #ty {
                            match self { #( Self::#variants => #nums, )* }
                        }
                        /// The schema's name for the value.
                        #[must_use]
                        pub const fn name(self) -> Option<&'static str> {
                            match self { #( Self::#variants => Some(#names), )* }
                        }
                    }
                }
            }
        });
        quote!(#(#items)*)
    }

    pub(crate) fn flags(&self) -> TokenStream {
        let items = self.schema().flags.iter().map(|f| {
            let id = format_ident!("{}", f.name.text);
            let ty = int_ident(f.repr);
            let doc = doc_attr(&f.doc);
            let bits: Vec<_> = f
                .bits
                .iter()
                .map(|b| format_ident!("{}", b.name.text))
                .collect();
            let docs = f.bits.iter().map(|b| {
                let (doc, case) = (doc_attr(&b.doc), case_allow(&b.name.text));
                quote!(#doc #case)
            });
            let shifts = f.bits.iter().map(|b| lit_u64(b.bit));
            let known: u64 = f.bits.iter().fold(0, |a, b| a | (1u64 << b.bit));
            let known: TokenStream = format!("{known:#x}").parse().unwrap_or_default();
            quote! {
                #doc
                ///
                /// Bits the schema does not name must be clear (a `flags_known` step checks it).
                #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
                pub struct #id(#ty);
                impl #id {
                    #( #docs pub const #bits: Self = Self(1 << #shifts); )*
                    /// Every bit the schema names.
                    pub const KNOWN: #ty = #known;
                    /// No bit set.
                    #[must_use]
                    pub const fn empty() -> Self { Self(0) }
                    /// From a raw word, keeping every bit.
                    #[must_use]
                    pub const fn from_bits_retain(bits: #ty) -> Self { Self(bits) }
                    /// The raw word.
                    #[must_use]
                    pub const fn bits(self) -> #ty { self.0 }
                    /// Whether every bit of `other` is set.
                    #[must_use]
                    pub const fn contains(self, other: Self) -> bool { self.0 & other.0 == other.0 }
                    /// Both sets of bits.
                    #[must_use]
                    pub const fn union(self, other: Self) -> Self { Self(self.0 | other.0) }
                    /// The bits set that the schema does not name.
                    #[must_use]
                    pub const fn unknown_bits(self) -> #ty { self.0 & !Self::KNOWN }
                }
            }
        });
        quote!(#(#items)*)
    }

    pub(crate) fn is_record(&self, sname: &str) -> bool {
        self.c
            .files()
            .iter()
            .any(|f| f.tables.iter().any(|t| t.record.text == sname))
            || crate::emit::sections::is_collection_record(self.c, sname)
            || crate::check::lookup::is_record_struct(&self.c.schema.file, sname)
    }

    pub(crate) fn views(&self) -> TokenStream {
        let items = self.schema().structs.iter().map(|st| {
            if crate::check::lookup::is_gated(st) {
                return crate::emit::sections::gated_view(self, st);
            }
            let id = format_ident!("{}", st.name.text);
            let layout = &self.c.layouts[&st.name.text];
            let size = lit_usize(layout.size);
            let doc = doc_attr(&st.doc);
            let mut accessors = Vec::new();
            let mut debug_fields = Vec::new();
            for (f, (off, kind)) in st.fields.iter().zip(&layout.fields) {
                let name = format_ident!("{}", f.name.text);
                let fname = f.name.text.as_str();
                if let Some((accs, dbg)) = crate::emit::nested::accessors(self, f, *kind, *off) {
                    accessors.extend(accs);
                    debug_fields.push(dbg);
                    continue;
                }
                let fdoc = doc_attr(format!("{}\n\nAt byte {off:#x} of the {}.", f.doc, st.name.text).trim_start());
                // One load of the field's bytes as an array (in bounds by construction, so
                // the fallback is never taken), not one load per byte.
                let read = |t: IntTy| {
                    let ty = int_ident(t);
                    let (o, n) = (lit_usize(*off), lit_usize(t.bytes()));
                    crate::emit::word_from(&ty, f, t.bytes(), quote! {
                        match self.raw.get(#o..).and_then(|s| s.first_chunk::<#n>()) { Some(b) => *b, None => [0; #n] }
                    })
                };
                let (ret, body) = match *kind {
                    FieldKind::Int(t) => {
                        let ty = int_ident(t);
                        (quote!(#ty), read(t))
                    }
                    FieldKind::Float(w) => {
                        let (fty, bits) = if w { (format_ident!("f64"), IntTy::U64) } else { (format_ident!("f32"), IntTy::U32) };
                        let r = read(bits);
                        (quote!(#fty), quote!(#fty::from_bits(#r)))
                    }
                    FieldKind::Enum(i) => {
                        let e = &self.schema().enums[i];
                        let ety = format_ident!("{}", e.name.text);
                        let r = read(e.repr);
                        if e.open {
                            (quote!(#ety), quote!(#ety::from_raw(#r)))
                        } else {
                            let first = format_ident!("{}", camel(&e.values.first().map_or("missing".into(), |v| v.name.text.clone())));
                            (quote!(#ety), quote! {
                                // Validation rejected every value the enum does not define
                                // (an `enum_known` step), so the fallback is never taken.
                                match #ety::from_raw(#r) { Some(v) => v, None => #ety::#first }
                            })
                        }
                    }
                    FieldKind::Flags(i) => {
                        let fl = &self.schema().flags[i];
                        let fty = format_ident!("{}", fl.name.text);
                        let r = read(fl.repr);
                        (quote!(#fty), quote!(#fty::from_bits_retain(#r)))
                    }
                    FieldKind::Bytes(n) => {
                        let o = lit_usize(*off);
                        let n = lit_usize(n);
                        (quote!(&'a [u8; #n]), quote! {
                            match self.raw.get(#o..).and_then(|s| s.first_chunk::<#n>()) { Some(b) => b, None => &[0u8; #n] }
                        })
                    }
                    FieldKind::Array(..) | FieldKind::Bits(_) => crate::emit::sections::field_read(self, *kind, *off, f.big),
                    // Struct-typed fields: `nested_emit::accessors` above.
                    FieldKind::Struct(..) | FieldKind::Structs(..) => continue,
                    FieldKind::Str(n) => {
                        let o = lit_usize(*off);
                        let n = lit_usize(n);
                        (quote!(&'a [u8]), quote! {
                            let bytes: &'a [u8] = match self.raw.get(#o..).and_then(|s| s.get(..#n)) { Some(b) => b, None => &[] };
                            let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
                            bytes.get(..end).unwrap_or(&[])
                        })
                    }
                };
                accessors.push(quote! {
                    #fdoc
                    #[inline]
                    #[must_use]
                    pub fn #name(&self) -> #ret { #body }
                });
                if let FieldKind::Enum(i) = *kind {
                    // The stored value, for conditions and comparisons: no enum round trip.
                    let e = &self.schema().enums[i];
                    let rname = format_ident!("{}_raw", f.name.text);
                    let ty = int_ident(e.repr);
                    let r = read(e.repr);
                    accessors.push(quote! {
                        /// The raw value of the field above, as stored.
                        #[inline]
                        #[must_use]
                        pub fn #rname(&self) -> #ty { #r }
                    });
                }
                if let FieldKind::Str(_) = kind {
                    let sname = format_ident!("{}_str", f.name.text);
                    accessors.push(quote! {
                        /// The same string as UTF-8, `None` when it is not valid UTF-8.
                        #[must_use]
                        pub fn #sname(&self) -> Option<&'a str> { core::str::from_utf8(self.#name()).ok() }
                    });
                }
                debug_fields.push(quote!(.field(#fname, &self.#name())));
            }
            for (name, acc) in crate::emit::sections::composed_accessors(self, st) {
                let n = format_ident!("{}", name);
                accessors.push(acc);
                debug_fields.push(quote!(.field(#name, &self.#n())));
            }
            let debug = crate::emit::debug_impl(&id, &st.name.text, &debug_fields);
            let mut extra = Vec::new();
            if self.is_record(&st.name.text) {
                extra.push(quote! {
                    /// This record's index in its table.
                    #[must_use]
                    #[inline]
                    pub fn index(&self) -> u32 { self.index }
                });
                let files = self.c.files();
                for (file, r) in files.iter().flat_map(|f| f.ranges.iter().filter(|r| r.table.is_some()).map(move |r| (*f, r))) {
                    let tn = r.table.as_ref().map_or(String::new(), |t| t.text.clone());
                    let Some(t) = file.tables.iter().find(|t| t.name.text == tn) else { continue };
                    if t.record.text != st.name.text { continue; }
                    extra.push(self.record_range_accessor(r, t));
                }
            }
            let sname = st.name.text.as_str();
            // A struct in the file's byte order carries the order its file's header chose.
            let order_field = if crate::check::order::runtime_struct(self.c, sname) {
                quote! {
                    /// Big-endian: the byte order the file's header chose.
                    big: bool,
                }
            } else {
                quote!()
            };
            quote! {
                #doc
                #[derive(Clone, Copy)]
                pub struct #id<'a> {
                    raw: &'a [u8; #size],
                    #[allow(dead_code)]
                    buf: &'a [u8],
                    #[allow(dead_code)]
                    index: u32,
                    #order_field
                }
                impl<'a> #id<'a> {
                    /// Size in bytes.
                    pub const SIZE: usize = #size;
                    #(#accessors)*
                    #(#extra)*
                    /// The raw bytes, borrowed from the buffer.
                    #[must_use]
                    #[inline]
                    pub fn as_bytes(&self) -> &'a [u8; #size] { self.raw }
                }
                #debug
            }
        });
        quote!(#(#items)*)
    }

    /// The `u32` sum of checksum `k` over the span's bytes `d`, and what it needs bound
    /// before it: nothing, or, with `zero` fields, the span's start `start` (each field's
    /// place is the one an error about it names: a constant, or `<record>_at` plus its
    /// offset, which the caller binds).
    fn checksum_call(
        &self,
        k: &crate::schema::Checksum,
        scope: Scope<'_>,
        env: &Env,
    ) -> (TokenStream, TokenStream) {
        if k.zero.is_empty() {
            return (k.algorithm.core_fn(&quote!(d)), quote!());
        }
        let zeros = k.zero.iter().map(|z| {
            let b = self.blame(&z.expr, scope);
            let width = single_field(self.c, &z.expr, scope)
                .and_then(|(o, fi)| {
                    let st = self.struct_of(o, scope)?;
                    self.c.layouts.get(&st.name.text)?.fields.get(fi)
                })
                .map_or(0, |f| f.1.width(self.schema()));
            let (base, off, width) = (&b.base, lit_u64(b.off), lit_u64(width));
            if matches!(
                crate::lower::sites::blame(self.c, &z.expr, scope).base,
                crate::lower::sites::Base::Zero
            ) {
                // A header field: its place is a constant.
                quote!((#off, #width))
            } else {
                quote!((#base.saturating_add(#off), #width))
            }
        });
        let from = match self.plain(&k.from.expr, scope, env) {
            Some(v) => v,
            None => {
                let v = self.value(&k.from.expr, scope, env);
                quote!(#v.unwrap_or(0))
            }
        };
        (
            k.algorithm
                .core_zeroed_fn(&quote!(d), &quote!(start), &quote!(&[#(#zeros),*])),
            quote!(let start: u64 = #from;),
        )
    }

    /// The bytes of a checksum's span `from..to` in `buf` (an `Option<&[u8]>` expression):
    /// `None` when the span is backwards or past the end. Ends that cannot fail to compute
    /// (a constant, a field) are read plainly, with no `Option` around them.
    fn span_data(&self, from: &Expr, to: &Expr, scope: Scope<'_>, env: &Env) -> TokenStream {
        match (self.plain(from, scope, env), self.plain(to, scope, env)) {
            // `match`, not `Option::and_then` with a closure: at `opt-level = "z"` the
            // closure is not always inlined, and a call per check costs on the core.
            (Some(f), Some(t)) => quote! {{
                let f: u64 = #f;
                let t: u64 = #t;
                match t.checked_sub(f) {
                    Some(n) => __rt::range_at(buf, f, n),
                    None => None,
                }
            }},
            _ => {
                let f = self.value(from, scope, env);
                let t = self.value(to, scope, env);
                quote! {
                    match (#f, #t) {
                        (Some(f), Some(t)) => match t.checked_sub(f) {
                            Some(n) => __rt::range_at(buf, f, n),
                            None => None,
                        },
                        _ => None,
                    }
                }
            }
        }
    }

    pub(crate) fn record_range_accessor(&self, r: &Range, t: &Table) -> TokenStream {
        let scope = Scope::RecordOnly(t);
        let env = Env {
            header: quote!(self),
            record: quote!(self),
            found: Vec::new(),
        };
        let name = format_ident!("{}", r.name.text);
        let doc = doc_attr(&r.doc);
        let guard = r.when.as_ref().map(|w| {
            let c = strip_parens(self.not_cond(&w.expr, scope, &env));
            quote!(if #c { return None; })
        });
        let start = self.plain(&r.offset.expr, scope, &env).unwrap_or_else(|| {
            let v = self.value(&r.offset.expr, scope, &env);
            quote!(#v?)
        });
        let length = self.plain(&r.length.expr, scope, &env).unwrap_or_else(|| {
            let v = self.value(&r.length.expr, scope, &env);
            quote!(#v?)
        });
        quote! {
            #doc
            ///
            /// Borrowed from the validated buffer, never copied. `None` when this record has no
            /// such bytes.
            #[must_use]
            #[inline]
            pub fn #name(&self) -> Option<&'a [u8]> {
                #guard
                __rt::range_at(self.buf, #start, #length)
            }
        }
    }

    // ----- validation --------------------------------------------------------------------

    pub(crate) fn steps(&self, steps: &[Step], scope: Scope<'_>) -> TokenStream {
        let each = self.steps_each(steps, scope).into_iter().map(|(_, t)| t);
        quote!(#(#each)*)
    }

    /// A file's top-level steps, cut into the validator's parts (`lower/checks.rs`): each
    /// run of consecutive steps of one part, with its label.
    pub(crate) fn steps_in_parts(&self, steps: &[Step]) -> Vec<(String, TokenStream)> {
        let labels = crate::lower::checks::labels(steps);
        let mut out: Vec<(String, TokenStream)> = Vec::new();
        for (i, t) in self.steps_each(steps, Scope::Top) {
            let label = labels.get(i).cloned().unwrap_or_default();
            match out.last_mut() {
                Some((l, ts)) if *l == label => ts.extend(t),
                _ => out.push((label, t)),
            }
        }
        out
    }

    /// The code of each step of `steps`, with the index of the step it starts from (a walk
    /// fused with the `let`s and the `for_each` after it is one).
    fn steps_each(&self, steps: &[Step], scope: Scope<'_>) -> Vec<(usize, TokenStream)> {
        let mut env = Env {
            header: quote!(header),
            record: quote!(rec),
            found: Vec::new(),
        };
        let mut out = Vec::new();
        let mut skip = 0usize;
        for (i, s) in steps.iter().enumerate() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            if matches!(scope, Scope::Top) {
                out.push((i, crate::emit::sections::count_bindings(self, s)));
            }
            // A walk, `let`s that do not read it, and the `for_each` over its stream: one pass
            // (`stream::fused_walk`).
            if matches!(scope, Scope::Top)
                && let Step::StreamFits {
                    code,
                    stream,
                    kind: crate::schema::streams::StreamStep::Fits,
                } = s
            {
                let rest = steps.get(i.saturating_add(1)..).unwrap_or(&[]);
                let lets = rest
                    .iter()
                    .take_while(|x| {
                        matches!(x, Step::Let { value, .. } if !crate::emit::stream::reads_aggregate(&value.expr))
                    })
                    .count();
                if let Some(Step::ForEach { table, steps: body }) = rest.get(lets)
                    && table.text == stream.text
                    && crate::emit::stream::fusable_body(body)
                    && !body.iter().any(|b| {
                        let mut es = Vec::new();
                        crate::emit::positions::step_exprs(
                            self.c,
                            std::slice::from_ref(b),
                            &mut es,
                        );
                        es.iter()
                            .any(|e| crate::emit::stream::reads_aggregate(&e.expr))
                    })
                {
                    let between: Vec<TokenStream> = rest
                        .get(..lets)
                        .unwrap_or(&[])
                        .iter()
                        .map(|x| self.step(x, scope, &env))
                        .collect();
                    out.push((
                        i,
                        crate::emit::stream::fused_walk(
                            self,
                            &code.text,
                            &stream.text,
                            quote!(#(#between)*),
                            body,
                        ),
                    ));
                    skip = lets.saturating_add(1);
                    continue;
                }
            }
            let prev = i.checked_sub(1).and_then(|p| steps.get(p));
            out.push((
                i,
                match s {
                    Step::Ext(x) => crate::emit::sections::step(
                        self,
                        x,
                        prev,
                        steps.get(i.saturating_add(1)),
                        scope,
                        &env,
                    ),
                    Step::ForEach { table, steps }
                        if crate::check::ext::collection_of(&self.schema().file, &table.text)
                            .is_some() =>
                    {
                        crate::emit::sections::for_each_collection(self, &table.text, steps)
                    }
                    Step::ForEach { table, steps }
                        if crate::check::lookup::is_target(&self.schema().file, &table.text) =>
                    {
                        crate::emit::stream::for_each(self, &table.text, steps)
                    }
                    // A record's string that a step no `when` guards finds: found once here, for
                    // the steps after it (`strings::found_once`).
                    Step::Str(x @ crate::schema::strings::StrStep::Fits { .. })
                        if matches!(scope, Scope::Record(_))
                            && let Some(bind) =
                                crate::emit::strings::found_once(self, x, scope, &env) =>
                    {
                        env.found.push(x.string().text.clone());
                        let check = self.step(s, scope, &env);
                        quote!(#bind #check)
                    }
                    _ => self.step(s, scope, &env),
                },
            ));
        }
        out
    }

    /// An `assert` step: one comparison (its two sides in the error) or a condition of
    /// several parts (the code and the field).
    fn assert_step(
        &self,
        (code, expr, field): AssertParts<'_>,
        scope: Scope<'_>,
        env: &Env,
    ) -> TokenStream {
        let codes = &code.text;
        let comparison = matches!(&expr.expr, Expr::Bin(op, _, _) if op.is_comparison());
        if !comparison {
            // A condition of several parts (`&&`, `||`, `!`, flag bits): the error
            // names the check and the field; there is no single pair of values.
            let b = self.blame(&field.expr, scope);
            let comment = format!("@step {codes}: `{}`.", expr.text);
            let cond = strip_parens(self.cond(&expr.expr, scope, env));
            let fail = self.fail(codes, &b, Det::None);
            return quote! {
                #[doc = #comment]
                {
                    let holds: bool = #cond;
                    if !holds {
                        return #fail;
                    }
                }
            };
        }
        let Expr::Bin(op, l, r) = &expr.expr else {
            return quote!();
        };
        let lv = self.value(l, scope, env);
        let rv = self.value(r, scope, env);
        let o: TokenStream = op.symbol().parse().unwrap_or_default();
        let neg = op.negated().symbol();
        let b = self.blame(&field.expr, scope);
        let comment = format!("@step {codes}: `{}`.", expr.text);
        let names = compare_names(l, *op, r);
        // Operands that cannot overflow are plain `u64`s.
        let comparison = matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        );
        if let (true, Some(lp), Some(rp)) = (
            comparison,
            self.plain(l, scope, env),
            self.plain(r, scope, env),
        ) {
            let fail = self.fail(
                codes,
                &b,
                Det::Compare(Opd::Val(quote!(lhs)), Opd::Val(quote!(rhs)), names),
            );
            let not: TokenStream = neg.parse().unwrap_or_default();
            return quote! {
                #[doc = #comment]
                {
                    let lhs: u64 = #lp;
                    let rhs: u64 = #rp;
                    if lhs #not rhs {
                        return #fail;
                    }
                }
            };
        }
        // A side that cannot overflow is bound as a plain `u64` (`a & MASK` too:
        // `Some(a & MASK).unwrap_or(0)` is clippy's `unnecessary_literal_unwrap`).
        let side = |e: &Expr, v: TokenStream, name: &str| {
            let id = format_ident!("{}", name);
            match self.infallible(e, scope, env) {
                Some(p) => (
                    quote!(let #id: u64 = #p;),
                    quote!(Some(#id)),
                    Opd::Val(quote!(#id)),
                ),
                None => (quote!(let #id = #v;), quote!(#id), Opd::Opt(quote!(#id))),
            }
        };
        let (lbind, lopt, lopd) = side(l, lv, "lhs");
        let (rbind, ropt, ropd) = side(r, rv, "rhs");
        let fail = self.fail(codes, &b, Det::Compare(lopd, ropd, names));
        quote! {
            #[doc = #comment]
            {
                #lbind
                #rbind
                if !matches!((#lopt, #ropt), (Some(a), Some(b)) if a #o b) {
                    return #fail;
                }
            }
        }
    }

    /// An `assert` repeated for an index (`for: k, below: N`): `one`, the assert, run with
    /// `k` bound (`__let_k`) to each of `0..N` in turn. `N` with no value, or a step that
    /// has run `len` times over the file (its count kept from the start of the loop that
    /// holds it, `__reps_*`: a file cannot validly need more, and the work stays
    /// proportional to the file's length), leaves `k` without a value: the condition fails,
    /// and if it holds without `k` the assert fails all the same, its sides without value.
    fn repeated(
        &self,
        r: &crate::schema::top::Repeat,
        one: TokenStream,
        (code, expr, field): AssertParts<'_>,
        scope: Scope<'_>,
        env: &Env,
    ) -> TokenStream {
        let below = self.value(&r.below.expr, scope, env);
        let k = format_ident!("__let_{}", r.var.text);
        let reps = reps_var(expr);
        let b = self.blame(&field.expr, scope);
        let comparison = matches!(&expr.expr, Expr::Bin(op, _, _) if op.is_comparison());
        let det = match &expr.expr {
            // (`k` itself, which has no value there: neither side has one.)
            Expr::Bin(op, l, rr) if comparison => Det::Compare(
                Opd::Opt(quote!(#k)),
                Opd::Opt(quote!(#k)),
                compare_names(l, *op, rr),
            ),
            _ => Det::None,
        };
        let fail = self.fail(&code.text, &b, det);
        let comment = format!(
            "@step {}: for each `{}` below `{}`:",
            code.text, r.var.text, r.below.text
        );
        // Inside a `for_each` its count is declared before the loop (`reps_decls`).
        let decl = matches!(scope, Scope::Top).then(|| quote!(let mut #reps: u64 = 0;));
        quote! {
            #[doc = #comment]
            {
                #decl
                let __below: Option<u64> = #below;
                let mut __k: u64 = 0;
                while __below.is_none_or(|b| __k < b) {
                    let #k: Option<u64> = __below.filter(|_| #reps < len).map(|_| __k);
                    #reps = #reps.saturating_add(1);
                    #one
                    if #k.is_none() {
                        return #fail;
                    }
                    __k = __k.saturating_add(1);
                }
            }
        }
    }

    pub(crate) fn step(&self, s: &Step, scope: Scope<'_>, env: &Env) -> TokenStream {
        let file = &self.schema().file;
        match s {
            Step::MinLen { code, min, field } => {
                let code = &code.text;
                let fname = field
                    .as_ref()
                    .map_or("header".to_string(), |f| f.text.clone());
                let comment =
                    format!("@step {code}: the buffer must hold at least the needed bytes.");
                // A size that cannot fail (a constant, a field, an `if`) is a plain `u64`:
                // no literal `Some` to unwrap.
                if let Some(p) = self.infallible(&min.expr, scope, env) {
                    let fail = self.fail(
                        code,
                        &Blame::plain(fname, 0),
                        Det::Short(quote!(needed), quote!(len)),
                    );
                    return quote! {
                        #[doc = #comment]
                        {
                            let needed: u64 = #p;
                            if len < needed {
                                return #fail;
                            }
                        }
                    };
                }
                let min = self.value(&min.expr, scope, env);
                let fail = self.fail(
                    code,
                    &Blame::plain(fname, 0),
                    Det::Short(quote!(needed.unwrap_or(u64::MAX)), quote!(len)),
                );
                quote! {
                    #[doc = #comment]
                    {
                        let needed = #min;
                        if !matches!(needed, Some(n) if len >= n) {
                            return #fail;
                        }
                    }
                }
            }
            Step::Expect {
                code,
                field,
                equals,
            } => {
                let codes = &code.text;
                let b = self.blame(&field.expr, scope);
                let comment = format!(
                    "@step {codes}: `{}` must equal `{}`.",
                    field.text, equals.text
                );
                // An expected value that cannot fail (`offset | FLAG`) is a plain `u64` too:
                // no `Some` to be unwrapped.
                if let (Some(found), Some(expected)) = (
                    self.infallible(&field.expr, scope, env),
                    self.infallible(&equals.expr, scope, env),
                ) {
                    let fail = self.fail(codes, &b, Det::Mismatch(quote!(found), quote!(expected)));
                    return quote! {
                        #[doc = #comment]
                        {
                            let found = #found;
                            let expected = #expected;
                            if found != expected {
                                return #fail;
                            }
                        }
                    };
                }
                // A field that reads plainly is not wrapped in `Some` to be unwrapped.
                let found = match self.plain(&field.expr, scope, env) {
                    Some(p) => p,
                    None => {
                        let v = self.value(&field.expr, scope, env);
                        quote!(#v.unwrap_or(u64::MAX))
                    }
                };
                let expected = self.value(&equals.expr, scope, env);
                let fail = self.fail(
                    codes,
                    &b,
                    Det::Mismatch(quote!(found), quote!(expected.unwrap_or(u64::MAX))),
                );
                quote! {
                    #[doc = #comment]
                    {
                        let found = #found;
                        let expected = #expected;
                        if expected != Some(found) {
                            return #fail;
                        }
                    }
                }
            }
            Step::Assert {
                code,
                expr,
                field,
                repeat,
            } => {
                let one = self.assert_step((code, expr, field), scope, env);
                match repeat {
                    None => one,
                    Some(r) => self.repeated(r, one, (code, expr, field), scope, env),
                }
            }
            Step::TableFits {
                code,
                table,
                within,
            } => {
                let codes = &code.text;
                let Some(t) = self.c.table(&table.text) else {
                    return quote!();
                };
                let shape = crate::emit::table::shape(self.c, t);
                let at = self.value(&t.at.expr, scope, env);
                // The count read plainly when it cannot fail (a field, a constant); a stride
                // equal to the record's size is that constant, not checked at run time.
                let (count_bind, count, c) = match self.plain(&t.count.expr, scope, env) {
                    Some(p) => (
                        quote!(let count: u64 = #p;),
                        quote!(Some(count)),
                        quote!(count),
                    ),
                    None => {
                        let v = self.value(&t.count.expr, scope, env);
                        (quote!(let count = #v;), quote!(count), quote!(count?))
                    }
                };
                // (A packed table's stride is a number or a constant: read plainly.)
                let (stride_bind, st) = match shape.packed_stride() {
                    Some(n) => {
                        let p = self
                            .plain(&t.stride.expr, scope, env)
                            .unwrap_or_else(|| n.to_token_stream());
                        (quote!(let stride: u64 = #p;), quote!(stride))
                    }
                    None => {
                        let v = self.value(&t.stride.expr, scope, env);
                        (quote!(let stride = #v;), quote!(stride?))
                    }
                };
                let end = quote!(at?.checked_add(#c.checked_mul(#st)?));
                let wname = Self::short_name(within);
                // The limit as an `Option<u64>` (`w`), bound plainly when it cannot overflow.
                let (wbind, w, wopd) = match self.plain(&within.expr, scope, env) {
                    Some(p) => (
                        quote!(let within: u64 = #p;),
                        quote!(Some(within)),
                        Opd::Val(quote!(within)),
                    ),
                    None => {
                        let v = self.value(&within.expr, scope, env);
                        (
                            quote!(let within = #v;),
                            quote!(within),
                            Opd::Opt(quote!(within)),
                        )
                    }
                };
                let blame_e = if single_field(self.c, &t.count.expr, scope).is_some() {
                    &t.count.expr
                } else {
                    &t.at.expr
                };
                let fail = self.fail(
                    codes,
                    &self.blame(blame_e, scope),
                    Det::Compare(
                        Opd::Opt(quote!(end)),
                        wopd,
                        ["table end".into(), ">".into(), wname],
                    ),
                );
                let var = format_ident!("{}", t.name.text);
                let var_at = format_ident!("{}_at", t.name.text);
                let comment = format!(
                    "@step {codes}: table `{}` ({} x {} bytes at {}) must lie within `{}`.",
                    t.name.text, t.count.text, t.stride.text, t.at.text, within.text
                );
                let ty = shape.ty();
                let place = shape.place(&count, &w);
                quote! {
                    #[doc = #comment]
                    let (#var, #var_at): (#ty, u64) = {
                        let at = #at;
                        #count_bind
                        #stride_bind
                        #wbind
                        let records = #place;
                        match (records, at) {
                            (Some(r), Some(a)) => (r, a),
                            _ => {
                                let end = (|| -> Option<u64> { #end })();
                                return #fail;
                            }
                        }
                    };
                }
            }
            Step::RangeFits {
                code,
                range,
                within,
            } => {
                let codes = &code.text;
                let Some(r) = file.ranges.iter().find(|r| r.name.text == range.text) else {
                    return quote!();
                };
                let start = self.value(&r.offset.expr, scope, env);
                let length = self.value(&r.length.expr, scope, env);
                let w = self.value(&within.expr, scope, env);
                let wname = Self::short_name(within);
                let b = self.blame(&r.offset.expr, scope);
                let comment = format!(
                    "@step {codes}: range `{}` ({} + {}) must lie within `{}`.",
                    r.name.text, r.offset.text, r.length.text, within.text
                );
                let plain = (
                    self.infallible(&r.offset.expr, scope, env),
                    self.infallible(&r.length.expr, scope, env),
                    self.infallible(&within.expr, scope, env),
                );
                let check = if let (Some(start), Some(length), Some(w)) = plain {
                    // No operand can fail (fields, constants, `if`s of them): only the sum can
                    // overflow.
                    let fail = self.fail(
                        codes,
                        &b,
                        Det::Range(quote!(start), quote!(length), wname, quote!(within)),
                    );
                    quote! {
                        let start = #start;
                        let length = #length;
                        let within = #w;
                        let bytes = __rt::range_within(buf, start, length, within);
                        let Some(bytes) = bytes else {
                            return #fail;
                        };
                    }
                } else {
                    // An operand that cannot fail is bound as a plain `u64` (no literal
                    // `Some` unwrapped), the others as `Option<u64>`.
                    let side = |p: &Option<TokenStream>,
                                v: &TokenStream,
                                name: &str,
                                dflt: TokenStream| {
                        let id = format_ident!("{}", name);
                        match p {
                            Some(p) => (quote!(let #id: u64 = #p;), quote!(Some(#id)), quote!(#id)),
                            // Typed, so that the splitter may hand it from a helper.
                            None => (
                                quote!(let #id: Option<u64> = #v;),
                                quote!(#id),
                                quote!(#id.unwrap_or(#dflt)),
                            ),
                        }
                    };
                    let (sb, so, sv) = side(&plain.0, &start, "start", quote!(u64::MAX));
                    let (lb, lo, lv) = side(&plain.1, &length, "length", quote!(u64::MAX));
                    let (wb, wo, wv) = side(&plain.2, &w, "within", quote!(0));
                    let fail = self.fail(codes, &b, Det::Range(sv, lv, wname, wv));
                    quote! {
                        #sb
                        #lb
                        #wb
                        let bytes = match (#so, #lo, #wo) {
                            (Some(s), Some(l), Some(w)) => __rt::range_within(buf, s, l, w),
                            _ => None,
                        };
                        let Some(bytes) = bytes else {
                            return #fail;
                        };
                    }
                };
                if r.table.is_some() {
                    let guard = r.when.as_ref().map_or(quote!(true), |w| {
                        strip_parens(self.cond(&w.expr, scope, env))
                    });
                    quote! {
                        #[doc = #comment]
                        if #guard {
                            #check
                            let _ = bytes;
                        }
                    }
                } else {
                    let var = format_ident!("{}", r.name.text);
                    match &r.when {
                        // A file-level range with a condition: checked, and there, only
                        // when the condition holds.
                        Some(w) => {
                            let guard = strip_parens(self.cond(&w.expr, scope, env));
                            quote! {
                                #[doc = #comment]
                                let #var: Option<&'a [u8]> = if #guard { Some({ #check bytes }) } else { None };
                            }
                        }
                        None => quote! {
                            #[doc = #comment]
                            let #var: &'a [u8] = { #check bytes };
                        },
                    }
                }
            }
            Step::Checksum { code, checksum } => {
                let codes = &code.text;
                let Some(k) = file.checksum(&checksum.text) else {
                    return quote!();
                };
                let data = self.span_data(&k.from.expr, &k.to.expr, scope, env);
                let stored = match self.plain(&k.stored.expr, scope, env) {
                    Some(v) => v,
                    None => {
                        let v = self.value(&k.stored.expr, scope, env);
                        quote!(#v.unwrap_or(u64::MAX))
                    }
                };
                // The error names the stored field, found against computed; or, when the
                // sum must reach a value, the `field` that makes it, the sum found against
                // the value.
                let blamed = k.field.as_ref().unwrap_or(&k.stored);
                let detail = if k.equals {
                    Det::Mismatch(quote!(computed.unwrap_or(0)), quote!(stored))
                } else {
                    Det::Mismatch(quote!(stored), quote!(computed.unwrap_or(0)))
                };
                let fail = self.fail(codes, &self.blame(&blamed.expr, scope), detail);
                let (compute, start) = self.checksum_call(k, scope, env);
                let zeroed = zero_list(k).map_or(String::new(), |z| format!(" (with {z} as zero)"));
                let comment = format!(
                    "@step {codes}: {:?} over `{}`..`{}`{zeroed} must equal `{}`{}. {}",
                    k.algorithm,
                    k.from.text,
                    k.to.text,
                    k.stored.text,
                    k.field
                        .as_ref()
                        .map_or(String::new(), |f| format!(" (else `{}` is wrong)", f.text)),
                    crate::emit::doc::flow(&k.doc)
                );
                quote! {
                    #[doc = #comment]
                    {
                        let data = #data;
                        let stored = #stored;
                        #start
                        // A `match`, not `data.map(|d| ..)`: at `opt-level = "z"` LLVM may
                        // leave the closure's `Option::map` a call (58 instructions and
                        // 32 B of stack per NPU1 load when it did).
                        #[allow(clippy::manual_map)]
                        let computed = match data {
                            Some(d) => Some(u64::from(#compute)),
                            None => None,
                        };
                        if computed != Some(stored) {
                            return #fail;
                        }
                    }
                }
            }
            Step::FlagsKnown { code, field } => {
                let codes = &code.text;
                let Some((owner, fi)) = single_field(self.c, &field.expr, scope) else {
                    return quote!();
                };
                let st = self.struct_of(owner, scope);
                let name = format_ident!(
                    "{}",
                    st.and_then(|s| s.fields.get(fi))
                        .map_or("missing", |f| f.name.text.as_str())
                );
                let base = self.base(owner, env);
                let fail = self.fail(
                    codes,
                    &self.blame(&field.expr, scope),
                    Det::UnknownBits(
                        quote!(u64::from(v.bits())),
                        quote!(u64::from(v.unknown_bits())),
                    ),
                );
                let comment = format!(
                    "@step {codes}: `{}` may have only the bits the schema names.",
                    field.text
                );
                quote! {
                    #[doc = #comment]
                    {
                        let v = #base.#name();
                        if v.unknown_bits() != 0 {
                            return #fail;
                        }
                    }
                }
            }
            Step::EnumKnown { code, field } => {
                let codes = &code.text;
                let Some((owner, fi)) = single_field(self.c, &field.expr, scope) else {
                    return quote!();
                };
                let st = self.struct_of(owner, scope);
                let kind = st
                    .and_then(|s| self.c.layouts.get(&s.name.text))
                    .and_then(|l| l.fields.get(fi))
                    .map(|x| x.1);
                let Some(FieldKind::Enum(ei)) = kind else {
                    return quote!();
                };
                let e = &self.schema().enums[ei];
                let ety = format_ident!("{}", e.name.text);
                let fail = self.fail(
                    codes,
                    &self.blame(&field.expr, scope),
                    Det::UnknownValue(quote!(u64::from(raw))),
                );
                let off_in = st
                    .and_then(|s| self.c.layouts.get(&s.name.text))
                    .and_then(|l| l.fields.get(fi))
                    .map_or(0, |x| x.0);
                let idx = (0..e.repr.bytes()).map(|i| lit_usize(off_in + i));
                let ty = int_ident(e.repr);
                let fd = st.and_then(|s| s.fields.get(fi));
                let base = self.base(owner, env);
                // In the file's byte order: the view reads it in the order it carries.
                let read = match fd {
                    Some(f) if f.file_order => {
                        let rname = format_ident!("{}_raw", f.name.text);
                        quote!(#base.#rname())
                    }
                    _ => {
                        let from = from_bytes(fd.is_some_and(|f| f.big));
                        quote!(#ty::#from([#(#base.as_bytes()[#idx]),*]))
                    }
                };
                let comment = format!(
                    "@step {codes}: `{}` must be a value enum `{}` defines.",
                    field.text, e.name.text
                );
                quote! {
                    #[doc = #comment]
                    {
                        let raw = #read;
                        if #ety::from_raw(raw).is_none() {
                            return #fail;
                        }
                    }
                }
            }
            Step::ForEach { table, steps } => {
                let Some(t) = self.c.table(&table.text) else {
                    return quote!();
                };
                let rec_ty = format_ident!("{}", t.record.text);
                let rec_order = crate::emit::order_init(self.c, &t.record.text, quote!(__big));
                let var = format_ident!("{}", t.name.text);
                let var_at = format_ident!("{}_at", t.name.text);
                let (at_first, at_then) =
                    crate::emit::table::shape(self.c, t).rec_at(&var, &var_at);
                let body = self.steps(steps, Scope::Record(t));
                let comment = format!("@step For every record of `{}`:", t.name.text);
                // The caller's hook for the table, after the last `for_each` over it.
                let hook = self.visits(s).then(|| {
                    let hc = format!(
                        "@step The caller's `{}` hook sees the checked record.",
                        t.name.text
                    );
                    quote! {
                        #[doc = #hc]
                        visit.#var(&header, i, &rec)?;
                    }
                });
                // The previous record's key for each order check in the loop.
                // (With `when`, only the records where it holds are compared, each with the
                // last such record before it.)
                let prevs = steps.iter().filter_map(|x| match x {
                    Step::Order { code, by, .. } => Some((code, by.as_ref())),
                    Step::When { step, .. } => match &**step {
                        Step::Order { code, by, .. } => Some((code, by.as_ref())),
                        _ => None,
                    },
                    _ => None,
                });
                let prevs = prevs.map(|(code, by)| {
                    let p = order_prev(code);
                    // A string key's previous bytes too (`order_prev_bytes`).
                    let bytes = by
                        .and_then(|b| {
                            crate::check::strings::order_key(self.c, &t.name.text, &b.expr)
                        })
                        .map(|_| {
                            let pb = order_prev_bytes(code);
                            quote!(let mut #pb: &'a [u8] = &[];)
                        });
                    quote!(let mut #p: Option<u64> = None; #bytes)
                });
                let reps = crate::emit::reps_decls(steps);
                quote! {
                    #(#prevs)*
                    #reps
                    #[doc = #comment]
                    for (i, raw) in #var.iter().enumerate() {
                        #at_first
                        let index: u64 = u64::try_from(i).unwrap_or(u64::MAX);
                        let rec: #rec_ty<'a> = #rec_ty { raw, buf, index: u32::try_from(i).unwrap_or(u32::MAX) #rec_order };
                        #at_then
                        let _ = (&rec, rec_at);
                        #body
                        #hook
                    }
                }
            }
            // Emitted by `steps`, which sees the neighbouring steps.
            Step::Ext(_) => quote!(),
            Step::Str(x) => crate::emit::strings::emit_step(self, x, scope, env),
            Step::Fill(x) => crate::emit::fill::emit_step(self, x, scope, env),
            Step::StreamFits { code, stream, kind } => {
                crate::emit::stream::step(self, &code.text, &stream.text, *kind)
            }
            Step::Order {
                code,
                kind,
                target,
                by,
            } => {
                use crate::schema::OrderKind;
                let codes = &code.text;
                // Inside the table's `for_each` the check compares each record with the one
                // before it in the same pass (`prev` declared before the loop); at top level
                // it walks the table itself.
                let in_loop = matches!(scope, Scope::Record(_));
                let prev = if in_loop {
                    order_prev(code)
                } else {
                    format_ident!("prev")
                };
                let range = file.ranges.iter().find(|r| r.name.text == target.text);
                let tname = match kind {
                    OrderKind::NoOverlap => range
                        .and_then(|r| r.table.as_ref())
                        .map_or(String::new(), |t| t.text.clone()),
                    _ => target.text.clone(),
                };
                let Some(t) = file.tables.iter().find(|t| t.name.text == tname) else {
                    return quote!();
                };
                let rscope = Scope::Record(t);
                let renv = Env {
                    header: quote!(header),
                    record: quote!(rec),
                    found: Vec::new(),
                };
                let rec_ty = format_ident!("{}", t.record.text);
                let rec_order = crate::emit::order_init(self.c, &t.record.text, quote!(__big));
                let var = format_ident!("{}", t.name.text);
                let var_at = format_ident!("{}_at", t.name.text);
                let (at_first, at_then) =
                    crate::emit::table::shape(self.c, t).rec_at(&var, &var_at);
                // A value bound as a plain `u64` `name`: directly when it cannot overflow,
                // else through an `Option` whose `None` fails the check.
                let bind =
                    |name: &str, e: &Expr, det: &dyn Fn(Opd) -> TokenStream| -> TokenStream {
                        let id = format_ident!("{}", name);
                        match self.plain(e, rscope, &renv) {
                            Some(p) => quote!(let #id: u64 = #p;),
                            None => {
                                let v = self.value(e, rscope, &renv);
                                let o = format_ident!("{}_opt", name);
                                let fail = det(Opd::Opt(quote!(#o)));
                                quote! {
                                    let #o: Option<u64> = #v;
                                    let Some(#id) = #o else { return #fail; };
                                }
                            }
                        }
                    };
                let (check, comment) = match (kind, by, range) {
                    (OrderKind::NoOverlap, _, Some(r)) => {
                        let b = self.blame(&r.offset.expr, rscope);
                        let guard = r.when.as_ref().map_or(quote!(true), |w| {
                            strip_parens(self.cond(&w.expr, rscope, &renv))
                        });
                        let names = [
                            Self::short_name(&r.offset),
                            "<".to_string(),
                            "previous end".to_string(),
                        ];
                        let det = |o: Opd| {
                            self.fail(
                                codes,
                                &b,
                                Det::Compare(o, Opd::Val(quote!(p)), names.clone()),
                            )
                        };
                        let sbind = bind("s", &r.offset.expr, &det);
                        let lbind = bind("l", &r.length.expr, &|_| det(Opd::Val(quote!(s))));
                        let fail_s = det(Opd::Val(quote!(s)));
                        (
                            quote! {
                                if #guard {
                                    let p = #prev.unwrap_or(0);
                                    #sbind
                                    #lbind
                                    if s < p {
                                        return #fail_s;
                                    }
                                    let Some(e) = s.checked_add(l) else { return #fail_s; };
                                    #prev = Some(e);
                                }
                            },
                            format!(
                                "@step {codes}: the `{}` ranges of `{}` do not overlap, in table order.",
                                r.name.text, t.name.text
                            ),
                        )
                    }
                    (_, Some(by), _)
                        if crate::check::strings::order_key(self.c, &t.name.text, &by.expr)
                            .is_some() =>
                    {
                        // A string key: the previous record's string is kept as its offset
                        // and read again to compare (`Compare` carries the two offsets).
                        let Some(sd) =
                            crate::check::strings::order_key(self.c, &t.name.text, &by.expr)
                        else {
                            return quote!();
                        };
                        let strict = *kind == OrderKind::Unique;
                        let b = self.blame(&sd.offset.expr, rscope);
                        let names = crate::check::strings::order_key_names(by, strict);
                        let fail_k = self.fail(
                            codes,
                            &b,
                            Det::Compare(Opd::Val(quote!(k)), Opd::Val(quote!(p)), names),
                        );
                        let (decl, find_in, start) =
                            crate::emit::strings::lookup(self, sd, rscope, &renv);
                        let range = crate::emit::strings::range_of(sd, &quote!());
                        let pb = sd.prefix_bytes();
                        let big = sd.big.unwrap_or(false);
                        let bad = if strict {
                            quote!(key <= before)
                        } else {
                            quote!(key < before)
                        };
                        // In the loop, the previous record's bytes are kept too
                        // (`order_prev_bytes`), so they are not looked up again; the key's are
                        // those its `string_fits` found, when it found them for the body.
                        let check = if in_loop {
                            let prev_bytes = order_prev_bytes(code);
                            let key = if env.found.contains(&sd.name.text) {
                                let var = crate::emit::strings::found_var(sd);
                                quote!(#var.unwrap_or(&[]))
                            } else {
                                quote!({
                                    let range: &'a [u8] = #range;
                                    #find_in.unwrap_or(&[])
                                })
                            };
                            quote! {
                                let p = #prev.unwrap_or(0);
                                #decl
                                let k: u64 = #start;
                                let key: &'a [u8] = #key;
                                if #prev.is_some() {
                                    let before: &'a [u8] = #prev_bytes;
                                    if #bad {
                                        return #fail_k;
                                    }
                                }
                                #prev = Some(k);
                                #prev_bytes = key;
                            }
                        } else {
                            quote! {
                                let p = #prev.unwrap_or(0);
                                #decl
                                let range: &'a [u8] = #range;
                                let k: u64 = #start;
                                if #prev.is_some() {
                                    let key: &[u8] = #find_in.unwrap_or(&[]);
                                    let before: &[u8] = __rt::string_at(range, p, #pb, #big).unwrap_or(&[]);
                                    if #bad {
                                        return #fail_k;
                                    }
                                }
                                #prev = Some(k);
                            }
                        };
                        (
                            check,
                            format!(
                                "@step {codes}: string `{}` {} over the records of `{}`, in table order (bytewise).",
                                by.text,
                                if strict {
                                    "strictly increases (so is unique)"
                                } else {
                                    "never decreases"
                                },
                                t.name.text
                            ),
                        )
                    }
                    (_, Some(by), _) => {
                        let strict = *kind == OrderKind::Unique;
                        let b = self.blame(&by.expr, rscope);
                        let neg = if strict { "<=" } else { "<" };
                        let names = [
                            Self::short_name(by),
                            neg.to_string(),
                            "previous".to_string(),
                        ];
                        let det = |o: Opd| {
                            self.fail(
                                codes,
                                &b,
                                Det::Compare(o, Opd::Val(quote!(p)), names.clone()),
                            )
                        };
                        let kbind = bind("k", &by.expr, &det);
                        let fail_k = det(Opd::Val(quote!(k)));
                        let bad = if strict {
                            quote!(k <= p)
                        } else {
                            quote!(k < p)
                        };
                        (
                            quote! {
                                let p = #prev.unwrap_or(0);
                                #kbind
                                if #prev.is_some() && #bad {
                                    return #fail_k;
                                }
                                #prev = Some(k);
                            },
                            format!(
                                "@step {codes}: `{}` {} over the records of `{}`, in table order.",
                                by.text,
                                if strict {
                                    "strictly increases (so is unique)"
                                } else {
                                    "never decreases"
                                },
                                t.name.text
                            ),
                        )
                    }
                    _ => return quote!(),
                };
                if in_loop {
                    return quote! {
                        #[doc = #comment]
                        {
                            #check
                        }
                    };
                }
                quote! {
                    #[doc = #comment]
                    {
                        let mut prev: Option<u64> = None;
                        for (i, raw) in #var.iter().enumerate() {
                            #at_first
                            let index = u64::try_from(i).unwrap_or(u64::MAX);
                            let rec = #rec_ty { raw, buf, index: u32::try_from(i).unwrap_or(u32::MAX) #rec_order };
                            #at_then
                            let _ = (&rec, rec_at);
                            #check
                        }
                    }
                }
            }
            Step::Let { name, value } => {
                let id = format_ident!("__let_{}", name.text);
                let v = self.value(&value.expr, scope, env);
                let comment = format!(
                    "@step let `{}` = `{}` (`None` if it overflows).",
                    name.text, value.text
                );
                quote! {
                    #[doc = #comment]
                    let #id: Option<u64> = #v;
                }
            }
            Step::When { when, step } => {
                let cond = strip_parens(self.cond(&when.expr, scope, env));
                let comment = format!("@step when `{}`:", when.text);
                let inner = match &**step {
                    Step::ForEach { table, steps }
                        if crate::check::ext::collection_of(file, &table.text).is_some() =>
                    {
                        crate::emit::sections::for_each_collection(self, &table.text, steps)
                    }
                    Step::ForEach { table, steps }
                        if crate::check::lookup::is_target(file, &table.text) =>
                    {
                        crate::emit::stream::for_each(self, &table.text, steps)
                    }
                    // A table checked only when the condition holds has no records otherwise.
                    Step::TableFits { table, .. } => {
                        let inner = self.step(step, scope, env);
                        let Some(t) = self.c.table(&table.text) else {
                            return quote!();
                        };
                        let shape = crate::emit::table::shape(self.c, t);
                        let (ty, empty) = (shape.ty(), shape.empty());
                        let var = format_ident!("{}", t.name.text);
                        let var_at = format_ident!("{}_at", t.name.text);
                        return quote! {
                            #[doc = #comment]
                            let (#var, #var_at): (#ty, u64) = if #cond {
                                #inner
                                (#var, #var_at)
                            } else {
                                (#empty, 0)
                            };
                        };
                    }
                    // A step of this module's extensions, alone under its condition.
                    Step::Ext(x) => crate::emit::sections::step(self, x, None, None, scope, env),
                    _ => self.step(step, scope, env),
                };
                quote! {
                    #[doc = #comment]
                    if #cond {
                        #inner
                    }
                }
            }
        }
    }

    /// Whether the top-level step `s` is the last `for_each` over its table: the one after
    /// whose checks `validate_with` calls the caller's hook for each record.
    pub(crate) fn visits(&self, s: &Step) -> bool {
        let Step::ForEach { table, .. } = s else {
            return false;
        };
        self.schema()
            .file
            .validate
            .iter()
            .rfind(|x| matches!(x, Step::ForEach { table: t, .. } if t.text == table.text))
            .is_some_and(|last| std::ptr::eq(last, s))
    }

    /// The tables the caller's hooks see (those with a top-level `for_each`), in schema
    /// order.
    pub(crate) fn visited_tables(&self) -> Vec<&'a Table> {
        let file = &self.c.schema.file;
        file.tables
            .iter()
            .filter(|t| {
                file.validate
                    .iter()
                    .any(|x| matches!(x, Step::ForEach { table, .. } if table.text == t.name.text))
            })
            .collect()
    }

    pub(crate) fn file_view(&self) -> TokenStream {
        let file = &self.schema().file;
        let id = format_ident!("{}", file.name.text);
        let doc = doc_attr(&file.doc);
        let Some(hs) = self.c.header() else {
            return quote!();
        };
        let hty = format_ident!("{}", hs.name.text);
        let hsize = lit_usize(self.c.layouts.get(&hs.name.text).map_or(0, |l| l.size));
        let hsize64 =
            Literal::u64_suffixed(self.c.layouts.get(&hs.name.text).map_or(0, |l| l.size));
        let hfail = self.fail(
            &file.header_code.text,
            &Blame::plain("header", 0),
            Det::Short(quote!(#hsize64), quote!(len)),
        );
        let parts = self.steps_in_parts(&file.validate);
        let helpers = self.sites.take_helpers();
        // The file's byte order, chosen by the header (`big_when`): read once, right after
        // the header, from its fields of a fixed order; every view of a struct in the file's
        // order carries it (`__big` here, `self.__big` in the view's accessors).
        let (header_bind, order_field, order_init, self_order) = match &self.schema().big_when {
            Some(b) => {
                let env = Env {
                    header: quote!(header),
                    record: quote!(header),
                    found: Vec::new(),
                };
                let cond = strip_parens(self.cond(&b.expr, Scope::Top, &env));
                let comment = format!("@step the file's byte order: big-endian when `{}`.", b.text);
                let first = crate::emit::order_init(self.c, &hs.name.text, quote!(false));
                (
                    quote! {
                        let header: #hty<'a> = #hty { raw: header_raw, buf, index: 0 #first };
                        #[doc = #comment]
                        let __order: bool = #cond;
                    },
                    quote! {
                        /// Big-endian: the byte order the header chose.
                        __big: bool,
                    },
                    quote!(__big,),
                    crate::emit::order_init(self.c, &hs.name.text, quote!(self.__big)),
                )
            }
            None => (
                quote!(let header: #hty<'a> = #hty { raw: header_raw, buf, index: 0 };),
                quote!(),
                quote!(),
                quote!(),
            ),
        };

        let mut fields = Vec::new();
        let mut inits = Vec::new();
        let mut accessors = Vec::new();
        let mut iters = Vec::new();
        // Each table's records through `npuschema_core::Records` (one iterator, audited once),
        // its record view made by the view's `RecordView` impl (one per record type in the
        // module, `ModuleOut::first_record_view`).
        for t in &file.tables {
            let var = format_ident!("{}", t.name.text);
            let n = lit_usize(self.c.layouts.get(&t.record.text).map_or(0, |l| l.size));
            let rec_ty = format_ident!("{}", t.record.text);
            let iter_ty = format_ident!("{}", t.type_name());
            let tdoc = doc_attr(&t.doc);
            let shape = crate::emit::table::shape(self.c, t);
            let (ty, it) = (shape.ty(), shape.records_arg());
            let runtime = crate::check::order::runtime_struct(self.c, &t.record.text);
            let records = if runtime {
                quote!(__rt::Records::new_in(self.#var, self.buf, self.__big))
            } else {
                quote!(__rt::Records::new(self.#var, self.buf))
            };
            fields.push(quote!(#var: #ty,));
            inits.push(quote!(#var,));
            let iter_doc = format!(
                " Iterator over the records of `{}`, each a [`{}`] (double-ended, exact size).",
                t.name.text, t.record.text
            );
            accessors.push(quote! {
                #tdoc
                #[must_use]
                #[inline]
                pub fn #var(&self) -> #iter_ty<'a> { #records }
            });
            iters.push(quote! {
                #[doc = #iter_doc]
                pub type #iter_ty<'a> = __rt::Records<'a, #n, #rec_ty<'a> #it>;
            });
            if self.sites.first_record_view(&t.record.text) {
                // A record in the file's byte order takes the order the table hands it.
                let view_in = runtime.then(|| quote! {
                    #[inline]
                    fn view_in(raw: &'a [u8; #n], buf: &'a [u8], index: u32, big: bool) -> Self {
                        #rec_ty { raw, buf, index, big }
                    }
                });
                let fixed = crate::emit::order_init(self.c, &t.record.text, quote!(false));
                iters.push(quote! {
                    impl<'a> __rt::RecordView<'a, #n> for #rec_ty<'a> {
                        #[inline]
                        fn view(raw: &'a [u8; #n], buf: &'a [u8], index: u32) -> Self {
                            #rec_ty { raw, buf, index #fixed }
                        }
                        #view_in
                    }
                });
            }
        }
        for r in file.ranges.iter().filter(|r| r.table.is_none()) {
            let var = format_ident!("{}", r.name.text);
            let rdoc = doc_attr(&r.doc);
            if let Some(w) = &r.when {
                let note = format!(
                    " Borrowed from the validated buffer, never copied; `None` when `{}` does not hold.",
                    w.text
                );
                fields.push(quote!(#var: Option<&'a [u8]>,));
                inits.push(quote!(#var,));
                accessors.push(quote! {
                    #rdoc
                    ///
                    #[doc = #note]
                    #[must_use]
                    #[inline]
                    pub fn #var(&self) -> Option<&'a [u8]> { self.#var }
                });
                continue;
            }
            fields.push(quote!(#var: &'a [u8],));
            inits.push(quote!(#var,));
            accessors.push(quote! {
                #rdoc
                ///
                /// Borrowed from the validated buffer, never copied.
                #[must_use]
                #[inline]
                pub fn #var(&self) -> &'a [u8] { self.#var }
            });
        }
        for k in &file.checksums {
            let name = format_ident!("{}_computed", k.name.text);
            let env = Env {
                header: quote!(header),
                record: quote!(rec),
                found: Vec::new(),
            };
            let data = self.span_data(&k.from.expr, &k.to.expr, Scope::Top, &env);
            let (compute, start) = self.checksum_call(k, Scope::Top, &env);
            let zeroed = zero_list(k).map_or(String::new(), |z| format!(", with {z} as zero"));
            let doc = format!(
                " Recompute checksum `{}` ({:?} over `{}`..`{}`{zeroed}); validation proved it equals {}.",
                k.name.text,
                k.algorithm,
                k.from.text,
                k.to.text,
                if k.equals {
                    format!("`{}`", k.stored.text)
                } else {
                    "the stored value".to_string()
                }
            );
            // The located records its span and its zero fields read (`info.body_offset`),
            // by their accessors; a zero field's record by its place too (`<record>_at`).
            let mut located: Vec<proc_macro2::Ident> = Vec::new();
            let mut placed: Vec<proc_macro2::Ident> = Vec::new();
            for z in &k.zero {
                if let Some((Owner::Located(j), _)) = single_field(self.c, &z.expr, Scope::Top)
                    && let Some(r) = file.ext.records.get(j)
                {
                    let id = format_ident!("{}", r.name.text);
                    if !placed.contains(&id) {
                        placed.push(id);
                    }
                }
            }
            let placed_at: Vec<proc_macro2::Ident> =
                placed.iter().map(|r| format_ident!("{}_at", r)).collect();
            for p in k.from.expr.refs().iter().chain(k.to.expr.refs().iter()) {
                if let Ok(
                    Resolved::Field(Owner::Located(j), _)
                    | Resolved::Composed(Owner::Located(j), _)
                    | Resolved::Nested(Owner::Located(j), _)
                    | Resolved::FlagBit(Owner::Located(j), ..),
                ) = self.c.resolve(p, Scope::Top)
                    && let Some(r) = file.ext.records.get(j)
                {
                    let id = format_ident!("{}", r.name.text);
                    if !located.contains(&id) {
                        located.push(id);
                    }
                }
            }
            accessors.push(quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #name(&self) -> u32 {
                    #(let #located = self.#located();)*
                    let header = self.header();
                    let buf = self.buf;
                    #(let #placed_at = __rt::offset_in(buf, self.#placed().as_bytes());)*
                    let len = u64::try_from(buf.len()).unwrap_or(u64::MAX);
                    let _ = (&header, len);
                    let data = #data;
                    #start
                    match data {
                        Some(d) => #compute,
                        None => 0,
                    }
                }
            });
        }
        for ext in [
            crate::emit::sections::file_items(self),
            crate::emit::stream::file_items(self),
            crate::emit::strings::file_items(self),
        ] {
            fields.extend(ext.fields);
            inits.extend(ext.inits);
            accessors.extend(ext.accessors);
            iters.extend(ext.items);
        }
        let table_ats = file
            .tables
            .iter()
            .map(|t| format_ident!("{}_at", t.name.text));
        let fname = file.name.text.as_str();
        let as_doc = quote! {
            /// As [`Self::validate`], reporting a failure as `E`: [`__rt::Error`] for
            /// everything, [`__rt::Brief`] for only the failing check's number (the
            /// smallest code on a microcontroller; [`error_site`] names it), or your own
            /// [`__rt::Report`].
            ///
            /// # Errors
            /// The first failed check, as `E`.
        };
        let visited = self.visited_tables();
        let vt = format_ident!("{}Visit", file.name.text);
        // A long body is cut into helpers of the view (`split.rs`), each given the bindings
        // it reads; these are in scope before the schema's steps.
        let splitter = crate::emit::split::Splitter::validator(
            (!visited.is_empty()).then(|| quote!(V: #vt<'a, E> + ?Sized)),
            if visited.is_empty() {
                "validate_as"
            } else {
                "validate_with"
            },
        );
        let env = [
            crate::emit::split::Binding::typed("buf", quote!(&'a [u8])),
            crate::emit::split::Binding {
                name: "visit".to_string(),
                ty: None,
                mutable: false,
            },
            crate::emit::split::Binding::typed("len", quote!(u64)),
            crate::emit::split::Binding::typed("header", quote!(#hty<'a>)),
        ];
        let mut env = env.to_vec();
        if self.schema().big_when.is_some() {
            env.push(crate::emit::split::Binding::typed("__big", quote!(bool)));
        }
        let mut parts: Vec<(Option<String>, TokenStream)> =
            parts.into_iter().map(|(l, t)| (Some(l), t)).collect();
        parts.push((
            None,
            quote! {
                #( let _ = #table_ats; )*
                Ok(Self { buf, header: header_raw, #order_init #(#inits)* })
            },
        ));
        // (Once per byte order when the header chooses it: see `order_body`.)
        let copies = if self.schema().big_when.is_some() {
            2
        } else {
            1
        };
        let steps_body = splitter.split_parts(parts, &env, copies);
        let helpers = {
            let mut h = helpers;
            h.extend(splitter.take_helpers());
            h
        };
        // With the file's order chosen by the header, the steps once per order, each with the
        // order a constant: every read in them is one load, no branch (the parts the body
        // was split into take `__big` and are inlined).
        let order_body = if self.schema().big_when.is_some() {
            let then = crate::emit::order_init(self.c, &hs.name.text, quote!(__big));
            quote! {
                if __order {
                    let __big: bool = true;
                    let header: #hty<'a> = #hty { raw: header_raw, buf, index: 0 #then };
                    let _ = &header;
                    #steps_body
                } else {
                    let __big: bool = false;
                    let header: #hty<'a> = #hty { raw: header_raw, buf, index: 0 #then };
                    let _ = &header;
                    #steps_body
                }
            }
        } else {
            quote! {
                let _ = &header;
                #steps_body
            }
        };
        let validate_body = quote! {
            let len: u64 = u64::try_from(buf.len()).unwrap_or(u64::MAX);
            let Some(header_raw) = __rt::chunk_at::<#hsize>(buf, 0) else {
                return #hfail;
            };
            #header_bind
            #order_body
        };
        let (validate_as, validate_with, visit_trait) = if visited.is_empty() {
            (
                quote! {
                    #as_doc
                    pub fn validate_as<E: __rt::Report>(buf: &'a [u8]) -> Result<Self, E> {
                        #validate_body
                    }
                },
                quote!(),
                quote!(),
            )
        } else {
            let methods = visited.iter().map(|t| {
                let var = format_ident!("{}", t.name.text);
                let rec_ty = format_ident!("{}", t.record.text);
                let mdoc = doc_attr(&format!(
                    "Record `index` of `{}`, once its checks (and every check before the\n\
                     table's) passed; an `Err` stops validation with it. Does nothing by\n\
                     default.",
                    t.name.text
                ));
                quote! {
                    #mdoc
                    #[inline(always)]
                    fn #var(&mut self, header: &#hty<'a>, index: usize, record: &#rec_ty<'a>) -> Result<(), E> {
                        let _ = (header, index, record);
                        Ok(())
                    }
                }
            });
            let tdoc = crate::emit::doc::lines(&format!(
                "The caller's hooks into [`{fname}::validate_with`]: one per table, called\n\
                 with each record as soon as its checks pass, so that a consumer (the NPU1\n\
                 arena binder, say) does its own work in the validator's one pass over the\n\
                 records instead of a second one. `()` is the visitor that does nothing."
            ));
            (
                quote! {
                    #as_doc
                    #[inline]
                    pub fn validate_as<E: __rt::Report>(buf: &'a [u8]) -> Result<Self, E> {
                        Self::validate_with(buf, &mut ())
                    }
                },
                quote! {
                    /// As [`Self::validate_as`], calling `visit`'s hook with each record of each
                    /// table as soon as the record's checks pass (the checks of the file, then of
                    /// the table, run in schema order as always). The view is returned only when
                    /// every check passed and every hook returned `Ok`.
                    ///
                    /// # Errors
                    /// The first failed check, or the first error a hook returned.
                    pub fn validate_with<E: __rt::Report, V: #vt<'a, E> + ?Sized>(
                        buf: &'a [u8],
                        visit: &mut V,
                    ) -> Result<Self, E> {
                        #validate_body
                    }
                },
                quote! {
                    #tdoc
                    pub trait #vt<'a, E> {
                        #(#methods)*
                    }
                    impl<E> #vt<'_, E> for () {}
                },
            )
        };
        let validate_doc = format!(
            " Validate `buf` as a {} file: every step of the schema, in order; the first failure is returned.",
            self.schema().name.text
        );
        quote! {
            #doc
            ///
            /// A *validated* view: the only way to get one is [`Self::validate`], so holding one
            /// proves every check passed. It borrows the buffer and copies nothing.
            #[derive(Clone, Copy)]
            pub struct #id<'a> {
                buf: &'a [u8],
                header: &'a [u8; #hsize],
                #order_field
                #(#fields)*
            }
            impl<'a> #id<'a> {
                #(#helpers)*
                #[doc = #validate_doc]
                ///
                /// The view borrows `buf`; its accessors cannot fail.
                ///
                /// # Errors
                /// The first failed check, with its code, field and byte offset.
                #[inline]
                pub fn validate(buf: &'a [u8]) -> Result<Self, __rt::Error> {
                    Self::validate_as(buf)
                }
                #validate_as
                #validate_with
                /// The whole validated buffer.
                #[must_use]
                #[inline]
                pub fn as_bytes(&self) -> &'a [u8] { self.buf }
                /// The header.
                #[must_use]
                #[inline]
                pub fn header(&self) -> #hty<'a> { #hty { raw: self.header, buf: self.buf, index: 0 #self_order } }
                #(#accessors)*
            }
            impl core::fmt::Debug for #id<'_> {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.debug_struct(#fname).field("header", &self.header()).finish_non_exhaustive()
                }
            }
            #visit_trait
            #(#iters)*
        }
    }
}

/// `x` of `u64::from(x?)` when `x` itself has no `?`: an optional value widened.
fn widened_option(inner: &TokenStream) -> Option<TokenStream> {
    use proc_macro2::{Delimiter, TokenTree};
    let toks: Vec<TokenTree> = inner.clone().into_iter().collect();
    let [
        TokenTree::Ident(u),
        TokenTree::Punct(c1),
        TokenTree::Punct(c2),
        TokenTree::Ident(from),
        TokenTree::Group(g),
    ] = toks.as_slice()
    else {
        return None;
    };
    if u != "u64" || c1.as_char() != ':' || c2.as_char() != ':' || from != "from" {
        return None;
    }
    if g.delimiter() != Delimiter::Parenthesis {
        return None;
    }
    let mut arg: Vec<TokenTree> = g.stream().into_iter().collect();
    match arg.pop() {
        Some(TokenTree::Punct(q)) if q.as_char() == '?' => {}
        _ => return None,
    }
    let x: TokenStream = arg.into_iter().collect();
    (!x.is_empty() && !x.to_string().contains('?')).then_some(x)
}

/// A constant's name as the schema writes it: one not in UPPER_SNAKE (`magic`, a flag bit
/// `compress`) would be a `non_upper_case_globals` warning in the user's crate, an error
/// under `#![deny(warnings)]`, so its item allows it.
fn case_allow(name: &str) -> Option<TokenStream> {
    (!crate::names::upper_snake(name)).then(|| quote!(#[allow(non_upper_case_globals)]))
}

/// A checksum's `zero` fields as its comments name them (`` `head.checksum_adjustment` ``),
/// `None` when it has none.
fn zero_list(k: &crate::schema::Checksum) -> Option<String> {
    let z: Vec<String> = k.zero.iter().map(|z| format!("`{}`", z.text)).collect();
    (!z.is_empty()).then(|| z.join(", "))
}

/// The names a comparison's error gives its two sides and the failed relation (`a`, `>`,
/// `len`), as the lowered model names its site (`lower::sites::assert`): the operator
/// negated, as the check failed.
fn compare_names(l: &Expr, op: BinOp, r: &Expr) -> [String; 3] {
    use crate::lower::sites::operand_name;
    [
        operand_name(l),
        op.negated().symbol().to_string(),
        operand_name(r),
    ]
}

/// An `assert` step's code, condition and blamed field.
type AssertParts<'s> = (
    &'s crate::schema::Name,
    &'s crate::expr::ExprAt,
    &'s crate::expr::ExprAt,
);
