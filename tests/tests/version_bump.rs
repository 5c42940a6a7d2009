//! A version bump is a schema edit: `tests/schemas/npu1_v2.yaml` is NPU1 version 1's layout
//! with VERSION 3 and one more header word. build.rs generates it; its reader reads its blobs
//! and rejects the shipped reader's with `unsupported-version`, and the shipped reader (which
//! reads versions 1 and 2) rejects version 3 the same way.

#[allow(dead_code, missing_docs, clippy::all)]
mod v2 {
    include!(concat!(env!("OUT_DIR"), "/v2/npu1.rs"));
}

use npuschema_generated::npu1 as v1;

fn v2_blob() -> Vec<u8> {
    let weights = [5u8; 40];
    let stream = [1u8, 2, 3, 4];
    let specs = [
        v2::RegionSpec {
            role: v2::Role::Weights,
            data: v2::RegionData::Baked(&weights),
        },
        v2::RegionSpec {
            role: v2::Role::Scratch,
            data: v2::RegionData::Runtime(64),
        },
    ];
    let w = v2::Npu1Writer::new()
        .model_id(0xC0FFEE)
        .regions(&specs)
        .cmd_stream(&stream);
    let mut out = vec![0u8; w.encoded_len().expect("fits")];
    w.write_into(&mut out).expect("writes");
    out
}

fn v1_blob() -> Vec<u8> {
    let stream = [1u8, 2, 3, 4];
    v1::Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes")
}

#[test]
fn the_v2_reader_reads_v2_blobs() {
    let b = v2_blob();
    let v = v2::Npu1::validate(&b).expect("valid v2");
    assert_eq!(v.header().version(), 3);
    assert_eq!(v.header().model_id(), 0xC0FFEE);
    assert_eq!(v2::Header::SIZE, 36);
    assert_eq!(v.regions().len(), 2);
    assert_eq!(v.cmd_stream(), &[1, 2, 3, 4]);
    assert_eq!(
        u32::from_le_bytes(b[12..16].try_into().expect("4")),
        2,
        "region_count"
    );
}

#[test]
fn the_v2_reader_rejects_v1_blobs() {
    let e = v2::Npu1::validate(&v1_blob()).expect_err("v1 is not v2");
    assert_eq!(e.code, "unsupported-version");
    assert_eq!(
        e.detail,
        npuschema_core::Detail::Mismatch {
            found: 1,
            expected: 3
        }
    );
}

#[test]
fn the_v1_reader_rejects_v2_blobs() {
    let e = v1::Npu1::validate(&v2_blob()).expect_err("v2 is not v1");
    assert_eq!(e.code, "unsupported-version");
}
