//! The one schema-loading function: YAML text to a tree whose every node knows its line and
//! column. Built on `serde-saphyr` (a maintained YAML crate; not the archived `serde_yaml`).
//!
//! The tree is deliberately untyped: the typed schema is built from it by `load.rs`, which
//! can then report *every* unknown key, missing key and wrong type at once instead of
//! stopping at the first like a derived `Deserialize` would.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

/// A position in the schema file (1-based line and column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// Line, from 1.
    pub line: u64,
    /// Column, from 1.
    pub col: u64,
}

/// A YAML node with its position.
#[derive(Clone, Debug)]
pub struct Node {
    /// Where the node starts.
    pub pos: Pos,
    /// What it holds.
    pub kind: Kind,
    /// For a boolean or null scalar, its text as written (`off`, `n`, `null`, `~`; empty for
    /// an empty value): YAML 1.1 reads some names as booleans or null, and a message about
    /// one must show the word the schema's author wrote. For an integer, its text too
    /// (`0xB1B0AFBA`, not `2981146554`), which an expression keeps.
    pub raw: String,
}

/// A mapping key that YAML reads as null (`null`, `~`): kept, as `NULL_KEY` followed by
/// its text, so that the schema reader can report it with its position.
pub const NULL_KEY: char = '\u{1}';

/// A mapping key that YAML 1.1 reads as a boolean (`y`, `n`, `yes`, `no`, `on`, `off`,
/// `true`, `false`, in any case): marked while parsing, then (in [`parse`]) reported with
/// its position and read as written, so `ON:` is the name `ON`, never `true`.
const BOOL_KEY: char = '\u{2}';

impl Node {
    /// How a scalar YAML did not read as a string reads, for messages: `` `off` is read by
    /// YAML as a boolean``.
    pub fn trap(&self) -> Option<String> {
        let what = match self.kind {
            Kind::Bool(_) => "a boolean",
            Kind::Null if !self.raw.is_empty() => "null (nothing)",
            _ => return None,
        };
        Some(format!(
            "`{r}` is read by YAML as {what} (y, n, yes, no, on, off, true, false, null and ~ are not names to YAML 1.1); quote it: \"{r}\"",
            r = self.raw
        ))
    }
}

/// The scalar token that starts at `pos` in `text` (up to a flow or comment delimiter).
fn token_at(text: &str, pos: Pos) -> String {
    let Some(line) = text.lines().nth(
        usize::try_from(pos.line)
            .unwrap_or(usize::MAX)
            .saturating_sub(1),
    ) else {
        return String::new();
    };
    let start = usize::try_from(pos.col)
        .unwrap_or(usize::MAX)
        .saturating_sub(1);
    let rest = line.get(start..).unwrap_or("");
    let end = rest.find([',', '}', ']', '#', ':']).unwrap_or(rest.len());
    rest[..end].trim().to_string()
}

fn fill_raw(n: &mut Node, text: &str) {
    match &mut n.kind {
        Kind::Bool(_) | Kind::Null | Kind::Int(_) => n.raw = token_at(text, n.pos),
        Kind::Map(m) => {
            for (p, k, v) in m.iter_mut() {
                if k.starts_with(NULL_KEY) {
                    *k = format!("{NULL_KEY}{}", token_at(text, *p));
                }
                if k.starts_with(BOOL_KEY) {
                    *k = format!("{BOOL_KEY}{}", token_at(text, *p));
                }
                fill_raw(v, text);
            }
        }
        Kind::Seq(items) => items.iter_mut().for_each(|v| fill_raw(v, text)),
        _ => {}
    }
}

/// The kinds of node.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A mapping, in file order, each key with its own position.
    Map(Vec<(Pos, String, Node)>),
    /// A sequence.
    Seq(Vec<Node>),
    /// A string scalar (also what unquoted non-numbers are).
    Str(String),
    /// An integer scalar.
    Int(i128),
    /// A boolean scalar.
    Bool(bool),
    /// A float scalar.
    Float,
    /// `~` or an empty value.
    Null,
}

impl Kind {
    /// A short name of the kind, for messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Kind::Map(_) => "a mapping",
            Kind::Seq(_) => "a sequence",
            Kind::Str(_) => "a string",
            Kind::Int(_) => "an integer",
            Kind::Bool(_) => "a boolean",
            Kind::Float => "a float",
            Kind::Null => "nothing",
        }
    }
}

fn pos_of(loc: &serde_saphyr::Location) -> Pos {
    Pos {
        line: loc.line(),
        col: loc.column(),
    }
}

