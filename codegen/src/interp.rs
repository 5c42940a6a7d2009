//! The schema interpreter: the second engine of the schema language.
//!
//! It takes a checked schema (the same load and check as the generator: [`crate::load`],
//! [`crate::load_str`]) and a byte slice, and runs the same validation as the generated
//! `validate`: the same steps in the same order, with the same error code, field path, byte
//! offset, values and `ERROR_SITES` number. On success it gives a dynamic [`View`]: every
//! field of the header, the located records, the tables and the collections, with offset,
//! size, raw and decoded value; the byte ranges; and every checksum stored and computed.
//!
//! It shares nothing with the emitter but the checked schema: it reads the schema's steps
//! itself (host-only, `std`), and calls only `npuschema-core`'s run-time built-ins (the
//! checksum functions, the range helpers and the error type), so its checksums run at the
//! speed of the generated code's. The two engines can therefore disagree, and the
//! differential tests hold each to the other.
//!
//! ```
//! let c = npuschema_codegen::load(std::path::Path::new("../schema/npu1.yaml")).unwrap();
//! let interp = npuschema_codegen::interp::Interp::new(&c);
//! let err = interp.validate(b"NPU1").unwrap_err();
//! assert_eq!(err.code, "truncated-header");
//! ```

mod at;
mod fast;
mod fill;
mod nested;
mod slots;
mod stream;
mod strings;
mod view;

use std::collections::HashMap;

use npuschema_core::{DetailKind, ErrorSite, Report};

use crate::check::{self, FieldKind, Owner, Resolved, Scope};
use crate::expr::{BinOp, Expr, ExprAt};
use crate::ext::{self, DirChecksumKind, Directory, ExtStep};
use crate::schema::{Algorithm, IntTy, OrderKind, Step, Struct, Table};

pub use view::{ChecksumView, FieldView, Group, RangeView, RecordView, StringView, Value, View};

/// A schema ready to interpret: its steps resolved once, and its error sites numbered as
/// the generated module numbers them.
pub struct Interp<'c> {
    top: FileProg<'c>,
    variants: Option<Variants<'c>>,
    sites: &'static [ErrorSite],
}

struct Variants<'c> {
    list: Vec<(String, CE, FileProg<'c>)>,
    unknown_site: usize,
    unknown_value: CE,
    unknown_blame: CBlame,
}

/// One file layout (the file, or one variant) with its compiled steps.
struct FileProg<'c> {
    c: &'c check::Checked,
    header_size: u64,
    header_site: usize,
    steps: Vec<CStep>,
    dirs: Vec<DirInfo>,
    colls: Vec<CollInfo>,
    /// `want` arrays of record checksums: one per directory checksum of kind `Records`.
    want_slots: usize,
    /// Order checks' "previous" slots.
    order_slots: usize,
    /// Named values (top-level `let` steps).
    lets: usize,
    /// Record size of each table, by table index.
    table_rec_size: Vec<u64>,
    /// Each struct's layouts by gate value, by struct index (`None`: not gated).
    gates: Vec<Option<GateTable>>,
    /// The record streams, resolved.
    streams: Vec<stream::SInfo>,
    /// `steps` lowered for speed (`fast.rs`).
    fast: fast::Prog,
}

/// The layouts of a gated struct: one per interval of gate values between its `since` and
/// `until` thresholds (the layout changes only there), as the generated code chooses them.
#[derive(Clone, Debug)]
struct GateTable {
    /// The first gate value of each interval, ascending (the first is 0).
    starts: Vec<u64>,
    /// Per interval: each field's offset, `None` when absent.
    offs: Vec<Vec<Option<u64>>>,
    /// Per interval: the struct's size.
    sizes: Vec<u64>,
}

impl GateTable {
    fn new(c: &check::Checked, s: &Struct) -> Self {
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

    fn pick(&self, g: u64) -> usize {
        self.starts.iter().rposition(|&x| x <= g).unwrap_or(0)
    }
}

// ----- compiled expressions ----------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Own {
    Header,
    Record,
    Located(usize),
    Element(usize, u64),
}

#[derive(Clone, Copy, Debug)]
struct FRef {
    own: Own,
    /// Index into `schema.structs`.
    st: usize,
    fi: usize,
    off: u64,
    kind: FieldKind,
    /// Stored big-endian.
    big: bool,
}

#[derive(Clone, Debug)]
enum CE {
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
    End(usize),
    If(Box<CE>, Box<CE>, Box<CE>),
    /// A named value (index among the file's `let` steps).
    Let(usize),
    /// `table[index].field`: the index, and the field read with the index `at::COMPUTED`.
    At(Box<CE>, Box<CE>),
    /// `record.<part>`: where the current stream record lies (`State::rec_span`).
    RecPos(crate::recpos::RecPos),
}

#[derive(Clone, Copy, Debug)]
enum BaseK {
    Zero,
    RecAt,
    Located(usize),
    TableAt(usize),
}

#[derive(Clone, Copy, Debug)]
enum IdxK {
    None,
    Index,
    Const(u64),
}

#[derive(Clone, Debug)]
struct CBlame {
    table: String,
    name: String,
    off: u64,
    base: BaseK,
    index: IdxK,
}

impl CBlame {
    fn plain(name: impl Into<String>, off: u64) -> Self {
        Self {
            table: String::new(),
            name: name.into(),
            off,
            base: BaseK::Zero,
            index: IdxK::None,
        }
    }
    fn record(table: &str, name: &str, off: u64, base: BaseK, index: IdxK) -> Self {
        Self {
            table: table.to_string(),
            name: name.to_string(),
            off,
            base,
            index,
        }
    }
}

/// The shape of a site's detail while compiling (owned names).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shape {
    None,
    Short,
    Mismatch,
    Compare([String; 3]),
    Range(String),
    UnknownBits,
    UnknownValue,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct SiteKey {
    code: String,
    table: String,
    name: String,
    offset: u32,
    shape: Shape,
}

/// Registers sites in the emitter's order: the first occurrence of an identical site
/// gives its number; a repeated one shares it.
#[derive(Default)]
struct Sites(Vec<SiteKey>);

impl Sites {
    fn add(&mut self, code: &str, b: &CBlame, shape: Shape) -> usize {
        let key = SiteKey {
            code: code.to_string(),
            table: b.table.clone(),
            name: b.name.clone(),
            offset: u32::try_from(b.off).unwrap_or(0),
            shape,
        };
        match self.0.iter().position(|k| *k == key) {
            Some(i) => i,
            None => {
                self.0.push(key);
                self.0.len() - 1
            }
        }
    }
}

/// A site and where its run-time numbers come from.
#[derive(Clone, Debug)]
struct Fail {
    site: usize,
    blame: CBlame,
}

