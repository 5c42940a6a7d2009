//! The interpreter's compiled forms: expressions, steps and their error sites, the
//! resolved directories, collections, streams and gated layouts, and the word-level helpers
//! every engine part shares. It uses no other part of the interpreter.

use npuschema_core::{DetailKind, ErrorSite};

use crate::check::{self, FieldKind};
use crate::expr::BinOp;
use crate::schema::top::Struct;
use crate::schema::{Algorithm, IntTy};

use crate::check::RecPos;

/// The layouts of a gated struct: one per interval of gate values between its `since` and
/// `until` thresholds (the layout changes only there), as the generated code chooses them.
#[derive(Clone, Debug)]
pub(super) struct GateTable {
    /// The first gate value of each interval, ascending (the first is 0).
    pub(super) starts: Vec<u64>,
    /// Per interval: each field's offset, `None` when absent.
    pub(super) offs: Vec<Vec<Option<u64>>>,
    /// Per interval: the struct's size.
    pub(super) sizes: Vec<u64>,
}

impl GateTable {
    pub(super) fn new(c: &check::Checked, s: &Struct) -> Self {
        let mut starts: Vec<u64> = s
            .fields
            .iter()
            .flat_map(|f| [f.since, f.until])
            .filter_map(|x| x.map(|x| x.0))
            .collect();
        starts.push(0);
        starts.sort_unstable();
        starts.dedup();
        let offs = starts
            .iter()
            .map(|&g| {
                (0..s.fields.len())
                    .map(|k| s.fields[k].present_at(g).then(|| gated_offset(c, s, k, g)))
                    .collect()
            })
            .collect();
        let sizes = starts.iter().map(|&g| size_for(c, s, g)).collect();
        Self {
            starts,
            offs,
            sizes,
        }
    }

    pub(super) fn pick(&self, g: u64) -> usize {
        self.starts.iter().rposition(|&x| x <= g).unwrap_or(0)
    }
}

// ----- compiled expressions ----------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Own {
    Header,
    Record,
    Located(usize),
    Element(usize, u64),
}

#[derive(Clone, Copy, Debug)]
pub(super) struct FRef {
    pub(super) own: Own,
    /// Index into `schema.structs`.
    pub(super) st: usize,
    pub(super) fi: usize,
    pub(super) off: u64,
    pub(super) kind: FieldKind,
    /// Stored big-endian.
    pub(super) big: bool,
    /// In the file's byte order (`big` unused): the order the header chose, `State::big`.
    pub(super) file_order: bool,
}

#[derive(Clone, Debug)]
pub(super) enum CE {
    Num(u64),
    Len,
    /// A value that is a `0u64` in generated code (a reference that is not a number there).
    Zero,
    /// A signed constant's value (`None` when negative).
    Opt(Option<u64>),
    Field(FRef),
    Composed(FRef, FRef),
    BitRange(FRef, u64, u64),
    FlagBit(FRef, u64),
    Bin(BinOp, Box<CE>, Box<CE>),
    Not(Box<CE>),
    Count(usize),
    /// `first(collection)`: the index in its stream of the collection's first record.
    First(usize),
    /// `last(collection)`: the index in its stream of the collection's last record.
    Last(usize),
    /// `first_body(collection)`, `last_body(collection)`: where the body of the collection's
    /// first (`false`) or last (`true`) record starts in the file.
    Body(usize, bool),
    End(usize),
    If(Box<CE>, Box<CE>, Box<CE>),
    /// A named value (index among the file's `let` steps).
    Let(usize),
    /// `table[index].field`: the index, and the field read with the index `at::COMPUTED`.
    At(Box<CE>, Box<CE>),
    /// `table[key == value]`'s index: the value, and the key read with the index
    /// `at::COMPUTED` (the first record whose key is the value; none: no value).
    Find(Box<CE>, Box<CE>),
    /// `S[i].field` or `S[key == value].field`, a record of stream S walked for: the
    /// stream (index in `FileProg::streams`), whether among the current record's (`part`:
    /// inside `for_each` over the stream S is within) or in all of S (at file level), the
    /// index or the value, the key (with a value) and the field in S's header scope.
    SubFind {
        stream: usize,
        part: bool,
        which: Box<CE>,
        key: Option<Box<CE>>,
        field: Box<CE>,
    },
    /// `word(at, width)`: the offset, the width, and the byte order (`None`: the file's, as
    /// its header chose).
    Word(Box<CE>, Box<CE>, Option<bool>),
    /// `record.<part>`: where the current stream record lies (`State::rec_span`).
    RecPos(crate::check::RecPos),
}

