//! Every writer takes the same shape: `<File>Spec`, plain public fields, with `encoded_len`,
//! `write_into` and `to_vec`. A plain writer's spec and its typestate builder
//! (`<File>Writer`) are made from the same inputs, so they must write the same bytes and
//! refuse the same inputs with the same error: NPU1 (its tensor table optional, its names
//! strings), `whenw.yaml` (optional tables and ranges, flag bits the writer sets) and
//! `titled.yaml` (file strings, one UTF-8 and one bytes).

use npuschema_generated::npu1::{
    Accel, DType, Direction, Npu1, Npu1Spec, Npu1Writer, RegionData, RegionSpec, Role, TensorFlags,
    TensorSpec, VERSION_V1, VERSION_V2,
};

mod whenw {
    npuschema_macro::include_schema!("schemas/whenw.yaml");
}

mod titled {
    npuschema_macro::include_schema!("schemas/titled.yaml");
}

fn tensor(name: &str, direction: Direction, offset: u32, size: u32) -> TensorSpec<'_> {
    TensorSpec {
        direction,
        io_index: 0,
        region: 1,
        offset,
        size,
        dtype: DType::Int8,
        rank: 2,
        dim0: 1,
        dim1: size,
        dim2: 1,
        dim3: 1,
        flags: TensorFlags::empty(),
        scale: 0.0,
        zero_point: 0,
        name,
    }
}

#[test]
fn npu1_spec_writes_what_the_typestate_writer_writes() {
    let weights: Vec<u8> = (1..=32).collect();
    let regions = [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&weights),
        },
        RegionSpec {
            role: Role::Output,
            data: RegionData::Runtime(64),
        },
    ];
    let io = [
        tensor("x", Direction::Input, 48, 8),
        tensor("y", Direction::Output, 0, 16),
    ];
    let stream = [0x0Fu8, 0x01, 0, 0];
    // Version 2 with its tensor table.
    let built = Npu1Writer::new()
        .version(VERSION_V2)
        .accel(Accel::Macs128)
        .ext_npu_config(0x1807)
        .regions(&regions)
        .io(&io)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes");
    let spec = Npu1Spec {
        version: VERSION_V2,
        accel: Accel::Macs128,
        ext_npu_config: 0x1807,
        regions: &regions,
        io: Some(&io),
        cmd_stream: &stream,
        ..Npu1Spec::new()
    };
    assert_eq!(spec.to_vec(), Ok(built.clone()));
    assert_eq!(spec.encoded_len(), Ok(built.len()));
    let mut buf = vec![0u8; built.len()];
    assert_eq!(spec.write_into(&mut buf), Ok(built.len()));
    assert_eq!(buf, built);
    assert!(Npu1::validate(&buf).is_ok());
    // Version 1, the table left out (`None`), as the builder leaves it out when not set.
    let v1 = Npu1Spec {
        version: VERSION_V1,
        regions: &regions,
        cmd_stream: &stream,
        ..Npu1Spec::default()
    };
    let built = Npu1Writer::new()
        .version(VERSION_V1)
        .regions(&regions)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes");
    assert_eq!(v1.to_vec(), Ok(built));
    // The same refusal: a tensor table on a version 1 file (its `when` is false), and a
    // buffer too small.
    let bad = Npu1Spec {
        io: Some(&io),
        ..v1
    };
    let refused = Npu1Writer::new()
        .version(VERSION_V1)
        .regions(&regions)
        .io(&io)
        .cmd_stream(&stream)
        .to_vec();
    assert!(refused.is_err());
    assert_eq!(bad.to_vec(), refused);
    let mut small = [0u8; 8];
    assert_eq!(
        v1.write_into(&mut small),
        v1.writer().write_into(&mut small)
    );
    assert!(v1.write_into(&mut small).is_err());
}

#[test]
fn a_plain_spec_with_optional_parts_writes_what_the_builder_writes() {
    use whenw::{Kind, MarkSpec, TagSpec, WFlags, WhenW, WhenWSpec, WhenWWriter};
    let tags = [TagSpec { id: 7, value: 70 }, TagSpec { id: 8, value: 80 }];
    let marks = [MarkSpec { code: 0xA }];
    let built = WhenWWriter::new()
        .version(3)
        .kind(Kind::Ext)
        .flags(WFlags::HAS_EXTRA)
        .tags(&tags)
        .marks(&marks)
        .ext(b"ext!!")
        .extra(b"xy")
        .notes(b"n")
        .to_vec()
        .expect("writes");
    let spec = WhenWSpec {
        version: 3,
        kind: Kind::Ext,
        flags: WFlags::HAS_EXTRA,
        tags: Some(&tags),
        marks: Some(&marks),
        ext: Some(b"ext!!"),
        extra: Some(b"xy"),
        notes: Some(b"n"),
    };
    assert_eq!(spec.to_vec(), Ok(built.clone()));
    let v = WhenW::validate(&built).expect("valid");
    assert_eq!(v.notes(), Some(&b"n"[..]));
    // Left out: no marks (the writer clears HAS_MARKS), no notes, no extra.
    let fewer = WhenWSpec {
        marks: None,
        notes: None,
        extra: None,
        flags: WFlags::empty(),
        ..spec
    };
    let built = WhenWWriter::new()
        .version(3)
        .kind(Kind::Ext)
        .tags(&tags)
        .ext(b"ext!!")
        .to_vec()
        .expect("writes");
    assert_eq!(fewer.to_vec(), Ok(built));
    // Extra given against its condition: the same refusal from both.
    let wrong = WhenWSpec {
        extra: Some(b"xy"),
        ..fewer
    };
    let refused = WhenWWriter::new()
        .version(3)
        .kind(Kind::Ext)
        .tags(&tags)
        .ext(b"ext!!")
        .extra(b"xy")
        .to_vec();
    assert!(refused.is_err());
    assert_eq!(wrong.to_vec(), refused);
}

#[test]
fn a_plain_spec_with_strings_writes_what_the_builder_writes() {
    use titled::{Titled, TitledSpec, TitledWriter, ValueSpec};
    let values = [ValueSpec { value: 7 }, ValueSpec { value: 9 }];
    let built = TitledWriter::new()
        .title("größe")
        .comment(b"no NUL here")
        .values(&values)
        .to_vec()
        .expect("writes");
    let spec = TitledSpec {
        title: "größe",
        comment: b"no NUL here",
        values: &values,
    };
    assert_eq!(spec.to_vec(), Ok(built.clone()));
    assert_eq!(
        Titled::validate(&built).expect("valid").title_str(),
        Ok("größe")
    );
    // Every value unset: the same file as an unset builder's.
    assert_eq!(TitledSpec::new().to_vec(), TitledWriter::new().to_vec());
}
