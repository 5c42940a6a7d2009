//! The lowered steps of the fast path (`fast.rs`): their forms only, below the file
//! layout that holds them.

use super::ir::{CE, CStep};
use crate::expr::BinOp;
use crate::schema::IntTy;

/// How one stored word is read: width and byte order, as the shift that drops the bytes
/// past the word from an eight-byte load (no jump on the width at run time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct W {
    /// `64 - 8 * width`.
    pub(super) drop: u32,
    /// Stored big-endian (never for one byte).
    pub(super) big: bool,
}

impl W {
    pub(super) fn of(t: IntTy, big: bool) -> Self {
        let bytes = u32::try_from(t.bytes()).unwrap_or(8).clamp(1, 8);
        W {
            drop: 64 - 8 * bytes,
            big: big && bytes > 1,
        }
    }

    /// The word at `at`; 0 when the buffer ends first (as `read_int`).
    #[inline(always)]
    pub(super) fn read(self, buf: &[u8], at: u64) -> u64 {
        let Some(rest) = usize::try_from(at).ok().and_then(|a| buf.get(a..)) else {
            return 0;
        };
        // Eight bytes at hand (nearly always): one load and a shift.
        if let Some(b) = rest.first_chunk::<8>() {
            return if self.big {
                u64::from_be_bytes(*b) >> self.drop
            } else {
                (u64::from_le_bytes(*b) << self.drop) >> self.drop
            };
        }
        self.read_short(rest)
    }

    /// The word at the start of `rest`, fewer than eight bytes long: 0 when the word does
    /// not fit in it.
    #[cold]
    pub(super) fn read_short(self, rest: &[u8]) -> u64 {
        let bytes = usize::try_from((64 - self.drop) / 8).unwrap_or(8);
        let Some(word) = rest.get(..bytes) else {
            return 0;
        };
        let mut b = [0u8; 8];
        if self.big {
            // The word's bytes at the end of an eight-byte big-endian value.
            if let Some(tail) = b.get_mut(8 - bytes..) {
                tail.copy_from_slice(word);
            }
            u64::from_be_bytes(b)
        } else {
            if let Some(head) = b.get_mut(..bytes) {
                head.copy_from_slice(word);
            }
            u64::from_le_bytes(b)
        }
    }
}

/// A comparison operator as the set of orderings it accepts (bit 0: less, bit 1: equal,
/// bit 2: greater): tested without a jump on the operator. An operator that is no
/// comparison accepts none (as the generic `compare`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Op(u8);

impl Op {
    pub(super) fn of(op: BinOp) -> Self {
        Op(match op {
            BinOp::Lt => 0b001,
            BinOp::Eq => 0b010,
            BinOp::Le => 0b011,
            BinOp::Gt => 0b100,
            BinOp::Ne => 0b101,
            BinOp::Ge => 0b110,
            _ => 0,
        })
    }

    /// `a op b`.
    #[inline(always)]
    pub(super) fn test(self, a: u64, b: u64) -> bool {
        // 0 when less, 1 when equal, 2 when greater.
        let order = u32::from(a >= b) + u32::from(a > b);
        (self.0 >> order) & 1 == 1
    }
}

