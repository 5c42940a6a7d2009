//! What `npuschema pack` tells the user: where everything went, as text or JSON.

use std::fmt::Write as _;

use serde::Serialize;

use super::cop::CopPayload;
use super::layout::PlanRole;
use super::model::{SourceKind, TensorPlacement};

/// One region of the written blob.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RegionReport {
    /// BASEP slot (= index in the region table).
    pub slot: u32,
    /// Role.
    pub role: PlanRole,
    /// Stored in the blob (true) or carved from the caller's arena at load (false).
    pub baked: bool,
    /// Size in bytes.
    pub size: u32,
    /// Where a baked region's bytes are in the blob.
    pub data_offset: Option<u32>,
    /// What it holds.
    pub what: &'static str,
}

/// The static command-stream check of the written blob.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    /// Commands decoded.
    pub commands: u32,
    /// Memory-touching operations checked.
    pub operations: u32,
    /// Findings (always 0 in a successful pack: any finding fails it).
    pub findings: u32,
    /// (region, one past the highest byte the stream touches) for each touched region.
    pub extents: Vec<(u32, u64)>,
}

/// The result of a successful pack.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PackReport {
    /// The Vela output read.
    pub input: String,
    /// The `.npub` written.
    pub output: String,
    /// Its kind.
    pub source: SourceKind,
    /// The driver-actions payload the stream came in.
    pub cop: CopPayload,
    /// The NPU1 version written.
    pub format_version: u32,
    /// Version 2's compiled-for CONFIG word (`None` in version 1).
    pub npu_config: Option<u32>,
    /// Version 2's compiled-for ID word (`None` in version 1).
    pub npu_id: Option<u32>,
    /// The blob's accel word (MACs per cycle).
    pub accel_macs: u32,
    /// Blob size.
    pub blob_bytes: u32,
    /// The blob's FNV-1a checksum.
    pub checksum: u32,
    /// Offset of the command stream in the blob.
    pub cmd_offset: u32,
    /// Length of the command stream.
    pub cmd_bytes: u32,
    /// Inputs in region 3, outputs in region 4.
    pub separate_io: bool,
    /// The region table.
    pub regions: Vec<RegionReport>,
    /// Where the model's inputs are.
    pub inputs: Vec<TensorPlacement>,
    /// Where the model's outputs are.
    pub outputs: Vec<TensorPlacement>,
    /// The static check.
    pub check: CheckReport,
    /// Warnings from reading the input.
    pub notes: Vec<String>,
}

fn role_name(r: PlanRole) -> &'static str {
    match r {
        PlanRole::Weights => "weights",
        PlanRole::Scratch => "scratch",
        PlanRole::Input => "input",
        PlanRole::Output => "output",
        PlanRole::Other => "other",
    }
}

fn tensor_line(out: &mut String, t: &TensorPlacement) {
    let shape: Vec<String> = t.shape.iter().map(u64::to_string).collect();
    let bytes = t.bytes().map_or("overflow".to_string(), |b| b.to_string());
    let _ = write!(
        out,
        "    {:<32} region {} offset {:#x}  shape [{}] x {} B = {} bytes",
        t.name,
        t.region,
        t.offset,
        shape.join(", "),
        t.elem_size,
        bytes
    );
    match &t.quantization {
        Some(q) if q.scale.len() == 1 => {
            let zp = q.zero_point.first().copied().unwrap_or(0);
            let _ = write!(
                out,
                "  scale {} zero_point {zp}",
                q.scale.first().copied().unwrap_or(0.0)
            );
        }
        Some(q) => {
            let _ = write!(out, "  per-channel quantisation ({} scales)", q.scale.len());
        }
        None => out.push_str("  quantisation unknown"),
    }
    out.push('\n');
}

impl PackReport {
    /// The plain-text report.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "packed {} -> {} ({} bytes)",
            self.input, self.output, self.blob_bytes
        );
        let _ = writeln!(
            o,
            "  source    {}, {} payload",
            self.source,
            self.cop.format.name()
        );
        let _ = writeln!(
            o,
            "  config    CONFIG {:#010x}: {} MACs/cycle (ethos-u55-{}), command stream v{}, SHRAM {} KiB; ID {:#010x}",
            self.cop.config,
            self.cop.macs(),
            self.accel_macs,
            self.cop.cmd_stream_version(),
            self.cop.shram_kib(),
            self.cop.id
        );
        let _ = writeln!(
            o,
            "  stream    {} bytes ({} words) at {:#x}; static check: {} commands, {} operations, no findings",
            self.cmd_bytes,
            self.cmd_bytes / 4,
            self.cmd_offset,
            self.check.commands,
            self.check.operations
        );
        let _ = writeln!(
            o,
            "  checksum  {:#010x} (FNV-1a over bytes 32..{})",
            self.checksum, self.blob_bytes
        );
        o.push_str("  regions\n");
        for r in &self.regions {
            let place = match r.data_offset {
                Some(at) => format!("baked at {at:#x}"),
                None => "runtime".to_string(),
            };
            let touched = self
                .check
                .extents
                .iter()
                .find(|(slot, _)| *slot == r.slot)
                .map_or(String::new(), |(_, e)| {
                    format!(", stream touches {e} bytes")
                });
            let _ = writeln!(
                o,
                "    {}  {:<8} {:>8} bytes  {:<18} {}{touched}",
                r.slot,
                role_name(r.role),
                r.size,
                place,
                r.what
            );
        }
        o.push_str("  inputs\n");
        for t in &self.inputs {
            tensor_line(&mut o, t);
        }
        o.push_str("  outputs\n");
        for t in &self.outputs {
            tensor_line(&mut o, t);
        }
        for n in &self.notes {
            let _ = writeln!(o, "  note: {n}");
        }
        o
    }

    /// The JSON report.
    #[must_use]
    pub fn to_json(&self) -> String {
        // A struct of numbers, strings and vectors of them always serialises.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
