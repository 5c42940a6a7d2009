//! `npuschema inspect [--json] FILE`: every header field decoded and named, the checksum
//! stored and computed, each region, the arena a caller must provide, and a layout map.

use std::path::PathBuf;
use std::process::ExitCode;

use npuschema_generated::npu1::{self, Npu1};
use serde_json::{Value, json};

use crate::format::{self, Format};

/// Arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also print the VPMN byte-ownership ledger.
    #[arg(long)]
    pub ledger: bool,
    /// The file.
    pub file: PathBuf,
}

/// One span of the file and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// What the bytes are (`header`, `region-table`, `command-stream`, `region[0]`, `padding`).
    pub what: String,
}

/// The layout of a validated NPU1 file: every byte range named, gaps as `padding`; baked
/// regions that overlap others (legal) are listed where they start.
pub fn npu1_layout(v: &Npu1<'_>) -> Vec<Span> {
    let h = v.header();
    let ext_end = u64::from(npu1::HEADER_BYTES) + v.ext().as_bytes().len() as u64;
    let mut spans = vec![
        Span {
            start: 0,
            end: u64::from(npu1::HEADER_BYTES),
            what: "header".into(),
        },
        Span {
            start: u64::from(npu1::HEADER_BYTES),
            end: ext_end,
            what: "header-extension".into(),
        },
        Span {
            start: ext_end,
            end: ext_end + u64::from(h.region_count()) * u64::from(npu1::REGION_DESC_BYTES),
            what: "region-table".into(),
        },
        Span {
            start: u64::from(h.cmd_offset()),
            end: u64::from(h.cmd_offset()) + u64::from(h.cmd_bytes()),
            what: "command-stream".into(),
        },
    ];
    if let (Some(at), Some(n)) = (v.ext().io_offset(), v.ext().io_count()) {
        spans.push(Span {
            start: u64::from(at),
            end: u64::from(at) + u64::from(n) * u64::from(npu1::TENSOR_DESC_BYTES),
            what: "io-table".into(),
        });
    }
    for t in v.io() {
        let at = u64::from(t.name_offset());
        spans.push(Span {
            start: at,
            // The name and its NUL.
            end: at + v.name(&t).len() as u64 + 1,
            what: format!("io[{}].name", t.index()),
        });
    }
    for r in v.regions() {
        if r.data().is_some() {
            let s = u64::from(r.data_offset());
            spans.push(Span {
                start: s,
                end: s + u64::from(r.size()),
                what: format!("region[{}]", r.index()),
            });
        }
    }
    spans.retain(|s| s.end > s.start);
    spans.sort_by_key(|s| (s.start, s.end));
    let mut out = Vec::new();
    let mut cursor = 0u64;
    for s in spans {
        if s.start > cursor {
            out.push(Span {
                start: cursor,
                end: s.start,
                what: "padding".into(),
            });
        }
        cursor = cursor.max(s.end);
        out.push(s);
    }
    let total = u64::from(h.total_bytes());
    if cursor < total {
        out.push(Span {
            start: cursor,
            end: total,
            what: "padding".into(),
        });
    }
    out
}

/// One I/O tensor of a version 2 file, as `inspect --json` lists it under `io` (and `run
/// --sim` finds it): [`crate::tensor_io::tensors`] with the type by name.
pub fn npu1_io_json(v: &Npu1<'_>) -> Vec<Value> {
    crate::tensor_io::tensors(v)
        .into_iter()
        .map(|t| {
            let (scale, zero_point) = t
                .quantization
                .map_or((Value::Null, Value::Null), |(s, z)| (json!(s), json!(z)));
            json!({
                "name": t.name,
                "direction": t.direction.name(),
                "index": t.index,
                "region": t.region,
                "offset": t.offset,
                "size": t.size,
                "shape": t.shape,
                "dtype": t.dtype.name(),
                "scale": scale,
                "zero_point": zero_point,
            })
        })
        .collect()
}

