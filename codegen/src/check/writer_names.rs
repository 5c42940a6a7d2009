//! The names of the members the generated types get, where two sources could give one
//! type two members of one name (code that does not compile): the writers' input types
//! (`<File>Writer` and its setters, a table's `<Record>Spec`, a directory writer's
//! `<File>Spec` and `<Entry>Spec`, a stream's `<Stream>Spec`), and a struct's view (its
//! field accessors, a record's `index` and per-record ranges). A clash is refused at the
//! later source, naming both. The type names the writers add (`Set`, `Unset`,
//! `<Range>State`, `<Stream>Spec`, `<Stream>Writer`) go to `check/top.rs`'s list of
//! generated types ([`types`]).
//!
//! Pairs another check already refuses are left to it, so that one mistake gives one
//! diagnostic: two fields of a struct (`dup_check`), a record's string named like a field
//! of its record (`strtab_writer.rs`), a header field named like a range or string a
//! directory writer places (`dir_writer.rs`).

use crate::check::writer::{has_builder, record_rules};
use crate::check::writer_rules::range_kind;
use crate::check::{Checked, FieldKind};
use crate::diag::Diags;
use crate::model::RangeKind;
use crate::schema::top::Struct;
use crate::yaml::Pos;

/// Where a member comes from, for skipping the pairs other checks refuse.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Src {
    /// Something the generator always emits.
    Fixed,
    /// A struct's field (or a name dup_check already holds unique).
    Field,
    /// A range.
    Range,
    /// A string.
    Str,
    /// Anything else.
    Other,
}

/// The members of one generated type, as they are added.
pub(crate) struct Space<'a> {
    /// `the writer's `DirSpec``, for the message.
    ty: String,
    seen: Vec<(String, Option<Pos>, String, Src)>,
    /// Pairs not to report here (reported elsewhere).
    pub(crate) skip: &'a [(Src, Src)],
}

impl Space<'_> {
    pub(crate) fn new(ty: String) -> Self {
        Space {
            ty,
            seen: Vec::new(),
            skip: &[],
        }
    }
    pub(crate) fn fixed(mut self, names: &[&str], what: &str) -> Self {
        for n in names {
            self.seen
                .push(((*n).to_string(), None, format!("{what} `{n}`"), Src::Fixed));
        }
        self
    }
    pub(crate) fn add(&mut self, name: String, pos: Pos, what: String, src: Src, d: &mut Diags) {
        match self.seen.iter().find(|x| x.0 == name) {
            Some((_, p, w, s)) => {
                if (*s == src && src == Src::Field)
                    || self.skip.contains(&(*s, src))
                    || self.skip.contains(&(src, *s))
                {
                    return;
                }
                let line = p.map_or(String::new(), |p| format!(" (line {})", p.line));
                d.error(
                    pos,
                    format!(
                        "{what} gives {} the member `{name}`, which {w}{line} also gives it; rename one",
                        self.ty
                    ),
                );
            }
            None => self.seen.push((name, Some(pos), what, src)),
        }
    }
}

/// The header field a stream's writer derives from the body's length, when the stream
/// has a writer (`size` is that unsigned field, or one of the forms `check/streams.rs`
/// solves for it, such as `F + C`): its index.
pub(crate) fn stream_size_field(c: &Checked, s: &crate::schema::streams::Stream) -> Option<usize> {
    crate::check::streams::size_form(c, s).map(|f| f.field)
}

/// The types the writers add, with where each comes from, for `check/top.rs`'s list.
pub(crate) fn types(c: &Checked) -> Vec<(String, Pos, String)> {
    let file = &c.schema.file;
    let mut out = Vec::new();
    if has_builder(c) {
        for n in ["Unset", "Set"] {
            out.push((
                n.to_string(),
                file.name.pos,
                format!("the writer of `{}` (its typestate `{n}`)", file.name.text),
            ));
        }
        // The typestate parameters, one per range the file needs (`emit/typestate.rs`): a
        // type of that name would be shadowed inside the writer.
        for (_, r) in file.ranges.iter().enumerate().filter(|(k, r)| {
            r.table.is_none() && r.when.is_none() && range_kind(c, *k) == RangeKind::Bytes
        }) {
            out.push((
                format!("{}State", crate::names::camel(&r.name.text)),
                r.name.pos,
                format!("the writer's typestate of range `{}`", r.name.text),
            ));
        }
    }
    for s in &file.streams {
        if stream_size_field(c, s).is_none() {
            continue;
        }
        for kind in ["Spec", "Writer"] {
            out.push((
                format!("{}{kind}", crate::names::camel(&s.name.text)),
                s.name.pos,
                format!("the writer of stream `{}`", s.name.text),
            ));
        }
    }
    out
}

