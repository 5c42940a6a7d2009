//! Record streams: a file-level byte range read as a sequence of variable-size records,
//! each sized by its own header (type-length-value and chunk formats). Their typed form and
//! loader; the checks are in `check/streams.rs` (and the queries resolution needs in
//! `check/lookup.rs`), the emission in `emit/stream.rs`, the interpreter's walk in
//! `interp/stream.rs`.
//!
//! ```yaml
//! file:
//!   streams:
//!     records:
//!       range: body              # a file-level range, checked by its range_fits first
//!       header: TlvHeader        # the struct at each record's start
//!       size: length             # header expression: the body's bytes
//!       includes_header: false   # true: `size` counts the header too
//!       align: 4                 # records start at multiples of 4 from the range's start
//!       end: "kind == 0"         # a terminator record (else: the range's end)
//!       type: kind               # the header field choosing a layout
//!       layouts:
//!         notes: { type: 1, record: Note }   # collection: type value, body struct
//!   validate:
//!     - { code: record-invalid, stream_fits: records }
//! ```

use crate::diag::Diags;
use crate::expr::ExprAt;
use crate::schema::{Algorithm, MapReader, Name, boolean, doc, expr_at, name, named_entries, uint};
use crate::yaml::Pos;

/// A sequence of variable-size records filling a file-level range.
#[derive(Clone, Debug)]
pub struct Stream {
    /// Name: the view's iterator (`records()`), `for_each` and `count()`.
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The file-level range the records fill.
    pub range: Name,
    /// The struct read at each record's start.
    pub header: Name,
    /// The record's size, an expression over the header's fields.
    pub size: ExprAt,
    /// Whether `size` counts the header too (`false`: the body alone).
    pub includes_header: bool,
    /// Every record starts at a multiple of this from the range's start.
    pub align: u64,
    /// Where `align` was written.
    pub align_pos: Pos,
    /// A terminator: the record whose header satisfies this ends the stream.
    pub end: Option<ExprAt>,
    /// Bytes may follow the terminator, up to the range's end (not read).
    pub trailing: Option<Pos>,
    /// The header field that chooses a layout.
    pub type_field: Option<Name>,
    /// Body layouts by type.
    pub layouts: Vec<StreamLayout>,
    /// A checksum in every record, checked by a `stream_checksum` step.
    pub checksum: Option<RecordSum>,
    /// How deep records may nest (records of a `nested` layout hold records of this stream
    /// in their bodies, after the layout's struct), and where it was written.
    pub max_depth: Option<(u64, Pos)>,
    /// The records are a chain, each locating the next (TIFF's image file directories),
    /// instead of following one another through the range.
    pub chain: Option<Chain>,
    /// The records fill a part of each record of another stream (TIFF's IFD entries, ZIP's
    /// extra fields) instead of a range of the file; `range` is then that stream's.
    pub within: Option<Within>,
}

/// A stream whose records fill bytes `from..to` of each record of another stream (offsets
/// from that record's start, expressions over its header's fields), in that stream's order.
#[derive(Clone, Debug)]
pub struct Within {
    /// The stream whose records hold these.
    pub stream: Name,
    /// Where the records start, from the holding record's start.
    pub from: ExprAt,
    /// Where they end.
    pub to: ExprAt,
    /// Where `within` was written.
    pub pos: Pos,
}

/// A stream whose records are not laid out one after another but linked: the first is at
/// `first` (an offset in the range), and each record stores the offset of the next (in the
/// range) in an unsigned word at `next_at` from its start; 0 ends the chain. At most `max`
/// records, and a record visited twice (a cycle) is an error.
#[derive(Clone, Debug)]
pub struct Chain {
    /// Where the first record starts, from the range's start (a file-level expression; 0:
    /// the stream has no record).
    pub first: ExprAt,
    /// Where a record's link to the next one is, from the record's start (an expression
    /// over its header's fields).
    pub next_at: ExprAt,
    /// The link word's type (an unsigned integer).
    pub next_ty: Name,
    /// The link word's byte order: `Some(big)` fixed (its own `byte_order`, or the schema's),
    /// `None` the file's, chosen by its header (`big_when`).
    pub big: Option<bool>,
    /// Its own `byte_order`, when it has one.
    pub own_order: Option<bool>,
    /// At most this many records.
    pub max: u64,
    /// Where `chain` was written.
    pub pos: Pos,
}

