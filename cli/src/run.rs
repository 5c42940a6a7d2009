//! `npuschema run --sim FILE.npub`: validate an NPU1 blob, bind it into an arena of the size
//! it needs, and run it on the simulated Ethos-U55 through the firmware driver
//! ([`npuschema_sim::run_blob`]). Prints the bindings, what the simulated NPU executed and the
//! driver's result (text, or `--json`).
//!
//! Exit 0 when the run succeeded, 1 when the file is invalid, cannot be bound, or the run
//! failed (a fault, a configuration mismatch, a timeout), 2 on usage or I/O errors and on
//! the simulator's own limits (`arena-over-limit`, `sim-out-of-memory`, and a run stopped
//! by its work budget, `sim-budget-exceeded`).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use npuschema_runtime::binder::RegionKind;
use npuschema_runtime::driver::{PmuConfig, PmuEvent};
use npuschema_sim::{Faults, RunError, RunOptions, RunReport, run_blob};
use serde_json::{Value, json};

/// Arguments of `npuschema run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Run on the simulated NPU (the only backend on a host).
    #[arg(long)]
    pub sim: bool,
    /// Wait for completion through the interrupt path instead of polling STATUS.
    #[arg(long)]
    pub irq: bool,
    /// MACs/cycle of the simulated NPU (default: the blob's accel, 128 when unspecified).
    #[arg(long)]
    pub macs: Option<u32>,
    /// Place the arena at an address == K (mod 16).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub arena_misalign: usize,
    /// Before the run, write PATH into a tensor (repeatable): NAME is a tensor's name or the
    /// model's input number (NPU1 version 2); PATH a `.npy` of its shape and type, or its
    /// raw bytes. `region:N=PATH` (or `N=PATH` for a version 1 blob, which has no tensor
    /// table) writes the file at the start of runtime region N. Inputs not given are zero.
    #[arg(long, value_name = "NAME=PATH", value_parser = parse_key_path)]
    pub input: Vec<(String, PathBuf)>,
    /// After a successful run, write a tensor to PATH (repeatable): NAME is a tensor's name
    /// or the model's output number; a PATH ending in `.npy` gets a `.npy` of its shape and
    /// type, any other its raw bytes. `region:N=PATH` (or `N=PATH` for a version 1 blob)
    /// writes runtime region N's bytes.
    #[arg(long, value_name = "NAME=PATH", value_parser = parse_key_path)]
    pub output: Vec<(String, PathBuf)>,
    /// Inject a fault into the simulated NPU.
    #[arg(long, value_enum)]
    pub fault: Vec<Fault>,
    /// Profile the run with the PMU: the cycle counter from NPU_ACTIVE to NPU_IDLE, and
    /// the AXI0/AXI1 read and write data beats.
    #[arg(long)]
    pub pmu: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// The largest arena the simulator may allocate, in bytes (decimal or 0x hex); a blob
    /// that needs more is refused (`arena-over-limit`) before anything is allocated.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes,
          default_value_t = npuschema_sim::run::DEFAULT_MAX_ARENA)]
    pub max_arena: u64,
    /// The NPU1 blob.
    pub file: PathBuf,
}

/// What `--pmu` counts.
const PROFILE: PmuConfig = PmuConfig {
    events: [
        PmuEvent::AXI0_RD_DATA_BEAT_RECEIVED,
        PmuEvent::AXI0_WR_DATA_BEAT_WRITTEN,
        PmuEvent::AXI1_RD_DATA_BEAT_RECEIVED,
        PmuEvent::AXI1_WR_DATA_BEAT_WRITTEN,
    ],
    cycle_start: PmuEvent::NPU_ACTIVE,
    cycle_stop: PmuEvent::NPU_IDLE,
};

/// A fault `--fault` can inject.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// CONFIG reports a product other than U55.
    NotU55,
    /// A soft reset never completes.
    ResetHang,
    /// PROT reads back the wrong privilege level.
    Prot,
    /// ECC fault at the first operation.
    Ecc,
    /// Watchdog fault at the first operation.
    Watchdog,
    /// The run never finishes.
    Hang,
    /// A spurious interrupt (irq_raised clear) right after the start; the driver ignores it.
    SpuriousIrq,
}

