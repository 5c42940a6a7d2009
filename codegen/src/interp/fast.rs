//! The interpreter's fast path: the compiled steps lowered once more, in [`Interp::new`],
//! into a form that does no lookup at run time.
//!
//! Each field reference becomes a read of one word at an absolute offset (header fields), a
//! record-relative offset (the record a `for_each` is on), an offset in a located record or
//! in one element of a table, with its width and byte order resolved (the generic evaluator
//! runs `locate` and `word_ty` on every read); constants are folded; a `for_each` over a
//! table runs its lowered body directly.
//!
//! The lowering covers the common expression kinds and steps. Anything else (a kind it does
//! not know, including ones added later) is kept as it is and handed to the generic
//! evaluator (`State::val`, `State::cond`, `Interp::exec`): `Fx::Slow`, `Fc::Slow`,
//! `FStep::Slow`. A lowered check only decides pass or fail; when it fails, the generic path
//! runs the original step on the same state to report the error, so the error values, sites
//! and blame have one implementation.

use std::sync::atomic::{AtomicU64, Ordering};

use npuschema_core::Report;

use super::ir::*;
use super::lowered::*;
use super::prog::*;
use super::slots::Slots;
use crate::check::FieldKind;
use crate::expr::BinOp;
use crate::schema::IntTy;

/// A comparison of a header word with a constant, seen while lowering: the word's offset
/// and reading, and the constant.
type KeyCmp = (u64, W, u64);

/// Lower a file's compiled steps: once as they are and, when they compare a header word
/// with constants (the key: the one compared most often, such as a version), once more for
/// each interval of the key's values on which all those comparisons have the same outcome,
/// with the outcomes folded in (`if(header.version >= X, ...)` becomes one arm, a table's
/// count a constant, and so on). A run reads the key and takes its interval's body.
///
/// A file whose header chooses its byte order is lowered once per order, the fields in the
/// file's order read in that one ([`Prog::big`] for big-endian files), as the generated
/// validator runs its steps once per order.
pub(super) fn lower(p: &FileProg<'_>) -> Prog {
    let mut prog = lower_in(p, false);
    if p.big_when.is_some() {
        let big = lower_in(p, true);
        prog.memo_slots = prog.memo_slots.max(big.memo_slots);
        prog.big = Some(Box::new(big));
    }
    prog
}

/// [`lower`] for files in one byte order (`big`: big-endian), for the fields in the file's.
fn lower_in(p: &FileProg<'_>, big: bool) -> Prog {
    let (base, cmps) = lower_body(p, None, big);
    let keyed = key(&cmps).map(|(at, w, starts)| {
        let bodies = starts
            .iter()
            .map(|&v| lower_body(p, Some((at, w, v)), big).0)
            .collect();
        Keyed {
            at,
            w,
            starts,
            bodies,
        }
    });
    let memo_slots = keyed
        .iter()
        .flat_map(|k| k.bodies.iter())
        .chain(std::iter::once(&base))
        .map(|b| b.memos.len())
        .max()
        .unwrap_or(0);
    Prog {
        base,
        keyed,
        memo_slots,
        slot_lens: [
            p.c.schema.file.ext.records.len(),
            p.c.schema.file.tables.len(),
            p.c.schema.file.ranges.len(),
        ],
        variants: Vec::new(),
        choice: None,
        big: None,
    }
}

