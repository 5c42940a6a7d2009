//! The generated NPU1 module through the checked-in crate: write, then validate.
use npuschema_generated::npu1::*;

#[test]
fn write_then_validate() {
    let weights = vec![7u8; 100];
    let stream = [0u8, 0, 0xff, 0xff];
    let specs = [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&weights),
        },
        RegionSpec {
            role: Role::Scratch,
            data: RegionData::Runtime(4096),
        },
    ];
    let blob = Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(&stream)
        .to_vec()
        .unwrap();
    let v = Npu1::validate(&blob).unwrap();
    assert_eq!(v.header().total_bytes() as usize, blob.len());
    assert_eq!(v.cmd_stream(), &stream);
    assert_eq!(v.header().cmd_offset() % 16, 0);
    let r: Vec<_> = v.regions().collect();
    assert_eq!(r[0].data(), Some(&weights[..]));
    assert_eq!(r[0].data_offset() % 16, 0);
    assert_eq!(r[1].data(), None);
    assert_eq!(r[1].size(), 4096);
    println!("{v:?} {:?}", r);
}
