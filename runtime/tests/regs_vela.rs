//! The register map (`schema/ethos_u55_regs.yaml`, as generated) held to Arm's definitions
//! as the pinned Vela ships them (`ethosu/vela/ethos_u55_regs/ethos_u55_regs.py`): every
//! declared register's offset, and every declared bit field's position and width, and every
//! non-reserved field Vela gives a register that declares fields. The differences that are
//! expected are listed below with their reason; the test fails on any other difference, and
//! on an expected one that is gone (so the list stays true). Skipped, with the reason
//! printed, when the pinned Vela is not installed (`scripts/setup-vela`).

// A host test: plain arithmetic and expect() on parsed text are fine here.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use npuschema_generated::ethos_u55_regs::{REGISTERS, RegisterInfo};

/// Differences from Vela that are expected: (what, why). `what` is the line the comparison
/// prints for the difference.
const EXPECTED: &[(&str, &str)] = &[
    (
        "QBASE: named QBASE0 by Vela",
        "Arm's driver interface header and the spec (ethos-u55.md) name the command-stream address QBASE and QBASE_HI; Vela numbers the two words QBASE0 and QBASE1",
    ),
    ("QBASE_HI: named QBASE1 by Vela", "as QBASE"),
    (
        "QCONFIG.cmd_region0: bits 0..=1 here, Vela has no such field",
        "Vela's QCONFIG is one 32-bit field `qconfig` (not counted as a second difference); the spec gives QCONFIG[1:0] as the AXI attribute of command fetches, which the driver writes and the simulator reads; Vela does not split the word",
    ),
    (
        "CONFIG.custom_dma: bit 27 here, Vela has no such field",
        "the spec (ethos-u55.md, from Arm's interface header) defines CONFIG[27] custom_dma; Vela's copy leaves bits 16..=27 reserved",
    ),
    (
        "AXI_LIMIT0.max_outstanding_read_m1: bits 16..=20 here, bits 16..=23 in Vela",
        "the spec (Arm's interface header) gives [20:16], 5 bits, with [23:21] reserved; Vela's copy widens the field to 8 bits. Arm's default word 0x0F1F0000 fits both",
    ),
    (
        "AXI_LIMIT0.max_outstanding_write_m1: bits 24..=27 here, bits 24..=31 in Vela",
        "the spec gives [27:24], 4 bits, with [31:28] reserved; Vela's copy widens it to 8 bits",
    ),
];

/// Vela's name for element `k` of register `r`.
fn vela_name(r: &RegisterInfo, k: u32) -> String {
    match (r.name, r.count) {
        ("QBASE", _) => "QBASE0".into(),
        ("QBASE_HI", _) => "QBASE1".into(),
        // Vela numbers the sixteen 32-bit words: region n's low word is BASEP(2n), its
        // high word BASEP(2n + 1).
        ("BASEP", _) => format!("BASEP{}", 2 * k),
        ("BASEP_HI", _) => format!("BASEP{}", 2 * k + 1),
        (n, 1) => n.to_string(),
        (n, _) => format!("{n}{k}"),
    }
}

