//! It is the command stream that computes: hello_world's Vela output (U55-128, TFLite
//! variant) packed with one thing changed (a weight byte, a bias/scale record, the OFM zero
//! point register) gives other outputs, or a refused run; and a stream that needs more than
//! the simulator's budget (a DMA repeated 100,000 times, a convolution over a tiny budget)
//! ends with the budget error. The change is made to what `pack` packs (a byte edit of the
//! packed blob would only meet the checksum). Also: a blob with its two regions swapped
//! (the weights region bound where the arena was and back), and micro_speech with one
//! changed byte of its softmax's exp LUT (which the stream DMAs into SHRAM) or of its
//! fully-connected layer's bias record. Skips, saying so, without `vela-out/`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use npuschema_cli::pack::{AccelChoice, VelaModel, load, pack_model};
use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role, VERSION_V1};
use npuschema_runtime::cmd::{Opcode, StreamState, code16, decode};
use npuschema_sim::{Budget, BudgetKind, ComputeError, RunOptions, run_with_io};
use npuschema_tests::vela::out_dir as vela_out;

fn hello() -> Option<VelaModel> {
    let dir = vela_out()?;
    Some(
        load(&dir.join("hello_world_int8/ethos-u55-128/tflite/hello_world_int8_vela.tflite"))
            .unwrap(),
    )
}

/// Outputs of `m` for inputs -128..=127 step 5 ([`sweep`]: any step); `Err(code)` when the run is refused.
fn outputs(m: &VelaModel, opts: &RunOptions) -> Result<Vec<u8>, String> {
    sweep(m, opts, 5)
}

fn sweep(m: &VelaModel, opts: &RunOptions, step: usize) -> Result<Vec<u8>, String> {
    let packed = pack_model(m, AccelChoice::Auto).unwrap();
    let r = &packed.report;
    let (i, o) = (&r.inputs[0], &r.outputs[0]);
    let mut all = Vec::new();
    for x in (-128i16..=127).step_by(step) {
        let b = [x as i8 as u8];
        let (run, got) = run_with_io(
            &packed.bytes,
            opts,
            &[(i.region as usize, i.offset, &b[..])],
            &[(o.region as usize, o.offset, o.bytes().unwrap())],
        )
        .unwrap();
        let rec = run.record.clone().unwrap();
        if let Some(e) = rec.compute_error {
            return Err(e.code().to_string());
        }
        assert!(run.succeeded(), "{}", run.to_text());
        all.extend(got.concat());
    }
    Ok(all)
}

/// `(offset in the stream, param)` of the last `op` command, and the registers at each
/// NPU_OP_CONV.
fn last_command(m: &VelaModel, op: Opcode) -> u32 {
    decode(&m.cmd_stream)
        .map(Result::unwrap)
        .filter(|c| c.opcode() == Some(op))
        .last()
        .unwrap()
        .offset
}

fn convs(m: &VelaModel) -> Vec<StreamState> {
    let mut st = StreamState::new();
    let mut out = Vec::new();
    for c in decode(&m.cmd_stream) {
        let c = c.unwrap();
        if st.apply(&c).is_some() && c.opcode() == Some(Opcode::OpConv) {
            out.push(st.clone());
        }
    }
    out
}

#[test]
fn one_changed_weight_byte_changes_the_outputs_or_is_refused() {
    let Some(m) = hello() else { return };
    let base = sweep(&m, &RunOptions::default(), 17).unwrap();
    let conv = &convs(&m)[1];
    let w = conv.payload(Opcode::SetWeightBase) as usize;
    let len = conv.payload(Opcode::SetWeightLength) as usize;
    let (mut changed, mut refused) = (0, 0);
    for at in w..w + len {
        let mut m2 = m.clone();
        m2.readonly[at] ^= 0x10;
        match sweep(&m2, &RunOptions::default(), 17) {
            Ok(o) if o != base => changed += 1,
            Ok(_) => {}
            Err(code) => {
                assert!(code.starts_with("weights-"), "{code}");
                refused += 1;
            }
        }
    }
    eprintln!("{len} weight bytes flipped: {changed} change the outputs, {refused} refused");
    assert!(changed > 0 && changed + refused > len / 2);
}