/// A lowered value expression (the generic `State::val`'s meaning).
#[derive(Clone, Debug)]
pub(super) enum Fx {
    /// A folded constant (`None`: a value that never computes).
    K(Option<u64>),
    Len,
    /// The word at an absolute offset (a header field).
    Abs(u64, W),
    /// The word at an offset in the current record.
    Rec(u64, W),
    /// The word at an offset in located record `.0` (not gated).
    Loc(usize, u64, W),
    /// The word of element `.1` of table `.0`, field offset `.2` in the record (the record
    /// at index * the table's stride from its start).
    Elem(usize, u64, u64, W),
    /// A signed field: sign-extended, and `None` when negative.
    Signed(Box<Fx>, IntTy),
    /// Bits `lo..` of a word, masked.
    Bits(Box<Fx>, u64, u64),
    /// `low | high << 32`.
    Composed(Box<Fx>, Box<Fx>),
    Bin(BinOp, Box<Fx>, Box<Fx>),
    /// `x / d` (`.1`: `d`, 2 to `u32::MAX`, `.2`: its reciprocal, [`Recip`]): a multiply
    /// when `x` fits in 32 bits, not a division.
    DivK(Box<Fx>, Recip),
    /// `x % d`, as [`Fx::DivK`].
    RemK(Box<Fx>, Recip),
    If(Box<Fc>, Box<Fx>, Box<Fx>),
    /// `if(x op k, a, b)`: a choice on a comparison with a constant, in one node.
    Sel(Op, Box<Fx>, u64, Box<Fx>, Box<Fx>),
    Let(usize),
    End(usize),
    /// A run-invariant value (header words, constants and the length only), computed once
    /// at the start of each run: [`Prog::memos`]`[.0]`.
    Memo(usize),
    /// Not lowered: the generic evaluator.
    Slow(CE),
}

/// A constant divisor `d` (2 to `u32::MAX`) and `M = ceil(2^64 / d)`: for every `x` below
/// 2^32, `x / d` is the high word of `x * M` and `x % d` the high word of `(x * M mod 2^64)
/// * d` (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019). A larger
/// `x` is divided.
#[derive(Clone, Copy, Debug)]
pub(super) struct Recip {
    pub(super) d: u64,
    pub(super) m: u64,
}

impl Recip {
    pub(super) fn new(d: u64) -> Option<Self> {
        (2..=u64::from(u32::MAX)).contains(&d).then(|| Recip {
            d,
            m: (u64::MAX / d).wrapping_add(1),
        })
    }

    #[inline(always)]
    pub(super) fn div(self, x: u64) -> u64 {
        if x <= u64::from(u32::MAX) {
            ((u128::from(x) * u128::from(self.m)) >> 64) as u64
        } else {
            x / self.d
        }
    }

    #[inline(always)]
    pub(super) fn rem(self, x: u64) -> u64 {
        if x <= u64::from(u32::MAX) {
            let low = self.m.wrapping_mul(x);
            ((u128::from(low) * u128::from(self.d)) >> 64) as u64
        } else {
            x % self.d
        }
    }
}

/// A lowered condition (the generic `State::cond`'s meaning).
#[derive(Clone, Debug)]
pub(super) enum Fc {
    K(bool),
    /// All bits of the (non-zero) mask set in the word.
    Flag(Box<Fx>, u64),
    And(Box<Fc>, Box<Fc>),
    Or(Box<Fc>, Box<Fc>),
    Not(Box<Fc>),
    Cmp(Op, Box<Fx>, Box<Fx>),
    /// Not lowered: the generic evaluator.
    Slow(CE),
}

/// A `within` limit: the file's length (nearly always), or a value.
#[derive(Clone, Debug)]
pub(super) enum Lim {
    Len,
    X(Fx),
}

/// The values an `enum_known` accepts.
#[derive(Clone, Debug)]
pub(super) enum Known {
    /// Every value below 128: one bit each.
    Mask(u128),
    /// Sorted.
    List(Vec<u64>),
}

impl Known {
    pub(super) fn new(values: &[u64]) -> Self {
        if values.iter().all(|&v| v < 128) {
            Known::Mask(values.iter().fold(0u128, |m, &v| m | (1u128 << v)))
        } else {
            let mut l = values.to_vec();
            l.sort_unstable();
            Known::List(l)
        }
    }

    #[inline]
    pub(super) fn has(&self, v: u64) -> bool {
        match self {
            Known::Mask(m) => v < 128 && (m >> v) & 1 == 1,
            Known::List(l) => l.binary_search(&v).is_ok(),
        }
    }
}