fn parse_key_path(s: &str) -> Result<(String, PathBuf), String> {
    let (key, path) = s.split_once('=').ok_or_else(|| {
        format!("{s}: expected NAME=PATH (a tensor's name or number, or region:N)")
    })?;
    if key.is_empty() || path.is_empty() {
        return Err(format!("{s}: expected NAME=PATH with both parts"));
    }
    Ok((key.to_string(), PathBuf::from(path)))
}

/// What an `--input`/`--output` key names.
enum Target<'t> {
    /// A whole runtime region, from its start.
    Region(usize),
    /// A tensor of the table.
    Tensor(&'t npuschema_cli::tensor_io::TensorDesc),
}

/// Resolve `key`: `region:N`; a tensor's name or number (version 2); `N` a region when the
/// blob has no tensor table (version 1).
fn target<'t>(
    key: &str,
    tensors: &'t [npuschema_cli::tensor_io::TensorDesc],
    version: u32,
    want: npuschema_generated::npu1::Direction,
) -> Result<Target<'t>, String> {
    if let Some(n) = key.strip_prefix("region:") {
        return n
            .parse()
            .map(Target::Region)
            .map_err(|e| format!("{key}: not a region number: {e}"));
    }
    if version == npuschema_generated::npu1::VERSION_V1 {
        return key.parse().map(Target::Region).map_err(|_| {
            format!("{key:?}: a version 1 blob has no tensor table; give a region number (N=PATH or region:N=PATH), or pack the model again (pack writes version 2)")
        });
    }
    npuschema_cli::tensor_io::find(tensors, key, want).map(Target::Tensor)
}

fn parse_bytes(s: &str) -> Result<u64, String> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    }
    .map_err(|e| format!("{s}: not a byte count: {e}"))
}

fn faults(list: &[Fault]) -> Faults {
    let mut f = Faults::default();
    for fault in list {
        match fault {
            Fault::NotU55 => f.product = Some(1),
            Fault::ResetHang => f.reset_hangs = true,
            Fault::Prot => f.prot_mismatch = true,
            Fault::Ecc => f.ecc_fault = true,
            Fault::Watchdog => f.watchdog_fault = true,
            Fault::Hang => f.hang = true,
            Fault::SpuriousIrq => f.spurious_irq = true,
        }
    }
    f
}

/// The report as JSON.
#[must_use]
pub fn report_json(r: &RunReport) -> Value {
    let regions: Vec<Value> = r
        .regions
        .iter()
        .map(|x| {
            json!({
                "index": x.bound.index,
                "role": x.bound.role,
                "role_name": x.role_name,
                "kind": match x.bound.kind { RegionKind::Baked => "baked", RegionKind::Runtime => "runtime", RegionKind::Caller => "caller" },
                "npu_address": x.bound.npu_address,
                "size": x.bound.size,
                "arena_offset": x.bound.arena_offset,
                "read_extent": x.read_extent,
                "write_extent": x.write_extent,
                "fnv1a": x.fnv1a,
            })
        })
        .collect();
    let result = match &r.outcome {
        Ok(info) => json!({
            "ok": true,
            "status": info.status.0,
            "qread": info.qread,
            "checks": info.polls,
        }),
        Err(e) => {
            let (status, qread) = e
                .run_status()
                .map_or((None, None), |(s, q)| (Some(s.0), Some(q)));
            json!({
                "ok": false,
                "code": e.code,
                "register": e.register,
                "offset": e.offset,
                "message": e.to_string(),
                "status": status,
                "qread": qread,
            })
        }
    };
    let executed = r.record.as_ref().map(|rec| {
        json!({
            "commands": rec.commands,
            "operations": rec.operations,
            "dma_copies": rec.dma_copies,
            "dma_bytes": rec.dma_bytes,
            "shram_transfers": rec.shram_transfers,
            "bus_fault": rec.bus_fault.map(|f| format!("{f:?}")),
            "parse_error": rec.parse_error.map(|e| e.to_string()),
            // Why the simulator stopped computing (`sim-budget-exceeded`: the work budget
            // ran out, and the run is then failed; or a weight stream that does not decode).
            "stopped": rec.compute_error.as_ref().map(|e| json!({
                "code": e.code(),
                "message": e.to_string(),
            })),
        })
    });
    json!({
        "blob_bytes": r.blob_bytes,
        "accel_macs": r.accel_macs,
        "npu": { "id": r.hw.id.0, "config": r.hw.config.0, "macs": r.hw.config.macs() },
        "mode": if r.interrupt { "interrupt" } else { "polling" },
        "arena": {
            "given": r.arena_bytes,
            "used": r.arena_used,
            "needed_aligned_start": r.arena_needed.aligned_start,
            "needed_any_start": r.arena_needed.any_start,
        },
        "regions": regions,
        "executed": executed,
        "result": result,
        "pmu": r.pmu.map(|p| json!({
            "cycles": p.cycles,
            "events": p.events,
            "event_names": r.pmu_events.unwrap_or_default().map(|e| e.to_string()),
            "overflow": p.overflow,
        })),
        "sim": {
            "resets": r.stats.resets,
            "irqs": r.stats.irqs,
            "irqs_delivered": r.stats.irqs_delivered,
            "cleans": r.stats.cleans,
            "invalidates": r.stats.invalidates,
        },
    })
}

