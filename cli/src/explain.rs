//! `npuschema explain FILE`: an annotated hexdump of a container, in the manner of section 6
//! of the NPU1 document: the header bytes with every field named and decoded, the region
//! table likewise, then the layout (which byte range is what) and the load cross-checks with
//! their numbers.
//!
//! Field values come only from the generated validated views (`npuschema_generated::npu1`,
//! `npuschema_generated::vpmn`); the raw bytes shown are the views' own `as_bytes()` slices.
//! A file that does not validate is not decoded: the validator's error is shown with the
//! bytes around its offset.
//!
//! Formats are told apart by their magic ([`Format`], from [`crate::format::detect`]): NPU1
//! here, VPMN (both families) in the `vpmn` submodule.
//!
//! Colour when stdout is a terminal (and `NO_COLOR` is unset), plain when piped.
//!
//! Host code: offsets are header and descriptor `u32` values widened to `u64`, so the few
//! sums below cannot overflow.
#![allow(clippy::arithmetic_side_effects)]

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use npuschema_generated::npu1::{self, Accel, Npu1, RegionFlags, Role};
use npuschema_generated::vpmn::Vpmn;

mod vpmn;

/// Arguments of `npuschema explain`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The container to explain (.npub, .nb).
    pub file: PathBuf,
    /// Colour: auto (when stdout is a terminal and NO_COLOR is unset), always or never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub color: String,
}

/// ANSI styling, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Emit ANSI colour codes.
    pub color: bool,
}

impl Style {
    /// No colour.
    pub const PLAIN: Self = Self { color: false };

    fn paint(self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn heading(self, s: &str) -> String {
        self.paint("1", s)
    }
    fn field(self, s: &str) -> String {
        self.paint("36", s)
    }
    fn value(self, s: &str) -> String {
        self.paint("33", s)
    }
    fn dim(self, s: &str) -> String {
        self.paint("2", s)
    }
    fn ok(self, s: &str) -> String {
        self.paint("32", s)
    }
    fn bad(self, s: &str) -> String {
        self.paint("1;31", s)
    }
}

/// The container formats `explain` recognises, by magic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// NPU1 (`.npub`), magic "NPU1".
    Npu1,
    /// VPMN (`.nb`, versions 2 and 1), magic "VPMN".
    Vpmn,
}

impl Format {
    /// The format whose magic `bytes` starts with ([`crate::format::detect`]).
    #[must_use]
    pub fn detect(bytes: &[u8]) -> Option<Self> {
        match crate::format::detect(bytes)? {
            crate::format::Format::Npu1 => Some(Self::Npu1),
            crate::format::Format::Vpmn => Some(Self::Vpmn),
        }
    }
}

/// Why a file cannot be explained.
#[derive(Debug)]
pub enum ExplainError {
    /// Not a format `explain` knows.
    UnknownFormat,
    /// The format's validator rejected it; the text shows the error and the bytes around it.
    Invalid(String),
}

/// One line of hexdump: offset, 16 bytes (or fewer), ASCII column.
fn hex_row(st: Style, offset: u64, bytes: &[u8]) -> String {
    let mut hex = String::new();
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            hex.push(' ');
        }
        let _ = write!(hex, "{b:02X}");
    }
    let ascii: String = bytes
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                char::from(b)
            } else {
                '.'
            }
        })
        .collect();
    format!("{}  {hex:<47}  |{ascii}|", st.dim(&format!("{offset:08x}")))
}

