//! `ownership` and its `owned_apart` step: parts of a file that must not share a byte.
//!
//! The parts an ownership declaration names are resolved here once ([`parts`]), and the
//! emitter (`emit/ownership.rs`) and the interpreter (`interp/compile.rs`) both read that
//! list, in the same order, so both number the part instances, and their error sites, alike.

use crate::check::{Checked, StepState};
use crate::diag::Diags;
use crate::schema::ext::Ownership;
use crate::schema::{Name, Range, Table};

/// The most part instances a schema may declare: the check compares at most
/// `max * (max - 1) / 2` pairs, about 2^31 at this bound.
pub const MAX_PARTS: u64 = 65_536;

/// One part of an ownership declaration, resolved.
#[derive(Clone, Copy, Debug)]
pub enum Part<'a> {
    /// The file's header struct, at offset 0.
    Header,
    /// A located record (index in `file.ext.records`): one instance.
    Record(usize),
    /// The extent of a table (index in `file.tables`): one instance, from its first record's
    /// start to its last one's end (`(count - 1) * stride + size` bytes; none without records).
    Table(usize),
    /// A per-record range: one instance per record of its table (index in `file.tables`),
    /// empty for a record whose `when` does not hold.
    Range(&'a Range, usize, &'a Table),
}

/// The ownership declaration named `name`.
pub fn ownership<'a>(c: &'a Checked, name: &str) -> Option<&'a Ownership> {
    c.schema
        .file
        .ext
        .ownership
        .iter()
        .find(|o| o.name.text == name)
}

/// The parts of `o`, in declaration order, with their names (the parts that resolve).
pub fn parts<'a>(c: &'a Checked, o: &'a Ownership) -> Vec<(&'a str, Part<'a>)> {
    o.parts
        .iter()
        .filter_map(|p| resolve(c, p).map(|k| (p.text.as_str(), k)))
        .collect()
}

fn resolve<'a>(c: &'a Checked, p: &Name) -> Option<Part<'a>> {
    let file = &c.schema.file;
    if p.text == "header" {
        return Some(Part::Header);
    }
    if let Some(i) = file.ext.records.iter().position(|r| r.name.text == p.text) {
        return Some(Part::Record(i));
    }
    if let Some(i) = file.tables.iter().position(|t| t.name.text == p.text) {
        return Some(Part::Table(i));
    }
    let r = file.ranges.iter().find(|r| r.name.text == p.text)?;
    let tn = r.table.as_ref()?;
    let ti = file.tables.iter().position(|t| t.name.text == tn.text)?;
    Some(Part::Range(r, ti, file.tables.get(ti)?))
}

/// Check an `owned_apart` step: its declaration exists, every part is a header, a located
/// record bound, a table placed or a per-record range checked before the step, no part is
/// named twice, and `max` allows the parts that have one instance each.
/// (That it runs at file level is checked by the caller, `check/ext.rs`.)
pub fn check_step(c: &Checked, name: &Name, st: &StepState, d: &mut Diags) {
    let file = &c.schema.file;
    let Some(o) = ownership(c, &name.text) else {
        d.error(
            name.pos,
            format!(
                "owned_apart names `{}`, which is not an ownership declaration",
                name.text
            ),
        );
        return;
    };
    if o.parts.len() < 2 {
        d.error(
            o.name.pos,
            format!("ownership `{}` needs at least two parts", o.name.text),
        );
    }
    let mut single = 0u64;
    for (k, p) in o.parts.iter().enumerate() {
        if o.parts.iter().take(k).any(|q| q.text == p.text) {
            d.error(p.pos, format!("part `{}` is named twice", p.text));
            continue;
        }
        match resolve(c, p) {
            Some(Part::Header) => single += 1,
            Some(Part::Record(i)) => {
                single += 1;
                let r = file.ext.records.get(i).map_or("", |r| r.name.text.as_str());
                if !st.records_bound.iter().any(|x| x == r) {
                    d.error(p.pos, format!("part `{}` is a located record the steps before owned_apart do not bind (record_fits)", p.text));
                }
            }
            Some(Part::Table(_)) => {
                single += 1;
                if !st.tables_fitted.contains(&p.text) {
                    d.error(p.pos, format!("part `{}` is a table the steps before owned_apart do not place (table_fits)", p.text));
                }
            }
            Some(Part::Range(..)) => {
                if !st.ranges_fitted.contains(&p.text) {
                    d.error(p.pos, format!("part `{}` is a range the steps before owned_apart do not check (range_fits)", p.text));
                }
            }
            None => {
                let file_range = file.ranges.iter().any(|r| r.name.text == p.text);
                d.error(
                    p.pos,
                    if file_range {
                        format!("part `{}` is a file-level range; an ownership part is `header`, a located record, a table or a per-record range", p.text)
                    } else {
                        format!("part `{}` is not `header`, a located record, a table or a per-record range", p.text)
                    },
                );
            }
        }
    }
    if o.max < single.max(1) || o.max > MAX_PARTS {
        d.error(
            o.max_pos,
            format!(
                "ownership `{}`: max {} must be at least the {} parts with one instance each and at most {MAX_PARTS} (the check compares up to max * (max - 1) / 2 pairs)",
                o.name.text, o.max, single
            ),
        );
    }
}

/// The pairs of parts `(earlier, later)` whose instances can share a byte, in the order
/// their error sites are numbered (later part outer): every two parts, and a per-record
/// range with itself (two records); a part with one instance cannot overlap itself.
pub fn pairs_of(ps: &[(&str, Part<'_>)]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (j2, (_, p2)) in ps.iter().enumerate() {
        for j1 in 0..=j2 {
            if j1 < j2 || matches!(p2, Part::Range(..)) {
                out.push((j1, j2));
            }
        }
    }
    out
}

/// The detail names of a pair's error: `byte AT is also in <first part> at START`.
pub fn pair_names(first: &str) -> [String; 3] {
    ["byte".into(), "is also in".into(), format!("{first} at")]
}