/// What a YAML syntax error looks like: a message and where.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    /// Where the parser stopped (line 0 when the parser did not say).
    pub pos: Pos,
    /// The parser's message.
    pub message: String,
}

/// A mapping key YAML read as a boolean: where, the enclosing key, and the text written.
struct KeyTrap {
    pos: Pos,
    parent: Option<String>,
    raw: String,
}

impl KeyTrap {
    /// The message: [`Node::trap`]'s for a value, naming the mapping.
    fn message(&self) -> String {
        let node = Node {
            pos: self.pos,
            kind: Kind::Bool(false),
            raw: self.raw.clone(),
        };
        let what = node.trap().unwrap_or_default();
        match &self.parent {
            Some(p) => format!("a key in {p}: {what}"),
            None => format!("a top-level key: {what}"),
        }
    }
}

/// Read every key YAML took for a boolean as written (dropping the [`BOOL_KEY`] mark),
/// collecting each one, in file order.
fn take_key_traps(n: &mut Node, parent: Option<&str>, out: &mut Vec<KeyTrap>) {
    match &mut n.kind {
        Kind::Map(m) => {
            for (p, k, v) in m.iter_mut() {
                if let Some(raw) = k.strip_prefix(BOOL_KEY) {
                    let raw = raw.to_string();
                    out.push(KeyTrap {
                        pos: *p,
                        parent: parent.map(str::to_string),
                        raw: raw.clone(),
                    });
                    *k = raw;
                }
                take_key_traps(v, Some(k.trim_start_matches(NULL_KEY)), out);
            }
        }
        Kind::Seq(items) => items
            .iter_mut()
            .for_each(|v| take_key_traps(v, parent, out)),
        _ => {}
    }
}

/// Parse YAML text into a positioned tree. This is the only place the project parses YAML.
///
/// A mapping key YAML 1.1 reads as a boolean (`ON:`, `off:`, `y:`) is passed to `report` at
/// its file:line:column, as a value is (`` a key in bits: `ON` is read by YAML as a boolean
/// ...; quote it: "ON" ``), and read as written (`ON`, not `true`), so that nothing else is
/// reported for it and the rest of the schema is still checked.
///
/// `report` takes a position and a message (the loader passes its diagnostics' `error`; this
/// module sits below `diag`, which uses its `Pos`, so it does not name `Diags` itself).
pub fn parse(text: &str, report: &mut dyn FnMut(Pos, String)) -> Result<Node, SyntaxError> {
    let (n, traps) = parse_tree(text)?;
    for t in &traps {
        report(t.pos, t.message());
    }
    Ok(n)
}

/// The tree with every key as written, and the keys YAML read as booleans.
fn parse_tree(text: &str) -> Result<(Node, Vec<KeyTrap>), SyntaxError> {
    match serde_saphyr::from_str::<Spanned<Inner>>(text) {
        Ok(s) => {
            let mut n = s.value.into_node(pos_of(&s.referenced));
            fill_raw(&mut n, text);
            let mut traps = Vec::new();
            take_key_traps(&mut n, None, &mut traps);
            Ok((n, traps))
        }
        Err(e) => {
            let pos = e.location().map(|l| pos_of(&l)).unwrap_or_default();
            let mut inner = &e;
            while let serde_saphyr::Error::WithSnippet { error, .. }
            | serde_saphyr::Error::AliasError { error, .. } = inner
            {
                inner = error;
            }
            if let serde_saphyr::Error::Budget { breach, .. } = inner {
                return Err(SyntaxError {
                    pos,
                    message: budget_message(breach),
                });
            }
            let message = e.to_string();
            // serde-saphyr's message may repeat the location; keep the first line only.
            let message = message.lines().next().unwrap_or("invalid YAML");
            // Drop a leading "error: line L column C: ": the diagnostic carries the position.
            let message = message.strip_prefix("error: ").unwrap_or(message);
            let message = match message.find(": ") {
                Some(i) if message.starts_with("line ") => &message[i + 2..],
                _ => message,
            };
            let message = message.to_string();
            Err(SyntaxError { pos, message })
        }
    }
}

