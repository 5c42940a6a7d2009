//! The dynamic view of a validated file: what the interpreter found, field by field.

use std::fmt::Write as _;

use super::{CE, Comp, FileProg, Sites, State, checksum, gated_offset, read_int, sign_extend};
use crate::check::{FieldKind, Scope};
use crate::schema::ext::{self, DirChecksumKind};
use crate::schema::top::Struct;
use crate::schema::{Algorithm, IntTy};

/// A validated file, as the interpreter sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The schema's name (`npu1`).
    pub schema: String,
    /// The validated view type's name (`Npu1`, `VpmnV2`).
    pub file: String,
    /// The variant key that was chosen (`v2`), for a file with variants.
    pub variant: Option<String>,
    /// The buffer's length.
    pub len: u64,
    /// The header, the located records, the tables and the collections, in that order.
    pub groups: Vec<Group>,
    /// The file-level byte ranges.
    pub ranges: Vec<RangeView>,
    /// Every checksum, stored and computed.
    pub checksums: Vec<ChecksumView>,
    /// The strings (`strings:`): the file's, then each record's.
    pub strings: Vec<StringView>,
}

/// A string of the file (`strings:`), without its NUL or length word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StringView {
    /// The string's name.
    pub name: String,
    /// Its path (`title`, `sections[1].name`).
    pub path: String,
    /// Where its bytes start in the file.
    pub offset: u64,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its text, when it is UTF-8.
    pub text: Option<String>,
}

/// The header, a located record, a table or a collection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// `header`, `record`, `table` or `collection`.
    pub kind: &'static str,
    /// Its name (`header`, `sub_header`, `regions`, `inputs`).
    pub name: String,
    /// The struct of its records.
    pub struct_name: String,
    /// The records (one for the header and a located record).
    pub records: Vec<RecordView>,
}

/// One struct in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordView {
    /// Its path (`header`, `regions[1]`).
    pub path: String,
    /// Its index in its table or collection.
    pub index: Option<u64>,
    /// Where it starts.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its fields present in the file (a gated field absent at its gate is left out).
    pub fields: Vec<FieldView>,
    /// Its composed values: `(name, value)`.
    pub composed: Vec<(String, u64)>,
    /// Its per-record byte ranges that this record has.
    pub ranges: Vec<RangeView>,
}

/// One field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldView {
    /// The field's name.
    pub name: String,
    /// Its path (`regions[1].flags`).
    pub path: String,
    /// Its absolute byte offset.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
    /// The stored word (unsigned bits), for a field stored as one integer.
    pub raw: Option<u64>,
    /// The decoded value.
    pub value: Value,
}

/// A decoded value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// An unsigned integer.
    Uint(u64),
    /// A signed integer.
    Int(i64),
    /// An enum value and its name (`None`: a value the schema does not name).
    Enum(u64, Option<String>),
    /// A flag word: the names of the set bits and the set bits the schema does not name.
    Flags(Vec<String>, u64),
    /// A bit-field word: each range's name and value.
    Bits(Vec<(String, u64)>),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// A NUL-padded string: the bytes before the first NUL, and the text when UTF-8.
    Str(Vec<u8>, Option<String>),
    /// An array of integers.
    Array(Vec<Value>),
    /// An IEEE 754 float: its bits, and whether it is an `f64` (`true`) or an `f32`.
    Float(u64, bool),
}

impl Value {
    /// A float's value (`None` for every other kind).
    #[must_use]
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Float(bits, true) => Some(f64::from_bits(bits)),
            Value::Float(bits, false) => Some(f64::from(f32::from_bits(u32::try_from(bits).ok()?))),
            _ => None,
        }
    }
}

/// A byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeView {
    /// Its name.
    pub name: String,
    /// Its path (`cmd_stream`, `regions[1].data`).
    pub path: String,
    /// Where it starts.
    pub offset: u64,
    /// Its length.
    pub length: u64,
}

