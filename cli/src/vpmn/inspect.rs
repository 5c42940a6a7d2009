//! `npuschema inspect [--json] [--ledger] FILE.nb`: the field map's parser keys, from the
//! generated views of a validated file. Integers are JSON integers, names strings, flags
//! booleans. Dimensions are as stored (fastest-varying first).

use std::process::ExitCode;

use npuschema_generated::vpmn::{IoRecord, QuantFormat, V1IoRecord, Vpmn, VpmnV1, VpmnV2};
use serde_json::{Value, json};

use super::ledger::{CONNECTION_TAIL_BYTES, Ledger, V1_TABLES};
use super::writer::{CHECKSUM, DYNAIO, directory};
use super::{
    computed_file_crc, magic_text, section_crc, section_type_name, sha256_hex, storage_bytes,
    v1_io_record_bytes,
};

fn upper(name: Option<&'static str>) -> Value {
    name.map_or(Value::Null, |n| json!(n.to_uppercase()))
}

fn quantization(format: QuantFormat, w0: u32, w1: u32) -> Value {
    let mut q = json!({
        "format": format.raw(),
        "format_name": upper(format.name()),
        "raw_words": [w0, w1],
    });
    match format {
        QuantFormat::DynamicFixedPoint => q["fixed_point_position"] = json!(w0 as i32),
        QuantFormat::AffineAsymmetric => {
            q["scale"] = json!(f32::from_bits(w0));
            q["zero_point"] = json!(w1 as i32);
        }
        _ => {}
    }
    q
}

fn tensor(
    dims: &[u32],
    format: u32,
    format_name: Option<&'static str>,
    data_type: u32,
    type_name: Option<&'static str>,
    quant: Value,
    name: &[u8],
) -> Value {
    json!({
        "dimension_count": dims.len(),
        "dimensions": dims,
        "data_format": format,
        "data_format_name": upper(format_name),
        "data_type": data_type,
        "data_type_name": upper(type_name),
        "storage_bytes": storage_bytes(format, dims),
        "quantization": quant,
        "name": String::from_utf8_lossy(name),
    })
}

fn io_v2(r: &IoRecord<'_>) -> Value {
    let all = r.dim_size();
    let n = usize::try_from(r.dim_count()).unwrap_or(0).min(all.len());
    let q = r.quant_data();
    tensor(
        all.get(..n).unwrap_or_default(),
        r.data_format().raw(),
        r.data_format().name(),
        r.data_type().raw(),
        r.data_type().name(),
        quantization(r.quant_format(), q[0], q[1]),
        r.name(),
    )
}

fn io_v1(r: &V1IoRecord<'_>) -> Value {
    let all = r.dim_size();
    let n = usize::try_from(r.dim_count()).unwrap_or(0).min(all.len());
    let mut q = json!({
        "format": r.quant_format().raw(),
        "format_name": upper(r.quant_format().name()),
        "raw_words": [r.fixed_point_pos() as u32, r.tf_scale(), r.tf_zero_point() as u32],
    });
    match r.quant_format() {
        QuantFormat::DynamicFixedPoint => q["fixed_point_position"] = json!(r.fixed_point_pos()),
        QuantFormat::AffineAsymmetric => {
            q["scale"] = json!(f32::from_bits(r.tf_scale()));
            q["zero_point"] = json!(r.tf_zero_point());
        }
        _ => {}
    }
    tensor(
        all.get(..n).unwrap_or_default(),
        r.data_format().raw(),
        r.data_format().name(),
        r.data_type().raw(),
        r.data_type().name(),
        q,
        r.name(),
    )
}

/// The first [`crate::inspect::LIST_LIMIT`] items of `it` as JSON, and how many more there
/// are (counted, not built): every list `inspect` prints is capped so.
fn listed<T>(mut it: impl Iterator<Item = T>, f: impl FnMut(T) -> Value) -> (Vec<Value>, u64) {
    let shown: Vec<Value> = it
        .by_ref()
        .take(crate::inspect::list_limit())
        .map(f)
        .collect();
    (shown, it.count() as u64)
}

/// Add `"<key>_omitted": n` to `j` for each list that left `n > 0` items out.
fn say_omitted(j: &mut Value, lists: &[(&str, u64)]) {
    for &(key, n) in lists {
        if n > 0 {
            j[format!("{key}_omitted")] = json!(n);
        }
    }
}