/// A row of up to 16 bytes (up to four words) with carets and a label under each word.
fn word_row(
    st: Style,
    out: &mut String,
    offset: u64,
    bytes: &[u8],
    labels: &[String],
    values: &[String],
) {
    let _ = writeln!(out, "{}", hex_row(st, offset, bytes));
    let carets = vec!["^^^^^^^^^^^"; labels.len()].join(" ");
    let _ = writeln!(out, "          {}", st.dim(&carets));
    let pad = |s: &String| format!("{s:<11}");
    let names: Vec<String> = labels.iter().map(|l| st.field(&pad(l))).collect();
    let vals: Vec<String> = values.iter().map(|v| st.value(&pad(v))).collect();
    let _ = writeln!(out, "          {}", names.join(" ").trim_end());
    let _ = writeln!(out, "          {}", vals.join(" ").trim_end());
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn role_name(r: Role) -> String {
    r.name()
        .map_or_else(|| format!("unknown ({})", r.raw()), str::to_string)
}

fn accel_text(a: Accel) -> String {
    match a {
        Accel::Unspecified => "unspecified".to_string(),
        Accel::Unknown(v) => format!("unknown value {v}"),
        other => format!(
            "{} = ethos-u55-{} ({} MACs/cycle)",
            other.raw(),
            other.raw(),
            other.raw()
        ),
    }
}

fn flags_text(f: RegionFlags) -> String {
    let mut parts = Vec::new();
    if f.contains(RegionFlags::BAKED) {
        parts.push("BAKED".to_string());
    } else {
        parts.push("RUNTIME".to_string());
    }
    if f.unknown_bits() != 0 {
        parts.push(format!("unknown bits {:#x}", f.unknown_bits()));
    }
    parts.join(", ")
}

/// A row of the "bytes / hex / field / decoded" tables.
fn table_row(st: Style, out: &mut String, at: u64, raw: &[u8], field: &str, decoded: &str) {
    table_row_w(st, out, at, raw, field, 14, decoded);
}

/// [`table_row`] with a field column `width` wide; fields longer than four bytes show their
/// first four bytes and `..` (the hexdump above the table has them all).
fn table_row_w(
    st: Style,
    out: &mut String,
    at: u64,
    raw: &[u8],
    field: &str,
    width: usize,
    decoded: &str,
) {
    let end = at + (raw.len() as u64).max(1) - 1;
    let hex = match raw.get(..4) {
        Some(head) if raw.len() > 4 => format!("{} ..", hex_bytes(head)),
        _ => hex_bytes(raw),
    };
    let _ = writeln!(
        out,
        "  {:<9} {:<13} {} {}",
        format!("{at}-{end}"),
        hex,
        st.field(&format!("{field:<width$}")),
        decoded
    );
}

/// Where `part` (a view's `as_bytes()` slice, borrowed from `buf`) starts inside `buf`.
fn offset_in(buf: &[u8], part: &[u8]) -> u64 {
    part.as_ptr().addr().wrapping_sub(buf.as_ptr().addr()) as u64
}

/// Hexdump rows of `raw`, which starts at file offset `at`.
fn hex_rows(st: Style, out: &mut String, at: u64, raw: &[u8]) {
    for (k, chunk) in raw.chunks(16).enumerate() {
        let _ = writeln!(out, "{}", hex_row(st, at + 16 * k as u64, chunk));
    }
}

/// One `start .. end  size bytes  what` line of a layout.
fn layout_line(out: &mut String, start: u64, end: u64, what: &str) {
    let _ = writeln!(
        out,
        "  {start:#08x} .. {end:#08x}  {:>8} bytes  {what}",
        end - start
    );
}

fn check_line(st: Style, out: &mut String, expr: String, holds: bool) {
    check_line_w(st, out, expr, 64, holds);
}

/// [`check_line`] with the verdict after a column `width` wide.
fn check_line_w(st: Style, out: &mut String, expr: String, width: usize, holds: bool) {
    let verdict = if holds { st.ok("ok") } else { st.bad("FAILS") };
    let _ = writeln!(out, "  {expr:<width$} {verdict}");
}

/// The explanation of a validated NPU1 blob.
fn explain_npu1(st: Style, name: &str, blob: &Npu1<'_>) -> String {
    let bytes = blob.as_bytes();
    let h = blob.header();
    let total = u64::from(h.total_bytes());
    let n = u64::from(h.region_count());
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!("{name}: NPU1 blob, {} bytes, valid", bytes.len()))
    );
    let _ = writeln!(o);

    // Header.
    let _ = writeln!(o, "{}", st.heading("Header (32 bytes at offset 0)"));
    let raw = h.as_bytes();
    word_row(
        st,
        &mut o,
        0,
        &raw[..16],
        &["magic", "version", "total_bytes", "region_count"].map(String::from),
        &[
            "NPU1".to_string(),
            format!("{}", h.version()),
            format!("{:#x}", h.total_bytes()),
            format!("{}", h.region_count()),
        ],
    );
    word_row(
        st,
        &mut o,
        16,
        &raw[16..],
        &["cmd_offset", "cmd_bytes", "accel", "checksum"].map(String::from),
        &[
            format!("{:#x}", h.cmd_offset()),
            format!("{:#x}", h.cmd_bytes()),
            format!("{}", h.accel().raw()),
            format!("{:#010x}", h.checksum()),
        ],
    );
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "  {}",
        st.dim("Bytes     Hex           Field          Decoded")
    );
    let words = raw.as_chunks::<4>().0;
    let fnv = npuschema_core::fnv1a32(
        npuschema_core::FNV1A32_OFFSET_BASIS,
        bytes.get(32..).unwrap_or(&[]),
    );
    let rows: [(&str, String); 8] = [
        (
            "magic",
            format!("{:#010x}: bytes read \"NPU1\" forwards", h.magic()),
        ),
        ("version", format!("{}", h.version())),
        (
            "total_bytes",
            format!(
                "{:#x} = {} bytes (the file has {})",
                h.total_bytes(),
                h.total_bytes(),
                bytes.len()
            ),
        ),
        ("region_count", format!("{}", h.region_count())),
        (
            "cmd_offset",
            format!("{:#x} = {}", h.cmd_offset(), h.cmd_offset()),
        ),
        (
            "cmd_bytes",
            format!(
                "{:#x} = {} ({} words)",
                h.cmd_bytes(),
                h.cmd_bytes(),
                h.cmd_bytes() / 4
            ),
        ),
        (
            "accel",
            format!("{} (informational)", accel_text(h.accel())),
        ),
        (
            "checksum",
            format!("{:#010x}: FNV-1a over bytes 32..{total}", h.checksum()),
        ),
    ];
    for (i, ((field, decoded), w)) in rows.iter().zip(words).enumerate() {
        table_row(st, &mut o, i as u64 * 4, w, field, decoded);
    }
    let _ = writeln!(o);

    // Version 2's header extension, right after the header.
    let ext = blob.ext();
    let tab = 32 + ext.as_bytes().len() as u64;
    if let (Some(cfg), Some(id), Some(ioc), Some(ioo)) = (
        ext.npu_config(),
        ext.npu_id(),
        ext.io_count(),
        ext.io_offset(),
    ) {
        let _ = writeln!(
            o,
            "{}",
            st.heading("Header extension (version 2, 16 bytes at offset 32)")
        );
        word_row(
            st,
            &mut o,
            32,
            ext.as_bytes(),
            &["npu_config", "npu_id", "io_count", "io_offset"].map(String::from),
            &[
                format!("{cfg:#x}"),
                format!("{id:#x}"),
                format!("{ioc}"),
                format!("{ioo:#x}"),
            ],
        );
        // Decoded by the driver's own register types, which the run checks them with.
        let (c, i) = (
            npuschema_runtime::driver::Config(cfg),
            npuschema_runtime::driver::Id(id),
        );
        let _ = writeln!(
            o,
            "  npu_config {cfg:#010x}: {} MACs/cycle, command stream v{}, product {} (the NPU's CONFIG register the stream was compiled for; 0 = unknown)",
            c.macs(),
            c.cmd_stream_version(),
            c.product()
        );
        let _ = writeln!(
            o,
            "  npu_id     {id:#010x}: architecture {}.{}.{}, product major {} (the NPU's ID register)",
            i.arch_major(),
            i.arch_minor(),
            i.arch_patch(),
            i.product_major()
        );
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "{}",
            st.heading(&format!(
                "I/O tensors ({ioc} x 60 bytes at offset {ioo:#x}; sorted by name)"
            ))
        );
        for t in crate::inspect::npu1_io_json(blob) {
            let _ = writeln!(
                o,
                "  {:<6} {}  {:<32} region {} offset {:#x} size {} {} shape {}",
                t["direction"].as_str().unwrap_or("?"),
                t["index"],
                t["name"].as_str().unwrap_or("?"),
                t["region"],
                t["offset"].as_u64().unwrap_or(0),
                t["size"],
                t["dtype"].as_str().unwrap_or("?"),
                t["shape"]
            );
        }
        let _ = writeln!(o);
    }

    // Region table.
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!(
            "Region table ({n} x 16 bytes at offset {tab}; index = BASEP slot)"
        ))
    );
    let over = n > crate::inspect::LIST_LIMIT;
    for r in blob.regions().take(crate::inspect::list_limit()) {
        let at = tab + u64::from(r.index()) * 16;
        let baked = r.flags().contains(RegionFlags::BAKED);
        word_row(
            st,
            &mut o,
            at,
            r.as_bytes(),
            &["role", "flags", "size", "data_offset"].map(String::from),
            &[
                role_name(r.role()),
                if baked {
                    "BAKED".to_string()
                } else {
                    "RUNTIME".to_string()
                },
                format!("{:#x}", r.size()),
                if baked {
                    format!("{:#x}", r.data_offset())
                } else {
                    "unused".to_string()
                },
            ],
        );
    }
    if over {
        let _ = writeln!(
            o,
            "  ... {} more regions not listed (at most {})",
            n - crate::inspect::LIST_LIMIT,
            crate::inspect::LIST_LIMIT
        );
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "  {}",
        st.dim("Bytes     Hex           Field          Decoded")
    );
    for r in blob.regions().take(crate::inspect::list_limit()) {
        let at = tab + u64::from(r.index()) * 16;
        let raw = r.as_bytes();
        let baked = r.flags().contains(RegionFlags::BAKED);
        let _ = writeln!(
            o,
            "  {}",
            st.heading(&format!("region {} (BASEP{})", r.index(), r.index()))
        );
        table_row(
            st,
            &mut o,
            at,
            &raw[0..4],
            "role",
            &format!("{} = {}", r.role().raw(), role_name(r.role())),
        );
        table_row(
            st,
            &mut o,
            at + 4,
            &raw[4..8],
            "flags",
            &format!("{:#x} = {}", r.flags().bits(), flags_text(r.flags())),
        );
        table_row(
            st,
            &mut o,
            at + 8,
            &raw[8..12],
            "size",
            &format!("{:#x} = {} bytes", r.size(), r.size()),
        );
        let off = if baked {
            format!(
                "{:#x} = {}: the bytes are in the blob, used in place",
                r.data_offset(),
                r.data_offset()
            )
        } else {
            format!(
                "{:#x}: unused, the region is carved from the caller's arena",
                r.data_offset()
            )
        };
        table_row(st, &mut o, at + 12, &raw[12..16], "data_offset", &off);
    }
    let _ = writeln!(o);

    // Layout.
    let _ = writeln!(o, "{}", st.heading("Layout"));
    let mut ranges: Vec<(u64, u64, String)> = vec![
        (0, 32, "header".to_string()),
        (tab, tab + n * 16, format!("region table, {n} x 16")),
        (
            u64::from(h.cmd_offset()),
            u64::from(h.cmd_offset()) + u64::from(h.cmd_bytes()),
            format!(
                "command stream, {} words (npuschema disasm lists it)",
                h.cmd_bytes() / 4
            ),
        ),
    ];
    for r in blob
        .regions()
        .take(crate::inspect::list_limit())
        .filter(|r| r.flags().contains(RegionFlags::BAKED))
    {
        let start = u64::from(r.data_offset());
        ranges.push((
            start,
            start + u64::from(r.size()),
            format!("region {} data ({})", r.index(), role_name(r.role())),
        ));
    }
    if tab > 32 {
        ranges.push((32, tab, "header extension (version 2)".to_string()));
    }
    if let (Some(ioc), Some(ioo)) = (ext.io_count(), ext.io_offset()) {
        let start = u64::from(ioo);
        ranges.push((
            start,
            start + u64::from(ioc) * 60,
            format!("I/O tensor table, {ioc} x 60"),
        ));
    }
    for t in blob.io() {
        let start = u64::from(t.name_offset());
        ranges.push((
            start,
            start + blob.name(&t).len() as u64 + 1,
            format!("tensor {} name", t.index()),
        ));
    }
    ranges.sort();
    if over {
        // The regions past the limit are not in `ranges`: their bytes would show as
        // padding, so only the first regions' spans are listed, and the layout says so.
        let _ = writeln!(
            o,
            "  (regions past the first {} are left out of the layout)",
            crate::inspect::LIST_LIMIT
        );
    }
    let mut cursor = 0u64;
    for (start, end, what) in &ranges {
        if *start > cursor {
            let _ = writeln!(
                o,
                "  {:#08x} .. {:#08x}  {:>8} bytes  {}",
                cursor,
                start,
                start - cursor,
                st.dim("padding")
            );
        }
        let _ = writeln!(
            o,
            "  {start:#08x} .. {end:#08x}  {:>8} bytes  {what}",
            end - start
        );
        cursor = cursor.max(*end);
    }
    if cursor < total {
        let _ = writeln!(
            o,
            "  {:#08x} .. {:#08x}  {:>8} bytes  {}",
            cursor,
            total,
            total - cursor,
            st.dim("unreferenced")
        );
    }
    let mut arena = 0u64;
    let mut runtime = Vec::new();
    for r in blob
        .regions()
        .filter(|r| !r.flags().contains(RegionFlags::BAKED))
    {
        let at = arena.div_ceil(u64::from(npu1::ARENA_ALIGN)) * u64::from(npu1::ARENA_ALIGN);
        arena = at + u64::from(r.size());
        if runtime.len() >= crate::inspect::list_limit() {
            continue;
        }
        runtime.push(format!(
            "region {} {} {} bytes at arena +{at:#x}",
            r.index(),
            role_name(r.role()),
            r.size()
        ));
    }
    if runtime.is_empty() {
        let _ = writeln!(o, "  no runtime regions: the blob needs no arena");
    } else {
        let _ = writeln!(
            o,
            "  runtime regions, from the caller's arena (each base aligned to {}):",
            npu1::ARENA_ALIGN
        );
        for line in runtime {
            let _ = writeln!(o, "    {line}");
        }
        let _ = writeln!(
            o,
            "  arena needed: {arena} bytes (from a 16-byte aligned arena base)"
        );
    }
    let _ = writeln!(o);

    // Cross-checks.
    let _ = writeln!(o, "{}", st.heading("Load cross-checks"));
    let table_end = tab + n * 16;
    check_line(
        st,
        &mut o,
        format!("total_bytes {total} == file length {}", bytes.len()),
        total == bytes.len() as u64,
    );
    check_line(
        st,
        &mut o,
        format!("{tab} + {n}*16 = {table_end} <= total {total}"),
        table_end <= total,
    );
    let cmd_end = u64::from(h.cmd_offset()) + u64::from(h.cmd_bytes());
    check_line(
        st,
        &mut o,
        format!(
            "cmd_offset {} + cmd_bytes {} = {cmd_end} <= total {total}",
            h.cmd_offset(),
            h.cmd_bytes()
        ),
        cmd_end <= total,
    );
    check_line(
        st,
        &mut o,
        format!("cmd_bytes {} > 0", h.cmd_bytes()),
        h.cmd_bytes() > 0,
    );
    for r in blob
        .regions()
        .take(crate::inspect::list_limit())
        .filter(|r| r.flags().contains(RegionFlags::BAKED))
    {
        let end = u64::from(r.data_offset()) + u64::from(r.size());
        check_line(
            st,
            &mut o,
            format!(
                "region {}: data_offset {} + size {} = {end} <= total {total}",
                r.index(),
                r.data_offset(),
                r.size()
            ),
            end <= total,
        );
    }
    check_line(
        st,
        &mut o,
        format!(
            "FNV-1a(bytes 32..{total}) = {fnv:#010x} == checksum {:#010x}",
            h.checksum()
        ),
        fnv == h.checksum(),
    );
    o
}

