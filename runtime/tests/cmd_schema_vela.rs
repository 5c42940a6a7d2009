//! The command set (`schema/ethos_u55_cmd.yaml`, as generated) held to Arm's definitions as
//! the pinned Vela ships them (`ethosu/vela/ethos_u55_regs/ethos_u55_regs.py`): every
//! command of Vela's `cmd0` and `cmd1` (its code and length), every non-reserved field of
//! each `npu_*_t` structure (its place, parameter or payload, and its bit range), and the
//! values of every Vela enum that types a field here. Field names are not compared: Vela's
//! copy names most parameters `param` and every payload `data`, where the listing (and
//! Arm's interface header) use `pad`, `addr`, ... The differences that are expected are
//! listed below with their reason; the test fails on any other difference, and on an
//! expected one that is gone. Vela describes the U55 and the U65 together: which commands
//! are the U65's alone is checked against the list, not against Vela. Skipped, with
//! the reason printed, when the pinned Vela is not installed (`scripts/setup-vela`).

// A host test: plain arithmetic and expect() on parsed text are fine here.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use npuschema_generated::ethos_u55_cmd::{self as cmd, Arch, CommandField, Opcode};

/// Why the listing's layout (Arm's interface header, which Vela 5.2.0 prints) wins.
const DMA_START: &str = "Vela's copy calls NPU_OP_DMA_START's parameter `channel_mode`; the U55 has one DMA channel, Arm's header leaves the parameter reserved and Vela's listing prints no field for it";
const DMA_WAIT: &str = "Vela's copy leaves NPU_OP_DMA_WAIT's parameter reserved; Arm's header (and Vela's listing, `k = 0`) has k in bits 0..=1, with 2..=15 must-be-zero";
const ACTIVATION: &str = "Vela's copy has `type` in bits 0..=11 and `act_clip_range` in 12..=15; Arm's header (and Vela's listing) has activation_function in 0..=4 and activation_clip_range in 12..=14, the rest reserved (must-be-zero here)";
const DMA_REGION: &str = "Vela's copy gives the DMA region 8 bits; the spec (ethos-u55.md) and Arm's header give region [2:0] (a BASEP slot, as the checker reads it), bits 3..=7 reserved";
const PRECISION: &str = "Vela's copy packs signedness and size into one `precision` field (its ifm_precision/ofm_precision enums, compared separately); Arm's header (and Vela's listing) splits it into activation_type (bit 0) and activation_precision";
const REGION: &str = "Vela's copy leaves the whole parameter one field; the spec gives *_REGION params as [2:0] region index, as Vela's listing and the checker read it (bits 3..=15 must be zero here)";
const KERNEL_STRIDE: &str = "Vela's copy leaves the parameter one field; Arm's header (and Vela's listing) splits it into the stride, weight order, dilation and decomposition bits";
const U65_PARAM: &str = "a U65-only DMA skip command whose parameter Vela's copy names `param` without saying what it holds; not declared here until a U65 source says (the U55 has no such command)";
const ADDR_HI: &str = "the U65 addresses 40 bits: Arm's U65 interface header puts address bits 32..=39 in parameter bits 0..=7 of each address command (declared `arch: [u65]`); Vela's copy, written for both, leaves them reserved (the U55 has 32-bit addresses)";
const U65_BASE_PARAM: &str = "Vela's copy names the whole parameter of this U65-only address command `param`; here bits 0..=7 are the U65's addr_hi, as for every address command, and the rest reserved";
const USER_DEFINED: &str = "the U55's NPU_SET_USER_DEFINED0..7 (cmd1 0xA0-0xA7) are in Arm's current interface header, not in Vela's older copy";
const LUT: &str = "Vela's `activation` enum gives the lookup tables as a range (LUT_START = 16, LUT_END = 23); the values in between are TABLE_1..TABLE_6 of Arm's header, which Vela's listing prints";

