//! A firmware crate's two ways to get the generated code, side by side with the checked-in
//! module: `build.rs` (npuschema_codegen::Builder, included from OUT_DIR) and the proc-macro
//! (`include_schema!`). All three accept and reject the same blobs, field for field.

#[allow(dead_code, missing_docs, clippy::all)]
mod from_build_rs {
    include!(concat!(env!("OUT_DIR"), "/v1/npu1.rs"));
}

#[allow(dead_code, missing_docs, clippy::all)]
mod from_macro {
    npuschema_macro::include_schema!("../schema/npu1.yaml");
}

use npuschema_generated::npu1 as checked_in;

#[test]
fn the_three_entry_points_agree() {
    let weights = [9u8; 33];
    let stream = [0u8, 0, 0xff, 0xff];
    let specs = [checked_in::RegionSpec {
        role: checked_in::Role::Weights,
        data: checked_in::RegionData::Baked(&weights),
    }];
    let blob = checked_in::Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .regions(&specs)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes");

    let a = checked_in::Npu1::validate(&blob).expect("valid");
    let b = from_build_rs::Npu1::validate(&blob).expect("valid");
    let c = from_macro::Npu1::validate(&blob).expect("valid");
    assert_eq!(a.header().checksum(), b.header().checksum());
    assert_eq!(a.header().checksum(), c.header().checksum());
    assert_eq!(
        b.regions().next().and_then(|r| r.data()),
        Some(&weights[..])
    );
    assert_eq!(
        c.regions().next().and_then(|r| r.data()),
        Some(&weights[..])
    );
    assert_eq!(from_build_rs::SCHEMA_SHA256, checked_in::SCHEMA_SHA256);
    assert_eq!(from_macro::SCHEMA_SHA256, checked_in::SCHEMA_SHA256);

    let mut bad = blob.clone();
    bad[40] ^= 1;
    let ea = checked_in::Npu1::validate(&bad).expect_err("corrupt");
    let eb = from_build_rs::Npu1::validate(&bad).expect_err("corrupt");
    let ec = from_macro::Npu1::validate(&bad).expect_err("corrupt");
    assert_eq!(
        (ea.code, eb.code, ec.code),
        (
            "checksum-mismatch",
            "checksum-mismatch",
            "checksum-mismatch"
        )
    );
}