/// A lowered check: it passes (with its effect on the state) or fails.
#[derive(Clone, Debug)]
pub(super) enum Chk {
    /// The word at an absolute offset against a constant (`expect` of a header field, or
    /// an `assert` comparing one with a constant): one read, one compare.
    CmpAbs(Op, u64, W, u64),
    /// The word at an offset in the current record against a constant.
    CmpRec(Op, u64, W, u64),
    MinLen(Fx),
    Expect(Fx, Fx),
    Assert(Op, Fx, Fx),
    Cond(Fc),
    FlagsKnown(Fx, u64),
    EnumKnown(Fx, Known),
    TableFits {
        table: usize,
        rec_size: u64,
        at: Fx,
        count: Fx,
        stride: Fx,
        within: Lim,
    },
    RangeFits {
        range: usize,
        per_record: bool,
        when: Option<Fc>,
        start: Fx,
        length: Fx,
        within: Lim,
    },
    /// `range_fits` of a range whose offset and length are words of the current record,
    /// with no condition (the usual per-record range): read in place.
    RangeRec {
        range: usize,
        per_record: bool,
        start: (u64, W),
        length: (u64, W),
        within: Lim,
    },
    RecordFits {
        rec: usize,
        sidx: usize,
        at: Fx,
        within: Lim,
        gate: Option<Fx>,
        size: u64,
        /// A gated record's size when the gate is the pinned key word (the same for every
        /// value of the interval): no lookup at run time.
        gated: Option<u64>,
    },
    Items {
        off: u64,
        w: W,
        ity: IntTy,
        n: u64,
        first: Option<Fx>,
        op: Op,
        rhs: Fx,
    },
}

/// A lowered step.
#[derive(Clone, Debug)]
pub(super) enum FStep {
    /// Not lowered: the generic `exec` runs it.
    Slow(Box<CStep>),
    /// A check; when it fails, the generic `exec` runs the original step to report it.
    Check(Box<Chk>, Box<CStep>),
    Let(usize, Fx),
    When(Fc, Box<FStep>),
    ForEachTable {
        table: usize,
        /// The order checks' "previous" slots of the body, reset before the loop.
        slots: Vec<usize>,
        body: Vec<FStep>,
        /// Whether the body is checks only: run in one loop, with no call per record.
        flat: bool,
    },
    /// A `for_each` over a table whose body is one per-record `range_fits` within the
    /// file's length, its offset and length words of the record: one tight loop.
    RangeEach {
        table: usize,
        rec_size: u64,
        start: (u64, W),
        length: (u64, W),
        /// The `range_fits` step, to report a failure.
        orig: Box<CStep>,
    },
}

// ----- lowering ----------------------------------------------------------------------------

/// One lowering of a file layout's steps.
#[derive(Debug, Default)]
pub(super) struct Body {
    pub(super) steps: Vec<FStep>,
    /// The run-invariant values, each once (`Fx::Memo`); one may use those before it.
    pub(super) memos: Vec<Fx>,
    /// The top-level checks of `steps` that only compare run-invariant values: they read
    /// nothing a step sets and set nothing, so they are run first, together, in one loop.
    pub(super) guard: Vec<Pure<usize>>,
    /// The top-level placement checks of run-invariant values whose slot no step before
    /// them touches: run after `guard`, before the other steps.
    pub(super) places: Vec<Place<usize>>,
    /// The values `guard` and `places` read, by index (see [`Vals`]).
    pub(super) vals: Vals,
    /// `steps` without the checks in `guard` and `places`: what runs when they all pass
    /// (when one fails, `steps` run, and the first failing step is reported as always).
    pub(super) rest: Vec<FStep>,
}

/// A slot of the run's state that a step may set or read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Slot {
    Table(usize),
    Located(usize),
    Range(usize),
}