#[derive(Clone, Debug)]
enum CStep {
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
    Str(Box<strings::StrCheck>),
    /// `fill` (`interp/fill.rs`).
    Fill(Box<fill::FillCheck>),
    When {
        cond: CE,
        step: Box<CStep>,
    },
    Order {
        f: Fail,
        slot: usize,
        /// Inside the table's `for_each` (`None`), or walking table `.0` (record size `.1`).
        walk: Option<(usize, u64)>,
        /// `no_overlap`: the range's `when`, offset and length; else the key.
        when: Option<CE>,
        key: CE,
        length: Option<CE>,
        strict: bool,
    },
    ForEachTable {
        table: usize,
        rec_size: u64,
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
    StreamFits(Box<stream::Fits>),
    /// A record stream's per-record checksums.
    StreamChecksum(Box<stream::Sums>),
    /// A `for_each` over a stream or a stream's collection.
    StreamEach(Box<stream::Each>),
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
type RecField = (u64, IntTy, bool);

/// A section type whose records are hashed with some fields as zero: (type value, record
/// size, [(field offset, width)]).
type ZeroArm = (u64, u64, Vec<(u64, u64)>);

/// A directory, resolved.
#[derive(Clone, Debug)]
struct DirInfo {
    table: usize,
    rec_size: u64,
    type_off: u64,
    type_ty: IntTy,
    /// Whether the type field is stored big-endian.
    type_big: bool,
    /// The section types the schema names, ascending: one count (and first index) each.
    type_slots: Vec<u64>,
    /// The payload range: its `when`, offset and length, in the table's record-only scope.
    when: Option<CE>,
    offset: CE,
    length: CE,
}

/// A collection, resolved.
#[derive(Clone, Debug)]
struct CollInfo {
    name: String,
    dir: usize,
    value: u64,
    rec_size: u64,
    st: usize,
}

// ----- compiling ---------------------------------------------------------------------------

struct Comp<'a> {
    c: &'a check::Checked,
    sites: &'a mut Sites,
    want_slots: usize,
    wants: HashMap<String, usize>,
    /// The codes of the order checks: one "previous" slot each (the emitter's `order_prev`).
    orders: Vec<String>,
}

fn short_name(e: &ExprAt) -> String {
    match &e.expr {
        Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
        _ => String::new(),
    }
}

fn struct_index(c: &check::Checked, name: &str) -> Option<usize> {
    c.schema.structs.iter().position(|s| s.name.text == name)
}

impl Comp<'_> {
    fn file(&self) -> &crate::schema::File {
        &self.c.schema.file
    }

    fn owner_struct(&self, owner: Owner, scope: Scope<'_>) -> Option<usize> {
        let name = match (owner, scope) {
            (Owner::Header, _) => self.file().header.text.clone(),
            (Owner::Located(i), _) => self.file().ext.records.get(i)?.strukt.text.clone(),
            (Owner::Element(t, _), _) => self.file().tables.get(t)?.record.text.clone(),
            (Owner::Record, Scope::Record(t) | Scope::RecordOnly(t)) => t.record.text.clone(),
            _ => return None,
        };
        struct_index(self.c, &name)
    }

    fn own(owner: Owner) -> Own {
        match owner {
            Owner::Header => Own::Header,
            Owner::Record => Own::Record,
            Owner::Located(i) => Own::Located(i),
            Owner::Element(t, k) => Own::Element(t, k),
        }
    }

    fn fref(&self, owner: Owner, fi: usize, scope: Scope<'_>) -> Option<FRef> {
        let st = self.owner_struct(owner, scope)?;
        let s = self.c.schema.structs.get(st)?;
        let (off, kind) = *self.c.layouts.get(&s.name.text)?.fields.get(fi)?;
        Some(FRef {
            own: Self::own(owner),
            st,
            fi,
            off,
            kind,
            big: s.fields.get(fi)?.big,
        })
    }

    fn leaf(&self, path: &[String], scope: Scope<'_>) -> CE {
        match self.c.resolve(path, scope) {
            Ok(Resolved::Len) => CE::Len,
            Ok(Resolved::RecPos(k)) => CE::RecPos(k),
            Ok(Resolved::Let(i)) => CE::Let(i),
            Ok(Resolved::EnumValue(e, v)) => CE::Num(
                self.c
                    .schema
                    .enums
                    .get(e)
                    .and_then(|en| en.values.get(v))
                    .map_or(0, |x| x.value),
            ),
            Ok(Resolved::Const(i)) => {
                let k = &self.c.schema.constants[i];
                if k.ty.signed() {
                    CE::Opt(signed_nonneg(k.value, k.ty))
                } else {
                    CE::Num(k.value)
                }
            }
            Ok(Resolved::Field(owner, fi)) => match self.fref(owner, fi, scope) {
                Some(f) => CE::Field(f),
                None => CE::Zero,
            },
            Ok(Resolved::Nested(owner, l)) => match self.nested_ref(owner, l, scope) {
                Some(f) => match (l.bit, f.kind) {
                    (None, _) => CE::Field(f),
                    (Some(bi), FieldKind::Flags(fl)) => {
                        let bit = self
                            .c
                            .schema
                            .flags
                            .get(fl)
                            .and_then(|x| x.bits.get(bi))
                            .map_or(64, |b| b.bit);
                        CE::FlagBit(
                            f,
                            1u64.checked_shl(u32::try_from(bit).unwrap_or(64))
                                .unwrap_or(0),
                        )
                    }
                    _ => CE::Zero,
                },
                None => CE::Zero,
            },
            Ok(Resolved::Composed(owner, ci)) => {
                let Some(st) = self.owner_struct(owner, scope) else {
                    return CE::Zero;
                };
                let s = &self.c.schema.structs[st];
                let Some(comp) = s.composed.get(ci) else {
                    return CE::Zero;
                };
                let lo = s.fields.iter().position(|f| f.name.text == comp.low.text);
                let hi = s.fields.iter().position(|f| f.name.text == comp.high.text);
                match (
                    lo.and_then(|i| self.fref(owner, i, scope)),
                    hi.and_then(|i| self.fref(owner, i, scope)),
                ) {
                    (Some(l), Some(h)) => CE::Composed(l, h),
                    _ => CE::Zero,
                }
            }
            Ok(Resolved::BitField(owner, fi, bi)) => {
                let Some(f) = self.fref(owner, fi, scope) else {
                    return CE::Zero;
                };
                let FieldKind::Bits(b) = f.kind else {
                    return CE::Zero;
                };
                let Some(r) = self
                    .c
                    .schema
                    .bitfields
                    .get(b)
                    .and_then(|b| b.fields.get(bi))
                else {
                    return CE::Zero;
                };
                CE::BitRange(f, r.lo, ext::range_mask(r.lo, r.hi) >> r.lo)
            }
            Ok(Resolved::FlagBit(owner, fi, bi)) => {
                let Some(f) = self.fref(owner, fi, scope) else {
                    return CE::Zero;
                };
                let FieldKind::Flags(fl) = f.kind else {
                    return CE::Zero;
                };
                let bit = self.c.schema.flags[fl].bits[bi].bit;
                CE::FlagBit(
                    f,
                    1u64.checked_shl(u32::try_from(bit).unwrap_or(64))
                        .unwrap_or(0),
                )
            }
            Err(_) => CE::Zero,
        }
    }

    fn expr(&self, e: &Expr, scope: Scope<'_>) -> CE {
        match e {
            Expr::Num(v) => CE::Num(*v),
            Expr::Ref(p) => self.leaf(p, scope),
            Expr::Bin(op, l, r) => CE::Bin(
                *op,
                Box::new(self.expr(l, scope)),
                Box::new(self.expr(r, scope)),
            ),
            Expr::Not(x) => CE::Not(Box::new(self.expr(x, scope))),
            Expr::Call(f, args) => match (f.as_str(), args.as_slice()) {
                ("count", [Expr::Ref(p)]) => {
                    let name = p.first().map_or("", |s| s.as_str());
                    match self.c.collections.iter().position(|t| t.name.text == name) {
                        Some(i) => CE::Count(i),
                        None => CE::Zero,
                    }
                }
                (crate::positions::NAME, [Expr::Ref(p)]) => {
                    let name = p.first().map_or("", |s| s.as_str());
                    match self.c.collections.iter().position(|t| t.name.text == name) {
                        Some(i) => CE::First(i),
                        None => CE::Zero,
                    }
                }
                ("end", [Expr::Ref(p)]) => {
                    let name = p.first().map_or("", |s| s.as_str());
                    match self
                        .file()
                        .ext
                        .records
                        .iter()
                        .position(|r| r.name.text == name)
                    {
                        Some(i) => CE::End(i),
                        None => CE::Zero,
                    }
                }
                ("if", [c, a, b]) => CE::If(
                    Box::new(self.expr(c, scope)),
                    Box::new(self.expr(a, scope)),
                    Box::new(self.expr(b, scope)),
                ),
                _ => CE::Zero,
            },
            Expr::At(t, i, f) => self.at(t, i, f, scope),
        }
    }

