//! The interpreter's record streams (`streams.rs`), the emitter's rules restated: the
//! `stream_fits` walk (the same checks, in the same order, with the same error sites),
//! `for_each` over a stream or a stream's collection, `count()`, `first()`
//! (`positions.rs`), and the dynamic view's
//! records (each record's header fields and body range, each typed body's fields).

use super::compile::Comp;
use super::ir::*;
use super::prog::*;
use super::view_model::{Group, RangeView, RecordView};
use crate::check::Scope;
use crate::check::lookup::{collection, stream, stream_table};
use crate::check::streams::{layout_value, type_field};
use crate::schema::top::Step;
use npuschema_core::Report;

/// One record found by the walk: its (absolute) offset, whole size and type.
#[derive(Clone, Copy, Debug)]
struct Rec {
    at: u64,
    total: u64,
    ty: u64,
    /// 0 in the stream's range, 1 in the body of a record there, and so on.
    depth: u64,
}

/// Why the walk stopped early, and at which record (its offset and index).
#[derive(Clone, Copy, Debug)]
enum Stop {
    Header,
    Small(u64),
    Over(Option<u64>),
    Short(usize, u64),
    /// A nesting record at `max_depth`: its level would be one deeper.
    Deep(u64),
    Open,
    Trailing(u64),
    /// A chain's link outside its record: (its place in the record, the record's size).
    Link(Option<u64>, u64),
    /// A chain's link back to a record visited: the link.
    Cycle(u64),
    /// A chain of more records than its `max`.
    Many,
    /// A holding record's part (`within`) outside it: from, to (`None`: did not compute),
    /// the holding record's size.
    Within(Option<u64>, Option<u64>, u64),
    /// More records within other records than the range has room for: the most it has.
    Crowded(u64),
}

fn struct_index(c: &crate::check::Checked, name: &str) -> Option<usize> {
    c.schema.structs.iter().position(|s| s.name.text == name)
}

/// Resolve every stream of the file (no sites).
pub(super) fn infos(comp: &Comp<'_>) -> Vec<SInfo> {
    let c = comp.c;
    let file = &c.schema.file;
    file.streams
        .iter()
        .map(|s| {
            let t = stream_table(s);
            let scope = Scope::RecordOnly(&t);
            SInfo {
                name: s.name.text.clone(),
                range: file
                    .ranges
                    .iter()
                    .position(|r| r.name.text == s.range.text)
                    .unwrap_or(usize::MAX),
                header_st: struct_index(c, &s.header.text).unwrap_or(usize::MAX),
                hs: c.layouts.get(&s.header.text).map_or(0, |l| l.size),
                size: comp.expr(&s.size.expr, scope),
                includes_header: s.includes_header,
                align: s.align.max(1),
                end: s.end.as_ref().map(|e| comp.expr(&e.expr, scope)),
                trailing: s.trailing.is_some(),
                ty: type_field(c, s),
                layouts: s
                    .layouts
                    .iter()
                    .filter_map(|l| {
                        Some((
                            l.collection.text.clone(),
                            layout_value(c, l)?,
                            c.layouts.get(&l.record.text)?.size,
                            struct_index(c, &l.record.text)?,
                        ))
                    })
                    .collect(),
                nests: s
                    .layouts
                    .iter()
                    .filter(|l| l.nested.is_some())
                    .filter_map(|l| {
                        Some((layout_value(c, l)?, c.layouts.get(&l.record.text)?.size))
                    })
                    .collect(),
                max_depth: if s.layouts.iter().any(|l| l.nested.is_some()) {
                    s.max_depth
                        .map_or(1, |m| usize::try_from(m.0).unwrap_or(usize::MAX))
                } else {
                    0
                },
                within: s.within.as_ref().and_then(|w| {
                    let pi = file
                        .streams
                        .iter()
                        .position(|x| x.name.text == w.stream.text)?;
                    let pt = stream_table(file.streams.get(pi)?);
                    let ps = Scope::RecordOnly(&pt);
                    Some((pi, comp.expr(&w.from.expr, ps), comp.expr(&w.to.expr, ps)))
                }),
                chain: s.chain.as_ref().and_then(|ch| {
                    Some(ChainInfo {
                        first: comp.expr(&ch.first.expr, Scope::Top),
                        at: comp.expr(&ch.next_at.expr, scope),
                        ty: crate::check::streams::chain_ty(ch)?,
                        big: ch.big,
                        max: ch.max,
                    })
                }),
            }
        })
        .collect()
}