/// A checksum each record carries: over bytes `from..to` of the record, stored as a `u32`
/// at `stored` (offsets from the record's start, expressions over its header).
#[derive(Clone, Debug)]
pub struct RecordSum {
    /// Algorithm.
    pub algorithm: Algorithm,
    /// First byte covered.
    pub from: ExprAt,
    /// One past the last byte covered.
    pub to: ExprAt,
    /// Where the stored `u32` is.
    pub stored: ExprAt,
    /// The stored value is big-endian.
    pub big: bool,
    /// Records whose header satisfies this carry a checksum; the others' are not checked
    /// (ZIP's CRC-32 is of the uncompressed data: checkable for stored entries only).
    pub when: Option<ExprAt>,
    /// Where the checksum was written.
    pub pos: Pos,
}

/// The steps over a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamStep {
    /// `stream_fits`: walk every record.
    Fits,
    /// `stream_checksum`: every record's checksum matches.
    Checksum,
}

/// The body layout of the records of one type.
#[derive(Clone, Debug)]
pub struct StreamLayout {
    /// The collection's name (every body of this type).
    pub collection: Name,
    /// The type value (a number, a constant or `Enum.value`).
    pub value: ExprAt,
    /// The body struct.
    pub record: Name,
    /// Documentation.
    pub doc: String,
    /// Where `nested: true` was written: the body holds records of the same stream after
    /// the struct (RIFF's `LIST`).
    pub nested: Option<Pos>,
}

/// The `file` key of this module.
pub const FILE_KEY: &str = "streams";

/// Read `streams:` of a file.
pub fn load(m: &mut MapReader<'_>, d: &mut Diags, dropped: &mut Vec<Name>) -> Vec<Stream> {
    let mut out = Vec::new();
    let Some(ss) = m.opt(FILE_KEY) else {
        return out;
    };
    for (sname, v) in named_entries(ss, "streams", d) {
        let (since, before) = (d.items.len(), out.len());
        let Some(mut sm) = MapReader::new(v, &format!("stream `{}`", sname.text), d) else {
            crate::schema::left_out(sname, since, d, dropped);
            continue;
        };
        let kept = sname.clone();
        let sdoc = doc(&mut sm, d);
        let within = sm.opt("within").and_then(|wn| {
            let mut wm = MapReader::new(wn, &format!("`within` of stream `{}`", sname.text), d)?;
            let stream = wm.req("stream", d).and_then(|n| name(n, "stream", d));
            let from = wm.req("from", d).and_then(|n| expr_at(n, "from", d));
            let to = wm.req("to", d).and_then(|n| expr_at(n, "to", d));
            wm.finish(&["stream", "from", "to"], d);
            Some(Within {
                stream: stream?,
                from: from?,
                to: to?,
                pos: wn.pos,
            })
        });
        // A stream within another's records reads that stream's range (set below).
        let range = match &within {
            Some(w) => {
                if let Some(n) = sm.opt("range") {
                    d.error(n.pos, format!("stream `{}`: its records are within stream `{}`'s records, in that stream's range; drop `range`", sname.text, w.stream.text));
                }
                Some(w.stream.clone())
            }
            None => sm.req("range", d).and_then(|n| name(n, "range", d)),
        };
        let header = sm.req("header", d).and_then(|n| name(n, "header", d));
        let size = sm.req("size", d).and_then(|n| expr_at(n, "size", d));
        let includes_header = sm
            .opt("includes_header")
            .and_then(|n| boolean(n, "includes_header", d))
            .unwrap_or(false);
        let align_node = sm.opt("align");
        let align = align_node.and_then(|n| uint(n, "align", d)).unwrap_or(1);
        let align_pos = align_node.map_or(sname.pos, |n| n.pos);
        let end = sm.opt("end").and_then(|n| expr_at(n, "end", d));
        let trailing = sm.opt("trailing").and_then(|n| {
            let pos = n.pos;
            boolean(n, "trailing", d)?.then_some(pos)
        });
        let type_field = sm.opt("type").and_then(|n| name(n, "type", d));
        let max_depth = sm.opt("max_depth").and_then(|n| {
            let pos = n.pos;
            Some((uint(n, "max_depth", d)?, pos))
        });
        let checksum = sm.opt("checksum").and_then(|cn| {
            let mut cm = MapReader::new(cn, &format!("checksum of stream `{}`", sname.text), d)?;
            let algorithm = crate::schema::algorithm(&mut cm, d);
            let from = cm.req("from", d).and_then(|n| expr_at(n, "from", d));
            let to = cm.req("to", d).and_then(|n| expr_at(n, "to", d));
            let stored = cm.req("stored", d).and_then(|n| expr_at(n, "stored", d));
            let big = cm
                .opt("byte_order")
                .and_then(|n| super::byte_order_value(n, d));
            let when = cm.opt("when").and_then(|n| expr_at(n, "when", d));
            cm.finish(
                &["algorithm", "from", "to", "stored", "byte_order", "when"],
                d,
            );
            Some(RecordSum {
                algorithm: algorithm?,
                from: from?,
                to: to?,
                stored: stored?,
                big: big.unwrap_or(false),
                when,
                pos: cn.pos,
            })
        });
        let chain = sm.opt("chain").and_then(|cn| chain(cn, &sname.text, d));
        let mut layouts = Vec::new();
        if let Some(ls) = sm.opt("layouts") {
            for (cname, lv) in named_entries(ls, "layouts", d) {
                let Some(mut lm) = MapReader::new(lv, &format!("layout `{}`", cname.text), d)
                else {
                    continue;
                };
                let ldoc = doc(&mut lm, d);
                let value = lm.req("type", d).and_then(|n| expr_at(n, "type", d));
                let record = lm.req("record", d).and_then(|n| name(n, "record", d));
                let nested = lm.opt("nested").and_then(|n| {
                    let pos = n.pos;
                    boolean(n, "nested", d)?.then_some(pos)
                });
                lm.finish(&["doc", "type", "record", "nested"], d);
                if let (Some(value), Some(record)) = (value, record) {
                    layouts.push(StreamLayout {
                        collection: cname,
                        value,
                        record,
                        doc: ldoc,
                        nested,
                    });
                }
            }
        }
        sm.finish(
            &[
                "doc",
                "range",
                "header",
                "size",
                "includes_header",
                "align",
                "end",
                "trailing",
                "type",
                "layouts",
                "checksum",
                "max_depth",
                "chain",
                "within",
            ],
            d,
        );
        if let (Some(range), Some(header), Some(size)) = (range, header, size) {
            out.push(Stream {
                name: sname,
                doc: sdoc,
                range,
                header,
                size,
                includes_header,
                align,
                align_pos,
                end,
                trailing,
                type_field,
                layouts,
                checksum,
                max_depth,
                chain,
                within,
            });
        }
        if out.len() == before {
            crate::schema::left_out(kept, since, d, dropped);
        }
    }
    // A stream within another's records is in that stream's range.
    let ranges: Vec<(String, Name)> = out
        .iter()
        .map(|s| (s.name.text.clone(), s.range.clone()))
        .collect();
    for s in out.iter_mut() {
        if let Some(w) = &s.within
            && let Some((_, r)) = ranges.iter().find(|(n, _)| *n == w.stream.text)
        {
            s.range = Name {
                text: r.text.clone(),
                pos: w.stream.pos,
            };
        }
    }
    out
}