// What a check blames, as the lowered model states it (`lower/sites.rs`).
pub(super) use crate::lower::sites::{Base as BaseK, Blame as CBlame, Index as IdxK, Site};

use crate::sites::SiteList;
pub(super) use crate::sites::{Shape, SiteKey};

/// The sites the compiled steps fail at, numbered by the lowered model
/// ([`crate::Checked`] keeps its list): a site is looked up, never numbered here. A site
/// the model does not have (which `codegen/tests/site_model.rs` reports) is numbered after
/// the model's.
#[derive(Default)]
pub(super) struct Sites {
    numbered: SiteList,
    extra: SiteList,
}

impl Sites {
    /// The sites numbered as `list` is.
    pub(super) fn numbered_as(list: &SiteList) -> Self {
        Self {
            numbered: list.clone(),
            extra: SiteList::default(),
        }
    }

    /// The index of a site.
    pub(super) fn add(&mut self, key: &SiteKey) -> usize {
        if let Some(i) = self.numbered.find(key) {
            return i;
        }
        self.numbered.keys().len() + self.extra.number(key.clone())
    }

    /// Every site, in number order.
    pub(super) fn all(&self) -> impl Iterator<Item = &SiteKey> {
        self.numbered.keys().iter().chain(self.extra.keys())
    }
}

/// A site and where its run-time numbers come from.
#[derive(Clone, Debug)]
pub(super) struct Fail {
    pub(super) site: usize,
    pub(super) blame: CBlame,
}

