//! The dynamic view of a validated file: what the interpreter found, field by field.

use super::compile::Comp;
use super::decode::*;
use super::ir::*;
use super::prog::*;
use super::view_model::*;
use crate::check::Scope;
use crate::schema::ext::DirChecksumKind;

pub(super) fn build(p: &FileProg<'_>, variant: Option<&str>, st: &State<'_>, buf: &[u8]) -> View {
    let c = p.c;
    let file = &c.schema.file;
    let mut groups = Vec::new();
    if let Some(h) = c.header() {
        groups.push(Group {
            kind: "header",
            name: "header".into(),
            struct_name: h.name.text.clone(),
            records: vec![record(p, st, h, 0, None, "header".into(), None)],
            total: 1,
        });
    }
    for (i, r) in file.ext.records.iter().enumerate() {
        let (Some(Some((at, _, gate))), Some(s)) = (st.located.get(i), c.strukt(&r.strukt.text))
        else {
            continue;
        };
        // One per record of a collection: the walk placed one for each, not one for the file.
        if r.table.is_some() {
            continue;
        }
        groups.push(Group {
            kind: "record",
            name: r.name.text.clone(),
            struct_name: s.name.text.clone(),
            records: vec![record(
                p,
                st,
                s,
                *at,
                r.gate.as_ref().map(|_| *gate),
                r.name.text.clone(),
                None,
            )],
            total: 1,
        });
    }
    // Per-record ranges, compiled in each table's record-only scope (as the accessors are).
    let mut sites = Sites::default();
    let comp = Comp {
        c,
        sites: &mut sites,
        want_slots: 0,
        wants: std::collections::HashMap::new(),
        orders: Vec::new(),
    };
    for (ti, t) in file.tables.iter().enumerate() {
        let (Some(Some((at, n, stride))), Some(s)) = (st.tables.get(ti), c.strukt(&t.record.text))
        else {
            continue;
        };
        let scope = Scope::RecordOnly(t);
        let rranges: Vec<(String, Option<CE>, CE, CE)> = file
            .ranges
            .iter()
            .filter(|r| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
            .map(|r| {
                (
                    r.name.text.clone(),
                    r.when.as_ref().map(|w| comp.expr(&w.expr, scope)),
                    comp.expr(&r.offset.expr, scope),
                    comp.expr(&r.length.expr, scope),
                )
            })
            .collect();
        let mut records = Vec::new();
        for i in 0..(*n).min(LIST_LIMIT) {
            let rat = at.saturating_add(i.saturating_mul(*stride));
            let path = format!("{}[{i}]", t.name.text);
            let mut rv = record(p, st, s, rat, None, path.clone(), Some(i));
            for (name, when, off, len) in &rranges {
                if let Some(w) = when
                    && !st.cond_rec(p, w, rat)
                {
                    continue;
                }
                let (Some(o), Some(l)) = (st.eval_rec(p, off, rat), st.eval_rec(p, len, rat))
                else {
                    continue;
                };
                if npuschema_core::range_at(buf, o, l).is_some() {
                    rv.ranges.push(RangeView {
                        name: name.clone(),
                        path: format!("{path}.{name}"),
                        offset: o,
                        length: l,
                    });
                }
            }
            records.push(rv);
        }
        groups.push(Group {
            kind: "table",
            name: t.name.text.clone(),
            struct_name: s.name.text.clone(),
            records,
            total: *n,
        });
    }
    for (ci, coll) in p.colls.iter().enumerate() {
        let Some(s) = c.schema.structs.get(coll.st) else {
            continue;
        };
        let mut records = Vec::new();
        let mut st2 = st.clone();
        let mut total = 0u64;
        st2.clone_for_each_record(p, ci, |x, index, at| {
            total = total.saturating_add(1);
            if index >= LIST_LIMIT {
                return true;
            }
            records.push(record(
                p,
                x,
                s,
                at,
                None,
                format!("{}[{index}]", coll.name),
                Some(index),
            ));
            true
        });
        groups.push(Group {
            kind: "collection",
            name: coll.name.clone(),
            struct_name: s.name.text.clone(),
            records,
            total,
        });
    }
    groups.extend(super::stream::groups(p, st));
    // Records one per record of a table or stream: `centrals[3].local`, found from each
    // record as the view's accessor finds it (after the records of that collection it reads,
    // each placed in turn: `per_record_reads`), and only when its condition holds.
    for (ri, r) in file.ext.records.iter().enumerate() {
        let (Some(tn), Some(s)) = (&r.table, c.strukt(&r.strukt.text)) else {
            continue;
        };
        let Some(t) = c.table(&tn.text) else { continue };
        let scope = Scope::Record(t);
        // (index, `when`, `at`, size) of each record placed, this one last.
        let placed: Vec<(usize, Option<CE>, CE, u64)> = crate::check::ext::per_record_reads(c, ri)
            .into_iter()
            .chain(std::iter::once(ri))
            .filter_map(|j| {
                let x = file.ext.records.get(j)?;
                let size = c.layouts.get(&x.strukt.text).map_or(0, |l| l.size);
                Some((
                    j,
                    x.when.as_ref().map(|w| comp.expr(&w.expr, scope)),
                    comp.expr(&x.at.expr, scope),
                    size,
                ))
            })
            .collect();
        // A record present only `when` its condition holds is counted over every record of
        // the collection (its total is how many have it), and listed up to the limit.
        let optional = r.when.is_some();
        let limit = if optional { u64::MAX } else { LIST_LIMIT };
        let (starts, holders): (Vec<u64>, u64) =
            match file.tables.iter().position(|x| x.name.text == tn.text) {
                Some(ti) => match st.tables.get(ti).copied().flatten() {
                    Some((a, n, stride)) => (
                        (0..n.min(limit))
                            .map(|i| a.saturating_add(i.saturating_mul(stride)))
                            .collect(),
                        n,
                    ),
                    None => (Vec::new(), 0),
                },
                None => super::stream::record_starts(p, st, &tn.text, limit),
            };
        let mut here = st.clone();
        let mut records = Vec::new();
        let mut present = 0u64;
        for (i, rat) in (0u64..).zip(starts) {
            here.rec_at = rat;
            for (j, when, at, size) in &placed {
                let o = match when {
                    Some(w) if !here.cond(p, w) => None,
                    _ => here
                        .val(p, at)
                        .filter(|o| npuschema_core::range_at(buf, *o, *size).is_some()),
                };
                here.located[*j] = o.map(|o| (o, *size, 0));
            }
            let Some(Some((o, _, _))) = here.located.get(ri).copied() else {
                continue;
            };
            present = present.saturating_add(1);
            if u64::try_from(records.len()).is_ok_and(|n| n < LIST_LIMIT) {
                let path = format!("{}[{i}].{}", tn.text, r.name.text);
                records.push(record(p, st, s, o, None, path, Some(i)));
            }
        }
        let total = if optional { present } else { holders };
        groups.push(Group {
            kind: "record",
            name: r.name.text.clone(),
            struct_name: s.name.text.clone(),
            records,
            total,
        });
    }
    let ranges = file
        .ranges
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let (o, l) = (*st.ranges.get(i)?)?;
            Some(RangeView {
                name: r.name.text.clone(),
                path: r.name.text.clone(),
                offset: o,
                length: l,
            })
        })
        .collect();
    let mut checksums = Vec::new();
    for k in &file.checksums {
        let from = st.val(p, &comp.expr(&k.from.expr, Scope::Top));
        let to = st.val(p, &comp.expr(&k.to.expr, Scope::Top));
        let stored = st
            .val(p, &comp.expr(&k.stored.expr, Scope::Top))
            .unwrap_or(0);
        let data = match (from, to) {
            (Some(f), Some(t)) => t
                .checked_sub(f)
                .and_then(|n| npuschema_core::range_at(buf, f, n)),
            _ => None,
        };
        checksums.push(ChecksumView {
            name: k.name.text.clone(),
            path: k.name.text.clone(),
            algorithm: k.algorithm.name(),
            equals: k.equals,
            stored,
            computed: data.map_or(0, |d| {
                let zero: Vec<_> = k
                    .zero
                    .iter()
                    .filter_map(|z| comp.field_of_expr(z, Scope::Top))
                    .collect();
                let start = from.unwrap_or(0);
                u64::from(st.zeroed_sum(p, k.algorithm, d, start, &zero))
            }),
        });
    }
    for (di, dir) in file.ext.directories.iter().enumerate() {
        let Some(d) = p.dirs.get(di) else { continue };
        for k in &dir.checksums {
            match &k.kind {
                DirChecksumKind::Records {
                    records,
                    target,
                    stored,
                } => {
                    let Some(ci) = c
                        .collections
                        .iter()
                        .position(|t| t.name.text == records.text)
                    else {
                        continue;
                    };
                    let Some(coll) = p.colls.get(ci) else {
                        continue;
                    };
                    let Some(s) = c.schema.structs.get(coll.st) else {
                        continue;
                    };
                    let tf = comp.rec_field(&s.name.text, &target.text);
                    let sf = comp.rec_field(&s.name.text, &stored.text);
                    let mut st2 = st.clone();
                    let mut found = Vec::new();
                    st2.clone_for_each_record(p, ci, |x, index, _| {
                        found.push((index, x.read_rec(tf), x.read_rec(sf)));
                        true
                    });
                    for (index, ty, sv) in found {
                        let computed = st
                            .sections(p, d)
                            .find(|s| s.1 == ty)
                            .and_then(|s| st.payload_at(p, d, s.3))
                            .map_or(0, |pl| npuschema_core::crc32(0, pl));
                        checksums.push(ChecksumView {
                            name: k.name.text.clone(),
                            path: format!("{}[{index}]", k.name.text),
                            algorithm: k.algorithm.name(),
                            stored: sv,
                            computed: u64::from(computed),
                            equals: false,
                        });
                    }
                }
                DirChecksumKind::Payloads { zero, stored } => {
                    let sv = st.val(p, &comp.expr(&stored.expr, Scope::Top)).unwrap_or(0);
                    let mut zero_arms = Vec::new();
                    for l in &dir.layouts {
                        let clears: Vec<(u64, u64)> = zero
                            .iter()
                            .filter(|(col, _)| col.text == l.collection.text)
                            .filter_map(|(_, f)| {
                                let (_, off, kind) =
                                    crate::check::ext::field_of(c, &l.record.text, &f.text)?;
                                Some((off, kind.width(&c.schema)))
                            })
                            .collect();
                        if clears.is_empty() {
                            continue;
                        }
                        let (Some(v), Some(size)) = (
                            crate::check::ext::type_value(c, dir, &l.value.text),
                            c.layouts.get(&l.record.text).map(|x| x.size),
                        ) else {
                            continue;
                        };
                        zero_arms.push((v, size, clears));
                    }
                    let computed = file_crc(p, st, d, &zero_arms);
                    checksums.push(ChecksumView {
                        name: k.name.text.clone(),
                        path: k.name.text.clone(),
                        algorithm: k.algorithm.name(),
                        stored: sv,
                        computed: u64::from(computed),
                        equals: false,
                    });
                }
            }
        }
    }
    let strings = super::strings::found(p, &comp, st)
        .into_iter()
        .map(|(name, path, offset, bytes)| StringView {
            text: std::str::from_utf8(&bytes).ok().map(str::to_string),
            name,
            path,
            offset,
            bytes,
        })
        .collect();
    View {
        strings,
        schema: c.schema.name.text.clone(),
        file: file.name.text.clone(),
        variant: variant.map(str::to_string),
        len: st.len,
        groups,
        ranges,
        checksums,
    }
}

/// The file CRC recomputed plainly: every payload in directory order, listed fields as zero.
fn file_crc(p: &FileProg<'_>, st: &State<'_>, d: &DirInfo, zero: &[ZeroArm]) -> u32 {
    let mut crc = 0u32;
    for (_, ty, _, rat) in st.sections(p, d) {
        let Some(pl) = st.payload_at(p, d, rat) else {
            continue;
        };
        match zero.iter().find(|z| z.0 == ty) {
            Some((_, size, clears)) if *size > 0 => {
                let n = usize::try_from(*size).unwrap_or(usize::MAX);
                let mut tmp = pl.to_vec();
                let whole = tmp.len() / n * n;
                for rec in tmp.get_mut(..whole).unwrap_or(&mut []).chunks_mut(n) {
                    for (off, w) in clears {
                        let o = usize::try_from(*off).unwrap_or(usize::MAX);
                        let w = usize::try_from(*w).unwrap_or(0);
                        if let Some(x) = rec.get_mut(o..o.saturating_add(w)) {
                            x.fill(0);
                        }
                    }
                }
                crc = npuschema_core::crc32(crc, &tmp);
            }
            _ => crc = npuschema_core::crc32(crc, pl),
        }
    }
    crc
}