/// The bytes around `offset`, as hexdump rows (the row holding it and its neighbours).
fn context_rows(st: Style, bytes: &[u8], offset: u64) -> String {
    let row = offset / 16 * 16;
    let first = row.saturating_sub(16);
    let mut o = String::new();
    let mut at = first;
    while at <= row + 16 {
        let Some(chunk) = usize::try_from(at)
            .ok()
            .and_then(|a| bytes.get(a..))
            .filter(|c| !c.is_empty())
        else {
            break;
        };
        let _ = writeln!(o, "{}", hex_row(st, at, chunk.get(..16).unwrap_or(chunk)));
        at += 16;
    }
    o
}

/// Explain `bytes` (named `name` in the output).
///
/// # Errors
/// [`ExplainError::UnknownFormat`] for a file without a known magic;
/// [`ExplainError::Invalid`] (with the validator's error and the bytes around it) for a
/// file its format's validator rejects.
pub fn explain(bytes: &[u8], name: &str, st: Style) -> Result<String, ExplainError> {
    explain_as(Format::detect(bytes), bytes, name, st)
}

/// [`explain`] as `format` (chosen by [`crate::format::choose`]: magic, then extension).
///
/// # Errors
/// As [`explain`].
pub fn explain_as(
    format: Option<Format>,
    bytes: &[u8],
    name: &str,
    st: Style,
) -> Result<String, ExplainError> {
    match format {
        Some(Format::Npu1) => match Npu1::validate(bytes) {
            Ok(blob) => Ok(explain_npu1(st, name, &blob)),
            Err(e) => Err(ExplainError::Invalid(invalid(
                st,
                name,
                "NPU1 blob",
                bytes,
                &e,
            ))),
        },
        Some(Format::Vpmn) => match Vpmn::validate(bytes) {
            Ok(Vpmn::V2(v)) => Ok(vpmn::explain_v2(st, name, &v)),
            Ok(Vpmn::V1(v)) => Ok(vpmn::explain_v1(st, name, &v)),
            Err(e) => Err(ExplainError::Invalid(invalid(
                st,
                name,
                "VPMN file",
                bytes,
                &e,
            ))),
        },
        None => Err(ExplainError::UnknownFormat),
    }
}

