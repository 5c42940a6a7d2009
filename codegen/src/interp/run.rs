//! Running compiled steps: the interpreter's entry points and the generic executor.

use std::collections::HashMap;

use npuschema_core::{ErrorSite, Report};

use crate::check::Scope;

use super::compile::*;
use super::ir::*;
use super::prog::*;
use super::view_model::View;
use super::{fast, stream, view};

impl<'c> Interp<'c> {
    /// Prepare a checked schema for interpretation: resolve every reference once and take
    /// the error sites' numbers from the generated module's list. The site table lives for the rest of the process (it is leaked
    /// once per call, so that errors are the `'static` [`npuschema_core::Error`] the
    /// generated code returns): build one `Interp` per schema, not one per file.
    ///
    /// Only for a schema with a `file` ([`crate::Checked::has_file`]): a schema with
    /// registers only has no bytes to read, and its interpreter would have no header to
    /// check (the CLI refuses such a schema before making one).
    #[must_use]
    pub fn new(checked: &'c crate::Checked) -> Self {
        let c = &checked.0;
        let mut sites = Sites::numbered_as(checked.site_list());
        let mut top = compile_file(c, &mut sites);
        let variants = c.schema.file.ext.variants.as_ref().map(|vs| {
            let dummy = Comp {
                c,
                sites: &mut Sites::default(),
                want_slots: 0,
                wants: HashMap::new(),
                orders: Vec::new(),
            };
            let conds: Vec<CE> = vs
                .list
                .iter()
                .map(|v| dummy.expr(&v.when.expr, Scope::Top))
                .collect();
            let unknown_value = dummy.expr(&vs.field.expr, Scope::Top);
            let unknown_blame = dummy.blame(&vs.field.expr, Scope::Top);
            let list = vs
                .list
                .iter()
                .zip(&c.variants)
                .zip(conds)
                .map(|((v, vc), cond)| (v.key.text.clone(), cond, compile_file(vc, &mut sites)))
                .collect();
            let unknown_site = sites.add(&crate::lower::sites::unknown_variant(c, vs).key());
            Variants {
                list,
                unknown_site,
                unknown_value,
                unknown_blame,
            }
        });
        if let Some(vs) = &variants {
            let conds: Vec<&CE> = vs.list.iter().map(|(_, c, _)| c).collect();
            (top.fast.variants, top.fast.choice) = fast::lower_variants(&top, &conds);
        }
        let table: Vec<ErrorSite> = sites
            .all()
            .enumerate()
            .map(|(i, k)| to_site(i, k))
            .collect();
        Self {
            top,
            variants,
            sites: Box::leak(table.into_boxed_slice()),
        }
    }

