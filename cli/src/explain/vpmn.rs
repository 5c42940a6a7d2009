//! The VPMN arm of `explain`.
//!
//! Version 2: the format header, the sub-header and every section directory record, each
//! byte named and decoded; the layout (the byte-ownership ledger: header, sub-header,
//! directory, each payload, alignment gaps); then the load cross-checks with their numbers,
//! the file CRC and each CHECKSUM record's CRC recorded and computed.
//!
//! Version 1: the common prefix, the version-gated fixed part and the table entries as far as
//! the generated view exposes them, the decoded I/O records, the layout, what stays opaque,
//! and the cross-checks the validator makes.
//!
//! Field values come from the generated views; section names, handling, computed CRCs, the
//! v1 record size and the layout from the host helpers in [`crate::vpmn`].

use std::fmt::Write as _;

use npuschema_generated::vpmn::{
    DYNAIO_ALIGN, SECTION_HEADER_BYTES, SUB_HEADER_BYTES, SUB_HEADER_COUNT, V1_PREFIX_BYTES,
    VERSION_V2, VpmnV1, VpmnV2,
};

use super::{Style, check_line_w, hex_rows, layout_line, offset_in, table_row_w, word_row};
use crate::vpmn::inspect::handling;
use crate::vpmn::ledger::{Class, Ledger, V1_TABLES};
use crate::vpmn::writer::DYNAIO;
use crate::vpmn::{computed_file_crc, section_crc, section_type_name, v1_io_record_bytes};

/// Width of the field column (the longest name, `sub_header_offset`, and a space).
const W: usize = 18;

/// The cross-checks, each with its verdict after a column as wide as the longest (the VPMN
/// checks name a section and its numbers, so they are wider than NPU1's).
fn emit_checks(st: Style, out: &mut String, checks: Vec<(String, bool)>) {
    let width = checks.iter().map(|c| c.0.len()).max().unwrap_or(0);
    for (expr, holds) in checks {
        check_line_w(st, out, expr, width, holds);
    }
}

