//! The interpreter's `owned_apart`: the parts the schema checker resolved
//! (`check::ownership::parts`), each instance's extent read from the state the steps before
//! left, compared by `npuschema_core::first_overlap` as the generated code does; the sites
//! (too many, then each pair, later part outer) are the generated module's.

use npuschema_core::{Report, Shared, first_overlap};

use crate::check::Scope;
use crate::check::ownership::{Part, ownership, parts};
use crate::schema::Name;

use super::compile::Comp;
use super::ir::*;
use super::prog::{FileProg, Interp, State};

impl Comp<'_> {
    /// Compile an `owned_apart` step.
    pub(super) fn owned_apart_step(
        &mut self,
        code: &Name,
        too_many: &Name,
        name: &Name,
    ) -> Option<Owned> {
        let comp = self;
        let c = comp.c;
        let file = &c.schema.file;
        let o = ownership(c, &name.text)?;
        let ps = parts(c, o);
        let rec_size = |ti: usize| {
            file.tables
                .get(ti)
                .and_then(|t| c.layouts.get(&t.record.text))
                .map_or(0, |l| l.size)
        };
        let mut out = Vec::new();
        for (_, p) in &ps {
            out.push(match *p {
                Part::Header => OPart::Header,
                Part::Record(i) => OPart::Record(i),
                Part::Table(ti) => OPart::Table(ti, rec_size(ti)),
                Part::Range(r, ti, t) => OPart::Range(Box::new(ORange {
                    table: ti,
                    when: r
                        .when
                        .as_ref()
                        .map(|w| comp.expr(&w.expr, Scope::Record(t))),
                    start: comp.expr(&r.offset.expr, Scope::Record(t)),
                    length: comp.expr(&r.length.expr, Scope::Record(t)),
                })),
            });
        }
        let (many, pairs) = crate::lower::sites::owned_apart(c, code, too_many, &ps);
        let many = comp.fail(many);
        let pairs = pairs
            .into_iter()
            .map(|(pair, site)| (pair, comp.fail(site)))
            .collect();
        Some(Owned {
            max: o.max,
            parts: out,
            many,
            pairs,
        })
    }
}

impl Interp<'_> {
    /// The instance count of each part.
    fn own_counts(o: &Owned, st: &State<'_>) -> Vec<u64> {
        o.parts
            .iter()
            .map(|p| match p {
                OPart::Range(r) => st.tables.get(r.table).copied().flatten().map_or(0, |t| t.1),
                _ => 1,
            })
            .collect()
    }

    /// Part and instance of flat instance `k`.
    fn own_which(counts: &[u64], k: u64) -> (usize, u64) {
        let mut k = k;
        for (j, n) in counts.iter().enumerate() {
            if k < *n {
                return (j, k);
            }
            k = k.saturating_sub(*n);
        }
        (usize::MAX, 0)
    }

    fn own_extent(
        p: &FileProg<'_>,
        o: &Owned,
        st: &mut State<'_>,
        part: usize,
        i: u64,
    ) -> (u64, u64) {
        match o.parts.get(part) {
            Some(OPart::Header) => (0, p.header_size),
            Some(OPart::Record(r)) => st
                .located
                .get(*r)
                .copied()
                .flatten()
                .map_or((0, 0), |(at, size, _)| (at, at.saturating_add(size))),
            Some(OPart::Table(t, size)) => {
                st.tables
                    .get(*t)
                    .copied()
                    .flatten()
                    .map_or((0, 0), |(at, n, stride)| {
                        // The last record's end: the padding between records is the table's.
                        let span = n
                            .checked_sub(1)
                            .map_or(0, |l| l.saturating_mul(stride).saturating_add(*size));
                        (at, at.saturating_add(span))
                    })
            }
            Some(OPart::Range(r)) => {
                let Some((at, _, stride)) = st.tables.get(r.table).copied().flatten() else {
                    return (0, 0);
                };
                st.rec_at = at.saturating_add(i.saturating_mul(stride));
                st.rec_index = i;
                if r.when.as_ref().is_some_and(|w| !st.cond(p, w)) {
                    return (0, 0);
                }
                let s = st.val(p, &r.start).unwrap_or(0);
                let l = st.val(p, &r.length).unwrap_or(0);
                (s, s.saturating_add(l))
            }
            None => (0, 0),
        }
    }

    pub(super) fn owned_apart<E: Report>(
        &self,
        p: &FileProg<'_>,
        o: &Owned,
        st: &mut State<'_>,
    ) -> Result<(), E> {
        let counts = Self::own_counts(o, st);
        let total = counts.iter().fold(0u64, |a, n| a.saturating_add(*n));
        let saved = (st.rec_at, st.rec_index);
        let r = first_overlap(total, o.max, |k| {
            let (j, i) = Self::own_which(&counts, k);
            Self::own_extent(p, o, st, j, i)
        });
        (st.rec_at, st.rec_index) = saved;
        match r {
            Ok(()) => Ok(()),
            Err(Shared::TooMany) => Err(self.err(st, &o.many, [total, o.max, 0])),
            Err(Shared::Overlap { first, second, at }) => {
                let (j1, i1) = Self::own_which(&counts, first);
                let (s1, _) = Self::own_extent(p, o, st, j1, i1);
                let (j2, i2) = Self::own_which(&counts, second);
                // Bind the later instance's record, for a range's blame.
                let _ = Self::own_extent(p, o, st, j2, i2);
                match o.pairs.iter().find(|(k, _)| *k == (j1, j2)) {
                    Some((_, f)) => Err(self.err(st, f, [at, s1, 0])),
                    None => Err(self.err(st, &o.many, [total, o.max, 0])),
                }
            }
        }
    }
}
