//! NPU1 version 2 in firmware: a loaded job's tensors by index and by name, an input's bytes
//! written in the caller's arena, an output's read, the compiled-for words; and a version 1
//! blob, which has none of them.
// Test code: a panic is a test failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use npuschema_generated::npu1::{
    Accel, DType, Direction, Npu1, Npu1Writer, RegionData, RegionSpec, Role, TensorFlags,
    TensorSpec, VERSION_V1, VERSION_V2,
};
use npuschema_runtime::binder::Job;

/// NPU_OP_STOP 0xFFFF: the smallest valid stream.
const STOP: [u8; 4] = [0x00, 0x00, 0xFF, 0xFF];

#[allow(clippy::too_many_arguments, reason = "a test's one-line tensor")]
fn spec(
    name: &str,
    direction: Direction,
    index: u32,
    region: u32,
    offset: u32,
    dims: [u32; 4],
    rank: u32,
    dtype: DType,
) -> TensorSpec<'_> {
    let elem = match dtype {
        DType::Int32 => 4,
        DType::Int16 => 2,
        _ => 1,
    };
    TensorSpec {
        direction,
        io_index: index,
        region,
        offset,
        size: dims.iter().product::<u32>() * elem,
        dtype,
        rank,
        dim0: dims[0],
        dim1: dims[1],
        dim2: dims[2],
        dim3: dims[3],
        flags: TensorFlags::QUANTIZED,
        scale: 0.5,
        zero_point: -3,
        name,
    }
}

fn regions() -> [RegionSpec<'static>; 3] {
    [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&[7u8; 32]),
        },
        RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(64),
        },
        RegionSpec {
            role: Role::Output,
            data: RegionData::Runtime(24),
        },
    ]
}

fn v2_blob() -> Vec<u8> {
    let regions = regions();
    // Sorted by name, as the format requires.
    let io = [
        spec(
            "image",
            Direction::Input,
            0,
            1,
            16,
            [1, 2, 4, 2],
            4,
            DType::Int8,
        ),
        spec(
            "logits",
            Direction::Output,
            0,
            2,
            0,
            [1, 3, 1, 1],
            2,
            DType::Int32,
        ),
        spec(
            "mask",
            Direction::Input,
            1,
            1,
            48,
            [1, 8, 1, 1],
            2,
            DType::Int16,
        ),
    ];
    Npu1Writer::new()
        .version(VERSION_V2)
        .accel(Accel::Macs128)
        .ext_npu_config(0x1807)
        .ext_npu_id(0x1006_6001)
        .regions(&regions)
        .io(&io)
        .cmd_stream(&STOP)
        .to_vec()
        .unwrap()
}

#[test]
fn a_v2_job_gives_its_tensors_by_name_and_index() {
    let blob = v2_blob();
    let view = Npu1::validate(&blob).unwrap();
    assert_eq!(view.header().version(), 2);
    let mut arena = vec![0u8; 256];
    let mut job = Job::load(&blob, &mut arena).unwrap();
    assert_eq!(job.tensors().count(), 3);
    let names: Vec<&str> = job.tensors().map(|t| t.name).collect();
    assert_eq!(names, ["image", "logits", "mask"]);

    let image = job.tensor("image").unwrap();
    assert_eq!(image, job.input(0).unwrap());
    assert_eq!((image.region, image.offset, image.size), (1, 16, 16));
    assert_eq!(image.dims(), &[1, 2, 4, 2]);
    assert_eq!(image.quantization, Some((0.5, -3)));
    let mask = job.input(1).unwrap();
    assert_eq!(
        (mask.name, mask.dtype, mask.dims()),
        ("mask", DType::Int16, &[1u32, 8][..])
    );
    let logits = job.output(0).unwrap();
    assert_eq!(logits.name, "logits");
    assert!(job.tensor("nothing").is_none());
    assert!(job.input(2).is_none());
    assert!(job.output(1).is_none());

    // The input's bytes are the arena's, at the tensor's place in its region.
    job.tensor_bytes_mut(&image)
        .unwrap()
        .copy_from_slice(&[9u8; 16]);
    let region = job.region_bytes(1).unwrap();
    assert_eq!(&region[16..32], &[9u8; 16]);
    assert!(region[..16].iter().all(|&b| b == 0));
    assert_eq!(job.tensor_bytes(&logits).unwrap().len(), 12);
    assert_eq!(job.compiled_for(), Some((0x1807, 0x1006_6001)));
}