/// The `inspect --json` object for a validated NPU1 file.
pub fn npu1_json(v: &Npu1<'_>) -> Value {
    let h = v.header();
    let over = u64::from(h.region_count()) > LIST_LIMIT;
    let regions: Vec<Value> = v
        .regions()
        .take(list_limit())
        .map(|r| {
            let baked = r.data().is_some();
            json!({
                "index": r.index(),
                "role": r.role().raw(),
                "role_name": r.role().name(),
                "baked": baked,
                "size": r.size(),
                "data_offset": r.data_offset(),
                "data_range": if baked {
                    json!([r.data_offset(), u64::from(r.data_offset()) + u64::from(r.size())])
                } else {
                    Value::Null
                },
            })
        })
        .collect();
    // Over LIST_LIMIT regions the layout (every region sorted by offset) is not built: what
    // is printed stays bounded whatever the file holds, and the JSON says so.
    let layout: Value = if over {
        Value::Null
    } else {
        npu1_layout(v)
            .into_iter()
            .map(|s| json!({"start": s.start, "end": s.end, "what": s.what}))
            .collect()
    };
    let mut o = json!({
        "format": "npu1",
        "magic": h.magic(),
        "version": h.version(),
        "total_bytes": h.total_bytes(),
        "region_count": h.region_count(),
        "cmd_offset": h.cmd_offset(),
        "cmd_bytes": h.cmd_bytes(),
        "accel": h.accel().raw(),
        "accel_name": h.accel().name(),
        "checksum": { "stored": h.checksum(), "computed": v.payload_computed() },
        "npu_config": v.ext().npu_config(),
        "npu_id": v.ext().npu_id(),
        "regions": regions,
        "io": npu1_io_json(v),
        "arena_bytes": npuschema_runtime::binder::arena_size(v).aligned_start,
        "layout": layout,
    });
    if over {
        o["regions_omitted"] = json!(u64::from(h.region_count()) - LIST_LIMIT);
    }
    o
}

/// The most regions `inspect` and `explain` list ([`npuschema_codegen::interp::LIST_LIMIT`],
/// as `--schema` lists per group): past it they say how many they left out.
pub const LIST_LIMIT: u64 = npuschema_codegen::interp::LIST_LIMIT;

/// [`LIST_LIMIT`] as a count to take.
#[must_use]
pub fn list_limit() -> usize {
    usize::try_from(LIST_LIMIT).unwrap_or(usize::MAX)
}

fn npu1_text(v: &Npu1<'_>) -> String {
    use std::fmt::Write;
    let h = v.header();
    let mut s = String::new();
    let _ = writeln!(s, "format        npu1");
    let _ = writeln!(s, "magic         {:#010x} (NPU1)", h.magic());
    let _ = writeln!(s, "version       {}", h.version());
    let _ = writeln!(s, "total_bytes   {}", h.total_bytes());
    let _ = writeln!(s, "region_count  {}", h.region_count());
    let _ = writeln!(
        s,
        "cmd_offset    {} ({:#x})",
        h.cmd_offset(),
        h.cmd_offset()
    );
    let _ = writeln!(s, "cmd_bytes     {}", h.cmd_bytes());
    let _ = writeln!(
        s,
        "accel         {} ({})",
        h.accel().raw(),
        h.accel().name().unwrap_or("unknown")
    );
    let _ = writeln!(
        s,
        "checksum      stored {:#010x}, computed {:#010x}",
        h.checksum(),
        v.payload_computed()
    );
    let _ = writeln!(s, "regions:");
    let over = u64::from(h.region_count()) > LIST_LIMIT;
    for r in v.regions().take(list_limit()) {
        let role = r
            .role()
            .name()
            .map_or_else(|| format!("unknown({})", r.role().raw()), str::to_string);
        match r.data() {
            Some(_) => {
                let _ = writeln!(
                    s,
                    "  [{}] {role:<8} baked    size {:>10}  data {:#x}..{:#x}",
                    r.index(),
                    r.size(),
                    r.data_offset(),
                    u64::from(r.data_offset()) + u64::from(r.size())
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "  [{}] {role:<8} runtime  size {:>10}",
                    r.index(),
                    r.size()
                );
            }
        }
    }
    if let (Some(c), Some(i)) = (v.ext().npu_config(), v.ext().npu_id()) {
        let _ = writeln!(
            s,
            "npu_config    {c:#010x} (the NPU CONFIG the stream was compiled for; 0: unknown)"
        );
        let _ = writeln!(
            s,
            "npu_id        {i:#010x} (the NPU ID the stream was compiled for; 0: unknown)"
        );
    }
    if v.header().version() >= npu1::VERSION_V2 {
        let _ = writeln!(s, "io:");
        for t in npu1_io_json(v) {
            let shape: Vec<String> = t["shape"]
                .as_array()
                .map(|a| a.iter().map(ToString::to_string).collect())
                .unwrap_or_default();
            let quant = match (t["scale"].as_f64(), t["zero_point"].as_i64()) {
                (Some(sc), Some(zp)) => format!("  scale {sc} zero_point {zp}"),
                _ => "  not quantised".to_string(),
            };
            let _ = writeln!(
                s,
                "  {:<6} {} {:<32} region {} offset {:#x} size {:>6}  {} [{}]{quant}",
                t["direction"].as_str().unwrap_or("?"),
                t["index"],
                t["name"].as_str().unwrap_or("?"),
                t["region"],
                t["offset"].as_u64().unwrap_or(0),
                t["size"],
                t["dtype"].as_str().unwrap_or("?"),
                shape.join(", "),
            );
        }
    }
    let arena = npuschema_runtime::binder::arena_size(v);
    let _ = writeln!(
        s,
        "arena_bytes   {} (arena start 16-aligned; {} for any start address)",
        arena.aligned_start, arena.any_start
    );
    if over {
        let _ = writeln!(
            s,
            "  ... {} more regions not listed (at most {LIST_LIMIT})",
            u64::from(h.region_count()) - LIST_LIMIT
        );
    }
    let _ = writeln!(s, "layout:");
    if over {
        let _ = writeln!(s, "  (not listed: over {LIST_LIMIT} regions)");
        return s;
    }
    for sp in npu1_layout(v) {
        let _ = writeln!(
            s,
            "  {:#010x}..{:#010x}  {:>10} B  {}",
            sp.start,
            sp.end,
            sp.end - sp.start,
            sp.what
        );
    }
    s
}