/// A `table_fits` or `record_fits` of run-invariant values ([`Chk::TableFits`],
/// [`Chk::RecordFits`] with leaves for values; `L` as in [`Pure`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum Place<L = Leaf> {
    Table {
        table: usize,
        rec_size: u64,
        at: L,
        count: L,
        stride: L,
        within: L,
    },
    Record {
        rec: usize,
        sidx: usize,
        at: L,
        within: L,
        gate: Option<L>,
        size: u64,
        gated: Option<u64>,
    },
}

impl<L: Copy> Place<L> {
    /// Its values, in order.
    pub(super) fn leaves(&self) -> Vec<L> {
        match *self {
            Place::Table {
                at,
                count,
                stride,
                within,
                ..
            } => vec![at, count, stride, within],
            Place::Record {
                at, within, gate, ..
            } => [at, within].into_iter().chain(gate).collect(),
        }
    }

    /// The same check with values `ix` (in the order of [`Self::leaves`]).
    pub(super) fn with<M: Copy>(&self, ix: &[M]) -> Option<Place<M>> {
        Some(match *self {
            Place::Table {
                table, rec_size, ..
            } => Place::Table {
                table,
                rec_size,
                at: *ix.first()?,
                count: *ix.get(1)?,
                stride: *ix.get(2)?,
                within: *ix.get(3)?,
            },
            Place::Record {
                rec,
                sidx,
                gate,
                size,
                gated,
                ..
            } => Place::Record {
                rec,
                sidx,
                at: *ix.first()?,
                within: *ix.get(1)?,
                gate: match gate {
                    Some(_) => Some(*ix.get(2)?),
                    None => None,
                },
                size,
                gated,
            },
        })
    }
}

impl Place {
    /// The check `k` as one, when it places a table or record by run-invariant values.
    pub(super) fn of(k: &Chk) -> Option<Self> {
        let lim = |l: &Lim| match l {
            Lim::Len => Some(Leaf::Len),
            Lim::X(x) => Leaf::of(x),
        };
        Some(match k {
            Chk::TableFits {
                table,
                rec_size,
                at,
                count,
                stride,
                within,
            } => Place::Table {
                table: *table,
                rec_size: *rec_size,
                at: Leaf::of(at)?,
                count: Leaf::of(count)?,
                stride: Leaf::of(stride)?,
                within: lim(within)?,
            },
            Chk::RecordFits {
                rec,
                sidx,
                at,
                within,
                gate,
                size,
                gated,
            } => Place::Record {
                rec: *rec,
                sidx: *sidx,
                at: Leaf::of(at)?,
                within: lim(within)?,
                gate: match gate {
                    Some(g) => Some(Leaf::of(g)?),
                    None => None,
                },
                size: *size,
                gated: *gated,
            },
            _ => return None,
        })
    }

    /// The slot it sets.
    pub(super) fn slot(&self) -> Slot {
        match self {
            Place::Table { table, .. } => Slot::Table(*table),
            Place::Record { rec, .. } => Slot::Located(*rec),
        }
    }
}

/// A value of a run-invariant check: a constant (`None`: a value that never computes),
/// the file's length, a header word, or a run-invariant value ([`Fx::Memo`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum Leaf {
    K(Option<u64>),
    Len,
    Abs(u64, W),
    Memo(usize),
}

impl Leaf {
    /// The leaf `x` is, if it is one.
    pub(super) fn of(x: &Fx) -> Option<Self> {
        Some(match x {
            Fx::K(v) => Leaf::K(*v),
            Fx::Len => Leaf::Len,
            Fx::Abs(at, w) => Leaf::Abs(*at, *w),
            Fx::Memo(i) => Leaf::Memo(*i),
            _ => return None,
        })
    }

    /// Whether it always computes.
    pub(super) fn total(self) -> bool {
        matches!(self, Leaf::K(Some(_)) | Leaf::Len | Leaf::Abs(..))
    }
}

/// At most this many values are read by a body's guard and placements (a run holds them
/// in an array on the stack, with a bit each in a `u32`); past it, the checks stay steps.
pub(super) const MAX_VALS: usize = 32;

