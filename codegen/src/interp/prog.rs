//! A compiled file layout, the interpreter itself, and the run-time state with the
//! generic evaluator of compiled expressions.

use npuschema_core::ErrorSite;

use crate::check::{self, FieldKind};
use crate::expr::BinOp;

use super::ir::*;
use super::lowered::Prog;
use super::slots;

/// A schema ready to interpret: its steps resolved once, and its error sites numbered as
/// the generated module numbers them.
pub struct Interp<'c> {
    pub(super) top: FileProg<'c>,
    pub(super) variants: Option<Variants<'c>>,
    pub(super) sites: &'static [ErrorSite],
}

pub(super) struct Variants<'c> {
    pub(super) list: Vec<(String, CE, FileProg<'c>)>,
    pub(super) unknown_site: usize,
    pub(super) unknown_value: CE,
    pub(super) unknown_blame: CBlame,
}

/// One file layout (the file, or one variant) with its compiled steps.
pub(super) struct FileProg<'c> {
    pub(super) c: &'c check::Checked,
    /// The schema's `big_when`: the file's byte order, read right after the header.
    pub(super) big_when: Option<CE>,
    pub(super) header_size: u64,
    pub(super) header_site: usize,
    pub(super) steps: Vec<CStep>,
    pub(super) dirs: Vec<DirInfo>,
    pub(super) colls: Vec<CollInfo>,
    /// `want` arrays of record checksums: one per directory checksum of kind `Records`.
    pub(super) want_slots: usize,
    /// Order checks' "previous" slots.
    pub(super) order_slots: usize,
    /// Named values (top-level `let` steps).
    pub(super) lets: usize,
    /// Record size of each table, by table index.
    pub(super) table_rec_size: Vec<u64>,
    /// Each struct's layouts by gate value, by struct index (`None`: not gated).
    pub(super) gates: Vec<Option<GateTable>>,
    /// The record streams, resolved.
    pub(super) streams: Vec<SInfo>,
    /// `steps` lowered for speed (`fast.rs`).
    pub(super) fast: Prog,
}

// ----- run-time state ----------------------------------------------------------------------

/// A stream's aggregates from one walk: its record count, and per record type the count
/// and the indexes of the first and the last.
#[derive(Clone, Debug, Default)]
pub(super) struct Summary {
    pub(super) total: u64,
    /// Per type value: (count, first index, last index, first body's offset, last body's
    /// offset).
    pub(super) types: std::collections::BTreeMap<u64, (u64, u64, u64, u64, u64)>,
}

/// The aggregates of each stream walked so far, keyed by the stream and its placement
/// (offset, length): a stream is walked once for all its `count()`s and `first()`s, so a
/// `count()` in a `for_each` body costs a lookup per record, not a walk (10,000 records
/// took 6 s, 100,000 over a minute).
#[derive(Clone, Debug, Default)]
pub(super) struct Aggs(pub(super) std::cell::RefCell<Vec<(AggKey, std::rc::Rc<Summary>)>>);

/// A stream (its index) as placed (its range's offset and length).
pub(super) type AggKey = (usize, u64, u64);

#[derive(Clone)]
pub(super) struct State<'b> {
    pub(super) buf: &'b [u8],
    pub(super) len: u64,
    /// Located records: (offset, size, gate).
    pub(super) located: slots::Slots<(u64, u64, u64), 4>,
    /// Tables after their placement check: (offset, count).
    pub(super) tables: slots::Slots<(u64, u64, u64), 8>,
    /// File-level ranges after their check: (offset, length).
    pub(super) ranges: slots::Slots<(u64, u64), 8>,
    pub(super) dcount: Vec<Vec<u32>>,
    pub(super) dfirst: Vec<Vec<u32>>,
    pub(super) want: Vec<Vec<Option<(u64, u64, u64)>>>,
    pub(super) rec_at: u64,
    pub(super) rec_index: u64,
    /// The current stream record: its offset, its body's offset, its body's end, its
    /// depth and its index in the stream (`record.<part>`, set by a stream's `for_each`).
    pub(super) rec_span: (u64, u64, u64, u64, u64),
    /// Named values, once their `let` ran (and after them the run-invariant values of the
    /// lowered steps, `fast.rs`).
    pub(super) lets: slots::Slots<u64, 16>,
    /// Each order check's previous key or end.
    pub(super) prev: slots::Slots<u64, 4>,
    /// Each stream's aggregates (`count()`, `first()`), walked once per placement of the
    /// stream instead of once per use (a `count()` in a `for_each` body was a walk per
    /// record).
    pub(super) aggs: Aggs,
    /// The file's byte order, when the schema lets the header choose it (`big_when`):
    /// big-endian. Fields in the file's order are read in it.
    pub(super) big: bool,
}