/// Read a stream's `chain: { first, next: { at, type, byte_order? }, max }`.
fn chain(cn: &crate::yaml::Node, sname: &str, d: &mut Diags) -> Option<Chain> {
    let mut cm = MapReader::new(cn, &format!("chain of stream `{sname}`"), d)?;
    let first = cm.req("first", d).and_then(|n| expr_at(n, "first", d));
    let max = cm.req("max", d).and_then(|n| uint(n, "max", d));
    let next = cm.req("next", d).and_then(|nn| {
        let mut nm = MapReader::new(nn, &format!("`next` of the chain of stream `{sname}`"), d)?;
        let at = nm.req("at", d).and_then(|n| expr_at(n, "at", d));
        let ty = nm.req("type", d).and_then(|n| name(n, "type", d));
        let order = nm
            .opt("byte_order")
            .and_then(|n| super::byte_order_value(n, d));
        nm.finish(&["at", "type", "byte_order"], d);
        Some((at?, ty?, order))
    });
    cm.finish(&["first", "next", "max"], d);
    let (next_at, next_ty, own_order) = next?;
    Some(Chain {
        first: first?,
        next_at,
        next_ty,
        big: own_order,
        own_order,
        max: max?,
        pos: cn.pos,
    })
}

/// Give each chain's link word without a `byte_order` of its own the schema's fixed order
/// (`big`), or, when the header chooses the file's order (`runtime`), none: it is read in
/// the order the file's header chose.
pub fn default_order(streams: &mut [Stream], big: bool, runtime: bool) {
    for c in streams.iter_mut().filter_map(|s| s.chain.as_mut()) {
        c.big = match c.own_order {
            Some(b) => Some(b),
            None if runtime => None,
            None => Some(big),
        };
    }
}
