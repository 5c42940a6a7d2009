//! Generated functions a person can audit: a validator body longer than [`MAIN_LINES`] is
//! cut into helper functions of the view, so that no generated function is much longer than
//! a screenful. A validator's top-level steps are cut where the file's parts meet
//! (`lower/checks.rs`: the header, each table or stream, the checksums, the rules over the
//! whole file), a helper per part named after it (`check_header`, `check_regions`); a part
//! longer than a helper may be is cut again into runs of consecutive steps, as are a
//! writer's body and the statements inside a long step (named after the first step's code).
//! Cutting by part keeps a change to one part from moving the cuts of the others.
//!
//! The cut is made on the emitted statements, after every construct has emitted its own
//! code, so it applies to every construct alike and changes no check: each helper holds the
//! same statements in the same order, takes the bindings it reads as arguments, returns the
//! bindings later statements read, and hands back the bindings it updates (copied in and
//! out; every binding the validators keep is `Copy`). The helpers are `#[inline(always)]`,
//! so the machine code is that of the one long function (measured by `scripts/code-size` and
//! `scripts/firmware`). Error sites are numbered before the cut, so it does not move them.
//!
//! A statement is cut out only when everything it needs is known: each binding it reads has
//! a declared type (the emitters annotate the bindings they make: `let rec: Rec<'a> = ..`),
//! and it holds no `break` or `continue` aimed at a loop outside it. A statement longer than
//! the budget is opened (a block, a loop's body, a `let`'s initialiser, an `if`'s branch)
//! and its own statements are cut the same way.

use std::cell::RefCell;
use std::collections::BTreeSet;

use proc_macro2::{Delimiter, Ident, Spacing, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote};

/// A body up to this many lines is left whole.
pub(crate) const MAIN_LINES: usize = 130;
/// The most lines one helper is given.
const BUDGET: usize = 135;
/// A helper may take up to this many lines when its run starts with fewer than
/// [`MIN_LINES`] (one long statement that could not be opened further).
const HARD: usize = 138;
/// The most lines a generated function may take (`tests/tests/generated_function_size.rs`).
const LIMIT: usize = 148;
/// A run of statements shorter than this stays where it is: a call would not shorten much.
const MIN_LINES: usize = 12;

/// A binding in scope: its name, its type when the emitter declared it, whether it is `mut`.
#[derive(Clone)]
pub(crate) struct Binding {
    pub(crate) name: String,
    pub(crate) ty: Option<TokenStream>,
    pub(crate) mutable: bool,
}

impl Binding {
    /// An array (`[T; N]`): lent to helpers (`&x`, `&mut x`), never copied in and out.
    fn is_array(&self) -> bool {
        self.ty
            .as_ref()
            .is_some_and(|t| matches!(syn::parse2::<syn::Type>(t.clone()), Ok(syn::Type::Array(_))))
    }

    pub(crate) fn typed(name: &str, ty: TokenStream) -> Self {
        Binding {
            name: name.to_string(),
            ty: Some(ty),
            mutable: false,
        }
    }
}

/// The helper names of one `impl`: `base`, else `base_2`, `base_3`, ... (sets, so naming
/// `n` helpers is about `n` lookups).
#[derive(Default, Clone)]
struct HelperNames {
    taken: std::collections::HashSet<String>,
    next: std::collections::HashMap<String, usize>,
}

impl HelperNames {
    /// `base`, or `base_k` for the first `k` from 2 not taken yet; taken from now on.
    fn take(&mut self, base: String) -> String {
        let mut name = base.clone();
        if self.taken.contains(&name) {
            // Every number below the base's counter is taken already.
            let k = self.next.entry(base.clone()).or_insert(2);
            loop {
                name = format!("{base}_{k}");
                *k += 1;
                if !self.taken.contains(&name) {
                    break;
                }
            }
        }
        self.taken.insert(name.clone());
        name
    }
}

/// What the helpers cut from one function share: their error type, generic parameters, the
/// names already taken; the helpers themselves, for the `impl` the function is in.
pub(crate) struct Splitter {
    /// The visitor's bound (`V: FooVisit<'a, E> + ?Sized`), for a helper that calls a hook.
    visit_bound: Option<TokenStream>,
    /// A validator's helpers report as its `E: __rt::Report`; a writer's (`None`) return
    /// `__rt::WriteError`.
    generic_error: bool,
    /// The function the helpers are cut from, for their doc comments.
    from: String,
    /// The helper names taken, and per base name the next number to try after it.
    names: RefCell<HelperNames>,
    helpers: RefCell<Vec<TokenStream>>,
}

impl Splitter {
    /// For a validator (`validate_with`, `validate_as`), generic over its `E: __rt::Report`.
    pub(crate) fn validator(visit_bound: Option<TokenStream>, from: &str) -> Self {
        Splitter {
            visit_bound,
            generic_error: true,
            from: from.to_string(),
            names: RefCell::new(HelperNames::default()),
            helpers: RefCell::new(Vec::new()),
        }
    }

    /// For a writer's method (`write_into`): helpers are methods too (`&self` when they read
    /// it) and return `__rt::WriteError`.
    pub(crate) fn writer(from: &str) -> Self {
        Splitter {
            visit_bound: None,
            generic_error: false,
            from: from.to_string(),
            names: RefCell::new(HelperNames::default()),
            helpers: RefCell::new(Vec::new()),
        }
    }

    /// The helpers cut so far, to emit in the function's `impl`.
    pub(crate) fn take_helpers(&self) -> Vec<TokenStream> {
        std::mem::take(&mut *self.helpers.borrow_mut())
    }

