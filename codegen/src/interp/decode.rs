//! Decoding fields and records for the dynamic view.

use super::ir::*;
use super::prog::*;
use super::view_model::*;
use crate::check::FieldKind;
use crate::schema::IntTy;
use crate::schema::ext;
use crate::schema::top::Struct;

pub(super) fn int_value(raw: u64, t: IntTy) -> Value {
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
            fields.extend(rows(p, st, &path, &f.name.text, fat, kind));
            continue;
        }
        let (raw, value) = decode(
            p,
            st.buf,
            fat,
            kind,
            if f.file_order { st.big } else { f.big },
        );
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
        size_for(c, s, g)
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
/// The rows of a struct-typed field at `at` (absolute) of the record at `path`: one per
/// field inside, arrays element by element.
pub(super) fn rows(
    p: &FileProg<'_>,
    st: &State<'_>,
    path: &str,
    name: &str,
    at: u64,
    kind: FieldKind,
) -> Vec<FieldView> {
    let c = p.c;
    crate::check::nested::leaves(&c.schema, &c.layouts, at, kind, name)
        .into_iter()
        .filter_map(|(rel, fat, si, fi)| {
            let s = c.schema.structs.get(si)?;
            let f = s.fields.get(fi)?;
            let k = c.layouts.get(&s.name.text)?.fields.get(fi)?.1;
            let (raw, value) = decode(p, st.buf, fat, k, if f.file_order { st.big } else { f.big });
            Some(FieldView {
                path: format!("{path}.{rel}"),
                name: rel,
                offset: fat,
                size: k.width(&c.schema),
                raw,
                value,
            })
        })
        .collect()
}
