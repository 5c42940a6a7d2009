//! Property tests: what the writer makes, the validator accepts with the same contents; and
//! reading a file then re-writing it from its view gives the same bytes.

use npuschema_generated::npu1::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum R {
    Baked(u32, Vec<u8>),
    Runtime(u32, u32),
}

fn region() -> impl Strategy<Value = R> {
    prop_oneof![
        (0u32..6, proptest::collection::vec(any::<u8>(), 0..200)).prop_map(|(r, b)| R::Baked(r, b)),
        (0u32..6, any::<u32>()).prop_map(|(r, n)| R::Runtime(r, n)),
    ]
}

fn specs(rs: &[R]) -> Vec<RegionSpec<'_>> {
    rs.iter()
        .map(|r| match r {
            R::Baked(role, b) => RegionSpec {
                role: Role::from_raw(*role),
                data: RegionData::Baked(b),
            },
            R::Runtime(role, n) => RegionSpec {
                role: Role::from_raw(*role),
                data: RegionData::Runtime(*n),
            },
        })
        .collect()
}

proptest! {
    #[test]
    fn written_blobs_validate_with_the_same_contents(
        rs in proptest::collection::vec(region(), 0..10),
        stream in proptest::collection::vec(any::<u8>(), 1..300),
        accel in any::<u32>(),
    ) {
        let sp = specs(&rs);
        let w = Npu1Writer::new().version(npuschema_generated::npu1::VERSION_V1).accel(Accel::from_raw(accel)).regions(&sp).cmd_stream(&stream);
        let n = w.encoded_len().expect("fits");
        let mut buf = vec![0xAAu8; n + 7];
        prop_assert_eq!(w.write_into(&mut buf).expect("writes"), n);
        let mut small = vec![0u8; n - 1];
        prop_assert!(w.write_into(&mut small).is_err());
        let blob = &buf[..n];
        let v = Npu1::validate(blob).expect("the writer's output validates");
        prop_assert_eq!(v.header().accel().raw(), accel);
        prop_assert_eq!(v.cmd_stream(), &stream[..]);
        prop_assert_eq!(v.header().cmd_offset() % 16, 0);
        prop_assert_eq!(v.regions().len(), rs.len());
        for (r, want) in v.regions().zip(&rs) {
            match want {
                R::Baked(role, b) => {
                    prop_assert_eq!(r.role().raw(), *role);
                    prop_assert_eq!(r.data(), Some(&b[..]));
                    prop_assert_eq!(r.data_offset() % 16, 0);
                }
                R::Runtime(role, size) => {
                    prop_assert_eq!(r.role().raw(), *role);
                    prop_assert_eq!(r.data(), None);
                    prop_assert_eq!(r.size(), *size);
                }
            }
        }
    }

    #[test]
    fn read_then_rewrite_gives_the_same_bytes(
        rs in proptest::collection::vec(region(), 0..10),
        stream in proptest::collection::vec(any::<u8>(), 1..300),
    ) {
        let sp = specs(&rs);
        let blob = Npu1Writer::new().version(npuschema_generated::npu1::VERSION_V1).regions(&sp).cmd_stream(&stream).to_vec().expect("writes");
        let v = Npu1::validate(&blob).expect("valid");
        let again: Vec<RegionSpec<'_>> = v
            .regions()
            .map(|r| RegionSpec {
                role: r.role(),
                data: match r.data() { Some(b) => RegionData::Baked(b), None => RegionData::Runtime(r.size()) },
            })
            .collect();
        let rewritten = Npu1Writer::new().version(npuschema_generated::npu1::VERSION_V1)
            .accel(v.header().accel())
            .regions(&again)
            .cmd_stream(v.cmd_stream())
            .to_vec()
            .expect("writes");
        prop_assert_eq!(rewritten, blob);
    }
}
