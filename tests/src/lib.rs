//! Integration and trybuild tests live in tests/.

/// The binrw reference readers (crate `npuschema-refreader`, in `tests/refreader/`).
pub use npuschema_refreader as refreader;

pub mod compare;
pub mod construct_blobs;
pub mod nested_blobs;
pub mod npu1_blobs;
pub mod opendir_blobs;
pub mod vela;

/// The real files of this machine that the public-format tests and benches read: regular
/// files (symbolic links are not followed) under `roots` whose extension is one of `exts`
/// (any case; every file when `exts` is empty) and whose size is below `below` bytes, each once, in path order, at most
/// `max`. A root that is not there contributes nothing.
#[must_use]
pub fn real_files(
    roots: &[std::path::PathBuf],
    exts: &[&str],
    below: u64,
    max: usize,
) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<std::path::PathBuf> = roots.to_vec();
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for p in rd.flatten().map(|e| e.path()) {
            let Ok(md) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if md.is_dir() {
                stack.push(p);
            } else if md.is_file()
                && md.len() < below
                && (exts.is_empty()
                    || p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x))))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out.dedup();
    out.truncate(max);
    out
}

/// The schema interpreter of `schema` (a path relative to `tests/`), loaded once per test
/// binary and kept for its life.
///
/// # Panics
/// When the schema does not load (its diagnostics).
#[must_use]
pub fn interp(schema: &'static str) -> &'static npuschema_codegen::interp::Interp<'static> {
    use npuschema_codegen::interp::Interp;
    type Cache = std::sync::Mutex<Vec<(&'static str, &'static Interp<'static>)>>;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let mut g = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, i)) = g.iter().find(|(s, _)| *s == schema) {
        return i;
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(schema);
    let c = npuschema_codegen::load(&path).unwrap_or_else(|d| panic!("{d}"));
    let c: &'static npuschema_codegen::Checked = Box::leak(Box::new(c));
    let i: &'static Interp<'static> = Box::leak(Box::new(Interp::new(c)));
    g.push((schema, i));
    i
}

/// The capture `good` (one `pcap-file` reads) written again by `pcap-file`'s writer,
/// big-endian when `big`, with nanosecond timestamps when `nanos`, packet for packet (raw
/// packets: a microsecond fraction is exact in nanoseconds; nanoseconds written to a
/// microsecond file lose their last three digits). `None` when `pcap-file` cannot read or
/// write it.
#[must_use]
pub fn pcap_rewritten(good: &[u8], big: bool, nanos: bool) -> Option<Vec<u8>> {
    use pcap_file::pcap::{PcapHeader, PcapParser, PcapWriter, RawPcapPacket};
    use pcap_file::{Endianness, TsResolution};
    let (mut rest, parser) = PcapParser::new(good).ok()?;
    let h = parser.header();
    let r = if nanos {
        TsResolution::NanoSecond
    } else {
        TsResolution::MicroSecond
    };
    let header = PcapHeader {
        endianness: if big {
            Endianness::Big
        } else {
            Endianness::Little
        },
        ts_resolution: r,
        ..h
    };
    let mut w = PcapWriter::with_header(Vec::new(), header).ok()?;
    while !rest.is_empty() {
        let (next, raw) = parser.next_raw_packet(rest).ok()?;
        let frac = match (h.ts_resolution, r) {
            (TsResolution::MicroSecond, TsResolution::NanoSecond) => {
                raw.ts_frac.checked_mul(1000)?
            }
            (TsResolution::NanoSecond, TsResolution::MicroSecond) => raw.ts_frac / 1000,
            _ => raw.ts_frac,
        };
        w.write_raw_packet(&RawPcapPacket {
            ts_frac: frac,
            ..raw
        })
        .ok()?;
        rest = next;
    }
    Some(w.into_writer())
}

/// Run both engines on `b` with the generated result `g` and Brief `gb`; panic on any
/// disagreement; on success `fields` compares the views. Returns the verdict's code (`ok`).
/// `schema` is a path relative to `tests/`, as for [`interp`].
///
/// # Panics
/// When the engines disagree.
pub fn agree_with<V>(
    schema: &'static str,
    b: &[u8],
    g: Result<V, npuschema_core::Error>,
    gb: Result<(), u16>,
    fields: impl FnOnce(&V, &npuschema_codegen::interp::View),
) -> &'static str {
    let it = interp(schema);
    assert_eq!(
        gb,
        it.check::<npuschema_core::Brief>(b).map_err(|e| e.id()),
        "{schema}: Brief on {b:02x?}"
    );
    match (g, it.validate(b)) {
        (Err(ge), Err(ie)) => {
            assert_eq!(
                ge, ie,
                "{schema}: generated `{ge}`, interpreter `{ie}` on {b:02x?}"
            );
            ge.code
        }
        (Ok(g), Ok(v)) => {
            fields(&g, &v);
            "ok"
        }
        (g, i) => panic!(
            "{schema}: verdicts differ: {:?} / {:?} on {b:02x?}",
            g.map(|_| ()),
            i.map(|_| ())
        ),
    }
}