#[test]
fn a_v1_job_has_no_tensors_and_no_compiled_for_words() {
    let regions = regions();
    let blob = Npu1Writer::new()
        .version(VERSION_V1)
        .regions(&regions)
        .cmd_stream(&STOP)
        .to_vec()
        .unwrap();
    let mut arena = vec![0u8; 256];
    let job = Job::load(&blob, &mut arena).unwrap();
    assert_eq!(job.tensors().count(), 0);
    assert!(job.tensor("image").is_none());
    assert_eq!(job.compiled_for(), None);
}

#[test]
fn the_v2_rules_refuse_what_firmware_could_not_use() {
    let regions = regions();
    let write = |io: &[TensorSpec<'_>]| {
        Npu1Writer::new()
            .version(VERSION_V2)
            .regions(&regions)
            .io(io)
            .cmd_stream(&STOP)
            .to_vec()
            .unwrap()
    };
    let code = |io: &[TensorSpec<'_>]| Npu1::validate(&write(io)).err().map(|e| e.code);
    // In a baked region: the caller could not write it.
    assert_eq!(
        code(&[spec(
            "a",
            Direction::Input,
            0,
            0,
            0,
            [1, 1, 1, 1],
            0,
            DType::Int8
        )]),
        Some("tensor-in-baked-region")
    );
    // Past its region's end (region 2 holds 24 bytes).
    assert_eq!(
        code(&[spec(
            "a",
            Direction::Output,
            0,
            2,
            20,
            [1, 8, 1, 1],
            2,
            DType::Int8
        )]),
        Some("tensor-out-of-region")
    );
    // No such region.
    assert_eq!(
        code(&[spec(
            "a",
            Direction::Output,
            0,
            3,
            0,
            [1, 1, 1, 1],
            0,
            DType::Int8
        )]),
        Some("tensor-bad-region")
    );
    // A dimension past the rank that is not 1.
    assert_eq!(
        code(&[spec(
            "a",
            Direction::Output,
            0,
            1,
            0,
            [1, 2, 1, 1],
            1,
            DType::Int8
        )]),
        Some("tensor-bad-shape")
    );
    // Size and shape disagree.
    let mut bad = spec(
        "a",
        Direction::Output,
        0,
        1,
        0,
        [1, 2, 1, 1],
        2,
        DType::Int16,
    );
    bad.size = 2;
    assert_eq!(code(&[bad]), Some("tensor-size-mismatch"));
    // Names sorted and unique (bytewise): out of order, or twice.
    let a = spec(
        "b",
        Direction::Output,
        0,
        1,
        0,
        [1, 1, 1, 1],
        0,
        DType::Int8,
    );
    let b = spec(
        "a",
        Direction::Output,
        1,
        1,
        0,
        [1, 1, 1, 1],
        0,
        DType::Int8,
    );
    assert_eq!(code(&[a, b]), Some("tensor-names-not-sorted"));
    assert_eq!(code(&[b, b]), Some("tensor-names-not-sorted"));
    assert_eq!(code(&[b, a]), None);
    // A name that is a prefix of the next sorts first.
    let long = spec(
        "ab",
        Direction::Output,
        2,
        1,
        0,
        [1, 1, 1, 1],
        0,
        DType::Int8,
    );
    assert_eq!(code(&[b, long]), None);
    assert_eq!(code(&[long, b]), Some("tensor-names-not-sorted"));
    // A good one passes.
    assert_eq!(
        code(&[spec(
            "a",
            Direction::Output,
            0,
            1,
            0,
            [1, 2, 1, 1],
            2,
            DType::Int16
        )]),
        None
    );
}