/// How `inspect` treats a section of type `t`; `covered` lists the types the CHECKSUM
/// records name.
#[must_use]
pub fn handling(t: u32, covered: &[u32]) -> &'static str {
    match t {
        1 | 2 => "decoded I/O records",
        26 => "decoded (offset, size) records",
        35 | 37 | 38 | 39 => "decoded",
        40 => "decoded and enforced",
        20 => "data region, table-bounded, padding checked, fingerprinted",
        _ if covered.contains(&t) => "named, CRC-verified, fingerprinted",
        _ => "named, fingerprinted",
    }
}

fn tail(bytes: &[u8], ledger: &Ledger) -> Value {
    let len = bytes.len() as u64;
    let start = len.saturating_sub(CONNECTION_TAIL_BYTES);
    let ownership = if ledger.views.iter().any(|v| v.start == start) {
        "section-covered-view"
    } else {
        "connection-tail"
    };
    json!({
        "offset": start,
        "size": len - start,
        "sha256": sha256_hex(bytes.get(start as usize..).unwrap_or_default()),
        "ownership": ownership,
    })
}

/// The `inspect --json` object of a validated version 2 file.
#[must_use]
pub fn v2_json(bytes: &[u8], v: &VpmnV2<'_>, ledger: &Ledger) -> Value {
    let h = v.header();
    let sub = v.sub_header();
    let covered: Vec<u32> = v.checksums().map(|c| c.sd_type()).collect();
    let (sections, sections_omitted) = listed(v.sections(), |s| {
        let t = s.sd_type().raw();
        json!({
            "index": s.index(),
            "type": t,
            "type_name": section_type_name(t),
            "offset": s.offset(),
            "size": s.size(),
            "load_address": s.load_address(),
            "alignment": s.sd_alignsize(),
            "entry_size": s.sd_entsize(),
            "stride": s.sd_entsize(),
            "entries": s.size().checked_div(u64::from(s.sd_entsize())),
            "reserved_words": [s.reserved1(), s.reserved2()],
            "handling": handling(t, &covered),
            "sha256": sha256_hex(s.payload().unwrap_or_default()),
        })
    });
    let (section_checksums, checksums_omitted) = listed(v.checksums(), |c| {
        let computed = section_crc(v, c.sd_type());
        json!({
            "type": c.sd_type(),
            "type_name": section_type_name(c.sd_type()),
            "recorded_crc32": c.checksum_value(),
            "computed_crc32": computed,
            "matches": computed == Some(c.checksum_value()),
        })
    });
    // The file checksum, recomputed here with crc32fast (independently of the validator).
    let dir = directory(bytes);
    let (computed, covered_bytes) = computed_file_crc(bytes);
    let mut ranges: Vec<(u64, u64)> = dir
        .iter()
        .filter(|s| s.2 > 0)
        .map(|s| (s.1, s.1 + s.2))
        .collect();
    ranges.sort_unstable();
    let gaps: u64 = ranges
        .windows(2)
        .map(|w| w[1].0.saturating_sub(w[0].1))
        .sum();
    let normalized = dir
        .iter()
        .filter(|s| s.0 == CHECKSUM)
        .map(|s| s.2 / 8)
        .sum::<u64>();
    let ni = v.network_info().next().map(|n| {
        let a = n.attribute();
        let reserved = n.vsi_reserved();
        let nonzero = reserved
            .chunks_exact(4)
            .filter(|w| w.iter().any(|&b| b != 0))
            .count();
        json!({
            "name": String::from_utf8_lossy(n.name()),
            "input_count": n.input_count(),
            "output_count": n.output_count(),
            "layer_count": n.layer_count(),
            "absolute_operation_count": n.abs_op_count(),
            "operation_count": n.operation_count(),
            "core_count": n.core_count(),
            "address_width": n.address_width(),
            "attribute": a.bits(),
            "attribute_fields": {
                "change_ppu_param": a.change_ppu_param() != 0,
                "nn_command_size": a.nn_command_size(),
                "tp_command_size": a.tp_command_size(),
                "dma_support": a.dma_support(),
                "reserved": a.reserved(),
            },
            "vsi_reserved": { "nonzero_words": nonzero, "sha256": sha256_hex(reserved) },
        })
    });
    let region = v.sections().find(|s| s.sd_type().raw() == DYNAIO);
    let (dynaio, dynaio_omitted) = listed(v.dynaio_table(), |e| {
        let start = region.map(|r| r.offset() + u64::from(e.offset()));
        let data = region
            .and_then(|r| r.payload())
            .and_then(|p| p.get(e.offset() as usize..(e.offset() + e.size()) as usize));
        json!({
            "index": e.index(),
            "offset": e.offset(),
            "size": e.size(),
            "file_offset": start,
            "sha256": data.map(sha256_hex),
        })
    });
    let dynaio_region = region.map(|r| {
        let mapped: u64 = v.dynaio_table().map(|e| u64::from(e.size())).sum();
        json!({ "offset": r.offset(), "size": r.size(), "mapped_bytes": mapped, "padding_bytes": r.size() - mapped })
    });
    let (inputs, inputs_omitted) = listed(v.inputs(), |r| io_v2(&r));
    let (outputs, outputs_omitted) = listed(v.outputs(), |r| io_v2(&r));
    let mut j = json!({
        "format": "vpmn",
        "family": "v2",
        "magic": magic_text(bytes),
        "version": h.version(),
        "target": h.target(),
        "product": h.target(),
        "header": {
            "crc32": h.crc_sum(),
            "declared_file_size_low": h.total_size_low(),
            "declared_file_size_high": h.total_size_high(),
            "declared_file_size": h.total_size(),
            "reserved": {
                "class_word_reserved_bits": h.class_word().reserved(),
                "reserved2": h.reserved2(),
                "reserved3": h.reserved3(),
            },
        },
        "sub_header_offset": h.sub_header_offset(),
        "sub_header_size": h.sub_header_size(),
        "sub_header_count": h.sub_header_count(),
        "class": h.class_word().class(),
        "section_headers_offset": sub.sh_offset(),
        "section_header_size": sub.sh_size(),
        "section_header_count": sub.sh_count(),
        "sections": sections,
        "inputs": inputs,
        "outputs": outputs,
        "network_info": ni,
        "memory_pool_bytes": v.memory_pool().next().map(|m| m.used_bytes()),
        "vip_sram_bytes": v.vip_sram().next().map(|m| m.used_bytes()),
        "axi_sram_bytes": v.axi_sram().next().map(|m| m.used_bytes()),
        "section_checksums": section_checksums,
        "file_checksum": {
            "algorithm": "crc32-ieee",
            "initial_value": 0,
            "scope": "section-payloads-in-directory-order",
            "covered_section_bytes": covered_bytes,
            "excluded_alignment_gap_bytes": gaps,
            "normalized_checksum_value_words": normalized,
            "recorded_crc32": h.crc_sum(),
            "computed_crc32": computed,
            "matches": computed == h.crc_sum(),
        },
        "dynaio": dynaio,
        "dynaio_region": dynaio_region,
        "connection_tail": tail(bytes, ledger),
        "ledger": ledger.json(bytes),
    });
    say_omitted(
        &mut j,
        &[
            ("sections", sections_omitted),
            ("section_checksums", checksums_omitted),
            ("dynaio", dynaio_omitted),
            ("inputs", inputs_omitted),
            ("outputs", outputs_omitted),
        ],
    );
    j
}