impl<'b> State<'b> {
    pub(super) fn read_rec(&self, (off, t, big): RecField) -> u64 {
        widen(
            read_int(self.buf, self.rec_at.saturating_add(off), t, big),
            t,
        )
    }

    /// Where a field's struct starts, and the field's offset in it (`None`: the record is
    /// not there, or the field is absent at its gate).
    pub(super) fn locate(&self, p: &FileProg<'_>, f: &FRef) -> Option<u64> {
        let base = match f.own {
            Own::Header => 0,
            Own::Record => self.rec_at,
            Own::Located(i) => {
                let (at, _, gate) = (*self.located.get(i)?)?;
                if let Some(Some(g)) = p.gates.get(f.st) {
                    let off = (*g.offs.get(g.pick(gate))?.get(f.fi)?)?;
                    return at.checked_add(off);
                }
                at
            }
            Own::Element(t, k) => {
                let (at, n, stride) = (*self.tables.get(t)?)?;
                if k >= n {
                    return None;
                }
                at.saturating_add(k.saturating_mul(stride))
            }
        };
        Some(base.saturating_add(f.off))
    }

    /// Checksum `alg` of the span `d` (at `start` in the file) with the bytes of the `zero`
    /// fields inside it as zero: the span copied and those bytes cleared (the generated code
    /// walks the span without copying, `npuschema_core::zeroed_pieces`).
    pub(super) fn zeroed_sum(
        &self,
        p: &FileProg<'_>,
        alg: crate::schema::Algorithm,
        d: &[u8],
        start: u64,
        zero: &[FRef],
    ) -> u32 {
        if zero.is_empty() {
            return alg.compute(d);
        }
        let mut copy = d.to_vec();
        let n = copy.len() as u64;
        for z in zero {
            let Some(at) = self.locate(p, z) else {
                continue;
            };
            let end = at.saturating_add(z.kind.width(&p.c.schema));
            let (a, e) = (
                at.saturating_sub(start).min(n),
                end.saturating_sub(start).min(n),
            );
            if let Some(s) = copy.get_mut(a as usize..e as usize) {
                s.fill(0);
            }
        }
        alg.compute(&copy)
    }

    /// Whether field `f` is read big-endian: its fixed order, or the file's.
    pub(super) fn big_of(&self, f: &FRef) -> bool {
        if f.file_order { self.big } else { f.big }
    }

    /// A field's raw word (unsigned bits).
    pub(super) fn raw(&self, p: &FileProg<'_>, f: &FRef) -> Option<u64> {
        let at = self.locate(p, f)?;
        let t = word_ty(f.kind, &p.c.schema)?;
        Some(read_int(self.buf, at, t, self.big_of(f)))
    }

