//! Compiling a checked schema's steps into the interpreter's forms (`ir.rs`).

use std::collections::HashMap;

use crate::check::{self, FieldKind, Owner, Resolved, Scope};
use crate::expr::{Expr, ExprAt};
use crate::schema::ext::{self, DirChecksumKind, Directory, ExtStep};
use crate::schema::top::Step;
use crate::schema::{IntTy, OrderKind, Table};

use super::ir::*;
use super::lowered::Prog;
use super::prog::FileProg;
use crate::lower::sites;

// ----- compiling ---------------------------------------------------------------------------

pub(super) struct Comp<'a> {
    pub(super) c: &'a check::Checked,
    pub(super) sites: &'a mut Sites,
    pub(super) want_slots: usize,
    pub(super) wants: HashMap<String, usize>,
    /// The codes of the order checks: one "previous" slot each (the emitter's `order_prev`).
    pub(super) orders: Vec<String>,
}

pub(super) fn struct_index(c: &check::Checked, name: &str) -> Option<usize> {
    c.schema.structs.iter().position(|s| s.name.text == name)
}

impl Comp<'_> {
    pub(super) fn file(&self) -> &crate::schema::top::File {
        &self.c.schema.file
    }

    pub(super) fn owner_struct(&self, owner: Owner, scope: Scope<'_>) -> Option<usize> {
        sites::owner_struct(self.c, owner, scope)
    }

    pub(super) fn own(owner: Owner) -> Own {
        match owner {
            Owner::Header => Own::Header,
            Owner::Record => Own::Record,
            Owner::Located(i) => Own::Located(i),
            Owner::Element(t, k) => Own::Element(t, k),
        }
    }

    pub(super) fn fref(&self, owner: Owner, fi: usize, scope: Scope<'_>) -> Option<FRef> {
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
            file_order: s.fields.get(fi)?.file_order,
        })
    }

    pub(super) fn leaf(&self, path: &[String], scope: Scope<'_>) -> CE {
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

    pub(super) fn expr(&self, e: &Expr, scope: Scope<'_>) -> CE {
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
                (
                    crate::expr::NAME
                    | crate::expr::LAST
                    | crate::expr::FIRST_BODY
                    | crate::expr::LAST_BODY,
                    [Expr::Ref(p)],
                ) => {
                    let name = p.first().map_or("", |s| s.as_str());
                    match self.c.collections.iter().position(|t| t.name.text == name) {
                        Some(i) if f == crate::expr::NAME => CE::First(i),
                        Some(i) if f == crate::expr::LAST => CE::Last(i),
                        Some(i) => CE::Body(i, f == crate::expr::LAST_BODY),
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
                (crate::expr::WORD, [a, w]) => CE::Word(
                    Box::new(self.expr(a, scope)),
                    Box::new(self.expr(w, scope)),
                    // The file's order: the header's choice (`None`), or the schema's.
                    self.c
                        .schema
                        .big_when
                        .is_none()
                        .then_some(self.c.schema.big),
                ),
                ("if", [c, a, b]) => CE::If(
                    Box::new(self.expr(c, scope)),
                    Box::new(self.expr(a, scope)),
                    Box::new(self.expr(b, scope)),
                ),
                _ => CE::Zero,
            },
            Expr::At(t, i, f) => self.at(t, i, f, scope),
            // A key is compiled as the index of its `table[...]` (`at`), never alone.
            Expr::Key(..) => CE::Zero,
        }
    }

    /// The field an error about expression `e` blames (the lowered model's rule).
    pub(super) fn blame(&self, e: &Expr, scope: Scope<'_>) -> CBlame {
        crate::lower::sites::blame(self.c, e, scope)
    }

    /// A site of the lowered model (`lower/sites.rs`), looked up in its list.
    pub(super) fn fail(&mut self, s: Site) -> Fail {
        let site = self.sites.add(&s.key());
        Fail {
            site,
            blame: s.blame,
        }
    }

    pub(super) fn dir_index(&self, name: &str) -> Option<usize> {
        self.file()
            .ext
            .directories
            .iter()
            .position(|d| d.name.text == name)
    }

    pub(super) fn coll_index(&self, name: &str) -> Option<usize> {
        self.c.collections.iter().position(|t| t.name.text == name)
    }

    pub(super) fn rec_field(&self, rec: &str, field: &str) -> RecField {
        match crate::check::ext::field_of(self.c, rec, field) {
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

    pub(super) fn steps(&mut self, steps: &[Step], scope: Scope<'_>) -> Vec<CStep> {
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

    pub(super) fn field_of_expr(&self, e: &ExprAt, scope: Scope<'_>) -> Option<FRef> {
        let (owner, fi) = crate::check::expr::single_field(self.c, &e.expr, scope)?;
        self.fref(owner, fi, scope)
    }

    #[allow(clippy::too_many_lines)]
    pub(super) fn step(
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
                let f = self.fail(sites::min_len(code, field.as_ref()));
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
                let f = self.fail(sites::expect(c, code, field, scope));
                CStep::Expect {
                    f,
                    found: self.expr(&field.expr, scope),
                    expected: self.expr(&equals.expr, scope),
                }
            }
            Step::Assert {
                code,
                expr,
                field,
                repeat,
            } => {
                let f = self.fail(sites::assert(c, code, expr, field, scope));
                let comparison = matches!(&expr.expr, Expr::Bin(op, _, _) if op.is_comparison());
                let one = if !comparison {
                    CStep::Cond {
                        f: f.clone(),
                        cond: self.expr(&expr.expr, scope),
                    }
                } else {
                    let Expr::Bin(op, l, r) = &expr.expr else {
                        return None;
                    };
                    CStep::Assert {
                        f: f.clone(),
                        op: *op,
                        l: self.expr(l, scope),
                        r: self.expr(r, scope),
                    }
                };
                let Some(r) = repeat else {
                    return Some(one);
                };
                // Its count of runs in a slot of the order checks' (`State::prev`), kept
                // over the whole run, as the generated `__reps_*`.
                let key = format!("\u{0}reps {}:{}", expr.pos.line, expr.pos.col);
                let slot = match self.orders.iter().position(|x| *x == key) {
                    Some(i) => i,
                    None => {
                        self.orders.push(key);
                        self.orders.len() - 1
                    }
                };
                CStep::Repeat {
                    f,
                    var: self.c.lets.position(&r.var.text)?,
                    below: self.expr(&r.below.expr, scope),
                    slot,
                    // No value on either side of a comparison; nothing for a condition.
                    none: if comparison { 3 } else { 0 },
                    step: Box::new(one),
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
                let f = self.fail(sites::table_fits(c, code, &file.tables[ti], within, scope));
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
                let f = self.fail(sites::range_fits(c, code, r, within, scope));
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
                let k = file.checksum(&checksum.text)?;
                let f = self.fail(sites::checksum(c, code, k, scope));
                CStep::Checksum {
                    f,
                    alg: k.algorithm,
                    from: self.expr(&k.from.expr, scope),
                    to: self.expr(&k.to.expr, scope),
                    stored: self.expr(&k.stored.expr, scope),
                    zero: k
                        .zero
                        .iter()
                        .filter_map(|z| self.field_of_expr(z, scope))
                        .collect(),
                    equals: k.equals,
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
                let f = self.fail(sites::known(c, code, field, scope, Shape::UnknownBits));
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
                let f = self.fail(sites::known(c, code, field, scope, Shape::UnknownValue));
                CStep::EnumKnown {
                    f,
                    field: fr,
                    values: c.schema.enums[ei].values.iter().map(|v| v.value).collect(),
                }
            }
            Step::ForEach { table, steps }
                if crate::check::lookup::is_target(file, &table.text) =>
            {
                return self.stream_each(&table.text, steps);
            }
            Step::ForEach { table, steps } => {
                if crate::check::ext::collection_of(file, &table.text).is_some() {
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
                    let body = self.steps(steps, Scope::Record(t));
                    CStep::ForEachTable {
                        table: ti,
                        steps: body,
                    }
                }
            }
            Step::Ext(x) => return self.ext_step(x, prev, next, scope),
            Step::Str(x) => return self.str_step(x, scope),
            Step::Fill(x) => return self.fill_step(x, scope),
            Step::StreamFits { code, stream, kind } => {
                return self.stream_fits(&code.text, &stream.text, *kind);
            }
            Step::Let { name, value } => CStep::Let {
                i: self.c.lets.position(&name.text)?,
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
    pub(super) fn order_step(
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
        let walk = (!in_loop).then_some(ti);
        let f = self.fail(sites::order(c, code, kind, t, range, by)?);
        match (kind, by, range) {
            (OrderKind::NoOverlap, _, Some(r)) => Some(CStep::Order {
                f,
                slot,
                walk,
                when: r.when.as_ref().map(|w| self.expr(&w.expr, rscope)),
                key: self.expr(&r.offset.expr, rscope),
                length: Some(self.expr(&r.length.expr, rscope)),
                strict: false,
                string: None,
            }),
            (_, Some(by), _)
                if crate::check::strings::order_key(c, &t.name.text, &by.expr).is_some() =>
            {
                let sd = crate::check::strings::order_key(c, &t.name.text, &by.expr)?;
                let strict = kind == OrderKind::Unique;
                let range = sd
                    .range
                    .as_ref()
                    .and_then(|r| file.ranges.iter().position(|x| x.name.text == r.text));
                Some(CStep::Order {
                    f,
                    slot,
                    walk,
                    when: None,
                    key: self.expr(&sd.offset.expr, rscope),
                    length: None,
                    strict,
                    string: Some((range, sd.prefix_bytes(), sd.big.unwrap_or(false))),
                })
            }
            (_, Some(by), _) => {
                let strict = kind == OrderKind::Unique;
                Some(CStep::Order {
                    f,
                    slot,
                    walk,
                    when: None,
                    key: self.expr(&by.expr, rscope),
                    length: None,
                    strict,
                    string: None,
                })
            }
            _ => None,
        }
    }

    #[allow(clippy::too_many_lines)]
    pub(super) fn ext_step(
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
                let single = crate::check::expr::single_field(c, &r.at.expr, scope).is_some();
                let f = self.fail(sites::record_fits(c, code, r, within, scope));
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
                    search: r.search.as_ref().map(|s| {
                        let t = crate::check::lookup::record_table(r);
                        let back = crate::check::table_writer::const_u64(c, &s.back.expr);
                        Box::new((
                            self.expr(&s.cond.expr, Scope::RecordOnly(&t)),
                            back.unwrap_or(0),
                        ))
                    }),
                    // Present only when its condition holds: placed then, absent (its reads
                    // without a value) otherwise.
                    when: r.when.as_ref().map(|w| self.expr(&w.expr, scope)),
                }
            }
            ExtStep::EntrySize { code, directory } => {
                let di = self.dir_index(&directory.text)?;
                let dir = &file.ext.directories[di];
                let Scope::Record(t) = scope else {
                    return None;
                };
                let es = self.rec_field(&t.record.text, &dir.entry_size.text);
                let [s1, s2] = sites::entry_size(c, code, dir, t);
                let (f1, f2) = (self.fail(s1), self.fail(s2));
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
                            crate::check::ext::type_value(c, dir, &l.value.text)?,
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
                    crate::check::ext::field_of(c, &t.record.text, &array.text)
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
                let f = self.fail(sites::items(code, t, array, off, *op, rhs));
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
                let (dir, k) = crate::check::ext::dir_checksum(file, &checksum.text)?;
                let DirChecksumKind::Records {
                    records,
                    target,
                    stored,
                } = &k.kind
                else {
                    return None;
                };
                let (_, layout) = crate::check::ext::collection_of(file, &records.text)?;
                let di = self.dir_index(&dir.name.text)?;
                let coll = self.coll_index(&records.text)?;
                let rec = layout.record.text.as_str();
                let tf = self.rec_field(rec, &target.text);
                let sf = self.rec_field(rec, &stored.text);
                let sums = sites::record_checksums(
                    c,
                    [code, missing, duplicate],
                    &records.text,
                    rec,
                    target,
                    stored,
                );
                let miss = self.fail(sums.missing);
                let dup = self.fail(sums.duplicate);
                // Base and index come from the `want` entry at run time.
                let mism = (!sites::fused_next(file, next, dir)).then(|| self.fail(sums.mismatch));
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
                let (dir, k) = crate::check::ext::dir_checksum(file, &checksum.text)?;
                let DirChecksumKind::Payloads { zero, stored } = &k.kind else {
                    return None;
                };
                let di = self.dir_index(&dir.name.text)?;
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
                    let Some(v) = crate::check::ext::type_value(c, dir, &l.value.text) else {
                        continue;
                    };
                    let size = c.layouts.get(&l.record.text).map_or(0, |x| x.size);
                    let clears = fields
                        .iter()
                        .filter_map(|f| {
                            let (_, off, kind) =
                                crate::check::ext::field_of(c, &l.record.text, &f.text)?;
                            Some((off, kind.width(&c.schema)))
                        })
                        .collect();
                    zero_arms.push((v, size, clears));
                }
                // The record checksums just before it, checked in the same pass.
                let fused = match sites::fused_prev(file, prev, dir) {
                    Some((rcode, rk)) => {
                        let f = self.fail(sites::fused_record_sums(rcode, rk)?);
                        Some((f, *self.wants.get(&rk.name.text)?))
                    }
                    None => None,
                };
                let [gone, mism] = sites::payload_checksum(c, code, dir, stored, scope);
                let (gone, mism) = (self.fail(gone), self.fail(mism));
                CStep::PayloadChecksum {
                    fused,
                    gone,
                    mism,
                    dir: di,
                    zero: zero_arms,
                    stored: self.expr(&stored.expr, scope),
                }
            }
            ExtStep::OwnedApart {
                code,
                too_many,
                ownership,
            } => CStep::OwnedApart(Box::new(self.owned_apart_step(code, too_many, ownership)?)),
            ExtStep::SlotsPaired { code, slots } => {
                let s = file.ext.slots.iter().find(|s| s.name.text == slots.text)?;
                let di = self.dir_index(&s.directory.text)?;
                let dir = &file.ext.directories[di];
                let (_, layout) = crate::check::ext::collection_of(file, &s.entries.text)?;
                let rv = crate::check::ext::type_value(c, dir, &s.region.text)?;
                let ev = crate::check::ext::type_value(c, dir, &layout.value.text)?;
                let t = file.tables.iter().find(|t| t.name.text == dir.table.text)?;
                let (_, type_off, _) =
                    crate::check::ext::field_of(c, &t.record.text, &dir.type_field.text)?;
                let f = self.fail(sites::slots_paired(
                    code,
                    s,
                    dir,
                    t,
                    &layout.value,
                    type_off,
                ));
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
                let rv = crate::check::ext::type_value(c, dir, &s.region.text)?;
                let (_, layout) = crate::check::ext::collection_of(file, &s.entries.text)?;
                let coll = self.coll_index(&s.entries.text)?;
                let rec = layout.record.text.clone();
                let of = self.rec_field(&rec, &s.offset.text);
                let sf = self.rec_field(&rec, &s.size.text);
                CStep::SlotsValid {
                    fs: sites::slots_valid(c, code, s, &rec).map(|x| self.fail(x)),
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
                let rv = crate::check::ext::type_value(c, dir, &s.region.text)?;
                let (_, layout) = crate::check::ext::collection_of(file, &s.entries.text)?;
                let coll = self.coll_index(&s.entries.text)?;
                let rec = layout.record.text.clone();
                let of = self.rec_field(&rec, &s.offset.text);
                let sf = self.rec_field(&rec, &s.size.text);
                let f = self.fail(sites::slots_padding(code, dir));
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

    pub(super) fn dirs(&self) -> Vec<DirInfo> {
        self.c
            .schema
            .file
            .ext
            .directories
            .iter()
            .map(|dir| self.dir_info(dir).unwrap_or_else(empty_dir))
            .collect()
    }

    pub(super) fn dir_info(&self, dir: &Directory) -> Option<DirInfo> {
        let c = self.c;
        let file = &c.schema.file;
        let ti = file
            .tables
            .iter()
            .position(|t| t.name.text == dir.table.text)?;
        let t = &file.tables[ti];
        let (type_i, type_off, kind) =
            crate::check::ext::field_of(c, &t.record.text, &dir.type_field.text)?;
        let type_big = c
            .strukt(&t.record.text)
            .and_then(|s| s.fields.get(type_i))
            .is_some_and(|f| f.big);
        let type_slots = crate::check::ext::type_slots(c, dir);
        let r = file
            .ranges
            .iter()
            .find(|r| r.name.text == dir.payload.text)?;
        let scope = Scope::RecordOnly(t);
        Some(DirInfo {
            table: ti,
            type_off,
            type_ty: kind.int_ty(&c.schema)?,
            type_big,
            type_slots,
            when: r.when.as_ref().map(|w| self.expr(&w.expr, scope)),
            offset: self.expr(&r.offset.expr, scope),
            length: self.expr(&r.length.expr, scope),
        })
    }

    pub(super) fn colls(&self) -> Vec<CollInfo> {
        let c = self.c;
        let file = &c.schema.file;
        c.collections
            .iter()
            .map(|t| {
                let found = crate::check::ext::collection_of(file, &t.name.text).and_then(
                    |(dir, layout)| {
                        Some(CollInfo {
                            name: t.name.text.clone(),
                            dir: self.dir_index(&dir.name.text)?,
                            value: crate::check::ext::type_value(c, dir, &layout.value.text)?,
                            rec_size: c.layouts.get(&layout.record.text)?.size,
                            st: struct_index(c, &layout.record.text)?,
                        })
                    },
                );
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

pub(super) fn compile_file<'c>(c: &'c check::Checked, sites: &mut Sites) -> FileProg<'c> {
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
    let header_site = comp.fail(sites::header(c)).site;
    let steps = comp.steps(&c.schema.file.validate, Scope::Top);
    let dirs = comp.dirs();
    let colls = comp.colls();
    let streams = comp.stream_infos();
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
        .map(|s| crate::check::lookup::is_gated(s).then(|| GateTable::new(c, s)))
        .collect();
    let big_when = c
        .schema
        .big_when
        .as_ref()
        .map(|b| comp.expr(&b.expr, Scope::Top));
    let mut prog = FileProg {
        c,
        big_when,
        header_size,
        header_site,
        steps,
        dirs,
        colls,
        want_slots: comp.want_slots,
        order_slots: comp.orders.len(),
        lets: c.lets.len(),
        table_rec_size,
        gates,
        streams,
        fast: Prog::default(),
    };
    prog.fast = prog.lowered();
    prog
}