/// The `inspect --json` object of a validated version 1 file.
#[must_use]
pub fn v1_json(bytes: &[u8], v: &VpmnV1<'_>, ledger: &Ledger) -> Value {
    let h = v.header();
    let f = v.fixed();
    let version = h.version();
    let io_size = u64::from(v1_io_record_bytes(version));
    let (tables, tables_omitted) = listed(v.entries(), |e| {
        let k = e.index() as usize;
        let record_size = match k {
            0 | 1 => Some(io_size),
            2 => Some(if version < 0x0001_0008 { 72 } else { 76 }),
            3 => Some(if version <= 0x0001_000F {
                24
            } else if version < 0x0001_0017 {
                28
            } else {
                32
            }),
            _ => None,
        };
        let data = e.bytes().unwrap_or_default();
        json!({
            "index": k,
            "name": V1_TABLES.get(k),
            "offset": e.offset(),
            "size": e.size(),
            "record_size": record_size,
            "records": record_size.and_then(|r| u64::from(e.size()).checked_div(r)),
            "sha256": sha256_hex(data),
        })
    });
    let features = f.feature_bits().map(|b| {
        json!({
            "raw": b.bits(),
            "hi_reorder_fix": b.hi_reorder_fix() != 0,
            "ocb_counter": b.ocb_counter() != 0,
            "nn_command_size": b.nn_command_size(),
            "change_ppu_param": b.change_ppu_param() != 0,
            "num_pixel_pipes": f.num_pixel_pipes(),
            "core_count": f.core_count(),
            "nbg_crc_sum": f.nbg_crc_sum(),
        })
    });
    let ext = ledger.owners.iter().find(|o| o.what == "v1-opaque-fixed-extension").map(|o| {
        json!({
            "offset": o.start,
            "size": o.end - o.start,
            "sha256": sha256_hex(bytes.get(o.start as usize..o.end as usize).unwrap_or_default()),
        })
    });
    let (inputs, inputs_omitted) = listed(v.inputs(), |r| io_v1(&r));
    let (outputs, outputs_omitted) = listed(v.outputs(), |r| io_v1(&r));
    let mut j = json!({
        "format": "vpmn",
        "family": "v1",
        "magic": magic_text(bytes),
        "version": version,
        "target": h.target(),
        "product": h.target(),
        "network_name": String::from_utf8_lossy(h.network_name()),
        "layer_count": h.layer_count(),
        "operation_count": h.operation_count(),
        "input_count": h.input_count(),
        "output_count": h.output_count(),
        "features": features,
        "memory_pool": { "size": f.pool_size(), "alignment": f.pool_alignment(), "base": f.pool_base() },
        "axi_sram": { "base": f.axi_sram_base(), "size": f.axi_sram_size() },
        "vip_sram": f.vip_sram_size().map(|s| json!({ "base": f.vip_sram_base(), "size": s })),
        "memory_pool_bytes": f.pool_size(),
        "vip_sram_bytes": f.vip_sram_size(),
        "axi_sram_bytes": f.axi_sram_size(),
        "tables": tables,
        "io_records_decoded": version >= 0x0001_000B,
        "inputs": inputs,
        "outputs": outputs,
        "opaque_fixed_extension": ext,
        "connection_tail": tail(bytes, ledger),
        "ledger": ledger.json(bytes),
    });
    say_omitted(
        &mut j,
        &[
            ("tables", tables_omitted),
            ("inputs", inputs_omitted),
            ("outputs", outputs_omitted),
        ],
    );
    j
}

