//! `npuschema verify [--arch u55|u65] FILE.npub`: run the static command-stream checker
//! ([`npuschema_runtime::cmd::check_for`]) over a model's stream against its region sizes,
//! the stream's commands those of `--arch` (default `u55`: a U65-only command is an
//! `unknown-opcode` error, as in `disasm`).
//! Exit 0 when clean, 1 on findings or an undecodable stream, 2 on usage or I/O errors.
//!
//! FILE is validated as NPU1 first; the stream is checked against its regions' sizes (region
//! n is BASEPn). The hidden `--raw-stream` flag reads a raw stream file instead, with
//! `--region-size` giving the sizes of regions 0, 1, ... in order.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use npuschema_runtime::cmd::{Arch, CheckSummary, DecodeError, Finding, check_for};

/// Arguments of `npuschema verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// FILE is a raw register command stream (32-bit little-endian words), not an .npub;
    /// give the region sizes with --region-size.
    #[arg(long, hide = true)]
    pub raw_stream: bool,
    /// With --raw-stream: the size in bytes of region 0, 1, ... (repeat, in order; decimal or
    /// 0x hex). Regions not given are unbound.
    #[arg(long = "region-size", hide = true, value_parser = parse_size)]
    pub region_sizes: Vec<u64>,
    #[command(flatten)]
    pub arch: crate::arch::ArchArg,
    /// The model file.
    pub file: PathBuf,
}

fn parse_size(s: &str) -> Result<u64, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|e| format!("not a size: {s}: {e}"))
}

/// How a verification ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// No findings.
    Clean(CheckSummary),
    /// At least one finding.
    Findings(CheckSummary),
    /// The stream could not be decoded (findings before the error were written).
    Undecodable(DecodeError),
}

impl Outcome {
    /// Exit status: 0 clean, 1 otherwise.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Outcome::Clean(_) => ExitCode::SUCCESS,
            Outcome::Findings(_) | Outcome::Undecodable(_) => ExitCode::from(1),
        }
    }
}

/// Check `stream`, a stream of architecture `arch`, against `region_sizes` and write the
/// report: one line per finding, then a summary with each touched region's extent against its
/// size.
pub fn write_report(
    stream: &[u8],
    arch: Arch,
    region_sizes: &[u64],
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let mut findings: Vec<Finding> = Vec::new();
    let result = check_for(stream, arch, region_sizes, &mut |f| findings.push(f));
    for f in &findings {
        writeln!(out, "{f}")?;
    }
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            writeln!(out, "error: {e}")?;
            return Ok(Outcome::Undecodable(e));
        }
    };
    writeln!(
        out,
        "{} commands, {} memory operations, {} finding{}",
        summary.commands,
        summary.operations,
        summary.findings,
        if summary.findings == 1 { "" } else { "s" }
    )?;
    for (region, extent) in summary.touched() {
        match region_sizes.get(usize::from(region)) {
            Some(size) => writeln!(
                out,
                "  region {region}: touches {extent:#x} of {size:#x} bytes"
            )?,
            None => writeln!(
                out,
                "  region {region}: touches {extent:#x} bytes, not bound"
            )?,
        }
    }
    Ok(if findings.is_empty() {
        Outcome::Clean(summary)
    } else {
        Outcome::Findings(summary)
    })
}

/// Run `npuschema verify`.
pub fn run(args: Args) -> ExitCode {
    if args.raw_stream {
        return match npuschema_cli::io::read_all(&args.file, npuschema_cli::io::max_input_bytes()) {
            Ok(bytes) => verify_stream(&bytes, args.arch.arch, &args.region_sizes),
            Err(e) => {
                eprintln!(
                    "npuschema verify: {}: {e}",
                    npuschema_cli::io::line_path(&args.file)
                );
                ExitCode::from(2)
            }
        };
    }
    let bytes = match npuschema_cli::format::load_npu1(&args.file, "verify") {
        Ok(b) => b,
        Err((status, _, msg)) => {
            eprintln!("{msg}");
            return ExitCode::from(status);
        }
    };
    match npuschema_generated::npu1::Npu1::validate(&bytes) {
        Ok(v) => {
            let sizes: Vec<u64> = v.regions().map(|r| u64::from(r.size())).collect();
            verify_stream(v.cmd_stream(), args.arch.arch, &sizes)
        }
        Err(e) => {
            eprintln!(
                "npuschema verify: {}: {e}",
                npuschema_cli::io::line_path(&args.file)
            );
            ExitCode::from(1)
        }
    }
}

/// Verify a stream of architecture `arch` already read, reporting to stdout.
pub fn verify_stream(stream: &[u8], arch: Arch, region_sizes: &[u64]) -> ExitCode {
    let mut text = Vec::new();
    match write_report(stream, arch, region_sizes, &mut text) {
        Ok(outcome) => npuschema_cli::io::print_then("verify", text, outcome.exit_code()),
        Err(e) => npuschema_cli::io::stdout_error("verify", &e, ExitCode::from(2)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn stream(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// DMA 0x40 bytes from region 0 offset 0x10 to region 1 offset 0x20, then stop.
    fn dma() -> Vec<u8> {
        stream(&[
            0x0000_0130, // DMA0_SRC_REGION 0
            0x0000_4030,
            0x10,        // DMA0_SRC
            0x0001_0131, // DMA0_DST_REGION 1
            0x0000_4031,
            0x20, // DMA0_DST
            0x0000_4032,
            0x40,        // DMA0_LEN
            0x0000_0010, // DMA_START
            0xFFFF_0000, // STOP
        ])
    }

    #[test]
    fn clean_report() {
        let mut out = Vec::new();
        let outcome = write_report(&dma(), Arch::U55, &[0x50, 0x60], &mut out).unwrap();
        assert!(matches!(outcome, Outcome::Clean(s) if s.operations == 1 && s.commands == 7));
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "7 commands, 1 memory operations, 0 findings\n  region 0: touches 0x50 of 0x50 bytes\n  region 1: touches 0x60 of 0x60 bytes\n"
        );
    }

    #[test]
    fn findings_report() {
        let mut out = Vec::new();
        let outcome = write_report(&dma(), Arch::U55, &[0x4F], &mut out).unwrap();
        assert!(matches!(outcome, Outcome::Findings(s) if s.findings == 2));
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("region-overflow at byte 0x20 (NPU_OP_DMA_START): dma-src"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("unbound-region at byte 0x20 (NPU_OP_DMA_START): dma-dst"),
            "{text}"
        );
        assert_eq!(lines[4], "  region 1: touches 0x60 bytes, not bound");
    }

    #[test]
    fn undecodable_stream() {
        let mut s = dma();
        s.truncate(s.len() - 2);
        let mut out = Vec::new();
        let outcome = write_report(&s, Arch::U55, &[0x50, 0x60], &mut out).unwrap();
        assert!(matches!(outcome, Outcome::Undecodable(e) if e.code == "truncated-command"));
        assert!(
            String::from_utf8(out)
                .unwrap()
                .starts_with("error: truncated-command")
        );
    }

    #[test]
    fn sizes_parse_decimal_and_hex() {
        assert_eq!(parse_size("768"), Ok(768));
        assert_eq!(parse_size("0x300"), Ok(768));
        assert!(parse_size("lots").is_err());
    }
}