/// Compile a stream step and look up its sites.
pub(super) fn compile_fits(
    comp: &mut Comp<'_>,
    code: &str,
    target: &str,
    kind: crate::schema::streams::StreamStep,
) -> Option<CStep> {
    let c = comp.c;
    if kind == crate::schema::streams::StreamStep::Checksum {
        let file = &c.schema.file;
        let si = file.streams.iter().position(|s| s.name.text == target)?;
        let s = &file.streams[si];
        let k = s.checksum.as_ref()?;
        let t = stream_table(s);
        let scope = Scope::RecordOnly(&t);
        let [place, sum] = crate::lower::sites::stream_checksum(code, s).map(|x| comp.fail(x));
        return Some(CStep::StreamChecksum(Box::new(Sums {
            stream: si,
            place,
            sum,
            alg: k.algorithm,
            from: comp.expr(&k.from.expr, scope),
            to: comp.expr(&k.to.expr, scope),
            stored: comp.expr(&k.stored.expr, scope),
            big: k.big,
            when: k.when.as_ref().map(|w| comp.expr(&w.expr, scope)),
        })));
    }
    let file = &c.schema.file;
    let si = file.streams.iter().position(|s| s.name.text == target)?;
    let s = &file.streams[si];
    let r = file.ranges.iter().find(|r| r.name.text == s.range.text)?;
    let sites = crate::lower::sites::stream_fits(c, code, s, &r.name.text);
    let header = comp.fail(sites.header);
    let small = sites.small.map(|x| comp.fail(x));
    let over = comp.fail(sites.over);
    let short = sites.short.into_iter().map(|x| comp.fail(x)).collect();
    let deep = sites.deep.map(|x| comp.fail(x));
    let open = sites.open.map(|x| comp.fail(x));
    let trailing = sites.trailing.map(|x| comp.fail(x));
    let chain = sites.chain.map(|x| x.map(|x| comp.fail(x)));
    let within = sites.within.map(|x| x.map(|x| comp.fail(x)));
    Some(CStep::StreamFits(Box::new(Fits {
        stream: si,
        header,
        small,
        over,
        short,
        deep,
        open,
        trailing,
        chain,
        within,
    })))
}

/// Compile a `for_each` over a stream or one of its collections.
pub(super) fn compile_each(comp: &mut Comp<'_>, name: &str, steps: &[Step]) -> Option<CStep> {
    let c = comp.c;
    let file = &c.schema.file;
    let t = c.collections.iter().find(|t| t.name.text == name)?;
    let body = comp.steps(steps, Scope::Record(t));
    if let Some(s) = stream(file, name) {
        let si = file
            .streams
            .iter()
            .position(|x| x.name.text == s.name.text)?;
        return Some(CStep::StreamEach(Box::new(Each {
            stream: si,
            layout: None,
            steps: body,
        })));
    }
    let (s, l) = collection(file, name)?;
    let si = file
        .streams
        .iter()
        .position(|x| x.name.text == s.name.text)?;
    // The layout's index among those that resolve (as `SInfo::layouts` keeps them).
    let li = s
        .layouts
        .iter()
        .filter(|x| layout_value(c, x).is_some() && c.layouts.contains_key(&x.record.text))
        .position(|x| x.collection.text == l.collection.text)?;
    Some(CStep::StreamEach(Box::new(Each {
        stream: si,
        layout: Some(li),
        steps: body,
    })))
}

fn read(buf: &[u8], at: u64, (off, t, big): RecField) -> u64 {
    widen(read_int(buf, at.saturating_add(off), t, big), t)
}

/// What one step of a [`Walker`] found.
enum Walked {
    /// The next record.
    Rec(Rec),
    /// The stream ended where it should.
    Done,
    /// Why the walk stopped early, and at which record (its offset and index).
    Stopped(Stop, u64, u64),
}