/// A YAML budget breach (serde-saphyr's guard against hostile YAML) in words: what was over
/// which limit, and that a schema needs far less (its debug form, `Depth { depth: 65 }`,
/// is not a message).
fn budget_message(b: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::BudgetBreach as B;
    let what = match b {
        B::Depth { depth } => format!("nested {depth} levels deep"),
        B::Events { events } => format!("{events} parser events"),
        B::Aliases { aliases } => format!("{aliases} aliases (`*name`)"),
        B::Anchors { anchors } => format!("{anchors} anchors (`&name`)"),
        B::Documents { documents } => format!("{documents} documents"),
        B::Nodes { nodes } => format!("{nodes} nodes"),
        B::ScalarBytes { total_scalar_bytes } => {
            format!("{total_scalar_bytes} bytes of scalar text")
        }
        B::MergeKeys { merge_keys } => format!("{merge_keys} merge keys (`<<`)"),
        B::AliasAnchorRatio { aliases, anchors } => {
            format!("{aliases} aliases for {anchors} anchors")
        }
        other => format!("{other:?}").to_lowercase(),
    };
    format!(
        "the YAML is over the parser's safety limits ({what}): a schema needs far less; is this the schema file?"
    )
}

/// Deserialization target: each child is wrapped in `Spanned` so the position survives.
enum Inner {
    Map(Vec<(Spanned<Key>, Spanned<Inner>)>),
    Seq(Vec<Spanned<Inner>>),
    Str(String),
    Int(i128),
    Bool(bool),
    Float,
    Null,
}

impl Inner {
    fn into_node(self, pos: Pos) -> Node {
        let kind = match self {
            Inner::Map(entries) => Kind::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| {
                        let vpos = pos_of(&v.referenced);
                        (pos_of(&k.referenced), k.value.0, v.value.into_node(vpos))
                    })
                    .collect(),
            ),
            Inner::Seq(items) => Kind::Seq(
                items
                    .into_iter()
                    .map(|v| {
                        let p = pos_of(&v.referenced);
                        v.value.into_node(p)
                    })
                    .collect(),
            ),
            Inner::Str(s) => Kind::Str(s),
            Inner::Int(i) => Kind::Int(i),
            Inner::Bool(b) => Kind::Bool(b),
            Inner::Float => Kind::Float,
            Inner::Null => Kind::Null,
        };
        Node {
            pos,
            kind,
            raw: String::new(),
        }
    }
}

impl<'de> Deserialize<'de> for Inner {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(InnerVisitor)
    }
}

struct InnerVisitor;

impl<'de> Visitor<'de> for InnerVisitor {
    type Value = Inner;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Inner, E> {
        Ok(Inner::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Inner, E> {
        Ok(Inner::Int(i128::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Inner, E> {
        Ok(Inner::Int(i128::from(v)))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Inner, E> {
        Ok(Inner::Int(v))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Inner, E> {
        i128::try_from(v)
            .map(Inner::Int)
            .map_err(|_| E::custom("integer too large"))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Inner, E> {
        let _ = v;
        Ok(Inner::Float)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Inner, E> {
        Ok(Inner::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Inner, E> {
        Ok(Inner::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Inner, E> {
        Ok(Inner::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Inner, E> {
        Ok(Inner::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Inner, D::Error> {
        Inner::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Inner, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Spanned<Inner>>()? {
            items.push(v);
        }
        Ok(Inner::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Inner, A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = map.next_key::<Spanned<Key>>()? {
            let v = map.next_value::<Spanned<Inner>>()?;
            entries.push((k, v));
        }
        Ok(Inner::Map(entries))
    }
}

/// A mapping key: a string, or what YAML read some other way, as text (a null key becomes
/// [`NULL_KEY`], reported by the schema reader).
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Key, E> {
        Ok(Key(v))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Key, E> {
        // Read as written, and reported, by `parse` (`fill_raw` puts the text after the mark).
        Ok(Key(BOOL_KEY.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key, E> {
        Ok(Key(v.to_string()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
        Ok(Key(NULL_KEY.to_string()))
    }
    fn visit_none<E: de::Error>(self) -> Result<Key, E> {
        Ok(Key(NULL_KEY.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_survive() {
        let mut reported = Vec::new();
        let n = parse("a: 1\nb:\n  - x\n  - {c: 0x10}\n", &mut |p, m| {
            reported.push((p, m))
        })
        .expect("parses");
        assert!(reported.is_empty());
        let Kind::Map(m) = n.kind else { panic!("map") };
        assert_eq!(m[0].1, "a");
        assert_eq!(m[1].0, Pos { line: 2, col: 1 });
        let Kind::Seq(items) = &m[1].2.kind else {
            panic!("seq")
        };
        assert_eq!(items[1].pos.line, 4);
        let Kind::Map(inner) = &items[1].kind else {
            panic!("map")
        };
        assert!(matches!(inner[0].2.kind, Kind::Int(16) | Kind::Str(_)));
    }
}