/// A checksum, stored and computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChecksumView {
    /// The checksum's name (`payload`, `section_crcs`).
    pub name: String,
    /// Its path (`payload`, `section_crcs[2]` for one record of a per-section checksum).
    pub path: String,
    /// `fnv1a32` or `crc32`.
    pub algorithm: &'static str,
    /// The stored value.
    pub stored: u64,
    /// The value computed from the file.
    pub computed: u64,
}

impl View {
    /// The group named `name`.
    #[must_use]
    pub fn group(&self, name: &str) -> Option<&Group> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// Every field of every record, in group order.
    pub fn fields(&self) -> impl Iterator<Item = &FieldView> {
        self.groups
            .iter()
            .flat_map(|g| g.records.iter().flat_map(|r| r.fields.iter()))
    }

    /// The view as one JSON object with stable keys:
    /// `{"schema","file","variant","len","groups":[{"kind","name","struct","records":[{"path","index","offset","size","fields":[{"name","path","offset","size","raw","value"}],"composed":{..},"ranges":[..]}]}],"ranges":[{"name","path","offset","length"}],"checksums":[{"name","path","algorithm","stored","computed","ok"}]}`.
    /// A decoded value is a number, a string (an enum name, a string field), or an object:
    /// `{"enum": name|null, "value": n}`, `{"flags": [names], "unknown": n}`,
    /// `{"bits": {name: n}}`, `{"bytes": "hex"}`, `{"str": text|null, "bytes": "hex"}`,
    /// `{"float": "text", "bits": n}` (JSON has no NaN), or an array.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut o = String::new();
        o.push('{');
        kv_str(&mut o, "schema", &self.schema);
        o.push(',');
        kv_str(&mut o, "file", &self.file);
        o.push_str(",\"variant\":");
        match &self.variant {
            Some(v) => str_json(&mut o, v),
            None => o.push_str("null"),
        }
        let _ = write!(o, ",\"len\":{}", self.len);
        o.push_str(",\"groups\":[");
        for (i, g) in self.groups.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            o.push('{');
            kv_str(&mut o, "kind", g.kind);
            o.push(',');
            kv_str(&mut o, "name", &g.name);
            o.push(',');
            kv_str(&mut o, "struct", &g.struct_name);
            o.push_str(",\"records\":[");
            for (j, r) in g.records.iter().enumerate() {
                if j > 0 {
                    o.push(',');
                }
                record_json(&mut o, r);
            }
            o.push_str("]}");
        }
        o.push_str("],\"ranges\":[");
        for (i, r) in self.ranges.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            range_json(&mut o, r);
        }
        o.push_str("],\"checksums\":[");
        for (i, k) in self.checksums.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            o.push('{');
            kv_str(&mut o, "name", &k.name);
            o.push(',');
            kv_str(&mut o, "path", &k.path);
            o.push(',');
            kv_str(&mut o, "algorithm", k.algorithm);
            let _ = write!(
                o,
                ",\"stored\":{},\"computed\":{},\"ok\":{}}}",
                k.stored,
                k.computed,
                k.stored == k.computed
            );
        }
        o.push(']');
        // Only a schema with strings has the key (the views of the others are unchanged).
        if !self.strings.is_empty() {
            o.push_str(",\"strings\":[");
            for (i, s) in self.strings.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                o.push('{');
                kv_str(&mut o, "name", &s.name);
                o.push(',');
                kv_str(&mut o, "path", &s.path);
                let _ = write!(o, ",\"offset\":{},\"str\":", s.offset);
                match &s.text {
                    Some(t) => str_json(&mut o, t),
                    None => o.push_str("null"),
                }
                o.push_str(",\"bytes\":\"");
                for b in &s.bytes {
                    let _ = write!(o, "{b:02x}");
                }
                o.push_str("\"}");
            }
            o.push(']');
        }
        o.push('}');
        o
    }
}