/// The values a body's guard and placements read, each once, by index: 0 the file's
/// length, `1 + i` run-invariant value `i`, then header words, then constants. A run fills
/// a [`RunVals`] with the constants, the length, the run-invariant values and the words:
/// no jump on a value's kind.
#[derive(Debug, Default)]
pub(super) struct Vals {
    /// The constants that compute: index and value.
    pub(super) consts: Vec<(usize, u64)>,
    /// The constants that never compute, one bit each (by index).
    pub(super) absent: u32,
    /// The header words: index, offset, reading.
    pub(super) reads: Vec<(usize, u64, W)>,
}

impl Vals {
    /// The indices of `leaves` (the body has `memos` run-invariant values), or `None` when
    /// they are more than [`MAX_VALS`].
    pub(super) fn of(leaves: &[Leaf], memos: usize) -> Option<(Self, Vec<usize>)> {
        let mut reads: Vec<(u64, W)> = Vec::new();
        let mut consts: Vec<Option<u64>> = Vec::new();
        for l in leaves {
            match *l {
                Leaf::Abs(at, w) if !reads.contains(&(at, w)) => reads.push((at, w)),
                Leaf::K(v) if !consts.contains(&v) => consts.push(v),
                _ => {}
            }
        }
        let (first_read, first_const) = (1 + memos, 1 + memos + reads.len());
        if first_const + consts.len() > MAX_VALS {
            return None;
        }
        let index = |l: &Leaf| -> Option<usize> {
            Some(match *l {
                Leaf::Len => 0,
                Leaf::Memo(i) if i < memos => 1 + i,
                Leaf::Memo(_) => return None,
                Leaf::Abs(at, w) => first_read + reads.iter().position(|r| *r == (at, w))?,
                Leaf::K(v) => first_const + consts.iter().position(|c| *c == v)?,
            })
        };
        let ix = leaves.iter().map(index).collect::<Option<Vec<_>>>()?;
        let mut vals = Vals {
            reads: reads
                .iter()
                .enumerate()
                .map(|(j, &(at, w))| (first_read + j, at, w))
                .collect(),
            ..Vals::default()
        };
        for (j, c) in consts.iter().enumerate() {
            match c {
                Some(k) => vals.consts.push((first_const + j, *k)),
                None => vals.absent |= 1 << (first_const + j),
            }
        }
        Some((vals, ix))
    }
}

/// A run's values of a body's guard and placements ([`Vals`]): each a word, and a bit set
/// for each that does not compute.
pub(super) struct RunVals {
    v: [u64; MAX_VALS],
    absent: u32,
}

impl RunVals {
    /// All 0, none absent.
    #[inline(always)]
    pub(super) fn zero() -> Self {
        RunVals {
            v: [0; MAX_VALS],
            absent: 0,
        }
    }

    /// `vals`' constants set (in place: the array is not moved).
    #[inline(always)]
    pub(super) fn load(&mut self, vals: &Vals) {
        self.absent = vals.absent;
        for &(i, k) in &vals.consts {
            if let Some(x) = self.v.get_mut(i) {
                *x = k;
            }
        }
    }

    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> Option<u64> {
        let x = *self.v.get(i)?;
        ((self.absent >> i) & 1 == 0).then_some(x)
    }

    #[inline(always)]
    pub(super) fn set(&mut self, i: usize, x: Option<u64>) {
        if let Some(s) = self.v.get_mut(i) {
            *s = x.unwrap_or(0);
            let bit = 1u32 << i;
            self.absent = (self.absent & !bit) | if x.is_none() { bit } else { 0 };
        }
    }
}

/// A run-invariant check with no effect: it passes when both values compute and `a op b`
/// (`L`: [`Leaf`] when lowered, an index into the run's values when run).
#[derive(Clone, Copy, Debug)]
pub(super) struct Pure<L = Leaf> {
    pub(super) op: Op,
    pub(super) a: L,
    pub(super) b: L,
}