    /// The field an error about expression `e` blames (the emitter's rule, restated).
    fn blame(&self, e: &Expr, scope: Scope<'_>) -> CBlame {
        if let Expr::Ref(p) = e
            && let Ok(r) = self.c.resolve(p, scope)
        {
            let special = match r {
                Resolved::Composed(owner, ci) => self.owner_struct(owner, scope).and_then(|st| {
                    let s = &self.c.schema.structs[st];
                    let comp = s.composed.get(ci)?;
                    let (_, off, _) = ext::field_of(self.c, &s.name.text, &comp.low.text)?;
                    Some((owner, comp.name.text.clone(), off))
                }),
                Resolved::BitField(owner, fi, _) | Resolved::Field(owner, fi)
                    if matches!(owner, Owner::Located(_) | Owner::Element(..))
                        || matches!(r, Resolved::BitField(..)) =>
                {
                    self.owner_struct(owner, scope).and_then(|st| {
                        let s = &self.c.schema.structs[st];
                        let l = self.c.layouts.get(&s.name.text)?;
                        let name = s.fields.get(fi)?.name.text.clone();
                        let off = if ext::is_gated(s) {
                            0
                        } else {
                            l.fields.get(fi)?.0
                        };
                        Some((owner, name, off))
                    })
                }
                Resolved::Nested(owner, l) => {
                    Some((owner, crate::nested::tail(p, owner).join("."), l.at))
                }
                _ => None,
            };
            if let Some((owner, name, off)) = special {
                return match (owner, scope) {
                    (Owner::Record, Scope::Record(t)) => {
                        CBlame::record(&t.name.text, &name, off, BaseK::RecAt, IdxK::Index)
                    }
                    (Owner::Element(ti, k), _) => {
                        let t = &self.file().tables[ti];
                        let size = self.c.layouts.get(&t.record.text).map_or(0, |l| l.size);
                        CBlame::record(
                            &t.name.text,
                            &name,
                            k.saturating_mul(size).saturating_add(off),
                            BaseK::TableAt(ti),
                            IdxK::Const(k),
                        )
                    }
                    (Owner::Located(i), _) => {
                        let r = &self.file().ext.records[i];
                        CBlame {
                            table: String::new(),
                            name: format!("{}.{}", r.name.text, name),
                            off,
                            base: BaseK::Located(i),
                            index: IdxK::None,
                        }
                    }
                    _ => CBlame::plain(format!("header.{name}"), off),
                };
            }
        }
        let Some((owner, fi)) = check::single_field(self.c, e, scope) else {
            return CBlame::plain("header", 0);
        };
        let st = self.owner_struct(owner, scope);
        let s = st.map(|i| &self.c.schema.structs[i]);
        let fname = s
            .and_then(|s| s.fields.get(fi))
            .map_or(String::new(), |f| f.name.text.clone());
        let off = s
            .and_then(|s| self.c.layouts.get(&s.name.text))
            .and_then(|l| l.fields.get(fi))
            .map_or(0, |x| x.0);
        match (owner, scope) {
            (Owner::Record, Scope::Record(t)) => {
                CBlame::record(&t.name.text, &fname, off, BaseK::RecAt, IdxK::Index)
            }
            _ => CBlame::plain(format!("header.{fname}"), off),
        }
    }

    fn fail(&mut self, code: &str, blame: CBlame, shape: Shape) -> Fail {
        let site = self.sites.add(code, &blame, shape);
        Fail { site, blame }
    }

    fn dir_index(&self, name: &str) -> Option<usize> {
        self.file()
            .ext
            .directories
            .iter()
            .position(|d| d.name.text == name)
    }

    fn coll_index(&self, name: &str) -> Option<usize> {
        self.c.collections.iter().position(|t| t.name.text == name)
    }

    fn rec_field(&self, rec: &str, field: &str) -> RecField {
        match ext::field_of(self.c, rec, field) {
            Some((i, off, kind)) => (
                off,
                kind.int_ty(&self.c.schema).unwrap_or(IntTy::U8),
                self.c
                    .strukt(rec)
                    .and_then(|s| s.fields.get(i))
                    .is_some_and(|f| f.big),
            ),
            None => (0, IntTy::U8, false),
        }
    }

    fn steps(&mut self, steps: &[Step], scope: Scope<'_>) -> Vec<CStep> {
        let mut out = Vec::new();
        for (i, s) in steps.iter().enumerate() {
            let prev = i.checked_sub(1).and_then(|p| steps.get(p));
            let next = steps.get(i.saturating_add(1));
            if let Some(x) = self.step(s, prev, next, scope) {
                out.push(x);
            }
        }
        out
    }

    fn field_of_expr(&self, e: &ExprAt, scope: Scope<'_>) -> Option<FRef> {
        let (owner, fi) = check::single_field(self.c, &e.expr, scope)?;
        self.fref(owner, fi, scope)
    }