/// The `inspect --json` object of any valid VPMN file.
///
/// # Errors
/// The validator's error, or a ledger that cannot be exclusive.
pub fn json(bytes: &[u8]) -> Result<Value, super::ledger::LedgerError> {
    let ledger = Ledger::of(bytes)?;
    match Vpmn::validate(bytes).map_err(super::ledger::LedgerError::Invalid)? {
        Vpmn::V2(v) => Ok(v2_json(bytes, &v, &ledger)),
        Vpmn::V1(v) => Ok(v1_json(bytes, &v, &ledger)),
    }
}

/// The line that says a list was cut (`n` is its `<key>_omitted`, absent when it was not).
fn more(s: &mut String, n: &Value, what: &str) {
    use std::fmt::Write;
    if let Some(n) = n.as_u64() {
        let _ = writeln!(
            s,
            "  ... {n} more {what} not listed (at most {})",
            crate::inspect::LIST_LIMIT
        );
    }
}

/// A text rendering of the JSON: the scalar keys, then one line per section or table.
#[must_use]
pub fn text(j: &Value, with_ledger: bool) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let scalar = |v: &Value| match v {
        Value::String(x) => x.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    };
    if let Value::Object(m) = j {
        for (k, v) in m {
            if !(v.is_array() || v.is_object()) {
                let _ = writeln!(s, "{k:<24} {}", scalar(v));
            }
        }
    }
    for key in ["sections", "tables"] {
        if let Some(list) = j[key].as_array() {
            let _ = writeln!(s, "{key}:");
            for x in list {
                let name = if key == "sections" {
                    scalar(&x["type_name"])
                } else {
                    scalar(&x["name"])
                };
                let _ = writeln!(
                    s,
                    "  [{:>2}] {:<40} offset {:>10} size {:>10} {}",
                    scalar(&x["index"]),
                    name,
                    scalar(&x["offset"]),
                    scalar(&x["size"]),
                    scalar(&x["handling"])
                );
            }
            more(&mut s, &j[format!("{key}_omitted")], key);
        }
    }
    for key in ["inputs", "outputs"] {
        if let Some(list) = j[key].as_array() {
            for x in list {
                let _ = writeln!(
                    s,
                    "{key:<8} {} dims {} {} quant {}",
                    scalar(&x["name"]),
                    x["dimensions"],
                    scalar(&x["data_format_name"]),
                    scalar(&x["quantization"]["format_name"])
                );
            }
            more(&mut s, &j[format!("{key}_omitted")], key);
        }
    }
    if j["file_checksum"].is_object() {
        let c = &j["file_checksum"];
        let _ = writeln!(
            s,
            "file_checksum            recorded {} computed {} over {} bytes",
            c["recorded_crc32"], c["computed_crc32"], c["covered_section_bytes"]
        );
    }
    let t = &j["connection_tail"];
    let _ = writeln!(
        s,
        "connection_tail          {} bytes at {} ({}) sha256 {}",
        t["size"],
        t["offset"],
        scalar(&t["ownership"]),
        scalar(&t["sha256"])
    );
    if with_ledger {
        let _ = writeln!(s, "ledger:");
        if let Some(list) = j["ledger"]["owners"].as_array() {
            for o in list {
                let _ = writeln!(
                    s,
                    "  {:>10}..{:<10} {:>10} B  {:<16} {}",
                    o["start"],
                    o["end"],
                    o["size"],
                    scalar(&o["class"]),
                    scalar(&o["what"])
                );
            }
            more(&mut s, &j["ledger"]["owners_omitted"], "owners");
        }
        if let Some(list) = j["ledger"]["views"].as_array() {
            for o in list {
                let _ = writeln!(
                    s,
                    "  view {}..{} {} {} sha256 {}",
                    o["start"],
                    o["end"],
                    scalar(&o["kind"]),
                    scalar(&o["what"]),
                    scalar(&o["sha256"])
                );
            }
            more(&mut s, &j["ledger"]["views_omitted"], "views");
        }
        let _ = writeln!(
            s,
            "  exclusive {}  reemits_exactly {}",
            j["ledger"]["exclusive"], j["ledger"]["reemits_exactly"]
        );
    }
    s
}

