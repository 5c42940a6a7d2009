//! The byte-ownership ledger of a validated VPMN file (the field map's "PoC 12A serializer
//! and byte-ownership ledger"): every byte has exactly one owner, of one class:
//!
//! - `decoded-record`: the header, sub-header, directory, and section (or v1 table) records
//!   with a decoded layout;
//! - `alignment`: the fewest bytes before a section that its alignment requires;
//! - `padding`: the rest of any unclaimed gap;
//! - `preserved-opaque`: payloads without a proved codec (and DYNAIO slots, and the v1
//!   fixed-part extension no public reader maps);
//! - `connection-tail`: the final 512 bytes, only when nothing else owns them.
//!
//! Which bytes each part owns is the schema's: the `ownership` declaration of
//! `schema/vpmn.yaml`, whose `owned_apart` step the generated validator runs (so firmware
//! refuses an overlap too), and whose generated `layout_parts()` accessor lists the parts
//! read here. This module only names and classes them for people (decoded or opaque by
//! section type, the DYNAIO slots, alignment and padding in the gaps); its own overlap
//! check is a consistency check that a validated file cannot fail.
//!
//! Views (`section-covered-view`) fingerprint ranges already owned (the final 512 bytes when
//! a section reaches the end of the file) and never take part in re-emission.
//!
//! [`Image`] is the immutable image: it re-emits the source byte for byte from its owners
//! and refuses any change; a semantic change goes through [`super::writer`], which
//! recomputes every checksum and validates.

use std::fmt;

use npuschema_core::Error;
use npuschema_generated::vpmn::{Vpmn, VpmnV1, VpmnV2};
use serde_json::{Value, json};

use super::sha256_hex;
use super::writer::{DYNAIO, WriteError};

/// Size of the connection region at the end of the file.
pub const CONNECTION_TAIL_BYTES: u64 = 512;

/// What a byte range is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A proved header, directory or record range.
    DecodedRecord,
    /// The fewest pre-section bytes the section's alignment requires.
    Alignment,
    /// Any other unclaimed gap byte.
    Padding,
    /// A payload without a proved codec.
    PreservedOpaque,
    /// The final 512 bytes, when no section owns them.
    ConnectionTail,
}

impl Class {
    /// The kebab-case name used in JSON and text.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Class::DecodedRecord => "decoded-record",
            Class::Alignment => "alignment",
            Class::Padding => "padding",
            Class::PreservedOpaque => "preserved-opaque",
            Class::ConnectionTail => "connection-tail",
        }
    }
}

/// One owned range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// Its class.
    pub class: Class,
    /// What it is (`format-header`, `section[3] NBG_SECTION_INPUT`, ...).
    pub what: String,
}

/// A non-owning fingerprint over owned bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// What it is.
    pub what: String,
    /// `section-covered-view`.
    pub kind: &'static str,
    /// SHA-256 of the bytes.
    pub sha256: String,
}

/// Every byte's owner, in file order, and the views.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ledger {
    /// File length.
    pub len: u64,
    /// Owners, contiguous from 0 to `len`.
    pub owners: Vec<Owner>,
    /// Views.
    pub views: Vec<View>,
}