    /// The error sites, numbered as the generated module's `ERROR_SITES`.
    #[must_use]
    pub fn sites(&self) -> &'static [ErrorSite] {
        self.sites
    }

    /// The schema's name.
    #[must_use]
    pub fn schema_name(&self) -> &str {
        &self.top.c.schema.name.text
    }

    /// Validate `buf` and, when every check passes, build its [`View`].
    ///
    /// # Errors
    /// The first failed check, as the generated `validate` reports it.
    pub fn validate(&self, buf: &[u8]) -> Result<View, npuschema_core::Error> {
        self.validate_as(buf)
    }

    /// As [`Self::validate`], reporting a failure as `E` (`Brief` gives the site number).
    ///
    /// # Errors
    /// The first failed check, as `E`.
    pub fn validate_as<E: Report>(&self, buf: &[u8]) -> Result<View, E> {
        let (prog, key, st) = self.run::<E>(buf)?;
        Ok(view::build(prog, key, &st, buf))
    }

    /// Validate only: no view is built.
    ///
    /// # Errors
    /// The first failed check, as `E`.
    pub fn check<E: Report>(&self, buf: &[u8]) -> Result<(), E> {
        // As `run`, with each state used in place (`fast.rs`).
        self.check_in_place(buf)
    }

    pub(super) fn run<'s, 'b, E: Report>(
        &'s self,
        buf: &'b [u8],
    ) -> Result<(&'s FileProg<'c>, Option<&'s str>, State<'b>), E> {
        let Some(vs) = &self.variants else {
            let st = self.run_file::<E>(&self.top, buf)?;
            return Ok((&self.top, None, st));
        };
        let st = self.run_file::<E>(&self.top, buf)?;
        if let Some((key, _, prog)) = self.choose(&st).and_then(|i| vs.list.get(i)) {
            let st = self.run_file::<E>(prog, buf)?;
            return Ok((prog, Some(key.as_str()), st));
        }
        let v = st.val(&self.top, &vs.unknown_value).unwrap_or(u64::MAX);
        Err(self.err(
            &st,
            &Fail {
                site: vs.unknown_site,
                blame: vs.unknown_blame.clone(),
            },
            [v, 0, 0],
        ))
    }

    /// One record's order check, the state positioned on the record.
    pub(super) fn order<E: Report>(
        &self,
        p: &FileProg<'c>,
        s: &CStep,
        st: &mut State<'_>,
    ) -> Result<(), E> {
        let CStep::Order {
            f,
            slot,
            when,
            key,
            length,
            strict,
            string,
            ..
        } = s
        else {
            return Ok(());
        };
        let prev = st.prev[*slot];
        let pv = prev.unwrap_or(0);
        match length {
            // `no_overlap`: each present range starts at or after the previous one's end.
            Some(length) => {
                if when.as_ref().is_some_and(|w| !st.cond(p, w)) {
                    return Ok(());
                }
                let Some(start) = st.val(p, key) else {
                    return Err(self.err(st, f, [0, pv, 1]));
                };
                let Some(l) = st.val(p, length) else {
                    return Err(self.err(st, f, [start, pv, 0]));
                };
                if start < pv {
                    return Err(self.err(st, f, [start, pv, 0]));
                }
                let Some(end) = start.checked_add(l) else {
                    return Err(self.err(st, f, [start, pv, 0]));
                };
                st.prev[*slot] = Some(end);
            }
            // `sorted` / `unique`: the key never decreases / strictly increases.
            None => {
                let Some(k) = st.val(p, key) else {
                    return Err(self.err(st, f, [0, pv, 1]));
                };
                let out_of_order = match string {
                    // A string key: `k` and `pv` are the two strings' offsets.
                    Some((range, prefix, big)) => {
                        let bytes = super::strings::bytes_of(st, *range, true);
                        let at =
                            |o| npuschema_core::string_at(bytes, o, *prefix, *big).unwrap_or(&[]);
                        let (key, before) = (at(k), at(pv));
                        key < before || (*strict && key == before)
                    }
                    None => k < pv || (*strict && k == pv),
                };
                if prev.is_some() && out_of_order {
                    return Err(self.err(st, f, [k, pv, 0]));
                }
                st.prev[*slot] = Some(k);
            }
        }
        Ok(())
    }

    pub(super) fn err<E: Report>(&self, st: &State<'_>, f: &Fail, abc: [u64; 3]) -> E {
        self.err_at(st, f, abc, None, None)
    }

    pub(super) fn err_at<E: Report>(
        &self,
        st: &State<'_>,
        f: &Fail,
        [a, b, c]: [u64; 3],
        base: Option<u64>,
        index: Option<u64>,
    ) -> E {
        let site = &self.sites[f.site];
        let base = base.unwrap_or(match f.blame.base {
            BaseK::Zero => 0,
            BaseK::RecAt => st.rec_at,
            BaseK::Located(i) => st.located.get(i).copied().flatten().map_or(0, |l| l.0),
            BaseK::TableAt(t) => st.tables.get(t).copied().flatten().map_or(0, |t| t.0),
        });
        let base = if u32::try_from(f.blame.off).is_ok() {
            base
        } else {
            base.saturating_add(f.blame.off)
        };
        let index = index.unwrap_or(match f.blame.index {
            IdxK::None => 0,
            IdxK::Current => st.rec_index,
            IdxK::Const(k) => k,
        });
        E::at(
            site.id,
            site,
            base,
            a,
            b,
            c,
            usize::try_from(index).unwrap_or(usize::MAX),
        )
    }

    pub(super) fn run_file<'b, E: Report>(
        &self,
        p: &FileProg<'c>,
        buf: &'b [u8],
    ) -> Result<State<'b>, E> {
        let mut st = State::fresh(p, buf);
        self.run_in(p, &mut st)?;
        Ok(st)
    }

    /// Run file layout `p` on a fresh state: the header's size, then the steps.
    pub(super) fn run_in<E: Report>(&self, p: &FileProg<'c>, st: &mut State<'_>) -> Result<(), E> {
        if st.buf.len() < usize::try_from(p.header_size).unwrap_or(usize::MAX) {
            let f = Fail {
                site: p.header_site,
                blame: CBlame::plain("header", 0),
            };
            return Err(self.err(st, &f, [p.header_size, st.len, 0]));
        }
        // The file's byte order, from the header's fields of a fixed order.
        st.big = p.big_when.as_ref().is_some_and(|b| st.cond(p, b));
        self.exec_file(p, st)
    }

    #[allow(clippy::too_many_lines)]
    pub(super) fn exec<E: Report>(
        &self,
        p: &FileProg<'c>,
        steps: &[CStep],
        st: &mut State<'_>,
    ) -> Result<(), E> {
        for s in steps {
            match s {
                CStep::MinLen { f, min } => {
                    let needed = st.val(p, min);
                    if !matches!(needed, Some(n) if st.len >= n) {
                        return Err(self.err(st, f, [needed.unwrap_or(u64::MAX), st.len, 0]));
                    }
                }
                CStep::Expect { f, found, expected } => {
                    let found = st.val(p, found).unwrap_or(u64::MAX);
                    let expected = st.val(p, expected);
                    if expected != Some(found) {
                        return Err(self.err(st, f, [found, expected.unwrap_or(u64::MAX), 0]));
                    }
                }
                CStep::Assert { f, op, l, r } => {
                    let (lv, rv) = (st.val(p, l), st.val(p, r));
                    let ok = matches!((lv, rv), (Some(a), Some(b)) if compare(*op, a, b));
                    if !ok {
                        let mask = u64::from(lv.is_none()) | (u64::from(rv.is_none()) << 1);
                        return Err(self.err(st, f, [lv.unwrap_or(0), rv.unwrap_or(0), mask]));
                    }
                }
                CStep::TableFits {
                    f,
                    table,
                    rec_size,
                    at,
                    count,
                    stride,
                    within,
                } => {
                    let (a, n, s, w) = (
                        st.val(p, at),
                        st.val(p, count),
                        st.val(p, stride),
                        st.val(p, within),
                    );
                    let fits = match (a, n, s, w) {
                        (Some(a), Some(n), Some(s), Some(w)) => {
                            table_within(st.buf, a, n, s, w, *rec_size)
                        }
                        _ => false,
                    };
                    match (fits, a, n, s) {
                        (true, Some(a), Some(n), Some(s)) => st.tables[*table] = Some((a, n, s)),
                        _ => {
                            let end = (|| a?.checked_add(n?.checked_mul(s?)?))();
                            let mask = u64::from(end.is_none()) | (u64::from(w.is_none()) << 1);
                            return Err(self.err(st, f, [end.unwrap_or(0), w.unwrap_or(0), mask]));
                        }
                    }
                }
                CStep::RangeFits {
                    f,
                    range,
                    per_record,
                    when,
                    start,
                    length,
                    within,
                } => {
                    // A range with a condition is checked (and, at file level, there) only
                    // when it holds.
                    if let Some(w) = when
                        && !st.cond(p, w)
                    {
                        if !*per_record {
                            st.ranges[*range] = None;
                        }
                        continue;
                    }
                    let (s, l, w) = (st.val(p, start), st.val(p, length), st.val(p, within));
                    let ok = match (s, l, w) {
                        (Some(s), Some(l), Some(w)) => {
                            npuschema_core::range_within(st.buf, s, l, w).is_some()
                        }
                        _ => false,
                    };
                    if !ok {
                        return Err(self.err(
                            st,
                            f,
                            [s.unwrap_or(u64::MAX), l.unwrap_or(u64::MAX), w.unwrap_or(0)],
                        ));
                    }
                    if !*per_record {
                        st.ranges[*range] = Some((s.unwrap_or(0), l.unwrap_or(0)));
                    }
                }
                CStep::Checksum {
                    f,
                    alg,
                    from,
                    to,
                    stored,
                    zero,
                    equals,
                } => {
                    let start = st.val(p, from);
                    let data = match (start, st.val(p, to)) {
                        (Some(f), Some(t)) => t
                            .checked_sub(f)
                            .and_then(|n| npuschema_core::range_at(st.buf, f, n)),
                        _ => None,
                    };
                    let stored = st.val(p, stored).unwrap_or(u64::MAX);
                    let computed = data
                        .map(|d| u64::from(st.zeroed_sum(p, *alg, d, start.unwrap_or(0), zero)));
                    if computed != Some(stored) {
                        let sum = computed.unwrap_or(0);
                        let found = if *equals {
                            [sum, stored, 0]
                        } else {
                            [stored, sum, 0]
                        };
                        return Err(self.err(st, f, found));
                    }
                }
                CStep::FlagsKnown { f, field, known } => {
                    let v = st.raw(p, field).unwrap_or(0);
                    let unknown = v & !known;
                    if unknown != 0 {
                        return Err(self.err(st, f, [v, unknown, 0]));
                    }
                }
                CStep::EnumKnown { f, field, values } => {
                    let v = st.raw(p, field).unwrap_or(0);
                    if !values.contains(&v) {
                        return Err(self.err(st, f, [v, 0, 0]));
                    }
                }
                CStep::Cond { f, cond } => {
                    if !st.cond(p, cond) {
                        return Err(self.err(st, f, [0, 0, 0]));
                    }
                }
                CStep::Str(k) => self.str_exec(p, k, st)?,
                CStep::Fill(k) => self.fill_exec(p, k, st)?,
                CStep::Let { i, value } => {
                    let v = st.val(p, value);
                    if let Some(x) = st.lets.get_mut(*i) {
                        *x = v;
                    }
                }
                CStep::Repeat {
                    f,
                    var,
                    below,
                    slot,
                    none,
                    step,
                } => {
                    // As the generated loop: `k` from 0 below `N`; no `N`, or `len` runs of
                    // this step over the file, and `k` has no value: the assert fails.
                    let n = st.val(p, below);
                    let mut k: u64 = 0;
                    while n.is_none_or(|b| k < b) {
                        let runs = st.prev.get(*slot).copied().flatten().unwrap_or(0);
                        let v = n.filter(|_| runs < st.len).map(|_| k);
                        if let Some(x) = st.prev.get_mut(*slot) {
                            *x = Some(runs.saturating_add(1));
                        }
                        if let Some(x) = st.lets.get_mut(*var) {
                            *x = v;
                        }
                        self.exec(p, std::slice::from_ref(&**step), st)?;
                        if v.is_none() {
                            return Err(self.err(st, f, [0, 0, *none]));
                        }
                        k = k.saturating_add(1);
                    }
                }
                CStep::When { cond, step } => {
                    if st.cond(p, cond) {
                        self.exec(p, std::slice::from_ref(&**step), st)?;
                    }
                }
                CStep::Order { walk: None, .. } => self.order(p, s, st)?,
                CStep::Order {
                    slot,
                    walk: Some(table),
                    ..
                } => {
                    st.prev[*slot] = None;
                    let Some((at, n, stride)) = st.tables[*table] else {
                        continue;
                    };
                    let saved = (st.rec_at, st.rec_index);
                    for i in 0..n {
                        st.rec_at = at.saturating_add(i.saturating_mul(stride));
                        st.rec_index = i;
                        self.order(p, s, st)?;
                    }
                    (st.rec_at, st.rec_index) = saved;
                }
                CStep::ForEachTable { table, steps, .. } => {
                    // The order checks' "previous" start afresh before the loop.
                    for x in steps {
                        if let CStep::Order { slot, .. } = x {
                            st.prev[*slot] = None;
                        }
                    }
                    let Some((at, n, stride)) = st.tables[*table] else {
                        continue;
                    };
                    let saved = (st.rec_at, st.rec_index);
                    for i in 0..n {
                        st.rec_at = at.saturating_add(i.saturating_mul(stride));
                        st.rec_index = i;
                        self.exec(p, steps, st)?;
                    }
                    (st.rec_at, st.rec_index) = saved;
                }
                CStep::StreamFits(f) => stream::exec_fits(self, p, f, st)?,
                CStep::StreamChecksum(f) => stream::exec_sums(self, p, f, st)?,
                CStep::StreamEach(e) => stream::exec_each(self, p, e, st)?,
                CStep::ForEachCollection { coll, steps } => {
                    let saved = (st.rec_at, st.rec_index);
                    let mut err = None;
                    st.clone_for_each_record(p, *coll, |st2, _, _| {
                        if let Err(e) = self.exec::<E>(p, steps, st2) {
                            err = Some(e);
                            return false;
                        }
                        true
                    });
                    (st.rec_at, st.rec_index) = saved;
                    if let Some(e) = err {
                        return Err(e);
                    }
                }
                CStep::RecordFits {
                    f,
                    rec,
                    sidx,
                    at,
                    within,
                    gate,
                    size,
                    blame_at_value,
                    search,
                    when,
                } => {
                    if let Some(c) = when
                        && !st.cond(p, c)
                    {
                        st.located[*rec] = None;
                        continue;
                    }
                    let (a, w) = (st.val(p, at), st.val(p, within));
                    if let Some(s) = search {
                        let (cond, back) = &**s;
                        match (a, w) {
                            (Some(a), Some(w))
                                if let Some(x) = search_back(st, p, cond, a, *back, w, *size) =>
                            {
                                st.located[*rec] = Some((x, *size, 0));
                            }
                            _ => {
                                // The places searched, `at - back` to `at` (both missing when
                                // `at` does not compute).
                                let base = blame_at_value.then(|| a.unwrap_or(0));
                                let lo = a.map_or(0, |a| a.saturating_sub(*back));
                                let mask = if a.is_none() { 3 } else { 0 };
                                return Err(self.err_at(
                                    st,
                                    f,
                                    [lo, a.unwrap_or(0), mask],
                                    base,
                                    None,
                                ));
                            }
                        }
                        continue;
                    }
                    let table = p.gates.get(*sidx).and_then(Option::as_ref);
                    let size_at = |g: u64| {
                        table
                            .and_then(|t| t.sizes.get(t.pick(g)).copied())
                            .unwrap_or(0)
                    };
                    let (parts, n_for_err) = if let Some(g) = gate {
                        let g = st.val(p, g);
                        let n_err = size_at(g.unwrap_or(0));
                        let parts = match (a, g, w) {
                            (Some(a), Some(g), Some(w)) => {
                                let n = size_at(g);
                                npuschema_core::range_within(st.buf, a, n, w).map(|_| (a, n, g))
                            }
                            _ => None,
                        };
                        (parts, n_err)
                    } else {
                        let parts = match (a, w) {
                            (Some(a), Some(w))
                                if w.checked_sub(a).is_some_and(|room| room >= *size) =>
                            {
                                npuschema_core::range_at(st.buf, a, *size).map(|_| (a, *size, 0))
                            }
                            _ => None,
                        };
                        (parts, *size)
                    };
                    match parts {
                        Some(x) => st.located[*rec] = Some(x),
                        None => {
                            let base = blame_at_value.then(|| a.unwrap_or(0));
                            return Err(self.err_at(
                                st,
                                f,
                                [a.unwrap_or(u64::MAX), n_for_err, w.unwrap_or(0)],
                                base,
                                None,
                            ));
                        }
                    }
                }
                CStep::EntrySize {
                    f1,
                    f2,
                    dir,
                    es,
                    length,
                    arms,
                } => {
                    let d = &p.dirs[*dir];
                    let esv = st.read_rec(*es);
                    let size = st.val(p, length).unwrap_or(u64::MAX);
                    if esv != 0 && size.checked_rem(esv) != Some(0) {
                        return Err(self.err(st, f1, [size, esv, 0]));
                    }
                    let ty = st.read_rec((d.type_off, d.type_ty, d.type_big));
                    if let Some((_, want)) = arms.iter().find(|(v, _)| *v == ty)
                        && esv != *want
                    {
                        return Err(self.err(st, f2, [esv, *want, 0]));
                    }
                    if let Some(n) = d.slot(ty).and_then(|i| st.dcount[*dir].get_mut(i)) {
                        let first_now = *n == 0;
                        *n = n.saturating_add(1);
                        if first_now
                            && let Some(fst) = d.slot(ty).and_then(|i| st.dfirst[*dir].get_mut(i))
                        {
                            *fst = u32::try_from(st.rec_index).unwrap_or(u32::MAX);
                        }
                    }
                }
                CStep::Items {
                    f,
                    off,
                    ity,
                    big,
                    n,
                    first,
                    op,
                    rhs,
                } => {
                    let first = match first {
                        Some(e) => st.val(p, e).unwrap_or(u64::MAX),
                        None => *n,
                    };
                    let w = ity.bytes();
                    for k in 0..*n {
                        if k >= first {
                            break;
                        }
                        let item = widen(
                            read_int(
                                st.buf,
                                st.rec_at.saturating_add(*off).saturating_add(k * w),
                                *ity,
                                *big,
                            ),
                            *ity,
                        );
                        let r = st.val(p, rhs);
                        if !matches!(r, Some(b) if compare(*op, item, b)) {
                            let mask = u64::from(r.is_none()) << 1;
                            let base = st.rec_at.saturating_add(k.saturating_mul(w));
                            return Err(self.err_at(
                                st,
                                f,
                                [item, r.unwrap_or(0), mask],
                                Some(base),
                                None,
                            ));
                        }
                    }
                }
                CStep::RecordChecksums {
                    miss,
                    dup,
                    mism,
                    dir,
                    coll,
                    target,
                    stored,
                    want,
                } => {
                    let counts = st.dcount[*dir].clone();
                    let mut err: Option<E> = None;
                    let saved = (st.rec_at, st.rec_index);
                    st.clone_for_each_record(p, *coll, |st2, _, _| {
                        let t = st2.read_rec(*target);
                        let found = p.dirs[*dir]
                            .slot(t)
                            .and_then(|i| counts.get(i))
                            .map_or(0, |n| u64::from(*n));
                        if found != 1 {
                            err = Some(self.err(st2, miss, [found, 1, 0]));
                            return false;
                        }
                        true
                    });
                    if let Some(e) = err {
                        return Err(e);
                    }
                    let slots = p.dirs[*dir].type_slots.len();
                    let mut w: Vec<Option<(u64, u64, u64)>> = vec![None; slots];
                    st.clone_for_each_record(p, *coll, |st2, _, _| {
                        let t = st2.read_rec(*target);
                        if let Some(slot) = p.dirs[*dir].slot(t).and_then(|i| w.get_mut(i)) {
                            if let Some((_, first, _)) = *slot {
                                err = Some(self.err(st2, dup, [t, first, 0]));
                                return false;
                            }
                            *slot = Some((
                                st2.read_rec(*stored),
                                st2.rec_index,
                                st2.rec_at.saturating_add(stored.0),
                            ));
                        }
                        true
                    });
                    (st.rec_at, st.rec_index) = saved;
                    if let Some(e) = err {
                        return Err(e);
                    }
                    if let Some(mf) = mism {
                        let d = &p.dirs[*dir];
                        for (si, stype, _, _) in st.sections(p, d) {
                            if let Some(Some((v, k, at))) =
                                d.slot(stype).and_then(|i| w.get(i)).copied()
                            {
                                let computed = st
                                    .payload(p, d, si)
                                    .map_or(0, |pl| npuschema_core::crc32(0, pl));
                                if u64::from(computed) != v {
                                    return Err(self.err_at(
                                        st,
                                        mf,
                                        [v, u64::from(computed), 0],
                                        Some(at),
                                        Some(k),
                                    ));
                                }
                            }
                        }
                    }
                    st.want[*want] = w;
                }
                CStep::PayloadChecksum {
                    fused,
                    gone,
                    mism,
                    dir,
                    zero,
                    stored,
                } => {
                    let d = &p.dirs[*dir];
                    let crc = self.payload_crc(p, st, d, fused.as_ref(), gone, zero)?;
                    let sv = st.val(p, stored);
                    if sv != Some(u64::from(crc)) {
                        return Err(self.err(
                            st,
                            mism,
                            [sv.unwrap_or(u64::MAX), u64::from(crc), 0],
                        ));
                    }
                }
                CStep::OwnedApart(o) => self.owned_apart(p, o, st)?,
                CStep::SlotsPaired {
                    f,
                    dir,
                    region,
                    entries,
                } => {
                    let d = &p.dirs[*dir];
                    let (mut nr, mut ne) = (0u64, 0u64);
                    let mut first: Option<(u64, u64)> = None;
                    for (si, stype, sat, _) in st.sections(p, d) {
                        if stype == *region || stype == *entries {
                            if stype == *region {
                                nr = nr.saturating_add(1);
                            } else {
                                ne = ne.saturating_add(1);
                            }
                            if first.is_none() {
                                first = Some((si, sat));
                            }
                        }
                    }
                    if !((nr == 0 && ne == 0) || (nr == 1 && ne == 1)) {
                        let (fi, fat) = first.unwrap_or((0, 0));
                        return Err(self.err_at(st, f, [nr, ne, 0], Some(fat), Some(fi)));
                    }
                }
                CStep::SlotsValid {
                    fs,
                    dir,
                    region,
                    coll,
                    offset,
                    size,
                    align,
                } => {
                    let d = &p.dirs[*dir];
                    let rlen = st
                        .region(p, d, *region)
                        .map_or(0, |r| u64::try_from(r.0.len()).unwrap_or(u64::MAX));
                    let mut cursor = 0u64;
                    let mut err: Option<E> = None;
                    let saved = (st.rec_at, st.rec_index);
                    st.clone_for_each_record(p, *coll, |st2, _, _| {
                        let off = st2.read_rec(*offset);
                        let sz = st2.read_rec(*size);
                        let e = if sz == 0 {
                            Some(self.err(st2, &fs[0], [sz, 0, 0]))
                        } else if off.checked_rem(*align) != Some(0) {
                            Some(self.err(st2, &fs[1], [off, *align, 0]))
                        } else if off < cursor {
                            Some(self.err(st2, &fs[2], [off, cursor, 0]))
                        } else {
                            match off.checked_add(sz).filter(|e| *e <= rlen) {
                                Some(end) => {
                                    cursor = end;
                                    None
                                }
                                None => Some(self.err(st2, &fs[3], [off, sz, rlen])),
                            }
                        };
                        match e {
                            Some(e) => {
                                err = Some(e);
                                false
                            }
                            None => true,
                        }
                    });
                    (st.rec_at, st.rec_index) = saved;
                    if let Some(e) = err {
                        return Err(e);
                    }
                }
                CStep::SlotsPadding {
                    f,
                    dir,
                    region,
                    coll,
                    offset,
                    size,
                } => {
                    let d = &p.dirs[*dir];
                    let Some((r, rsi, rat)) = st.region(p, d, *region) else {
                        continue;
                    };
                    let first_nonzero = |from: u64, to: u64| -> Option<(u64, u8)> {
                        let (fr, t) = (usize::try_from(from).ok()?, usize::try_from(to).ok()?);
                        let gap = r.get(fr..t.min(r.len()))?;
                        let i = gap.iter().position(|&b| b != 0)?;
                        Some((
                            from.saturating_add(u64::try_from(i).unwrap_or(u64::MAX)),
                            gap.get(i).copied().unwrap_or(0),
                        ))
                    };
                    let mut cursor = 0u64;
                    let mut err: Option<E> = None;
                    let saved = (st.rec_at, st.rec_index);
                    st.clone_for_each_record(p, *coll, |st2, _, _| {
                        let off = st2.read_rec(*offset);
                        let sz = st2.read_rec(*size);
                        if off > cursor
                            && let Some((at, byte)) = first_nonzero(cursor, off)
                        {
                            err = Some(self.err_at(
                                st2,
                                f,
                                [u64::from(byte), 0, 0],
                                Some(rat.saturating_add(at)),
                                Some(rsi),
                            ));
                            return false;
                        }
                        cursor = cursor.max(off.saturating_add(sz));
                        true
                    });
                    (st.rec_at, st.rec_index) = saved;
                    if let Some(e) = err {
                        return Err(e);
                    }
                    let rlen = u64::try_from(r.len()).unwrap_or(u64::MAX);
                    if let Some((at, byte)) = first_nonzero(cursor, rlen) {
                        return Err(self.err_at(
                            st,
                            f,
                            [u64::from(byte), 0, 0],
                            Some(rat.saturating_add(at)),
                            Some(rsi),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The file CRC over every payload in directory order, with the record sums of a
    /// preceding `record_checksums` checked in the same pass.
    pub(super) fn payload_crc<E: Report>(
        &self,
        p: &FileProg<'c>,
        st: &State<'_>,
        d: &DirInfo,
        fused: Option<&(Fail, usize)>,
        gone: &Fail,
        zero: &[ZeroArm],
    ) -> Result<u32, E> {
        let mut crc = 0u32;
        let mut pend: Option<(u64, u64)> = None;
        let flush = |crc: &mut u32, pend: &mut Option<(u64, u64)>| {
            if let Some((s, e)) = pend.take() {
                *crc = npuschema_core::crc32(
                    *crc,
                    npuschema_core::range_at(st.buf, s, e.saturating_sub(s)).unwrap_or(&[]),
                );
            }
        };
        let want = fused.and_then(|(_, w)| st.want.get(*w));
        for (si, stype, sat, srec_at) in st.sections(p, d) {
            let Some(pl) = st.payload_at(p, d, srec_at) else {
                return Err(self.err_at(st, gone, [0, 0, 0], Some(sat), Some(si)));
            };
            let ps = st.eval_rec(p, &d.offset, srec_at).unwrap_or(0);
            let pe = ps.saturating_add(u64::try_from(pl.len()).unwrap_or(u64::MAX));
            let zero_arm = zero.iter().find(|z| z.0 == stype);
            let wanted = want
                .and_then(|w| d.slot(stype).and_then(|i| w.get(i)))
                .copied()
                .flatten();
            if zero_arm.is_none() && wanted.is_none() {
                match pend {
                    Some((s, e)) if e == ps => pend = Some((s, pe)),
                    _ => {
                        flush(&mut crc, &mut pend);
                        pend = Some((ps, pe));
                    }
                }
                continue;
            }
            flush(&mut crc, &mut pend);
            if let (Some((v, k, at)), Some((mf, _))) = (wanted, fused) {
                let own = npuschema_core::crc32(0, pl);
                if u64::from(own) != v {
                    return Err(self.err_at(st, mf, [v, u64::from(own), 0], Some(at), Some(k)));
                }
                if zero_arm.is_none() {
                    crc = npuschema_core::crc32_combine(
                        crc,
                        own,
                        u64::try_from(pl.len()).unwrap_or(u64::MAX),
                    );
                    continue;
                }
            }
            if let Some((_, size, clears)) = zero_arm {
                let n = usize::try_from(*size).unwrap_or(0);
                if n == 0 {
                    crc = npuschema_core::crc32(crc, pl);
                    continue;
                }
                let whole = pl.len() / n * n;
                let mut tmp = pl.get(..whole).unwrap_or(&[]).to_vec();
                for rec in tmp.chunks_mut(n) {
                    for (off, w) in clears {
                        let (o, w) = (
                            usize::try_from(*off).unwrap_or(0),
                            usize::try_from(*w).unwrap_or(0),
                        );
                        if let Some(x) = rec.get_mut(o..o.saturating_add(w)) {
                            x.fill(0);
                        }
                    }
                }
                crc = npuschema_core::crc32(crc, &tmp);
                crc = npuschema_core::crc32(crc, pl.get(whole..).unwrap_or(&[]));
                continue;
            }
            crc = npuschema_core::crc32(crc, pl);
        }
        flush(&mut crc, &mut pend);
        Ok(crc)
    }
}

/// A located record's search, as the interpreter makes it: from `from` down to `from - back`
/// (at 0 at the lowest), the first place where `size` bytes lie within `within` and the
/// buffer and `cond` holds over the record there.
fn search_back(
    st: &State<'_>,
    p: &FileProg<'_>,
    cond: &CE,
    from: u64,
    back: u64,
    within: u64,
    size: u64,
) -> Option<u64> {
    let end = within.min(st.buf.len() as u64);
    let hi = from.min(end.checked_sub(size)?);
    let lo = from.saturating_sub(back);
    (lo..=hi).rev().find(|&at| st.cond_rec(p, cond, at))
}
