//! `npuschema disasm [--json] [--arch u55|u65] FILE`: list the Ethos-U55 (or, with
//! `--arch u65`, Ethos-U65) register command stream of a model.
//!
//! Text output is laid out like Vela's `--verbose-register-command-stream` (one line per
//! command: offset, payload, param, code, name, param in decimal, decoded fields); `--json`
//! prints one object per line:
//! `{"offset": int, "code": int, "name": "NPU_SET_IFM_REGION", "param": int, "payload": int|null}`.
//!
//! `--arch` (default `u55`) says whose commands are known: a U65-only command in a U55 stream
//! is an `unknown-opcode` error, and the text listing shows the architecture's fields (the
//! U65's `addr_hi`, say).
//!
//! FILE is validated as NPU1 first (a file that does not validate is not listed); offsets
//! are relative to the stream's start. The hidden `--raw-stream` flag lists a raw stream
//! file instead (used by tests on Vela's own outputs).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use npuschema_runtime::cmd::{Arch, Command, DecodeError, ListingIn, decode_for};
use serde::Serialize;

/// Arguments of `npuschema disasm`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print one JSON object per command instead of the text listing.
    #[arg(long)]
    pub json: bool,
    /// FILE is a raw register command stream (32-bit little-endian words), not an .npub.
    #[arg(long, hide = true)]
    pub raw_stream: bool,
    #[command(flatten)]
    pub arch: crate::arch::ArchArg,
    /// The model file.
    pub file: PathBuf,
}

/// Output format of [`write_listing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Vela-style text listing with a header.
    Text,
    /// One JSON object per line.
    Json,
}

/// One command in `--json` output.
#[derive(Serialize)]
struct JsonCommand<'a> {
    offset: u32,
    code: u16,
    name: &'a str,
    param: u16,
    payload: Option<u32>,
}

/// The `--json` line for one command (no newline).
pub fn json_line(cmd: &Command) -> String {
    let obj = JsonCommand {
        offset: cmd.offset,
        code: cmd.code,
        name: cmd.name(),
        param: cmd.param,
        payload: cmd.payload,
    };
    // Serialising a struct of integers and a &str cannot fail.
    serde_json::to_string(&obj).unwrap_or_default()
}

/// Write the listing of `stream`, a stream of architecture `arch`, to `out`. Commands before a
/// decode error are written; the error is returned (not written) so the caller can report it
/// on stderr.
pub fn write_listing(
    stream: &[u8],
    arch: Arch,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<Option<DecodeError>> {
    if format == Format::Text {
        writeln!(out, "Register command stream: {} words", stream.len() / 4)?;
        writeln!(
            out,
            "  {:6}: {:8}{:4} {:4} - {:30} {:5}",
            "Offset", "Payload", "Param", "Code", "Command", "Param, Fields"
        )?;
    }
    for cmd in decode_for(stream, arch) {
        let cmd = match cmd {
            Ok(c) => c,
            Err(e) => return Ok(Some(e)),
        };
        match format {
            Format::Text => writeln!(out, "{}", ListingIn(&cmd, arch))?,
            Format::Json => writeln!(out, "{}", json_line(&cmd))?,
        }
    }
    Ok(None)
}

/// Report a refusal: the message on stderr and, under `--json`, one JSON line on stdout
/// (`{"file", "error": {"code", "offset", "message"}}`), as every command's `--json` does.
fn refuse(args: &Args, code: &str, offset: u64, message: &str, status: u8) -> ExitCode {
    eprintln!("{message}");
    if args.json {
        let line = serde_json::json!({
            "file": args.file.display().to_string(),
            "error": { "code": code, "offset": offset, "message": message },
        });
        if let Err(e) = npuschema_cli::io::print(format!("{line}\n")) {
            return npuschema_cli::io::stdout_error("disasm", &e, ExitCode::from(status));
        }
    }
    ExitCode::from(status)
}

/// Run `npuschema disasm`.
pub fn run(args: Args) -> ExitCode {
    if args.raw_stream {
        return match npuschema_cli::io::read_all(&args.file, npuschema_cli::io::max_input_bytes()) {
            Ok(bytes) => disasm_stream(&bytes, &args),
            Err(e) => refuse(
                &args,
                e.code(),
                0,
                &format!(
                    "npuschema disasm: {}: {e}",
                    npuschema_cli::io::line_path(&args.file)
                ),
                2,
            ),
        };
    }
    let bytes = match npuschema_cli::format::load_npu1(&args.file, "disasm") {
        Ok(b) => b,
        Err((status, code, msg)) => return refuse(&args, code, 0, &msg, status),
    };
    match npuschema_generated::npu1::Npu1::validate(&bytes) {
        Ok(v) => disasm_stream(v.cmd_stream(), &args),
        Err(e) => refuse(
            &args,
            e.code,
            e.offset,
            &format!(
                "npuschema disasm: {}: {e}",
                npuschema_cli::io::line_path(&args.file)
            ),
            1,
        ),
    }
}

/// The listing of a stream already read, to stdout; exit 1 on a decode error.
pub fn disasm_stream(stream: &[u8], args: &Args) -> ExitCode {
    let format = if args.json {
        Format::Json
    } else {
        Format::Text
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = write_listing(stream, args.arch.arch, format, &mut out)
        .and_then(|e| out.flush().map(|()| e));
    match result {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(e)) => refuse(
            args,
            e.code,
            u64::from(e.offset),
            &format!(
                "npuschema disasm: {}: {e}",
                npuschema_cli::io::line_path(&args.file)
            ),
            1,
        ),
        // A closed pipe (`| head`) is not an error worth reporting.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("npuschema disasm: writing output: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn stream(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn json_lines() {
        let s = stream(&[0x0001_010F, 0x0000_4000, 0x10, 0xFFFF_0000]);
        let mut out = Vec::new();
        assert_eq!(
            write_listing(&s, Arch::U55, Format::Json, &mut out).unwrap(),
            None
        );
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"offset":0,"code":271,"name":"NPU_SET_IFM_REGION","param":1,"payload":null}"#,
                r#"{"offset":4,"code":16384,"name":"NPU_SET_IFM_BASE0","param":0,"payload":16}"#,
                r#"{"offset":12,"code":0,"name":"NPU_OP_STOP","param":65535,"payload":null}"#,
            ]
        );
        for l in lines {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert!(v["offset"].is_u64() && v["code"].is_u64() && v["name"].is_string());
        }
    }

    #[test]
    fn text_listing_matches_vela_layout() {
        let s = stream(&[0x0001_010F, 0x0000_4000, 0x10]);
        let mut out = Vec::new();
        assert_eq!(
            write_listing(&s, Arch::U55, Format::Text, &mut out).unwrap(),
            None
        );
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Register command stream: 3 words");
        assert_eq!(
            lines[1],
            "  Offset: Payload Param Code - Command                        Param, Fields"
        );
        assert_eq!(
            lines[2],
            "0x000000:          0001 010f - NPU_SET_IFM_REGION                 1, region = 1"
        );
        assert_eq!(
            lines[3],
            "0x000004: 00000010 0000 4000 - NPU_SET_IFM_BASE0                  0, addr = 0x10"
        );
    }

    #[test]
    fn decode_error_is_returned_after_the_good_commands() {
        let s = stream(&[0x0001_010F, 0x0000_4020]);
        let mut out = Vec::new();
        let err = write_listing(&s, Arch::U55, Format::Json, &mut out)
            .unwrap()
            .unwrap();
        assert_eq!((err.code, err.offset), ("truncated-command", 4));
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 1);
    }
}