/// Run with `args`, writing the report to `out` and diagnostics to `err` (under `--json`,
/// every error is one JSON object on `out`: `{"ok": false, "code", "message", "stage"}`).
///
/// `--output` files are written only when the run succeeded, each through a temporary
/// file renamed into place ([`npuschema_cli::io::AtomicOutput`]); an output that is the
/// model file or an `--input` file is refused before the run.
///
/// # Errors
///
/// Only I/O errors writing `out`/`err`.
pub fn execute(args: &Args, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<ExitCode> {
    let mut fail = |stage: &str, code: &str, message: String, exit: u8| -> io::Result<ExitCode> {
        if args.json {
            let v = json!({ "ok": false, "code": code, "message": message, "stage": stage });
            writeln!(out, "{v:#}")?;
        } else {
            writeln!(err, "npuschema run: {message}")?;
        }
        Ok(ExitCode::from(exit))
    };
    if !args.sim {
        return fail(
            "usage",
            "no-backend",
            "there is no NPU on this host; use --sim to run on the simulated Ethos-U55".into(),
            2,
        );
    }
    let limit = npuschema_cli::io::max_input_bytes();
    let blob = match npuschema_cli::format::load_npu1(&args.file, "run") {
        Ok(b) => b,
        Err((exit, code, msg)) => {
            let msg = msg.trim_start_matches("npuschema run: ").to_string();
            return fail("read", code, msg, exit);
        }
    };
    use npuschema_cli::tensor_io;
    use npuschema_generated::npu1::Direction;
    // The tensor table (version 2), to resolve names; an invalid blob is reported by the
    // run below, with the validator's error.
    let view = npuschema_generated::npu1::Npu1::validate(&blob).ok();
    let tensors = view.as_ref().map(tensor_io::tensors).unwrap_or_default();
    let version = view.as_ref().map_or(0, |v| v.header().version());
    let region_size = |r: usize| -> usize {
        view.as_ref()
            .and_then(|v| v.regions().nth(r))
            .and_then(|d| usize::try_from(d.size()).ok())
            .unwrap_or(0)
    };
    // One image per region: a region file first, then the tensors written into it.
    let mut inputs: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut given: Vec<&str> = Vec::new();
    let mut whole_regions: Vec<usize> = Vec::new();
    for (key, path) in &args.input {
        let bytes = match npuschema_cli::io::read_all(path, limit) {
            Ok(bytes) => bytes,
            Err(e) => {
                return fail(
                    "input",
                    e.code(),
                    format!("{}: {e}", npuschema_cli::io::line_path(path)),
                    2,
                );
            }
        };
        match target(key, &tensors, version, Direction::Input) {
            Err(m) => return fail("input", "unknown-tensor", format!("--input {key}: {m}"), 2),
            Ok(Target::Region(r)) => {
                // A region's file goes at its start, over what is there (an earlier tensor).
                match inputs.iter_mut().find(|(x, _)| *x == r) {
                    Some((_, image)) => {
                        if image.len() < bytes.len() {
                            image.resize(bytes.len(), 0);
                        }
                        if let Some(dst) = image.get_mut(..bytes.len()) {
                            dst.copy_from_slice(&bytes);
                        }
                    }
                    None => inputs.push((r, bytes)),
                }
                whole_regions.push(r);
            }
            Ok(Target::Tensor(t)) => {
                let data = match tensor_io::tensor_bytes(t, &bytes) {
                    Ok(d) => d,
                    Err(m) => {
                        return fail(
                            "input",
                            "bad-tensor-file",
                            format!("--input {key}={}: {m}", path.display()),
                            2,
                        );
                    }
                };
                given.push(&t.name);
                let at = match inputs.iter().position(|(r, _)| *r == t.region) {
                    Some(i) => i,
                    None => {
                        inputs.push((t.region, Vec::new()));
                        inputs.len() - 1
                    }
                };
                if let Some((_, image)) = inputs.get_mut(at) {
                    if image.len() < region_size(t.region) {
                        image.resize(region_size(t.region), 0);
                    }
                    if let Some(dst) = image.get_mut(t.offset..t.offset.saturating_add(data.len()))
                    {
                        dst.copy_from_slice(&data);
                    }
                }
            }
        }
    }
    let zero_filled: Vec<String> = tensors
        .iter()
        .filter(|t| {
            t.direction == Direction::Input
                && !given.contains(&t.name.as_str())
                && !whole_regions.contains(&t.region)
        })
        .map(|t| {
            format!(
                "npuschema run: input {} {:?} not given: zero-filled",
                t.index, t.name
            )
        })
        .collect();
    let mut wanted = Vec::new();
    for (key, path) in &args.output {
        match target(key, &tensors, version, Direction::Output) {
            Err(m) => {
                return fail(
                    "output",
                    "unknown-tensor",
                    format!("--output {key}: {m}"),
                    2,
                );
            }
            Ok(t) => wanted.push((key, t, path)),
        }
    }
    let mut sources: Vec<&std::path::Path> = vec![args.file.as_path()];
    sources.extend(args.input.iter().map(|(_, p)| p.as_path()));
    for (_, path) in &args.output {
        if let Some(src) = sources
            .iter()
            .find(|s| npuschema_cli::io::same_file(s, path))
        {
            return fail(
                "output",
                "output-is-input",
                format!(
                    "output-is-input: --output {}: is the input {}: refusing to write over it",
                    path.display(),
                    src.display()
                ),
                2,
            );
        }
    }
    let opts = RunOptions {
        interrupt: args.irq,
        macs: args.macs,
        arena_misalign: args.arena_misalign,
        inputs,
        faults: faults(&args.fault),
        max_arena: args.max_arena,
        pmu: args.pmu.then_some(PROFILE),
        ..RunOptions::default()
    };
    let report = match run_blob(&blob, &opts) {
        Ok(r) => r,
        Err(e) => {
            let exit = if matches!(
                e,
                RunError::Input { .. } | RunError::OverLimit { .. } | RunError::OutOfMemory { .. }
            ) {
                2
            } else {
                1
            };
            return fail(
                stage(&e),
                e.code(),
                format!("{}: {e}", npuschema_cli::io::line_path(&args.file)),
                exit,
            );
        }
    };
    let mut pending: Vec<(&PathBuf, Vec<u8>)> = Vec::new();
    for (key, t, path) in wanted {
        let region = match t {
            Target::Region(r) => r,
            Target::Tensor(t) => t.region,
        };
        let Some((_, bytes)) = report.outputs.iter().find(|(i, _)| *i == region) else {
            return fail(
                "output",
                "not-a-runtime-region",
                format!("--output {key}: region {region} is not a runtime region of this blob"),
                2,
            );
        };
        let data = match t {
            Target::Region(_) => bytes.clone(),
            Target::Tensor(t) => {
                let Some(b) = bytes.get(t.offset..t.offset.saturating_add(t.size)) else {
                    return fail(
                        "output",
                        "tensor-out-of-region",
                        format!("--output {key}: the tensor lies outside its region"),
                        2,
                    );
                };
                if path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
                {
                    tensor_io::to_npy(t, b)
                } else {
                    b.to_vec()
                }
            }
        };
        pending.push((path, data));
    }
    if report.succeeded() {
        // Every output is complete in its temporary file before any is renamed.
        let mut staged = Vec::new();
        for (path, bytes) in pending.iter() {
            let written =
                npuschema_cli::io::AtomicOutput::create(path, &sources).and_then(|mut o| {
                    o.write_all(bytes)?;
                    Ok(o)
                });
            match written {
                Ok(o) => staged.push(o),
                Err(e) => return fail("output", e.code, e.to_string(), 2),
            }
        }
        for o in staged {
            if let Err(e) = o.commit() {
                return fail("output", e.code, e.to_string(), 2);
            }
        }
    }
    if !args.json {
        for note in &zero_filled {
            writeln!(err, "{note}")?;
        }
    }
    if !report.succeeded() && !pending.is_empty() && !args.json {
        writeln!(
            err,
            "npuschema run: the run failed: no --output file written"
        )?;
    }
    if args.json {
        writeln!(out, "{:#}", report_json(&report))?;
    } else {
        write!(out, "{}", report.to_text())?;
    }
    Ok(if report.succeeded() {
        ExitCode::SUCCESS
    } else if over_budget(&report) {
        // The simulator's limit, not a verdict on the file (as `arena-over-limit`).
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    })
}

/// Whether the simulator stopped the run because its work budget ran out.
fn over_budget(report: &RunReport) -> bool {
    report.record.as_ref().is_some_and(|r| {
        matches!(
            r.compute_error,
            Some(npuschema_sim::ComputeError::Budget { .. })
        )
    })
}

fn stage(e: &RunError) -> &'static str {
    match e {
        RunError::Invalid(_) => "validate",
        RunError::Bind(_) => "bind",
        RunError::Check(_) => "check",
        RunError::Input { .. } => "input",
        RunError::Init(_) => "init",
        RunError::OverLimit { .. } | RunError::OutOfMemory { .. } => "limit",
    }
}

