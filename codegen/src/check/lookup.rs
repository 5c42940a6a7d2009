//! Queries on the loaded file that resolution and the checks need, kept below them: a
//! field's gating by the header's version, a stream's synthesized table and collections.

use crate::expr::{Expr, ExprAt};
use crate::schema::streams::{Stream, StreamLayout};
use crate::schema::top::{File, Struct};
use crate::schema::{FieldDef, Table};
use crate::yaml::Pos;

/// Whether a struct has version-gated fields.
pub fn is_gated(st: &Struct) -> bool {
    st.fields.iter().any(FieldDef::is_gated)
}

pub(crate) fn dummy(pos: Pos) -> ExprAt {
    ExprAt {
        expr: Expr::Num(0),
        text: "0".to_string(),
        pos,
    }
}

/// The stream's records as a table (its header struct), for `for_each` scopes.
#[must_use]
pub fn stream_table(s: &Stream) -> Table {
    Table {
        name: s.name.clone(),
        doc: s.doc.clone(),
        record: s.header.clone(),
        at: dummy(s.name.pos),
        count: dummy(s.name.pos),
        stride: dummy(s.name.pos),
        type_name: None,
    }
}

/// A located record's struct as a table of one record: the scope of its search's `where`
/// (the record's own fields, unprefixed).
#[must_use]
pub fn record_table(r: &crate::schema::ext::Record) -> Table {
    Table {
        name: r.name.clone(),
        doc: r.doc.clone(),
        record: r.strukt.clone(),
        at: dummy(r.name.pos),
        count: dummy(r.name.pos),
        stride: dummy(r.name.pos),
        type_name: None,
    }
}

/// The file's streams and their per-type collections as tables (for `for_each`, `count()`
/// and name resolution), streams first.
#[must_use]
pub fn tables(file: &File) -> Vec<Table> {
    let mut out: Vec<Table> = file.streams.iter().map(stream_table).collect();
    for s in &file.streams {
        out.extend(s.layouts.iter().map(|l| Table {
            name: l.collection.clone(),
            doc: l.doc.clone(),
            record: l.record.clone(),
            at: dummy(l.collection.pos),
            count: dummy(l.collection.pos),
            stride: dummy(l.collection.pos),
            type_name: None,
        }));
    }
    out
}

/// The stream named `name`.
#[must_use]
pub fn stream<'a>(file: &'a File, name: &str) -> Option<&'a Stream> {
    file.streams.iter().find(|s| s.name.text == name)
}

/// The stream and layout of the collection named `name`.
#[must_use]
pub fn collection<'a>(file: &'a File, name: &str) -> Option<(&'a Stream, &'a StreamLayout)> {
    file.streams.iter().find_map(|s| {
        s.layouts
            .iter()
            .find(|l| l.collection.text == name)
            .map(|l| (s, l))
    })
}

/// Whether struct `sname` is a stream's header or a body layout (its view has `index()`).
#[must_use]
pub fn is_record_struct(file: &File, sname: &str) -> bool {
    file.streams
        .iter()
        .any(|s| s.header.text == sname || s.layouts.iter().any(|l| l.record.text == sname))
}

/// Whether `name` is a stream or a stream's collection.
#[must_use]
pub fn is_target(file: &File, name: &str) -> bool {
    stream(file, name).is_some() || collection(file, name).is_some()
}