/// `n` and the noun, `one` when `n` is 1, else `many`.
fn count(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn table_head(st: Style, o: &mut String) {
    let _ = writeln!(
        o,
        "  {}",
        st.dim(&format!("Bytes     Hex           {:<W$} Decoded", "Field"))
    );
}

fn strings<const N: usize>(a: [&str; N]) -> [String; N] {
    a.map(String::from)
}

fn type_name(t: u32) -> String {
    section_type_name(t).unwrap_or_else(|| format!("type {t}"))
}

fn ascii(word: u32) -> String {
    word.to_le_bytes()
        .iter()
        .map(|&c| {
            if c.is_ascii_graphic() {
                char::from(c)
            } else {
                '.'
            }
        })
        .collect()
}

fn magic_decoded(magic: u32) -> String {
    format!("{magic:#010x}: bytes read \"{}\" forwards", ascii(magic))
}

fn version_decoded(v: u32) -> String {
    if v == VERSION_V2 {
        format!("{v:#x}: version 2 (VERSION_V2): format header, sub-header, section directory")
    } else {
        format!(
            "{v:#x}: version 1 family (0x0001xxxx), revision {:#x}",
            v & 0xffff
        )
    }
}

fn hex_dec(x: u32) -> String {
    format!("{x:#x} = {x}")
}

/// Say how many of `n` items were left out past [`crate::inspect::LIST_LIMIT`].
fn not_listed(o: &mut String, n: usize, what: &str) {
    let limit = crate::inspect::list_limit();
    if n > limit {
        let _ = writeln!(
            o,
            "  ... {} more {what} not listed (at most {limit})",
            n - limit
        );
    }
}

/// The checks of `items`, `check` giving each item's (at most [`crate::inspect::LIST_LIMIT`]
/// items listed); the rest are evaluated too and summed up in one check that holds when
/// all of theirs do.
fn capped_checks<T>(
    checks: &mut Vec<(String, bool)>,
    mut items: impl Iterator<Item = T>,
    what: &str,
    mut check: impl FnMut(T, &mut Vec<(String, bool)>),
) {
    let limit = crate::inspect::list_limit();
    for item in items.by_ref().take(limit) {
        check(item, checks);
    }
    let (mut rest, mut failed) = (0u64, 0u64);
    let mut one = Vec::new();
    for item in items {
        rest += 1;
        check(item, &mut one);
        failed += one.iter().filter(|c| !c.1).count() as u64;
        one.clear();
    }
    if rest > 0 {
        checks.push((
            format!("{rest} more {what} (not listed, at most {limit}): {failed} checks fail"),
            failed == 0,
        ));
    }
}

/// The layout: every owner of the byte-ownership ledger, then its views and totals.
fn layout(st: Style, o: &mut String, bytes: &[u8]) {
    let _ = writeln!(
        o,
        "{}",
        st.heading("Layout (the byte-ownership ledger: every byte has exactly one owner)")
    );
    match Ledger::of(bytes) {
        Ok(l) => {
            let limit = crate::inspect::list_limit();
            for w in l.owners.iter().take(limit) {
                let what = format!("{:<16} {}", w.class.name(), w.what);
                let what = match w.class {
                    Class::Alignment | Class::Padding => st.dim(&what),
                    _ => what,
                };
                layout_line(o, w.start, w.end, &what);
            }
            not_listed(o, l.owners.len(), "owners");
            for v in l.views.iter().take(limit) {
                let what = format!("{:<16} {} (a view of bytes owned above)", v.kind, v.what);
                layout_line(o, v.start, v.end, &st.dim(&what));
            }
            not_listed(o, l.views.len(), "views");
            let totals: Vec<String> = l.totals().iter().map(|(k, n)| format!("{k} {n}")).collect();
            let _ = writeln!(
                o,
                "  bytes by class: {}; exclusive: {}",
                totals.join(", "),
                l.is_exclusive()
            );
        }
        Err(e) => {
            let _ = writeln!(o, "  {}", st.bad(&format!("no ledger: {e}")));
        }
    }
}

/// The explanation of a validated version 2 file.
#[allow(clippy::too_many_lines)]
pub(super) fn explain_v2(st: Style, name: &str, v: &VpmnV2<'_>) -> String {
    let bytes = v.as_bytes();
    let len = bytes.len() as u64;
    let h = v.header();
    let sub = v.sub_header();
    let n = v.sections().len();
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!(
            "{name}: VPMN version 2 file, {len} bytes, valid ({n} sections)"
        ))
    );
    let _ = writeln!(o);

    // Format header.
    let _ = writeln!(
        o,
        "{}",
        st.heading("Format header (48 bytes at offset 0, nbg_format_header_t)")
    );
    let raw = h.as_bytes();
    let cw = h.class_word();
    word_row(
        st,
        &mut o,
        0,
        &raw[..16],
        &strings(["magic", "version", "target", "crc_sum"]),
        &[
            ascii(h.magic()),
            format!("{:#x}", h.version()),
            format!("{:#x}", h.target()),
            format!("{:#010x}", h.crc_sum()),
        ],
    );
    word_row(
        st,
        &mut o,
        16,
        &raw[16..32],
        &strings(["size_low", "size_high", "subhdr_off", "subhdr_size"]),
        &[
            format!("{:#x}", h.total_size_low()),
            format!("{:#x}", h.total_size_high()),
            format!("{}", h.sub_header_offset()),
            format!("{}", h.sub_header_size()),
        ],
    );
    word_row(
        st,
        &mut o,
        32,
        &raw[32..],
        &strings(["subhdr_cnt", "class_word", "reserved2", "reserved3"]),
        &[
            format!("{}", h.sub_header_count()),
            format!("{:#x}", cw.bits()),
            format!("{:#x}", h.reserved2()),
            format!("{:#x}", h.reserved3()),
        ],
    );
    let _ = writeln!(o);
    table_head(st, &mut o);
    let rows: [(&str, String); 12] = [
        ("magic", magic_decoded(h.magic())),
        ("version", version_decoded(h.version())),
        (
            "target",
            format!(
                "{:#x}: hardware target / CID (alias product); recorded, not checked",
                h.target()
            ),
        ),
        (
            "crc_sum",
            format!(
                "{:#010x}: CRC-32 over the section payloads in directory order (checked below)",
                h.crc_sum()
            ),
        ),
        (
            "total_size_low",
            format!(
                "{}: declared file size, low word",
                hex_dec(h.total_size_low())
            ),
        ),
        (
            "total_size_high",
            format!(
                "{:#x}: high word; total_size = {} bytes (the file has {len})",
                h.total_size_high(),
                h.total_size()
            ),
        ),
        (
            "sub_header_offset",
            format!("{}: the sub-header is here", hex_dec(h.sub_header_offset())),
        ),
        (
            "sub_header_size",
            format!("{}: bytes per sub-header", h.sub_header_size()),
        ),
        (
            "sub_header_count",
            format!("{}: sub-headers (one graph per file)", h.sub_header_count()),
        ),
        (
            "class_word",
            format!(
                "{:#x}: class (bit 0) = {}, reserved1 (bits 1-31) = {:#x}",
                cw.bits(),
                cw.class(),
                cw.reserved()
            ),
        ),
        ("reserved2", format!("{:#x}: reserved", h.reserved2())),
        ("reserved3", format!("{:#x}: reserved", h.reserved3())),
    ];
    for (i, ((field, decoded), w)) in rows.iter().zip(raw.as_chunks::<4>().0).enumerate() {
        table_row_w(st, &mut o, i as u64 * 4, w, field, W, decoded);
    }
    let _ = writeln!(o);

    // Sub-header.
    let sh_at = offset_in(bytes, sub.as_bytes());
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!(
            "Sub-header (12 bytes at offset {sh_at}, nbg_sub_header_t)"
        ))
    );
    let raw = sub.as_bytes();
    word_row(
        st,
        &mut o,
        sh_at,
        raw,
        &strings(["sh_offset", "sh_size", "sh_count"]),
        &[
            format!("{}", sub.sh_offset()),
            format!("{}", sub.sh_size()),
            format!("{}", sub.sh_count()),
        ],
    );
    let _ = writeln!(o);
    table_head(st, &mut o);
    let rows: [(&str, String); 3] = [
        (
            "sh_offset",
            format!(
                "{}: the section directory starts here",
                hex_dec(sub.sh_offset())
            ),
        ),
        (
            "sh_size",
            format!("{}: bytes per directory record", sub.sh_size()),
        ),
        ("sh_count", format!("{}: directory records", sub.sh_count())),
    ];
    for (i, ((field, decoded), w)) in rows.iter().zip(raw.as_chunks::<4>().0).enumerate() {
        table_row_w(st, &mut o, sh_at + i as u64 * 4, w, field, W, decoded);
    }
    let _ = writeln!(o);

    // Section directory.
    let covered: Vec<u32> = v.checksums().map(|c| c.sd_type()).collect();
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!(
            "Section directory ({n} x {} bytes at offset {}, nbg_section_header_t)",
            sub.sh_size(),
            sub.sh_offset()
        ))
    );
    for s in v.sections().take(crate::inspect::list_limit()) {
        let at = offset_in(bytes, s.as_bytes());
        let raw = s.as_bytes();
        if s.index() > 0 {
            let _ = writeln!(o);
        }
        let t = s.sd_type().raw();
        let (off, size) = (s.offset(), s.size());
        let (align, es) = (s.sd_alignsize(), s.sd_entsize());
        let _ = writeln!(
            o,
            "  {}",
            st.heading(&format!(
                "record {} at {at}: {} ({})",
                s.index(),
                type_name(t),
                handling(t, &covered)
            ))
        );
        let hx = |x: u32| format!("{x:#x}");
        word_row(
            st,
            &mut o,
            at,
            &raw[..16],
            &strings(["sd_type", "offset_low", "offset_high", "size_low"]),
            &[
                format!("{t}"),
                hx(s.sd_offset_low()),
                hx(s.sd_offset_high()),
                hx(s.sd_size_low()),
            ],
        );
        word_row(
            st,
            &mut o,
            at + 16,
            &raw[16..32],
            &strings(["size_high", "addr_low", "addr_high", "alignsize"]),
            &[
                hx(s.sd_size_high()),
                hx(s.sd_addr_low()),
                hx(s.sd_addr_high()),
                format!("{align}"),
            ],
        );
        word_row(
            st,
            &mut o,
            at + 32,
            &raw[32..],
            &strings(["entsize", "reserved1", "reserved2"]),
            &[format!("{es}"), hx(s.reserved1()), hx(s.reserved2())],
        );
        let align_text = if align <= 1 {
            format!("{align}: no alignment")
        } else if off % u64::from(align) == 0 {
            format!(
                "{align}: payload offset {off} = {align} x {}",
                off / u64::from(align)
            )
        } else {
            format!("{align}: payload offset {off} is not a multiple (recorded, not enforced)")
        };
        let entries_text = match (es, size.checked_div(u64::from(es))) {
            (0, _) | (_, None) => format!("{es}: no entry size"),
            (1, _) => format!("1: a byte blob of {size} bytes"),
            (_, Some(k)) => format!("{es}: {} of {es} bytes", count(k, "entry", "entries")),
        };
        let rows: [(&str, String); 11] = [
            ("sd_type", format!("{t} = {}", type_name(t))),
            ("sd_offset_low", hex_dec(s.sd_offset_low())),
            (
                "sd_offset_high",
                format!("{:#x}: offset = {off} ({off:#x})", s.sd_offset_high()),
            ),
            ("sd_size_low", hex_dec(s.sd_size_low())),
            (
                "sd_size_high",
                format!(
                    "{:#x}: size = {size} bytes, payload {off}..{}",
                    s.sd_size_high(),
                    off + size
                ),
            ),
            ("sd_addr_low", format!("{:#x}", s.sd_addr_low())),
            (
                "sd_addr_high",
                format!(
                    "{:#x}: load address {:#x} (zero in serialized files)",
                    s.sd_addr_high(),
                    s.load_address()
                ),
            ),
            ("sd_alignsize", align_text),
            ("sd_entsize", entries_text),
            ("reserved1", format!("{:#x}: reserved", s.reserved1())),
            ("reserved2", format!("{:#x}: reserved", s.reserved2())),
        ];
        for (i, ((field, decoded), w)) in rows.iter().zip(raw.as_chunks::<4>().0).enumerate() {
            table_row_w(st, &mut o, at + i as u64 * 4, w, field, W, decoded);
        }
    }
    not_listed(&mut o, n, "directory records");
    let _ = writeln!(
        o,
        "  {}",
        st.dim("(npuschema inspect decodes the payload records: I/O, NETWORK_INFO, pools, DYNAIO)")
    );
    let _ = writeln!(o);

    layout(st, &mut o, bytes);
    let _ = writeln!(o);

    // Cross-checks.
    let _ = writeln!(o, "{}", st.heading("Load cross-checks"));
    let mut checks = Vec::new();
    let total = h.total_size();
    checks.push((
        format!(
            "total_size {total} (high {:#x}, low {:#x}) == file length {len}",
            h.total_size_high(),
            h.total_size_low()
        ),
        total == len,
    ));
    checks.push((
        format!(
            "sub_header_count {} == {SUB_HEADER_COUNT}",
            h.sub_header_count()
        ),
        h.sub_header_count() == SUB_HEADER_COUNT,
    ));
    checks.push((
        format!(
            "sub_header_size {} == {SUB_HEADER_BYTES}",
            h.sub_header_size()
        ),
        h.sub_header_size() == SUB_HEADER_BYTES,
    ));
    let sh_end = u64::from(h.sub_header_offset()) + u64::from(SUB_HEADER_BYTES);
    checks.push((
        format!(
            "sub_header_offset {} + {SUB_HEADER_BYTES} = {sh_end} <= file size {len}",
            h.sub_header_offset()
        ),
        sh_end <= len,
    ));
    checks.push((
        format!("sh_size {} == {SECTION_HEADER_BYTES}", sub.sh_size()),
        sub.sh_size() == SECTION_HEADER_BYTES,
    ));
    let dir_end = u64::from(sub.sh_offset()) + u64::from(sub.sh_count()) * u64::from(sub.sh_size());
    checks.push((
        format!(
            "sh_offset {} + sh_count {} * sh_size {} = {dir_end} <= file size {len}",
            sub.sh_offset(),
            sub.sh_count(),
            sub.sh_size()
        ),
        dir_end <= len,
    ));
    capped_checks(&mut checks, v.sections(), "sections", |s, checks| {
        let (off, size) = (s.offset(), s.size());
        let end = off.saturating_add(size);
        let what = format!("section[{}] {}", s.index(), type_name(s.sd_type().raw()));
        checks.push((
            format!("{what}: offset {off} + size {size} = {end} <= file size {len}"),
            end <= len,
        ));
        let es = u64::from(s.sd_entsize());
        if es > 1 {
            checks.push((
                format!("{what}: size {size} % sd_entsize {es} == 0"),
                size % es == 0,
            ));
        }
    });
    if let Some(region) = v.sections().find(|s| s.sd_type().raw() == DYNAIO) {
        let rsize = region.size();
        capped_checks(
            &mut checks,
            v.dynaio_table(),
            "DYNAIO slots",
            |e, checks| {
                let (off, size) = (u64::from(e.offset()), u64::from(e.size()));
                let end = off + size;
                checks.push((format!(
                    "DYNAIO slot {}: offset {off} % {DYNAIO_ALIGN} == 0, size {size} > 0, {off} + {size} = {end} <= region size {rsize}",
                    e.index()
                ),
                off % u64::from(DYNAIO_ALIGN) == 0 && size > 0 && end <= rsize));
            },
        );
    }
    for c in v.checksums() {
        let at = offset_in(bytes, c.as_bytes());
        let computed = section_crc(v, c.sd_type());
        let shown = computed.map_or_else(
            || "none (no such section)".to_string(),
            |x| format!("{x:#010x}"),
        );
        checks.push((
            format!(
                "CHECKSUM record {} at {at}: {} CRC-32 stored {:#010x} == computed {shown}",
                c.index(),
                type_name(c.sd_type()),
                c.checksum_value()
            ),
            computed == Some(c.checksum_value()),
        ));
    }
    let (crc, covered_bytes) = computed_file_crc(bytes);
    checks.push((format!(
            "file CRC-32 over {covered_bytes} payload bytes: recorded crc_sum {:#010x} == computed {crc:#010x}",
            h.crc_sum()
        ),
        crc == h.crc_sum()));
    emit_checks(st, &mut o, checks);
    let _ = writeln!(
        o,
        "  {}",
        st.dim("(file CRC: payloads in directory order, CHECKSUM value words as zero; header, sub-header, directory and gaps excluded)")
    );
    o
}