/// Why a ledger cannot be built or an image changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LedgerError {
    /// The file does not validate.
    Invalid(Error),
    /// Two claims overlap: exclusive ownership is impossible.
    Overlap {
        /// The first claim.
        first: String,
        /// The second claim.
        second: String,
        /// Where they meet.
        at: u64,
    },
    /// A change to the image outside the writer.
    Refused {
        /// First changed byte.
        at: u64,
        /// Its owner.
        owner: String,
    },
    /// The writer refused the edit.
    Write(WriteError),
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerError::Invalid(e) => write!(f, "{e}"),
            LedgerError::Overlap { first, second, at } => {
                write!(
                    f,
                    "ownership-overlap: {first} and {second} both claim byte {at:#x}"
                )
            }
            LedgerError::Refused { at, owner } => write!(
                f,
                "semantic-change-refused: byte {at:#x} ({owner}) can change only through the writer, which recomputes every checksum and validates"
            ),
            LedgerError::Write(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LedgerError {}

struct Claim {
    start: u64,
    end: u64,
    class: Class,
    what: String,
    /// Alignment of the section that starts here (for the gap before it).
    align: u32,
}

fn claim(start: u64, len: u64, class: Class, what: impl Into<String>, align: u32) -> Claim {
    Claim {
        start,
        end: start.saturating_add(len),
        class,
        what: what.into(),
        align,
    }
}

/// The claims of a version 2 file: the parts its schema's `ownership` declares (the
/// generated `layout_parts`, which the validator checked apart), named and classed for the
/// ledger; the DYNAIO payload is cut into its slots and the padding between them.
fn v2_claims(v: &VpmnV2<'_>) -> Vec<Claim> {
    let sections: Vec<_> = v.sections().collect();
    let mut c = Vec::new();
    let slots: Vec<(u64, u64)> = v
        .dynaio_table()
        .map(|e| (u64::from(e.offset()), u64::from(e.size())))
        .collect();
    for part in v.layout_parts() {
        let (at, size) = (part.start, part.end.saturating_sub(part.start));
        let fixed = match part.part {
            "header" => Some("format-header"),
            "sub_header" => Some("sub-header"),
            "sections" => Some("section-directory"),
            _ => None,
        };
        if let Some(what) = fixed {
            c.push(claim(at, size, Class::DecodedRecord, what, 0));
            continue;
        }
        let Some(s) = usize::try_from(part.index)
            .ok()
            .and_then(|i| sections.get(i))
        else {
            continue;
        };
        let t = s.sd_type().raw();
        let name = super::section_type_name(t).unwrap_or_else(|| format!("type {t}"));
        let what = format!("section[{}] {name}", s.index());
        let align = s.sd_alignsize();
        if t == DYNAIO {
            // The slots are opaque payloads; the bytes between and after them are padding.
            let mut cursor = 0u64;
            let mut first = true;
            for (k, (off, len)) in slots.iter().enumerate() {
                if *off > cursor {
                    c.push(claim(
                        at + cursor,
                        off - cursor,
                        Class::Padding,
                        format!("{what} padding"),
                        if first { align } else { 0 },
                    ));
                    first = false;
                }
                c.push(claim(
                    at + off,
                    *len,
                    Class::PreservedOpaque,
                    format!("{what} slot {k}"),
                    if first { align } else { 0 },
                ));
                first = false;
                cursor = cursor.max(off + len);
            }
            if cursor < size {
                c.push(claim(
                    at + cursor,
                    size - cursor,
                    Class::Padding,
                    format!("{what} padding"),
                    if first { align } else { 0 },
                ));
            }
            continue;
        }
        let class = if inspect_decoded(t) {
            Class::DecodedRecord
        } else {
            Class::PreservedOpaque
        };
        c.push(claim(at, size, class, what, align));
    }
    c
}

/// Whether the section type has a decoded record layout in the schema.
#[must_use]
pub fn inspect_decoded(t: u32) -> bool {
    matches!(t, 1 | 2 | 26 | 35 | 37 | 38 | 39 | 40)
}

/// The v1 table names, in entry order.
pub const V1_TABLES: [&str; 16] = [
    "input",
    "output",
    "layer",
    "operation",
    "lcd_table",
    "lcd",
    "nn_op",
    "tp_op",
    "sh_op",
    "patch",
    "layer_param",
    "sw_op",
    "hw_init_op",
    "icd_table",
    "icd",
    "ppu_param",
];

/// The claims of a version 1 file: the parts its schema's `ownership` declares (the
/// generated `layout_parts`: prefix, fixed part, entry table, each entry's bytes), named and
/// classed for the ledger, and the words between the entry table and the first located byte.
fn v1_claims(v: &VpmnV1<'_>) -> Vec<Claim> {
    let parts: Vec<_> = v.layout_parts().collect();
    let extent = |name: &str| {
        parts
            .iter()
            .find(|p| p.part == name)
            .map_or((0, 0), |p| (p.start, p.end))
    };
    let (fixed_start, fixed_end) = extent("fixed");
    let (table_start, entries_end) = extent("entries");
    // Each entry's `{offset, size}`, from the parts (empty ones kept, for their index).
    let entries: Vec<(u64, u64)> = parts
        .iter()
        .filter(|p| p.part == "bytes")
        .map(|p| (p.start, p.end.saturating_sub(p.start)))
        .collect();
    let (prefix_start, prefix_end) = extent("header");
    let mut c = vec![
        claim(
            prefix_start,
            prefix_end - prefix_start,
            Class::DecodedRecord,
            "v1-prefix",
            0,
        ),
        claim(
            fixed_start,
            fixed_end - fixed_start,
            Class::DecodedRecord,
            "v1-fixed-part",
            0,
        ),
        claim(
            table_start,
            entries_end - table_start,
            Class::DecodedRecord,
            "v1-table-entries",
            0,
        ),
    ];
    let decoded_io = v.header().version() >= 0x0001_000B;
    let first_located = entries
        .iter()
        .filter(|e| e.1 > 0)
        .map(|e| e.0)
        .min()
        .unwrap_or(entries_end);
    if first_located > entries_end {
        c.push(claim(
            entries_end,
            first_located - entries_end,
            Class::PreservedOpaque,
            "v1-opaque-fixed-extension",
            0,
        ));
    }
    // The extension is made of words no public reader maps. Read as further `{offset, size}`
    // entries (an inference), the in-bounds ones that overlap nothing else claim their bytes
    // as opaque, so located data is not mistaken for padding; the others are ignored.
    let len = v.as_bytes().len() as u64;
    let ext = v
        .as_bytes()
        .get(entries_end as usize..first_located.max(entries_end) as usize)
        .unwrap_or_default();
    let mut inferred: Vec<Claim> = Vec::new();
    for (k, pair) in ext.chunks_exact(8).enumerate() {
        let off = u64::from(u32::from_le_bytes([pair[0], pair[1], pair[2], pair[3]]));
        let size = u64::from(u32::from_le_bytes([pair[4], pair[5], pair[6], pair[7]]));
        let end = off.saturating_add(size);
        let free = |x: &Claim| end <= x.start || off >= x.end;
        if size > 0 && end <= len && c.iter().all(free) && inferred.iter().all(free) {
            inferred.push(claim(
                off,
                size,
                Class::PreservedOpaque,
                format!("v1-unmapped-entry[{}] (inferred)", 16 + k),
                0,
            ));
        }
    }
    c.extend(inferred);
    for (k, (off, size)) in entries.iter().enumerate() {
        if *size == 0 {
            continue;
        }
        let name = V1_TABLES.get(k).copied().unwrap_or("unmapped");
        let class = if k < 2 && decoded_io {
            Class::DecodedRecord
        } else {
            Class::PreservedOpaque
        };
        c.push(claim(
            *off,
            *size,
            class,
            format!("v1-table[{k}] {name}"),
            0,
        ));
    }
    c
}

impl Ledger {
    /// The ledger of a file, which must validate.
    ///
    /// # Errors
    /// An invalid file, or claims that overlap.
    pub fn of(bytes: &[u8]) -> Result<Ledger, LedgerError> {
        let claims = match Vpmn::validate(bytes).map_err(LedgerError::Invalid)? {
            Vpmn::V2(v) => v2_claims(&v),
            Vpmn::V1(v) => v1_claims(&v),
        };
        Self::from_claims(bytes, claims)
    }

    fn from_claims(bytes: &[u8], mut claims: Vec<Claim>) -> Result<Ledger, LedgerError> {
        let len = bytes.len() as u64;
        claims.retain(|c| c.end > c.start);
        claims.sort_by_key(|c| (c.start, c.end));
        for w in claims.windows(2) {
            if let [a, b] = w
                && b.start < a.end
            {
                return Err(LedgerError::Overlap {
                    first: a.what.clone(),
                    second: b.what.clone(),
                    at: b.start,
                });
            }
        }
        let tail_start = len.saturating_sub(CONNECTION_TAIL_BYTES);
        let mut views = Vec::new();
        let owned_in_tail = claims.iter().any(|c| c.end > tail_start);
        if owned_in_tail {
            let bytes_tail = bytes.get(tail_start as usize..).unwrap_or_default();
            views.push(View {
                start: tail_start,
                end: len,
                what: "connection-region".into(),
                kind: "section-covered-view",
                sha256: sha256_hex(bytes_tail),
            });
        }
        let mut owners = Vec::new();
        let mut cursor = 0u64;
        let gap = |from: u64, to: u64, align: u32, owners: &mut Vec<Owner>, before: &str| {
            if to <= from {
                return;
            }
            let mut from = from;
            if align > 1 {
                let a = u64::from(align);
                let aligned = from.div_ceil(a) * a;
                if aligned > from && aligned <= to && to.is_multiple_of(a) {
                    owners.push(Owner {
                        start: from,
                        end: aligned,
                        class: Class::Alignment,
                        what: format!("alignment before {before}"),
                    });
                    from = aligned;
                }
            }
            if from < to {
                owners.push(Owner {
                    start: from,
                    end: to,
                    class: Class::Padding,
                    what: format!("padding before {before}"),
                });
            }
        };
        for c in &claims {
            gap(cursor, c.start, c.align, &mut owners, &c.what);
            owners.push(Owner {
                start: c.start,
                end: c.end,
                class: c.class,
                what: c.what.clone(),
            });
            cursor = c.end;
        }
        if cursor < len {
            // Nothing owns the end of the file: the final 512 bytes are the connection tail.
            let t = tail_start.max(cursor);
            gap(cursor, t, 0, &mut owners, "connection-tail");
            owners.push(Owner {
                start: t,
                end: len,
                class: Class::ConnectionTail,
                what: "connection-region".into(),
            });
        }
        Ok(Ledger { len, owners, views })
    }

    /// Whether the owners tile `0..len` exactly, in order, without overlap.
    #[must_use]
    pub fn is_exclusive(&self) -> bool {
        let mut cursor = 0;
        for o in &self.owners {
            if o.start != cursor || o.end <= o.start {
                return false;
            }
            cursor = o.end;
        }
        cursor == self.len
    }

    /// The file rebuilt from its owners' bytes (views take no part).
    #[must_use]
    pub fn reemit(&self, source: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(source.len());
        for o in &self.owners {
            if let Some(b) = source.get(o.start as usize..o.end as usize) {
                out.extend_from_slice(b);
            }
        }
        out
    }

    /// Bytes per class.
    #[must_use]
    pub fn totals(&self) -> Vec<(&'static str, u64)> {
        let mut t: Vec<(&'static str, u64)> = Vec::new();
        for o in &self.owners {
            let n = o.end - o.start;
            match t.iter_mut().find(|x| x.0 == o.class.name()) {
                Some(x) => x.1 += n,
                None => t.push((o.class.name(), n)),
            }
        }
        t
    }

    /// The ledger as JSON.
    #[must_use]
    pub fn json(&self, source: &[u8]) -> Value {
        // At most LIST_LIMIT owners and views are listed; the totals cover every one.
        let limit = crate::inspect::list_limit();
        let owners: Vec<Value> = self
            .owners
            .iter()
            .take(limit)
            .map(|o| json!({ "start": o.start, "end": o.end, "size": o.end - o.start, "class": o.class.name(), "what": o.what }))
            .collect();
        let views: Vec<Value> = self
            .views
            .iter()
            .take(limit)
            .map(|v| json!({ "start": v.start, "end": v.end, "size": v.end - v.start, "kind": v.kind, "what": v.what, "sha256": v.sha256 }))
            .collect();
        let totals: serde_json::Map<String, Value> = self
            .totals()
            .into_iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        let mut j = json!({
            "owners": owners,
            "views": views,
            "totals": totals,
            "exclusive": self.is_exclusive(),
            "reemits_exactly": self.reemit(source) == source,
        });
        for (key, n) in [
            ("owners_omitted", self.owners.len()),
            ("views_omitted", self.views.len()),
        ] {
            if n > limit {
                j[key] = json!(n - limit);
            }
        }
        j
    }
}

/// An immutable validated image with its ledger.
#[derive(Clone, Debug)]
pub struct Image {
    bytes: Vec<u8>,
    ledger: Ledger,
}

impl Image {
    /// Validate `bytes` and build the ledger.
    ///
    /// # Errors
    /// An invalid file, or overlapping claims.
    pub fn open(bytes: Vec<u8>) -> Result<Image, LedgerError> {
        let ledger = Ledger::of(&bytes)?;
        Ok(Image { bytes, ledger })
    }

    /// The ledger.
    #[must_use]
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The file, re-emitted from the owners.
    #[must_use]
    pub fn emit(&self) -> Vec<u8> {
        self.ledger.reemit(&self.bytes)
    }

    /// Write `new` at `at`. Only a no-op is accepted: any byte that would change is
    /// refused, naming its owner (a semantic change must go through the writer).
    ///
    /// # Errors
    /// [`LedgerError::Refused`] for the first byte that would change.
    pub fn replace(&mut self, at: u64, new: &[u8]) -> Result<(), LedgerError> {
        for (i, b) in new.iter().enumerate() {
            let pos = at.saturating_add(i as u64);
            let old = usize::try_from(pos).ok().and_then(|p| self.bytes.get(p));
            if old != Some(b) {
                let owner = self
                    .ledger
                    .owners
                    .iter()
                    .find(|o| o.start <= pos && pos < o.end)
                    .map_or_else(
                        || "past the end of the file".to_string(),
                        |o| format!("{} {}", o.class.name(), o.what),
                    );
                return Err(LedgerError::Refused { at: pos, owner });
            }
        }
        Ok(())
    }

    /// The A/B edit through the writer: DYNAIO slot `entry` gets `bytes`, every checksum is
    /// recomputed, the result validated and re-ledgered.
    ///
    /// # Errors
    /// The writer's refusal, or an invalid result.
    pub fn edit_dynaio_entry(&self, entry: usize, bytes: &[u8]) -> Result<Image, LedgerError> {
        let out = super::writer::edit_dynaio_entry(&self.bytes, entry, bytes)
            .map_err(LedgerError::Write)?;
        Image::open(out)
    }
}