fn str_json(o: &mut String, s: &str) {
    o.push('"');
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", u32::from(c));
            }
            c => o.push(c),
        }
    }
    o.push('"');
}

fn kv_str(o: &mut String, k: &str, v: &str) {
    str_json(o, k);
    o.push(':');
    str_json(o, v);
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

fn range_json(o: &mut String, r: &RangeView) {
    o.push('{');
    kv_str(o, "name", &r.name);
    o.push(',');
    kv_str(o, "path", &r.path);
    let _ = write!(o, ",\"offset\":{},\"length\":{}}}", r.offset, r.length);
}

fn record_json(o: &mut String, r: &RecordView) {
    o.push('{');
    kv_str(o, "path", &r.path);
    match r.index {
        Some(i) => {
            let _ = write!(o, ",\"index\":{i}");
        }
        None => o.push_str(",\"index\":null"),
    }
    let _ = write!(
        o,
        ",\"offset\":{},\"size\":{},\"fields\":[",
        r.offset, r.size
    );
    for (i, f) in r.fields.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        o.push('{');
        kv_str(o, "name", &f.name);
        o.push(',');
        kv_str(o, "path", &f.path);
        let _ = write!(o, ",\"offset\":{},\"size\":{},\"raw\":", f.offset, f.size);
        match f.raw {
            Some(v) => {
                let _ = write!(o, "{v}");
            }
            None => o.push_str("null"),
        }
        o.push_str(",\"value\":");
        value_json(o, &f.value);
        o.push('}');
    }
    o.push_str("],\"composed\":{");
    for (i, (n, v)) in r.composed.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        str_json(o, n);
        let _ = write!(o, ":{v}");
    }
    o.push_str("},\"ranges\":[");
    for (i, x) in r.ranges.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        range_json(o, x);
    }
    o.push_str("]}");
}

fn value_json(o: &mut String, v: &Value) {
    match v {
        Value::Uint(x) => {
            let _ = write!(o, "{x}");
        }
        Value::Int(x) => {
            let _ = write!(o, "{x}");
        }
        // JSON has no NaN or infinity: the value as text, and its bits.
        Value::Float(bits, _) => {
            o.push_str("{\"float\":");
            str_json(o, &v.to_string());
            let _ = write!(o, ",\"bits\":{bits}}}");
        }
        Value::Enum(x, n) => {
            o.push_str("{\"enum\":");
            match n {
                Some(n) => str_json(o, n),
                None => o.push_str("null"),
            }
            let _ = write!(o, ",\"value\":{x}}}");
        }
        Value::Flags(names, unknown) => {
            o.push_str("{\"flags\":[");
            for (i, n) in names.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                str_json(o, n);
            }
            let _ = write!(o, "],\"unknown\":{unknown}}}");
        }
        Value::Bits(parts) => {
            o.push_str("{\"bits\":{");
            for (i, (n, x)) in parts.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                str_json(o, n);
                let _ = write!(o, ":{x}");
            }
            o.push_str("}}");
        }
        Value::Bytes(b) => {
            o.push_str("{\"bytes\":");
            str_json(o, &hex(b));
            o.push('}');
        }
        Value::Str(b, t) => {
            o.push_str("{\"str\":");
            match t {
                Some(t) => str_json(o, t),
                None => o.push_str("null"),
            }
            o.push_str(",\"bytes\":");
            str_json(o, &hex(b));
            o.push('}');
        }
        Value::Array(items) => {
            o.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                value_json(o, x);
            }
            o.push(']');
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Uint(x) => write!(f, "{x:#x}"),
            Value::Int(x) => write!(f, "{x}"),
            Value::Float(..) => write!(f, "{}", self.as_f64().unwrap_or(f64::NAN)),
            Value::Enum(x, Some(n)) => write!(f, "{n} ({x:#x})"),
            Value::Enum(x, None) => write!(f, "unknown ({x:#x})"),
            Value::Flags(names, unknown) => {
                if names.is_empty() && *unknown == 0 {
                    return f.write_str("(none)");
                }
                let mut parts: Vec<String> = names.clone();
                if *unknown != 0 {
                    parts.push(format!("unknown {unknown:#x}"));
                }
                f.write_str(&parts.join("|"))
            }
            Value::Bits(parts) => {
                let p: Vec<String> = parts.iter().map(|(n, v)| format!("{n}={v:#x}")).collect();
                f.write_str(&p.join(" "))
            }
            Value::Bytes(b) => {
                let shown = b.get(..16).unwrap_or(b);
                write!(f, "{}{}", hex(shown), if b.len() > 16 { "..." } else { "" })
            }
            Value::Str(_, Some(t)) => write!(f, "{t:?}"),
            Value::Str(b, None) => write!(f, "non-UTF-8 {}", hex(b)),
            Value::Array(items) => {
                let p: Vec<String> = items.iter().map(ToString::to_string).collect();
                write!(f, "[{}]", p.join(", "))
            }
        }
    }
}