/// One field of the v1 fixed part: its name, size, and decoded text when present.
type FixedField = (&'static str, usize, Option<String>);

/// The explanation of a validated version 1 file.
#[allow(clippy::too_many_lines)]
pub(super) fn explain_v1(st: Style, name: &str, v: &VpmnV1<'_>) -> String {
    let bytes = v.as_bytes();
    let len = bytes.len() as u64;
    let h = v.header();
    let f = v.fixed();
    let version = h.version();
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!(
            "{name}: VPMN version 1 file ({version:#x}), {len} bytes, valid"
        ))
    );
    let _ = writeln!(o);

    // Common prefix.
    let prefix = u64::from(V1_PREFIX_BYTES);
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!(
            "Common prefix ({prefix} bytes at offset 0, every 0x0001xxxx)"
        ))
    );
    let raw = h.as_bytes();
    word_row(
        st,
        &mut o,
        0,
        &raw[..16],
        &strings(["magic", "version", "target", "network_name"]),
        &[
            ascii(h.magic()),
            format!("{version:#x}"),
            format!("{:#x}", h.target()),
            "(64 bytes)".to_string(),
        ],
    );
    hex_rows(st, &mut o, 16, &raw[16..]);
    let _ = writeln!(o);
    table_head(st, &mut o);
    let net = String::from_utf8_lossy(h.network_name());
    let rows: [(u64, usize, &str, String); 8] = [
        (0, 4, "magic", magic_decoded(h.magic())),
        (4, 4, "version", version_decoded(version)),
        (
            8,
            4,
            "target",
            format!("{:#x}: hardware target; recorded, not checked", h.target()),
        ),
        (
            12,
            64,
            "network_name",
            format!("\"{net}\" (64-byte NUL-padded string)"),
        ),
        (76, 4, "layer_count", format!("{}", h.layer_count())),
        (80, 4, "operation_count", format!("{}", h.operation_count())),
        (
            84,
            4,
            "input_count",
            format!("{}: must equal the input table's records", h.input_count()),
        ),
        (
            88,
            4,
            "output_count",
            format!(
                "{}: must equal the output table's records",
                h.output_count()
            ),
        ),
    ];
    for (at, size, field, decoded) in &rows {
        let b = raw
            .get(*at as usize..*at as usize + size)
            .unwrap_or_default();
        table_row_w(st, &mut o, *at, b, field, W, decoded);
    }
    let _ = writeln!(o);

    // Fixed part.
    let fixed = f.as_bytes();
    let fixed_len = fixed.len() as u64;
    let presence = |p: bool, from: &str| {
        if p {
            format!("present (from {from})")
        } else {
            format!("absent (before {from})")
        }
    };
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!(
            "Fixed part ({fixed_len} bytes at offset {prefix}; layout for {version:#x}: feature database {}, VIP SRAM pair {})",
            presence(f.feature_bits().is_some(), "0x00010003"),
            presence(f.vip_sram_size().is_some(), "0x00010008"),
        ))
    );
    hex_rows(st, &mut o, prefix, fixed);
    let _ = writeln!(o);
    table_head(st, &mut o);
    let nonzero = |b: &[u8]| b.iter().filter(|&&x| x != 0).count();
    let fields: [FixedField; 14] = [
        (
            "feature_bits",
            4,
            f.feature_bits().map(|b| {
                format!(
                    "{:#x}: hi_reorder_fix {}, ocb_counter {}, nn_command_size {}, change_ppu_param {}, unmapped bits {:#x}",
                    b.bits(),
                    b.hi_reorder_fix(),
                    b.ocb_counter(),
                    b.nn_command_size(),
                    b.change_ppu_param(),
                    b.reserved()
                )
            }),
        ),
        (
            "num_pixel_pipes",
            4,
            f.num_pixel_pipes().map(|x| format!("{x}")),
        ),
        ("core_count", 1, f.core_count().map(|x| format!("{x}"))),
        (
            "feature_reserved",
            7,
            f.feature_reserved().map(|b| {
                format!(
                    "OPAQUE: 7 bytes no public reader maps ({} nonzero)",
                    nonzero(b)
                )
            }),
        ),
        (
            "feature_word4",
            4,
            f.feature_word4().map(|b| {
                format!(
                    "OPAQUE: 4 bytes no public reader maps before 0x00010016 ({} nonzero)",
                    nonzero(b)
                )
            }),
        ),
        (
            "nbg_crc_sum",
            4,
            f.nbg_crc_sum().map(|x| {
                format!(
                    "{x:#010x}: recorded, not checked (from 0x00010016; its rule differs between producers)"
                )
            }),
        ),
        (
            "feature_rest",
            236,
            f.feature_rest().map(|b| {
                format!(
                    "OPAQUE: rest of the 256-byte feature database, 236 bytes no public reader maps ({} nonzero)",
                    nonzero(b)
                )
            }),
        ),
        (
            "pool_size",
            4,
            Some(format!("{}: memory pool bytes", hex_dec(f.pool_size()))),
        ),
        (
            "pool_alignment",
            4,
            Some(format!("{}: memory pool alignment", hex_dec(f.pool_alignment()))),
        ),
        (
            "pool_base",
            4,
            Some(format!("{:#x}: memory pool base", f.pool_base())),
        ),
        (
            "axi_sram_base",
            4,
            Some(format!("{:#x}: AXI SRAM base", f.axi_sram_base())),
        ),
        (
            "axi_sram_size",
            4,
            Some(format!("{}: AXI SRAM bytes", hex_dec(f.axi_sram_size()))),
        ),
        (
            "vip_sram_base",
            4,
            f.vip_sram_base().map(|x| format!("{x:#x}: VIP SRAM base")),
        ),
        (
            "vip_sram_size",
            4,
            f.vip_sram_size()
                .map(|x| format!("{}: VIP SRAM bytes", hex_dec(x))),
        ),
    ];
    let mut pos = 0usize;
    let mut absent = Vec::new();
    let mut opaque_fields = Vec::new();
    for (field, size, decoded) in &fields {
        let Some(decoded) = decoded else {
            absent.push(*field);
            continue;
        };
        let at = prefix + pos as u64;
        let b = fixed.get(pos..pos + size).unwrap_or_default();
        table_row_w(st, &mut o, at, b, field, W, decoded);
        if decoded.starts_with("OPAQUE") {
            opaque_fields.push((*field, at, *size));
        }
        pos += size;
    }
    if !absent.is_empty() {
        let _ = writeln!(o, "  not in this version's layout: {}", absent.join(", "));
    }
    if pos != fixed.len() {
        let _ = writeln!(
            o,
            "  {}",
            st.bad(&format!(
                "the fields above cover {pos} of the fixed part's {} bytes",
                fixed.len()
            ))
        );
    }
    let _ = writeln!(o);

    // Table entries.
    let entries: Vec<_> = v.entries().collect();
    let e_at = prefix + fixed_len;
    let e_end = e_at + 8 * entries.len() as u64;
    let io = v1_io_record_bytes(version);
    let io_decoded = version >= 0x0001_000B;
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!(
            "Table entries ({} x 8 bytes at offset {e_at}: {{offset, size}} locating each table)",
            entries.len()
        ))
    );
    hex_rows(
        st,
        &mut o,
        e_at,
        bytes.get(e_at as usize..e_end as usize).unwrap_or_default(),
    );
    let _ = writeln!(o);
    table_head(st, &mut o);
    for e in &entries {
        let k = e.index() as usize;
        let at = offset_in(bytes, e.as_bytes());
        let raw = e.as_bytes();
        let table = V1_TABLES.get(k).copied().unwrap_or("unmapped");
        let _ = writeln!(o, "  {}", st.heading(&format!("entry {k}: {table}")));
        table_row_w(st, &mut o, at, &raw[..4], "offset", W, &hex_dec(e.offset()));
        let size_text = if k < 2 {
            format!(
                "{} bytes = {} of {io} bytes{}",
                e.size(),
                count(u64::from(e.size() / io), "I/O record", "I/O records"),
                if io_decoded {
                    ""
                } else {
                    " (sized, not decoded before 0x0001000B)"
                }
            )
        } else if e.size() == 0 {
            "0: empty".to_string()
        } else {
            format!(
                "{} bytes, ending at {}: bounds-checked and fingerprinted, not decoded (opaque)",
                e.size(),
                u64::from(e.offset()) + u64::from(e.size())
            )
        };
        table_row_w(st, &mut o, at + 4, &raw[4..], "size", W, &size_text);
    }
    let ledger = Ledger::of(bytes).ok();
    let extension = ledger.as_ref().and_then(|l| {
        l.owners
            .iter()
            .find(|w| w.what == "v1-opaque-fixed-extension")
            .map(|w| (w.start, w.end))
    });
    if let Some((s, e)) = extension {
        let _ = writeln!(
            o,
            "  {}",
            st.heading(&format!(
                "bytes {s}..{e} ({} bytes) after the entries, before the first table: OPAQUE",
                e - s
            ))
        );
        let _ = writeln!(
            o,
            "  later versions' further entries, which no public reader maps to file positions:"
        );
        hex_rows(
            st,
            &mut o,
            s,
            bytes.get(s as usize..e as usize).unwrap_or_default(),
        );
    }
    let _ = writeln!(o);

    // I/O records.
    let _ = writeln!(
        o,
        "{}",
        st.heading(&format!("I/O records ({io} bytes each)"))
    );
    if io_decoded {
        let upper = |n: Option<&str>| n.map_or_else(|| "unknown".to_string(), str::to_uppercase);
        let inputs: Box<dyn Iterator<Item = _>> = Box::new(v.inputs());
        let outputs: Box<dyn Iterator<Item = _>> = Box::new(v.outputs());
        for (kind, n, recs) in [
            ("input", v.inputs().len(), inputs),
            ("output", v.outputs().len(), outputs),
        ] {
            for r in recs.take(crate::inspect::list_limit()) {
                let dims = r.dim_size();
                let dn = (r.dim_count() as usize).min(dims.len());
                let _ = writeln!(
                    o,
                    "  {kind}[{}] at {}: \"{}\" dims {:?} {} {} quant {}",
                    r.index(),
                    offset_in(bytes, r.as_bytes()),
                    String::from_utf8_lossy(r.name()),
                    dims.get(..dn).unwrap_or_default(),
                    upper(r.data_format().name()),
                    upper(r.data_type().name()),
                    upper(r.quant_format().name())
                );
            }
            not_listed(&mut o, n, &format!("{kind} records"));
        }
    } else {
        let _ = writeln!(
            o,
            "  records of this version are sized ({io} bytes), not decoded: only the layout from 0x0001000B is"
        );
    }
    let _ = writeln!(o);

    layout(st, &mut o, bytes);
    let _ = writeln!(o);

    // What stays opaque.
    let _ = writeln!(o, "{}", st.heading("What stays opaque"));
    for (field, at, size) in &opaque_fields {
        let _ = writeln!(
            o,
            "  fixed part {field}: {size} bytes at {at}, feature database words no public reader maps"
        );
    }
    if let Some(l) = &ledger {
        for w in l
            .owners
            .iter()
            .filter(|w| w.class == Class::PreservedOpaque)
        {
            let _ = writeln!(
                o,
                "  {}: {} bytes at {}, preserved and fingerprinted, not decoded",
                w.what,
                w.end - w.start,
                w.start
            );
        }
    }
    let _ = writeln!(
        o,
        "  nbg_crc_sum: recorded only; version 1 has no checked file checksum"
    );
    let _ = writeln!(o);

    // Cross-checks.
    let _ = writeln!(o, "{}", st.heading("Load cross-checks"));
    let mut checks = Vec::new();
    let fixed_end = prefix + fixed_len;
    checks.push((
        format!("prefix {prefix} + fixed part {fixed_len} = {fixed_end} <= file size {len}"),
        fixed_end <= len,
    ));
    checks.push((
        format!(
            "entries {fixed_end} + {} * 8 = {e_end} <= file size {len}",
            entries.len()
        ),
        e_end <= len,
    ));
    for e in &entries {
        let k = e.index() as usize;
        let end = u64::from(e.offset()) + u64::from(e.size());
        checks.push((
            format!(
                "entry {k} {}: offset {} + size {} = {end} <= file size {len}",
                V1_TABLES.get(k).copied().unwrap_or("unmapped"),
                e.offset(),
                e.size()
            ),
            end <= len,
        ));
    }
    for (k, declared, what) in [
        (0, h.input_count(), "input"),
        (1, h.output_count(), "output"),
    ] {
        let size = entries.get(k).map_or(0, |e| e.size());
        checks.push((
            format!("{what} table size {size} % I/O record size {io} == 0"),
            size % io == 0,
        ));
        checks.push((
            format!(
                "{what}_count {declared} == {what} table size {size} / {io} = {}",
                size / io
            ),
            declared == size / io,
        ));
    }
    emit_checks(st, &mut o, checks);
    o
}