#[derive(Clone, Debug)]
pub(super) enum CStep {
    MinLen {
        f: Fail,
        min: CE,
    },
    Expect {
        f: Fail,
        found: CE,
        expected: CE,
    },
    Assert {
        f: Fail,
        op: BinOp,
        l: CE,
        r: CE,
    },
    /// An `assert` repeated for an index (`for: k, below: N`): the index's named value, `N`,
    /// the slot of its count of runs (in `State::prev`), the error's mask when the index has
    /// no value and the assert holds all the same, and the assert.
    Repeat {
        f: Fail,
        var: usize,
        below: CE,
        slot: usize,
        none: u64,
        step: Box<CStep>,
    },
    TableFits {
        f: Fail,
        table: usize,
        rec_size: u64,
        at: CE,
        count: CE,
        stride: CE,
        within: CE,
    },
    RangeFits {
        f: Fail,
        range: usize,
        per_record: bool,
        when: Option<CE>,
        start: CE,
        length: CE,
        within: CE,
    },
    Checksum {
        f: Fail,
        alg: Algorithm,
        from: CE,
        to: CE,
        stored: CE,
        /// Fields whose bytes inside the span count as zero (`zero:`).
        zero: Vec<FRef>,
        /// `stored` is a value the sum must reach (`equals:`): the error's detail is the
        /// sum found against it.
        equals: bool,
    },
    FlagsKnown {
        f: Fail,
        field: FRef,
        known: u64,
    },
    EnumKnown {
        f: Fail,
        field: FRef,
        values: Vec<u64>,
    },
    /// An `assert` that is no single comparison (`&&`, `||`, `!`, flag bits).
    Cond {
        f: Fail,
        cond: CE,
    },
    Let {
        i: usize,
        value: CE,
    },
    /// `string_fits` / `string_utf8` (`interp/strings.rs`).
    Str(Box<StrCheck>),
    /// `fill` (`interp/fill.rs`).
    Fill(Box<FillCheck>),
    When {
        cond: CE,
        step: Box<CStep>,
    },
    Order {
        f: Fail,
        slot: usize,
        /// Inside the table's `for_each` (`None`), or walking table `.0`.
        walk: Option<usize>,
        /// `no_overlap`: the range's `when`, offset and length; else the key.
        when: Option<CE>,
        key: CE,
        length: Option<CE>,
        strict: bool,
        /// A string key (`key` is then the string's offset): the string's range, prefix
        /// width and byte order, to read both strings and compare them bytewise.
        string: Option<(Option<usize>, u8, bool)>,
    },
    ForEachTable {
        table: usize,
        steps: Vec<CStep>,
    },
    ForEachCollection {
        coll: usize,
        steps: Vec<CStep>,
    },
    RecordFits {
        f: Fail,
        rec: usize,
        sidx: usize,
        at: CE,
        within: CE,
        gate: Option<CE>,
        size: u64,
        blame_at_value: bool,
        /// Found by a search back from `at`: the condition over the record, and how far.
        search: Option<Box<(CE, u64)>>,
        /// Present only when this holds: absent otherwise (for a record per record, absent
        /// for this record of its collection whatever an earlier one had).
        when: Option<CE>,
    },
    EntrySize {
        f1: Fail,
        f2: Fail,
        dir: usize,
        es: RecField,
        length: CE,
        arms: Vec<(u64, u64)>,
    },
    Items {
        f: Fail,
        off: u64,
        ity: IntTy,
        big: bool,
        n: u64,
        first: Option<CE>,
        op: BinOp,
        rhs: CE,
    },
    RecordChecksums {
        miss: Fail,
        dup: Fail,
        mism: Option<Fail>,
        dir: usize,
        coll: usize,
        target: RecField,
        stored: RecField,
        want: usize,
    },
    PayloadChecksum {
        fused: Option<(Fail, usize)>,
        gone: Fail,
        mism: Fail,
        dir: usize,
        /// Section types whose records are hashed with fields as zero: (type, record
        /// size, [(offset, width)]).
        zero: Vec<ZeroArm>,
        stored: CE,
    },
    SlotsPaired {
        f: Fail,
        dir: usize,
        region: u64,
        entries: u64,
    },
    SlotsValid {
        fs: [Fail; 4],
        dir: usize,
        region: u64,
        coll: usize,
        offset: RecField,
        size: RecField,
        align: u64,
    },
    /// A record stream's walk (`interp/stream.rs`).
    StreamFits(Box<Fits>),
    /// A record stream's per-record checksums.
    StreamChecksum(Box<Sums>),
    /// A `for_each` over a stream or a stream's collection.
    StreamEach(Box<Each>),
    /// `owned_apart` (`interp/ownership.rs`).
    OwnedApart(Box<Owned>),
    SlotsPadding {
        f: Fail,
        dir: usize,
        region: u64,
        coll: usize,
        offset: RecField,
        size: RecField,
    },
}

/// A field of a directory's record: (offset, type, stored big-endian).
pub(super) type RecField = (u64, IntTy, bool);

/// A section type whose records are hashed with some fields as zero: (type value, record
/// size, [(field offset, width)]).
pub(super) type ZeroArm = (u64, u64, Vec<(u64, u64)>);

/// A directory, resolved.
#[derive(Clone, Debug)]
pub(super) struct DirInfo {
    pub(super) table: usize,
    pub(super) type_off: u64,
    pub(super) type_ty: IntTy,
    /// Whether the type field is stored big-endian.
    pub(super) type_big: bool,
    /// The section types the schema names, ascending: one count (and first index) each.
    pub(super) type_slots: Vec<u64>,
    /// The payload range: its `when`, offset and length, in the table's record-only scope.
    pub(super) when: Option<CE>,
    pub(super) offset: CE,
    pub(super) length: CE,
}

