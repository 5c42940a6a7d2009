//! The lowered model's checks: every place a validator can fail (an error site: its code,
//! the field it blames with that field's offset in its struct, the shape of its detail),
//! numbered once for a schema, here.
//!
//! [`number`] walks the checked file's validation steps in schema order, each step's
//! sites in the order its checks run, and gives the [`SiteList`]: site `k` is the generated
//! module's `ERROR_SITES[k]`, with id `k + 1`; a site met again (the same check in two
//! places, the header's length check in every variant) keeps its first number. Both back
//! ends take their numbers from it and number nothing: the emitter looks each check's
//! site up (a site missing from the list makes the generated module fail to compile, with
//! the check named), the interpreter likewise. What a check blames ([`Blame`], [`blame`])
//! is stated here for the model and the interpreter; the emitter states its own, and its
//! lookups hold it to this one. `tests/tests/site_numbers.rs` pins the shipped formats'
//! lists, and `codegen/tests/site_model.rs` holds every schema's generated table to this
//! list.

use crate::check::{Checked, FieldKind, Owner, Resolved, Scope};
use crate::expr::{Expr, ExprAt};
use crate::schema::ext::{DirChecksumKind, ExtStep};
use crate::schema::top::Step;
use crate::schema::{Name, OrderKind};
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
    pub(crate) fn site(&self, code: &str, shape: Shape) -> SiteKey {
        SiteKey {
            code: code.to_string(),
            table: self.table.clone(),
            name: self.name.clone(),
            offset: u32::try_from(self.off).unwrap_or(0),
            shape,
        }
    }
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
        let b = blame(c, &vs.field.expr, Scope::Top);
        list.number(b.site(&vs.code.text, Shape::UnknownValue));
    }
    list
}

/// One file's (or variant's) sites: its header's length check, then its steps.
fn file(c: &Checked, list: &mut SiteList) {
    let f = &c.schema.file;
    list.number(Blame::plain("header", 0).site(&f.header_code.text, Shape::Short));
    Walk { c, list }.steps(&f.validate, Scope::Top);
}

struct Walk<'c, 'l> {
    c: &'c Checked,
    list: &'l mut SiteList,
}

impl Walk<'_, '_> {
    fn add(&mut self, code: &str, b: &Blame, shape: Shape) {
        self.list.number(b.site(code, shape));
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
            Step::MinLen { code, field, .. } => {
                let name = field
                    .as_ref()
                    .map_or("header".to_string(), |f| f.text.clone());
                self.add(&code.text, &Blame::plain(name, 0), Shape::Short);
            }
            Step::Expect { code, field, .. } => {
                let b = blame(c, &field.expr, scope);
                self.add(&code.text, &b, Shape::Mismatch);
            }
            Step::Assert { code, expr, field } => {
                let b = blame(c, &field.expr, scope);
                let shape = match &expr.expr {
                    Expr::Bin(op, l, r) if op.is_comparison() => Shape::Compare([
                        operand_name(l),
                        op.negated().symbol().to_string(),
                        operand_name(r),
                    ]),
                    _ => Shape::None,
                };
                self.add(&code.text, &b, shape);
            }
            Step::TableFits {
                code,
                table,
                within,
            } => {
                let Some(t) = c.table(&table.text) else {
                    return;
                };
                if !file.tables.iter().any(|x| x.name.text == table.text) {
                    return;
                }
                let by = if crate::check::expr::single_field(c, &t.count.expr, scope).is_some() {
                    &t.count.expr
                } else {
                    &t.at.expr
                };
                let names = ["table end".to_string(), ">".to_string(), short_name(within)];
                self.add(&code.text, &blame(c, by, scope), Shape::Compare(names));
            }
            Step::RangeFits {
                code,
                range,
                within,
            } => {
                if let Some(r) = file.ranges.iter().find(|r| r.name.text == range.text) {
                    let b = blame(c, &r.offset.expr, scope);
                    self.add(&code.text, &b, Shape::Range(short_name(within)));
                }
            }
            Step::Checksum { code, checksum } => {
                if let Some(k) = file.checksum(&checksum.text) {
                    self.add(
                        &code.text,
                        &blame(c, &k.stored.expr, scope),
                        Shape::Mismatch,
                    );
                }
            }
            Step::FlagsKnown { code, field } => {
                if matches!(field_kind(c, field, scope), Some(FieldKind::Flags(_))) {
                    let b = blame(c, &field.expr, scope);
                    self.add(&code.text, &b, Shape::UnknownBits);
                }
            }
            Step::EnumKnown { code, field } => {
                if matches!(field_kind(c, field, scope), Some(FieldKind::Enum(_))) {
                    let b = blame(c, &field.expr, scope);
                    self.add(&code.text, &b, Shape::UnknownValue);
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
                let Some(sd) = file.strings.iter().find(|d| d.name.text == x.string().text) else {
                    return;
                };
                let shape = match x {
                    crate::schema::strings::StrStep::Fits { .. } => Shape::Range(
                        sd.range
                            .as_ref()
                            .map_or("len".to_string(), |r| r.text.clone()),
                    ),
                    crate::schema::strings::StrStep::Utf8 { .. } => Shape::Compare([
                        "valid_utf8".to_string(),
                        "<".to_string(),
                        "length".to_string(),
                    ]),
                };
                self.add(&x.code().text, &blame(c, &sd.offset.expr, scope), shape);
            }
            Step::Fill(x) => self.fill(x, scope),
            Step::StreamFits { code, stream, kind } => {
                self.stream_fits(&code.text, &stream.text, *kind)
            }
            Step::Let { .. } => {}
            Step::When { step, .. } => self.step(step, prev, next, scope),
            Step::Order {
                code,
                kind,
                target,
                by,
            } => self.order(code, *kind, target, by.as_ref()),
        }
    }