    pub(super) fn val(&self, p: &FileProg<'_>, e: &CE) -> Option<u64> {
        match e {
            CE::Num(v) => Some(*v),
            CE::Len => Some(self.len),
            CE::Zero => Some(0),
            CE::Opt(v) => *v,
            CE::Field(f) => match f.kind {
                FieldKind::Int(t) if t.signed() => {
                    u64::try_from(sign_extend(self.raw(p, f)?, t)).ok()
                }
                FieldKind::Int(_)
                | FieldKind::Enum(_)
                | FieldKind::Flags(_)
                | FieldKind::Bits(_)
                | FieldKind::Float(_) => self.raw(p, f),
                _ => Some(0),
            },
            CE::Composed(l, h) => Some(self.raw(p, l)? | (self.raw(p, h)? << 32)),
            CE::BitRange(f, lo, mask) => Some((self.raw(p, f)? >> lo) & mask),
            CE::FlagBit(..) => Some(0),
            CE::Bin(op, l, r) => {
                let a = self.val(p, l)?;
                let b = self.val(p, r)?;
                match op {
                    BinOp::Add => a.checked_add(b),
                    BinOp::Sub => a.checked_sub(b),
                    BinOp::Mul => a.checked_mul(b),
                    BinOp::Div => a.checked_div(b),
                    BinOp::Rem => a.checked_rem(b),
                    BinOp::And => Some(a & b),
                    BinOp::Or => Some(a | b),
                    BinOp::Shl => a.checked_shl(u32::try_from(b).ok()?),
                    BinOp::Shr => a.checked_shr(u32::try_from(b).ok()?),
                    _ => Some(0),
                }
            }
            CE::Not(_) => Some(0),
            CE::Let(i) => self.lets.get(*i).copied().flatten(),
            CE::At(i, field) => {
                let k = self.val(p, i)?;
                self.val(p, &field.at_index(k))
            }
            CE::Find(value, key) => {
                // Record by record from the first; past the count (or a key with no
                // value) there is no value, as in the generated search.
                let want = self.val(p, value)?;
                let mut k: u64 = 0;
                loop {
                    if self.val(p, &key.at_index(k))? == want {
                        return Some(k);
                    }
                    k = k.checked_add(1)?;
                }
            }
            CE::Word(at, width, order) => {
                let (at, width) = (self.val(p, at)?, self.val(p, width)?);
                let start = usize::try_from(at).ok()?;
                let n = usize::try_from(width)
                    .ok()
                    .filter(|w| [1, 2, 4, 8].contains(w))?;
                let bytes = self.buf.get(start..)?.get(..n)?;
                // Most significant byte first in a big-endian file.
                let big = order.unwrap_or(self.big);
                let fold = |v: u64, b: &u8| (v << 8) | u64::from(*b);
                Some(if big {
                    bytes.iter().fold(0, fold)
                } else {
                    bytes.iter().rev().fold(0, fold)
                })
            }
            CE::SubFind {
                stream,
                part,
                which,
                key,
                field,
            } => self.sub_find(p, (*stream, *part), which, (key.as_deref(), field)),
            CE::Count(ci) => Some(self.count(p, *ci)),
            CE::RecPos(k) => Some(rec_pos(self.rec_span, *k)),
            CE::First(ci) => self.stream_first(p, *ci),
            CE::Last(ci) => self.stream_last(p, *ci),
            CE::Body(ci, last) => self.stream_body(p, *ci, *last),
            CE::End(ri) => {
                let (at, size, _) = (*self.located.get(*ri)?)?;
                at.checked_add(size)
            }
            CE::If(c, a, b) => {
                if self.cond(p, c) {
                    self.val(p, a)
                } else {
                    self.val(p, b)
                }
            }
        }
    }

    pub(super) fn cond(&self, p: &FileProg<'_>, e: &CE) -> bool {
        match e {
            CE::FlagBit(f, mask) => self
                .raw(p, f)
                .is_some_and(|v| v & mask == *mask && *mask != 0),
            CE::Bin(BinOp::LogAnd, l, r) => self.cond(p, l) && self.cond(p, r),
            CE::Bin(BinOp::LogOr, l, r) => self.cond(p, l) || self.cond(p, r),
            CE::Bin(op, l, r) if op.is_comparison() => {
                matches!((self.val(p, l), self.val(p, r)), (Some(a), Some(b)) if compare(*op, a, b))
            }
            CE::Not(x) => !self.cond(p, x),
            _ => false,
        }
    }

    /// Evaluate a record-only expression for the record at `rec_at`.
    pub(super) fn eval_rec(&self, p: &FileProg<'_>, e: &CE, rec_at: u64) -> Option<u64> {
        let mut s = self.clone_light();
        s.rec_at = rec_at;
        s.val(p, e)
    }

    pub(super) fn cond_rec(&self, p: &FileProg<'_>, e: &CE, rec_at: u64) -> bool {
        let mut s = self.clone_light();
        s.rec_at = rec_at;
        s.cond(p, e)
    }