/// A collection, resolved.
#[derive(Clone, Debug)]
pub(super) struct CollInfo {
    pub(super) name: String,
    pub(super) dir: usize,
    pub(super) value: u64,
    pub(super) rec_size: u64,
    pub(super) st: usize,
}

impl DirInfo {
    /// The count slot of section type `t`, when the schema names it.
    pub(super) fn slot(&self, t: u64) -> Option<usize> {
        self.type_slots.binary_search(&t).ok()
    }
}

pub(super) fn empty_dir() -> DirInfo {
    DirInfo {
        table: usize::MAX,
        type_off: 0,
        type_ty: IntTy::U8,
        type_big: false,
        type_slots: Vec::new(),
        when: None,
        offset: CE::Zero,
        length: CE::Zero,
    }
}

pub(super) fn signed_nonneg(bits: u64, t: IntTy) -> Option<u64> {
    let v = sign_extend(bits, t);
    u64::try_from(v).ok()
}

pub(super) fn sign_extend(bits: u64, t: IntTy) -> i64 {
    let w = t.bytes() * 8;
    if w >= 64 {
        bits as i64
    } else {
        let shift = 64 - w;
        ((bits << shift) as i64) >> shift
    }
}

pub(super) fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

pub(super) fn to_site(id: usize, k: &SiteKey) -> ErrorSite {
    let detail = match &k.shape {
        Shape::None => DetailKind::None,
        Shape::Short => DetailKind::Short,
        Shape::Mismatch => DetailKind::Mismatch,
        Shape::Compare([a, b, c]) => {
            DetailKind::Compare(Box::leak(Box::new([leak(a), leak(b), leak(c)])))
        }
        Shape::Range(n) => DetailKind::Range(leak(n)),
        Shape::UnknownBits => DetailKind::UnknownBits,
        Shape::UnknownValue => DetailKind::UnknownValue,
    };
    ErrorSite {
        id: u16::try_from(id + 1).unwrap_or(u16::MAX),
        code: leak(&k.code),
        table: leak(&k.table),
        name: leak(&k.name),
        offset: k.offset,
        detail,
    }
}

pub(super) fn compare(op: BinOp, a: u64, b: u64) -> bool {
    match op {
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        _ => false,
    }
}

/// `count` records of `n` bytes, `stride` apart from `at` (`stride >= n`, not 0, when there
/// are records), end within `within` and inside `buf`: the generated placement check
/// (`table_strided`).
pub(super) fn table_within(
    buf: &[u8],
    at: u64,
    count: u64,
    stride: u64,
    within: u64,
    n: u64,
) -> bool {
    // Without records the stride is not read.
    if count > 0 && (stride == 0 || stride < n) {
        return false;
    }
    // The last record's end from `at`, in `u128`: no product of two `u64` overflows it.
    let span = match count {
        0 => 0,
        c => u128::from(c - 1) * u128::from(stride) + u128::from(n),
    };
    let end = u128::from(at) + span;
    let limit = u128::from(within).min(buf.len() as u128);
    at <= within && (at as u128) <= buf.len() as u128 && end <= limit
}

/// The word of type `t` stored at `at`, little-endian or (`big`) big-endian; 0 when the
/// buffer ends first.
pub(super) fn read_int(buf: &[u8], at: u64, t: IntTy, big: bool) -> u64 {
    let Some(rest) = usize::try_from(at).ok().and_then(|a| buf.get(a..)) else {
        return 0;
    };
    match t {
        IntTy::U8 | IntTy::I8 => rest.first().map_or(0, |b| u64::from(*b)),
        IntTy::U16 | IntTy::I16 => rest.first_chunk::<2>().map_or(0, |b| {
            u64::from(if big {
                u16::from_be_bytes(*b)
            } else {
                u16::from_le_bytes(*b)
            })
        }),
        IntTy::U32 | IntTy::I32 => rest.first_chunk::<4>().map_or(0, |b| {
            u64::from(if big {
                u32::from_be_bytes(*b)
            } else {
                u32::from_le_bytes(*b)
            })
        }),
        IntTy::U64 | IntTy::I64 => rest.first_chunk::<8>().map_or(0, |b| {
            if big {
                u64::from_be_bytes(*b)
            } else {
                u64::from_le_bytes(*b)
            }
        }),
    }
}