/// Report a refusal: text on stderr, and under `--json` also one JSON line on stdout,
/// `{"file", "format", "error": {"code", "field", "offset", "message"}}`.
pub(crate) fn refuse(
    file: &std::path::Path,
    json: bool,
    format: Option<Format>,
    error: (&str, &str, u64, &str),
    exit: u8,
) -> ExitCode {
    let (code, field, offset, message) = error;
    eprintln!(
        "npuschema inspect: {}: {message}",
        crate::io::line_path(file)
    );
    if json {
        let line = json!({
            "file": file.display().to_string(),
            "format": format.map(Format::name),
            "error": { "code": code, "field": field, "offset": offset, "message": message },
        });
        let _ = crate::io::print(format!("{line}\n"));
    }
    ExitCode::from(exit)
}

fn refuse_error(args: &Args, format: Option<Format>, e: &npuschema_core::Error) -> ExitCode {
    let field = e.field.to_string();
    let message = e.to_string();
    refuse(
        &args.file,
        args.json,
        format,
        (e.code, &field, e.offset, &message),
        1,
    )
}

/// `inspect` of an NPU1 file the validator refuses: what can be read, with the failure
/// marked, as `explain` shows it: the header words as stored, the checksum stored and
/// computed, the region descriptors as stored (those inside the file, at most
/// [`LIST_LIMIT`]; not checked), then the error; exit 1. Under `--json` the refusal line
/// gains `"partial"`.
fn damaged_npu1(args: &Args, bytes: &[u8], e: &npuschema_core::Error) -> ExitCode {
    let word = |i: usize| {
        bytes
            .get(i * 4..i * 4 + 4)
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map(u32::from_le_bytes)
    };
    // The header's words in the order npu1.yaml lays them out (bytes 0..32).
    let names = [
        "magic",
        "version",
        "total_bytes",
        "region_count",
        "cmd_offset",
        "cmd_bytes",
        "accel",
        "checksum",
    ];
    let header: Vec<(&str, Option<u32>)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (*n, word(i)))
        .collect();
    let total = word(2).map_or(bytes.len(), |t| {
        usize::try_from(t).unwrap_or(usize::MAX).min(bytes.len())
    });
    let computed = bytes
        .get(32..total)
        .map(|b| npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, b));
    let stored = word(7);
    // Each descriptor: role, flags, size, data_offset (words 8 + 4i ..).
    let count = word(3).map_or(0, |n| u64::from(n).min(LIST_LIMIT));
    let regions: Vec<[u32; 4]> = (0..count)
        .map_while(|i| {
            let base = usize::try_from(8 + 4 * i).ok()?;
            Some([
                word(base)?,
                word(base + 1)?,
                word(base + 2)?,
                word(base + 3)?,
            ])
        })
        .collect();
    let field = e.field.to_string();
    let message = e.to_string();
    if args.json {
        let regions: Vec<Value> = regions
            .iter()
            .map(|[role, flags, size, data_offset]| {
                json!({"role": role, "flags": flags, "size": size, "data_offset": data_offset})
            })
            .collect();
        let hdr: serde_json::Map<String, Value> = header
            .iter()
            .map(|(n, v)| ((*n).to_string(), json!(v)))
            .collect();
        let line = json!({
            "file": args.file.display().to_string(),
            "format": "npu1",
            "error": { "code": e.code, "field": field, "offset": e.offset, "message": message },
            "partial": {
                "header": hdr,
                "checksum": { "stored": stored, "computed": computed },
                "regions_as_stored": regions,
            },
        });
        eprintln!(
            "npuschema inspect: {}: {message}",
            crate::io::line_path(&args.file)
        );
        return crate::io::print_then("inspect", format!("{line}\n"), ExitCode::from(1));
    }
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "format        npu1 (INVALID: what could be read, as stored)"
    );
    for (n, v) in &header {
        let _ = match v {
            Some(v) => writeln!(s, "{n:<13} {v} ({v:#x})"),
            None => writeln!(s, "{n:<13} (past the end of the file)"),
        };
    }
    let mark = |ok: bool| if ok { "" } else { "   <-- differ" };
    match (stored, computed) {
        (Some(st), Some(c)) => {
            let _ = writeln!(
                s,
                "checksum      stored {st:#010x}, computed {c:#010x} (FNV-1a of bytes 32..{total}){}",
                mark(st == c)
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "checksum      not computable (the file ends before byte 32)"
            );
        }
    }
    let _ = writeln!(
        s,
        "regions (as stored, not checked; {} of {} inside the file):",
        regions.len(),
        word(3).unwrap_or(0)
    );
    for (i, [role, flags, size, data_offset]) in regions.iter().enumerate() {
        let _ = writeln!(
            s,
            "  [{i}] role {role} flags {flags:#x} size {size} data_offset {data_offset:#x}"
        );
    }
    let _ = writeln!(
        s,
        "FAILED        {} at {field} (offset {:#x}): {message}",
        e.code, e.offset
    );
    eprintln!(
        "npuschema inspect: {}: {message}",
        crate::io::line_path(&args.file)
    );
    crate::io::print_then("inspect", s, ExitCode::from(1))
}