fn int_value(raw: u64, t: IntTy) -> Value {
    if t.signed() {
        Value::Int(sign_extend(raw, t))
    } else {
        Value::Uint(raw)
    }
}

pub(super) fn decode(
    p: &FileProg<'_>,
    buf: &[u8],
    at: u64,
    kind: FieldKind,
    big: bool,
) -> (Option<u64>, Value) {
    let schema = &p.c.schema;
    let width = kind.width(schema);
    let bytes = || {
        npuschema_core::range_at(buf, at, width)
            .unwrap_or(&[])
            .to_vec()
    };
    match kind {
        FieldKind::Int(t) => {
            let raw = read_int(buf, at, t, big);
            (Some(raw), int_value(raw, t))
        }
        FieldKind::Enum(i) => {
            let e = &schema.enums[i];
            let raw = read_int(buf, at, e.repr, big);
            let name = e
                .values
                .iter()
                .find(|v| v.value == raw)
                .map(|v| v.name.text.clone());
            (Some(raw), Value::Enum(raw, name))
        }
        FieldKind::Flags(i) => {
            let fl = &schema.flags[i];
            let raw = read_int(buf, at, fl.repr, big);
            let mut known = 0u64;
            let mut names = Vec::new();
            for b in &fl.bits {
                let m = 1u64
                    .checked_shl(u32::try_from(b.bit).unwrap_or(64))
                    .unwrap_or(0);
                known |= m;
                if m != 0 && raw & m == m {
                    names.push(b.name.text.clone());
                }
            }
            (Some(raw), Value::Flags(names, raw & !known))
        }
        FieldKind::Bits(i) => {
            let bf = &schema.bitfields[i];
            let raw = read_int(buf, at, bf.repr, big);
            let parts = bf
                .fields
                .iter()
                .map(|r| {
                    (
                        r.name.text.clone(),
                        (raw >> r.lo) & (ext::range_mask(r.lo, r.hi) >> r.lo),
                    )
                })
                .collect();
            (Some(raw), Value::Bits(parts))
        }
        FieldKind::Array(t, n) => {
            let items = (0..n)
                .map(|k| int_value(read_int(buf, at.saturating_add(k * t.bytes()), t, big), t))
                .collect();
            (None, Value::Array(items))
        }
        FieldKind::Float(wide) => {
            let raw = read_int(buf, at, if wide { IntTy::U64 } else { IntTy::U32 }, big);
            (Some(raw), Value::Float(raw, wide))
        }
        // Struct-typed fields are shown field by field (`interp/nested.rs`); as a whole,
        // their bytes.
        FieldKind::Bytes(_) | FieldKind::Struct(..) | FieldKind::Structs(..) => {
            (None, Value::Bytes(bytes()))
        }
        FieldKind::Str(_) => {
            let b = bytes();
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            let s = b.get(..end).unwrap_or(&[]).to_vec();
            let t = std::str::from_utf8(&s).ok().map(str::to_string);
            (None, Value::Str(s, t))
        }
    }
}