/// Run `inspect` on VPMN bytes.
#[must_use]
pub fn run(bytes: &[u8], file: &std::path::Path, as_json: bool, with_ledger: bool) -> ExitCode {
    match json(bytes) {
        Ok(j) => {
            let out = if as_json {
                format!("{j}\n")
            } else {
                text(&j, with_ledger)
            };
            crate::io::print_then("inspect", out, ExitCode::SUCCESS)
        }
        Err(super::ledger::LedgerError::Invalid(v)) => damaged(bytes, file, as_json, &v),
        Err(e) => {
            let message = e.to_string();
            let (code, field, offset) = match &e {
                super::ledger::LedgerError::Invalid(v) => (v.code, v.field.to_string(), v.offset),
                super::ledger::LedgerError::Overlap { at, .. } => {
                    ("ownership-overlap", String::new(), *at)
                }
                _ => ("ownership-overlap", String::new(), 0),
            };
            crate::inspect::refuse(
                file,
                as_json,
                Some(crate::format::Format::Vpmn),
                (code, &field, offset, &message),
                1,
            )
        }
    }
}

/// The little-endian word at `at`, if the file has it.
fn word_at(b: &[u8], at: u64) -> Option<u32> {
    let at = usize::try_from(at).ok()?;
    b.get(at..)?
        .first_chunk::<4>()
        .map(|w| u32::from_le_bytes(*w))
}