#[test]
fn a_changed_scale_record_changes_the_outputs() {
    let Some(m) = hello() else { return };
    let base = outputs(&m, &RunOptions::default()).unwrap();
    let last = convs(&m).pop().unwrap();
    let rec = last.payload(Opcode::SetScaleBase) as usize;
    // Bias +2^12 (byte 1 += 16): the accumulator moves, the outputs with it.
    let mut m2 = m.clone();
    m2.readonly[rec + 1] = m2.readonly[rec + 1].wrapping_add(16);
    let o = outputs(&m2, &RunOptions::default()).unwrap();
    assert_ne!(o, base);
    // Halve the scale (shift + 1): outputs move toward the zero point.
    let mut m3 = m.clone();
    m3.readonly[rec + 9] += 1;
    let o = outputs(&m3, &RunOptions::default()).unwrap();
    assert_ne!(o, base);
}

#[test]
fn the_ofm_zero_point_register_shifts_the_output_by_one() {
    let Some(m) = hello() else { return };
    let base = outputs(&m, &RunOptions::default()).unwrap();
    let at = last_command(&m, Opcode::SetOfmZeroPoint) as usize;
    let mut m2 = m.clone();
    let p = u16::from_le_bytes([m2.cmd_stream[at + 2], m2.cmd_stream[at + 3]]);
    assert_eq!(p, 5, "hello_world's output zero point");
    m2.cmd_stream[at + 2..at + 4].copy_from_slice(&(p + 1).to_le_bytes());
    let o = outputs(&m2, &RunOptions::default()).unwrap();
    let mut moved = 0;
    for (a, b) in base.iter().zip(&o) {
        let (a, b) = (*a as i8, *b as i8);
        // +1, except where the activation clamp at -128 held the output.
        assert!(b == a + 1 || (a == -128 && b == -128), "{a} -> {b}");
        moved += usize::from(b != a);
    }
    assert!(moved > base.len() / 2, "{moved} of {} moved", base.len());
}

#[test]
fn a_convolution_over_the_budget_stops_with_the_budget_error() {
    let Some(m) = hello() else { return };
    let tiny = RunOptions {
        budget: Budget {
            ops: 100,
            bytes: 1 << 20,
        },
        ..RunOptions::default()
    };
    assert_eq!(outputs(&m, &tiny).unwrap_err(), "sim-budget-exceeded");
}

#[test]
fn a_dma_repeated_100000_times_ends_with_the_budget_error() {
    let Some(mut m) = hello() else { return };
    // DMA 16 bytes of the read-only region into the scratch region, 100,000 times.
    let mut s = Vec::new();
    let cmd0 = |s: &mut Vec<u8>, op: Opcode, param: u16| {
        s.extend_from_slice(&code16(op).to_le_bytes());
        s.extend_from_slice(&param.to_le_bytes());
    };
    let cmd1 = |s: &mut Vec<u8>, op: Opcode, payload: u32| {
        s.extend_from_slice(&code16(op).to_le_bytes());
        s.extend_from_slice(&0u16.to_le_bytes());
        s.extend_from_slice(&payload.to_le_bytes());
    };
    cmd0(&mut s, Opcode::SetDma0SrcRegion, 0);
    cmd0(&mut s, Opcode::SetDma0DstRegion, 1);
    cmd1(&mut s, Opcode::SetDma0Src, 0);
    cmd1(&mut s, Opcode::SetDma0Dst, 0);
    cmd1(&mut s, Opcode::SetDma0Len, 16);
    for _ in 0..100_000 {
        cmd0(&mut s, Opcode::OpDmaStart, 0);
    }
    cmd0(&mut s, Opcode::OpStop, 0xffff);
    m.cmd_stream = s;
    let packed = pack_model(&m, AccelChoice::Auto).unwrap();
    let opts = RunOptions {
        budget: Budget {
            ops: 1 << 20,
            bytes: 1 << 16,
        },
        ..RunOptions::default()
    };
    let (run, _) = run_with_io(&packed.bytes, &opts, &[], &[]).unwrap();
    assert!(!run.succeeded());
    let rec = run.record.clone().unwrap();
    assert_eq!(
        rec.compute_error,
        Some(ComputeError::Budget {
            kind: BudgetKind::Bytes,
            limit: 1 << 16
        })
    );
    assert_eq!(rec.dma_copies, (1 << 16) / 16);
    assert!(
        run.to_text().contains("sim-budget-exceeded"),
        "{}",
        run.to_text()
    );
    // The default budget lets the whole stream run.
    let (run, _) = run_with_io(&packed.bytes, &RunOptions::default(), &[], &[]).unwrap();
    assert!(run.succeeded(), "{}", run.to_text());
    assert_eq!(run.record.unwrap().dma_copies, 100_000);
}