/// Every clash of member names in the generated types, and every name that would be a
/// Rust keyword where the generator uses it as it is.
pub(crate) fn check(c: &Checked, d: &mut Diags) {
    keywords(c, d);
    views(c, d);
    stream_writers(c, d);
}

/// The fields a struct's view has accessors for (`f`, an enum's `f_raw`, a string's
/// `f_str`), with the names `dup_check` holds unique marked as such.
fn field_accessors(c: &Checked, st: &Struct) -> Vec<(String, Pos, String, Src)> {
    let kinds = c.layouts.get(&st.name.text);
    let mut out = Vec::new();
    for (i, f) in st.fields.iter().enumerate() {
        let what = format!("field `{}`", f.name.text);
        out.push((f.name.text.clone(), f.name.pos, what.clone(), Src::Field));
        match kinds.and_then(|l| l.fields.get(i)).map(|x| x.1) {
            Some(FieldKind::Enum(_)) => out.push((
                format!("{}_raw", f.name.text),
                f.name.pos,
                format!("the raw accessor of field `{}`", f.name.text),
                Src::Field,
            )),
            Some(FieldKind::Str(_)) => out.push((
                format!("{}_str", f.name.text),
                f.name.pos,
                format!("the text accessor of field `{}`", f.name.text),
                Src::Other,
            )),
            _ => {}
        }
    }
    for k in &st.composed {
        out.push((
            k.name.text.clone(),
            k.name.pos,
            format!("composed value `{}`", k.name.text),
            Src::Field,
        ));
    }
    out
}

