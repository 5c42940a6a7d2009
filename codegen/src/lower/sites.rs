//! The lowered model's checks: every place a validator can fail (an error site: its code,
//! the field it blames with that field's offset in its struct, the shape of its detail),
//! numbered once for a schema, here.
//!
//! Each construct's sites are one function here ([`fill`], [`stream_fits`], ...: a
//! [`Site`] each, with what it blames and where that lies at run time, [`Blame`]).
//! [`number`] walks the checked file's validation steps in schema order, calling them in
//! the order each step's checks run, and gives the [`SiteList`]: site `k` is the generated
//! module's `ERROR_SITES[k]`, with id `k + 1`; a site met again (the same check in two
//! places, the header's length check in every variant) keeps its first number. Neither back
//! end numbers anything. The interpreter calls the same functions for its checks and looks
//! their sites up. The emitter reads what a check blames from [`blame`] and states the
//! rest of each site where it emits the check; it looks each up too, and a site missing
//! from the list makes the generated module fail to compile, with the check named.
//! `tests/tests/site_numbers.rs` pins the shipped formats' lists, and
//! `codegen/tests/site_model.rs` holds every schema's generated table and the
//! interpreter's to this list.

use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::expr::{Expr, ExprAt};
use crate::schema::ext::{DirChecksumKind, Directory, ExtStep, Slots};
use crate::schema::fill::{FillStep, Span, Value};
use crate::schema::streams::{Stream, StreamStep};
use crate::schema::strings::{StrStep, StringDef};
use crate::schema::top::Step;
use crate::schema::{Checksum, Name, OrderKind, Range, Table};
use crate::sites::{Shape, SiteKey, SiteList};

/// Where the record an error blames lies at run time (the error's byte offset is this plus
/// the blamed field's offset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Base {
    /// At the start of the buffer (or given with the error).
    Zero,
    /// The current record of a `for_each`.
    RecAt,
    /// Located record `i` (index into `file.ext.records`).
    Located(usize),
    /// Table `t`'s first record (index into `file.tables`).
    TableAt(usize),
}

/// Which record of its table an error names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Index {
    /// Outside a table.
    None,
    /// The current record of a `for_each`.
    Current,
    /// Record `k`.
    Const(u64),
}

/// What a check's error blames: the field (with its table, empty outside one) and its
/// offset in its struct, which make the site, and where its record lies at run time.
#[derive(Clone, Debug)]
pub(crate) struct Blame {
    pub(crate) table: String,
    pub(crate) name: String,
    pub(crate) off: u64,
    pub(crate) base: Base,
    pub(crate) index: Index,
}

impl Blame {
    /// A field at a fixed offset of the buffer (the header's, or a part named alone).
    pub(crate) fn plain(name: impl Into<String>, off: u64) -> Self {
        Self {
            table: String::new(),
            name: name.into(),
            off,
            base: Base::Zero,
            index: Index::None,
        }
    }

    /// A field of a record of `table`.
    pub(crate) fn record(table: &str, name: &str, off: u64, base: Base, index: Index) -> Self {
        Self {
            table: table.to_string(),
            name: name.to_string(),
            off,
            base,
            index,
        }
    }

    /// The site of a check failing with `code`, blaming this, with a detail of `shape`.
    pub(crate) fn site(self, code: &str, shape: Shape) -> Site {
        Site {
            code: code.to_string(),
            blame: self,
            shape,
        }
    }
}

/// One place a check fails: its code, what it blames, the shape of its detail.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub(crate) code: String,
    pub(crate) blame: Blame,
    pub(crate) shape: Shape,
}

impl Site {
    /// The row of `ERROR_SITES` this site is (without its number).
    pub(crate) fn key(&self) -> SiteKey {
        SiteKey {
            code: self.code.clone(),
            table: self.blame.table.clone(),
            name: self.blame.name.clone(),
            offset: u32::try_from(self.blame.off).unwrap_or(0),
            shape: self.shape.clone(),
        }
    }
}

/// A detail naming a comparison: `a op b`.
fn cmp(a: &str, op: &str, b: &str) -> Shape {
    Shape::Compare([a.to_string(), op.to_string(), b.to_string()])
}

/// The last name of a reference (`header.size` -> `size`), empty for anything else: how a
/// limit or an operand is named in a detail.
pub(crate) fn short_name(e: &ExprAt) -> String {
    match &e.expr {
        Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
        _ => String::new(),
    }
}