    /// An order check's one site.
    fn order(&mut self, code: &Name, kind: OrderKind, target: &Name, by: Option<&ExprAt>) {
        let c = self.c;
        let file = &c.schema.file;
        let range = file.ranges.iter().find(|r| r.name.text == target.text);
        let tname = match kind {
            OrderKind::NoOverlap => range
                .and_then(|r| r.table.as_ref())
                .map_or(String::new(), |t| t.text.clone()),
            _ => target.text.clone(),
        };
        let Some(t) = file.tables.iter().find(|t| t.name.text == tname) else {
            return;
        };
        let rscope = Scope::Record(t);
        let strict = kind == OrderKind::Unique;
        let (b, names) = match (kind, by, range) {
            (OrderKind::NoOverlap, _, Some(r)) => (
                blame(c, &r.offset.expr, rscope),
                [
                    short_name(&r.offset),
                    "<".to_string(),
                    "previous end".to_string(),
                ],
            ),
            (_, Some(by), _) => match crate::check::strings::order_key(c, &t.name.text, &by.expr) {
                Some(sd) => (
                    blame(c, &sd.offset.expr, rscope),
                    crate::check::strings::order_key_names(by, strict),
                ),
                None => (
                    blame(c, &by.expr, rscope),
                    [
                        short_name(by),
                        if strict { "<=" } else { "<" }.to_string(),
                        "previous".to_string(),
                    ],
                ),
            },
            _ => return,
        };
        self.add(&code.text, &b, Shape::Compare(names));
    }

    /// A `fill` step's sites: a byte that differs, a `same` byte outside the buffer, a
    /// `{ from, to }` span outside it.
    fn fill(&mut self, s: &crate::schema::fill::FillStep, scope: Scope<'_>) {
        use crate::schema::fill::{Span, Value};
        let name = s.field_name();
        let b = match scope {
            Scope::Record(t) => Blame::record(&t.name.text, &name, 0, Base::Zero, Index::Current),
            _ => Blame::plain(&name, 0),
        };
        let code = &s.code.text;
        self.add(code, &b, Shape::Mismatch);
        match &s.value {
            Value::Byte(_) if crate::check::fill::byte_value(self.c, s).is_none() => return,
            Value::Byte(_) => {}
            Value::Same(_) => self.add(code, &b, Shape::Range("len".to_string())),
        }
        match &s.span {
            Span::Range(_) => {}
            Span::FromTo { .. } => self.add(code, &b, Shape::Range("len".to_string())),
        }
    }