/// Run the subcommand.
pub fn run(args: Args) -> ExitCode {
    let name = crate::io::line_path(&args.file);
    let loaded = match format::load(&args.file, None, crate::io::max_input_bytes()) {
        Ok(l) => l,
        Err(e) => {
            let message = e.to_string();
            return refuse(&args.file, args.json, None, (e.code(), "", 0, &message), 2);
        }
    };
    let Some(bytes) = loaded.whole() else {
        // Only the head was read because it decides: `unknown-format`, or the chosen
        // format's `bad-magic`, the same verdict as `check`.
        let e = loaded
            .validate()
            .err()
            .unwrap_or_else(|| format::unknown_format(loaded.input.bytes()));
        return refuse_error(&args, loaded.format, &e);
    };
    match loaded.format {
        Some(Format::Npu1) => {
            if args.ledger {
                let message = format!(
                    "--ledger is the VPMN byte-ownership ledger; {name} is an NPU1 file (every NPU1 byte is in the layout map)"
                );
                return refuse(
                    &args.file,
                    args.json,
                    loaded.format,
                    ("option-not-applicable", "--ledger", 0, &message),
                    2,
                );
            }
            match Npu1::validate(bytes) {
                Ok(v) => {
                    let out = if args.json {
                        format!("{}\n", npu1_json(&v))
                    } else {
                        npu1_text(&v)
                    };
                    crate::io::print_then("inspect", out, ExitCode::SUCCESS)
                }
                Err(e) => damaged_npu1(&args, bytes, &e),
            }
        }
        Some(Format::Vpmn) => crate::vpmn_inspect(bytes, &args),
        None => refuse_error(&args, None, &format::unknown_format(bytes)),
    }
}