/// Differences from Vela that are expected: (what, why).
const EXPECTED: &[(&str, &str)] = &[
    (
        "NPU_SET_DMA0_DST.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_DMA0_SRC.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_IFM2_BASE0.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_IFM2_BASE1.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_IFM2_BASE2.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_IFM2_BASE3.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_IFM_BASE0.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_IFM_BASE1.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_IFM_BASE2.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_IFM_BASE3.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_OFM_BASE0.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_OFM_BASE1.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_OFM_BASE2.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_OFM_BASE3.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_SCALE1_BASE.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_SCALE_BASE.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_WEIGHT1_BASE.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_SET_WEIGHT_BASE.addr_hi: param bits 0..=7 here, no Vela field there",
        ADDR_HI,
    ),
    (
        "NPU_OP_DMA_START: Vela's `channel_mode` (param bits 0..=15) is no field here",
        DMA_START,
    ),
    (
        "NPU_OP_DMA_WAIT.k: param bits 0..=1 here, no Vela field there",
        DMA_WAIT,
    ),
    (
        "NPU_SET_ACTIVATION.activation_function: param bits 0..=4 here, no Vela field there",
        ACTIVATION,
    ),
    (
        "NPU_SET_ACTIVATION.activation_clip_range: param bits 12..=14 here, no Vela field there",
        ACTIVATION,
    ),
    (
        "NPU_SET_ACTIVATION: Vela's `type` (param bits 0..=11) is no field here",
        ACTIVATION,
    ),
    (
        "NPU_SET_ACTIVATION: Vela's `act_clip_range` (param bits 12..=15) is no field here",
        ACTIVATION,
    ),
    (
        "NPU_SET_DMA0_DST_REGION.region: param bits 0..=2 here, no Vela field there",
        DMA_REGION,
    ),
    (
        "NPU_SET_DMA0_DST_REGION: Vela's `region` (param bits 0..=7) is no field here",
        DMA_REGION,
    ),
    (
        "NPU_SET_DMA0_SKIP0: Vela's `param` (param bits 0..=15) is no field here",
        U65_PARAM,
    ),
    (
        "NPU_SET_DMA0_SKIP1: Vela's `param` (param bits 0..=15) is no field here",
        U65_PARAM,
    ),
    (
        "NPU_SET_DMA0_SRC_REGION.region: param bits 0..=2 here, no Vela field there",
        DMA_REGION,
    ),
    (
        "NPU_SET_DMA0_SRC_REGION: Vela's `region` (param bits 0..=7) is no field here",
        DMA_REGION,
    ),
    (
        "NPU_SET_IFM2_PRECISION.activation_type: param bit 0 here, no Vela field there",
        PRECISION,
    ),
    (
        "NPU_SET_IFM2_PRECISION.activation_precision: param bits 2..=3 here, no Vela field there",
        PRECISION,
    ),
    (
        "NPU_SET_IFM2_PRECISION: Vela's `precision` (param bits 0..=3) is no field here",
        PRECISION,
    ),
    (
        "NPU_SET_IFM2_REGION.region: param bits 0..=2 here, no Vela field there",
        REGION,
    ),
    (
        "NPU_SET_IFM2_REGION: Vela's `param` (param bits 0..=15) is no field here",
        REGION,
    ),
    (
        "NPU_SET_IFM_PRECISION.activation_type: param bit 0 here, no Vela field there",
        PRECISION,
    ),
    (
        "NPU_SET_IFM_PRECISION.activation_precision: param bits 2..=3 here, no Vela field there",
        PRECISION,
    ),
    (
        "NPU_SET_IFM_PRECISION: Vela's `precision` (param bits 0..=3) is no field here",
        PRECISION,
    ),
    (
        "NPU_SET_IFM_REGION.region: param bits 0..=2 here, no Vela field there",
        REGION,
    ),
    (
        "NPU_SET_IFM_REGION: Vela's `param` (param bits 0..=15) is no field here",
        REGION,
    ),
    (
        "NPU_SET_KERNEL_STRIDE.stride_x_lsb: param bit 0 here, no Vela field there",
        KERNEL_STRIDE,
    ),
    (
        "NPU_SET_KERNEL_STRIDE.stride_y_lsb: param bit 1 here, no Vela field there",
        KERNEL_STRIDE,
    ),
    (
        "NPU_SET_KERNEL_STRIDE.weight_order: param bit 2 here, no Vela field there",
        KERNEL_STRIDE,
    ),
    (
        "NPU_SET_KERNEL_STRIDE.dilation_x: param bit 3 here, no Vela field there",
        KERNEL_STRIDE,
    ),
    (
        "NPU_SET_KERNEL_STRIDE.dilation_y: param bit 4 here, no Vela field there",
        KERNEL_STRIDE,
    ),
    (
        "NPU_SET_KERNEL_STRIDE.decomposition: param bit 5 here, no Vela field there",
        KERNEL_STRIDE,
    ),
    (
        "NPU_SET_KERNEL_STRIDE.stride_x_msb: param bit 6 here, no Vela field there",
        KERNEL_STRIDE,
    ),
    (
        "NPU_SET_KERNEL_STRIDE.stride_y_msb: param bit 7 here, no Vela field there",
        KERNEL_STRIDE,
    ),
    (
        "NPU_SET_KERNEL_STRIDE: Vela's `param` (param bits 0..=15) is no field here",
        KERNEL_STRIDE,
    ),
    (
        "NPU_SET_OFM_PRECISION.activation_type: param bit 0 here, no Vela field there",
        PRECISION,
    ),
    (
        "NPU_SET_OFM_PRECISION.activation_precision: param bits 1..=2 here, no Vela field there",
        PRECISION,
    ),
    (
        "NPU_SET_OFM_PRECISION: Vela's `precision` (param bits 0..=2) is no field here",
        PRECISION,
    ),
    (
        "NPU_SET_OFM_REGION.region: param bits 0..=2 here, no Vela field there",
        REGION,
    ),
    (
        "NPU_SET_OFM_REGION: Vela's `param` (param bits 0..=15) is no field here",
        REGION,
    ),
    (
        "NPU_SET_SCALE1_BASE: Vela's `param` (param bits 0..=15) is no field here",
        U65_BASE_PARAM,
    ),
    (
        "NPU_SET_SCALE_REGION.region: param bits 0..=2 here, no Vela field there",
        REGION,
    ),
    (
        "NPU_SET_SCALE_REGION: Vela's `param` (param bits 0..=15) is no field here",
        REGION,
    ),
    (
        "NPU_SET_WEIGHT1_BASE: Vela's `param` (param bits 0..=15) is no field here",
        U65_BASE_PARAM,
    ),
    (
        "NPU_SET_WEIGHT_REGION.region: param bits 0..=2 here, no Vela field there",
        REGION,
    ),
    (
        "NPU_SET_WEIGHT_REGION: Vela's `param` (param bits 0..=15) is no field here",
        REGION,
    ),
    ("NPU_SET_USER_DEFINED0: here, not in Vela", USER_DEFINED),
    ("NPU_SET_USER_DEFINED1: here, not in Vela", USER_DEFINED),
    ("NPU_SET_USER_DEFINED2: here, not in Vela", USER_DEFINED),
    ("NPU_SET_USER_DEFINED3: here, not in Vela", USER_DEFINED),
    ("NPU_SET_USER_DEFINED4: here, not in Vela", USER_DEFINED),
    ("NPU_SET_USER_DEFINED5: here, not in Vela", USER_DEFINED),
    ("NPU_SET_USER_DEFINED6: here, not in Vela", USER_DEFINED),
    ("NPU_SET_USER_DEFINED7: here, not in Vela", USER_DEFINED),
    (
        "ACTIVATION_FUNCTION: values 17, 18, 19, 20, 21, 22 here, not in Vela's `activation`",
        LUT,
    ),
];

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