    /// `body` (statements, then an optional tail expression), with runs of its statements
    /// moved into helper functions when it is longer than [`MAIN_LINES`]; `env` is what is in
    /// scope before it. A body that does not parse is returned as it is.
    pub(crate) fn split(&self, body: TokenStream, env: &[Binding]) -> TokenStream {
        let Ok(block) = syn::parse2::<syn::Block>(quote!({ #body })) else {
            return body;
        };
        if lines_of(&body) <= MAIN_LINES {
            return body;
        }
        let stmts: Vec<TokenStream> = block.stmts.iter().map(ToTokens::to_token_stream).collect();
        let cut = self.block(stmts, None, env.to_vec(), false, true, None);
        self.again(cut, env, MAIN_LINES)
    }

    /// A body cut once and still over `main` lines (a loop whose body became many calls of
    /// helpers, each a dozen lines with its arguments): cut again, the calls into helpers of
    /// their own, at most three more times. A body within `main` is returned as it is, so
    /// what fits after one cut is cut once.
    fn again(&self, mut body: TokenStream, env: &[Binding], main: usize) -> TokenStream {
        let mut lines = lines_of(&body);
        for _ in 0..3 {
            if lines <= main {
                break;
            }
            let Ok(block) = syn::parse2::<syn::Block>(quote!({ #body })) else {
                break;
            };
            let stmts: Vec<TokenStream> =
                block.stmts.iter().map(ToTokens::to_token_stream).collect();
            // A cut no shorter is dropped, with the helpers it made and their names.
            let kept = (self.helpers.borrow().len(), self.names.borrow().clone());
            let cut = self.block(stmts, None, env.to_vec(), false, true, None);
            let cut_lines = lines_of(&cut);
            if cut_lines >= lines {
                self.helpers.borrow_mut().truncate(kept.0);
                *self.names.borrow_mut() = kept.1;
                break;
            }
            (body, lines) = (cut, cut_lines);
        }
        body
    }

    /// A validator's body given as the schema's parts (`lower/checks.rs`: each run of steps
    /// of one part, with its label; `None` for what follows the steps), cut as [`Self::split`]
    /// cuts, except that a helper never holds statements of two parts, and is named after its
    /// part (`check_header`, `check_<table>`, `check_checksums`).
    ///
    /// `copies`: how many times the body is emitted in its function (2 for a file whose
    /// byte order a field chooses: the steps once per order), so that together they fit.
    pub(crate) fn split_parts(
        &self,
        parts: Vec<(Option<String>, TokenStream)>,
        env: &[Binding],
        copies: usize,
    ) -> TokenStream {
        // (Each copy has a few lines of its own around it, the order and the header, and is
        // printed one level deeper, so a little longer than measured here.)
        let main = match copies {
            0 | 1 => MAIN_LINES,
            n => MAIN_LINES.saturating_sub(40) / n,
        };
        let whole: TokenStream = parts.iter().map(|(_, t)| t.clone()).collect();
        if lines_of(&whole) <= main {
            return whole;
        }
        let mut stmts: Vec<TokenStream> = Vec::new();
        let mut labels: Vec<Option<String>> = Vec::new();
        for (label, t) in parts {
            let Ok(block) = syn::parse2::<syn::Block>(quote!({ #t })) else {
                return self.split(whole, env);
            };
            for st in &block.stmts {
                stmts.push(st.to_token_stream());
                labels.push(label.clone());
            }
        }
        let cut = self.block(stmts, Some(labels), env.to_vec(), false, true, None);
        self.again(cut, env, main)
    }

    fn block(
        &self,
        stmts: Vec<TokenStream>,
        labels: Option<Vec<Option<String>>>,
        mut env: Vec<Binding>,
        in_loop: bool,
        value_used: bool,
        within: Option<&str>,
    ) -> TokenStream {
        // Open the statements too long for one helper, each with what is in scope before it.
        let mut items: Vec<Item> = Vec::new();
        let last = stmts.len().saturating_sub(1);
        for (k, s) in stmts.into_iter().enumerate() {
            let lines = lines_of(&s);
            // Opened when over the budget, or when a helper holding it alone would pass the
            // limit with a parameter line per binding it reads (a wide struct's writer reads
            // a value per field).
            let reads = uses_of(&s)
                .iter()
                .filter(|u| env.iter().any(|b| &b.name == *u))
                .count();
            let (s, lines) = if lines > BUDGET || lines + reads + 10 > LIMIT {
                let s = self.open(s, &env, within);
                let lines = lines_of(&s);
                (s, lines)
            } else {
                (s, lines)
            };
            let defs = defs_of(&s);
            let item = Item {
                lines,
                uses: uses_of(&s),
                jumps: escaping_jump(&s),
                is_tail: value_used && k == last && is_tail(&s),
                is_last_unit: !value_used && k == last && is_tail(&s),
                code: first_code(&s),
                part: labels.as_ref().and_then(|l| l.get(k).cloned().flatten()),
                env: env.clone(),
                defs: defs.clone(),
                s,
            };
            env.extend(defs);
            items.push(item);
        }
        // Runs of statements that can move, packed up to the budget.
        let uses = LastUse::of(&items);
        let n = items.len();
        let mut chunk_of: Vec<Option<usize>> = vec![None; n];
        let mut chunks: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < n {
            if !self.movable(&items, &uses, i) {
                i += 1;
                continue;
            }
            let mut j = i;
            let mut total = 0;
            while j < n
                && self.movable(&items, &uses, j)
                && items[j].part == items[i].part
                && (total + items[j].lines <= BUDGET
                    || (total < MIN_LINES && total + items[j].lines <= HARD))
            {
                total += items[j].lines;
                j += 1;
            }
            if j == i {
                // One statement over the budget that could not be opened: left in place.
                i += 1;
                continue;
            }
            // The helper's signature and return take a line per binding it passes: drop
            // statements from the end until the whole function fits.
            while j > i + 1 && helper_lines(&items, &uses, i, j, in_loop) > LIMIT {
                j -= 1;
                total -= items[j].lines;
            }
            if total >= MIN_LINES && self.defs_typed(&items, &uses, i, j) {
                for c in chunk_of.iter_mut().take(j).skip(i) {
                    *c = Some(chunks.len());
                }
                chunks.push((i, j));
            }
            i = j;
        }
        if chunks.is_empty() {
            return items.into_iter().map(|it| it.s).collect();
        }
        // What each chunk reads, updates and hands on.
        let plans: Vec<Plan> = chunks
            .iter()
            .map(|&(a, b)| plan(&items, &uses, a, b, in_loop))
            .collect();
        let mut out = TokenStream::new();
        let mut k = 0;
        while k < n {
            match chunk_of[k] {
                None => {
                    // A `let mut` whose binding only helpers change (and do not hand back)
                    // loses its `mut`.
                    let mut s = items[k].s.clone();
                    for d in items[k].defs.iter().filter(|d| d.mutable) {
                        let changed = items[k + 1..].iter().enumerate().any(|(off, it)| {
                            match chunk_of[k + 1 + off] {
                                None => mutates(&it.s, &d.name),
                                Some(c2) => plans[c2].changes(&d.name),
                            }
                        });
                        if !changed {
                            s = drop_mut(s, &d.name);
                        }
                    }
                    out.extend(s);
                    k += 1;
                }
                Some(c) => {
                    let (a, b) = chunks[c];
                    // (When the chunk's call is the block's value, its tail goes.)
                    let tail = items.get(b).map(|t| t.s.to_string());
                    let emitted = self.emit_chunk(&items, a, b, &plans[c], within, |name| {
                        // A binding handed on is `mut` when something after changes it.
                        items[b..].iter().enumerate().any(|(off, it)| {
                            let at = b + off;
                            match chunk_of[at] {
                                None => mutates(&it.s, name),
                                Some(c2) => plans[c2].changes(name),
                            }
                        })
                    });
                    let text = emitted.to_string();
                    let is_value = b + 1 == n
                        && items[b].is_tail
                        && tail.is_some()
                        && !text.trim_start().starts_with("let ")
                        && !text.trim_end().ends_with(';');
                    out.extend(emitted);
                    k = if is_value { n } else { b };
                }
            }
        }
        out
    }

    /// Whether statement `i` may move into a helper.
    fn movable(&self, items: &[Item], last: &LastUse, i: usize) -> bool {
        let it = &items[i];
        // An array's `let` stays in the caller, which lends the array to the helpers; so does
        // a `let` whose binding a later statement reads and a helper could not hand back (no
        // declared type, or one that borrows a local: `'_`).
        if it.jumps || it.is_tail || it.defs.iter().any(Binding::is_array) {
            return false;
        }
        let later = |name: &str| last.used_from(name, i + 1);
        if it
            .defs
            .iter()
            .any(|d| later(&d.name) && d.ty.as_ref().is_none_or(|t| t.to_string().contains("'_")))
        {
            return false;
        }
        it.env.iter().all(|b| {
            !it.uses.contains(&b.name)
                || b.ty.is_some()
                || (b.name == "visit" && self.visit_bound.is_some())
                || b.name == "self"
        })
    }

    /// Whether the bindings that statements `a..b` make and later statements read all have
    /// declared types (they are returned from the helper).
    fn defs_typed(&self, items: &[Item], last: &LastUse, a: usize, b: usize) -> bool {
        // A binding that borrows a local (`'_`) cannot be handed back either.
        items[a..b].iter().flat_map(|it| it.defs.iter()).all(|d| {
            !last.used_from(&d.name, b)
                || d.ty.as_ref().is_some_and(|t| !t.to_string().contains("'_"))
        })
    }

    /// A statement over the budget with its inner statements cut: a block, a loop's body, a
    /// `let`'s block initialiser or an `if`'s first branch. Anything else is kept whole.
    /// `within`: the step the statement belongs to, when it is inside one.
    fn open(&self, s: TokenStream, env: &[Binding], within: Option<&str>) -> TokenStream {
        let tts: Vec<TokenTree> = s.clone().into_iter().collect();
        if let Some(cut) = self.open_deferred_closure(&tts, env, within) {
            return cut;
        }
        // The last brace group at the top level of the statement is the body to cut, unless
        // something other than `;` or `else { .. }` follows it.
        let Some(pos) = tts
            .iter()
            .rposition(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))
        else {
            return s;
        };
        let rest = &tts[pos + 1..];
        let tail_ok = rest.is_empty()
            || (rest.len() == 1 && matches!(&rest[0], TokenTree::Punct(p) if p.as_char() == ';'));
        if !tail_ok {
            return s;
        }
        let head = &tts[..pos];
        let head_text: Vec<String> = head.iter().map(ToString::to_string).collect();
        // `else { .. }` of a let-else, or a match's arms: not a body to cut.
        if head_text.last().is_some_and(|t| t == "else") || head_text.iter().any(|t| t == "match") {
            return s;
        }
        let TokenTree::Group(g) = &tts[pos] else {
            return s;
        };
        let Ok(block) = syn::parse2::<syn::Block>(quote!({ #g })).map(|b| b.stmts) else {
            return s;
        };
        // The braces' own statements (the parse above wrapped the group once more).
        let inner = match block.as_slice() {
            [syn::Stmt::Expr(syn::Expr::Block(b), _)] => b.block.stmts.clone(),
            _ => return s,
        };
        let mut inner_env = env.to_vec();
        // A loop's or an `if let`'s pattern binds names of unknown type: statements reading
        // them stay.
        for id in head_bindings(head) {
            inner_env.push(Binding {
                name: id,
                ty: None,
                mutable: false,
            });
        }
        let stmts: Vec<TokenStream> = inner.iter().map(ToTokens::to_token_stream).collect();
        let in_loop = head_text
            .iter()
            .any(|t| t == "for" || t == "while" || t == "loop");
        // Only a `let`'s initialiser has a value; a block, a loop or an `if` without `else`
        // standing as a statement is `()`, so its last statement may move too.
        let value_used = first_code_token(&head_text).is_some_and(|k| head_text[k] == "let");
        // The helpers cut from inside are part of the statement's own step (its `@step`
        // comment), or of the step it is inside, not of a step nested in it (a `for_each`'s
        // checks run in a walk are part of the walk's step).
        let code = own_code(&s)
            .or_else(|| within.map(String::from))
            .or_else(|| first_code(&s));
        let cut = self.block(stmts, None, inner_env, in_loop, value_used, code.as_deref());
        let mut out: TokenStream = head.iter().cloned().collect();
        let mut ng = proc_macro2::Group::new(Delimiter::Brace, cut);
        ng.set_span(g.span());
        out.extend([TokenTree::Group(ng)]);
        out.extend(rest.iter().cloned());
        out
    }

    /// A record's checks in a walk that defers its error, `if let Err(d) = (|| -> Result<(),
    /// __rt::Deferred> { CHECKS })() { .. }`: the statements of `CHECKS` cut as a block's (a
    /// helper's failure returns from the closure, as the check it holds did), the rest as it
    /// is. `None` for any other statement.
    fn open_deferred_closure(
        &self,
        tts: &[TokenTree],
        env: &[Binding],
        within: Option<&str>,
    ) -> Option<TokenStream> {
        // (Compared without spaces: `||` prints as `| |` once parsed by syn.)
        let flat = |t: String| t.replace(' ', "");
        let head = flat(deferred_head().to_string());
        let k = tts.iter().position(|t| {
            matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis
                && flat(g.stream().to_string()).starts_with(&head))
        })?;
        let head: Vec<String> = tts[..k].iter().map(ToString::to_string).collect();
        if head.first().map(String::as_str) != Some("if") || !head.iter().any(|t| t == "let") {
            return None;
        }
        let TokenTree::Group(g) = &tts[k] else {
            return None;
        };
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        let last = inner.len().checked_sub(1)?;
        let TokenTree::Group(body) = &inner[last] else {
            return None;
        };
        if body.delimiter() != Delimiter::Brace {
            return None;
        }
        let block = syn::parse2::<syn::Block>(quote!({ #body })).ok()?;
        let stmts = match block.stmts.as_slice() {
            [syn::Stmt::Expr(syn::Expr::Block(b), _)] => b.block.stmts.clone(),
            _ => return None,
        };
        let stmts: Vec<TokenStream> = stmts.iter().map(ToTokens::to_token_stream).collect();
        let s: TokenStream = tts.iter().cloned().collect();
        let code = own_code(&s)
            .or_else(|| within.map(String::from))
            .or_else(|| first_code(&s));
        let cut = self.block(stmts, None, env.to_vec(), false, true, code.as_deref());
        let mut nb = proc_macro2::Group::new(Delimiter::Brace, cut);
        nb.set_span(body.span());
        let mut closure: TokenStream = inner[..last].iter().cloned().collect();
        closure.extend([TokenTree::Group(nb)]);
        let mut ng = proc_macro2::Group::new(Delimiter::Parenthesis, closure);
        ng.set_span(g.span());
        let mut out: TokenStream = tts[..k].iter().cloned().collect();
        out.extend([TokenTree::Group(ng)]);
        out.extend(tts[k + 1..].iter().cloned());
        Some(out)
    }

    /// `base` made an identifier and unique among this view's helpers.
    fn name(&self, base: &str) -> Ident {
        let base: String = base
            .chars()
            .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
            .collect();
        let name = self.names.borrow_mut().take(base);
        format_ident!("{}", name)
    }

    /// The helper for statements `a..b` (pushed to the view) and the statements that call it.
    fn emit_chunk(
        &self,
        items: &[Item],
        a: usize,
        b: usize,
        p: &Plan,
        within: Option<&str>,
        mut_after: impl Fn(&str) -> bool,
    ) -> TokenStream {
        let codes: Vec<String> = items[a..b]
            .iter()
            .filter_map(|it| it.code.clone())
            .collect();
        // Named after its first check, or else after the first binding it makes.
        // A writer's runs have no checks to be named after: numbered in order.
        let k = self.names.borrow().taken.len() + 1;
        let part = items[a].part.as_deref();
        // A validator's top-level run is named after its part.
        let named = if self.generic_error {
            part.or(codes.first().map(String::as_str)).or(within)
        } else {
            None
        };
        let name = match (
            named,
            items[a..b].iter().flat_map(|it| it.defs.iter()).next(),
        ) {
            _ if !self.generic_error => self.name(&format!("{}_part_{k}", self.from)),
            (Some(c), _) => self.name(&format!("check_{c}")),
            (None, Some(d)) => self.name(&format!("bind_{}", d.name.trim_start_matches('_'))),
            (None, None) => self.name("check_part"),
        };
        let uses_visit = p.params.iter().any(|x| x.name == "visit");
        let uses_self = p.params.iter().any(|x| x.name == "self");
        let (generics, turbofish, err_ty) = match (self.generic_error, &self.visit_bound) {
            (false, _) => (quote!(), quote!(), quote!(__rt::WriteError)),
            (true, Some(vb)) if uses_visit => {
                (quote!(<E: __rt::Report, #vb>), quote!(::<E, V>), quote!(E))
            }
            (true, _) => (quote!(), quote!(), quote!(__rt::Deferred)),
        };
        let deferred = self.generic_error && !(uses_visit && self.visit_bound.is_some());
        let receiver = uses_self.then(|| quote!(&self,));
        let callee = if uses_self {
            quote!(self)
        } else {
            quote!(Self)
        };
        let dot = if uses_self { quote!(.) } else { quote!(::) };
        let params = p.params.iter().filter(|x| x.name != "self").map(|x| {
            let id = format_ident!("{}", x.name);
            if x.name == "visit" && self.visit_bound.is_some() {
                return quote!(visit: &mut V);
            }
            let ty = x.ty.clone().unwrap_or_default();
            if x.is_array() && p.mutated.contains(&x.name) {
                quote!(#id: &mut #ty)
            } else if x.is_array() {
                quote!(#id: &#ty)
            } else if p.mutated.contains(&x.name) {
                quote!(mut #id: #ty)
            } else {
                quote!(#id: #ty)
            }
        });
        let args = p.params.iter().filter(|x| x.name != "self").map(|x| {
            let id = format_ident!("{}", x.name);
            match (x.is_array(), p.mutated.contains(&x.name)) {
                (true, true) => quote!(&mut #id),
                (true, false) => quote!(&#id),
                _ => quote!(#id),
            }
        });
        let ret_all: Vec<&Binding> = p.outs.iter().chain(p.inout.iter()).collect();
        let ret_ids: Vec<Ident> = ret_all
            .iter()
            .map(|x| format_ident!("{}", x.name))
            .collect();
        let ret_tys: Vec<TokenStream> = ret_all
            .iter()
            .map(|x| x.ty.clone().unwrap_or_default())
            .collect();
        let (ret_ty, ret_val) = match ret_all.len() {
            0 => (quote!(()), quote!(())),
            1 => (ret_tys[0].clone(), ret_ids[0].to_token_stream()),
            _ => (quote!((#(#ret_tys),*)), quote!((#(#ret_ids),*))),
        };
        // A binding it assigns before reading: bound here, by that assignment when it is the
        // only one (`let pos: u64 = next;`), else declared first.
        let once = |x: &Binding| {
            items[a..b]
                .iter()
                .filter(|it| mutates(&it.s, &x.name))
                .count()
                == 1
        };
        let decls: Vec<TokenStream> = p
            .fresh
            .iter()
            .filter(|x| !once(x))
            .map(|x| {
                let id = format_ident!("{}", x.name);
                let ty = x.ty.clone().unwrap_or_default();
                quote!(let mut #id: #ty;)
            })
            .collect();
        let body: TokenStream = items[a..b]
            .iter()
            .enumerate()
            .map(|(k, it)| {
                if let Some(x) = p
                    .fresh
                    .iter()
                    .find(|x| once(x) && assigns_first(&it.s, &x.name))
                {
                    let id = format_ident!("{}", x.name);
                    let ty = x.ty.clone().unwrap_or_default();
                    let rhs: TokenStream = it.s.clone().into_iter().skip(2).collect();
                    return quote!(let #id: #ty = #rhs);
                }
                // A `let mut` whose binding changes only after the helper: `mut` goes (the
                // call's binding has it).
                let mut s = it.s.clone();
                for d in it.defs.iter().filter(|d| d.mutable) {
                    if !items[a + k + 1..b].iter().any(|x| mutates(&x.s, &d.name)) {
                        s = drop_mut(s, &d.name);
                    }
                }
                // A unit block's last statement, if it is no block: now followed by `Ok`.
                if it.is_last_unit && !block_like(&s) {
                    s.extend(quote!(;));
                }
                s
            })
            .collect();
        // What it holds, for its doc comment: each check once, a loop as "every record of".
        let said = |c: &str| match c.strip_prefix("each_") {
            Some(t) => format!("every record of `{t}`"),
            None => format!("`{c}`"),
        };
        let mut listed: Vec<String> = Vec::new();
        for c in &codes {
            let x = said(c);
            if !listed.contains(&x) {
                listed.push(x);
            }
        }
        let part_said = part.map(|p| match p {
            "header" => "the header and the places it gives".to_string(),
            "checksums" => "the checksums".to_string(),
            "rules" => {
                "the places of the parts read next, and rules over the whole file".to_string()
            }
            t => format!("`{t}` and its records"),
        });
        // A collection's part that is only its loop says so once.
        let part_said = part_said.filter(|_| {
            !matches!(part, Some(t) if listed.len() == 1 && listed[0] == said(&format!("each_{t}")))
        });
        let doc = match (self.generic_error, listed.is_empty(), within, &part_said) {
            (false, ..) => format!(" Part of [`Self::{}`], in order.", self.from),
            (true, true, None, Some(ps)) => format!(" Part of [`Self::{}`]: {ps}.", self.from),
            (true, false, None, Some(ps)) => format!(
                " Part of [`Self::{}`]: {ps}: {}, in schema order.",
                self.from,
                listed.join(", ")
            ),
            // Cut from inside a step, holding checks of steps nested in it (a `for_each`'s
            // run in a walk).
            (true, false, Some(w), _) if !codes.iter().any(|c| c == w) => {
                match w.strip_prefix("each_") {
                    Some(t) => format!(
                        " Part of [`Self::{}`]: {} for every record of `{t}`, in schema order.",
                        self.from,
                        listed.join(", ")
                    ),
                    None => format!(
                        " Part of [`Self::{}`]: part of {}, with {}, in schema order.",
                        self.from,
                        said(w),
                        listed.join(", ")
                    ),
                }
            }
            (true, false, ..) => format!(
                " Part of [`Self::{}`]: {}, in schema order.",
                self.from,
                listed.join(", ")
            ),
            (true, true, Some(w), _) => {
                format!(" Part of [`Self::{}`]: part of {}.", self.from, said(w))
            }
            (true, true, None, _) => format!(
                " Part of [`Self::{}`]: what later checks read, in schema order.",
                self.from
            ),
        };
        // An array lent to this helper is a reference in its body: lending it on to a nested
        // helper passes the reference itself (`x`, not `&x`).
        let body = quote!(#(#decls)* #body);
        let mut body = if deferred { deferred_body(body) } else { body };
        for x in p.params.iter().filter(|x| x.is_array()) {
            body = unlend(body, &x.name);
        }
        self.helpers.borrow_mut().push(quote! {
            #[doc = #doc]
            #[inline(always)]
            #[allow(clippy::too_many_arguments, clippy::type_complexity)]
            fn #name #generics(#receiver #(#params),*) -> Result<#ret_ty, #err_ty> {
                #body
                Ok(#ret_val)
            }
        });
        // The call: fresh bindings for what the helper made, assignments for what it updated.
        let pats: Vec<TokenStream> = ret_all
            .iter()
            .enumerate()
            .map(|(k, x)| {
                let id = format_ident!("{}", x.name);
                if k < p.outs.len() {
                    if mut_after(&x.name) {
                        quote!(mut #id)
                    } else {
                        quote!(#id)
                    }
                } else {
                    updated(&name, &x.name).to_token_stream()
                }
            })
            .collect();
        let assigns = p.inout.iter().map(|x| {
            let id = format_ident!("{}", x.name);
            let up = updated(&name, &x.name);
            quote!(#id = #up;)
        });
        // A validator's helper fails with a `Deferred` report, made where the failing paths
        // meet: in the validator, or in a helper that calls the visitor (and fails with `E`).
        // Written as a `match`, not `.map_err(..)?`: at `opt-level = "z"` the function item
        // `map_err` takes is not inlined, and the paths no longer meet.
        let call = if deferred {
            quote!(match #callee #dot #name #turbofish(#(#args),*) {
                Ok(v) => v,
                Err(d) => return Err(d.into_report()),
            })
        } else {
            quote!(#callee #dot #name #turbofish(#(#args),*)?)
        };
        let lhs = match pats.len() {
            0 => return quote!(#call;),
            1 => pats[0].clone(),
            _ => quote!((#(#pats),*)),
        };
        // The block's value is what the helper made: the call is the value (no `let x = ..;
        // x`, clippy's `let_and_return`).
        if p.inout.is_empty()
            && b + 1 == items.len()
            && items[b].is_tail
            && items[b].s.to_string() == lhs.to_string()
            && pats.iter().all(|x| !x.to_string().starts_with("mut"))
        {
            return call;
        }
        // With their types, so that the statements after it that read them may move too.
        // (A tuple's type may be what clippy calls complex: allowed on the statement.)
        let bind = match (ret_all.iter().all(|x| x.ty.is_some()), ret_all.len()) {
            (true, 1) => quote!(let #lhs: #ret_ty),
            (true, _) => quote!(#[allow(clippy::type_complexity)] let #lhs: #ret_ty),
            (false, _) => quote!(let #lhs),
        };
        quote! {
            #bind = #call;
            #(#assigns)*
        }
    }
}

/// One statement and what the cut needs to know of it.
struct Item {
    s: TokenStream,
    lines: usize,
    uses: BTreeSet<String>,
    jumps: bool,
    is_tail: bool,
    /// The last statement of a block whose value is `()`.
    is_last_unit: bool,
    code: Option<String>,
    /// The part of the file its step checks (`lower/checks.rs`), for a validator's
    /// top-level statements.
    part: Option<String>,
    /// What is in scope before it.
    env: Vec<Binding>,
    /// What it binds.
    defs: Vec<Binding>,
}

/// A helper's interface: what it reads, what it makes that later statements read, what it
/// updates.
struct Plan {
    params: Vec<Binding>,
    /// Bindings the helper hands back that it assigns before it reads them (`pos = next;`,
    /// the walk's next record): declared in the helper, not passed in (a value passed and
    /// never read is a warning).
    fresh: Vec<Binding>,
    /// Parameters the helper changes (declared `mut`).
    mutated: Vec<String>,
    outs: Vec<Binding>,
    inout: Vec<Binding>,
}

impl Plan {
    /// Whether the caller's binding `name` changes at this helper's call: it is handed back,
    /// or lent mutably.
    fn changes(&self, name: &str) -> bool {
        self.inout.iter().any(|x| x.name == name)
            || self
                .params
                .iter()
                .any(|x| x.name == name && x.is_array() && self.mutated.contains(&x.name))
    }
}

/// The binding a helper's call hands an updated value back in, before the assignment
/// `x = <it>;`: named after the helper too, so that two calls in one block that hand back
/// the same binding (a lookup's result that several checks read, `__find_*`) bind two
/// names, and a cut between them never takes one call's for the other's.
fn updated(helper: &Ident, name: &str) -> Ident {
    let h = helper.to_string();
    format_ident!(
        "__updated_{}_{}",
        h.strip_prefix("check_").unwrap_or(&h),
        name.trim_start_matches('_')
    )
}

/// The last statement of a block that reads each name: whether statements from `b` on read
/// a name is one lookup, so cutting a block of `n` statements costs about `n` of them, not
/// `n` squared (a schema of 20,000 steps is one such block).
struct LastUse(std::collections::HashMap<String, usize>);

impl LastUse {
    fn of(items: &[Item]) -> Self {
        let mut m = std::collections::HashMap::new();
        for (k, it) in items.iter().enumerate() {
            for u in &it.uses {
                m.insert(u.clone(), k);
            }
        }
        Self(m)
    }

    /// Whether a statement at index `b` or later reads `name`.
    fn used_from(&self, name: &str, b: usize) -> bool {
        self.0.get(name).is_some_and(|&k| k >= b)
    }
}

/// About how many lines the helper for statements `a..b` takes once printed: its
/// statements, a line per argument and per binding it returns, and about ten more (doc,
/// attributes, signature, `Ok(..)`).
fn helper_lines(items: &[Item], last: &LastUse, a: usize, b: usize, in_loop: bool) -> usize {
    let p = plan(items, last, a, b, in_loop);
    let body: usize = items[a..b].iter().map(|it| it.lines).sum();
    body + p.params.len() + 2 * (p.outs.len() + p.inout.len()) + 10
}

fn plan(items: &[Item], last: &LastUse, a: usize, b: usize, in_loop: bool) -> Plan {
    let env = &items[a].env;
    let uses: BTreeSet<&String> = items[a..b].iter().flat_map(|it| it.uses.iter()).collect();
    // Each name once, as it is in scope at the chunk's start (the last binding of a name).
    let mut params: Vec<Binding> = Vec::new();
    for bnd in env.iter().rev() {
        if uses.contains(&bnd.name) && !params.iter().any(|x| x.name == bnd.name) {
            params.push(bnd.clone());
        }
    }
    params.reverse();
    let mutated: Vec<String> = params
        .iter()
        .filter(|x| x.mutable && items[a..b].iter().any(|it| mutates(&it.s, &x.name)))
        .map(|x| x.name.clone())
        .collect();
    let later = |name: &str| last.used_from(name, b);
    let mut outs: Vec<Binding> = Vec::new();
    for d in items[a..b].iter().flat_map(|it| it.defs.iter()).rev() {
        if later(&d.name) && !outs.iter().any(|x| x.name == d.name) {
            outs.push(d.clone());
        }
    }
    outs.reverse();
    // An updated binding is handed back when something after reads it (in a loop's body,
    // the next round does).
    let inout: Vec<Binding> = params
        .iter()
        .filter(|x| {
            !x.is_array()
                && mutated.contains(&x.name)
                && !outs.iter().any(|o| o.name == x.name)
                && (in_loop || later(&x.name))
        })
        .cloned()
        .collect();
    // Of those, the ones whose first use in the chunk is a plain assignment (`x = ..;`, the
    // value not read on its right): not parameters.
    let fresh: Vec<Binding> = inout
        .iter()
        .filter(|x| {
            items[a..b]
                .iter()
                .find(|it| it.uses.contains(&x.name))
                .is_some_and(|it| assigns_first(&it.s, &x.name))
        })
        .cloned()
        .collect();
    let params = params
        .into_iter()
        .filter(|x| !fresh.iter().any(|f| f.name == x.name))
        .collect();
    Plan {
        params,
        fresh,
        mutated,
        outs,
        inout,
    }
}

/// Whether statement `s` is `name = <expression without name>;`.
fn assigns_first(s: &TokenStream, name: &str) -> bool {
    let tts: Vec<TokenTree> = s.clone().into_iter().collect();
    let plain_eq = matches!(tts.get(1), Some(TokenTree::Punct(p)) if p.as_char() == '=' && p.spacing() == proc_macro2::Spacing::Alone);
    let rhs: TokenStream = tts.iter().skip(2).cloned().collect();
    let mut uses = BTreeSet::new();
    collect_uses(rhs, &BTreeSet::new(), &mut uses);
    matches!(tts.first(), Some(TokenTree::Ident(id)) if id == name)
        && plain_eq
        && !uses.contains(name)
}

/// The number of lines `s` takes once formatted (as the statements of a function).
pub(crate) fn lines_of(s: &TokenStream) -> usize {
    // Measured as a helper's body is printed: inside an `impl`'s function.
    match syn::parse2::<syn::File>(quote!(impl X { fn __f() { #s } })) {
        Ok(f) => prettyplease::unparse(&f).lines().count().saturating_sub(4),
        Err(_) => s.to_string().len() / 60,
    }
}

/// The names a statement reads or writes as variables: identifiers not after `.` (a field or
/// method) or `::` (a path), not before `::`, and not a field name in a struct literal.
fn uses_of(s: &TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    collect_uses(s.clone(), &BTreeSet::new(), &mut out);
    out
}

/// The uses in `ts` of names not bound inside it: a `let`'s names count from the `;` that
/// ends it, a `for`'s, an `if let`'s or a `while let`'s inside the braces that follow.
fn collect_uses(ts: TokenStream, bound: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    let tts: Vec<TokenTree> = ts.into_iter().collect();
    let mut bound = bound.clone();
    let mut pending: Vec<String> = Vec::new();
    let mut for_body: Vec<String> = Vec::new();
    let mut closure_params: Vec<String> = Vec::new();
    // In a pattern: `Some(true)` for a `let` bound at its `;`, `Some(false)` for one bound in
    // the braces after it (a `for`, an `if let`, a `while let`).
    let mut pattern: Option<bool> = None;
    let is_punct =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    for (k, t) in tts.iter().enumerate() {
        let prev = k.checked_sub(1).and_then(|p| tts.get(p));
        if let Some(at_semi) = pattern {
            let end = match t {
                TokenTree::Ident(id) => id == "in",
                TokenTree::Punct(p) => {
                    p.as_char() == '='
                        && !is_punct(tts.get(k + 1), '=')
                        && !is_punct(tts.get(k + 1), '>')
                        && !matches!(prev, Some(TokenTree::Punct(q)) if "=!<>".contains(q.as_char()) && q.spacing() == Spacing::Joint)
                }
                _ => false,
            };
            if end {
                pattern = None;
                continue;
            }
            let names = match t {
                TokenTree::Ident(_) | TokenTree::Group(_) => {
                    pattern_idents(std::slice::from_ref(t))
                }
                _ => Vec::new(),
            };
            // A type after `:` in a `let`: nothing bound, nothing used.
            if at_semi {
                pending.extend(names);
            } else {
                for_body.extend(names);
            }
            continue;
        }
        // A closure's parameters (`|a, b: u64|`): bound for the rest of this group, which
        // holds the closure's body.
        if let TokenTree::Punct(p) = t
            && p.as_char() == '|'
            && p.spacing() == Spacing::Alone
            && match prev {
                None => true,
                Some(TokenTree::Punct(q)) => matches!(q.as_char(), ',' | '='),
                Some(TokenTree::Ident(m)) => m == "move",
                _ => false,
            }
            && let Some(close) = tts[k + 1..]
                .iter()
                .position(|x| matches!(x, TokenTree::Punct(q) if q.as_char() == '|'))
        {
            let params = &tts[k + 1..k + 1 + close];
            // Names before a `:` (a declared type is not bound).
            let mut names = Vec::new();
            let mut typed = false;
            for x in params {
                match x {
                    TokenTree::Punct(q) if q.as_char() == ':' => typed = true,
                    TokenTree::Punct(q) if q.as_char() == ',' => typed = false,
                    _ if !typed => names.extend(pattern_idents(std::slice::from_ref(x))),
                    _ => {}
                }
            }
            closure_params.extend(names);
        }
        if let TokenTree::Ident(id) = t
            && closure_params.contains(&id.to_string())
        {
            continue;
        }
        match t {
            TokenTree::Ident(id) if id == "let" => {
                let in_cond = matches!(prev, Some(TokenTree::Ident(x)) if x == "if" || x == "while")
                    || is_punct(prev, '&');
                pattern = Some(!in_cond);
            }
            TokenTree::Ident(id) if id == "for" => pattern = Some(false),
            TokenTree::Punct(p) if p.as_char() == ';' => bound.extend(pending.drain(..)),
            // `#[..]`: an attribute, not code.
            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket && is_punct(prev, '#') => {}
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                let mut inner = bound.clone();
                inner.extend(for_body.drain(..));
                inner.extend(closure_params.iter().cloned());
                collect_uses(g.stream(), &inner, out);
            }
            TokenTree::Group(g) => {
                let mut inner = bound.clone();
                inner.extend(closure_params.iter().cloned());
                collect_uses(g.stream(), &inner, out);
            }
            TokenTree::Ident(id) => {
                let prev2 = k.checked_sub(2).and_then(|p| tts.get(p));
                let next = tts.get(k + 1);
                // `x.y`: y is a field or method, unless `..y` (a range).
                if is_punct(prev, '.') && !is_punct(prev2, '.') {
                    continue;
                }
                if is_punct(prev, ':') && is_punct(prev2, ':') {
                    continue;
                }
                // `x::` is a path; `x:` a field name or a declared type.
                if is_punct(next, ':') {
                    continue;
                }
                // A lifetime's name (`'a`).
                if is_punct(prev, '\'') {
                    continue;
                }
                let name = id.to_string();
                if !bound.contains(&name) {
                    out.insert(name);
                }
            }
            _ => {}
        }
    }
}

/// Whether `s` changes the variable `name`: assigns it (`x = `, `x += `, `x[..] = `), takes
/// `&mut x`, or calls `x.get_mut(..)`.
fn mutates(s: &TokenStream, name: &str) -> bool {
    let tts: Vec<TokenTree> = s.clone().into_iter().collect();
    for (k, t) in tts.iter().enumerate() {
        match t {
            TokenTree::Group(g) if mutates(&g.stream(), name) => return true,
            TokenTree::Ident(id) if id == name => {
                let prev = k.checked_sub(1).and_then(|p| tts.get(p));
                // `x.f`, `let x` (a new binding), `*x = ..` (through a reference: the
                // binding itself does not change).
                if matches!(prev, Some(TokenTree::Punct(p)) if p.as_char() == '.' || p.as_char() == '*')
                    || matches!(prev, Some(TokenTree::Ident(m)) if m == "let")
                {
                    continue;
                }
                if matches!(prev, Some(TokenTree::Ident(m)) if m == "mut") {
                    // `&mut x` (not `let mut x`, a new binding).
                    let prev2 = k.checked_sub(2).and_then(|p| tts.get(p));
                    if matches!(prev2, Some(TokenTree::Punct(p)) if p.as_char() == '&') {
                        return true;
                    }
                    continue;
                }
                let mut j = k + 1;
                // Skip `[..]` index groups.
                while let Some(TokenTree::Group(g)) = tts.get(j) {
                    if g.delimiter() != Delimiter::Bracket {
                        break;
                    }
                    j += 1;
                }
                match (tts.get(j), tts.get(j + 1)) {
                    (Some(TokenTree::Punct(p)), nx) if p.as_char() == '=' => {
                        let eqeq = matches!(nx, Some(TokenTree::Punct(q)) if q.as_char() == '=')
                            && p.spacing() == Spacing::Joint;
                        let arrow = matches!(nx, Some(TokenTree::Punct(q)) if q.as_char() == '>')
                            && p.spacing() == Spacing::Joint;
                        if !eqeq && !arrow {
                            return true;
                        }
                    }
                    (Some(TokenTree::Punct(p)), Some(TokenTree::Punct(q)))
                        if "+-*/%|&^".contains(p.as_char())
                            && p.spacing() == Spacing::Joint
                            && q.as_char() == '=' =>
                    {
                        return true;
                    }
                    (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(m)))
                        if p.as_char() == '.'
                            && ["get_mut", "iter_mut", "as_mut", "take", "replace"]
                                .contains(&m.to_string().as_str()) =>
                    {
                        return true;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    false
}

/// The bindings a `let` statement makes, with their types when declared.
fn defs_of(s: &TokenStream) -> Vec<Binding> {
    let Ok(syn::Stmt::Local(l)) = syn::parse2::<syn::Stmt>(s.clone()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    pat_defs(&l.pat, None, &mut out);
    out
}

fn pat_defs(p: &syn::Pat, ty: Option<&syn::Type>, out: &mut Vec<Binding>) {
    match p {
        syn::Pat::Ident(pi) => out.push(Binding {
            name: pi.ident.to_string(),
            ty: ty.map(ToTokens::to_token_stream),
            mutable: pi.mutability.is_some(),
        }),
        syn::Pat::Type(pt) => pat_defs(&pt.pat, Some(&pt.ty), out),
        syn::Pat::Tuple(t) => {
            let tys: Option<Vec<&syn::Type>> = match ty {
                Some(syn::Type::Tuple(tt)) if tt.elems.len() == t.elems.len() => {
                    Some(tt.elems.iter().collect())
                }
                _ => None,
            };
            for (k, e) in t.elems.iter().enumerate() {
                pat_defs(e, tys.as_ref().map(|v| v[k]), out);
            }
        }
        // `[a, b]: [T; N]`: each a T.
        syn::Pat::Slice(sl) => {
            let elem = match ty {
                Some(syn::Type::Array(a)) => Some(&*a.elem),
                _ => None,
            };
            for e in &sl.elems {
                pat_defs(e, elem, out);
            }
        }
        // A let-else's `Some(x): Option<T>`: x is a T.
        syn::Pat::TupleStruct(ts)
            if ts.path.is_ident("Some")
                && ts.elems.len() == 1
                && let Some(syn::Type::Path(tp)) = ty
                && let Some(seg) = tp.path.segments.last()
                && seg.ident == "Option"
                && let syn::PathArguments::AngleBracketed(args) = &seg.arguments
                && let Some(syn::GenericArgument::Type(inner)) = args.args.first() =>
        {
            pat_defs(&ts.elems[0], Some(inner), out);
        }
        // Anything else (an untyped let-else's `Some(x)`, a struct pattern): names of unknown
        // type.
        other => {
            for id in pattern_idents(&other.to_token_stream().into_iter().collect::<Vec<_>>()) {
                out.push(Binding {
                    name: id,
                    ty: None,
                    mutable: false,
                });
            }
        }
    }
}

/// The names a pattern binds: its lower-case identifiers (not a path's, not a constant's).
fn pattern_idents(tts: &[TokenTree]) -> Vec<String> {
    fn walk(tts: &[TokenTree], out: &mut Vec<String>) {
        for (k, t) in tts.iter().enumerate() {
            match t {
                TokenTree::Ident(id) => {
                    let s = id.to_string();
                    let path =
                        matches!(tts.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                    if !path
                        && !matches!(s.as_str(), "mut" | "ref" | "_")
                        && s.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                    {
                        out.push(s);
                    }
                }
                TokenTree::Group(g) => walk(&g.stream().into_iter().collect::<Vec<_>>(), out),
                TokenTree::Punct(_) | TokenTree::Literal(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(tts, &mut out);
    out
}

/// The names bound in the head of a block-like statement: a `for` loop's pattern (up to
/// `in`) and each `let` pattern of an `if let` or `while let` (up to its `=`).
fn head_bindings(head: &[TokenTree]) -> Vec<String> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < head.len() {
        let (start, stop) = match &head[k] {
            TokenTree::Ident(id) if id == "for" => (k + 1, "in"),
            // `if let` and `while let` (and `&& let` in a chain) bind in the body; a `let`
            // statement's pattern (and its type: `let x: (u64, u64) = { .. };`) is not in
            // scope in its own initialiser.
            TokenTree::Ident(id) if id == "let" && k > 0 && binds_in_body(&head[k - 1]) => {
                (k + 1, "=")
            }
            _ => {
                k += 1;
                continue;
            }
        };
        let mut j = start;
        while j < head.len() && head[j].to_string() != stop {
            j += 1;
        }
        out.extend(pattern_idents(&head[start..j.min(head.len())]));
        k = j;
    }
    out
}

/// The head of the closure a walk runs a record's checks in, so that their first failure is
/// deferred: [`deferred_checks`] writes it and [`Splitter`] cuts inside it.
fn deferred_head() -> TokenStream {
    quote!(|| -> Result<(), __rt::Deferred>)
}

/// A record's checks as one expression whose error a walk defers (`Err(d)`: the first check
/// that failed), written so that the cut into helpers can open it.
pub(crate) fn deferred_checks(body: TokenStream) -> TokenStream {
    let head = deferred_head();
    quote! {
        (#head {
            #body
            Ok(())
        })()
    }
}

/// Whether a `let` after this token binds in the braces that follow (`if let`, `while let`,
/// `&& let`), not from the end of its own statement.
fn binds_in_body(before: &TokenTree) -> bool {
    match before {
        TokenTree::Ident(p) => p == "if" || p == "while",
        TokenTree::Punct(p) => p.as_char() == '&',
        _ => false,
    }
}

/// Whether `s` holds a `break` or `continue` for a loop outside it (any with a label).
fn escaping_jump(s: &TokenStream) -> bool {
    let tts: Vec<TokenTree> = s.clone().into_iter().collect();
    let mut k = 0;
    while k < tts.len() {
        match &tts[k] {
            TokenTree::Ident(id) if id == "break" || id == "continue" => return true,
            TokenTree::Ident(id) if id == "for" || id == "while" || id == "loop" => {
                // Skip to the loop's body and past it: jumps in there are its own, unless
                // labelled.
                let mut j = k + 1;
                while j < tts.len()
                    && !matches!(&tts[j], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace)
                {
                    j += 1;
                }
                if let Some(TokenTree::Group(g)) = tts.get(j)
                    && labelled_jump(&g.stream())
                {
                    return true;
                }
                k = j + 1;
                continue;
            }
            TokenTree::Group(g) if escaping_jump(&g.stream()) => return true,
            _ => {}
        }
        k += 1;
    }
    false
}

fn labelled_jump(s: &TokenStream) -> bool {
    let tts: Vec<TokenTree> = s.clone().into_iter().collect();
    tts.iter().enumerate().any(|(k, t)| match t {
        TokenTree::Ident(id) if id == "break" || id == "continue" => {
            matches!(tts.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == '\'')
        }
        TokenTree::Group(g) => labelled_jump(&g.stream()),
        _ => false,
    })
}

/// `s` with each unary `&name` and `&mut name` made `name`.
/// A deferred helper's body: a generic check it calls (`owned_apart_x::<E>`) reports as a
/// `Deferred` too (`::<__rt::Deferred>`). Only a turbofish's `E` is the report type: a value
/// named `E` (a schema constant) stays. Its nested helpers' failures need nothing:
/// `d.into_report()` makes the `Deferred` again.
fn deferred_body(s: TokenStream) -> TokenStream {
    let tts: Vec<TokenTree> = s.into_iter().collect();
    let mut out = TokenStream::new();
    // How deep inside `::< .. >` the next token is.
    let mut depth = 0usize;
    for (k, t) in tts.iter().enumerate() {
        match t {
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), deferred_body(g.stream()));
                ng.set_span(g.span());
                out.extend([TokenTree::Group(ng)]);
                continue;
            }
            TokenTree::Punct(p) if p.as_char() == '<' => {
                let after_path_sep = k >= 2
                    && matches!((&tts[k - 2], &tts[k - 1]),
                        (TokenTree::Punct(a), TokenTree::Punct(b))
                            if a.as_char() == ':' && b.as_char() == ':');
                if depth > 0 || after_path_sep {
                    depth += 1;
                }
            }
            TokenTree::Punct(p) if p.as_char() == '>' => depth = depth.saturating_sub(1),
            TokenTree::Ident(e) if e == "E" && depth > 0 => {
                out.extend(quote!(__rt::Deferred));
                continue;
            }
            _ => {}
        }
        out.extend([t.clone()]);
    }
    out
}

fn unlend(s: TokenStream, name: &str) -> TokenStream {
    let tts: Vec<TokenTree> = s.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
    let mut k = 0;
    while k < tts.len() {
        if let TokenTree::Punct(p) = &tts[k]
            && p.as_char() == '&'
            && p.spacing() == Spacing::Alone
            && match out.last() {
                None => true,
                Some(TokenTree::Punct(q)) => matches!(q.as_char(), ',' | '=' | ':'),
                _ => false,
            }
        {
            let skip = match (tts.get(k + 1), tts.get(k + 2)) {
                (Some(TokenTree::Ident(m)), Some(TokenTree::Ident(n)))
                    if m == "mut" && n == name =>
                {
                    2
                }
                (Some(TokenTree::Ident(n)), _) if n == name => 1,
                _ => 0,
            };
            if skip > 0 {
                out.push(tts[k + skip].clone());
                k += skip + 1;
                continue;
            }
        }
        match &tts[k] {
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), unlend(g.stream(), name));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            t => out.push(t.clone()),
        }
        k += 1;
    }
    out.into_iter().collect()
}

/// `s` without the `mut` of `let mut name` (or of `mut name` in its pattern).
fn drop_mut(s: TokenStream, name: &str) -> TokenStream {
    let tts: Vec<TokenTree> = s.into_iter().collect();
    let mut out = Vec::with_capacity(tts.len());
    let mut in_pat = false;
    for (k, t) in tts.iter().enumerate() {
        match t {
            TokenTree::Ident(id) if id == "let" => in_pat = true,
            TokenTree::Punct(p) if p.as_char() == '=' => in_pat = false,
            TokenTree::Ident(id)
                if in_pat
                    && id == "mut"
                    && matches!(tts.get(k + 1), Some(TokenTree::Ident(n)) if n == name) =>
            {
                continue;
            }
            TokenTree::Group(g) if in_pat && g.delimiter() == Delimiter::Parenthesis => {
                let mut ng =
                    proc_macro2::Group::new(g.delimiter(), drop_mut_in_pat(g.stream(), name));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
                continue;
            }
            _ => {}
        }
        out.push(t.clone());
    }
    out.into_iter().collect()
}

fn drop_mut_in_pat(s: TokenStream, name: &str) -> TokenStream {
    let tts: Vec<TokenTree> = s.into_iter().collect();
    tts.iter()
        .enumerate()
        .filter(|(k, t)| {
            !(matches!(t, TokenTree::Ident(id) if id == "mut")
                && matches!(tts.get(k + 1), Some(TokenTree::Ident(n)) if n == name))
        })
        .map(|(_, t)| t.clone())
        .collect()
}

/// Whether `s` is a block-like expression statement (a block, loop, `if` or `match`).
fn block_like(s: &TokenStream) -> bool {
    matches!(
        syn::parse2::<syn::Stmt>(s.clone()),
        Ok(syn::Stmt::Expr(
            syn::Expr::Block(_)
                | syn::Expr::ForLoop(_)
                | syn::Expr::If(_)
                | syn::Expr::While(_)
                | syn::Expr::Loop(_)
                | syn::Expr::Match(_),
            _
        ))
    )
}

/// The index of the first token after a statement's attributes (`#` and its `[..]`).
fn first_code_token(head: &[String]) -> Option<usize> {
    let mut k = 0;
    while head.get(k).is_some_and(|t| t == "#") {
        k += 2;
    }
    (k < head.len()).then_some(k)
}

/// Whether `s`, the last statement of a block, is its tail expression (its value).
fn is_tail(s: &TokenStream) -> bool {
    match syn::parse2::<syn::Block>(quote!({ #s })) {
        Ok(b) => matches!(b.stmts.last(), Some(syn::Stmt::Expr(_, None))),
        Err(_) => true,
    }
}

/// The code of the `@step` comment the statement `s` starts with (its own doc attribute),
/// if any.
fn own_code(s: &TokenStream) -> Option<String> {
    let mut tts = s.clone().into_iter();
    match (tts.next(), tts.next()) {
        (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g)))
            if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket =>
        {
            first_code(&g.stream())
        }
        _ => None,
    }
}

/// The code of the first `@step` comment on `s`: `bad-magic` of "@step bad-magic: ..", or the
/// table of "@step For every record of `t`..".
fn first_code(s: &TokenStream) -> Option<String> {
    let text = s.to_string();
    let at = text.find("\"@step ")?;
    let rest = &text[at + "\"@step ".len()..];
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '_')
        .collect();
    if !word.is_empty() && rest[word.len()..].starts_with([':', ',']) {
        return Some(word);
    }
    if rest.starts_with("For every record of") {
        let t = rest.split('`').nth(1)?;
        return Some(format!("each_{t}"));
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_deferred_body_changes_the_report_type_only() {
        let body = quote! {
            Self::owned_apart_x::<E>(buf, E)?;
            let v = u64::from(E) + f::<u8, E>(x);
        };
        let got = deferred_body(body).to_string();
        assert!(
            got.contains("owned_apart_x :: < __rt :: Deferred >"),
            "{got}"
        );
        assert!(
            got.contains("(buf , E)") && got.contains("u64 :: from (E)"),
            "{got}"
        );
        assert!(got.contains("f :: < u8 , __rt :: Deferred >"), "{got}");
    }

    use super::*;

    #[test]
    fn a_let_binds_its_names_with_their_types_and_mutability() {
        let d = defs_of(&quote!(let mut p: Option<u64> = None;));
        assert_eq!(d.len(), 1);
        assert!(d[0].mutable);
        assert_eq!(d[0].ty.as_ref().unwrap().to_string(), "Option < u64 >");
        let d = defs_of(&quote!(let (a, b): (T<'a>, u64) = f();));
        assert_eq!(
            d.iter()
                .map(|b| (b.name.as_str(), b.ty.as_ref().unwrap().to_string()))
                .collect::<Vec<_>>(),
            [("a", "T < 'a >".to_string()), ("b", "u64".to_string())]
        );
        let d = defs_of(&quote!(let Some(x) = y else { return; };));
        assert_eq!(d.len(), 1);
        assert!(d[0].ty.is_none());
    }

    #[test]
    fn assignments_and_mutable_borrows_change_a_binding_comparisons_do_not() {
        let p = quote!(p);
        let _ = p;
        assert!(mutates(
            &quote!({
                p = Some(k);
            }),
            "p"
        ));
        assert!(mutates(
            &quote!(if c {
                p[3] += 1;
            }),
            "p"
        ));
        assert!(mutates(&quote!(if let Some(n) = p.get_mut(i) {}), "p"));
        assert!(!mutates(&quote!(if p == q {}), "p"));
        assert!(!mutates(&quote!(let p = 3;), "p"));
        assert!(!mutates(
            &quote!(match p {
                _ => 1,
            }),
            "p"
        ));
        assert!(!mutates(&quote!(let x = y.p;), "p"));
    }

    #[test]
    fn uses_are_variables_not_fields_paths_or_attributes() {
        let u = uses_of(&quote!(
            #[doc = "x"]
            {
                let v = a.b + c::d + f(e) + S { g: h, k };
                0..n
            }
        ));
        for x in ["a", "e", "h", "k", "n"] {
            assert!(u.contains(x), "{x}");
        }
        for x in ["b", "c", "d", "g", "doc"] {
            assert!(!u.contains(x), "{x}");
        }
    }

    #[test]
    fn names_bound_inside_a_statement_are_not_uses_of_the_outer_ones() {
        let u = uses_of(&quote!({
            let raw = f(x);
            let y: u64 = raw + 1;
            for (i, r) in t {
                g(r, i, raw)
            }
        }));
        assert!(u.contains("x") && u.contains("t"));
        assert!(!u.contains("raw") && !u.contains("r") && !u.contains("i") && !u.contains("y"));
        // Read before its own `let` ends: the outer one.
        let u = uses_of(&quote!({
            let raw = raw + 1;
            if let Some(q) = raw.get() {
                q
            }
        }));
        assert!(u.contains("raw"));
        assert!(!u.contains("q"));
    }

    #[test]
    fn a_body_is_in_the_scope_of_its_head_patterns_not_of_a_let_statement() {
        let head = |t: TokenStream| head_bindings(&t.into_iter().collect::<Vec<_>>());
        assert_eq!(head(quote!(for (i, r) in t)), ["i", "r"]);
        assert_eq!(head(quote!(if let Some(q) = x)), ["q"]);
        assert_eq!(head(quote!(while let Some(q) = it.next())), ["q"]);
        assert_eq!(head(quote!(if a && let Some(q) = x)), ["q"]);
        // A `let` statement's block initialiser sees neither its names nor its type: with
        // `u64` taken for a binding of no known type, no statement of a walk's block (each
        // reads `u64`) could move into a helper.
        assert!(head(quote!(let (a, b): (u64, u64) =)).is_empty());
        assert!(head(quote!(let x =)).is_empty());
    }

    #[test]
    fn only_jumps_out_of_the_statement_count() {
        assert!(escaping_jump(&quote!({
            if x {
                continue;
            }
        })));
        assert!(!escaping_jump(&quote!({
            for i in x {
                if i {
                    continue;
                }
            }
        })));
        assert!(escaping_jump(&quote!({
            for i in x {
                break 'outer;
            }
        })));
    }
}
