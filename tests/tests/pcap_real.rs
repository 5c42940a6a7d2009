//! pcap, a public format nobody here designed (`formats/pcap.yaml`): the byte order and the
//! timestamps' resolution chosen by the magic number (one struct per part, read in the
//! file's order), the packet records as a record stream, and per record the rules the
//! `pcap-file` crate's parser holds them to. Run on the capture files of this machine
//! (`.pcap` and `.cap` under `/usr/share` and `/usr/lib`: Debian's python3-dpkt brings
//! some, `scripts/setup-formats` installs it; skipped with a message when there are none)
//! and on each accepted one rewritten by `pcap-file`'s writer in the four combinations of
//! byte order and resolution; held to `pcap-file`'s parser verdict for verdict and packet
//! for packet (timestamp, lengths, data), and to the schema interpreter error for error.
//! Then mutants of the smallest capture in each combination (every byte of the header and
//! the first records flipped, truncations, random mutants): no panic, the same verdict as
//! `pcap-file` on every mutant, and the same error (code, field, offset, detail, site)
//! from the generated code and the interpreter.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    missing_docs
)]

use std::path::PathBuf;

use npuschema_core::Brief;
use npuschema_tests::npu1_blobs::xorshift;
use pcap_file::pcap::PcapParser;
use pcap_file::{Endianness, TsResolution};

// The generated code, expanded once in npuschema_tests::compare (the fuzz target's too).
use npuschema_tests::compare::schemas::pcap;

/// A packet as both readers give it: seconds, nanoseconds, original length, data.
type Pkt = (u64, u32, u32, Vec<u8>);

fn interp() -> &'static npuschema_codegen::interp::Interp<'static> {
    npuschema_tests::interp("../formats/pcap.yaml")
}

/// `pcap-file`'s verdict: every packet, parsed to the end of the file.
fn by_crate(b: &[u8]) -> Result<Vec<Pkt>, String> {
    let (mut rest, parser) = PcapParser::new(b).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        let (r, p) = parser.next_packet(rest).map_err(|e| e.to_string())?;
        out.push((
            p.timestamp.as_secs(),
            p.timestamp.subsec_nanos(),
            p.orig_len,
            p.data.to_vec(),
        ));
        rest = r;
    }
    Ok(out)
}

/// The generated validator's verdict and packets; its `Brief` names the same check.
fn by_schema(b: &[u8]) -> Result<Vec<Pkt>, &'static str> {
    let brief = pcap::Pcap::validate_as::<Brief>(b).map(|_| ());
    match pcap::Pcap::validate(b) {
        Ok(v) => {
            assert_eq!(brief, Ok(()));
            let nanos = matches!(v.header().magic(), pcap::LE_NANOS | pcap::BE_NANOS);
            Ok(v.packets()
                .map(|r| {
                    let h = r.header();
                    let frac = if nanos {
                        h.ts_frac()
                    } else {
                        h.ts_frac() * 1000
                    };
                    (u64::from(h.ts_sec()), frac, h.orig_len(), r.body().to_vec())
                })
                .collect())
        }
        Err(e) => {
            let site = pcap::error_site(brief.expect_err("Brief rejects too").id()).unwrap();
            assert_eq!((site.code, site.name), (e.code, e.field.name));
            Err(e.code)
        }
    }
}

/// The capture files of this machine, smaller than 8 MiB, in path order.
fn captures() -> Vec<(PathBuf, Vec<u8>)> {
    npuschema_tests::real_files(
        &[PathBuf::from("/usr/share"), PathBuf::from("/usr/lib")],
        &["pcap", "cap"],
        8 << 20,
        500,
    )
    .into_iter()
    .filter_map(|p| Some((p.clone(), std::fs::read(&p).ok()?)))
    .collect()
}

/// `good` (a capture `pcap-file` reads) in byte order `e` and resolution `r`.
fn rewritten(good: &[u8], e: Endianness, r: TsResolution) -> Vec<u8> {
    npuschema_tests::pcap_rewritten(good, e == Endianness::Big, r == TsResolution::NanoSecond)
        .expect("pcap-file rewrites a capture it reads")
}

const COMBINATIONS: [(Endianness, TsResolution); 4] = [
    (Endianness::Little, TsResolution::MicroSecond),
    (Endianness::Little, TsResolution::NanoSecond),
    (Endianness::Big, TsResolution::MicroSecond),
    (Endianness::Big, TsResolution::NanoSecond),
];

/// The generated code and the interpreter on one file: the same error, or both accept.
fn same_as_interpreter(b: &[u8]) {
    npuschema_tests::agree_with(
        "../formats/pcap.yaml",
        b,
        pcap::Pcap::validate(b),
        pcap::Pcap::validate_as::<Brief>(b)
            .map(|_| ())
            .map_err(|e| e.id()),
        |g, v| npuschema_tests::compare::pcap(b, g, v),
    );
}