    #[allow(clippy::too_many_lines)]
    fn step(
        &mut self,
        s: &Step,
        prev: Option<&Step>,
        next: Option<&Step>,
        scope: Scope<'_>,
    ) -> Option<CStep> {
        let c = self.c;
        let file = &c.schema.file;
        Some(match s {
            Step::MinLen { code, min, field } => {
                let name = field
                    .as_ref()
                    .map_or("header".to_string(), |f| f.text.clone());
                let f = self.fail(&code.text, CBlame::plain(name, 0), Shape::Short);
                CStep::MinLen {
                    f,
                    min: self.expr(&min.expr, scope),
                }
            }
            Step::Expect {
                code,
                field,
                equals,
            } => {
                let b = self.blame(&field.expr, scope);
                let f = self.fail(&code.text, b, Shape::Mismatch);
                CStep::Expect {
                    f,
                    found: self.expr(&field.expr, scope),
                    expected: self.expr(&equals.expr, scope),
                }
            }
            Step::Assert { code, expr, field } => {
                let comparison = matches!(&expr.expr, Expr::Bin(op, _, _) if op.is_comparison());
                if !comparison {
                    let b = self.blame(&field.expr, scope);
                    let f = self.fail(&code.text, b, Shape::None);
                    return Some(CStep::Cond {
                        f,
                        cond: self.expr(&expr.expr, scope),
                    });
                }
                let Expr::Bin(op, l, r) = &expr.expr else {
                    return None;
                };
                let name_of = |e: &Expr| match e {
                    Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
                    // `first(collection)` names itself (the emitter's rule, restated).
                    Expr::Call(f, a) if f == crate::positions::NAME => match a.as_slice() {
                        [Expr::Ref(p)] => format!("{f}({})", p.join(".")),
                        _ => String::new(),
                    },
                    _ => String::new(),
                };
                let b = self.blame(&field.expr, scope);
                let names = [name_of(l), op.negated().symbol().to_string(), name_of(r)];
                let f = self.fail(&code.text, b, Shape::Compare(names));
                CStep::Assert {
                    f,
                    op: *op,
                    l: self.expr(l, scope),
                    r: self.expr(r, scope),
                }
            }
            Step::TableFits {
                code,
                table,
                within,
            } => {
                let t = c.table(&table.text)?;
                let ti = file.tables.iter().position(|x| x.name.text == table.text)?;
                let rec_size = c.layouts.get(&t.record.text).map_or(0, |l| l.size);
                let blame_e = if check::single_field(c, &t.count.expr, scope).is_some() {
                    &t.count.expr
                } else {
                    &t.at.expr
                };
                let b = self.blame(blame_e, scope);
                let names = ["table end".to_string(), ">".to_string(), short_name(within)];
                let f = self.fail(&code.text, b, Shape::Compare(names));
                CStep::TableFits {
                    f,
                    table: ti,
                    rec_size,
                    at: self.expr(&t.at.expr, scope),
                    count: self.expr(&t.count.expr, scope),
                    stride: self.expr(&t.stride.expr, scope),
                    within: self.expr(&within.expr, scope),
                }
            }
            Step::RangeFits {
                code,
                range,
                within,
            } => {
                let ri = file.ranges.iter().position(|r| r.name.text == range.text)?;
                let r = &file.ranges[ri];
                let b = self.blame(&r.offset.expr, scope);
                let f = self.fail(&code.text, b, Shape::Range(short_name(within)));
                CStep::RangeFits {
                    f,
                    range: ri,
                    per_record: r.table.is_some(),
                    when: r.when.as_ref().map(|w| self.expr(&w.expr, scope)),
                    start: self.expr(&r.offset.expr, scope),
                    length: self.expr(&r.length.expr, scope),
                    within: self.expr(&within.expr, scope),
                }
            }
            Step::Checksum { code, checksum } => {
                let k = file
                    .checksums
                    .iter()
                    .find(|k| k.name.text == checksum.text)?;
                let b = self.blame(&k.stored.expr, scope);
                let f = self.fail(&code.text, b, Shape::Mismatch);
                CStep::Checksum {
                    f,
                    alg: k.algorithm,
                    from: self.expr(&k.from.expr, scope),
                    to: self.expr(&k.to.expr, scope),
                    stored: self.expr(&k.stored.expr, scope),
                }
            }
            Step::FlagsKnown { code, field } => {
                let fr = self.field_of_expr(field, scope)?;
                let FieldKind::Flags(fl) = fr.kind else {
                    return None;
                };
                let known = c.schema.flags[fl].bits.iter().fold(0u64, |a, b| {
                    a | 1u64
                        .checked_shl(u32::try_from(b.bit).unwrap_or(64))
                        .unwrap_or(0)
                });
                let b = self.blame(&field.expr, scope);
                let f = self.fail(&code.text, b, Shape::UnknownBits);
                CStep::FlagsKnown {
                    f,
                    field: fr,
                    known,
                }
            }
            Step::EnumKnown { code, field } => {
                let fr = self.field_of_expr(field, scope)?;
                let FieldKind::Enum(ei) = fr.kind else {
                    return None;
                };
                let b = self.blame(&field.expr, scope);
                let f = self.fail(&code.text, b, Shape::UnknownValue);
                CStep::EnumKnown {
                    f,
                    field: fr,
                    values: c.schema.enums[ei].values.iter().map(|v| v.value).collect(),
                }
            }
            Step::ForEach { table, steps } if crate::streams::is_target(file, &table.text) => {
                return stream::compile_each(self, &table.text, steps);
            }
            Step::ForEach { table, steps } => {
                if ext::collection_of(file, &table.text).is_some() {
                    let ci = self.coll_index(&table.text)?;
                    let t: &Table = &c.collections[ci];
                    let body = self.steps(steps, Scope::Record(t));
                    CStep::ForEachCollection {
                        coll: ci,
                        steps: body,
                    }
                } else {
                    let ti = file.tables.iter().position(|x| x.name.text == table.text)?;
                    let t = &file.tables[ti];
                    let rec_size = c.layouts.get(&t.record.text).map_or(0, |l| l.size);
                    let body = self.steps(steps, Scope::Record(t));
                    CStep::ForEachTable {
                        table: ti,
                        rec_size,
                        steps: body,
                    }
                }
            }
            Step::Ext(x) => return self.ext_step(x, prev, next, scope),
            Step::Str(x) => return self.str_step(x, scope),
            Step::Fill(x) => return self.fill_step(x, scope),
            Step::StreamFits { code, stream, kind } => {
                return stream::compile_fits(self, &code.text, &stream.text, *kind);
            }
            Step::Let { name, value } => CStep::Let {
                i: check::lets(file).iter().position(|n| n.text == name.text)?,
                value: self.expr(&value.expr, scope),
            },
            Step::When { when, step } => {
                let cond = self.expr(&when.expr, scope);
                let inner = self.step(step, prev, next, scope)?;
                CStep::When {
                    cond,
                    step: Box::new(inner),
                }
            }
            Step::Order {
                code,
                kind,
                target,
                by,
            } => return self.order_step(code, *kind, target, by.as_ref(), scope),
        })
    }

    /// An order check (the emitter's rule, restated): inside the table's `for_each` it
    /// compares each record with the one before in the same pass; at top level it walks the
    /// table itself.
    fn order_step(
        &mut self,
        code: &crate::schema::Name,
        kind: OrderKind,
        target: &crate::schema::Name,
        by: Option<&ExprAt>,
        scope: Scope<'_>,
    ) -> Option<CStep> {
        let c = self.c;
        let file = &c.schema.file;
        let in_loop = matches!(scope, Scope::Record(_));
        let range = file.ranges.iter().find(|r| r.name.text == target.text);
        let tname = match kind {
            OrderKind::NoOverlap => range
                .and_then(|r| r.table.as_ref())
                .map_or(String::new(), |t| t.text.clone()),
            _ => target.text.clone(),
        };
        let ti = file.tables.iter().position(|t| t.name.text == tname)?;
        let t = &file.tables[ti];
        let rscope = Scope::Record(t);
        let slot = match self.orders.iter().position(|x| *x == code.text) {
            Some(i) => i,
            None => {
                self.orders.push(code.text.clone());
                self.orders.len() - 1
            }
        };
        let walk = (!in_loop).then(|| (ti, c.layouts.get(&t.record.text).map_or(0, |l| l.size)));
        match (kind, by, range) {
            (OrderKind::NoOverlap, _, Some(r)) => {
                let b = self.blame(&r.offset.expr, rscope);
                let names = [
                    short_name(&r.offset),
                    "<".to_string(),
                    "previous end".to_string(),
                ];
                let f = self.fail(&code.text, b, Shape::Compare(names));
                Some(CStep::Order {
                    f,
                    slot,
                    walk,
                    when: r.when.as_ref().map(|w| self.expr(&w.expr, rscope)),
                    key: self.expr(&r.offset.expr, rscope),
                    length: Some(self.expr(&r.length.expr, rscope)),
                    strict: false,
                })
            }
            (_, Some(by), _) => {
                let strict = kind == OrderKind::Unique;
                let b = self.blame(&by.expr, rscope);
                let names = [
                    short_name(by),
                    if strict { "<=" } else { "<" }.to_string(),
                    "previous".to_string(),
                ];
                let f = self.fail(&code.text, b, Shape::Compare(names));
                Some(CStep::Order {
                    f,
                    slot,
                    walk,
                    when: None,
                    key: self.expr(&by.expr, rscope),
                    length: None,
                    strict,
                })
            }
            _ => None,
        }
    }