/// What the Python file declares.
#[derive(Default)]
struct Vela {
    /// `cmd0`/`cmd1` members: name -> (code, long).
    commands: BTreeMap<String, (u32, bool)>,
    /// `npu_*_t` structures (upper-cased, without `_t`): fields as (name, lsb, width) over
    /// the whole 64-bit command.
    structs: BTreeMap<String, Vec<(String, u32, u32)>>,
    /// Lower-case enums: name -> values.
    enums: BTreeMap<String, BTreeMap<u64, String>>,
}

fn parse(py: &str) -> Vela {
    let mut v = Vela::default();
    let mut class: Option<String> = None;
    let mut in_fields = false;
    let mut lsb = 0u32;
    for line in py.lines() {
        if let Some(rest) = line.strip_prefix("class ") {
            class = Some(rest.split('(').next().unwrap_or("").to_string());
            in_fields = false;
            lsb = 0;
            continue;
        }
        let Some(c) = class.as_deref() else { continue };
        let t = line.trim();
        if c == "cmd0" || c == "cmd1" {
            if let Some((name, value)) = t.split_once(" = 0x") {
                let code = u32::from_str_radix(value.trim(), 16).expect("hex code");
                v.commands
                    .insert(name.trim().to_string(), (code, c == "cmd1"));
            }
            continue;
        }
        if let Some(s) = c.strip_suffix("_t")
            && s.starts_with("npu_")
        {
            if t.starts_with("_fields_ = [") {
                in_fields = true;
                continue;
            }
            if in_fields {
                if t.starts_with(']') {
                    in_fields = false;
                    continue;
                }
                let inner = t.trim_start_matches('(').trim_end_matches("),");
                let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
                if let [name, _, width] = parts[..] {
                    let width: u32 = width.parse().expect("field width");
                    v.structs.entry(s.to_ascii_uppercase()).or_default().push((
                        name.trim_matches('"').to_string(),
                        lsb,
                        width,
                    ));
                    lsb += width;
                }
            }
            continue;
        }
        let is_enum = c
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
            && !c.ends_with("_r");
        if is_enum && let Some((name, value)) = t.split_once(" = ") {
            let value = value.trim();
            let n = match value.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => value.parse(),
            };
            if let Ok(n) = n {
                v.enums
                    .entry(c.to_string())
                    .or_default()
                    .insert(n, name.trim().to_string());
            }
        }
    }
    v
}