/// A struct's view: its accessors, `as_bytes` and `SIZE`, and for a table's record `index`
/// and the per-record ranges of every table it is the record of.
fn views(c: &Checked, d: &mut Diags) {
    let files = c.files();
    for st in &c.schema.structs {
        // A version-gated struct's view is another (`sections.rs`).
        if crate::check::lookup::is_gated(st) {
            continue;
        }
        let tables: Vec<_> = files
            .iter()
            .flat_map(|f| f.tables.iter().map(move |t| (*f, t)))
            .filter(|(_, t)| t.record.text == st.name.text)
            .collect();
        let is_record = !tables.is_empty()
            || files.iter().any(|f| {
                f.ext
                    .directories
                    .iter()
                    .any(|d| d.layouts.iter().any(|l| l.record.text == st.name.text))
            })
            || crate::check::lookup::is_record_struct(&c.schema.file, &st.name.text);
        let mut sp = Space::new(format!("the view `{}`", st.name.text))
            .fixed(&["as_bytes", "SIZE"], "the view's own");
        if is_record {
            sp = sp.fixed(&["index"], "the record view's own");
        }
        for (n, p, w, s) in field_accessors(c, st) {
            sp.add(n, p, w, s, d);
        }
        for (f, t) in tables {
            for r in f
                .ranges
                .iter()
                .filter(|r| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
            {
                // One range per name and file; the same range in two variants is one member.
                if sp
                    .seen
                    .iter()
                    .any(|x| x.0 == r.name.text && x.3 == Src::Range)
                {
                    continue;
                }
                sp.add(
                    r.name.text.clone(),
                    r.name.pos,
                    format!(
                        "per-record range `{}` of table `{}`",
                        r.name.text, t.name.text
                    ),
                    Src::Range,
                    d,
                );
            }
        }
    }
}

/// A table's `<Record>Spec` (plain writer, or another table next to a directory): its
/// inputs, its per-record ranges and its records' strings.
pub(crate) fn record_spec(c: &Checked, t: &crate::schema::Table, d: &mut Diags) {
    let file = &c.schema.file;
    let Some(st) = c.strukt(&t.record.text) else {
        return;
    };
    // A field and a per-record range of one name clash in the record's view already
    // (`views`); a record's string and a field: `strtab_writer.rs`.
    let mut sp = Space::new(format!("the writer's `{}Spec`", t.record.text));
    sp.skip = &[(Src::Field, Src::Range), (Src::Field, Src::Str)];
    for (f, r) in st.fields.iter().zip(record_rules(c, t)) {
        if r.is_input() {
            sp.add(
                f.name.text.clone(),
                f.name.pos,
                format!("field `{}`", f.name.text),
                Src::Field,
                d,
            );
        }
    }
    for r in file
        .ranges
        .iter()
        .filter(|r| r.table.as_ref().is_some_and(|x| x.text == t.name.text))
    {
        sp.add(
            r.name.text.clone(),
            r.name.pos,
            format!("per-record range `{}`", r.name.text),
            Src::Range,
            d,
        );
    }
    for (s, _) in crate::check::strtab_writer::record_strings(c, t) {
        sp.add(
            s.name.text.clone(),
            s.name.pos,
            format!("string `{}`", s.name.text),
            Src::Str,
            d,
        );
    }
}

/// A stream's `<Stream>Spec`: its header's fields but the size, and `body`.
fn stream_writers(c: &Checked, d: &mut Diags) {
    for s in &c.schema.file.streams {
        let (Some(size), Some(st)) = (stream_size_field(c, s), c.strukt(&s.header.text)) else {
            continue;
        };
        let mut sp = Space::new(format!(
            "the writer's `{}Spec` (stream `{}`)",
            crate::names::camel(&s.name.text),
            s.name.text
        ))
        .fixed(&["body"], "the stream writer's field");
        for (i, f) in st.fields.iter().enumerate() {
            if i != size {
                sp.add(
                    f.name.text.clone(),
                    f.name.pos,
                    format!("field `{}` of `{}`", f.name.text, st.name.text),
                    Src::Field,
                    d,
                );
            }
        }
    }
}

/// The names the generator uses as they are (an accessor, a constant, a type, a flag's
/// constant) must not be a Rust keyword (`fn type(&self)` does not compile), and an enum
/// value must not be `self` (its variant would be `Self`). (A register's or a command's
/// field: `check/regs.rs`, `check/commands.rs`.)
fn keywords(c: &Checked, d: &mut Diags) {
    use crate::names::KEYWORDS;
    let schema = &c.schema;
    fn refuse(n: &crate::schema::Name, what: &str, d: &mut Diags) {
        if KEYWORDS.contains(&n.text.as_str()) || n.text == "Self" {
            d.error(
                n.pos,
                format!(
                    "{what} `{}`: a Rust keyword cannot name it (the generated code uses the name as it is); rename it",
                    n.text
                ),
            );
        }
    }
    for k in &schema.constants {
        refuse(&k.name, "constant", d);
    }
    for e in &schema.enums {
        refuse(&e.name, "enum", d);
        for v in e
            .values
            .iter()
            .filter(|v| crate::names::camel(&v.name.text) == "Self")
        {
            d.error(
                v.name.pos,
                format!(
                    "value `{}` of enum `{}`: its variant would be `Self`, a Rust keyword; rename it",
                    v.name.text, e.name.text
                ),
            );
        }
    }
    for f in &schema.flags {
        refuse(&f.name, "flags", d);
        f.bits.iter().for_each(|b| refuse(&b.name, "flag bit", d));
    }
    for b in &schema.bitfields {
        refuse(&b.name, "bitfields", d);
        b.fields
            .iter()
            .for_each(|r| refuse(&r.name, "bit field", d));
    }
    for st in &schema.structs {
        refuse(&st.name, "struct", d);
        st.fields.iter().for_each(|f| refuse(&f.name, "field", d));
        st.composed
            .iter()
            .for_each(|k| refuse(&k.name, "composed value", d));
    }
    for f in c.files() {
        refuse(&f.name, "file", d);
        f.tables.iter().for_each(|t| refuse(&t.name, "table", d));
        f.ranges.iter().for_each(|r| refuse(&r.name, "range", d));
        f.strings.iter().for_each(|s| refuse(&s.name, "string", d));
        f.checksums
            .iter()
            .for_each(|k| refuse(&k.name, "checksum", d));
        f.ext
            .records
            .iter()
            .for_each(|r| refuse(&r.name, "record", d));
        f.streams.iter().for_each(|s| refuse(&s.name, "stream", d));
    }
    // Directory collections and stream layouts (`check/top.rs`'s `collections`).
    for t in c
        .collections
        .iter()
        .chain(c.variants.iter().flat_map(|v| v.collections.iter()))
    {
        if !c
            .files()
            .iter()
            .any(|f| f.streams.iter().any(|s| s.name.text == t.name.text))
        {
            refuse(&t.name, "collection", d);
        }
    }
}
