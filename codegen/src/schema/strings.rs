//! Strings: NUL-terminated or length-prefixed byte strings at an offset inside a byte range
//! (a string table such as ELF's `.shstrtab`, or the whole file), one for the file or one
//! per record of a table. Loaded here; checked in `check/strings.rs`, emitted in
//! `emit/strings.rs`; the interpreter's side is `interp/strings.rs`.
//!
//! ```yaml
//! file:
//!   strings:
//!     name: { table: sections, in: names, offset: name_offset }   # NUL-terminated, in `names`
//!     title: { offset: header.title_offset, prefix: u16 }         # a u16 length, then the bytes
//!   validate:
//!     - { code: bad-title, string_fits: title }
//!     - for_each: sections
//!       validate:
//!         - { code: bad-name, string_fits: name }
//!         - { code: name-not-utf8, string_utf8: name }
//! ```

use crate::diag::Diags;
use crate::expr::ExprAt;
use crate::schema::{IntTy, MapReader, Name, doc, expr_at, name, named_entries, string};
use crate::yaml::{Node, Pos};

/// Step kinds handled here.
pub const STEP_KINDS: &[&str] = &["string_fits", "string_utf8"];

/// One `strings:` entry.
#[derive(Clone, Debug)]
pub struct StringDef {
    /// Its name: the view's accessor.
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The table with one string per record (its `offset` reads the record's fields).
    pub table: Option<Name>,
    /// The file-level range the string lies in (`in`); the whole file when absent.
    pub range: Option<Name>,
    /// Where the string starts, from the start of the range.
    pub offset: ExprAt,
    /// Length-prefixed: the length word's type; NUL-terminated when absent.
    pub prefix: Option<(IntTy, Pos)>,
    /// The length word's byte order (`byte_order`, else the schema's).
    pub big: Option<bool>,
}

impl StringDef {
    /// The length word's width in bytes (0: NUL-terminated).
    pub fn prefix_bytes(&self) -> u8 {
        self.prefix
            .map_or(0, |(t, _)| u8::try_from(t.bytes()).unwrap_or(0))
    }
}

/// A string step.
#[derive(Clone, Debug)]
pub enum StrStep {
    /// `{ code, string_fits: NAME }`: the string lies inside its range (its NUL, or its
    /// length word and every byte it counts).
    Fits {
        /// Error code.
        code: Name,
        /// The string.
        string: Name,
    },
    /// `{ code, string_utf8: NAME }`: the string is UTF-8.
    Utf8 {
        /// Error code.
        code: Name,
        /// The string.
        string: Name,
    },
}

impl StrStep {
    /// The string the step checks.
    pub fn string(&self) -> &Name {
        match self {
            StrStep::Fits { string, .. } | StrStep::Utf8 { string, .. } => string,
        }
    }
    /// The step's code.
    pub fn code(&self) -> &Name {
        match self {
            StrStep::Fits { code, .. } | StrStep::Utf8 { code, .. } => code,
        }
    }
}

// ----- load --------------------------------------------------------------------------------

/// `strings:` of a file.
pub(crate) fn load(node: Option<&Node>, d: &mut Diags) -> Vec<StringDef> {
    let mut out = Vec::new();
    let Some(node) = node else { return out };
    for (sname, v) in named_entries(node, "strings", d) {
        let Some(mut m) = MapReader::new(v, &format!("string `{}`", sname.text), d) else {
            continue;
        };
        let sdoc = doc(&mut m, d);
        let table = m.opt("table").and_then(|n| name(n, "table", d));
        let range = m.opt("in").and_then(|n| name(n, "in", d));
        let offset = m.req("offset", d).and_then(|n| expr_at(n, "offset", d));
        let prefix = m.opt("prefix").and_then(|n| {
            let s = string(n, "prefix", d)?;
            match IntTy::parse(&s) {
                Some(t) if !t.signed() => Some((t, n.pos)),
                _ => {
                    d.error(
                        n.pos,
                        format!("prefix `{s}` is not an unsigned integer type (u8, u16, u32, u64)"),
                    );
                    None
                }
            }
        });
        let big = m
            .opt("byte_order")
            .and_then(|n| super::byte_order_value(n, d));
        m.finish(&["doc", "table", "in", "offset", "prefix", "byte_order"], d);
        if let Some(offset) = offset {
            out.push(StringDef {
                name: sname,
                doc: sdoc,
                table,
                range,
                offset,
                prefix,
                big,
            });
        }
    }
    out
}

/// The length words without a `byte_order` of their own take the schema's.
pub(crate) fn default_order(strings: &mut [StringDef], schema_big: bool) {
    for s in strings {
        s.big.get_or_insert(schema_big);
    }
}

/// A `string_fits` or `string_utf8` step.
pub(crate) fn step(kind: &str, mut sm: MapReader<'_>, d: &mut Diags) -> Option<StrStep> {
    let code = sm.req("code", d).and_then(|n| name(n, "code", d));
    // A field path (`header.title`) where a string's name belongs: say what the step takes.
    let target = sm.opt(kind).and_then(|n| match string(n, kind, d) {
        Some(t) if t.contains('.') => {
            d.error(
                n.pos,
                format!(
                    "{kind} `{t}`: takes the name of a string of `strings:` (one located by an offset), not a field; a `str[N]` field's text is `<field>_str()` on its view, which checks UTF-8 when called"
                ),
            );
            None
        }
        _ => name(n, kind, d),
    });
    sm.finish(&[kind, "code"], d);
    let (code, string) = (code?, target?);
    Some(if kind == "string_fits" {
        StrStep::Fits { code, string }
    } else {
        StrStep::Utf8 { code, string }
    })
}

// ----- check -------------------------------------------------------------------------------

// ----- emit --------------------------------------------------------------------------------

// ----- writer ------------------------------------------------------------------------------