/// A walk of stream `s` one record at a time, so that no caller holds every record (a
/// 16 MiB stream of 4-byte records is 4M of them): the same checks, in the same order, as
/// the generated iterator.
struct Walker {
    start: u64,
    end: u64,
    /// The ends of the levels the walk is inside (the current one's is `end`).
    levels: Vec<u64>,
    pos: u64,
    index: u64,
    m: u64,
    done: bool,
    /// What the next call returns after a record that ended the stream (`end:`).
    after: Option<Walked>,
    /// A chain's records visited (their offsets in the range).
    seen: std::collections::HashSet<u64>,
    /// The walk of the stream whose records hold this one's (`within`).
    parent: Option<Box<Walker>>,
    /// The range's length.
    range_len: u64,
}

impl Walker {
    fn new(st: &State<'_>, p: &FileProg<'_>, s: &SInfo) -> Self {
        let placed = st.ranges.get(s.range).copied().flatten();
        let (start, end) = placed.unwrap_or((0, 0));
        // A chain starts where its `first` says (0: no record; one that does not compute
        // is nowhere in the range).
        let first = s
            .chain
            .as_ref()
            .map(|ch| st.val(p, &ch.first).unwrap_or(u64::MAX));
        // Within another stream's records: its walk, and no part yet (`end` 0).
        let parent = s
            .within
            .as_ref()
            .and_then(|w| Some(Box::new(Self::new(st, p, p.streams.get(w.0)?))));
        Self {
            start,
            end: if parent.is_some() { 0 } else { end },
            levels: Vec::new(),
            pos: first.unwrap_or(0),
            index: 0,
            m: s.align.saturating_sub(1),
            done: placed.is_none() || first == Some(0),
            after: None,
            seen: std::collections::HashSet::new(),
            parent,
            range_len: end,
        }
    }

    /// The walk of one holding record's part only (`from..to` of the record at `holder`,
    /// offsets from its start), for a lookup among its records (`State::sub_find`).
    fn part(st: &State<'_>, s: &SInfo, holder: u64, (from, to): (u64, u64)) -> Self {
        let placed = st.ranges.get(s.range).copied().flatten();
        let (start, end) = placed.unwrap_or((0, 0));
        let base = holder.saturating_sub(start);
        Self {
            start,
            end: base.saturating_add(to),
            levels: Vec::new(),
            pos: base.saturating_add(from),
            index: 0,
            m: s.align.saturating_sub(1),
            done: placed.is_none(),
            after: None,
            seen: std::collections::HashSet::new(),
            parent: None,
            range_len: end,
        }
    }

    /// Where the record after one ending at `rec_end` starts: after its padding (`align`
    /// counts from the range's start), cut at the level's `end`.
    fn after(&self, rec_end: u64, end: u64) -> u64 {
        if self.m == 0 {
            rec_end
        } else {
            rec_end
                .checked_add(self.m)
                .map_or(end, |x| (x & !self.m).min(end))
        }
    }

    fn next(&mut self, st: &State<'_>, p: &FileProg<'_>, s: &SInfo) -> Walked {
        if let Some(a) = self.after.take() {
            self.done = true;
            return a;
        }
        if self.done {
            return Walked::Done;
        }
        let step = self.step(st, p, s);
        if !matches!(step, Walked::Rec(_)) {
            self.done = true;
        }
        step
    }