/// The text for a file its validator rejects: the error, then the bytes around its offset.
fn invalid(st: Style, name: &str, what: &str, bytes: &[u8], e: &npuschema_core::Error) -> String {
    let mut o = format!("{}\n", st.bad(&format!("{name}: not a valid {what}: {e}")));
    let _ = writeln!(o, "bytes around offset {:#x}:", e.offset);
    o.push_str(&context_rows(st, bytes, e.offset));
    o
}

/// Run `npuschema explain`.
pub fn run(args: Args) -> ExitCode {
    let loaded = match crate::format::load(&args.file, None, crate::io::max_input_bytes()) {
        Ok(l) => l,
        Err(e) => {
            let code = match e {
                crate::io::InputError::Io(_) => "io-error: ",
                crate::io::InputError::TooLarge { .. } | crate::io::InputError::NoWriter => "",
            };
            eprintln!(
                "npuschema explain: {code}{}: {e}",
                crate::io::line_path(&args.file)
            );
            return ExitCode::from(2);
        }
    };
    let bytes = loaded.input.bytes();
    let format = loaded.format.map(|f| match f {
        crate::format::Format::Npu1 => Format::Npu1,
        crate::format::Format::Vpmn => Format::Vpmn,
    });
    let color = match args.color.as_str() {
        "always" => true,
        "never" => false,
        _ => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let name = crate::io::line_path(&args.file);
    match explain_as(format, bytes, &name, Style { color }) {
        Ok(text) => crate::io::print_then("explain", text, ExitCode::SUCCESS),
        Err(ExplainError::Invalid(text)) => {
            crate::io::print_then("explain", text, ExitCode::from(1))
        }
        Err(ExplainError::UnknownFormat) => {
            let head = bytes.get(..4).unwrap_or(bytes);
            eprintln!(
                "npuschema explain: unknown-format: {name}: magic {head:02x?} is not a known container (NPU1 \"NPU1\", VPMN \"VPMN\")"
            );
            ExitCode::from(1)
        }
    }
}