    #[allow(clippy::too_many_lines)]
    fn ext_step(
        &mut self,
        x: &ExtStep,
        prev: Option<&Step>,
        next: Option<&Step>,
        scope: Scope<'_>,
    ) -> Option<CStep> {
        let c = self.c;
        let file = &c.schema.file;
        Some(match x {
            ExtStep::RecordFits {
                code,
                record,
                within,
            } => {
                let ri = file
                    .ext
                    .records
                    .iter()
                    .position(|r| r.name.text == record.text)?;
                let r = &file.ext.records[ri];
                let st = c.strukt(&r.strukt.text)?;
                let single = check::single_field(c, &r.at.expr, scope).is_some();
                let b = if single {
                    self.blame(&r.at.expr, scope)
                } else {
                    CBlame::plain(r.name.text.clone(), 0)
                };
                let f = self.fail(&code.text, b, Shape::Range(short_name(within)));
                let gated = r.gate.is_some();
                CStep::RecordFits {
                    f,
                    rec: ri,
                    sidx: struct_index(c, &r.strukt.text).unwrap_or(usize::MAX),
                    at: self.expr(&r.at.expr, scope),
                    within: self.expr(&within.expr, scope),
                    gate: if gated {
                        r.gate.as_ref().map(|g| self.expr(&g.expr, scope))
                    } else {
                        None
                    },
                    size: c.layouts.get(&st.name.text).map_or(0, |l| l.size),
                    blame_at_value: !single,
                }
            }
            ExtStep::EntrySize { code, directory } => {
                let di = self.dir_index(&directory.text)?;
                let dir = &file.ext.directories[di];
                let Scope::Record(t) = scope else {
                    return None;
                };
                let tn = dir.table.text.clone();
                let es_name = dir.entry_size.text.as_str();
                let es = self.rec_field(&t.record.text, es_name);
                let blame = CBlame::record(&tn, es_name, es.0, BaseK::RecAt, IdxK::Index);
                let names = [
                    "section size".to_string(),
                    "is not a multiple of".to_string(),
                    "entry size".to_string(),
                ];
                let f1 = self.fail(&code.text, blame.clone(), Shape::Compare(names));
                let f2 = self.fail(&code.text, blame, Shape::Mismatch);
                let r = file
                    .ranges
                    .iter()
                    .find(|r| r.name.text == dir.payload.text)?;
                let length = self.expr(&r.length.expr, Scope::RecordOnly(t));
                let arms = dir
                    .layouts
                    .iter()
                    .filter_map(|l| {
                        Some((
                            ext::type_value(c, dir, &l.value.text)?,
                            c.layouts.get(&l.record.text)?.size,
                        ))
                    })
                    .collect();
                CStep::EntrySize {
                    f1,
                    f2,
                    dir: di,
                    es,
                    length,
                    arms,
                }
            }
            ExtStep::Items {
                code,
                array,
                first,
                check,
            } => {
                let Scope::Record(t) = scope else {
                    return None;
                };
                let Some((ai, off, FieldKind::Array(ity, n))) =
                    ext::field_of(c, &t.record.text, &array.text)
                else {
                    return None;
                };
                let big = c
                    .strukt(&t.record.text)
                    .and_then(|s| s.fields.get(ai))
                    .is_some_and(|f| f.big);
                let Expr::Bin(op, _, rhs) = &check.expr else {
                    return None;
                };
                let rhs_name = match &**rhs {
                    Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
                    _ => String::new(),
                };
                let blame =
                    CBlame::record(&t.name.text, &array.text, off, BaseK::RecAt, IdxK::Index);
                let names = [
                    "item".to_string(),
                    op.negated().symbol().to_string(),
                    rhs_name,
                ];
                let f = self.fail(&code.text, blame, Shape::Compare(names));
                CStep::Items {
                    f,
                    off,
                    ity,
                    big,
                    n,
                    first: first.as_ref().map(|e| self.expr(&e.expr, scope)),
                    op: *op,
                    rhs: self.expr(rhs, scope),
                }
            }
            ExtStep::RecordChecksums {
                code,
                missing,
                duplicate,
                checksum,
            } => {
                let (dir, k) = ext::dir_checksum(file, &checksum.text)?;
                let DirChecksumKind::Records {
                    records,
                    target,
                    stored,
                } = &k.kind
                else {
                    return None;
                };
                let (_, layout) = ext::collection_of(file, &records.text)?;
                let di = self.dir_index(&dir.name.text)?;
                let coll = self.coll_index(&records.text)?;
                let rec = layout.record.text.as_str();
                let tf = self.rec_field(rec, &target.text);
                let sf = self.rec_field(rec, &stored.text);
                let col = records.text.as_str();
                let tb = CBlame::record(col, &target.text, tf.0, BaseK::RecAt, IdxK::Index);
                let miss = self.fail(
                    &missing.text,
                    tb.clone(),
                    Shape::Compare(["sections of this type".into(), "!=".into(), String::new()]),
                );
                let dup = self.fail(
                    &duplicate.text,
                    tb,
                    Shape::Compare([
                        "section type".into(),
                        "already named by record".into(),
                        String::new(),
                    ]),
                );
                let fused = matches!(next, Some(Step::Ext(ExtStep::PayloadChecksum { checksum: n, .. }))
                    if ext::dir_checksum(file, &n.text).is_some_and(|(d, _)| d.name.text == dir.name.text));
                let mism = if fused {
                    None
                } else {
                    // Base and index come from the `want` entry at run time.
                    Some(self.fail(
                        &code.text,
                        CBlame::record(col, &stored.text, 0, BaseK::Zero, IdxK::None),
                        Shape::Mismatch,
                    ))
                };
                let want = *self
                    .wants
                    .entry(k.name.text.clone())
                    .or_insert(self.want_slots);
                if want == self.want_slots {
                    self.want_slots += 1;
                }
                CStep::RecordChecksums {
                    miss,
                    dup,
                    mism,
                    dir: di,
                    coll,
                    target: tf,
                    stored: sf,
                    want,
                }
            }
            ExtStep::PayloadChecksum { code, checksum } => {
                let (dir, k) = ext::dir_checksum(file, &checksum.text)?;
                let DirChecksumKind::Payloads { zero, stored } = &k.kind else {
                    return None;
                };
                let di = self.dir_index(&dir.name.text)?;
                let tn = dir.table.text.clone();
                let mut zero_arms = Vec::new();
                for l in &dir.layouts {
                    let fields: Vec<&crate::schema::Name> = zero
                        .iter()
                        .filter(|(col, _)| col.text == l.collection.text)
                        .map(|(_, f)| f)
                        .collect();
                    if fields.is_empty() {
                        continue;
                    }
                    let Some(v) = ext::type_value(c, dir, &l.value.text) else {
                        continue;
                    };
                    let size = c.layouts.get(&l.record.text).map_or(0, |x| x.size);
                    let clears = fields
                        .iter()
                        .filter_map(|f| {
                            let (_, off, kind) = ext::field_of(c, &l.record.text, &f.text)?;
                            Some((off, kind.width(&c.schema)))
                        })
                        .collect();
                    zero_arms.push((v, size, clears));
                }
                let fused = match prev {
                    Some(Step::Ext(ExtStep::RecordChecksums {
                        code: rcode,
                        checksum: rk,
                        ..
                    })) => match ext::dir_checksum(file, &rk.text) {
                        Some((d, rk)) if d.name.text == dir.name.text => {
                            let DirChecksumKind::Records {
                                records,
                                stored: sfield,
                                ..
                            } = &rk.kind
                            else {
                                return None;
                            };
                            let f = self.fail(
                                &rcode.text,
                                CBlame::record(
                                    &records.text,
                                    &sfield.text,
                                    0,
                                    BaseK::Zero,
                                    IdxK::None,
                                ),
                                Shape::Mismatch,
                            );
                            let want = *self.wants.get(&rk.name.text)?;
                            Some((f, want))
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let gone = self.fail(
                    code.text.as_str(),
                    CBlame::record(&tn, &dir.payload.text, 0, BaseK::Zero, IdxK::None),
                    Shape::None,
                );
                let b = self.blame(&stored.expr, scope);
                let mism = self.fail(&code.text, b, Shape::Mismatch);
                CStep::PayloadChecksum {
                    fused,
                    gone,
                    mism,
                    dir: di,
                    zero: zero_arms,
                    stored: self.expr(&stored.expr, scope),
                }
            }
            ExtStep::SlotsPaired { code, slots } => {
                let s = file.ext.slots.iter().find(|s| s.name.text == slots.text)?;
                let di = self.dir_index(&s.directory.text)?;
                let dir = &file.ext.directories[di];
                let (_, layout) = ext::collection_of(file, &s.entries.text)?;
                let rv = ext::type_value(c, dir, &s.region.text)?;
                let ev = ext::type_value(c, dir, &layout.value.text)?;
                let t = file.tables.iter().find(|t| t.name.text == dir.table.text)?;
                let (_, type_off, _) = ext::field_of(c, &t.record.text, &dir.type_field.text)?;
                let names = [
                    format!("{} sections", s.region.text),
                    "unpaired with".to_string(),
                    format!("{} sections", layout.value.text),
                ];
                let f = self.fail(
                    &code.text,
                    CBlame::record(
                        &t.name.text,
                        &dir.type_field.text,
                        type_off,
                        BaseK::Zero,
                        IdxK::None,
                    ),
                    Shape::Compare(names),
                );
                CStep::SlotsPaired {
                    f,
                    dir: di,
                    region: rv,
                    entries: ev,
                }
            }
            ExtStep::SlotsValid { code, slots } => {
                let s = file.ext.slots.iter().find(|s| s.name.text == slots.text)?;
                let di = self.dir_index(&s.directory.text)?;
                let dir = &file.ext.directories[di];
                let rv = ext::type_value(c, dir, &s.region.text)?;
                let (_, layout) = ext::collection_of(file, &s.entries.text)?;
                let coll = self.coll_index(&s.entries.text)?;
                let rec = layout.record.text.clone();
                let of = self.rec_field(&rec, &s.offset.text);
                let sf = self.rec_field(&rec, &s.size.text);
                let col = s.entries.text.as_str();
                let fo = CBlame::record(col, &s.offset.text, of.0, BaseK::RecAt, IdxK::Index);
                let fsz = CBlame::record(col, &s.size.text, sf.0, BaseK::RecAt, IdxK::Index);
                let cmp = |a: &str, b: &str, cc: &str| {
                    Shape::Compare([a.to_string(), b.to_string(), cc.to_string()])
                };
                let e_zero = self.fail(&code.text, fsz.clone(), cmp("size", "==", ""));
                let e_align = self.fail(
                    &code.text,
                    fo.clone(),
                    cmp("offset", "is not a multiple of", ""),
                );
                let e_order = self.fail(
                    &code.text,
                    fo,
                    cmp("offset", "<", "end of the previous slot"),
                );
                let e_past = self.fail(
                    &code.text,
                    fsz,
                    Shape::Range(format!("{} region", s.region.text)),
                );
                CStep::SlotsValid {
                    fs: [e_zero, e_align, e_order, e_past],
                    dir: di,
                    region: rv,
                    coll,
                    offset: of,
                    size: sf,
                    align: s.align,
                }
            }
            ExtStep::SlotsPaddingZero { code, slots } => {
                let s = file.ext.slots.iter().find(|s| s.name.text == slots.text)?;
                let di = self.dir_index(&s.directory.text)?;
                let dir = &file.ext.directories[di];
                let rv = ext::type_value(c, dir, &s.region.text)?;
                let (_, layout) = ext::collection_of(file, &s.entries.text)?;
                let coll = self.coll_index(&s.entries.text)?;
                let rec = layout.record.text.clone();
                let of = self.rec_field(&rec, &s.offset.text);
                let sf = self.rec_field(&rec, &s.size.text);
                let f = self.fail(
                    &code.text,
                    CBlame::record(
                        &dir.table.text,
                        &dir.payload.text,
                        0,
                        BaseK::Zero,
                        IdxK::None,
                    ),
                    Shape::Mismatch,
                );
                CStep::SlotsPadding {
                    f,
                    dir: di,
                    region: rv,
                    coll,
                    offset: of,
                    size: sf,
                }
            }
        })
    }

    fn dirs(&self) -> Vec<DirInfo> {
        self.c
            .schema
            .file
            .ext
            .directories
            .iter()
            .map(|dir| self.dir_info(dir).unwrap_or_else(empty_dir))
            .collect()
    }

    fn dir_info(&self, dir: &Directory) -> Option<DirInfo> {
        let c = self.c;
        let file = &c.schema.file;
        let ti = file
            .tables
            .iter()
            .position(|t| t.name.text == dir.table.text)?;
        let t = &file.tables[ti];
        let (type_i, type_off, kind) = ext::field_of(c, &t.record.text, &dir.type_field.text)?;
        let type_big = c
            .strukt(&t.record.text)
            .and_then(|s| s.fields.get(type_i))
            .is_some_and(|f| f.big);
        let type_slots = ext::type_slots(c, dir);
        let r = file
            .ranges
            .iter()
            .find(|r| r.name.text == dir.payload.text)?;
        let scope = Scope::RecordOnly(t);
        Some(DirInfo {
            table: ti,
            rec_size: c.layouts.get(&t.record.text)?.size,
            type_off,
            type_ty: kind.int_ty(&c.schema)?,
            type_big,
            type_slots,
            when: r.when.as_ref().map(|w| self.expr(&w.expr, scope)),
            offset: self.expr(&r.offset.expr, scope),
            length: self.expr(&r.length.expr, scope),
        })
    }

    fn colls(&self) -> Vec<CollInfo> {
        let c = self.c;
        let file = &c.schema.file;
        c.collections
            .iter()
            .map(|t| {
                let found = ext::collection_of(file, &t.name.text).and_then(|(dir, layout)| {
                    Some(CollInfo {
                        name: t.name.text.clone(),
                        dir: self.dir_index(&dir.name.text)?,
                        value: ext::type_value(c, dir, &layout.value.text)?,
                        rec_size: c.layouts.get(&layout.record.text)?.size,
                        st: struct_index(c, &layout.record.text)?,
                    })
                });
                found.unwrap_or(CollInfo {
                    name: t.name.text.clone(),
                    dir: usize::MAX,
                    value: u64::MAX,
                    rec_size: 0,
                    st: usize::MAX,
                })
            })
            .collect()
    }
}

impl DirInfo {
    /// The count slot of section type `t`, when the schema names it.
    fn slot(&self, t: u64) -> Option<usize> {
        self.type_slots.binary_search(&t).ok()
    }
}

fn empty_dir() -> DirInfo {
    DirInfo {
        table: usize::MAX,
        rec_size: 0,
        type_off: 0,
        type_ty: IntTy::U8,
        type_big: false,
        type_slots: Vec::new(),
        when: None,
        offset: CE::Zero,
        length: CE::Zero,
    }
}

fn signed_nonneg(bits: u64, t: IntTy) -> Option<u64> {
    let v = sign_extend(bits, t);
    u64::try_from(v).ok()
}

fn sign_extend(bits: u64, t: IntTy) -> i64 {
    let w = t.bytes() * 8;
    if w >= 64 {
        bits as i64
    } else {
        let shift = 64 - w;
        ((bits << shift) as i64) >> shift
    }
}

fn compile_file<'c>(c: &'c check::Checked, sites: &mut Sites) -> FileProg<'c> {
    let header_size = c
        .header()
        .and_then(|h| c.layouts.get(&h.name.text))
        .map_or(0, |l| l.size);
    let mut comp = Comp {
        c,
        sites,
        want_slots: 0,
        wants: HashMap::new(),
        orders: Vec::new(),
    };
    let header_site = comp
        .fail(
            &c.schema.file.header_code.text,
            CBlame::plain("header", 0),
            Shape::Short,
        )
        .site;
    let steps = comp.steps(&c.schema.file.validate, Scope::Top);
    let dirs = comp.dirs();
    let colls = comp.colls();
    let streams = stream::infos(&comp);
    let table_rec_size = c
        .schema
        .file
        .tables
        .iter()
        .map(|t| c.layouts.get(&t.record.text).map_or(0, |l| l.size))
        .collect();
    let gates = c
        .schema
        .structs
        .iter()
        .map(|s| ext::is_gated(s).then(|| GateTable::new(c, s)))
        .collect();
    let mut prog = FileProg {
        c,
        header_size,
        header_site,
        steps,
        dirs,
        colls,
        want_slots: comp.want_slots,
        order_slots: comp.orders.len(),
        lets: check::lets(&c.schema.file).len(),
        table_rec_size,
        gates,
        streams,
        fast: fast::Prog::default(),
    };
    prog.fast = fast::lower(&prog);
    prog
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn to_site(id: usize, k: &SiteKey) -> ErrorSite {
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

impl<'c> Interp<'c> {
    /// Prepare a checked schema for interpretation: resolve every reference once and number
    /// the error sites. The site table lives for the rest of the process (it is leaked
    /// once per call, so that errors are the `'static` [`npuschema_core::Error`] the
    /// generated code returns): build one `Interp` per schema, not one per file.
    ///
    /// Only for a schema with a `file` ([`crate::Checked::has_file`]): a schema with
    /// registers only has no bytes to read, and its interpreter would have no header to
    /// check (the CLI refuses such a schema before making one).
    #[must_use]
    pub fn new(checked: &'c crate::Checked) -> Self {
        let c = &checked.0;
        let mut sites = Sites::default();
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
            let unknown_site = sites.add(&vs.code.text, &unknown_blame, Shape::UnknownValue);
            Variants {
                list,
                unknown_site,
                unknown_value,
                unknown_blame,
            }
        });
        if let Some(vs) = &variants {
            top.fast.variants = fast::lower_variants(&top, vs.list.iter().map(|(_, c, _)| c));
        }
        let table: Vec<ErrorSite> = sites
            .0
            .iter()
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

    fn run<'s, 'b, E: Report>(
        &'s self,
        buf: &'b [u8],
    ) -> Result<(&'s FileProg<'c>, Option<&'s str>, State<'b>), E> {
        let Some(vs) = &self.variants else {
            let st = self.run_file::<E>(&self.top, buf)?;
            return Ok((&self.top, None, st));
        };
        let st = self.run_file::<E>(&self.top, buf)?;
        for (i, (key, cond, prog)) in vs.list.iter().enumerate() {
            if self.variant_holds(&st, i, cond) {
                let st = self.run_file::<E>(prog, buf)?;
                return Ok((prog, Some(key.as_str()), st));
            }
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
    fn order<E: Report>(&self, p: &FileProg<'c>, s: &CStep, st: &mut State<'_>) -> Result<(), E> {
        let CStep::Order {
            f,
            slot,
            when,
            key,
            length,
            strict,
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
                if prev.is_some() && (k < pv || (*strict && k == pv)) {
                    return Err(self.err(st, f, [k, pv, 0]));
                }
                st.prev[*slot] = Some(k);
            }
        }
        Ok(())
    }

    fn err<E: Report>(&self, st: &State<'_>, f: &Fail, abc: [u64; 3]) -> E {
        self.err_at(st, f, abc, None, None)
    }

    fn err_at<E: Report>(
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
            IdxK::Index => st.rec_index,
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

    fn run_file<'b, E: Report>(&self, p: &FileProg<'c>, buf: &'b [u8]) -> Result<State<'b>, E> {
        let mut st = State::fresh(p, buf);
        self.run_in(p, &mut st)?;
        Ok(st)
    }

    /// Run file layout `p` on a fresh state: the header's size, then the steps.
    fn run_in<E: Report>(&self, p: &FileProg<'c>, st: &mut State<'_>) -> Result<(), E> {
        if st.buf.len() < usize::try_from(p.header_size).unwrap_or(usize::MAX) {
            let f = Fail {
                site: p.header_site,
                blame: CBlame::plain("header", 0),
            };
            return Err(self.err(st, &f, [p.header_size, st.len, 0]));
        }
        self.exec_file(p, st)
    }

    #[allow(clippy::too_many_lines)]
    fn exec<E: Report>(
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
                    let fits = match (a, n, w) {
                        (Some(a), Some(n), Some(w)) if s == Some(*rec_size) => {
                            table_within(st.buf, a, n, w, *rec_size)
                        }
                        _ => false,
                    };
                    match (fits, a, n) {
                        (true, Some(a), Some(n)) => st.tables[*table] = Some((a, n)),
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
                } => {
                    let data = match (st.val(p, from), st.val(p, to)) {
                        (Some(f), Some(t)) => t
                            .checked_sub(f)
                            .and_then(|n| npuschema_core::range_at(st.buf, f, n)),
                        _ => None,
                    };
                    let stored = st.val(p, stored).unwrap_or(u64::MAX);
                    let computed = data.map(|d| u64::from(checksum(*alg, d)));
                    if computed != Some(stored) {
                        return Err(self.err(st, f, [stored, computed.unwrap_or(0), 0]));
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
                CStep::When { cond, step } => {
                    if st.cond(p, cond) {
                        self.exec(p, std::slice::from_ref(&**step), st)?;
                    }
                }
                CStep::Order { walk: None, .. } => self.order(p, s, st)?,
                CStep::Order {
                    slot,
                    walk: Some((table, rec_size)),
                    ..
                } => {
                    st.prev[*slot] = None;
                    let Some((at, n)) = st.tables[*table] else {
                        continue;
                    };
                    let saved = (st.rec_at, st.rec_index);
                    for i in 0..n {
                        st.rec_at = at.saturating_add(i.saturating_mul(*rec_size));
                        st.rec_index = i;
                        self.order(p, s, st)?;
                    }
                    (st.rec_at, st.rec_index) = saved;
                }
                CStep::ForEachTable {
                    table,
                    rec_size,
                    steps,
                } => {
                    // The order checks' "previous" start afresh before the loop.
                    for x in steps {
                        if let CStep::Order { slot, .. } = x {
                            st.prev[*slot] = None;
                        }
                    }
                    let Some((at, n)) = st.tables[*table] else {
                        continue;
                    };
                    let saved = (st.rec_at, st.rec_index);
                    for i in 0..n {
                        st.rec_at = at.saturating_add(i.saturating_mul(*rec_size));
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
                } => {
                    let (a, w) = (st.val(p, at), st.val(p, within));
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
    fn payload_crc<E: Report>(
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

fn checksum(alg: Algorithm, d: &[u8]) -> u32 {
    match alg {
        Algorithm::Fnv1a32 => npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, d),
        Algorithm::Crc32 => npuschema_core::crc32(0, d),
    }
}

fn compare(op: BinOp, a: u64, b: u64) -> bool {
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

/// `count <= (within - at) / n` and the records inside `buf`: the generated placement check.
fn table_within(buf: &[u8], at: u64, count: u64, within: u64, n: u64) -> bool {
    let within = usize::try_from(within).unwrap_or(usize::MAX);
    let (Ok(at), Ok(count), Ok(n)) = (
        usize::try_from(at),
        usize::try_from(count),
        usize::try_from(n),
    ) else {
        return false;
    };
    let Some(room) = within.checked_sub(at) else {
        return false;
    };
    // `count <= room / n` and `count <= rest / n` as products: for `n > 0` the same
    // verdicts (a product past `usize` is past both), without a division per table.
    let Some(bytes) = count.checked_mul(n).filter(|_| n > 0) else {
        return false;
    };
    let Some(rest) = buf.len().checked_sub(at) else {
        return false;
    };
    bytes <= room && bytes <= rest
}

/// The word of type `t` stored at `at`, little-endian or (`big`) big-endian; 0 when the
/// buffer ends first.
fn read_int(buf: &[u8], at: u64, t: IntTy, big: bool) -> u64 {
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
fn word_ty(kind: FieldKind, schema: &crate::schema::Schema) -> Option<IntTy> {
    match kind {
        FieldKind::Float(false) => Some(IntTy::U32),
        FieldKind::Float(true) => Some(IntTy::U64),
        k => k.int_ty(schema),
    }
}

/// A stored word as the generated `widen` makes it: signed words sign-extend.
fn widen(bits: u64, t: IntTy) -> u64 {
    if t.signed() {
        sign_extend(bits, t) as u64
    } else {
        bits
    }
}

/// The size of a gated struct for gate value `g`.
fn size_for(c: &check::Checked, s: &Struct, g: u64) -> u64 {
    gated_offset(c, s, s.fields.len(), g)
}

/// The offset of field `k` of a gated struct for gate value `g`.
fn gated_offset(c: &check::Checked, s: &Struct, k: usize, g: u64) -> u64 {
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

// ----- run-time state ----------------------------------------------------------------------

#[derive(Clone)]
struct State<'b> {
    buf: &'b [u8],
    len: u64,
    /// Located records: (offset, size, gate).
    located: slots::Slots<(u64, u64, u64), 4>,
    /// Tables after their placement check: (offset, count).
    tables: slots::Slots<(u64, u64), 8>,
    /// File-level ranges after their check: (offset, length).
    ranges: slots::Slots<(u64, u64), 8>,
    dcount: Vec<Vec<u32>>,
    dfirst: Vec<Vec<u32>>,
    want: Vec<Vec<Option<(u64, u64, u64)>>>,
    rec_at: u64,
    rec_index: u64,
    /// The current stream record: its offset, its body's offset and its body's end
    /// (`record.<part>`, set by a stream's `for_each`).
    rec_span: (u64, u64, u64),
    /// Named values, once their `let` ran (and after them the run-invariant values of the
    /// lowered steps, `fast.rs`).
    lets: slots::Slots<u64, 16>,
    /// Each order check's previous key or end.
    prev: slots::Slots<u64, 4>,
}

impl<'b> State<'b> {
    fn read_rec(&self, (off, t, big): RecField) -> u64 {
        widen(
            read_int(self.buf, self.rec_at.saturating_add(off), t, big),
            t,
        )
    }

    /// Where a field's struct starts, and the field's offset in it (`None`: the record is
    /// not there, or the field is absent at its gate).
    fn locate(&self, p: &FileProg<'_>, f: &FRef) -> Option<u64> {
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
                let (at, n) = (*self.tables.get(t)?)?;
                if k >= n {
                    return None;
                }
                let size = *p.table_rec_size.get(t)?;
                at.saturating_add(k.saturating_mul(size))
            }
        };
        Some(base.saturating_add(f.off))
    }

    /// A field's raw word (unsigned bits).
    fn raw(&self, p: &FileProg<'_>, f: &FRef) -> Option<u64> {
        let at = self.locate(p, f)?;
        let t = word_ty(f.kind, &p.c.schema)?;
        Some(read_int(self.buf, at, t, f.big))
    }

    fn val(&self, p: &FileProg<'_>, e: &CE) -> Option<u64> {
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
            CE::Count(ci) => Some(self.count(p, *ci)),
            CE::RecPos(k) => Some(fill::rec_pos(self.rec_span, *k)),
            CE::First(ci) => stream::first(self, p, *ci),
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

    fn cond(&self, p: &FileProg<'_>, e: &CE) -> bool {
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
    fn eval_rec(&self, p: &FileProg<'_>, e: &CE, rec_at: u64) -> Option<u64> {
        let mut s = self.clone_light();
        s.rec_at = rec_at;
        s.val(p, e)
    }

    fn cond_rec(&self, p: &FileProg<'_>, e: &CE, rec_at: u64) -> bool {
        let mut s = self.clone_light();
        s.rec_at = rec_at;
        s.cond(p, e)
    }

    /// A directory's sections: (index, raw type, record offset, record offset).
    fn sections<'s>(
        &'s self,
        _p: &FileProg<'_>,
        d: &'s DirInfo,
    ) -> impl Iterator<Item = (u64, u64, u64, u64)> + 's {
        let (at, n) = self
            .tables
            .get(d.table)
            .copied()
            .flatten()
            .unwrap_or((0, 0));
        (0..n).map(move |i| {
            let rat = at.saturating_add(i.saturating_mul(d.rec_size));
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
    fn payload_at(&self, p: &FileProg<'_>, d: &DirInfo, rec_at: u64) -> Option<&'b [u8]> {
        if let Some(w) = &d.when
            && !self.cond_rec(p, w, rec_at)
        {
            return None;
        }
        let s = self.eval_rec(p, &d.offset, rec_at)?;
        let l = self.eval_rec(p, &d.length, rec_at)?;
        npuschema_core::range_at(self.buf, s, l)
    }

    fn payload(&self, p: &FileProg<'_>, d: &DirInfo, si: u64) -> Option<&'b [u8]> {
        let (at, _) = self.tables.get(d.table).copied().flatten()?;
        self.payload_at(p, d, at.saturating_add(si.saturating_mul(d.rec_size)))
    }

    /// The first section of type `v` with a payload: (payload, index, payload offset).
    fn region(&self, p: &FileProg<'_>, d: &DirInfo, v: u64) -> Option<(&'b [u8], u64, u64)> {
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
    fn count(&self, p: &FileProg<'_>, ci: usize) -> u64 {
        if let Some(n) = stream::count(self, p, ci) {
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
    fn clone_for_each_record(
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
    fn clone_light(&self) -> State<'b> {
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
        }
    }
}