    fn step(&mut self, st: &State<'_>, p: &FileProg<'_>, s: &SInfo) -> Walked {
        // Within another stream's records: a part done, on to the next holding record's.
        if let Some((pi, from, to)) = &s.within {
            while self.pos >= self.end {
                let (Some(ps), Some(parent)) = (p.streams.get(*pi), self.parent.as_mut()) else {
                    return Walked::Done;
                };
                let Walked::Rec(r) = parent.next(st, p, ps) else {
                    return Walked::Done;
                };
                let (f, t) = (st.eval_rec(p, from, r.at), st.eval_rec(p, to, r.at));
                match (f, t) {
                    (Some(f), Some(t)) if f <= t && t <= r.total => {
                        let base = r.at.saturating_sub(self.start);
                        self.pos = base.saturating_add(f);
                        self.end = base.saturating_add(t);
                    }
                    _ => return Walked::Stopped(Stop::Within(f, t, r.total), r.at, self.index),
                }
            }
            // Parts that do not overlap hold at most one record per header's bytes of the
            // range: more, and the work would grow with the square of the file.
            let cap = self.range_len / s.hs.max(1);
            if self.index >= cap {
                let at = self.start.saturating_add(self.pos);
                return Walked::Stopped(Stop::Crowded(cap), at, self.index);
            }
        }
        // A level done: on after its nesting record, which ends where it does.
        while self.pos >= self.end
            && let Some(e) = self.levels.pop()
        {
            self.pos = self.after(self.end, e);
            self.end = e;
        }
        let (end, pos, index) = (self.end, self.pos, self.index);
        let depth = self.levels.len() as u64;
        let at = self.start.saturating_add(pos);
        // (A chain's record is where a link says: past the range, its header does not fit.)
        if pos >= end && s.chain.is_none() {
            return match s.end {
                Some(_) => Walked::Stopped(Stop::Open, at, index),
                None => Walked::Done,
            };
        }
        if end.saturating_sub(pos) < s.hs {
            return Walked::Stopped(Stop::Header, at, index);
        }
        let size = st.eval_rec(p, &s.size, at);
        if s.includes_header
            && let Some(sz) = size
            && sz < s.hs
        {
            return Walked::Stopped(Stop::Small(sz), at, index);
        }
        let total = if s.includes_header {
            size
        } else {
            size.and_then(|b| b.checked_add(s.hs))
        };
        let Some(total) = total.filter(|t| *t <= end.saturating_sub(pos)) else {
            return Walked::Stopped(Stop::Over(total), at, index);
        };
        // (A type field in the file's order is read in the order its header chose.)
        let ty = s.ty.map_or(0, |(off, t, big)| {
            read(st.buf, at, (off, t, big.unwrap_or(st.big)))
        });
        if s.ty.is_some() {
            let body = total - s.hs;
            if let Some(li) = s.layouts.iter().position(|l| l.1 == ty)
                && body < s.layouts[li].2
            {
                return Walked::Stopped(Stop::Short(li, body), at, index);
            }
        }
        let opens = s.nests.iter().find(|n| n.0 == ty).map(|n| n.1);
        if opens.is_some() && self.levels.len() >= s.max_depth {
            return Walked::Stopped(Stop::Deep(depth), at, index);
        }
        if let Some(ch) = &s.chain {
            return self.link(
                st,
                p,
                ch,
                Rec {
                    at,
                    total,
                    ty,
                    depth,
                },
            );
        }
        let rec_end = pos + total;
        let next = self.after(rec_end, end);
        self.index = index.saturating_add(1);
        if let Some(inner) = opens {
            // Its body, after its struct, is a level of records: walked next.
            self.levels.push(end);
            self.end = rec_end;
            self.pos = pos + s.hs + inner;
            return Walked::Rec(Rec {
                at,
                total,
                ty,
                depth,
            });
        }
        if let Some(e) = &s.end
            && st.cond_rec(p, e, at)
        {
            // The record is good; what follows it is reported after it.
            self.after = Some(if next < end && !s.trailing {
                Walked::Stopped(Stop::Trailing(next), at, self.index)
            } else {
                Walked::Done
            });
            return Walked::Rec(Rec {
                at,
                total,
                ty,
                depth,
            });
        }
        self.pos = next;
        Walked::Rec(Rec {
            at,
            total,
            ty,
            depth,
        })
    }
}

impl Walker {
    /// A chain's record `r` is good: its link leads to the next one, or ends the chain, or
    /// is an error reported after it (outside the record, back to a record visited, one
    /// record too many).
    fn link(&mut self, st: &State<'_>, p: &FileProg<'_>, ch: &ChainInfo, r: Rec) -> Walked {
        let index = self.index;
        self.index = index.saturating_add(1);
        self.seen.insert(self.pos);
        let place = st.eval_rec(p, &ch.at, r.at);
        let w = ch.ty.bytes();
        let Some(place) = place.filter(|x| x.checked_add(w).is_some_and(|e| e <= r.total)) else {
            self.after = Some(Walked::Stopped(Stop::Link(place, r.total), r.at, index));
            return Walked::Rec(r);
        };
        let big = ch.big.unwrap_or(st.big);
        let link = read(st.buf, r.at, (place, ch.ty, big));
        if link == 0 {
            self.after = Some(Walked::Done);
        } else if self.seen.contains(&link) {
            self.after = Some(Walked::Stopped(Stop::Cycle(link), r.at, index));
        } else if self.index >= ch.max {
            self.after = Some(Walked::Stopped(Stop::Many, r.at, index));
        } else {
            self.pos = link;
        }
        Walked::Rec(r)
    }
}