    /// A stream's `stream_fits` walk (or its per-record checksum step).
    fn stream_fits(&mut self, code: &str, target: &str, kind: crate::schema::streams::StreamStep) {
        let c = self.c;
        let file = &c.schema.file;
        let Some(s) = file.streams.iter().find(|s| s.name.text == target) else {
            return;
        };
        let sn = s.name.text.as_str();
        let rec = |name: &str, off: u64| Blame::record(sn, name, off, Base::RecAt, Index::Current);
        let cmp = |a: &str, op: &str, b: &str| Shape::Compare([a.into(), op.into(), b.into()]);
        if kind == crate::schema::streams::StreamStep::Checksum {
            if s.checksum.is_some() {
                self.add(code, &rec("checksum", 0), Shape::Range("record end".into()));
                self.add(code, &rec("checksum", 0), Shape::Mismatch);
            }
            return;
        }
        let Some(r) = file.ranges.iter().find(|r| r.name.text == s.range.text) else {
            return;
        };
        let rname = r.name.text.clone();
        let t = crate::check::lookup::stream_table(s);
        let hs = c.layouts.get(&s.header.text).map_or(0, |l| l.size);
        self.add(code, &rec("header", 0), Shape::Range(rname.clone()));
        // A size that reads several header fields blames the record's header (its `size`).
        let sb = match blame(c, &s.size.expr, Scope::Record(&t)) {
            b if b.table.is_empty() && b.name == "header" => rec("size", 0),
            b => b,
        };
        if s.includes_header {
            let sname = match &s.size.expr {
                Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
                _ => String::new(),
            };
            self.add(code, &sb, cmp(&sname, "<", "header bytes"));
        }
        self.add(code, &sb, Shape::Range(rname.clone()));
        for l in &s.layouts {
            if crate::check::streams::layout_value(c, l).is_none()
                || !c.layouts.contains_key(&l.record.text)
            {
                continue;
            }
            let b = rec(&l.collection.text, hs);
            self.add(code, &b, cmp("body bytes", "<", &l.record.text));
        }
        if s.layouts.iter().any(|l| l.nested.is_some()) {
            self.add(code, &rec("depth", 0), cmp("depth", ">", "max_depth"));
        }
        if s.end.is_some() {
            self.add(code, &rec("end", 0), Shape::None);
            // Bytes after the terminator: an error unless the stream allows them.
            if s.trailing.is_none() {
                self.add(code, &rec("end", 0), Shape::Range(rname));
            }
        }
        // A chain's: its link outside the record, a link back to a record visited (a
        // cycle), more records than `max`.
        if s.chain.is_some() {
            let next = rec("next", 0);
            self.add(code, &next, Shape::Range("record end".into()));
            self.add(code, &next, cmp("next", "==", "an earlier record"));
            self.add(code, &next, cmp("records", ">", "max"));
        }
        // A stream within another's records: a holding record's part outside it.
        if s.within.is_some() {
            let w = rec("within", 0);
            self.add(code, &w, Shape::Range("record end".into()));
            self.add(code, &w, cmp("records", ">", "range bytes / header bytes"));
        }
    }