fn vela_regs_py() -> Result<PathBuf, String> {
    let lib = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv-vela/lib");
    let entries = std::fs::read_dir(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
    for e in entries.flatten() {
        let p = e
            .path()
            .join("site-packages/ethosu/vela/ethos_u55_regs/ethos_u55_regs.py");
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(format!(
        "no ethosu/vela/ethos_u55_regs/ethos_u55_regs.py under {}",
        lib.display()
    ))
}

/// Vela's register offsets (the upper-case `Enum` classes: `BASE`, `PMU`, ...) and each
/// `<name>_r` union's bit fields as (name, lsb, width).
type Fields = Vec<(String, u32, u32)>;

fn parse(py: &str) -> (BTreeMap<String, u32>, BTreeMap<String, Fields>) {
    let mut offsets = BTreeMap::new();
    let mut fields: BTreeMap<String, Fields> = BTreeMap::new();
    let mut class: Option<String> = None;
    let mut in_fields = false;
    let mut lsb = 0u32;
    for line in py.lines() {
        if let Some(rest) = line.strip_prefix("class ") {
            let name = rest.split('(').next().unwrap_or("").to_string();
            in_fields = false;
            lsb = 0;
            class = Some(name);
            continue;
        }
        let Some(c) = class.as_deref() else { continue };
        let t = line.trim();
        let register_enum = c
            .chars()
            .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_');
        if register_enum {
            if let Some((name, value)) = t.split_once(" = 0x")
                && name != "SIZE"
            {
                let v = u32::from_str_radix(value.trim(), 16).expect("hex offset");
                offsets.insert(name.trim().to_string(), v);
            }
            continue;
        }
        if let Some(reg) = c.strip_suffix("_r") {
            if t.starts_with("_fields_ = [") && !t.contains("\"bits\"") {
                in_fields = true;
                continue;
            }
            if in_fields {
                if t.starts_with(']') {
                    in_fields = false;
                    continue;
                }
                // ("name", c_uint32, width),
                let inner = t.trim_start_matches('(').trim_end_matches("),");
                let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
                if let [name, _, width] = parts[..] {
                    let name = name.trim_matches('"').to_string();
                    let width: u32 = width.parse().expect("field width");
                    fields
                        .entry(reg.to_ascii_uppercase())
                        .or_default()
                        .push((name, lsb, width));
                    lsb += width;
                }
            }
        }
    }
    (offsets, fields)
}

fn bits(lsb: u32, width: u32) -> String {
    if width == 1 {
        format!("bit {lsb}")
    } else {
        format!("bits {lsb}..={}", lsb + width - 1)
    }
}

#[test]
fn register_map_matches_vela() {
    let path = match vela_regs_py() {
        Ok(p) => p,
        Err(why) => {
            println!("skipped: the pinned Vela is not installed ({why}); run scripts/setup-vela");
            return;
        }
    };
    let py = std::fs::read_to_string(&path).expect("read ethos_u55_regs.py");
    let (offsets, vela_fields) = parse(&py);
    assert!(
        offsets.len() > 50 && vela_fields.len() > 50,
        "parsed too little from {}",
        path.display()
    );
    let mut diffs: Vec<String> = Vec::new();
    let mut compared_regs = 0;
    let mut compared_fields = 0;
    for r in REGISTERS {
        for k in 0..r.count {
            let ours = if r.count == 1 {
                r.name.to_string()
            } else {
                format!("{}{k}", r.name)
            };
            let vname = vela_name(r, k);
            let offset = r.offset + k * r.stride;
            match offsets.get(&vname) {
                None => diffs.push(format!("{ours}: Vela has no register {vname}")),
                Some(&v) if v != offset => diffs.push(format!(
                    "{ours}: offset {offset:#05x} here, {v:#05x} in Vela ({vname})"
                )),
                Some(_) => {}
            }
            if vname != ours && r.count == 1 {
                diffs.push(format!("{ours}: named {vname} by Vela"));
            }
            compared_regs += 1;
            // Fields: compared on element 0 of an array (its elements share the layout),
            // and against every element's Vela union (they are alike there too).
            if r.fields.is_empty() {
                continue;
            }
            let Some(vf) = vela_fields.get(&vname) else {
                diffs.push(format!("{ours}: Vela has no bit fields for {vname}"));
                continue;
            };
            let mut report = |d: String| {
                if k == 0 || !diffs.contains(&d.replacen(&ours, &format!("{}0", r.name), 1)) {
                    diffs.push(d);
                }
            };
            for f in r.fields {
                compared_fields += 1;
                match vf.iter().find(|(n, _, _)| n == f.name) {
                    None => report(format!(
                        "{ours}.{}: {} here, Vela has no such field",
                        f.name,
                        bits(f.lsb, f.width)
                    )),
                    Some((_, lsb, width)) if (*lsb, *width) != (f.lsb, f.width) => {
                        report(format!(
                            "{ours}.{}: {} here, {} in Vela",
                            f.name,
                            bits(f.lsb, f.width),
                            bits(*lsb, *width)
                        ));
                    }
                    Some(_) => {}
                }
            }
            for (n, lsb, width) in vf {
                if n.starts_with("reserved") || r.fields.iter().any(|f| f.name == n) {
                    continue;
                }
                report(format!(
                    "{ours}.{n}: {} in Vela, not declared here",
                    bits(*lsb, *width)
                ));
            }
        }
    }
    // QCONFIG's only Vela field is the whole word; its absence here is part of the one
    // expected difference about QCONFIG.
    diffs.retain(|d| d != "QCONFIG.qconfig: bits 0..=31 in Vela, not declared here");
    println!(
        "compared {compared_regs} registers and {compared_fields} bit fields with {}",
        path.display()
    );
    println!("expected differences:");
    for (what, why) in EXPECTED {
        println!("  {what}\n      because {why}");
    }
    let expected: Vec<&str> = EXPECTED.iter().map(|e| e.0).collect();
    let unexpected: Vec<&String> = diffs
        .iter()
        .filter(|d| !expected.contains(&d.as_str()))
        .collect();
    let gone: Vec<&&str> = expected
        .iter()
        .filter(|e| !diffs.iter().any(|d| d == **e))
        .collect();
    assert!(
        unexpected.is_empty() && gone.is_empty(),
        "unexpected differences from Vela: {unexpected:#?}\nexpected differences no longer seen: {gone:#?}"
    );
}