fn range(payload: bool, lsb: u32, width: u32) -> String {
    let place = if payload { "payload" } else { "param" };
    if width == 1 {
        format!("{place} bit {lsb}")
    } else {
        format!("{place} bits {lsb}..={}", lsb + width - 1)
    }
}

/// The schema's enum of that `UPPER_SNAKE` name with its values (from the field tables).
fn our_enum(name: &str) -> BTreeSet<u64> {
    let mut out = BTreeSet::new();
    for op in Opcode::ALL {
        for f in op.fields() {
            if f.enum_name == name {
                out.extend(f.values.iter().map(|(v, _)| *v));
            }
        }
    }
    out
}

/// Each of our enums that Vela's copy also has: (ours, Vela's).
const ENUM_PAIRS: &[(&str, &str)] = &[
    ("ACC_FORMAT", "acc_format"),
    ("ACTIVATION_FUNCTION", "activation"),
    ("ACTIVATION_CLIP_RANGE", "clip_range"),
    ("ACTIVATION_FORMAT", "data_format"),
    ("ELEMENTWISE_MODE", "elementwise_mode"),
    ("IFM_SCALE_MODE", "ifm_scale_mode"),
    ("POOLING_MODE", "pooling_mode"),
    ("ROUND_MODE", "rounding"),
    ("IFM_UPSCALE_MODE", "resampling_mode"),
    ("DMA_STRIDE_MODE", "stride_mode"),
];

fn differences(v: &Vela) -> (Vec<String>, usize, usize) {
    let mut diffs = Vec::new();
    let mut fields_compared = 0;
    for (vname, &(code, long)) in &v.commands {
        let ours = Opcode::ALL.iter().find(|o| o.name() == vname);
        let Some(op) = ours else {
            diffs.push(format!("{vname}: in Vela, not here"));
            continue;
        };
        if op.opcode() != code || op.has_payload() != long {
            diffs.push(format!(
                "{vname}: {} {:#05x} here, {} {code:#05x} in Vela",
                if op.has_payload() { "cmd1" } else { "cmd0" },
                op.opcode(),
                if long { "cmd1" } else { "cmd0" }
            ));
        }
        let sname = vname.to_ascii_uppercase();
        let Some(vf) = v.structs.get(&sname) else {
            diffs.push(format!("{vname}: Vela has no structure for it"));
            continue;
        };
        // Vela's fields, over the 64-bit command: the parameter is bits 16..=31, the
        // payload bits 32..=63.
        let theirs: Vec<(bool, u32, u32, &str)> = vf
            .iter()
            .filter(|(n, _, _)| {
                !(n == "cmd_code"
                    || n.starts_with("must_be_zero")
                    || n == "payload_size"
                    || n.starts_with("reserved"))
            })
            .map(|(n, lsb, w)| {
                if *lsb >= 32 {
                    (true, lsb - 32, *w, n.as_str())
                } else {
                    (false, lsb - 16, *w, n.as_str())
                }
            })
            .collect();
        let mine: Vec<CommandField> = op.fields().to_vec();
        for f in &mine {
            fields_compared += 1;
            if !theirs
                .iter()
                .any(|t| (t.0, t.1, t.2) == (f.payload, f.lsb, f.width))
            {
                diffs.push(format!(
                    "{vname}.{}: {} here, no Vela field there",
                    f.name,
                    range(f.payload, f.lsb, f.width)
                ));
            }
        }
        for t in &theirs {
            if !mine
                .iter()
                .any(|f| (t.0, t.1, t.2) == (f.payload, f.lsb, f.width))
            {
                diffs.push(format!(
                    "{vname}: Vela's `{}` ({}) is no field here",
                    t.3,
                    range(t.0, t.1, t.2)
                ));
            }
        }
    }
    for op in Opcode::ALL {
        if !v.commands.contains_key(op.name()) {
            diffs.push(format!("{}: here, not in Vela", op.name()));
        }
    }
    // Enums.
    let mut enums_compared = 0;
    for (ours, theirs) in ENUM_PAIRS {
        let mine = our_enum(ours);
        let Some(tv) = v.enums.get(*theirs) else {
            diffs.push(format!("{ours}: Vela has no enum `{theirs}`"));
            continue;
        };
        enums_compared += 1;
        let tset: BTreeSet<u64> = tv.keys().copied().collect();
        let only_mine: Vec<String> = mine.difference(&tset).map(u64::to_string).collect();
        let only_theirs: Vec<String> = tset.difference(&mine).map(u64::to_string).collect();
        if !only_mine.is_empty() {
            diffs.push(format!(
                "{ours}: values {} here, not in Vela's `{theirs}`",
                only_mine.join(", ")
            ));
        }
        if !only_theirs.is_empty() {
            diffs.push(format!(
                "{ours}: Vela's `{theirs}` has values {} not here",
                only_theirs.join(", ")
            ));
        }
    }
    // Vela's precisions pack the signedness (bit 0) with the element size: each of Vela's
    // values must split into values of ours.
    let types = our_enum("ACTIVATION_TYPE");
    let precisions = our_enum("ACTIVATION_PRECISION");
    for (venum, size_shift) in [("ifm_precision", 2u32), ("ofm_precision", 1)] {
        enums_compared += 1;
        for (val, name) in v.enums.get(venum).into_iter().flatten() {
            if !types.contains(&(val & 1)) || !precisions.contains(&(val >> size_shift)) {
                diffs.push(format!(
                    "{venum}.{name} = {val}: no ACTIVATION_TYPE/ACTIVATION_PRECISION pair here"
                ));
            }
        }
    }
    (diffs, fields_compared, enums_compared)
}