/// `inspect` of a VPMN file the validator refuses: what can be read, as stored and
/// unchecked (the header words, the recorded and recomputed checksums, the directory), and
/// the failure marked, as for NPU1; exit 1.
fn damaged(
    bytes: &[u8],
    file: &std::path::Path,
    as_json: bool,
    e: &npuschema_core::Error,
) -> ExitCode {
    use std::fmt::Write;
    let version = word_at(bytes, 4).unwrap_or(0);
    let v2 = version == npuschema_generated::vpmn::VERSION_V2;
    let names: &[&str] = if v2 {
        &[
            "magic",
            "version",
            "target",
            "crc_sum",
            "total_size_low",
            "total_size_high",
            "sub_header_offset",
            "sub_header_size",
            "sub_header_count",
            "class_word",
            "reserved2",
            "reserved3",
        ]
    } else {
        &["magic", "version", "target"]
    };
    let header: Vec<(&str, Option<u32>)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (*n, word_at(bytes, 4 * i as u64)))
        .collect();
    // Version 2: the file CRC and each CHECKSUM record, recorded and recomputed over the
    // directory as stored.
    let dir = if v2 { directory(bytes) } else { Vec::new() };
    let payload = |o: u64, n: u64| {
        let (o, n) = (usize::try_from(o).ok()?, usize::try_from(n).ok()?);
        bytes.get(o..o.checked_add(n)?)
    };
    let file_crc = v2.then(|| (word_at(bytes, 12), computed_file_crc(bytes).0));
    let mut records = Vec::new();
    for &(_, o, n) in dir.iter().filter(|d| d.0 == CHECKSUM) {
        let Some(p) = payload(o, n) else { continue };
        for r in p.chunks_exact(8).take(crate::inspect::list_limit()) {
            let ty = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
            let recorded = u32::from_le_bytes([r[4], r[5], r[6], r[7]]);
            let computed = dir
                .iter()
                .find(|d| d.0 == ty)
                .and_then(|&(_, o, n)| payload(o, n))
                .map(crc32fast::hash);
            records.push((ty, recorded, computed));
        }
    }
    let limit = crate::inspect::list_limit();
    let listed = &dir[..dir.len().min(limit)];
    let omitted = dir.len().saturating_sub(limit);
    let field = e.field.to_string();
    let message = e.to_string();
    eprintln!(
        "npuschema inspect: {}: {message}",
        crate::io::line_path(file)
    );
    if as_json {
        let hdr: serde_json::Map<String, Value> = header
            .iter()
            .map(|(n, v)| ((*n).to_string(), json!(v)))
            .collect();
        let mut partial = json!({
            "header": hdr,
            "file_checksum": file_crc.map(|(r, c)| json!({ "recorded": r, "computed": c })),
            "section_checksums": records
                .iter()
                .map(|(t, r, c)| json!({ "type": t, "type_name": section_type_name(*t), "recorded": r, "computed": c }))
                .collect::<Vec<_>>(),
            "sections_as_stored": listed
                .iter()
                .map(|(t, o, n)| json!({ "type": t, "type_name": section_type_name(*t), "offset": o, "size": n }))
                .collect::<Vec<_>>(),
        });
        if omitted > 0 {
            partial["sections_omitted"] = json!(omitted);
        }
        let line = json!({
            "file": file.display().to_string(),
            "format": "vpmn",
            "error": { "code": e.code, "field": field, "offset": e.offset, "message": message },
            "partial": partial,
        });
        return crate::io::print_then("inspect", format!("{line}\n"), ExitCode::from(1));
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "format                   vpmn (INVALID: what could be read, as stored)"
    );
    for (n, v) in &header {
        let _ = match v {
            Some(v) => writeln!(s, "{n:<24} {v} ({v:#x})"),
            None => writeln!(s, "{n:<24} (past the end of the file)"),
        };
    }
    let mark = |ok: bool| if ok { "" } else { "   <-- differ" };
    if let Some((recorded, computed)) = file_crc {
        let _ = match recorded {
            Some(r) => writeln!(
                s,
                "file_checksum            recorded {r:#010x} computed {computed:#010x}{}",
                mark(r == computed)
            ),
            None => writeln!(s, "file_checksum            (past the end of the file)"),
        };
    }
    for (t, r, c) in &records {
        let name = section_type_name(*t).unwrap_or_else(|| format!("type {t}"));
        let _ = match c {
            Some(c) => writeln!(
                s,
                "section_checksum         {name}: recorded {r:#010x} computed {c:#010x}{}",
                mark(r == c)
            ),
            None => writeln!(
                s,
                "section_checksum         {name}: recorded {r:#010x}, no such section   <-- differ"
            ),
        };
    }
    if v2 {
        let _ = writeln!(s, "sections (as stored, not checked):");
        for (i, (t, o, n)) in listed.iter().enumerate() {
            let name = section_type_name(*t).unwrap_or_else(|| format!("type {t}"));
            let _ = writeln!(s, "  [{i:>2}] {name:<40} offset {o:>10} size {n:>10}");
        }
        if omitted > 0 {
            let _ = writeln!(
                s,
                "  ... {omitted} more sections not listed (at most {})",
                crate::inspect::LIST_LIMIT
            );
        }
    }
    let _ = writeln!(
        s,
        "FAILED                   {} at {field} (offset {:#x}): {message}",
        e.code, e.offset
    );
    crate::io::print_then("inspect", s, ExitCode::from(1))
}