/// The fields of struct `s` at `at` (with gate `gate` for a gated struct).
pub(super) fn record(
    p: &FileProg<'_>,
    st: &State<'_>,
    s: &Struct,
    at: u64,
    gate: Option<u64>,
    path: String,
    index: Option<u64>,
) -> RecordView {
    let c = p.c;
    let layout = c.layouts.get(&s.name.text);
    let gated = crate::check::lookup::is_gated(s);
    let g = gate.unwrap_or(0);
    let mut fields = Vec::new();
    for (k, f) in s.fields.iter().enumerate() {
        let Some(&(off, kind)) = layout.and_then(|l| l.fields.get(k)) else {
            continue;
        };
        let off = if gated {
            if !f.present_at(g) {
                continue;
            }
            gated_offset(c, s, k, g)
        } else {
            off
        };
        let fat = at.saturating_add(off);
        if matches!(kind, FieldKind::Struct(..) | FieldKind::Structs(..)) {
            fields.extend(super::nested::rows(p, st, &path, &f.name.text, fat, kind));
            continue;
        }
        let (raw, value) = decode(p, st.buf, fat, kind, f.big);
        fields.push(FieldView {
            name: f.name.text.clone(),
            path: format!("{path}.{}", f.name.text),
            offset: fat,
            size: kind.width(&c.schema),
            raw,
            value,
        });
    }
    let composed = s
        .composed
        .iter()
        .filter_map(|cp| {
            let get = |n: &str| fields.iter().find(|f| f.name == n).and_then(|f| f.raw);
            Some((
                cp.name.text.clone(),
                get(&cp.low.text)? | (get(&cp.high.text)? << 32),
            ))
        })
        .collect();
    let size = if gated {
        super::size_for(c, s, g)
    } else {
        layout.map_or(0, |l| l.size)
    };
    RecordView {
        path,
        index,
        offset: at,
        size,
        fields,
        composed,
        ranges: Vec::new(),
    }
}

/// Build the view of a file that passed every check.
#[allow(clippy::too_many_lines)]
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
        });
    }
    for (i, r) in file.ext.records.iter().enumerate() {
        let (Some(Some((at, _, gate))), Some(s)) = (st.located.get(i), c.strukt(&r.strukt.text))
        else {
            continue;
        };
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
        let (Some(Some((at, n))), Some(s)) = (st.tables.get(ti), c.strukt(&t.record.text)) else {
            continue;
        };
        let size = c.layouts.get(&t.record.text).map_or(0, |l| l.size);
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
        for i in 0..*n {
            let rat = at.saturating_add(i.saturating_mul(size));
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
        });
    }
    for (ci, coll) in p.colls.iter().enumerate() {
        let Some(s) = c.schema.structs.get(coll.st) else {
            continue;
        };
        let mut records = Vec::new();
        let mut st2 = st.clone();
        st2.clone_for_each_record(p, ci, |x, index, at| {
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
        });
    }
    groups.extend(super::stream::groups(p, st));
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
            algorithm: alg_name(k.algorithm),
            stored,
            computed: data.map_or(0, |d| u64::from(checksum(k.algorithm, d))),
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
                            algorithm: alg_name(k.algorithm),
                            stored: sv,
                            computed: u64::from(computed),
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
                        algorithm: alg_name(k.algorithm),
                        stored: sv,
                        computed: u64::from(computed),
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

fn alg_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Fnv1a32 => "fnv1a32",
        Algorithm::Crc32 => "crc32",
    }
}

/// The file CRC recomputed plainly: every payload in directory order, listed fields as zero.
fn file_crc(p: &FileProg<'_>, st: &State<'_>, d: &super::DirInfo, zero: &[super::ZeroArm]) -> u32 {
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