    #[allow(clippy::too_many_lines)]
    fn ext_step(
        &mut self,
        x: &ExtStep,
        prev: Option<&Step>,
        next: Option<&Step>,
        scope: Scope<'_>,
    ) {
        let c = self.c;
        let file = &c.schema.file;
        let off_of =
            |rec: &str, field: &str| crate::check::ext::field_of(c, rec, field).map_or(0, |f| f.1);
        let cmp = |a: &str, op: &str, b: &str| Shape::Compare([a.into(), op.into(), b.into()]);
        match x {
            ExtStep::RecordFits {
                code,
                record,
                within,
            } => {
                let Some(r) = file.ext.records.iter().find(|r| r.name.text == record.text) else {
                    return;
                };
                if c.strukt(&r.strukt.text).is_none() {
                    return;
                }
                let single = crate::check::expr::single_field(c, &r.at.expr, scope).is_some();
                let b = match (&r.table, scope) {
                    _ if single => blame(c, &r.at.expr, scope),
                    // One per record of a collection: `centrals[3].descriptor`.
                    (Some(tn), Scope::Record(_)) => {
                        Blame::record(&tn.text, &r.name.text, 0, Base::Zero, Index::Current)
                    }
                    _ => Blame::plain(r.name.text.clone(), 0),
                };
                // A search's miss names the places searched; a placement's, the bytes past
                // the limit.
                let shape = match &r.search {
                    Some(s) => Shape::Compare(crate::check::ext::search_names(s)),
                    None => Shape::Range(short_name(within)),
                };
                self.add(&code.text, &b, shape);
            }
            ExtStep::EntrySize { code, directory } => {
                let Some(dir) = file
                    .ext
                    .directories
                    .iter()
                    .find(|d| d.name.text == directory.text)
                else {
                    return;
                };
                let Scope::Record(t) = scope else {
                    return;
                };
                let es = dir.entry_size.text.as_str();
                let b = Blame::record(
                    &dir.table.text,
                    es,
                    off_of(&t.record.text, es),
                    Base::RecAt,
                    Index::Current,
                );
                self.add(
                    &code.text,
                    &b,
                    cmp("section size", "is not a multiple of", "entry size"),
                );
                self.add(&code.text, &b, Shape::Mismatch);
            }
            ExtStep::Items {
                code, array, check, ..
            } => {
                let Scope::Record(t) = scope else {
                    return;
                };
                let Some((_, off, FieldKind::Array(..))) =
                    crate::check::ext::field_of(c, &t.record.text, &array.text)
                else {
                    return;
                };
                let Expr::Bin(op, _, rhs) = &check.expr else {
                    return;
                };
                let rhs_name = match rhs.as_ref() {
                    Expr::Ref(p) => p.last().cloned().unwrap_or_default(),
                    _ => String::new(),
                };
                let b = Blame::record(&t.name.text, &array.text, off, Base::RecAt, Index::Current);
                self.add(
                    &code.text,
                    &b,
                    cmp("item", op.negated().symbol(), &rhs_name),
                );
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
                let rec = layout.record.text.as_str();
                let col = records.text.as_str();
                let tb = Blame::record(
                    col,
                    &target.text,
                    off_of(rec, &target.text),
                    Base::RecAt,
                    Index::Current,
                );
                self.add(&missing.text, &tb, cmp("sections of this type", "!=", ""));
                self.add(
                    &duplicate.text,
                    &tb,
                    cmp("section type", "already named by record", ""),
                );
                // Checked with the payloads' CRC when the payload checksum of its directory
                // follows: that step's site then.
                let fused = matches!(next, Some(Step::Ext(ExtStep::PayloadChecksum { checksum: n, .. }))
                    if crate::check::ext::dir_checksum(file, &n.text).is_some_and(|(d, _)| d.name.text == dir.name.text));
                if !fused {
                    let b = Blame::record(col, &stored.text, 0, Base::Zero, Index::None);
                    self.add(&code.text, &b, Shape::Mismatch);
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
                if let Some(Step::Ext(ExtStep::RecordChecksums {
                    code: rcode,
                    checksum: rk,
                    ..
                })) = prev
                    && let Some((d, rk)) = crate::check::ext::dir_checksum(file, &rk.text)
                    && d.name.text == dir.name.text
                {
                    let DirChecksumKind::Records {
                        records,
                        stored: sfield,
                        ..
                    } = &rk.kind
                    else {
                        return;
                    };
                    let b = Blame::record(&records.text, &sfield.text, 0, Base::Zero, Index::None);
                    self.add(&rcode.text, &b, Shape::Mismatch);
                }
                let gone = Blame::record(
                    &dir.table.text,
                    &dir.payload.text,
                    0,
                    Base::Zero,
                    Index::None,
                );
                self.add(&code.text, &gone, Shape::None);
                self.add(&code.text, &blame(c, &stored.expr, scope), Shape::Mismatch);
            }
            ExtStep::OwnedApart {
                code,
                too_many,
                ownership,
            } => self.owned_apart(code, too_many, ownership),
            ExtStep::SlotsPaired { code, slots } => {
                let Some(s) = file.ext.slots.iter().find(|s| s.name.text == slots.text) else {
                    return;
                };
                let Some(dir) = file
                    .ext
                    .directories
                    .iter()
                    .find(|d| d.name.text == s.directory.text)
                else {
                    return;
                };
                let Some((_, layout)) = crate::check::ext::collection_of(file, &s.entries.text)
                else {
                    return;
                };
                let Some(t) = file.tables.iter().find(|t| t.name.text == dir.table.text) else {
                    return;
                };
                let tf = &dir.type_field.text;
                let b = Blame::record(
                    &t.name.text,
                    tf,
                    off_of(&t.record.text, tf),
                    Base::Zero,
                    Index::None,
                );
                let names = [
                    format!("{} sections", s.region.text),
                    "unpaired with".to_string(),
                    format!("{} sections", layout.value.text),
                ];
                self.add(&code.text, &b, Shape::Compare(names));
            }
            ExtStep::SlotsValid { code, slots } => {
                let Some(s) = file.ext.slots.iter().find(|s| s.name.text == slots.text) else {
                    return;
                };
                if !slot_region_typed(c, s) {
                    return;
                }
                let Some((_, layout)) = crate::check::ext::collection_of(file, &s.entries.text)
                else {
                    return;
                };
                let rec = layout.record.text.as_str();
                let col = s.entries.text.as_str();
                let fo = Blame::record(
                    col,
                    &s.offset.text,
                    off_of(rec, &s.offset.text),
                    Base::RecAt,
                    Index::Current,
                );
                let fsz = Blame::record(
                    col,
                    &s.size.text,
                    off_of(rec, &s.size.text),
                    Base::RecAt,
                    Index::Current,
                );
                let code = &code.text;
                self.add(code, &fsz, cmp("size", "==", ""));
                self.add(code, &fo, cmp("offset", "is not a multiple of", ""));
                self.add(code, &fo, cmp("offset", "<", "end of the previous slot"));
                self.add(
                    code,
                    &fsz,
                    Shape::Range(format!("{} region", s.region.text)),
                );
            }
            ExtStep::SlotsPaddingZero { code, slots } => {
                let Some(s) = file.ext.slots.iter().find(|s| s.name.text == slots.text) else {
                    return;
                };
                let Some(dir) = file
                    .ext
                    .directories
                    .iter()
                    .find(|d| d.name.text == s.directory.text)
                else {
                    return;
                };
                let b = Blame::record(
                    &dir.table.text,
                    &dir.payload.text,
                    0,
                    Base::Zero,
                    Index::None,
                );
                self.add(&code.text, &b, Shape::Mismatch);
            }
        }
    }

    /// An `owned_apart` step's sites: too many parts, then one per pair of parts that may
    /// share a byte (blaming the later part).
    fn owned_apart(&mut self, code: &Name, too_many: &Name, name: &Name) {
        use crate::check::ownership::Part;
        let c = self.c;
        let Some(o) = crate::check::ownership::ownership(c, &name.text) else {
            return;
        };
        let ps = crate::check::ownership::parts(c, o);
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
        self.add(
            &too_many.text,
            &many,
            Shape::Compare(["parts".into(), ">".into(), String::new()]),
        );
        for (j1, j2) in crate::check::ownership::pairs_of(&ps) {
            let (Some((n1, _)), Some(b)) = (ps.get(j1), blames.get(j2)) else {
                continue;
            };
            self.add(
                &code.text,
                b,
                Shape::Compare(crate::check::ownership::pair_names(n1)),
            );
        }
    }
}

/// Whether a slot region's section type is a value of its directory's type field.
fn slot_region_typed(c: &Checked, s: &crate::schema::ext::Slots) -> bool {
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
    let st = owner_struct(c, owner, scope).and_then(|i| c.schema.structs.get(i))?;
    Some(c.layouts.get(&st.name.text)?.fields.get(fi)?.1)
}
