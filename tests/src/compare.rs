//! Lookups in the schema interpreter's dynamic view, to compare it with a generated view:
//! one home for tests/tests/interp_differential.rs and the `interp_constructs` fuzz target.
//! Each panics with the path when the view lacks what is asked (a test failure).

use npuschema_codegen::interp::{RecordView, Value, View};

/// The record at `path` (`regions[1]`, `header`) in any group of the view.
///
/// # Panics
/// When the view has no such record.
#[must_use]
pub fn record<'v>(v: &'v View, path: &str) -> &'v RecordView {
    v.groups
        .iter()
        .flat_map(|g| g.records.iter())
        .find(|r| r.path == path)
        .unwrap_or_else(|| panic!("the interpreter's view has no record {path}"))
}

/// A field's raw word (or a composed value) in the interpreter's view.
///
/// # Panics
/// When the record or the field is missing, or the field has no raw word.
#[must_use]
pub fn raw(v: &View, path: &str, field: &str) -> u64 {
    let r = record(v, path);
    if let Some(f) = r.fields.iter().find(|f| f.name == field) {
        return f
            .raw
            .unwrap_or_else(|| panic!("{path}.{field} has no raw word"));
    }
    match r.composed.iter().find(|(n, _)| n == field) {
        Some((_, x)) => *x,
        None => panic!("{path} has no field {field}"),
    }
}

/// A field's decoded value.
///
/// # Panics
/// When the record or the field is missing.
#[must_use]
pub fn value<'v>(v: &'v View, path: &str, field: &str) -> &'v Value {
    &record(v, path)
        .fields
        .iter()
        .find(|f| f.name == field)
        .unwrap_or_else(|| panic!("{path} has no field {field}"))
        .value
}

/// The number of records of a group (a table, collection or stream); 0 when absent.
#[must_use]
pub fn record_count(v: &View, group: &str) -> usize {
    v.group(group).map_or(0, |g| g.records.len())
}

/// `(offset, length)` of a range the interpreter found (file-level, or of a record).
#[must_use]
pub fn range(v: &View, path: &str) -> Option<(u64, u64)> {
    v.ranges
        .iter()
        .chain(
            v.groups
                .iter()
                .flat_map(|g| g.records.iter().flat_map(|r| r.ranges.iter())),
        )
        .find(|r| r.path == path)
        .map(|r| (r.offset, r.length))
}

/// Where `s`, a slice of `buf`, lies in it: `(offset, length)`.
#[must_use]
pub fn span(buf: &[u8], s: &[u8]) -> (u64, u64) {
    (
        (s.as_ptr() as usize).saturating_sub(buf.as_ptr() as usize) as u64,
        s.len() as u64,
    )
}

/// A checksum's `(stored, computed)`.
///
/// # Panics
/// When the view has no such checksum.
#[must_use]
pub fn checksum(v: &View, path: &str) -> (u64, u64) {
    let k = v
        .checksums
        .iter()
        .find(|k| k.path == path)
        .unwrap_or_else(|| panic!("no checksum {path}"));
    (k.stored, k.computed)
}

/// A string of the view (`title`, `sections[1].name`).
///
/// # Panics
/// When the view has no such string.
#[must_use]
pub fn string<'v>(v: &'v View, path: &str) -> &'v npuschema_codegen::interp::StringView {
    v.strings
        .iter()
        .find(|x| x.path == path)
        .unwrap_or_else(|| panic!("no string {path}"))
}

/// Each named field of a generated record view equals the interpreter's raw word:
/// `same_fields!(view, "regions[0]", region, [offset, size])`.
#[macro_export]
macro_rules! same_fields {
    ($view:expr, $path:expr, $rec:expr, [$($f:ident),* $(,)?]) => {
        $(assert_eq!(
            $crate::compare::raw($view, $path, stringify!($f)),
            u64::from($rec.$f()),
            "{}.{}",
            $path,
            stringify!($f)
        );)*
    };
}