/// An operand of a comparison as its detail names it: a reference's last name,
/// `first(collection)` and the other position functions by themselves, else nothing.
pub(crate) fn operand_name(e: &Expr) -> String {
    match e {
        Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
        Expr::Call(f, a) if crate::expr::POSITIONS.contains(&f.as_str()) => match a.as_slice() {
            [Expr::Ref(p)] => format!("{f}({})", p.join(".")),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

/// The index of the struct that `owner`'s fields are in.
pub(crate) fn owner_struct(c: &Checked, owner: Owner, scope: Scope<'_>) -> Option<usize> {
    let file = &c.schema.file;
    let name = match (owner, scope) {
        (Owner::Header, _) => file.header.text.as_str(),
        (Owner::Located(i), _) => file.ext.records.get(i)?.strukt.text.as_str(),
        (Owner::Element(t, _), _) => file.tables.get(t)?.record.text.as_str(),
        (Owner::Record, Scope::Record(t) | Scope::RecordOnly(t)) => t.record.text.as_str(),
        _ => return None,
    };
    c.schema.structs.iter().position(|s| s.name.text == name)
}

/// The field an error about expression `e` blames: the field it reads when it reads one
/// (a composed value by its name at its low word, a bit range or a field of a located
/// record or of a table's record `k`, a field inside a struct-typed field by its path),
/// else the header.
pub(crate) fn blame(c: &Checked, e: &Expr, scope: Scope<'_>) -> Blame {
    let file = &c.schema.file;
    if let Expr::Ref(p) = e
        && let Ok(r) = c.resolve(p, scope)
    {
        let special = match r {
            Resolved::Composed(owner, ci) => owner_struct(c, owner, scope).and_then(|st| {
                let s = &c.schema.structs[st];
                let comp = s.composed.get(ci)?;
                let (_, off, _) = crate::check::ext::field_of(c, &s.name.text, &comp.low.text)?;
                Some((owner, comp.name.text.clone(), off))
            }),
            Resolved::BitField(owner, fi, _) | Resolved::Field(owner, fi)
                if matches!(owner, Owner::Located(_) | Owner::Element(..))
                    || matches!(r, Resolved::BitField(..)) =>
            {
                owner_struct(c, owner, scope).and_then(|st| {
                    let s = &c.schema.structs[st];
                    let l = c.layouts.get(&s.name.text)?;
                    let name = s.fields.get(fi)?.name.text.clone();
                    let off = if crate::check::lookup::is_gated(s) {
                        0
                    } else {
                        l.fields.get(fi)?.0
                    };
                    Some((owner, name, off))
                })
            }
            Resolved::Nested(owner, l) => {
                Some((owner, crate::check::nested::tail(p, owner).join("."), l.at))
            }
            _ => None,
        };
        if let Some((owner, name, off)) = special {
            return match (owner, scope) {
                (Owner::Record, Scope::Record(t)) => {
                    Blame::record(&t.name.text, &name, off, Base::RecAt, Index::Current)
                }
                (Owner::Element(ti, k), _) => {
                    let Some(t) = file.tables.get(ti) else {
                        return Blame::plain("header", 0);
                    };
                    let size = c.layouts.get(&t.record.text).map_or(0, |l| l.size);
                    Blame::record(
                        &t.name.text,
                        &name,
                        k.saturating_mul(size).saturating_add(off),
                        Base::TableAt(ti),
                        Index::Const(k),
                    )
                }
                (Owner::Located(i), _) => {
                    let Some(r) = file.ext.records.get(i) else {
                        return Blame::plain("header", 0);
                    };
                    let name = format!("{}.{}", r.name.text, name);
                    match &r.table {
                        Some(t) => {
                            Blame::record(&t.text, &name, off, Base::Located(i), Index::Current)
                        }
                        None => Blame::record("", &name, off, Base::Located(i), Index::None),
                    }
                }
                _ => Blame::plain(format!("header.{name}"), off),
            };
        }
    }
    let Some((owner, fi)) = crate::check::expr::single_field(c, e, scope) else {
        return Blame::plain("header", 0);
    };
    let s = owner_struct(c, owner, scope).and_then(|i| c.schema.structs.get(i));
    let fname = s
        .and_then(|s| s.fields.get(fi))
        .map_or(String::new(), |f| f.name.text.clone());
    let off = s
        .and_then(|s| c.layouts.get(&s.name.text))
        .and_then(|l| l.fields.get(fi))
        .map_or(0, |x| x.0);
    match (owner, scope) {
        (Owner::Record, Scope::Record(t)) => {
            Blame::record(&t.name.text, &fname, off, Base::RecAt, Index::Current)
        }
        _ => Blame::plain(format!("header.{fname}"), off),
    }
}

// ----- each construct's sites, in the order its checks run ------------------------------

/// A file's (or variant's) header shorter than its struct.
pub(crate) fn header(c: &Checked) -> Site {
    Blame::plain("header", 0).site(&c.schema.file.header_code.text, Shape::Short)
}

/// `min_len`: the buffer shorter than the size, blaming the field named (else the header).
pub(crate) fn min_len(code: &Name, field: Option<&Name>) -> Site {
    let name = field.map_or("header".to_string(), |f| f.text.clone());
    Blame::plain(name, 0).site(&code.text, Shape::Short)
}

/// `expect: F, equals: V`.
pub(crate) fn expect(c: &Checked, code: &Name, field: &ExprAt, scope: Scope<'_>) -> Site {
    blame(c, &field.expr, scope).site(&code.text, Shape::Mismatch)
}

/// `assert`: a comparison carries both sides, named (the operator negated: what failed);
/// any other condition carries nothing.
pub(crate) fn assert(
    c: &Checked,
    code: &Name,
    expr: &ExprAt,
    field: &ExprAt,
    scope: Scope<'_>,
) -> Site {
    let shape = match &expr.expr {
        Expr::Bin(op, l, r) if op.is_comparison() => {
            cmp(&operand_name(l), op.negated().symbol(), &operand_name(r))
        }
        _ => Shape::None,
    };
    blame(c, &field.expr, scope).site(&code.text, shape)
}

/// `table_fits`: blaming the count when it is one field, else the table's place.
pub(crate) fn table_fits(
    c: &Checked,
    code: &Name,
    t: &Table,
    within: &ExprAt,
    scope: Scope<'_>,
) -> Site {
    let by = if crate::check::expr::single_field(c, &t.count.expr, scope).is_some() {
        &t.count.expr
    } else {
        &t.at.expr
    };
    blame(c, by, scope).site(&code.text, cmp("table end", ">", &short_name(within)))
}

/// `range_fits`.
pub(crate) fn range_fits(
    c: &Checked,
    code: &Name,
    r: &Range,
    within: &ExprAt,
    scope: Scope<'_>,
) -> Site {
    blame(c, &r.offset.expr, scope).site(&code.text, Shape::Range(short_name(within)))
}

/// `checksum`: the stored value differs.
pub(crate) fn checksum(c: &Checked, code: &Name, k: &Checksum, scope: Scope<'_>) -> Site {
    blame(c, &k.field.as_ref().unwrap_or(&k.stored).expr, scope).site(&code.text, Shape::Mismatch)
}

/// `flags_known` (`Shape::UnknownBits`) and `enum_known` (`Shape::UnknownValue`).
pub(crate) fn known(
    c: &Checked,
    code: &Name,
    field: &ExprAt,
    scope: Scope<'_>,
    shape: Shape,
) -> Site {
    blame(c, &field.expr, scope).site(&code.text, shape)
}

/// An order check (`sorted`, `unique`, `no_overlap`) over table `t`'s records: a range's
/// start before the previous end, or a key (a string's, compared as bytes) out of order.
pub(crate) fn order(
    c: &Checked,
    code: &Name,
    kind: OrderKind,
    t: &Table,
    range: Option<&Range>,
    by: Option<&ExprAt>,
) -> Option<Site> {
    let rscope = Scope::Record(t);
    let strict = kind == OrderKind::Unique;
    let (b, shape) = match (kind, by, range) {
        (OrderKind::NoOverlap, _, Some(r)) => (
            blame(c, &r.offset.expr, rscope),
            cmp(&short_name(&r.offset), "<", "previous end"),
        ),
        (_, Some(by), _) => match crate::check::strings::order_key(c, &t.name.text, &by.expr) {
            Some(sd) => (
                blame(c, &sd.offset.expr, rscope),
                Shape::Compare(crate::check::strings::order_key_names(by, strict)),
            ),
            None => (
                blame(c, &by.expr, rscope),
                cmp(&short_name(by), if strict { "<=" } else { "<" }, "previous"),
            ),
        },
        _ => return None,
    };
    Some(b.site(&code.text, shape))
}

/// `string_fits` (the string outside its range) and `string_utf8`.
pub(crate) fn string(c: &Checked, x: &StrStep, sd: &StringDef, scope: Scope<'_>) -> Site {
    let shape = match x {
        StrStep::Fits { .. } => Shape::Range(
            sd.range
                .as_ref()
                .map_or("len".to_string(), |r| r.text.clone()),
        ),
        StrStep::Utf8 { .. } => cmp("valid_utf8", "<", "length"),
    };
    blame(c, &sd.offset.expr, scope).site(&x.code().text, shape)
}

/// A `fill` step: a byte that differs, and a span (or the `same` byte) outside the buffer.
pub(crate) fn fill(s: &FillStep, scope: Scope<'_>) -> [Site; 2] {
    let name = s.field_name();
    let b = match scope {
        Scope::Record(t) => Blame::record(&t.name.text, &name, 0, Base::Zero, Index::Current),
        _ => Blame::plain(&name, 0),
    };
    let code = &s.code.text;
    [
        b.clone().site(code, Shape::Mismatch),
        b.site(code, Shape::Range("len".to_string())),
    ]
}

/// A per-record stream checksum: the stored value outside its record, then differing.
pub(crate) fn stream_checksum(code: &str, s: &Stream) -> [Site; 2] {
    let b = Blame::record(&s.name.text, "checksum", 0, Base::RecAt, Index::Current);
    [
        b.clone().site(code, Shape::Range("record end".into())),
        b.site(code, Shape::Mismatch),
    ]
}

/// A stream's `stream_fits` walk: each way a record can fail to fit.
pub(crate) struct Fits {
    /// A record's header past the range.
    pub(crate) header: Site,
    /// A size that counts the header, below it.
    pub(crate) small: Option<Site>,
    /// A record past the range.
    pub(crate) over: Site,
    /// Per layout that resolves: a body shorter than its record.
    pub(crate) short: Vec<Site>,
    /// Records nested deeper than `max_depth`.
    pub(crate) deep: Option<Site>,
    /// No terminator.
    pub(crate) open: Option<Site>,
    /// Bytes after the terminator, where the stream allows none.
    pub(crate) trailing: Option<Site>,
    /// A chain's link outside its record, back to a record visited, past `max`.
    pub(crate) chain: Option<[Site; 3]>,
    /// A holding record's part outside it, more records than its bytes allow.
    pub(crate) within: Option<[Site; 2]>,
}

impl Fits {
    /// In the order the walk checks them.
    fn all(&self) -> impl Iterator<Item = &Site> {
        std::iter::once(&self.header)
            .chain(&self.small)
            .chain(std::iter::once(&self.over))
            .chain(&self.short)
            .chain(&self.deep)
            .chain(&self.open)
            .chain(&self.trailing)
            .chain(self.chain.iter().flatten())
            .chain(self.within.iter().flatten())
    }
}

/// The sites of stream `s`'s `stream_fits` walk, in range `range` (its name).
pub(crate) fn stream_fits(c: &Checked, code: &str, s: &Stream, range: &str) -> Fits {
    let sn = s.name.text.as_str();
    let rec = |name: &str, off: u64| Blame::record(sn, name, off, Base::RecAt, Index::Current);
    let t = crate::check::lookup::stream_table(s);
    let hs = c.layouts.get(&s.header.text).map_or(0, |l| l.size);
    // A size that reads several header fields blames the record's header (its `size`).
    let sb = match blame(c, &s.size.expr, Scope::Record(&t)) {
        b if b.table.is_empty() && b.name == "header" => rec("size", 0),
        b => b,
    };
    let sname = match &s.size.expr {
        Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
        _ => String::new(),
    };
    let next = rec("next", 0);
    let within = rec("within", 0);
    Fits {
        header: rec("header", 0).site(code, Shape::Range(range.to_string())),
        small: s
            .includes_header
            .then(|| sb.clone().site(code, cmp(&sname, "<", "header bytes"))),
        over: sb.site(code, Shape::Range(range.to_string())),
        short: s
            .layouts
            .iter()
            .filter(|l| {
                crate::check::streams::layout_value(c, l).is_some()
                    && c.layouts.contains_key(&l.record.text)
            })
            .map(|l| rec(&l.collection.text, hs).site(code, cmp("body bytes", "<", &l.record.text)))
            .collect(),
        deep: s
            .layouts
            .iter()
            .any(|l| l.nested.is_some())
            .then(|| rec("depth", 0).site(code, cmp("depth", ">", "max_depth"))),
        open: s
            .end
            .as_ref()
            .map(|_| rec("end", 0).site(code, Shape::None)),
        trailing: s
            .end
            .as_ref()
            .filter(|_| s.trailing.is_none())
            .map(|_| rec("end", 0).site(code, Shape::Range(range.to_string()))),
        chain: s.chain.as_ref().map(|_| {
            [
                next.clone().site(code, Shape::Range("record end".into())),
                next.clone()
                    .site(code, cmp("next", "==", "an earlier record")),
                next.site(code, cmp("records", ">", "max")),
            ]
        }),
        within: s.within.as_ref().map(|_| {
            [
                within.clone().site(code, Shape::Range("record end".into())),
                within.site(code, cmp("records", ">", "range bytes / header bytes")),
            ]
        }),
    }
}

/// `record_fits`: a located record outside its limit (or, found by a search, not found).
pub(crate) fn record_fits(
    c: &Checked,
    code: &Name,
    r: &crate::schema::ext::Record,
    within: &ExprAt,
    scope: Scope<'_>,
) -> Site {
    let single = crate::check::expr::single_field(c, &r.at.expr, scope).is_some();
    let b = match (&r.table, scope) {
        _ if single => blame(c, &r.at.expr, scope),
        // One per record of a collection: `centrals[3].descriptor`.
        (Some(tn), Scope::Record(_)) => {
            Blame::record(&tn.text, &r.name.text, 0, Base::Zero, Index::Current)
        }
        _ => Blame::plain(r.name.text.clone(), 0),
    };
    // A search's miss names the places searched; a placement's, the bytes past the limit.
    let shape = match &r.search {
        Some(s) => Shape::Compare(crate::check::ext::search_names(s)),
        None => Shape::Range(short_name(within)),
    };
    b.site(&code.text, shape)
}

/// The offset of field `field` of struct `rec` (0 if it has none).
fn off_of(c: &Checked, rec: &str, field: &str) -> u64 {
    crate::check::ext::field_of(c, rec, field).map_or(0, |f| f.1)
}

/// `entry_size` of a directory, in a `for_each` over table `t`: a section size that is
/// not a multiple of its entry size, and an entry size that differs from its layout's.
pub(crate) fn entry_size(c: &Checked, code: &Name, dir: &Directory, t: &Table) -> [Site; 2] {
    let es = dir.entry_size.text.as_str();
    let b = Blame::record(
        &dir.table.text,
        es,
        off_of(c, &t.record.text, es),
        Base::RecAt,
        Index::Current,
    );
    [
        b.clone().site(
            &code.text,
            cmp("section size", "is not a multiple of", "entry size"),
        ),
        b.site(&code.text, Shape::Mismatch),
    ]
}

/// `items`: an item of an array field of table `t`'s record (at `off`) failing `item op rhs`.
pub(crate) fn items(
    code: &Name,
    t: &Table,
    array: &ExprAt,
    off: u64,
    op: crate::expr::BinOp,
    rhs: &Expr,
) -> Site {
    let rhs_name = match rhs {
        Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
        _ => String::new(),
    };
    Blame::record(&t.name.text, &array.text, off, Base::RecAt, Index::Current)
        .site(&code.text, cmp("item", op.negated().symbol(), &rhs_name))
}

/// `record_checksums` of collection `col` (records of struct `rec`): a section type with no
/// checksum record, one named twice, and a section's CRC that differs (checked here unless
/// the payload checksum that follows checks it in its pass).
pub(crate) struct RecordSums {
    pub(crate) missing: Site,
    pub(crate) duplicate: Site,
    pub(crate) mismatch: Site,
}

/// The sites of a `record_checksums` step.
pub(crate) fn record_checksums(
    c: &Checked,
    codes: [&Name; 3],
    col: &str,
    rec: &str,
    target: &Name,
    stored: &Name,
) -> RecordSums {
    let [code, missing, duplicate] = codes;
    let tb = Blame::record(
        col,
        &target.text,
        off_of(c, rec, &target.text),
        Base::RecAt,
        Index::Current,
    );
    RecordSums {
        missing: tb
            .clone()
            .site(&missing.text, cmp("sections of this type", "!=", "")),
        duplicate: tb.site(
            &duplicate.text,
            cmp("section type", "already named by record", ""),
        ),
        // Base and index come from the record named at run time.
        mismatch: Blame::record(col, &stored.text, 0, Base::Zero, Index::None)
            .site(&code.text, Shape::Mismatch),
    }
}

/// A payload checksum of directory `dir`: a payload outside the buffer, then the stored
/// value differing.
pub(crate) fn payload_checksum(
    c: &Checked,
    code: &Name,
    dir: &Directory,
    stored: &ExprAt,
    scope: Scope<'_>,
) -> [Site; 2] {
    [
        Blame::record(
            &dir.table.text,
            &dir.payload.text,
            0,
            Base::Zero,
            Index::None,
        )
        .site(&code.text, Shape::None),
        blame(c, &stored.expr, scope).site(&code.text, Shape::Mismatch),
    ]
}

/// The `record_checksums` step right before a payload checksum of directory `dir` (`prev`),
/// when it is over the same directory: the sections it names are then checked in the
/// payload checksum's pass (their own CRC computed once and combined into the file's). Its
/// code and checksum. Every back end asks this, and [`fused_next`] is the same relation
/// seen from the `record_checksums` step.
pub(crate) fn fused_prev<'a>(
    file: &'a crate::schema::top::File,
    prev: Option<&'a Step>,
    dir: &Directory,
) -> Option<(&'a Name, &'a crate::schema::ext::DirChecksum)> {
    let Some(Step::Ext(ExtStep::RecordChecksums { code, checksum, .. })) = prev else {
        return None;
    };
    let (d, k) = crate::check::ext::dir_checksum(file, &checksum.text)?;
    (d.name.text == dir.name.text).then_some((code, k))
}

/// Whether the step after a `record_checksums` step of directory `dir` (`next`) is a
/// payload checksum of the same directory, which then checks its sections ([`fused_prev`]).
pub(crate) fn fused_next(
    file: &crate::schema::top::File,
    next: Option<&Step>,
    dir: &Directory,
) -> bool {
    matches!(next, Some(Step::Ext(ExtStep::PayloadChecksum { checksum, .. }))
        if crate::check::ext::dir_checksum(file, &checksum.text)
            .is_some_and(|(d, _)| d.name.text == dir.name.text))
}

/// The mismatch site of record checksums `k` (code `code`) checked in a payload checksum's
/// pass ([`fused_prev`]).
pub(crate) fn fused_record_sums(code: &Name, k: &crate::schema::ext::DirChecksum) -> Option<Site> {
    let DirChecksumKind::Records {
        records, stored, ..
    } = &k.kind
    else {
        return None;
    };
    Some(
        Blame::record(&records.text, &stored.text, 0, Base::Zero, Index::None)
            .site(&code.text, Shape::Mismatch),
    )
}

/// A pair of parts (by index in `check::ownership::parts`) that may share a byte, and its
/// site.
pub(crate) type PairSite = ((usize, usize), Site);

/// `owned_apart`: more parts than its bound, then each pair of parts that may share a byte
/// (blaming the later part), with the pair.
pub(crate) fn owned_apart(
    c: &Checked,
    code: &Name,
    too_many: &Name,
    ps: &[(&str, crate::check::ownership::Part<'_>)],
) -> (Site, Vec<PairSite>) {
    use crate::check::ownership::Part;
    let blames: Vec<Blame> = ps
        .iter()
        .map(|(n, p)| match *p {
            Part::Header => Blame::plain("header", 0),
            Part::Record(i) => Blame::record("", n, 0, Base::Located(i), Index::None),
            Part::Table(ti) => Blame::record("", n, 0, Base::TableAt(ti), Index::None),
            Part::Range(r, _, t) => blame(c, &r.offset.expr, Scope::Record(t)),
        })
        .collect();
    let many = match ps.iter().find_map(|(_, p)| match p {
        Part::Range(_, ti, t) => Some((*ti, *t)),
        _ => None,
    }) {
        Some((_, t))
            if crate::check::expr::single_field(c, &t.count.expr, Scope::Top).is_some() =>
        {
            blame(c, &t.count.expr, Scope::Top)
        }
        Some((ti, t)) => Blame::record("", &t.name.text, 0, Base::TableAt(ti), Index::None),
        None => Blame::plain("header", 0),
    };
    let many = many.site(&too_many.text, cmp("parts", ">", ""));
    let pairs = crate::check::ownership::pairs_of(ps)
        .into_iter()
        .filter_map(|(j1, j2)| {
            let ((n1, _), b) = (ps.get(j1)?, blames.get(j2)?);
            let shape = Shape::Compare(crate::check::ownership::pair_names(n1));
            Some(((j1, j2), b.clone().site(&code.text, shape)))
        })
        .collect();
    (many, pairs)
}

/// `slots_paired`: a region section without its entries' section (or the reverse), blaming
/// the directory's type field (at `type_off` in table `t`'s record).
pub(crate) fn slots_paired(
    code: &Name,
    s: &Slots,
    dir: &Directory,
    t: &Table,
    entries: &Name,
    type_off: u64,
) -> Site {
    let names = [
        format!("{} sections", s.region.text),
        "unpaired with".to_string(),
        format!("{} sections", entries.text),
    ];
    Blame::record(
        &t.name.text,
        &dir.type_field.text,
        type_off,
        Base::Zero,
        Index::None,
    )
    .site(&code.text, Shape::Compare(names))
}

/// `slots_valid` over slot records of struct `rec`: a size of 0, a misaligned offset, an
/// offset before the previous slot's end, a slot past its region.
pub(crate) fn slots_valid(c: &Checked, code: &Name, s: &Slots, rec: &str) -> [Site; 4] {
    let col = s.entries.text.as_str();
    let fo = Blame::record(
        col,
        &s.offset.text,
        off_of(c, rec, &s.offset.text),
        Base::RecAt,
        Index::Current,
    );
    let fsz = Blame::record(
        col,
        &s.size.text,
        off_of(c, rec, &s.size.text),
        Base::RecAt,
        Index::Current,
    );
    let code = &code.text;
    [
        fsz.clone().site(code, cmp("size", "==", "")),
        fo.clone()
            .site(code, cmp("offset", "is not a multiple of", "")),
        fo.site(code, cmp("offset", "<", "end of the previous slot")),
        fsz.site(code, Shape::Range(format!("{} region", s.region.text))),
    ]
}

/// `slots_padding_zero`: a byte between slots that is not zero.
pub(crate) fn slots_padding(code: &Name, dir: &Directory) -> Site {
    Blame::record(
        &dir.table.text,
        &dir.payload.text,
        0,
        Base::Zero,
        Index::None,
    )
    .site(&code.text, Shape::Mismatch)
}

/// Variants: the selecting field's value that no variant's condition takes.
pub(crate) fn unknown_variant(c: &Checked, vs: &crate::schema::top::Variants) -> Site {
    blame(c, &vs.field.expr, Scope::Top).site(&vs.code.text, Shape::UnknownValue)
}

// ----- the walk -------------------------------------------------------------------------

/// The schema's error sites, numbered: the file's checks in schema order, then each
/// variant's, then the variants' "no variant matches" (a schema without a file has none).
pub(crate) fn number(c: &Checked) -> SiteList {
    let mut list = SiteList::default();
    if !c.schema.has_file {
        return list;
    }
    file(c, &mut list);
    if let Some(vs) = &c.schema.file.ext.variants {
        for vc in c.variants.iter().take(vs.list.len()) {
            file(vc, &mut list);
        }
        list.number(unknown_variant(c, vs).key());
    }
    list
}

/// One file's (or variant's) sites: its header's length check, then its steps.
fn file(c: &Checked, list: &mut SiteList) {
    list.number(header(c).key());
    Walk { c, list }.steps(&c.schema.file.validate, Scope::Top);
}

struct Walk<'c, 'l> {
    c: &'c Checked,
    list: &'l mut SiteList,
}

impl Walk<'_, '_> {
    fn add(&mut self, s: &Site) {
        self.list.number(s.key());
    }

    fn add_all<'s>(&mut self, sites: impl IntoIterator<Item = &'s Site>) {
        for s in sites {
            self.add(s);
        }
    }

    fn steps(&mut self, steps: &[Step], scope: Scope<'_>) {
        for (i, s) in steps.iter().enumerate() {
            let prev = i.checked_sub(1).and_then(|p| steps.get(p));
            let next = steps.get(i.saturating_add(1));
            self.step(s, prev, next, scope);
        }
    }

    fn step(&mut self, s: &Step, prev: Option<&Step>, next: Option<&Step>, scope: Scope<'_>) {
        let c = self.c;
        let file = &c.schema.file;
        match s {
            Step::MinLen { code, field, .. } => self.add(&min_len(code, field.as_ref())),
            Step::Expect { code, field, .. } => self.add(&expect(c, code, field, scope)),
            // Repeated or not, one site: a failing index fails the assert.
            Step::Assert {
                code, expr, field, ..
            } => self.add(&assert(c, code, expr, field, scope)),
            Step::TableFits {
                code,
                table,
                within,
            } => {
                if let Some(t) = file.tables.iter().find(|x| x.name.text == table.text)
                    && c.table(&table.text).is_some()
                {
                    self.add(&table_fits(c, code, t, within, scope));
                }
            }
            Step::RangeFits {
                code,
                range,
                within,
            } => {
                if let Some(r) = file.ranges.iter().find(|r| r.name.text == range.text) {
                    self.add(&range_fits(c, code, r, within, scope));
                }
            }
            Step::Checksum { code, checksum } => {
                if let Some(k) = file.checksum(&checksum.text) {
                    self.add(&self::checksum(c, code, k, scope));
                }
            }
            Step::FlagsKnown { code, field } => {
                if matches!(field_kind(c, field, scope), Some(FieldKind::Flags(_))) {
                    self.add(&known(c, code, field, scope, Shape::UnknownBits));
                }
            }
            Step::EnumKnown { code, field } => {
                if matches!(field_kind(c, field, scope), Some(FieldKind::Enum(_))) {
                    self.add(&known(c, code, field, scope, Shape::UnknownValue));
                }
            }
            Step::ForEach { table, steps } => {
                // A table's, a collection's or a stream's records, each in its own scope.
                let t = if crate::check::lookup::is_target(file, &table.text)
                    || crate::check::ext::collection_of(file, &table.text).is_some()
                {
                    c.collections.iter().find(|t| t.name.text == table.text)
                } else {
                    file.tables.iter().find(|t| t.name.text == table.text)
                };
                if let Some(t) = t {
                    self.steps(steps, Scope::Record(t));
                }
            }
            Step::Ext(x) => self.ext_step(x, prev, next, scope),
            Step::Str(x) => {
                if let Some(sd) = file.strings.iter().find(|d| d.name.text == x.string().text) {
                    self.add(&string(c, x, sd, scope));
                }
            }
            Step::Fill(x) => {
                let [bad, out] = fill(x, scope);
                self.add(&bad);
                // A fill byte that does not compute: nothing else is checked.
                let byte = matches!(x.value, Value::Byte(_));
                if byte && crate::check::fill::byte_value(c, x).is_none() {
                    return;
                }
                if !byte || matches!(x.span, Span::FromTo { .. }) {
                    self.add(&out);
                }
            }
            Step::StreamFits { code, stream, kind } => {
                let Some(s) = file.streams.iter().find(|s| s.name.text == stream.text) else {
                    return;
                };
                if *kind == StreamStep::Checksum {
                    if s.checksum.is_some() {
                        self.add_all(&stream_checksum(&code.text, s));
                    }
                } else if let Some(r) = file.ranges.iter().find(|r| r.name.text == s.range.text) {
                    self.add_all(stream_fits(c, &code.text, s, &r.name.text).all());
                }
            }
            Step::Let { .. } => {}
            Step::When { step, .. } => self.step(step, prev, next, scope),
            Step::Order {
                code,
                kind,
                target,
                by,
            } => {
                let range = file.ranges.iter().find(|r| r.name.text == target.text);
                let tname = match kind {
                    OrderKind::NoOverlap => range
                        .and_then(|r| r.table.as_ref())
                        .map_or("", |t| t.text.as_str()),
                    _ => target.text.as_str(),
                };
                if let Some(t) = file.tables.iter().find(|t| t.name.text == tname)
                    && let Some(site) = order(c, code, *kind, t, range, by.as_ref())
                {
                    self.add(&site);
                }
            }
        }
    }

    fn ext_step(
        &mut self,
        x: &ExtStep,
        prev: Option<&Step>,
        next: Option<&Step>,
        scope: Scope<'_>,
    ) {
        let c = self.c;
        let file = &c.schema.file;
        let dir_named = |n: &Name| file.ext.directories.iter().find(|d| d.name.text == n.text);
        let slots_named = |n: &Name| file.ext.slots.iter().find(|s| s.name.text == n.text);
        match x {
            ExtStep::RecordFits {
                code,
                record,
                within,
            } => {
                if let Some(r) = file.ext.records.iter().find(|r| r.name.text == record.text)
                    && c.strukt(&r.strukt.text).is_some()
                {
                    self.add(&record_fits(c, code, r, within, scope));
                }
            }
            ExtStep::EntrySize { code, directory } => {
                if let (Some(dir), Scope::Record(t)) = (dir_named(directory), scope) {
                    self.add_all(&entry_size(c, code, dir, t));
                }
            }
            ExtStep::Items {
                code, array, check, ..
            } => {
                let Scope::Record(t) = scope else {
                    return;
                };
                if let Some((_, off, FieldKind::Array(..))) =
                    crate::check::ext::field_of(c, &t.record.text, &array.text)
                    && let Expr::Bin(op, _, rhs) = &check.expr
                {
                    self.add(&items(code, t, array, off, *op, rhs));
                }
            }
            ExtStep::RecordChecksums {
                code,
                missing,
                duplicate,
                checksum,
            } => {
                let Some((dir, k)) = crate::check::ext::dir_checksum(file, &checksum.text) else {
                    return;
                };
                let DirChecksumKind::Records {
                    records,
                    target,
                    stored,
                } = &k.kind
                else {
                    return;
                };
                let Some((_, layout)) = crate::check::ext::collection_of(file, &records.text)
                else {
                    return;
                };
                let codes = [code, missing, duplicate];
                let sums =
                    record_checksums(c, codes, &records.text, &layout.record.text, target, stored);
                self.add(&sums.missing);
                self.add(&sums.duplicate);
                // Checked with the payloads' CRC when the payload checksum of its directory
                // follows: that step's site then.
                if !fused_next(file, next, dir) {
                    self.add(&sums.mismatch);
                }
            }
            ExtStep::PayloadChecksum { code, checksum } => {
                let Some((dir, k)) = crate::check::ext::dir_checksum(file, &checksum.text) else {
                    return;
                };
                let DirChecksumKind::Payloads { stored, .. } = &k.kind else {
                    return;
                };
                // The record checksums just before it, checked in the same pass.
                if let Some(f) =
                    fused_prev(file, prev, dir).and_then(|(rcode, rk)| fused_record_sums(rcode, rk))
                {
                    self.add(&f);
                }
                self.add_all(&payload_checksum(c, code, dir, stored, scope));
            }
            ExtStep::OwnedApart {
                code,
                too_many,
                ownership,
            } => {
                if let Some(o) = crate::check::ownership::ownership(c, &ownership.text) {
                    let ps = crate::check::ownership::parts(c, o);
                    let (many, pairs) = owned_apart(c, code, too_many, &ps);
                    self.add(&many);
                    self.add_all(pairs.iter().map(|(_, s)| s));
                }
            }
            ExtStep::SlotsPaired { code, slots } => {
                let Some(s) = slots_named(slots) else {
                    return;
                };
                let Some(dir) = dir_named(&s.directory) else {
                    return;
                };
                let Some((_, layout)) = crate::check::ext::collection_of(file, &s.entries.text)
                else {
                    return;
                };
                let Some(t) = file.tables.iter().find(|t| t.name.text == dir.table.text) else {
                    return;
                };
                let typed = |v: &Name| crate::check::ext::type_value(c, dir, &v.text).is_some();
                if typed(&s.region)
                    && typed(&layout.value)
                    && let Some((_, type_off, _)) =
                        crate::check::ext::field_of(c, &t.record.text, &dir.type_field.text)
                {
                    self.add(&slots_paired(code, s, dir, t, &layout.value, type_off));
                }
            }
            ExtStep::SlotsValid { code, slots } => {
                if let Some(s) = slots_named(slots)
                    && slot_region_typed(c, s)
                    && let Some((_, layout)) =
                        crate::check::ext::collection_of(file, &s.entries.text)
                {
                    self.add_all(&slots_valid(c, code, s, &layout.record.text));
                }
            }
            ExtStep::SlotsPaddingZero { code, slots } => {
                if let Some(s) = slots_named(slots)
                    && let Some(dir) = dir_named(&s.directory)
                    && slot_region_typed(c, s)
                    && crate::check::ext::collection_of(file, &s.entries.text).is_some()
                {
                    self.add(&slots_padding(code, dir));
                }
            }
        }
    }
}

/// Whether a slot region's section type is a value of its directory's type field.
fn slot_region_typed(c: &Checked, s: &Slots) -> bool {
    c.schema
        .file
        .ext
        .directories
        .iter()
        .find(|d| d.name.text == s.directory.text)
        .is_some_and(|dir| crate::check::ext::type_value(c, dir, &s.region.text).is_some())
}

/// The kind of the one field `e` reads, if it reads one.
fn field_kind(c: &Checked, e: &ExprAt, scope: Scope<'_>) -> Option<FieldKind> {
    let (owner, fi) = crate::check::expr::single_field(c, &e.expr, scope)?;
    crate::check::expr::field_kind_of(c, owner, fi, scope)
}
