//! `record.<part>`: where the current record of a record stream lies, inside a `for_each`
//! over the stream or one of its collections (`record.offset`, `record.body_offset`,
//! `record.body_len`, `record.end`, `record.index`, and `record.depth` in a stream whose
//! records nest).
//! Resolved here, emitted here; the interpreter reads
//! the same values from its walk (`interp/stream.rs`).
//!
//! ```yaml
//! - for_each: notes
//!   validate:
//!     - { code: note-too-long, assert: "text_len <= record.body_len", field: text_len }
//! ```

use crate::check::{RecPos, Resolved, Scope};
use crate::schema::top::Schema;

/// The parts, by name.
pub const PARTS: [(&str, RecPos); 6] = [
    ("offset", RecPos::Offset),
    ("body_offset", RecPos::BodyOffset),
    ("body_len", RecPos::BodyLen),
    ("end", RecPos::End),
    ("depth", RecPos::Depth),
    ("index", RecPos::Index),
];

/// The word that names the current record.
pub const RECORD: &str = "record";

/// `record.<part>` resolved: `Some` when the path starts with `record` and means this (a
/// part, or an error saying why not), `None` when it is something else (a located record or
/// a table named `record`, a field named `record`).
pub(crate) fn resolve(
    schema: &Schema,
    path: &[String],
    scope: Scope<'_>,
) -> Option<Result<Resolved, String>> {
    let [first, part] = path else {
        return None;
    };
    if first != RECORD {
        return None;
    }
    let file = &schema.file;
    let in_stream = match scope {
        Scope::Record(t) => crate::check::lookup::is_target(file, &t.name.text),
        _ => false,
    };
    if !in_stream {
        // Something else of that name keeps its meaning.
        let other = file.tables.iter().any(|t| t.name.text == RECORD)
            || file.ext.records.iter().any(|r| r.name.text == RECORD)
            || match scope {
                Scope::Record(t) | Scope::RecordOnly(t) => schema
                    .structs
                    .iter()
                    .find(|s| s.name.text == t.record.text)
                    .is_some_and(|s| s.fields.iter().any(|f| f.name.text == RECORD)),
                Scope::Top => false,
            };
        if other {
            return None;
        }
        return Some(Err(format!(
            "`record.{part}` is the current record of a record stream: it exists only in the steps of a for_each over a stream or one of its collections"
        )));
    }
    if part == "depth"
        && let Scope::Record(t) = scope
    {
        let lookup = crate::check::lookup::stream(file, &t.name.text)
            .or_else(|| crate::check::lookup::collection(file, &t.name.text).map(|x| x.0));
        if let Some(s) = lookup
            && !s.layouts.iter().any(|l| l.nested.is_some())
        {
            return Some(Err(format!(
                "`record.depth`: the records of stream `{}` do not nest (no layout of it is `nested: true`), so every record's depth is 0",
                s.name.text
            )));
        }
    }
    Some(
        PARTS
            .iter()
            .find(|(n, _)| *n == part.as_str())
            .map(|(_, k)| Resolved::RecPos(*k))
            .ok_or_else(|| {
                format!(
                    "`record.{part}`: a stream's record has {}",
                    PARTS
                        .iter()
                        .map(|(n, _)| format!("`record.{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
    )
}