impl Pure {
    /// The check `k` as one, when it is a comparison of run-invariant leaves with the
    /// same verdict.
    pub(super) fn of(k: &Chk) -> Option<Self> {
        let (op, a, b) = match k {
            Chk::CmpAbs(op, at, w, k) => (*op, Leaf::Abs(*at, *w), Leaf::K(Some(*k))),
            Chk::Assert(op, l, r) => (*op, Leaf::of(l)?, Leaf::of(r)?),
            Chk::Cond(Fc::Cmp(op, l, r)) => (*op, Leaf::of(l)?, Leaf::of(r)?),
            // `expected == Some(found)`, the found value always there.
            Chk::Expect(f, e) => {
                let f = Leaf::of(f).filter(|f| f.total())?;
                (Op::of(BinOp::Eq), f, Leaf::of(e)?)
            }
            Chk::MinLen(m) => (Op::of(BinOp::Ge), Leaf::Len, Leaf::of(m)?),
            _ => return None,
        };
        Some(Pure { op, a, b })
    }
}

/// The layout's steps lowered once more for each interval of a key word's values (see
/// [`lower`]): in each, every comparison of the key with a constant is decided.
#[derive(Debug)]
pub(super) struct Keyed {
    pub(super) at: u64,
    pub(super) w: W,
    /// The first value of each interval, ascending; the first is 0.
    pub(super) starts: Vec<u64>,
    pub(super) bodies: Vec<Body>,
}

/// At most this many intervals of a key word's values are lowered apiece.
pub(super) const MAX_INTERVALS: usize = 48;

/// A file layout's lowered steps.
#[derive(Debug, Default)]
pub(super) struct Prog {
    /// The steps with no key word decided.
    pub(super) base: Body,
    /// The steps specialised by a key word's value, when the layout compares a header word
    /// with constants (a version field choosing the layout).
    pub(super) keyed: Option<Keyed>,
    /// Slots for the run-invariant values: the most any body has.
    pub(super) memo_slots: usize,
    /// The layout's located records, tables and ranges: how many slots a state has for
    /// each (kept here, next to the steps, so that making a state reads no schema).
    pub(super) slot_lens: [usize; 3],
    /// The variants' conditions, for the top-level layout of a file with variants.
    pub(super) variants: Vec<Fc>,
    /// The variant each interval of a key word's values chooses, when in every interval
    /// every condition is decided (they compare only that word with constants).
    pub(super) choice: Option<Choice>,
    /// The steps lowered for a big-endian file, when the file's header chooses its byte
    /// order (`byte_order: { big_when }`): these are for a little-endian one.
    pub(super) big: Option<Box<Prog>>,
}

/// The variant chosen by a key word's value: the first value of each interval,
/// ascending from 0, and the variant it chooses (`None`: none holds).
#[derive(Debug)]
pub(super) struct Choice {
    pub(super) at: u64,
    pub(super) w: W,
    pub(super) starts: Vec<u64>,
    pub(super) picks: Vec<Option<usize>>,
}

impl Choice {
    /// The variant `buf` chooses, when its interval has one decided.
    #[inline]
    pub(super) fn pick(&self, buf: &[u8]) -> Option<Option<usize>> {
        let v = self.w.read(buf, self.at);
        let i = self.starts.partition_point(|&s| s <= v).saturating_sub(1);
        self.picks.get(i).copied()
    }
}

impl Prog {
    /// The body to run on `buf`: the one for the key word's interval, or the base.
    #[inline]
    pub(super) fn body(&self, buf: &[u8]) -> &Body {
        let Some(k) = &self.keyed else {
            return &self.base;
        };
        let v = k.w.read(buf, k.at);
        let i = k.starts.partition_point(|&s| s <= v).saturating_sub(1);
        k.bodies.get(i).unwrap_or(&self.base)
    }
}