/// The subcommand.
pub fn run(args: Args) -> ExitCode {
    let mut text = Vec::new();
    let stderr = io::stderr();
    match execute(&args, &mut text, &mut stderr.lock()) {
        Ok(code) => npuschema_cli::io::print_then("run", text, code),
        Err(_) => ExitCode::from(2),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use super::*;
    use std::fs;

    use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};

    fn word(code: u16, param: u16) -> [u8; 4] {
        (u32::from(code) | (u32::from(param) << 16)).to_le_bytes()
    }

    /// Baked 32 bytes in region 0, runtime 64 in region 1; DMA `len` bytes 0 -> 1.
    fn blob(len: u32) -> Vec<u8> {
        let mut s = Vec::new();
        s.extend(word(0x130, 0));
        s.extend(word(0x131, 1));
        for (code, payload) in [(0x4030u16, 0u32), (0x4031, 0), (0x4032, len)] {
            s.extend(word(code, 0));
            s.extend(payload.to_le_bytes());
        }
        s.extend(word(0x010, 0));
        s.extend(word(0x000, 0xFFFF));
        let w: Vec<u8> = (1..=32).collect();
        let regions = [
            RegionSpec {
                role: Role::Weights,
                data: RegionData::Baked(&w),
            },
            RegionSpec {
                role: Role::Output,
                data: RegionData::Runtime(64),
            },
        ];
        Npu1Writer::new()
            .version(npuschema_generated::npu1::VERSION_V1)
            .accel(Accel::Macs128)
            .regions(&regions)
            .cmd_stream(&s)
            .to_vec()
            .unwrap()
    }

    /// [`blob`]'s copy of 32 bytes, as NPU1 version 2 with two tensors in region 1: the
    /// output `y` (int8 [1, 16], where the copy lands) and the input `x` (int8 [1, 8] at
    /// 48, which the copy does not touch).
    fn blob_v2() -> Vec<u8> {
        use npuschema_generated::npu1::{DType, Direction, TensorFlags, TensorSpec};
        let v1 = blob(32);
        let view = npuschema_generated::npu1::Npu1::validate(&v1).unwrap();
        let w: Vec<u8> = (1..=32).collect();
        let regions = [
            RegionSpec {
                role: Role::Weights,
                data: RegionData::Baked(&w),
            },
            RegionSpec {
                role: Role::Output,
                data: RegionData::Runtime(64),
            },
        ];
        let t = |name, direction, offset, n| TensorSpec {
            direction,
            io_index: 0,
            region: 1,
            offset,
            size: n,
            dtype: DType::Int8,
            rank: 2,
            dim0: 1,
            dim1: n,
            dim2: 1,
            dim3: 1,
            flags: TensorFlags::empty(),
            scale: 0.0,
            zero_point: 0,
            name,
        };
        let io = [
            t("x", Direction::Input, 48, 8),
            t("y", Direction::Output, 0, 16),
        ];
        Npu1Writer::new()
            .version(npuschema_generated::npu1::VERSION_V2)
            .accel(Accel::Macs128)
            .regions(&regions)
            .io(&io)
            .cmd_stream(view.cmd_stream())
            .to_vec()
            .unwrap()
    }

    #[test]
    fn tensors_by_name_in_and_out() {
        let d = scratch("tensors");
        let file = d.join("m.npub");
        fs::write(&file, blob_v2()).unwrap();
        fs::write(d.join("x.bin"), [0xAAu8; 8]).unwrap();
        let mut a = args(file.clone());
        a.input = vec![("x".into(), d.join("x.bin"))];
        a.output = vec![
            ("y".into(), d.join("y.npy")),
            ("0".into(), d.join("y.bin")),
            ("region:1".into(), d.join("r.bin")),
        ];
        let (code, out, err) = exec(&a);
        assert_eq!(code, ExitCode::SUCCESS, "{out}{err}");
        assert!(!err.contains("zero-filled"), "{err}");
        let r = fs::read(d.join("r.bin")).unwrap();
        assert_eq!(
            &r[48..56],
            &[0xAA; 8],
            "the input is at its place in its region"
        );
        assert_eq!(
            fs::read(d.join("y.bin")).unwrap(),
            (1..=16).collect::<Vec<u8>>()
        );
        let npy = fs::read(d.join("y.npy")).unwrap();
        let header = String::from_utf8_lossy(&npy[10..npy.len() - 16]).to_string();
        assert!(
            header.contains("'descr': '|i1'") && header.contains("'shape': (1, 16)"),
            "{header}"
        );
        assert_eq!(&npy[npy.len() - 16..], &(1..=16).collect::<Vec<u8>>()[..]);
        // The .npy read back as an input of the same shape and type.
        let mut a = args(file.clone());
        a.input = vec![("x".into(), d.join("y.npy"))];
        let (code, _, err) = exec(&a);
        assert_eq!(code, ExitCode::from(2));
        assert!(
            err.contains("tensor \"x\"") && err.contains("shape"),
            "{err}"
        );
        // Not given: zero-filled, and said so.
        let (code, _, err) = exec(&args(file.clone()));
        assert_eq!(code, ExitCode::SUCCESS);
        assert!(
            err.contains("input 0 \"x\" not given: zero-filled"),
            "{err}"
        );
        // A wrong size, an unknown name, an output given as an input: before the run.
        fs::write(d.join("short.bin"), [0u8; 7]).unwrap();
        for (key, path, says) in [
            ("x", "short.bin", "the file has 7 bytes, the tensor 8"),
            ("nope", "x.bin", "no input \"nope\""),
            ("y", "x.bin", "not an input"),
        ] {
            let mut a = args(file.clone());
            a.input = vec![(key.into(), d.join(path))];
            let (code, out, err) = exec(&a);
            assert_eq!(code, ExitCode::from(2), "{key}");
            assert!(err.contains(says), "{key}: {err}");
            assert!(out.is_empty(), "nothing ran: {out}");
        }
        fs::remove_dir_all(d).unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("npuschema-run-{}-{name}", std::process::id()));
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn args(file: PathBuf) -> Args {
        Args {
            sim: true,
            irq: false,
            macs: None,
            arena_misalign: 0,
            input: Vec::new(),
            output: Vec::new(),
            fault: Vec::new(),
            pmu: false,
            json: false,
            max_arena: npuschema_sim::run::DEFAULT_MAX_ARENA,
            file,
        }
    }

    fn exec(a: &Args) -> (ExitCode, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = execute(a, &mut out, &mut err).unwrap();
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn runs_a_blob_and_writes_the_output_region() {
        let d = scratch("ok");
        let file = d.join("m.npub");
        fs::write(&file, blob(32)).unwrap();
        let mut a = args(file);
        a.irq = true;
        a.output = vec![("1".to_string(), d.join("out.bin"))];
        let (code, out, err) = exec(&a);
        assert_eq!(code, ExitCode::SUCCESS, "{out}{err}");
        assert!(out.contains("result: ok (interrupt"), "{out}");
        let written = fs::read(d.join("out.bin")).unwrap();
        assert_eq!(&written[..32], &(1..=32).collect::<Vec<u8>>()[..]);
        assert!(written[32..].iter().all(|&b| b == 0));
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn pmu_profile_and_a_spurious_interrupt() {
        let d = scratch("pmu");
        let file = d.join("m.npub");
        fs::write(&file, blob(32)).unwrap();
        let mut a = args(file);
        a.irq = true;
        a.pmu = true;
        a.fault = vec![Fault::SpuriousIrq];
        a.json = true;
        let (code, out, err) = exec(&a);
        assert_eq!(code, ExitCode::SUCCESS, "{out}{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["result"]["ok"], true, "the spurious interrupt is ignored");
        assert!(v["pmu"]["cycles"].as_u64().unwrap() > 0, "{out}");
        // 32 bytes written to region 1 (attribute 0: AXI0) in 8-byte beats.
        assert_eq!(v["pmu"]["events"][1], 4, "{out}");
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn json_report_of_a_stream_past_its_region_exits_1_before_the_run() {
        // The driver runs only a checked stream: a DMA past region 1 is refused on the
        // check, before anything reaches the (simulated) NPU.
        let d = scratch("fault");
        let file = d.join("m.npub");
        fs::write(&file, blob(200)).unwrap();
        let mut a = args(file);
        a.json = true;
        let (code, out, _) = exec(&a);
        assert_eq!(code, ExitCode::from(1));
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["ok"], false);
        assert_eq!(v["stage"], "check");
        assert_eq!(v["code"], "region-overflow");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("command stream refused")
        );
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn injected_fault_and_invalid_file_and_missing_sim() {
        let d = scratch("misc");
        let file = d.join("m.npub");
        fs::write(&file, blob(16)).unwrap();
        let mut a = args(file.clone());
        a.fault = vec![Fault::Watchdog];
        let (code, out, _) = exec(&a);
        assert_eq!(code, ExitCode::from(1));
        assert!(
            out.contains("result: FAILED (polling): watchdog-fault"),
            "{out}"
        );

        let mut bad = blob(16);
        bad[8] ^= 1; // total_bytes
        fs::write(&file, bad).unwrap();
        let (code, _, err) = exec(&args(file.clone()));
        assert_eq!(code, ExitCode::from(1));
        assert!(err.contains("total-bytes-mismatch"), "{err}");

        let mut a = args(file);
        a.sim = false;
        assert_eq!(exec(&a).0, ExitCode::from(2));
        fs::remove_dir_all(d).unwrap();
    }
}