fn micro() -> Option<VelaModel> {
    let dir = vela_out()?;
    Some(
        load(&dir.join(
            "micro_speech_quantized/ethos-u55-128/tflite/micro_speech_quantized_vela.tflite",
        ))
        .unwrap(),
    )
}

/// micro_speech's outputs on 20 seeded inputs (`Err(code)` when a run is refused).
fn micro_outputs(m: &VelaModel) -> Result<Vec<u8>, String> {
    let packed = pack_model(m, AccelChoice::Auto).unwrap();
    let r = &packed.report;
    let (i, o) = (&r.inputs[0], &r.outputs[0]);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut all = Vec::new();
    for _ in 0..20 {
        let input: Vec<u8> = (0..i.bytes().unwrap())
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 56) as u8
            })
            .collect();
        let (run, got) = run_with_io(
            &packed.bytes,
            &RunOptions::default(),
            &[(i.region as usize, i.offset, &input[..])],
            &[(o.region as usize, o.offset, o.bytes().unwrap())],
        )
        .unwrap();
        let rec = run.record.clone().unwrap();
        if let Some(e) = rec.compute_error {
            return Err(e.code().to_string());
        }
        assert!(run.succeeded(), "{}", run.to_text());
        all.extend(got.concat());
    }
    Ok(all)
}

/// `m` (two regions: 0 the baked read-only data, 1 the arena) as an NPU1 version 1 blob
/// with its regions in the given order, run on every input of `inputs`: the outputs, or
/// `Err` with why the run was refused. The input and output are placed in the arena,
/// wherever it now is.
fn run_regions(m: &VelaModel, swapped: bool, inputs: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    assert!(!m.separate_io && m.fast_scratch_size.is_none());
    let weights = RegionSpec {
        role: Role::Weights,
        data: RegionData::Baked(&m.readonly),
    };
    let arena = RegionSpec {
        role: Role::Scratch,
        data: RegionData::Runtime(u32::try_from(m.scratch_size).unwrap()),
    };
    let specs = if swapped {
        [arena, weights]
    } else {
        [weights, arena]
    };
    let blob = Npu1Writer::new()
        .accel(Accel::Macs128)
        .regions(&specs)
        .version(VERSION_V1)
        .cmd_stream(&m.cmd_stream)
        .to_vec()
        .unwrap();
    let arena_index = usize::from(swapped).wrapping_sub(1) & 1;
    let (i, o) = (&m.inputs[0], &m.outputs[0]);
    assert_eq!((i.region, o.region), (1, 1), "tensors in the arena");
    let mut all = Vec::new();
    for input in inputs {
        let (run, got) = run_with_io(
            &blob,
            &RunOptions::default(),
            &[(arena_index, i.offset, &input[..])],
            &[(arena_index, o.offset, o.bytes().unwrap())],
        )
        .map_err(|e| format!("{e}"))?;
        if !run.succeeded() {
            return Err(run.to_text());
        }
        if let Some(e) = run.record.as_ref().unwrap().compute_error {
            return Err(e.code().to_string());
        }
        all.extend(got.concat());
    }
    Ok(all)
}