/// One lowering of `p`'s steps, the key word `pin` (offset, reading, a value of the
/// interval) decided; and the comparisons of header words with constants it saw.
fn lower_body(p: &FileProg<'_>, pin: Option<KeyCmp>, big: bool) -> (Body, Vec<KeyCmp>) {
    let l = Low::new(p, true, pin, big);
    let mut steps = Vec::new();
    for s in &p.steps {
        let f = l.step(s);
        l.note_place(&f);
        if !passes(&f) {
            steps.push(f);
        }
    }
    // The top-level checks that only compare run-invariant values, run first (a top-level
    // step always runs, and these neither read nor set anything a step sets); then the
    // placements of run-invariant values whose slot no step before them touches.
    let (mut guard, mut places, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    // What the steps so far may read or set.
    let mut before = Touched::default();
    for f in &steps {
        let check = match f {
            FStep::Check(k, _) => Some(&**k),
            _ => None,
        };
        if let Some(g) = check.and_then(Pure::of) {
            guard.push(g);
        } else if let Some(pl) = check.and_then(Place::of)
            && !before.has(pl.slot())
        {
            places.push(pl);
        } else {
            rest.push(f.clone());
        }
        before.step(f);
    }
    let memos: Vec<Fx> = l.memos.into_inner().into_iter().map(|(_, e)| e).collect();
    // Their values by index; when too many, they stay steps.
    let leaves: Vec<Leaf> = guard
        .iter()
        .flat_map(|g| [g.a, g.b])
        .chain(places.iter().flat_map(Place::leaves))
        .collect();
    let indexed = Vals::of(&leaves, memos.len()).and_then(|(vals, ix)| {
        let (gx, px) = ix.split_at_checked(2 * guard.len())?;
        let guard = guard
            .iter()
            .zip(gx.chunks_exact(2))
            .map(|(g, ab)| {
                Some(Pure {
                    op: g.op,
                    a: *ab.first()?,
                    b: *ab.get(1)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let mut rest_ix = px;
        let places = places
            .iter()
            .map(|pl| {
                let (mine, more) = rest_ix.split_at_checked(pl.leaves().len())?;
                rest_ix = more;
                pl.with(mine)
            })
            .collect::<Option<Vec<_>>>()?;
        Some((guard, places, vals))
    });
    let body = match indexed {
        Some((guard, places, vals)) => Body {
            steps,
            memos,
            guard,
            places,
            vals,
            rest,
        },
        None => Body {
            rest: steps.clone(),
            steps,
            memos,
            ..Body::default()
        },
    };
    (body, l.cmps.into_inner())
}

/// The slots that steps may read or set, their reports included (a blame's base): `all`
/// when a step's are not known (one run by the generic path). Collected step by step, so
/// asking whether any step before a placement touches its slot is one lookup, not a walk
/// of every step before it.
#[derive(Default)]
struct Touched {
    all: bool,
    slots: std::collections::HashSet<Slot>,
}

impl Touched {
    fn has(&self, s: Slot) -> bool {
        self.all || self.slots.contains(&s)
    }

    fn add(&mut self, s: Slot) {
        self.slots.insert(s);
    }

    fn step(&mut self, f: &FStep) {
        match f {
            FStep::Slow(_) => self.all = true,
            FStep::Check(k, orig) => {
                self.chk(k);
                self.blame(orig);
            }
            FStep::Let(_, x) => self.fx(x),
            FStep::When(c, inner) => {
                self.fc(c);
                self.step(inner);
            }
            FStep::ForEachTable { table, body, .. } => {
                self.add(Slot::Table(*table));
                body.iter().for_each(|b| self.step(b));
            }
            FStep::RangeEach { table, orig, .. } => {
                self.add(Slot::Table(*table));
                self.blame(orig);
            }
        }
    }

    /// A step's report: its blame's base.
    fn blame(&mut self, c: &CStep) {
        let f = match c {
            CStep::MinLen { f, .. }
            | CStep::Expect { f, .. }
            | CStep::Assert { f, .. }
            | CStep::TableFits { f, .. }
            | CStep::RangeFits { f, .. }
            | CStep::FlagsKnown { f, .. }
            | CStep::EnumKnown { f, .. }
            | CStep::Cond { f, .. }
            | CStep::RecordFits { f, .. }
            | CStep::Items { f, .. } => f,
            _ => {
                self.all = true;
                return;
            }
        };
        match f.blame.base {
            BaseK::Zero | BaseK::RecAt => {}
            BaseK::Located(i) => self.add(Slot::Located(i)),
            BaseK::TableAt(t) => self.add(Slot::Table(t)),
        }
    }

    fn chk(&mut self, k: &Chk) {
        match k {
            Chk::CmpAbs(..) | Chk::CmpRec(..) => {}
            Chk::MinLen(x) | Chk::FlagsKnown(x, _) | Chk::EnumKnown(x, _) => self.fx(x),
            Chk::Expect(a, b) | Chk::Assert(_, a, b) => {
                self.fx(a);
                self.fx(b);
            }
            Chk::Cond(c) => self.fc(c),
            Chk::TableFits {
                table,
                at,
                count,
                stride,
                within,
                ..
            } => {
                self.add(Slot::Table(*table));
                [at, count, stride].iter().for_each(|x| self.fx(x));
                self.lim(within);
            }
            Chk::RangeFits {
                range,
                when,
                start,
                length,
                within,
                ..
            } => {
                self.add(Slot::Range(*range));
                if let Some(c) = when {
                    self.fc(c);
                }
                self.fx(start);
                self.fx(length);
                self.lim(within);
            }
            Chk::RangeRec { range, within, .. } => {
                self.add(Slot::Range(*range));
                self.lim(within);
            }
            Chk::RecordFits {
                rec,
                at,
                within,
                gate,
                ..
            } => {
                self.add(Slot::Located(*rec));
                self.fx(at);
                self.lim(within);
                if let Some(g) = gate {
                    self.fx(g);
                }
            }
            Chk::Items { first, rhs, .. } => {
                if let Some(x) = first {
                    self.fx(x);
                }
                self.fx(rhs);
            }
        }
    }

    fn lim(&mut self, l: &Lim) {
        match l {
            Lim::Len => {}
            Lim::X(x) => self.fx(x),
        }
    }

    fn fx(&mut self, x: &Fx) {
        match x {
            Fx::K(_) | Fx::Len | Fx::Abs(..) | Fx::Rec(..) | Fx::Let(_) | Fx::Memo(_) => {}
            Fx::Loc(i, ..) | Fx::End(i) => self.add(Slot::Located(*i)),
            Fx::Elem(t, ..) => self.add(Slot::Table(*t)),
            Fx::Signed(a, _) | Fx::Bits(a, ..) | Fx::DivK(a, _) | Fx::RemK(a, _) => self.fx(a),
            Fx::Composed(a, b) | Fx::Bin(_, a, b) => {
                self.fx(a);
                self.fx(b);
            }
            Fx::If(c, a, b) => {
                self.fc(c);
                self.fx(a);
                self.fx(b);
            }
            Fx::Sel(_, x, _, a, b) => {
                self.fx(x);
                self.fx(a);
                self.fx(b);
            }
            Fx::Slow(_) => self.all = true,
        }
    }

    fn fc(&mut self, c: &Fc) {
        match c {
            Fc::K(_) => {}
            Fc::Flag(x, _) => self.fx(x),
            Fc::And(a, b) | Fc::Or(a, b) => {
                self.fc(a);
                self.fc(b);
            }
            Fc::Not(a) => self.fc(a),
            Fc::Cmp(_, a, b) => {
                self.fx(a);
                self.fx(b);
            }
            Fc::Slow(_) => self.all = true,
        }
    }
}

/// The key word among the comparisons seen, and the first value of each interval of its
/// values on which every comparison with it has one outcome (`None`: no comparison, or
/// too many intervals).
fn key(cmps: &[KeyCmp]) -> Option<(u64, W, Vec<u64>)> {
    let mut words: Vec<(u64, W, usize)> = Vec::new();
    for &(at, w, _) in cmps {
        match words.iter_mut().find(|x| x.0 == at && x.1 == w) {
            Some(x) => x.2 += 1,
            None => words.push((at, w, 1)),
        }
    }
    // The most compared; on a tie, the first seen.
    let (at, w, _) = words
        .iter()
        .copied()
        .reduce(|best, x| if x.2 > best.2 { x } else { best })?;
    // `x op k` changes outcome only at `k` and `k + 1`, whatever the operator.
    let mut starts: Vec<u64> = std::iter::once(0)
        .chain(
            cmps.iter()
                .filter(|c| c.0 == at && c.1 == w)
                .flat_map(|c| [Some(c.2), c.2.checked_add(1)])
                .flatten(),
        )
        .collect();
    starts.sort_unstable();
    starts.dedup();
    (starts.len() <= MAX_INTERVALS).then_some((at, w, starts))
}

impl FileProg<'_> {
    /// This layout's steps lowered ([`lower`]).
    pub(super) fn lowered(&self) -> Prog {
        lower(self)
    }
}

/// Lower the variants' conditions of top-level layout `p` (no run-invariant values: they
/// are read after the run); and, when they compare a key word with constants, the variant
/// each interval of its values chooses (see [`lower`]).
pub(super) fn lower_variants(p: &FileProg<'_>, conds: &[&CE]) -> (Vec<Fc>, Option<Choice>) {
    let l = Low::new(p, false, None, false);
    let fcs = conds.iter().map(|c| l.fc(c)).collect();
    let choice = key(&l.cmps.into_inner()).and_then(|(at, w, starts)| {
        let picks = starts
            .iter()
            .map(|&v| {
                let l = Low::new(p, false, Some((at, w, v)), false);
                for (i, c) in conds.iter().enumerate() {
                    match l.fc(c) {
                        Fc::K(true) => return Some(Some(i)),
                        Fc::K(false) => {}
                        _ => return None,
                    }
                }
                Some(None)
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Choice {
            at,
            w,
            starts,
            picks,
        })
    });
    (fcs, choice)
}

struct Low<'a, 'c> {
    p: &'a FileProg<'c>,
    /// The run-invariant values so far, by their printed form.
    memos: std::cell::RefCell<Vec<(String, Fx)>>,
    /// Each memo's index by its printed form (a schema of many steps has as many memos).
    memo_index: std::cell::RefCell<std::collections::HashMap<String, usize>>,
    /// Whether to make run-invariant values `Fx::Memo`s.
    memo: bool,
    /// The key word decided in this lowering: offset, reading and a value of its interval.
    pin: Option<KeyCmp>,
    /// The comparisons of header words with constants seen.
    cmps: std::cell::RefCell<Vec<KeyCmp>>,
    /// Per table, its place once a top-level `table_fits` with a constant offset and
    /// count passed: (offset, count). Its element reads after that are absolute reads.
    tables_at: std::cell::RefCell<Vec<Option<(u64, u64, u64)>>>,
    /// Per located record, its place once a top-level `record_fits` with a constant
    /// offset and size passed: (offset, size).
    located_at: std::cell::RefCell<Vec<Option<(u64, u64)>>>,
    /// The byte order of this lowering, for the fields in the file's (big-endian).
    big: bool,
}

/// Whether a lowered value is the same all through a run: it reads only header words,
/// constants, the length and other such values.
fn invariant(e: &Fx) -> bool {
    match e {
        Fx::K(_) | Fx::Len | Fx::Abs(..) | Fx::Memo(_) => true,
        Fx::Bin(_, l, r) | Fx::Composed(l, r) => invariant(l) && invariant(r),
        Fx::Signed(x, _) | Fx::Bits(x, ..) | Fx::DivK(x, _) | Fx::RemK(x, _) => invariant(x),
        Fx::Sel(_, x, _, a, b) => invariant(x) && invariant(a) && invariant(b),
        Fx::If(c, a, b) => invariant_c(c) && invariant(a) && invariant(b),
        _ => false,
    }
}

fn invariant_c(c: &Fc) -> bool {
    match c {
        Fc::K(_) => true,
        Fc::Flag(x, _) => invariant(x),
        Fc::And(l, r) | Fc::Or(l, r) => invariant_c(l) && invariant_c(r),
        Fc::Not(x) => invariant_c(x),
        Fc::Cmp(_, l, r) => invariant(l) && invariant(r),
        Fc::Slow(_) => false,
    }
}

/// `Abs(at, w) >> s` with a constant `s` below 64: (at, w, s).
fn shr_of_abs(x: &Fx) -> Option<(u64, W, u32)> {
    match x {
        Fx::Bin(BinOp::Shr, a, s) => match (&**a, &**s) {
            (Fx::Abs(at, w), Fx::K(Some(s))) if *s < 64 => Some((*at, *w, u32::try_from(*s).ok()?)),
            _ => None,
        },
        _ => None,
    }
}

/// An arithmetic operator as the generic evaluator applies it (`Some(0)` for an operator
/// that is no arithmetic in a value position).
fn arith(op: BinOp, a: u64, b: u64) -> Option<u64> {
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

/// Whether a lowered step always passes and does nothing (a check decided at lowering):
/// it is left out.
fn passes(s: &FStep) -> bool {
    match s {
        FStep::Check(k, _) => matches!(**k, Chk::Cond(Fc::K(true))),
        FStep::When(Fc::K(false), _) => true,
        FStep::When(Fc::K(true), inner) => passes(inner),
        _ => false,
    }
}

impl<'a, 'c> Low<'a, 'c> {
    fn new(p: &'a FileProg<'c>, memo: bool, pin: Option<KeyCmp>, big: bool) -> Self {
        Low {
            p,
            big,
            memos: std::cell::RefCell::new(Vec::new()),
            memo_index: std::cell::RefCell::new(std::collections::HashMap::new()),
            memo,
            pin,
            cmps: std::cell::RefCell::new(Vec::new()),
            tables_at: std::cell::RefCell::new(vec![None; p.table_rec_size.len()]),
            located_at: std::cell::RefCell::new(vec![None; p.c.schema.file.ext.records.len()]),
        }
    }

    /// After top-level step `f`: a table or record it placed at a constant offset (with
    /// a constant count or size) is noted, so that later reads of it are absolute. Only a
    /// top-level check qualifies: when it fails the run ends, so every later step sees
    /// the place it set.
    fn note_place(&self, f: &FStep) {
        let FStep::Check(k, _) = f else { return };
        match &**k {
            Chk::TableFits {
                table,
                rec_size,
                at: Fx::K(Some(a)),
                count: Fx::K(Some(n)),
                stride: Fx::K(Some(stride)),
                ..
            } if stride >= rec_size && *stride > 0 => {
                if let Some(x) = self.tables_at.borrow_mut().get_mut(*table) {
                    *x = Some((*a, *n, *stride));
                }
            }
            Chk::RecordFits {
                rec,
                at: Fx::K(Some(a)),
                gate,
                size,
                gated,
                ..
            } => {
                let size = match (gate, gated) {
                    (None, _) => *size,
                    (Some(_), Some(n)) => *n,
                    (Some(_), None) => return,
                };
                if let Some(x) = self.located_at.borrow_mut().get_mut(*rec) {
                    *x = Some((*a, size));
                }
            }
            _ => {}
        }
    }

    /// A table element's word (field `off` of record `k`): absolute when the table's place
    /// is known.
    fn elem(&self, t: usize, k: u64, off: u64, w: W) -> Fx {
        match self.tables_at.borrow().get(t).copied().flatten() {
            Some((at, n, stride)) if k < n => Fx::Abs(
                at.saturating_add(k.saturating_mul(stride))
                    .saturating_add(off),
                w,
            ),
            Some(_) => Fx::K(None),
            None => Fx::Elem(t, k, off, w),
        }
    }

    /// Whether located record `i` is placed anew or maybe not at all: one per record of a
    /// collection (`table:`), or present only `when` a condition holds. Its placement and
    /// reads take the generic path (no run-invariant place).
    fn placed_anew(&self, i: usize) -> bool {
        self.p
            .c
            .schema
            .file
            .ext
            .records
            .get(i)
            .is_some_and(|r| r.table.is_some() || r.when.is_some())
    }

    /// The raw word of a field reference (`None`: not lowered).
    #[allow(unreachable_patterns)]
    fn word(&self, f: &FRef) -> Option<Fx> {
        let Some(t) = word_ty(f.kind, &self.p.c.schema) else {
            return Some(Fx::K(None));
        };
        let w = W::of(t, if f.file_order { self.big } else { f.big });
        Some(match f.own {
            Own::Header => Fx::Abs(f.off, w),
            Own::Record => Fx::Rec(f.off, w),
            // One per record of a collection: placed anew for each record, so no value
            // read from it is run-invariant; the generic path reads it.
            Own::Located(i) if self.placed_anew(i) => return None,
            Own::Located(i) => match self.p.gates.get(f.st) {
                Some(None) => match self.located_at.borrow().get(i).copied().flatten() {
                    Some((at, _)) => Fx::Abs(at.saturating_add(f.off), w),
                    None => Fx::Loc(i, f.off, w),
                },
                _ => return None,
            },
            Own::Element(t, k) => match self.p.table_rec_size.get(t) {
                Some(_) => self.elem(t, k, f.off, w),
                None => Fx::K(None),
            },
            _ => return None,
        })
    }

    /// A value, lowered; a run-invariant one that is more than a leaf becomes a
    /// [`Fx::Memo`] (the same value written twice shares one).
    fn fx(&self, e: &CE) -> Fx {
        self.memoised(self.fx_raw(e))
    }

    /// `x`, or the run-invariant value it is (see [`Self::fx`]).
    fn memoised(&self, x: Fx) -> Fx {
        let leaf = matches!(x, Fx::K(_) | Fx::Len | Fx::Abs(..) | Fx::Memo(_));
        if !self.memo || leaf || !invariant(&x) {
            return x;
        }
        let key = format!("{x:?}");
        let mut memos = self.memos.borrow_mut();
        let mut index = self.memo_index.borrow_mut();
        let i = match index.get(&key) {
            Some(&i) => i,
            None => {
                index.insert(key.clone(), memos.len());
                memos.push((key, x));
                memos.len() - 1
            }
        };
        Fx::Memo(i)
    }

    #[allow(unreachable_patterns)]
    fn fx_raw(&self, e: &CE) -> Fx {
        let slow = || Fx::Slow(e.clone());
        match e {
            CE::Num(v) => Fx::K(Some(*v)),
            CE::Len => Fx::Len,
            CE::Zero | CE::FlagBit(..) | CE::Not(_) => Fx::K(Some(0)),
            CE::Opt(v) => Fx::K(*v),
            CE::Field(f) => match f.kind {
                FieldKind::Int(t) if t.signed() => match self.word(f) {
                    Some(Fx::K(v)) => Fx::K(v.and_then(|v| u64::try_from(sign_extend(v, t)).ok())),
                    Some(w) => Fx::Signed(Box::new(w), t),
                    None => slow(),
                },
                FieldKind::Int(_)
                | FieldKind::Enum(_)
                | FieldKind::Flags(_)
                | FieldKind::Bits(_)
                | FieldKind::Float(_) => self.word(f).unwrap_or_else(slow),
                FieldKind::Bytes(_) | FieldKind::Str(_) | FieldKind::Array(..) => Fx::K(Some(0)),
                _ => slow(),
            },
            CE::Composed(l, h) => match (self.word(l), self.word(h)) {
                (Some(l), Some(h)) => Fx::Composed(Box::new(l), Box::new(h)),
                _ => slow(),
            },
            CE::BitRange(f, lo, mask) => match self.word(f) {
                Some(w) => Fx::Bits(Box::new(w), *lo, *mask),
                None => slow(),
            },
            CE::Bin(op, l, r) => match (self.fx(l), self.fx(r)) {
                (Fx::K(None), _) | (_, Fx::K(None)) => Fx::K(None),
                (Fx::K(Some(a)), Fx::K(Some(b))) => Fx::K(arith(*op, a, b)),
                (a, Fx::K(Some(d))) if matches!(op, BinOp::Div | BinOp::Rem) => {
                    match (op, Recip::new(d)) {
                        (BinOp::Div, Some(r)) => Fx::DivK(Box::new(a), r),
                        (_, Some(r)) => Fx::RemK(Box::new(a), r),
                        _ => Fx::Bin(*op, Box::new(a), Box::new(Fx::K(Some(d)))),
                    }
                }
                (a, b) => Fx::Bin(*op, Box::new(a), Box::new(b)),
            },
            CE::Let(i) => Fx::Let(*i),
            CE::End(i) if self.placed_anew(*i) => slow(),
            CE::End(i) => match self.located_at.borrow().get(*i).copied().flatten() {
                Some((at, size)) => Fx::K(at.checked_add(size)),
                None => Fx::End(*i),
            },
            CE::If(c, a, b) => match self.fc(c) {
                Fc::K(true) => self.fx(a),
                Fc::K(false) => self.fx(b),
                Fc::Cmp(op, x, k) if matches!(*k, Fx::K(Some(_))) => {
                    let Fx::K(Some(k)) = *k else {
                        return slow();
                    };
                    Fx::Sel(op, x, k, Box::new(self.fx(a)), Box::new(self.fx(b)))
                }
                c => Fx::If(Box::new(c), Box::new(self.fx(a)), Box::new(self.fx(b))),
            },
            _ => slow(),
        }
    }

    #[allow(unreachable_patterns)]
    fn fc(&self, e: &CE) -> Fc {
        match e {
            CE::FlagBit(f, mask) => match self.word(f) {
                _ if *mask == 0 => Fc::K(false),
                Some(Fx::K(v)) => Fc::K(v.is_some_and(|v| v & mask == *mask)),
                Some(w) => Fc::Flag(Box::new(w), *mask),
                None => Fc::Slow(e.clone()),
            },
            CE::Bin(BinOp::LogAnd, l, r) => match (self.fc(l), self.fc(r)) {
                (Fc::K(false), _) => Fc::K(false),
                (Fc::K(true), r) => r,
                (l, r) => Fc::And(Box::new(l), Box::new(r)),
            },
            CE::Bin(BinOp::LogOr, l, r) => match (self.fc(l), self.fc(r)) {
                (Fc::K(true), _) => Fc::K(true),
                (Fc::K(false), r) => r,
                (l, r) => Fc::Or(Box::new(l), Box::new(r)),
            },
            CE::Bin(op, l, r) if op.is_comparison() => self.compared(*op, l, r),
            CE::Not(x) => match self.fc(x) {
                Fc::K(b) => Fc::K(!b),
                x => Fc::Not(Box::new(x)),
            },
            CE::Num(_)
            | CE::Len
            | CE::Zero
            | CE::Opt(_)
            | CE::Field(_)
            | CE::Composed(..)
            | CE::BitRange(..)
            | CE::Bin(..)
            | CE::Count(_)
            | CE::End(_)
            | CE::If(..)
            | CE::Let(_) => Fc::K(false),
            _ => Fc::Slow(e.clone()),
        }
    }

    /// `l op r` as a condition: decided when both are constants, or when one is the
    /// pinned key word (or the key shifted right by a constant) and the other a constant.
    fn compared(&self, op: BinOp, l: &CE, r: &CE) -> Fc {
        match (self.fx_shr(l), self.fx_shr(r)) {
            (Fx::K(a), Fx::K(b)) => {
                Fc::K(matches!((a, b), (Some(a), Some(b)) if compare(op, a, b)))
            }
            (Fx::Abs(at, w), Fx::K(Some(k))) => self.keyed(op, at, w, k, false),
            (Fx::K(Some(k)), Fx::Abs(at, w)) => self.keyed(op, at, w, k, true),
            (x, Fx::K(Some(k))) if shr_of_abs(&x).is_some() => self.keyed_shr(op, x, k, false),
            (Fx::K(Some(k)), x) if shr_of_abs(&x).is_some() => self.keyed_shr(op, x, k, true),
            (a, b) => Fc::Cmp(
                Op::of(op),
                Box::new(self.memoised(a)),
                Box::new(self.memoised(b)),
            ),
        }
    }

    /// A value as [`Self::fx`] lowers it, except that a header word shifted right by a
    /// constant is left as it is (not made a run-invariant value), for
    /// [`Self::compared`].
    fn fx_shr(&self, e: &CE) -> Fx {
        let x = self.fx_raw(e);
        if shr_of_abs(&x).is_some() {
            x
        } else {
            self.memoised(x)
        }
    }

    /// `word >> s op k` (`k op word >> s` when `swapped`): decided when the word is the
    /// pinned key, else kept. The outcome changes only where `word >> s` crosses `k`, at
    /// `k << s` and `(k + 1) << s`: both are noted as split points of the key's values.
    fn keyed_shr(&self, op: BinOp, x: Fx, k: u64, swapped: bool) -> Fc {
        let Some((at, w, s)) = shr_of_abs(&x) else {
            return Fc::Cmp(Op::of(op), Box::new(x), Box::new(Fx::K(Some(k))));
        };
        for edge in [Some(k), k.checked_add(1)].into_iter().flatten() {
            // A split at `edge << s` is noted as a comparison with `(edge << s) - 1`
            // (`key` splits at `c` and `c + 1`).
            if let Some(e) = edge.checked_shl(s).filter(|e| e >> s == edge && *e > 0) {
                self.cmps.borrow_mut().push((at, w, e - 1));
            }
        }
        match self.pin {
            Some((pa, pw, v)) if pa == at && pw == w => {
                let v = v >> s;
                Fc::K(if swapped {
                    compare(op, k, v)
                } else {
                    compare(op, v, k)
                })
            }
            _ => {
                let (a, b) = (Box::new(self.memoised(x)), Box::new(Fx::K(Some(k))));
                if swapped {
                    Fc::Cmp(Op::of(op), b, a)
                } else {
                    Fc::Cmp(Op::of(op), a, b)
                }
            }
        }
    }

    /// A comparison of the header word at `at` with constant `k` (`k op word` when
    /// `swapped`): decided when the word is the pinned key, else kept (and noted).
    fn keyed(&self, op: BinOp, at: u64, w: W, k: u64, swapped: bool) -> Fc {
        self.cmps.borrow_mut().push((at, w, k));
        match self.pin {
            Some((pa, pw, v)) if pa == at && pw == w => Fc::K(if swapped {
                compare(op, k, v)
            } else {
                compare(op, v, k)
            }),
            _ => {
                let (a, b) = (Box::new(Fx::Abs(at, w)), Box::new(Fx::K(Some(k))));
                if swapped {
                    Fc::Cmp(Op::of(op), b, a)
                } else {
                    Fc::Cmp(Op::of(op), a, b)
                }
            }
        }
    }

    /// The size of gated struct `sidx` when its gate `g` is the pinned key word; its
    /// layout's thresholds are noted as split points of a header word gate's values.
    fn gated_size(&self, sidx: usize, g: &Fx) -> Option<u64> {
        let Fx::Abs(at, w) = *g else { return None };
        let table = self.p.gates.get(sidx)?.as_ref()?;
        for &s in table.starts.iter().filter(|&&s| s > 0) {
            self.cmps.borrow_mut().push((at, w, s - 1));
        }
        match self.pin {
            Some((pa, pw, v)) if pa == at && pw == w => table.sizes.get(table.pick(v)).copied(),
            _ => None,
        }
    }

    fn lim(&self, e: &CE) -> Lim {
        match self.fx(e) {
            Fx::Len => Lim::Len,
            x => Lim::X(x),
        }
    }

    /// A comparison of two lowered values as a check: fused when it is a word against a
    /// constant.
    fn cmp_chk(op: Op, l: Fx, r: Fx) -> Chk {
        match (l, r) {
            (Fx::Abs(at, w), Fx::K(Some(k))) => Chk::CmpAbs(op, at, w, k),
            (Fx::Rec(off, w), Fx::K(Some(k))) => Chk::CmpRec(op, off, w, k),
            (l, r) => Chk::Assert(op, l, r),
        }
    }

    fn step(&self, s: &CStep) -> FStep {
        let chk = |k: Chk| FStep::Check(Box::new(k), Box::new(s.clone()));
        match s {
            CStep::MinLen { min, .. } => chk(Chk::MinLen(self.fx(min))),
            CStep::Expect {
                found, expected, ..
            } => match (self.fx(found), self.fx(expected)) {
                // `expected == Some(found)`: a word is always there, a constant too.
                (Fx::Abs(at, w), Fx::K(Some(k))) => chk(Chk::CmpAbs(Op::of(BinOp::Eq), at, w, k)),
                (f, e) => chk(Chk::Expect(f, e)),
            },
            CStep::Assert { op, l, r, .. } => match self.compared(*op, l, r) {
                Fc::K(b) => chk(Chk::Cond(Fc::K(b))),
                Fc::Cmp(op, l, r) => chk(Self::cmp_chk(op, *l, *r)),
                c => chk(Chk::Cond(c)),
            },
            CStep::Cond { cond, .. } => chk(Chk::Cond(self.fc(cond))),
            CStep::FlagsKnown { field, known, .. } => match self.word(field) {
                Some(w) => chk(Chk::FlagsKnown(w, *known)),
                None => FStep::Slow(Box::new(s.clone())),
            },
            CStep::EnumKnown { field, values, .. } => match self.word(field) {
                Some(w) => chk(Chk::EnumKnown(w, Known::new(values))),
                None => FStep::Slow(Box::new(s.clone())),
            },
            CStep::TableFits {
                table,
                rec_size,
                at,
                count,
                stride,
                within,
                ..
            } => chk(Chk::TableFits {
                table: *table,
                rec_size: *rec_size,
                at: self.fx(at),
                count: self.fx(count),
                stride: self.fx(stride),
                within: self.lim(within),
            }),
            CStep::RangeFits {
                range,
                per_record,
                when,
                start,
                length,
                within,
                ..
            } => match (when, self.fx(start), self.fx(length)) {
                (None, Fx::Rec(so, sw), Fx::Rec(lo, lw)) => chk(Chk::RangeRec {
                    range: *range,
                    per_record: *per_record,
                    start: (so, sw),
                    length: (lo, lw),
                    within: self.lim(within),
                }),
                _ => chk(Chk::RangeFits {
                    range: *range,
                    per_record: *per_record,
                    when: when.as_ref().map(|w| self.fc(w)),
                    start: self.fx(start),
                    length: self.fx(length),
                    within: self.lim(within),
                }),
            },
            // A searched record: the generic path (a loop, not one placement); a record per
            // record too (placed anew for each).
            CStep::RecordFits {
                search: Some(_), ..
            } => FStep::Slow(Box::new(s.clone())),
            CStep::RecordFits { rec, .. } if self.placed_anew(*rec) => {
                FStep::Slow(Box::new(s.clone()))
            }
            CStep::RecordFits {
                rec,
                sidx,
                at,
                within,
                gate,
                size,
                ..
            } => {
                let gate = gate.as_ref().map(|g| self.fx(g));
                chk(Chk::RecordFits {
                    rec: *rec,
                    sidx: *sidx,
                    at: self.fx(at),
                    within: self.lim(within),
                    gated: gate.as_ref().and_then(|g| self.gated_size(*sidx, g)),
                    gate,
                    size: *size,
                })
            }
            CStep::Items {
                off,
                ity,
                big,
                n,
                first,
                op,
                rhs,
                ..
            } => chk(Chk::Items {
                off: *off,
                w: W::of(*ity, *big),
                ity: *ity,
                n: *n,
                first: first.as_ref().map(|e| self.fx(e)),
                op: Op::of(*op),
                rhs: self.fx(rhs),
            }),
            CStep::Let { i, value } => FStep::Let(*i, self.fx(value)),
            CStep::When { cond, step } => FStep::When(self.fc(cond), Box::new(self.step(step))),
            CStep::ForEachTable { table, steps } => {
                let body: Vec<FStep> = steps.iter().map(|x| self.step(x)).collect();
                if let [FStep::Check(k, orig)] = body.as_slice()
                    && let Chk::RangeRec {
                        per_record: true,
                        start,
                        length,
                        within: Lim::Len,
                        ..
                    } = &**k
                {
                    return FStep::RangeEach {
                        table: *table,
                        rec_size: self.p.table_rec_size.get(*table).copied().unwrap_or(0),
                        start: *start,
                        length: *length,
                        orig: orig.clone(),
                    };
                }
                FStep::ForEachTable {
                    table: *table,
                    slots: steps
                        .iter()
                        .filter_map(|x| match x {
                            CStep::Order { slot, .. } => Some(*slot),
                            _ => None,
                        })
                        .collect(),
                    flat: body.iter().all(|x| matches!(x, FStep::Check(..))),
                    body,
                }
            }
            _ => FStep::Slow(Box::new(s.clone())),
        }
    }
}

// ----- running -----------------------------------------------------------------------------

impl State<'_> {
    /// A lowered value. The leaves are decided here, inlined where the value is needed (a
    /// branch at each use predicts far better than one shared dispatch); the rest in
    /// [`Self::fx_node`].
    #[inline(always)]
    fn fx(&self, p: &FileProg<'_>, e: &Fx) -> Option<u64> {
        match e {
            Fx::K(v) => *v,
            Fx::Len => Some(self.len),
            Fx::Abs(at, w) => Some(w.read(self.buf, *at)),
            Fx::Rec(off, w) => Some(w.read(self.buf, self.rec_at.saturating_add(*off))),
            Fx::Elem(t, k, off, w) => {
                let (at, n, stride) = (*self.tables.get(*t)?)?;
                if *k >= n {
                    return None;
                }
                let rat = at.saturating_add(k.saturating_mul(stride));
                Some(w.read(self.buf, rat.saturating_add(*off)))
            }
            Fx::Memo(i) => self.lets.get(p.lets.saturating_add(*i)).copied().flatten(),
            _ => self.fx_node(p, e),
        }
    }

    #[inline(never)]
    fn fx_node(&self, p: &FileProg<'_>, e: &Fx) -> Option<u64> {
        match e {
            Fx::K(v) => *v,
            Fx::Len => Some(self.len),
            Fx::Abs(at, w) => Some(w.read(self.buf, *at)),
            Fx::Rec(off, w) => Some(w.read(self.buf, self.rec_at.saturating_add(*off))),
            Fx::Loc(i, off, w) => {
                let (at, _, _) = (*self.located.get(*i)?)?;
                Some(w.read(self.buf, at.saturating_add(*off)))
            }
            Fx::Elem(t, k, off, w) => {
                let (at, n, stride) = (*self.tables.get(*t)?)?;
                if *k >= n {
                    return None;
                }
                let rat = at.saturating_add(k.saturating_mul(stride));
                Some(w.read(self.buf, rat.saturating_add(*off)))
            }
            Fx::Signed(x, t) => u64::try_from(sign_extend(self.fx(p, x)?, *t)).ok(),
            Fx::Bits(x, lo, mask) => Some(
                self.fx(p, x)?
                    .checked_shr(u32::try_from(*lo).unwrap_or(u32::MAX))
                    .unwrap_or(0)
                    & mask,
            ),
            Fx::Composed(l, h) => Some(self.fx(p, l)? | (self.fx(p, h)? << 32)),
            Fx::Bin(op, l, r) => {
                let a = self.fx(p, l)?;
                let b = self.fx(p, r)?;
                arith(*op, a, b)
            }
            Fx::DivK(x, r) => Some(r.div(self.fx(p, x)?)),
            Fx::RemK(x, r) => Some(r.rem(self.fx(p, x)?)),
            Fx::If(c, a, b) => {
                if self.fc(p, c) {
                    self.fx(p, a)
                } else {
                    self.fx(p, b)
                }
            }
            Fx::Sel(op, x, k, a, b) => {
                if self.fx(p, x).is_some_and(|v| op.test(v, *k)) {
                    self.fx(p, a)
                } else {
                    self.fx(p, b)
                }
            }
            Fx::Let(i) => self.lets.get(*i).copied().flatten(),
            Fx::End(i) => {
                let (at, size, _) = (*self.located.get(*i)?)?;
                at.checked_add(size)
            }
            Fx::Memo(i) => self.lets.get(p.lets.saturating_add(*i)).copied().flatten(),
            Fx::Slow(e) => self.val(p, e),
        }
    }

    /// A run-invariant value: as [`Self::fx`], a header word divided by a constant (or
    /// its remainder, the usual such value) in line.
    #[inline(always)]
    fn memo(&self, p: &FileProg<'_>, m: &Fx) -> Option<u64> {
        match m {
            Fx::DivK(x, r) if let Fx::Abs(at, w) = **x => Some(r.div(w.read(self.buf, at))),
            Fx::RemK(x, r) if let Fx::Abs(at, w) = **x => Some(r.rem(w.read(self.buf, at))),
            _ => self.fx(p, m),
        }
    }

    /// Run a placement of run-invariant values ([`Chk::TableFits`], [`Chk::RecordFits`]
    /// as [`Self::chk`] runs them): `true` when it passes, its slot set.
    #[inline]
    fn place(&mut self, p: &FileProg<'_>, vals: &RunVals, pl: &Place<usize>) -> bool {
        let v = |i: usize| vals.get(i);
        match *pl {
            Place::Table {
                table,
                rec_size,
                at,
                count,
                stride,
                within,
            } => {
                let (a, n, s, w) = (v(at), v(count), v(stride), v(within));
                match (a, n, s, w, self.tables.get_mut(table)) {
                    (Some(a), Some(n), Some(s), Some(w), Some(x))
                        if table_within(self.buf, a, n, s, w, rec_size) =>
                    {
                        *x = Some((a, n, s));
                        true
                    }
                    _ => false,
                }
            }
            Place::Record {
                rec,
                sidx,
                at,
                within,
                gate,
                size,
                gated,
            } => {
                let (a, w) = (v(at), v(within));
                let parts = match gate {
                    Some(g) => match (a, v(g), w) {
                        (Some(a), Some(g), Some(w)) => {
                            let n = gated.unwrap_or_else(|| {
                                p.gates
                                    .get(sidx)
                                    .and_then(Option::as_ref)
                                    .and_then(|t| t.sizes.get(t.pick(g)).copied())
                                    .unwrap_or(0)
                            });
                            npuschema_core::range_within(self.buf, a, n, w).map(|_| (a, n, g))
                        }
                        _ => None,
                    },
                    None => match (a, w) {
                        (Some(a), Some(w)) if w.checked_sub(a).is_some_and(|room| room >= size) => {
                            npuschema_core::range_at(self.buf, a, size).map(|_| (a, size, 0))
                        }
                        _ => None,
                    },
                };
                match (parts, self.located.get_mut(rec)) {
                    (Some(x), Some(slot)) => {
                        *slot = Some(x);
                        true
                    }
                    _ => false,
                }
            }
        }
    }

    /// A `within` limit.
    #[inline(always)]
    fn lim(&self, p: &FileProg<'_>, l: &Lim) -> Option<u64> {
        match l {
            Lim::Len => Some(self.len),
            Lim::X(x) => self.fx(p, x),
        }
    }

    fn fc(&self, p: &FileProg<'_>, c: &Fc) -> bool {
        match c {
            Fc::K(b) => *b,
            Fc::Flag(x, mask) => self.fx(p, x).is_some_and(|v| v & mask == *mask),
            Fc::And(l, r) => self.fc(p, l) && self.fc(p, r),
            Fc::Or(l, r) => self.fc(p, l) || self.fc(p, r),
            Fc::Not(x) => !self.fc(p, x),
            Fc::Cmp(op, l, r) => {
                matches!((self.fx(p, l), self.fx(p, r)), (Some(a), Some(b)) if op.test(a, b))
            }
            Fc::Slow(e) => self.cond(p, e),
        }
    }

    /// Run a lowered check: `true` when it passes (its effect applied).
    #[allow(clippy::too_many_lines)]
    #[inline(always)]
    fn chk(&mut self, p: &FileProg<'_>, k: &Chk) -> bool {
        match k {
            Chk::CmpAbs(op, at, w, k) => op.test(w.read(self.buf, *at), *k),
            Chk::CmpRec(op, off, w, k) => {
                op.test(w.read(self.buf, self.rec_at.saturating_add(*off)), *k)
            }
            Chk::MinLen(min) => matches!(self.fx(p, min), Some(n) if self.len >= n),
            Chk::Expect(found, expected) => {
                let found = self.fx(p, found).unwrap_or(u64::MAX);
                self.fx(p, expected) == Some(found)
            }
            Chk::Assert(op, l, r) => {
                matches!((self.fx(p, l), self.fx(p, r)), (Some(a), Some(b)) if op.test(a, b))
            }
            Chk::Cond(c) => self.fc(p, c),
            Chk::FlagsKnown(x, known) => self.fx(p, x).unwrap_or(0) & !known == 0,
            Chk::EnumKnown(x, known) => known.has(self.fx(p, x).unwrap_or(0)),
            Chk::TableFits {
                table,
                rec_size,
                at,
                count,
                stride,
                within,
            } => {
                let (a, n, s, w) = (
                    self.fx(p, at),
                    self.fx(p, count),
                    self.fx(p, stride),
                    self.lim(p, within),
                );
                match (a, n, s, w) {
                    (Some(a), Some(n), Some(s), Some(w))
                        if table_within(self.buf, a, n, s, w, *rec_size) =>
                    {
                        match self.tables.get_mut(*table) {
                            Some(x) => {
                                *x = Some((a, n, s));
                                true
                            }
                            None => false,
                        }
                    }
                    _ => false,
                }
            }
            Chk::RangeFits {
                range,
                per_record,
                when,
                start,
                length,
                within,
            } => {
                if let Some(w) = when
                    && !self.fc(p, w)
                {
                    if !*per_record && let Some(x) = self.ranges.get_mut(*range) {
                        *x = None;
                    }
                    return true;
                }
                let (s, l, w) = (self.fx(p, start), self.fx(p, length), self.lim(p, within));
                let (Some(s), Some(l), Some(w)) = (s, l, w) else {
                    return false;
                };
                if npuschema_core::range_within(self.buf, s, l, w).is_none() {
                    return false;
                }
                if !*per_record {
                    match self.ranges.get_mut(*range) {
                        Some(x) => *x = Some((s, l)),
                        None => return false,
                    }
                }
                true
            }
            Chk::RangeRec {
                range,
                per_record,
                start: (so, sw),
                length: (lo, lw),
                within,
            } => {
                let s = sw.read(self.buf, self.rec_at.saturating_add(*so));
                let l = lw.read(self.buf, self.rec_at.saturating_add(*lo));
                let Some(w) = self.lim(p, within) else {
                    return false;
                };
                if npuschema_core::range_within(self.buf, s, l, w).is_none() {
                    return false;
                }
                if !*per_record {
                    match self.ranges.get_mut(*range) {
                        Some(x) => *x = Some((s, l)),
                        None => return false,
                    }
                }
                true
            }
            Chk::RecordFits {
                rec,
                sidx,
                at,
                within,
                gate,
                size,
                gated,
            } => {
                let (a, w) = (self.fx(p, at), self.lim(p, within));
                let parts = if let Some(g) = gate {
                    let table = p.gates.get(*sidx).and_then(Option::as_ref);
                    match (a, self.fx(p, g), w) {
                        (Some(a), Some(g), Some(w)) => {
                            let n = gated.unwrap_or_else(|| {
                                table
                                    .and_then(|t| t.sizes.get(t.pick(g)).copied())
                                    .unwrap_or(0)
                            });
                            npuschema_core::range_within(self.buf, a, n, w).map(|_| (a, n, g))
                        }
                        _ => None,
                    }
                } else {
                    match (a, w) {
                        (Some(a), Some(w))
                            if w.checked_sub(a).is_some_and(|room| room >= *size) =>
                        {
                            npuschema_core::range_at(self.buf, a, *size).map(|_| (a, *size, 0))
                        }
                        _ => None,
                    }
                };
                match (parts, self.located.get_mut(*rec)) {
                    (Some(x), Some(slot)) => {
                        *slot = Some(x);
                        true
                    }
                    _ => false,
                }
            }
            Chk::Items {
                off,
                w,
                ity,
                n,
                first,
                op,
                rhs,
            } => {
                let first = match first {
                    Some(e) => self.fx(p, e).unwrap_or(u64::MAX),
                    None => *n,
                };
                let base = self.rec_at.saturating_add(*off);
                let width = ity.bytes();
                let count = (*n).min(first);
                if count == 0 {
                    return true;
                }
                // The right-hand side is the same for every item (it cannot name one).
                let Some(b) = self.fx(p, rhs) else {
                    return false;
                };
                (0..count).all(|k| {
                    let item = widen(
                        w.read(self.buf, base.saturating_add(k.saturating_mul(width))),
                        *ity,
                    );
                    op.test(item, b)
                })
            }
        }
    }
}

/// Lowered checks that failed where the generic path, run on the same state, passed: a
/// disagreement of the two paths (0 unless one of them has a bug).
static DISAGREED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Whether this thread runs the generic path only ([`Interp::on_generic_path`]).
    static GENERIC: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The parts of a state a run leaves behind, for comparing two runs.
#[cfg(debug_assertions)]
type Outcome = (
    Vec<Option<(u64, u64, u64)>>,
    Vec<Option<(u64, u64, u64)>>,
    Vec<Option<(u64, u64)>>,
    Vec<Vec<u32>>,
    Vec<Vec<u32>>,
    Vec<Vec<Option<(u64, u64, u64)>>>,
    Vec<Option<u64>>,
    Vec<Option<u64>>,
);

#[cfg(debug_assertions)]
fn outcome(st: State<'_>) -> Outcome {
    (
        st.located.to_vec(),
        st.tables.to_vec(),
        st.ranges.to_vec(),
        st.dcount,
        st.dfirst,
        st.want,
        st.lets.to_vec(),
        st.prev.to_vec(),
    )
}

impl<'c> Interp<'c> {
    /// How many times, in this process, a lowered check failed and the generic path then
    /// passed the same step (it is the generic path's verdict that stands). Tests hold it
    /// at 0; it is no part of the interpreter's contract.
    #[doc(hidden)]
    #[must_use]
    pub fn fast_path_disagreements() -> u64 {
        DISAGREED.load(Ordering::Relaxed)
    }

    /// [`Self::check`]: `run`'s layouts and variant choice, each state used in place (no
    /// state is moved).
    pub(super) fn check_in_place<E: Report>(&self, buf: &[u8]) -> Result<(), E> {
        let mut st = State::fresh(&self.top, buf);
        self.run_in(&self.top, &mut st)?;
        let Some(vs) = &self.variants else {
            return Ok(());
        };
        if let Some((_, _, prog)) = self.choose(&st).and_then(|i| vs.list.get(i)) {
            st.reset(prog);
            return self.run_in(prog, &mut st);
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

    /// The variant that holds after the top-level layout's run (the first whose condition
    /// holds), if any: by the key word's interval when it decides it.
    pub(super) fn choose(&self, st: &State<'_>) -> Option<usize> {
        let vs = self.variants.as_ref()?;
        let each = || {
            vs.list
                .iter()
                .enumerate()
                .position(|(i, (_, cond, _))| self.variant_holds(st, i, cond))
        };
        if GENERIC.with(std::cell::Cell::get) {
            return each();
        }
        match self.top.fast.choice.as_ref().and_then(|c| c.pick(st.buf)) {
            Some(pick) => {
                debug_assert_eq!(pick, each(), "the key word's choice of variant");
                pick
            }
            None => each(),
        }
    }

    /// Whether variant `i` (condition `cond`) holds after the top-level layout's run.
    pub(super) fn variant_holds(&self, st: &State<'_>, i: usize, cond: &CE) -> bool {
        match self.top.fast.variants.get(i) {
            Some(c) if !GENERIC.with(std::cell::Cell::get) => st.fc(&self.top, c),
            _ => st.cond(&self.top, cond),
        }
    }

    /// Run `f` with the interpreters on this thread taking the generic path only (every
    /// step as compiled, none lowered): the reference the lowered path is held to in tests.
    #[doc(hidden)]
    pub fn on_generic_path<T>(f: impl FnOnce() -> T) -> T {
        let was = GENERIC.with(|g| g.replace(true));
        let r = f();
        GENERIC.with(|g| g.set(was));
        r
    }

    /// Run one file layout's steps: lowered, or (see [`Self::on_generic_path`]) generic.
    /// Debug builds run both on copies of the state first and assert that they agree:
    /// the same verdict, the same error, the same state left behind.
    pub(super) fn exec_file<E: Report>(
        &self,
        p: &FileProg<'c>,
        st: &mut State<'_>,
    ) -> Result<(), E> {
        if GENERIC.with(std::cell::Cell::get) {
            return self.exec(p, &p.steps, st);
        }
        // A file whose header chose big-endian: the steps lowered for that order.
        let prog = match (&p.fast.big, st.big) {
            (Some(b), true) => &**b,
            _ => &p.fast,
        };
        let body = prog.body(st.buf);
        // The values the guard and the placements read: the constants, the length, the
        // run-invariant values (in order: one may use those before it), the header words.
        let mut vals = RunVals::zero();
        vals.load(&body.vals);
        vals.set(0, Some(st.len));
        for (i, m) in body.memos.iter().enumerate() {
            let v = st.memo(p, m);
            if let Some(x) = st.lets.get_mut(p.lets.saturating_add(i)) {
                *x = v;
            }
            vals.set(i.saturating_add(1), v);
        }
        for &(i, at, w) in &body.vals.reads {
            vals.set(i, Some(w.read(st.buf, at)));
        }
        let steps =
            if guard(&vals, &body.guard) && body.places.iter().all(|x| st.place(p, &vals, x)) {
                &body.rest
            } else {
                &body.steps
            };
        #[cfg(debug_assertions)]
        {
            let (mut a, mut b) = (st.clone(), st.clone());
            let fast = self.exec_fast::<npuschema_core::Error>(p, steps, &mut a);
            let generic = self.exec::<npuschema_core::Error>(p, &p.steps, &mut b);
            debug_assert_eq!(fast, generic, "lowered and generic steps disagree");
            if generic.is_ok() {
                // The named values only: the slots past them hold the run-invariant ones.
                a.lets.truncate(p.lets);
                b.lets.truncate(p.lets);
                debug_assert!(
                    outcome(a) == outcome(b),
                    "lowered and generic steps leave different states"
                );
            }
        }
        self.exec_fast(p, steps, st)
    }

    /// A lowered check failed: the generic path runs the original step on the same state
    /// and reports the failure.
    #[cold]
    #[inline(never)]
    fn report<E: Report>(
        &self,
        p: &FileProg<'c>,
        orig: &CStep,
        st: &mut State<'_>,
    ) -> Result<(), E> {
        let r = self.exec(p, std::slice::from_ref(orig), st);
        if r.is_ok() {
            DISAGREED.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    /// Run lowered steps; a failing check is reported by the generic path.
    pub(super) fn exec_fast<E: Report>(
        &self,
        p: &FileProg<'c>,
        steps: &[FStep],
        st: &mut State<'_>,
    ) -> Result<(), E> {
        for s in steps {
            // Checks (most steps) in line; the rest in `fstep`.
            if let FStep::Check(k, orig) = s {
                if !st.chk(p, k) {
                    // The generic path's verdict stands (it passes only on a disagreement,
                    // which is counted).
                    self.report(p, orig, st)?;
                }
            } else {
                self.fstep(p, s, st)?;
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn fstep<E: Report>(&self, p: &FileProg<'c>, s: &FStep, st: &mut State<'_>) -> Result<(), E> {
        match s {
            FStep::Slow(c) => self.exec(p, std::slice::from_ref(&**c), st),
            FStep::Check(..) => self.exec_fast(p, std::slice::from_ref(s), st),
            FStep::Let(i, v) => {
                let v = st.fx(p, v);
                if let Some(x) = st.lets.get_mut(*i) {
                    *x = v;
                }
                Ok(())
            }
            FStep::When(c, inner) => {
                if st.fc(p, c) {
                    self.exec_fast(p, std::slice::from_ref(&**inner), st)
                } else {
                    Ok(())
                }
            }
            FStep::RangeEach {
                table,
                rec_size,
                start: (so, sw),
                length: (lo, lw),
                orig,
            } => {
                let Some((at, n, stride)) = st.tables.get(*table).copied().flatten() else {
                    return Ok(());
                };
                let (buf, len) = (st.buf, st.len);
                // The usual table: its rows back to back in the buffer, both words 4-byte
                // little-endian in the row; the loop below only from the first failing
                // record on.
                let rows = (stride == *rec_size)
                    .then(|| rows_le32(buf, at, n, *rec_size, (*so, *sw), (*lo, *lw)))
                    .flatten();
                let from = match rows {
                    Some(rows) => match first_bad_range(buf, len, rows, *so, *lo) {
                        Some(i) => i,
                        None => return Ok(()),
                    },
                    None => 0,
                };
                let saved = (st.rec_at, st.rec_index);
                for i in from..n {
                    let rec_at = at.saturating_add(i.saturating_mul(stride));
                    let s = sw.read(buf, rec_at.saturating_add(*so));
                    let l = lw.read(buf, rec_at.saturating_add(*lo));
                    if npuschema_core::range_within(buf, s, l, len).is_none() {
                        (st.rec_at, st.rec_index) = (rec_at, i);
                        self.report(p, orig, st)?;
                    }
                }
                (st.rec_at, st.rec_index) = saved;
                Ok(())
            }
            FStep::ForEachTable {
                table,
                slots,
                body,
                flat,
                ..
            } => {
                for s in slots {
                    if let Some(x) = st.prev.get_mut(*s) {
                        *x = None;
                    }
                }
                let Some((at, n, stride)) = st.tables.get(*table).copied().flatten() else {
                    return Ok(());
                };
                let saved = (st.rec_at, st.rec_index);
                if *flat {
                    for i in 0..n {
                        st.rec_at = at.saturating_add(i.saturating_mul(stride));
                        st.rec_index = i;
                        for s in body {
                            if let FStep::Check(k, orig) = s
                                && !st.chk(p, k)
                            {
                                self.report(p, orig, st)?;
                            }
                        }
                    }
                } else {
                    for i in 0..n {
                        st.rec_at = at.saturating_add(i.saturating_mul(stride));
                        st.rec_index = i;
                        self.exec_fast(p, body, st)?;
                    }
                }
                (st.rec_at, st.rec_index) = saved;
                Ok(())
            }
        }
    }
}

/// Whether every run-invariant comparison passes on the run's values (all are run: no
/// jump per check).
#[inline]
fn guard(vals: &RunVals, guard: &[Pure<usize>]) -> bool {
    let v = |i: usize| vals.get(i);
    let mut ok = true;
    for g in guard {
        ok &= matches!((v(g.a), v(g.b)), (Some(a), Some(b)) if g.op.test(a, b));
    }
    ok
}

/// The `n` rows of `size` bytes at `at`, when they lie in `buf` and both words (offset and
/// reading) are 4-byte little-endian words inside a row: the shape
/// [`first_bad_range`] reads.
fn rows_le32(
    buf: &[u8],
    at: u64,
    n: u64,
    size: u64,
    (so, sw): (u64, W),
    (lo, lw): (u64, W),
) -> Option<(&[u8], usize)> {
    let le32 = W::of(IntTy::U32, false);
    if sw != le32 || lw != le32 {
        return None;
    }
    let size = usize::try_from(size).ok().filter(|&s| s > 0)?;
    let fits = |o: u64| {
        usize::try_from(o)
            .ok()?
            .checked_add(4)
            .filter(|&e| e <= size)
    };
    fits(so)?;
    fits(lo)?;
    let start = usize::try_from(at).ok()?;
    let total = usize::try_from(n).ok()?.checked_mul(size)?;
    Some((buf.get(start..start.checked_add(total)?)?, size))
}

/// The first row whose range (4-byte little-endian start at `so`, length at `lo`) does not
/// lie within the first `len` bytes of `buf` (`range_fits`), or `None`.
#[inline(never)]
fn first_bad_range(
    buf: &[u8],
    len: u64,
    (rows, size): (&[u8], usize),
    so: u64,
    lo: u64,
) -> Option<u64> {
    let (so, lo) = (usize::try_from(so).ok()?, usize::try_from(lo).ok()?);
    let word = |row: &[u8], o: usize| {
        row.get(o..)
            .and_then(<[u8]>::first_chunk::<4>)
            .map_or(0, |b| u64::from(u32::from_le_bytes(*b)))
    };
    // `range_within(buf, s, l, len)` for words below 2^32: `s + l` (no overflow) within
    // both the limit and the buffer.
    let lim = len.min(u64::try_from(buf.len()).unwrap_or(u64::MAX));
    rows.chunks_exact(size)
        .position(|row| word(row, so) + word(row, lo) > lim)
        .map(|i| i as u64)
}

// ----- state storage -----------------------------------------------------------------------

impl<'b> State<'b> {
    /// A state at the start of file layout `p` over `buf`: its slots sized for the layout
    /// (held in the state itself, `slots.rs`), all empty.
    #[inline]
    pub(super) fn fresh(p: &FileProg<'_>, buf: &'b [u8]) -> Self {
        let [records, tables, ranges] = p.fast.slot_lens;
        // (Most layouts have no directory and no record checksum: nothing to make.)
        let dirs = |x: u32| -> Vec<Vec<u32>> {
            if p.dirs.is_empty() {
                return Vec::new();
            }
            p.dirs.iter().map(|d| vec![x; d.type_slots.len()]).collect()
        };
        State {
            buf,
            len: u64::try_from(buf.len()).unwrap_or(u64::MAX),
            located: Slots::new(records),
            tables: Slots::new(tables),
            ranges: Slots::new(ranges),
            dcount: dirs(0),
            dfirst: dirs(u32::MAX),
            want: if p.want_slots == 0 {
                Vec::new()
            } else {
                vec![Vec::new(); p.want_slots]
            },
            rec_at: 0,
            rec_index: 0,
            rec_span: (0, 0, 0, 0, 0),
            lets: Slots::new(p.lets.saturating_add(p.fast.memo_slots)),
            prev: Slots::new(p.order_slots),
            aggs: super::prog::Aggs::default(),
            big: false,
        }
    }

    /// The state made fresh for file layout `p` over the same buffer, in place: only the
    /// layout's slots are written.
    #[inline]
    fn reset(&mut self, p: &FileProg<'_>) {
        let [records, tables, ranges] = p.fast.slot_lens;
        self.located.reset(records);
        self.tables.reset(tables);
        self.ranges.reset(ranges);
        self.lets.reset(p.lets.saturating_add(p.fast.memo_slots));
        self.prev.reset(p.order_slots);
        if !(p.dirs.is_empty() && self.dcount.is_empty() && self.dfirst.is_empty()) {
            self.dcount = p.dirs.iter().map(|d| vec![0; d.type_slots.len()]).collect();
            self.dfirst = p
                .dirs
                .iter()
                .map(|d| vec![u32::MAX; d.type_slots.len()])
                .collect();
        }
        if p.want_slots > 0 || !self.want.is_empty() {
            self.want = vec![Vec::new(); p.want_slots];
        }
        (self.rec_at, self.rec_index, self.rec_span) = (0, 0, (0, 0, 0, 0, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::{Recip, W};
    use crate::schema::IntTy;

    #[test]
    fn reciprocals_divide_as_the_division() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let divisors = [
            2,
            3,
            7,
            44,
            108,
            116,
            1000,
            65_537,
            0x8000_0000,
            u64::from(u32::MAX),
        ];
        let mut all = divisors.to_vec();
        for _ in 0..200 {
            all.push((next() >> 32).max(2));
        }
        for d in all {
            let r = Recip::new(d).unwrap_or_else(|| panic!("{d}"));
            let edges = [
                0,
                1,
                d - 1,
                d,
                d + 1,
                u64::from(u32::MAX),
                1 << 32,
                u64::MAX,
            ];
            let mut values = edges.to_vec();
            for _ in 0..500 {
                let (v, shift) = (next(), next() % 64);
                values.push(v >> shift);
            }
            for v in values {
                assert_eq!(r.div(v), v / d, "{v} / {d}");
                assert_eq!(r.rem(v), v % d, "{v} % {d}");
            }
        }
        assert!(Recip::new(0).is_none() && Recip::new(1).is_none());
        assert!(Recip::new(1 << 32).is_none());
    }

    /// VPMN v1 compares `header.version` with constants: its steps are lowered once per
    /// interval of versions, split at each constant the schema compares it with, and a
    /// table count that depends only on the version is a constant in every body.
    #[test]
    fn v1_steps_are_specialised_by_the_version() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/vpmn.yaml");
        let c = crate::load(&path).unwrap_or_else(|d| panic!("{d}"));
        let it = super::super::prog::Interp::new(&c);
        let vs = it.variants.as_ref().expect("variants");
        let (_, _, v1) = vs.list.iter().find(|v| v.0 == "v1").expect("v1");
        let k = v1.fast.keyed.as_ref().expect("keyed by the version");
        assert_eq!(k.at, 4);
        for b in [0x0001_0004, 0x0001_000B, 0x0001_000C, 0x0001_000E] {
            assert!(k.starts.contains(&b), "{b:#x} in {:x?}", k.starts);
        }
        assert_eq!(k.bodies.len(), k.starts.len());
        // `12 + if(version >= 0x0001000C, 3, 0) + if(version >= 0x0001000E, 1, 0)`: folded.
        let last = k.bodies.last().expect("a body");
        let fits = format!("{:?}", last.steps);
        assert!(fits.contains("count: K(Some(16))"), "{fits}");
        // No run-invariant value still chooses on the version.
        let memos = format!("{:?}", last.memos);
        assert!(!memos.contains("Sel(") && !memos.contains("If("), "{memos}");
    }

    /// In each version's steps, VPMN v1's run-invariant comparisons (the magic, the I/O
    /// tables' sizes and counts) form the guard and its four placements (the fixed part,
    /// the entries and the two I/O tables) run with it, leaving the three loops and the
    /// byte-ownership check; and the
    /// variant is chosen by the version's interval, v2 for 0x00020000 only.
    #[test]
    fn v1_checks_run_together_and_the_version_chooses_the_variant() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/vpmn.yaml");
        let c = crate::load(&path).unwrap_or_else(|d| panic!("{d}"));
        let it = super::super::prog::Interp::new(&c);
        let vs = it.variants.as_ref().expect("variants");
        let (_, _, v1) = vs.list.iter().find(|v| v.0 == "v1").expect("v1");
        let mut head = b"VPMN".to_vec();
        head.extend_from_slice(&0x0001_0016u32.to_le_bytes());
        let last = v1.fast.body(&head);
        assert_eq!(last.guard.len(), 5, "{:?}", last.guard);
        assert_eq!(last.places.len(), 4, "{:?}", last.places);
        // The three loops, then the byte-ownership check (run by the generic executor).
        assert_eq!(last.rest.len(), 4, "{:?}", last.rest);
        assert!(last.rest[..3].iter().all(|s| matches!(
            s,
            super::FStep::RangeEach { .. } | super::FStep::ForEachTable { .. }
        )));
        assert!(matches!(
            &last.rest[3],
            super::FStep::Slow(s) if matches!(**s, super::CStep::OwnedApart(_))
        ));
        let choice = it.top.fast.choice.as_ref().expect("chosen by the version");
        let v2 = vs.list.iter().position(|v| v.0 == "v2");
        let v1i = vs.list.iter().position(|v| v.0 == "v1");
        let pick = |version: u32| {
            let mut buf = b"VPMN".to_vec();
            buf.extend_from_slice(&version.to_le_bytes());
            choice.pick(&buf).expect("decided")
        };
        assert_eq!(pick(0x0002_0000), v2);
        assert_eq!(pick(0x0002_0001), None);
        assert_eq!(pick(0x0001_0016), v1i);
        assert_eq!(pick(0x0001_0000), v1i);
        assert_eq!(pick(0x0001_FFFF), v1i);
        assert_eq!(pick(0x0000_FFFF), None);
        assert_eq!(pick(0x0003_0000), None);
    }

    /// The per-record `range_fits` loop over 4-byte little-endian words finds the record
    /// the word-by-word reading finds, and declines any other shape.
    #[test]
    fn the_range_loop_finds_the_first_bad_record() {
        let le = W::of(IntTy::U32, false);
        let mut buf = vec![0u8; 64];
        // Four 8-byte records at 16: {start, length}.
        let recs = [(0u32, 16u32), (60, 4), (61, 4), (8, 60)];
        for (i, (s, l)) in recs.iter().enumerate() {
            buf[16 + 8 * i..20 + 8 * i].copy_from_slice(&s.to_le_bytes());
            buf[20 + 8 * i..24 + 8 * i].copy_from_slice(&l.to_le_bytes());
        }
        let rows = super::rows_le32(&buf, 16, 4, 8, (0, le), (4, le)).expect("rows");
        assert_eq!(super::first_bad_range(&buf, 64, rows, 0, 4), Some(2));
        assert_eq!(super::first_bad_range(&buf, 63, rows, 0, 4), Some(1));
        let two = super::rows_le32(&buf, 16, 2, 8, (0, le), (4, le)).expect("rows");
        assert_eq!(super::first_bad_range(&buf, 64, two, 0, 4), None);
        // As `range_within` row by row, at every limit and with words near 2^32.
        let mut big = vec![0u8; 48];
        let recs = [
            (0u32, 40u32),
            (40, 8),
            (u32::MAX, 1),
            (1, u32::MAX),
            (47, 1),
            (48, 0),
        ];
        for (i, (s, l)) in recs.iter().enumerate() {
            big[8 * i..8 * i + 4].copy_from_slice(&s.to_le_bytes());
            big[8 * i + 4..8 * i + 8].copy_from_slice(&l.to_le_bytes());
        }
        for n in 1..=recs.len() {
            let rows = super::rows_le32(&big, 0, n as u64, 8, (0, le), (4, le)).expect("rows");
            for len in [0, 1, 39, 40, 47, 48, 49, u64::MAX] {
                let want = recs.iter().take(n).position(|&(s, l)| {
                    npuschema_core::range_within(&big, u64::from(s), u64::from(l), len).is_none()
                });
                assert_eq!(
                    super::first_bad_range(&big, len, rows, 0, 4),
                    want.map(|i| i as u64),
                    "{n} rows within {len}"
                );
            }
        }
        // Not this shape: big-endian, a word past the row, rows past the buffer.
        let be = W::of(IntTy::U32, true);
        assert!(super::rows_le32(&buf, 16, 4, 8, (0, be), (4, le)).is_none());
        assert!(super::rows_le32(&buf, 16, 4, 8, (0, le), (5, le)).is_none());
        assert!(super::rows_le32(&buf, 16, 7, 8, (0, le), (4, le)).is_none());
    }

    #[test]
    fn operators_compare_as_the_generic_path_compares() {
        use crate::expr::BinOp;
        let ops = [
            BinOp::Eq,
            BinOp::Ne,
            BinOp::Lt,
            BinOp::Le,
            BinOp::Gt,
            BinOp::Ge,
            BinOp::Add,
            BinOp::LogAnd,
        ];
        let values = [0, 1, 2, 7, u64::from(u32::MAX), u64::MAX - 1, u64::MAX];
        for op in ops {
            for a in values {
                for b in values {
                    assert_eq!(
                        super::Op::of(op).test(a, b),
                        super::compare(op, a, b),
                        "{a} {op:?} {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn words_read_as_the_generic_path_reads_them() {
        let buf: Vec<u8> = (1..=20u8).collect();
        for t in [
            IntTy::U8,
            IntTy::U16,
            IntTy::I16,
            IntTy::U32,
            IntTy::I32,
            IntTy::U64,
        ] {
            for big in [false, true] {
                let w = W::of(t, big);
                for at in 0..24u64 {
                    assert_eq!(
                        w.read(&buf, at),
                        super::read_int(&buf, at, t, big),
                        "{t:?} big={big} at {at}"
                    );
                }
            }
        }
    }
}