/// Run a `stream_fits` step.
pub(super) fn exec_fits<E: Report>(
    it: &Interp<'_>,
    p: &FileProg<'_>,
    f: &Fits,
    st: &mut State<'_>,
) -> Result<(), E> {
    let Some(s) = p.streams.get(f.stream) else {
        return Ok(());
    };
    let mut w = Walker::new(st, p, s);
    let (stop, at, index) = loop {
        match w.next(st, p, s) {
            Walked::Rec(_) => {}
            Walked::Done => return Ok(()),
            Walked::Stopped(stop, at, index) => break (stop, at, index),
        }
    };
    let (start, end) = st.ranges.get(s.range).copied().flatten().unwrap_or((0, 0));
    // The end of the level the walk stopped in: the range's, or a nesting record's body's.
    let limit = start.saturating_add(w.end);
    let saved = (st.rec_at, st.rec_index);
    st.rec_at = at;
    st.rec_index = index;
    let e = match stop {
        Stop::Header => it.err(st, &f.header, [at, s.hs, limit]),
        Stop::Small(sz) => match &f.small {
            Some(fs) => it.err(st, fs, [sz, s.hs, 0]),
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Over(total) => it.err(st, &f.over, [at, total.unwrap_or(u64::MAX), limit]),
        Stop::Short(li, body) => {
            let n = s.layouts.get(li).map_or(0, |l| l.2);
            match f.short.get(li) {
                Some(fs) => it.err(st, fs, [body, n, 0]),
                None => it.err(st, &f.over, [at, u64::MAX, limit]),
            }
        }
        Stop::Deep(depth) => match &f.deep {
            Some(fd) => it.err(st, fd, [depth.saturating_add(1), s.max_depth as u64, 0]),
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Open => match &f.open {
            Some(fo) => it.err(st, fo, [0, 0, 0]),
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Link(place, total) => match &f.chain {
            Some([fl, ..]) => it.err(
                st,
                fl,
                [
                    at.saturating_add(place.unwrap_or(0)),
                    s.chain.as_ref().map_or(0, |c| c.ty.bytes()),
                    at.saturating_add(total),
                ],
            ),
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Cycle(link) => match &f.chain {
            Some([_, fc, _]) => it.err(st, fc, [link, link, 0]),
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Many => match &f.chain {
            Some([.., fm]) => {
                let max = s.chain.as_ref().map_or(0, |c| c.max);
                it.err(st, fm, [max.saturating_add(1), max, 0])
            }
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Crowded(cap) => match &f.within {
            Some([_, fc]) => it.err(st, fc, [index.saturating_add(1), cap, 0]),
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Within(from, to, total) => match &f.within {
            Some([fw, _]) => it.err(
                st,
                fw,
                [
                    at.saturating_add(from.unwrap_or(0)),
                    to.zip(from)
                        .and_then(|(t, f)| t.checked_sub(f))
                        .unwrap_or(u64::MAX),
                    at.saturating_add(total),
                ],
            ),
            None => it.err(st, &f.over, [at, u64::MAX, limit]),
        },
        Stop::Trailing(next) => {
            let base = start.saturating_add(next);
            match &f.trailing {
                Some(ft) => it.err_at(
                    st,
                    ft,
                    [base, end.saturating_sub(next), limit],
                    Some(base),
                    Some(index),
                ),
                None => it.err(st, &f.over, [at, u64::MAX, limit]),
            }
        }
    };
    (st.rec_at, st.rec_index) = saved;
    Err(e)
}

/// Run a `stream_checksum` step.
pub(super) fn exec_sums<E: Report>(
    it: &Interp<'_>,
    p: &FileProg<'_>,
    k: &Sums,
    st: &mut State<'_>,
) -> Result<(), E> {
    let Some(s) = p.streams.get(k.stream) else {
        return Ok(());
    };
    let mut w = Walker::new(st, p, s);
    let mut i = 0u64;
    while let Walked::Rec(r) = w.next(st, p, s) {
        let index = i;
        i = i.saturating_add(1);
        if k.when.as_ref().is_some_and(|w| !st.cond_rec(p, w, r.at)) {
            continue;
        }
        let from = st.eval_rec(p, &k.from, r.at);
        let to = st.eval_rec(p, &k.to, r.at);
        let stored = st.eval_rec(p, &k.stored, r.at);
        let bytes = npuschema_core::range_at(st.buf, r.at, r.total);
        let covered = match (from, to, bytes) {
            (Some(f), Some(t), Some(b)) if f <= t => npuschema_core::range_at(b, f, t - f),
            _ => None,
        };
        let place = stored
            .zip(bytes)
            .and_then(|(so, b)| Some((so, npuschema_core::chunk_at::<4>(b, so)?)));
        let saved = (st.rec_at, st.rec_index);
        st.rec_at = r.at;
        st.rec_index = index;
        let (Some(d), Some((so, raw))) = (covered, place) else {
            let start = r.at.saturating_add(from.unwrap_or(0));
            let len = to
                .zip(from)
                .and_then(|(t, f)| t.checked_sub(f))
                .unwrap_or(u64::MAX);
            let e = it.err(st, &k.place, [start, len, r.at.saturating_add(r.total)]);
            (st.rec_at, st.rec_index) = saved;
            return Err(e);
        };
        let found = u64::from(if k.big {
            u32::from_be_bytes(*raw)
        } else {
            u32::from_le_bytes(*raw)
        });
        let computed = u64::from(k.alg.compute(d));
        if found != computed {
            let e = it.err_at(
                st,
                &k.sum,
                [found, computed, 0],
                Some(r.at.saturating_add(so)),
                None,
            );
            (st.rec_at, st.rec_index) = saved;
            return Err(e);
        }
        (st.rec_at, st.rec_index) = saved;
    }
    Ok(())
}

/// Run a `for_each` over a stream or a collection.
pub(super) fn exec_each<E: Report>(
    it: &Interp<'_>,
    p: &FileProg<'_>,
    e: &Each,
    st: &mut State<'_>,
) -> Result<(), E> {
    let Some(s) = p.streams.get(e.stream) else {
        return Ok(());
    };
    let saved = (st.rec_at, st.rec_index, st.rec_span);
    let mut ci = 0u64;
    let mut w = Walker::new(st, p, s);
    let mut i = 0u64;
    while let Walked::Rec(r) = w.next(st, p, s) {
        let index = i;
        i = i.saturating_add(1);
        st.rec_span = (
            r.at,
            r.at.saturating_add(s.hs),
            r.at.saturating_add(r.total),
            r.depth,
            index,
        );
        match e.layout {
            None => {
                st.rec_at = r.at;
                st.rec_index = index;
            }
            Some(li) => {
                if s.layouts.get(li).is_none_or(|l| l.1 != r.ty) {
                    continue;
                }
                st.rec_at = r.at.saturating_add(s.hs);
                st.rec_index = ci;
                ci += 1;
            }
        }
        if let Err(x) = it.exec::<E>(p, &e.steps, st) {
            (st.rec_at, st.rec_index, st.rec_span) = saved;
            return Err(x);
        }
    }
    (st.rec_at, st.rec_index, st.rec_span) = saved;
    Ok(())
}

/// The aggregates of stream `si` as placed now (walked on first use).
fn summary(st: &State<'_>, p: &FileProg<'_>, si: usize) -> Option<std::rc::Rc<Summary>> {
    let s = p.streams.get(si)?;
    let (start, len) = st.ranges.get(s.range).copied().flatten().unwrap_or((0, 0));
    let key = (si, start, len);
    if let Some((_, sum)) = st.aggs.0.borrow().iter().find(|(k, _)| *k == key) {
        return Some(sum.clone());
    }
    let mut sum = Summary::default();
    let mut w = Walker::new(st, p, s);
    while let Walked::Rec(r) = w.next(st, p, s) {
        let body = r.at.saturating_add(s.hs);
        let e = sum
            .types
            .entry(r.ty)
            .or_insert((0, sum.total, sum.total, body, body));
        e.0 = e.0.saturating_add(1);
        e.2 = sum.total;
        e.4 = body;
        sum.total = sum.total.saturating_add(1);
    }
    let sum = std::rc::Rc::new(sum);
    st.aggs.0.borrow_mut().push((key, sum.clone()));
    Some(sum)
}

/// `count()` of a stream or a stream's collection (`None`: `ci` is neither).
pub(super) fn count(st: &State<'_>, p: &FileProg<'_>, ci: usize) -> Option<u64> {
    let name = &p.c.collections.get(ci)?.name.text;
    for (si, s) in p.streams.iter().enumerate() {
        if &s.name == name {
            return Some(summary(st, p, si)?.total);
        }
        if let Some(l) = s.layouts.iter().find(|l| &l.0 == name) {
            return Some(summary(st, p, si)?.types.get(&l.1).map_or(0, |t| t.0));
        }
    }
    None
}

/// `first()` of a stream's collection: the index in the stream of its first record (`None`
/// when it has none, or `ci` is not a stream's collection).
pub(super) fn first(st: &State<'_>, p: &FileProg<'_>, ci: usize) -> Option<u64> {
    let name = &p.c.collections.get(ci)?.name.text;
    for (si, s) in p.streams.iter().enumerate() {
        if let Some(l) = s.layouts.iter().find(|l| &l.0 == name) {
            return summary(st, p, si)?.types.get(&l.1).map(|t| t.1);
        }
    }
    None
}

/// `first_body()` (`last`: `last_body()`) of a stream's collection: where the body of its
/// first (last) record starts in the file (`None` when it has none).
pub(super) fn body(st: &State<'_>, p: &FileProg<'_>, ci: usize, last: bool) -> Option<u64> {
    let name = &p.c.collections.get(ci)?.name.text;
    for (si, s) in p.streams.iter().enumerate() {
        if let Some(l) = s.layouts.iter().find(|l| &l.0 == name) {
            return summary(st, p, si)?
                .types
                .get(&l.1)
                .map(|t| if last { t.4 } else { t.3 });
        }
    }
    None
}

/// `last()` of a stream's collection: the index in the stream of its last record (`None`
/// when it has none, or `ci` is not a stream's collection).
pub(super) fn last(st: &State<'_>, p: &FileProg<'_>, ci: usize) -> Option<u64> {
    let name = &p.c.collections.get(ci)?.name.text;
    for (si, s) in p.streams.iter().enumerate() {
        if let Some(l) = s.layouts.iter().find(|l| &l.0 == name) {
            return summary(st, p, si)?.types.get(&l.1).map(|t| t.2);
        }
    }
    None
}

/// The dynamic view's groups: each stream's records (header fields, body range) and each
/// collection's typed bodies.
/// Where the first `limit` records of stream `name` start (their headers), in order, and
/// how many records it has.
pub(super) fn record_starts(
    p: &FileProg<'_>,
    st: &State<'_>,
    name: &str,
    limit: u64,
) -> (Vec<u64>, u64) {
    let mut out = Vec::new();
    let mut total = 0u64;
    let Some(s) = p.streams.iter().find(|s| s.name == name) else {
        return (out, total);
    };
    let mut w = Walker::new(st, p, s);
    while let Walked::Rec(r) = w.next(st, p, s) {
        if total < limit {
            out.push(r.at);
        }
        total = total.saturating_add(1);
    }
    (out, total)
}

pub(super) fn groups(p: &FileProg<'_>, st: &State<'_>) -> Vec<Group> {
    let c = p.c;
    let mut out = Vec::new();
    for s in &p.streams {
        let Some(h) = c.schema.structs.get(s.header_st) else {
            continue;
        };
        let limit = super::view_model::LIST_LIMIT;
        let mut records = Vec::new();
        let mut total = 0u64;
        // Each layout's collection: its struct, its records listed, its count.
        let mut colls: Vec<(usize, Vec<RecordView>, u64)> = s
            .layouts
            .iter()
            .enumerate()
            .filter(|(_, l)| c.schema.structs.get(l.3).is_some())
            .map(|(li, _)| (li, Vec::new(), 0))
            .collect();
        let mut w = Walker::new(st, p, s);
        while let Walked::Rec(r) = w.next(st, p, s) {
            let i = total;
            total = total.saturating_add(1);
            if i < limit {
                let path = format!("{}[{i}]", s.name);
                let mut rv = super::decode::record(p, st, h, r.at, None, path.clone(), Some(i));
                rv.size = r.total;
                if s.max_depth > 0 {
                    // `r.depth()` of the generated view (`record.depth`).
                    rv.composed.push(("depth".into(), r.depth));
                }
                rv.ranges.push(RangeView {
                    name: "body".into(),
                    path: format!("{path}.body"),
                    offset: r.at.saturating_add(s.hs),
                    length: r.total - s.hs,
                });
                records.push(rv);
            }
            for (li, listed, n) in &mut colls {
                let (Some(l), k) = (s.layouts.get(*li), *n) else {
                    continue;
                };
                if l.1 != r.ty {
                    continue;
                }
                *n = k.saturating_add(1);
                if let (true, Some(b)) = (k < limit, c.schema.structs.get(l.3)) {
                    listed.push(super::decode::record(
                        p,
                        st,
                        b,
                        r.at.saturating_add(s.hs),
                        None,
                        format!("{}[{k}]", l.0),
                        Some(k),
                    ));
                }
            }
        }
        out.push(Group {
            kind: "stream",
            name: s.name.clone(),
            struct_name: h.name.text.clone(),
            records,
            total,
        });
        for (li, records, total) in colls {
            let (Some(l), Some(b)) = (
                s.layouts.get(li),
                s.layouts.get(li).and_then(|l| c.schema.structs.get(l.3)),
            ) else {
                continue;
            };
            out.push(Group {
                kind: "collection",
                name: l.0.clone(),
                struct_name: b.name.text.clone(),
                records,
                total,
            });
        }
    }
    out
}

// The entry points the lower parts call, as methods on their types (`compile.rs` compiles
// stream steps, `prog.rs` evaluates `first()` and `count()`).
impl Comp<'_> {
    /// The file's streams, resolved ([`infos`]).
    pub(super) fn stream_infos(&self) -> Vec<SInfo> {
        infos(self)
    }

    /// [`compile_fits`].
    pub(super) fn stream_fits(
        &mut self,
        code: &str,
        target: &str,
        kind: crate::schema::streams::StreamStep,
    ) -> Option<CStep> {
        compile_fits(self, code, target, kind)
    }

    /// [`compile_each`].
    pub(super) fn stream_each(&mut self, name: &str, steps: &[Step]) -> Option<CStep> {
        compile_each(self, name, steps)
    }
}

impl State<'_> {
    /// [`first`].
    /// `S[i].field` or `S[key == value].field`: S's records walked from the first, in the
    /// current record's part (`part`: inside `for_each` over the stream S is within) or in
    /// the whole stream, until record `i`, or one whose key is the value (a key with no
    /// value, or no such record: no value), and its field.
    pub(super) fn sub_find(
        &self,
        p: &FileProg<'_>,
        (si, part): (usize, bool),
        which: &CE,
        (key, field): (Option<&CE>, &CE),
    ) -> Option<u64> {
        let want = self.val(p, which)?;
        let s = p.streams.get(si)?;
        let mut w = if part {
            let (_, from, to) = s.within.as_ref()?;
            let (at, _, end, _, _) = self.rec_span;
            let total = end.checked_sub(at)?;
            let (f, t) = (self.eval_rec(p, from, at)?, self.eval_rec(p, to, at)?);
            if f > t || t > total {
                return None;
            }
            Walker::part(self, s, at, (f, t))
        } else {
            Walker::new(self, p, s)
        };
        let mut i: u64 = 0;
        loop {
            let Walked::Rec(r) = w.next(self, p, s) else {
                return None;
            };
            let this = match key {
                Some(key) => self.eval_rec(p, key, r.at)? == want,
                None => i == want,
            };
            i = i.saturating_add(1);
            if this {
                // Its fields, and where it lies (`record.offset` of the found record).
                let mut found = self.clone_light();
                found.rec_at = r.at;
                found.rec_span = (
                    r.at,
                    r.at.saturating_add(s.hs),
                    r.at.saturating_add(r.total),
                    r.depth,
                    0,
                );
                return found.val(p, field);
            }
        }
    }

    pub(super) fn stream_first(&self, p: &FileProg<'_>, ci: usize) -> Option<u64> {
        first(self, p, ci)
    }

    /// [`last`].
    pub(super) fn stream_last(&self, p: &FileProg<'_>, ci: usize) -> Option<u64> {
        last(self, p, ci)
    }

    /// `first_body(collection)` (`last`: `last_body(collection)`).
    pub(super) fn stream_body(&self, p: &FileProg<'_>, ci: usize, last: bool) -> Option<u64> {
        body(self, p, ci, last)
    }

    /// [`count`].
    pub(super) fn stream_count(&self, p: &FileProg<'_>, ci: usize) -> Option<u64> {
        count(self, p, ci)
    }
}