    /// A directory's sections: (index, raw type, record offset, record offset).
    pub(super) fn sections<'s>(
        &'s self,
        _p: &FileProg<'_>,
        d: &'s DirInfo,
    ) -> impl Iterator<Item = (u64, u64, u64, u64)> + 's {
        let (at, n, stride) = self
            .tables
            .get(d.table)
            .copied()
            .flatten()
            .unwrap_or((0, 0, 0));
        (0..n).map(move |i| {
            let rat = at.saturating_add(i.saturating_mul(stride));
            let ty = widen(
                read_int(
                    self.buf,
                    rat.saturating_add(d.type_off),
                    d.type_ty,
                    d.type_big,
                ),
                d.type_ty,
            );
            (i, ty, rat, rat)
        })
    }

    /// The payload accessor of the section at `rec_at`: `None` when its `when` fails or
    /// its place does not compute.
    pub(super) fn payload_at(
        &self,
        p: &FileProg<'_>,
        d: &DirInfo,
        rec_at: u64,
    ) -> Option<&'b [u8]> {
        if let Some(w) = &d.when
            && !self.cond_rec(p, w, rec_at)
        {
            return None;
        }
        let s = self.eval_rec(p, &d.offset, rec_at)?;
        let l = self.eval_rec(p, &d.length, rec_at)?;
        npuschema_core::range_at(self.buf, s, l)
    }

    pub(super) fn payload(&self, p: &FileProg<'_>, d: &DirInfo, si: u64) -> Option<&'b [u8]> {
        let (at, _, stride) = self.tables.get(d.table).copied().flatten()?;
        self.payload_at(p, d, at.saturating_add(si.saturating_mul(stride)))
    }

    /// The first section of type `v` with a payload: (payload, index, payload offset).
    pub(super) fn region(
        &self,
        p: &FileProg<'_>,
        d: &DirInfo,
        v: u64,
    ) -> Option<(&'b [u8], u64, u64)> {
        for (si, ty, _, rat) in self.sections(p, d) {
            if ty != v {
                continue;
            }
            if let Some(pl) = self.payload_at(p, d, rat) {
                return Some((pl, si, self.eval_rec(p, &d.offset, rat).unwrap_or(0)));
            }
        }
        None
    }

    /// The records of collection `ci` (`count()`).
    pub(super) fn count(&self, p: &FileProg<'_>, ci: usize) -> u64 {
        if let Some(n) = self.stream_count(p, ci) {
            return n;
        }
        let Some(ci) = p.colls.get(ci) else { return 0 };
        let Some(d) = p.dirs.get(ci.dir) else {
            return 0;
        };
        let size = ci.rec_size.max(1);
        let mut n = 0u64;
        for (_, ty, _, rat) in self.sections(p, d) {
            if ty != ci.value {
                continue;
            }
            let length = self.eval_rec(p, &d.length, rat).unwrap_or(0);
            n = n.saturating_add(length / size);
        }
        n
    }

    /// Call `f` with the state positioned on each record of collection `ci` in turn (its
    /// index running across sections); stop when `f` returns false.
    pub(super) fn clone_for_each_record(
        &mut self,
        p: &FileProg<'_>,
        ci: usize,
        mut f: impl FnMut(&mut State<'b>, u64, u64) -> bool,
    ) {
        let Some(coll) = p.colls.get(ci) else { return };
        let Some(d) = p.dirs.get(coll.dir) else {
            return;
        };
        let n = usize::try_from(coll.rec_size).unwrap_or(0);
        if n == 0 {
            return;
        }
        let secs: Vec<(u64, u64, u64, u64)> =
            self.sections(p, d).filter(|s| s.1 == coll.value).collect();
        let mut index = 0u64;
        for (_, _, _, rat) in secs {
            let Some(pl) = self.payload_at(p, d, rat) else {
                continue;
            };
            let pat = self.eval_rec(p, &d.offset, rat).unwrap_or(0);
            let recs = pl.len() / n;
            for j in 0..recs {
                self.rec_at = pat.saturating_add((j as u64).saturating_mul(coll.rec_size));
                self.rec_index = index;
                index = index.saturating_add(1);
                if !f(self, self.rec_index, self.rec_at) {
                    return;
                }
            }
        }
    }
}

impl<'b> State<'b> {
    /// A copy that only reads the buffer and the current record (record-only scope needs
    /// nothing else).
    pub(super) fn clone_light(&self) -> State<'b> {
        State {
            buf: self.buf,
            len: self.len,
            located: slots::Slots::none(),
            tables: slots::Slots::none(),
            ranges: slots::Slots::none(),
            dcount: Vec::new(),
            dfirst: Vec::new(),
            want: Vec::new(),
            rec_at: self.rec_at,
            rec_index: self.rec_index,
            rec_span: self.rec_span,
            lets: slots::Slots::none(),
            prev: slots::Slots::none(),
            aggs: Aggs::default(),
            big: self.big,
        }
    }
}