/// The stored word of a field kind: its integer type, or a float's bits.
pub(super) fn word_ty(kind: FieldKind, schema: &crate::schema::top::Schema) -> Option<IntTy> {
    match kind {
        FieldKind::Float(false) => Some(IntTy::U32),
        FieldKind::Float(true) => Some(IntTy::U64),
        k => k.int_ty(schema),
    }
}

/// A stored word as the generated `widen` makes it: signed words sign-extend.
pub(super) fn widen(bits: u64, t: IntTy) -> u64 {
    if t.signed() {
        sign_extend(bits, t) as u64
    } else {
        bits
    }
}

/// The size of a gated struct for gate value `g`.
pub(super) fn size_for(c: &check::Checked, s: &Struct, g: u64) -> u64 {
    gated_offset(c, s, s.fields.len(), g)
}

/// The offset of field `k` of a gated struct for gate value `g`.
pub(super) fn gated_offset(c: &check::Checked, s: &Struct, k: usize, g: u64) -> u64 {
    let Some(l) = c.layouts.get(&s.name.text) else {
        return 0;
    };
    s.fields
        .iter()
        .zip(&l.fields)
        .take(k)
        .filter(|(f, _)| f.present_at(g))
        .map(|(_, (_, kind))| kind.width(&c.schema))
        .fold(0u64, u64::saturating_add)
}

/// A stream, resolved.
#[derive(Clone, Debug)]
pub(super) struct SInfo {
    pub(super) name: String,
    /// The file-level range (index in `file.ranges`).
    pub(super) range: usize,
    /// The header struct (index in `schema.structs`) and its size.
    pub(super) header_st: usize,
    pub(super) hs: u64,
    /// The size expression, in the header's record-only scope.
    pub(super) size: CE,
    pub(super) includes_header: bool,
    pub(super) align: u64,
    pub(super) end: Option<CE>,
    /// Bytes may follow the terminator.
    pub(super) trailing: bool,
    /// The type field: offset, type, and its fixed byte order (`None`: the file's).
    pub(super) ty: Option<(u64, IntTy, Option<bool>)>,
    /// Per layout: (collection name, type value, body size, body struct).
    pub(super) layouts: Vec<(String, u64, u64, usize)>,
    /// The type values whose records hold nested records, and their body struct's size
    /// (where the nested records start in the body).
    pub(super) nests: Vec<(u64, u64)>,
    /// How deep records may nest (0 when no layout nests).
    pub(super) max_depth: usize,
    /// The records form a chain (`chain:`), each locating the next.
    pub(super) chain: Option<ChainInfo>,
    /// The records fill bytes `from..to` of each record of stream `.0` (`within:`), the two
    /// in that stream's header scope.
    pub(super) within: Option<(usize, CE, CE)>,
}

/// A stream's chain, resolved: where its first record is (file scope), where each record's
/// link is (its header's scope), the link's type and order (`None`: the file's), and how many
/// records it may have.
#[derive(Clone, Debug)]
pub(super) struct ChainInfo {
    pub(super) first: CE,
    pub(super) at: CE,
    pub(super) ty: crate::schema::IntTy,
    pub(super) big: Option<bool>,
    pub(super) max: u64,
}

/// The sites of one `stream_fits` step.
#[derive(Clone, Debug)]
pub(super) struct Fits {
    pub(super) stream: usize,
    pub(super) header: Fail,
    pub(super) small: Option<Fail>,
    pub(super) over: Fail,
    pub(super) short: Vec<Fail>,
    /// A record nested deeper than `max_depth`.
    pub(super) deep: Option<Fail>,
    pub(super) open: Option<Fail>,
    pub(super) trailing: Option<Fail>,
    /// A chain's: a link outside its record, a link back to a record visited, more
    /// records than `max`.
    pub(super) chain: Option<[Fail; 3]>,
    /// A stream within another's records: the part of a holding record that is not inside
    /// it; more records than the range has room for (parts that overlap).
    pub(super) within: Option<[Fail; 2]>,
}