#[test]
fn real_captures_agree_with_pcap_file() {
    let files = captures();
    if files.is_empty() {
        eprintln!(
            "pcap_real: no .pcap or .cap file under /usr/share or /usr/lib (scripts/setup-formats installs python3-dpkt); skipped"
        );
        return;
    }
    assert_eq!(interp().sites(), &pcap::ERROR_SITES[..]);
    let (mut accepted, mut packets, mut refused, mut variants) = (0usize, 0usize, 0usize, 0usize);
    for (p, b) in &files {
        let ours = by_schema(b);
        let theirs = by_crate(b);
        match (&ours, &theirs) {
            (Ok(a), Ok(t)) => {
                assert_eq!(a, t, "{}: the packets differ", p.display());
                accepted += 1;
                packets += a.len();
            }
            (Err(_), Err(_)) => refused += 1,
            _ => panic!(
                "{}: schema {:?} / pcap-file {:?}",
                p.display(),
                ours.as_ref().map(Vec::len),
                theirs.as_ref().map(Vec::len)
            ),
        }
        same_as_interpreter(b);
        // Written again in each byte order and resolution: the same packets.
        if let Ok(t) = theirs {
            for (e, r) in COMBINATIONS {
                let w = rewritten(b, e, r);
                let want = by_crate(&w).unwrap();
                assert_eq!(want.len(), t.len());
                assert_eq!(by_schema(&w), Ok(want), "{}: {e:?}, {r:?}", p.display());
                same_as_interpreter(&w);
                let v = pcap::Pcap::validate(&w).unwrap();
                assert_eq!(v.header().version_major(), 2, "read in the file's order");
                variants += 1;
            }
        }
    }
    eprintln!(
        "pcap_real: {} files, {accepted} accepted by both ({packets} packets: timestamps, lengths and data equal), {refused} refused by both; {variants} rewrites in the four byte order and resolution combinations read alike",
        files.len()
    );
    assert!(accepted > 0, "no capture both readers accept");
}

#[test]
fn mutants_of_real_captures_agree_with_pcap_file() {
    let Some((_, good)) = captures()
        .into_iter()
        .filter(|(_, b)| by_crate(b).is_ok_and(|p| p.len() >= 2) && by_schema(b).is_ok())
        .min_by_key(|(_, b)| b.len())
    else {
        eprintln!("pcap_real: no capture with two packets here; skipped");
        return;
    };
    let mut verdicts = std::collections::BTreeMap::<&str, usize>::new();
    let mut compared = 0usize;
    for (k, (e, r)) in COMBINATIONS.into_iter().enumerate() {
        let good = rewritten(&good, e, r);
        // The header and the first 256 bytes of records.
        let span = 0..good.len().min(24 + 256);
        let mut check = |m: &[u8]| {
            let ours = by_schema(m);
            *verdicts
                .entry(ours.as_ref().err().copied().unwrap_or("ok"))
                .or_default() += 1;
            let theirs = by_crate(m);
            match (&ours, &theirs) {
                (Ok(a), Ok(t)) => assert_eq!(a, t),
                (Err(_), Err(_)) => {}
                _ => panic!(
                    "{e:?} {r:?}: schema {:?} / pcap-file {:?}",
                    ours.as_ref().map(Vec::len),
                    theirs
                ),
            }
            same_as_interpreter(m);
            compared += 1;
        };
        let mut m = good.clone();
        for at in span.clone() {
            for x in [0x01u8, 0x80, 0xFF] {
                m[at] ^= x;
                check(&m);
                m[at] = good[at];
            }
        }
        for len in 0..good.len().min(600) {
            check(&good[..len]);
        }
        // A snapshot length below the packets' (written in the file's order).
        for snap in [0u32, 1, 16] {
            let mut b = good.clone();
            let bytes = match e {
                Endianness::Big => snap.to_be_bytes(),
                Endianness::Little => snap.to_le_bytes(),
            };
            b[16..20].copy_from_slice(&bytes);
            check(&b);
        }
        let mut next = xorshift(0x9CA9 + k as u32);
        for _ in 0..3_000 {
            for _ in 0..=(next() % 4) {
                let at = span.start + next() as usize % span.len();
                m[at] = next() as u8;
            }
            check(&m);
            m.copy_from_slice(&good);
        }
    }
    eprintln!(
        "pcap_real mutants: {compared} in four byte order and resolution combinations, each with pcap-file's verdict and the interpreter's error; verdicts {verdicts:?}"
    );
    for code in [
        "truncated-header",
        "bad-magic",
        "bad-record",
        "bad-timestamp",
        "captured-past-snaplen",
        "length-past-snaplen",
        "captured-past-length",
        "ok",
    ] {
        assert!(
            verdicts.contains_key(code),
            "no mutant reached {code}: {verdicts:?}"
        );
    }
}
