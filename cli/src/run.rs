//! `npuschema run --sim FILE.npub`: validate an NPU1 blob, bind it into an arena of the size
//! it needs, and run it on the simulated Ethos-U55 through the firmware driver
//! ([`npuschema_sim::run_blob`]). Prints the bindings, what the simulated NPU executed and the
//! driver's result (text, or `--json`).
//!
//! Exit 0 when the run succeeded, 1 when the file is invalid, cannot be bound, or the run
//! failed (a fault, a configuration mismatch, a timeout), 2 on usage or I/O errors.

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
    /// Write a file's bytes at the start of runtime region N before the run (repeatable).
    #[arg(long, value_name = "N=PATH", value_parser = parse_region_path)]
    pub input: Vec<(usize, PathBuf)>,
    /// Write runtime region N's bytes after the run to PATH (repeatable).
    #[arg(long, value_name = "N=PATH", value_parser = parse_region_path)]
    pub output: Vec<(usize, PathBuf)>,
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

fn parse_region_path(s: &str) -> Result<(usize, PathBuf), String> {
    let (n, path) = s
        .split_once('=')
        .ok_or_else(|| format!("{s}: expected N=PATH"))?;
    let n = n
        .parse()
        .map_err(|e| format!("{n}: not a region index: {e}"))?;
    Ok((n, PathBuf::from(path)))
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
        "pmu": r.pmu.map(|p| json!({ "cycles": p.cycles, "events": p.events, "overflow": p.overflow })),
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
    let mut inputs = Vec::new();
    for (region, path) in &args.input {
        match npuschema_cli::io::read_all(path, limit) {
            Ok(bytes) => inputs.push((*region, bytes)),
            Err(e) => {
                return fail("input", e.code(), format!("{}: {e}", path.display()), 2);
            }
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
                format!("{}: {e}", args.file.display()),
                exit,
            );
        }
    };
    let mut pending = Vec::new();
    for (region, path) in &args.output {
        let Some((_, bytes)) = report.outputs.iter().find(|(i, _)| i == region) else {
            return fail(
                "output",
                "not-a-runtime-region",
                format!("--output {region}: not a runtime region of this blob"),
                2,
            );
        };
        pending.push((path, bytes));
    }
    if report.succeeded() {
        // Every output is complete in its temporary file before any is renamed.
        let mut staged = Vec::new();
        for (path, bytes) in pending {
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
    } else if !pending.is_empty() && !args.json {
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
    } else {
        ExitCode::from(1)
    })
}

fn stage(e: &RunError) -> &'static str {
    match e {
        RunError::Invalid(_) => "validate",
        RunError::Bind(_) => "bind",
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
            .accel(Accel::Macs128)
            .regions(&regions)
            .cmd_stream(&s)
            .to_vec()
            .unwrap()
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
        a.output = vec![(1, d.join("out.bin"))];
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
    fn json_report_of_a_bus_fault_exits_1() {
        let d = scratch("fault");
        let file = d.join("m.npub");
        fs::write(&file, blob(200)).unwrap();
        let mut a = args(file);
        a.json = true;
        let (code, out, _) = exec(&a);
        assert_eq!(code, ExitCode::from(1));
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["result"]["ok"], false);
        assert_eq!(v["result"]["code"], "bus-fault");
        assert_eq!(v["regions"][0]["kind"], "baked");
        assert_eq!(v["regions"][1]["size"], 64);
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
