//! The dynamic view of a validated file (what `inspect --schema` prints): its forms and
//! their JSON.

use std::fmt::Write as _;

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
    /// The records (one for the header and a located record): the first [`LIST_LIMIT`] of a
    /// larger table, collection or stream.
    pub records: Vec<RecordView>,
    /// How many records the group has in the file (`records.len()` unless over
    /// [`LIST_LIMIT`]).
    pub total: u64,
}

/// The most records a view lists per group: the view (and what `inspect --schema` and
/// `explain --schema` print from it) is bounded by the schema, not by the file; a larger
/// group lists its first records and says how many it left out (`"omitted"` in JSON).
pub const LIST_LIMIT: u64 = 10_000;

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
    /// The stored value, or the value the sum must reach (`equals`).
    pub stored: u64,
    /// The value computed from the file.
    pub computed: u64,
    /// `stored` is a value the sum must reach (`equals:`), not a field's: `inspect` says
    /// "expected", not "stored".
    pub equals: bool,
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

    /// The view as one JSON object with stable keys (`file` is `path`, the file's name as
    /// the caller gave it; `view` the validated view type, as `file` is the path in every
    /// command's JSON); a group over [`LIST_LIMIT`] records also has `total` and `omitted`:
    /// `{"schema","file","view","variant","len","groups":[{"kind","name","struct","records":[{"path","index","offset","size","fields":[{"name","path","offset","size","raw","value"}],"composed":{..},"ranges":[..]}]}],"ranges":[{"name","path","offset","length"}],"checksums":[{"name","path","algorithm","stored","computed","ok"}]}`.
    /// A decoded value is a number, a string (an enum name, a string field), or an object:
    /// `{"enum": name|null, "value": n}`, `{"flags": [names], "unknown": n}`,
    /// `{"bits": {name: n}}`, `{"bytes": "hex"}`, `{"str": text|null, "bytes": "hex"}`,
    /// `{"float": "text", "bits": n}` (JSON has no NaN), or an array.
    #[must_use]
    pub fn to_json(&self, path: &str) -> String {
        let mut o = String::new();
        o.push('{');
        kv_str(&mut o, "schema", &self.schema);
        o.push(',');
        kv_str(&mut o, "file", path);
        o.push(',');
        kv_str(&mut o, "view", &self.file);
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
            o.push(']');
            let omitted = g.total.saturating_sub(g.records.len() as u64);
            if omitted > 0 {
                let _ = write!(o, ",\"total\":{},\"omitted\":{omitted}", g.total);
            }
            o.push('}');
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