#[test]
fn command_set_matches_vela() {
    let path = match vela_regs_py() {
        Ok(p) => p,
        Err(why) => {
            println!("skipped: the pinned Vela is not installed ({why}); run scripts/setup-vela");
            return;
        }
    };
    let py = std::fs::read_to_string(&path).expect("read ethos_u55_regs.py");
    let v = parse(&py);
    assert!(
        v.commands.len() > 90 && v.structs.len() > 90 && v.enums.len() > 15,
        "parsed too little from {}",
        path.display()
    );
    let (diffs, fields, enums) = differences(&v);
    println!(
        "compared {} commands, {fields} fields and {enums} enums with {}",
        v.commands.len(),
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

/// The commands the U55 lacks are exactly the U65's additions the issue lists
/// (`NPU_SET_PARALLEL_MODE`, `NPU_SET_DMA0_SKIP0/1`, `NPU_SET_WEIGHT1_*`,
/// `NPU_SET_SCALE1_*`), and `NPU_SET_USER_DEFINED0..7` (cmd1 0xA0-0xA7) are the U55's.
#[test]
fn the_architectures_differ_as_declared() {
    let u65_only: Vec<&str> = Opcode::ALL
        .iter()
        .filter(|o| !o.in_arch(Arch::U55))
        .map(|o| o.name())
        .collect();
    assert_eq!(
        u65_only,
        [
            "NPU_SET_PARALLEL_MODE",
            "NPU_SET_DMA0_SKIP0",
            "NPU_SET_DMA0_SKIP1",
            "NPU_SET_WEIGHT1_BASE",
            "NPU_SET_WEIGHT1_LENGTH",
            "NPU_SET_SCALE1_BASE",
            "NPU_SET_SCALE1_LENGTH",
        ]
    );
    let u55_only: Vec<(&str, u32)> = Opcode::ALL
        .iter()
        .filter(|o| !o.in_arch(Arch::U65))
        .map(|o| (o.name(), o.code()))
        .collect();
    let want: Vec<(String, u32)> = (0..8)
        .map(|k| (format!("NPU_SET_USER_DEFINED{k}"), 0x4000 | (0xA0 + k)))
        .collect();
    assert_eq!(
        u55_only,
        want.iter()
            .map(|(n, c)| (n.as_str(), *c))
            .collect::<Vec<_>>()
    );
    assert_eq!(Opcode::COUNT, 105);
    assert_eq!(
        Opcode::from_word(0x0000_40A3),
        Some(Opcode::SetUserDefined3)
    );
    assert_eq!(cmd::Opcode::ALL.len(), Opcode::COUNT);
}