#[test]
fn swapping_the_two_regions_changes_the_outputs_or_is_refused() {
    for (name, m) in [("hello_world", hello()), ("micro_speech", micro())] {
        let Some(m) = m else { return };
        let n = m.inputs[0].bytes().unwrap() as usize;
        let inputs: Vec<Vec<u8>> = (0..8u8)
            .map(|k| {
                (0..n)
                    .map(|j| (j as u8).wrapping_mul(31) ^ k.wrapping_mul(77))
                    .collect()
            })
            .collect();
        // The blob as built here computes what `pack`'s does ...
        let straight = run_regions(&m, false, &inputs).unwrap();
        let packed = pack_model(&m, AccelChoice::Auto).unwrap();
        let (i, o) = (&packed.report.inputs[0], &packed.report.outputs[0]);
        let mut want = Vec::new();
        for input in &inputs {
            let (_, got) = run_with_io(
                &packed.bytes,
                &RunOptions::default(),
                &[(i.region as usize, i.offset, &input[..])],
                &[(o.region as usize, o.offset, o.bytes().unwrap())],
            )
            .unwrap();
            want.extend(got.concat());
        }
        assert_eq!(straight, want, "{name}");
        // ... and with its regions swapped, something else, or nothing.
        match run_regions(&m, true, &inputs) {
            Ok(out) => {
                assert_ne!(out, straight, "{name}: swapped regions, same outputs");
                eprintln!("{name}: regions swapped: the outputs change");
            }
            Err(why) => eprintln!("{name}: regions swapped: refused: {why}"),
        }
    }
}

#[test]
fn a_changed_exp_lut_entry_changes_micro_speechs_softmax() {
    let Some(m) = micro() else { return };
    let base = micro_outputs(&m).unwrap();
    // The LUT the stream DMAs into SHRAM: entry 255 is exp(0), which the largest class
    // always reads.
    let mut st = StreamState::new();
    let mut src = None;
    for c in decode(&m.cmd_stream) {
        let c = c.unwrap();
        if st.apply(&c).is_some() && c.opcode() == Some(Opcode::OpDmaStart) {
            assert_eq!(st.payload(Opcode::SetDma0Len), 1024, "256 32-bit entries");
            src = Some(st.payload(Opcode::SetDma0Src) as usize);
        }
    }
    let at = src.unwrap() + 255 * 4 + 3;
    let mut m2 = m.clone();
    m2.readonly[at] ^= 0x10;
    let o = micro_outputs(&m2).unwrap();
    let moved = o
        .chunks(4)
        .zip(base.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    eprintln!("exp LUT entry 255 changed: {moved} of 20 outputs change");
    assert!(moved > 10, "{moved} of 20 outputs changed");
}

#[test]
fn a_changed_bias_record_changes_micro_speechs_class_scores() {
    let Some(m) = micro() else { return };
    let base = micro_outputs(&m).unwrap();
    // The fully-connected layer (the second NPU_OP_CONV): class 1's bias + 2^16.
    let fc = convs(&m)[1].clone();
    let rec = fc.payload(Opcode::SetScaleBase) as usize + 10;
    let mut m2 = m.clone();
    let mut b = [0u8; 8];
    b[..5].copy_from_slice(&m2.readonly[rec..rec + 5]);
    let bias = i64::from_le_bytes(b) << 24 >> 24;
    m2.readonly[rec..rec + 5].copy_from_slice(&(bias + (1 << 16)).to_le_bytes()[..5]);
    let o = micro_outputs(&m2).unwrap();
    // Class 1 gains, so its score rises (or stays saturated) and the others fall or stay.
    let mut rose = 0;
    for (a, b) in o.chunks(4).zip(base.chunks(4)) {
        let (a1, b1) = (a[1] as i8, b[1] as i8);
        assert!(a1 >= b1, "class 1: {b1} -> {a1}");
        rose += usize::from(a1 > b1);
    }
    assert!(rose > 10, "class 1 rose in {rose} of 20");
}