/// A `for_each` over a stream (`layout: None`) or one of its collections.
#[derive(Clone, Debug)]
pub(super) struct Each {
    pub(super) stream: usize,
    pub(super) layout: Option<usize>,
    pub(super) steps: Vec<CStep>,
}

/// A `stream_checksum` step: its sites and the checksum's parts (record-only scope).
#[derive(Clone, Debug)]
pub(super) struct Sums {
    pub(super) stream: usize,
    pub(super) place: Fail,
    pub(super) sum: Fail,
    pub(super) alg: crate::schema::Algorithm,
    pub(super) from: CE,
    pub(super) to: CE,
    pub(super) stored: CE,
    pub(super) big: bool,
    /// Only the records whose header satisfies this carry a checksum.
    pub(super) when: Option<CE>,
}

/// The bytes a compiled `fill` step covers.
#[derive(Clone, Debug)]
pub(super) enum FSpan {
    /// A file-level range (index in `file.ranges`), checked by its `range_fits`.
    Range(usize),
    /// `from..to`, absolute.
    FromTo(Box<(CE, CE)>),
}

/// A compiled `fill` step: its sites (the wrong byte, then the span outside the buffer).
#[derive(Clone, Debug)]
pub(super) struct FillCheck {
    pub(super) bad: Fail,
    pub(super) out: Option<Fail>,
    pub(super) span: FSpan,
    pub(super) value: FValue,
}

/// What each byte of a fill's span must equal.
#[derive(Clone, Debug)]
pub(super) enum FValue {
    /// One byte (`fill`).
    Byte(u8),
    /// The byte at the same distance from a place (`same_bytes`), and the failure when the
    /// bytes there are not in the buffer.
    Same(Box<(CE, Fail)>),
}

/// The value of `record.<part>` for the current record `(offset, body offset, body end,
/// depth, index in the stream)`.
pub(super) fn rec_pos((at, body, end, depth, index): (u64, u64, u64, u64, u64), k: RecPos) -> u64 {
    match k {
        RecPos::Depth => depth,
        RecPos::Index => index,
        RecPos::Offset => at,
        RecPos::BodyOffset => body,
        RecPos::BodyLen => end.saturating_sub(body),
        RecPos::End => end,
    }
}

/// A compiled string step.
#[derive(Clone, Debug)]
pub(super) struct StrCheck {
    pub(super) f: Fail,
    pub(super) utf8: bool,
    pub(super) offset: CE,
    /// The file-level range the string lies in (index), or the whole file.
    pub(super) range: Option<usize>,
    pub(super) prefix: u8,
    pub(super) big: bool,
}

/// One part of an `owned_apart` step, resolved for running.
#[derive(Clone, Debug)]
pub(super) enum OPart {
    /// The header: `header_size` bytes at 0.
    Header,
    /// A located record (its slot in `State::located`).
    Record(usize),
    /// A table's extent: (table, record size).
    Table(usize, u64),
    /// A per-record range: table, record size, condition, start, length.
    Range(Box<ORange>),
}

/// A per-record range part of an `owned_apart` step.
#[derive(Clone, Debug)]
pub(super) struct ORange {
    pub(super) table: usize,
    pub(super) when: Option<CE>,
    pub(super) start: CE,
    pub(super) length: CE,
}

/// A compiled `owned_apart` step: the bound, the parts, the too-many site and one site per
/// pair of parts that can overlap (`(earlier, later)`, `emit::ownership::pairs_of`).
#[derive(Clone, Debug)]
pub(super) struct Owned {
    pub(super) max: u64,
    pub(super) parts: Vec<OPart>,
    pub(super) many: Fail,
    pub(super) pairs: Vec<((usize, usize), Fail)>,
}
