//! Writer then reader: arbitrary region specs and command streams written by the generated
//! `Npu1Writer` must validate (unless the stream is empty, which the format forbids), read
//! back exactly what was written, match the independent reference producer byte for byte,
//! and the writer must refuse a buffer one byte short.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use npuschema_generated::npu1::{Accel, Npu1, Npu1Writer, RegionData, RegionSpec, Role};
use npuschema_refreader::npu1::{self as refnpu1, BuildRegion};

#[derive(Arbitrary, Debug)]
struct Case {
    accel: u32,
    regions: Vec<(u32, Result<Vec<u8>, u32>)>,
    cmd: Vec<u8>,
    slack: u8,
}

fuzz_target!(|case: Case| {
    if case.regions.len() > 12 {
        return;
    }
    let specs: Vec<RegionSpec<'_>> = case
        .regions
        .iter()
        .map(|(role, d)| RegionSpec {
            role: Role::from_raw(*role),
            data: match d {
                Ok(b) => RegionData::Baked(b),
                Err(n) => RegionData::Runtime(*n),
            },
        })
        .collect();
    let w = Npu1Writer::new().version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::from_raw(case.accel))
        .regions(&specs)
        .cmd_stream(&case.cmd);
    let n = w.encoded_len().expect("small inputs fit");
    let bytes = w.to_vec().expect("writes");
    assert_eq!(bytes.len(), n);
    let mut big = vec![0xEEu8; n + usize::from(case.slack)];
    assert_eq!(w.write_into(&mut big), Ok(n));
    assert_eq!(&big[..n], &bytes[..]);
    if n > 0 {
        assert!(
            w.write_into(&mut big[..n - 1]).is_err(),
            "a buffer one byte short must be refused"
        );
    }
    let reference: Vec<BuildRegion<'_>> = case
        .regions
        .iter()
        .map(|(role, d)| match d {
            Ok(b) => BuildRegion::Baked(*role, b),
            Err(n) => BuildRegion::Runtime(*role, *n),
        })
        .collect();
    assert_eq!(
        refnpu1::build(case.accel, &reference, &case.cmd, None).as_deref(),
        Some(&bytes[..])
    );

    npuschema_fuzz::npu1_differential(&bytes);
    let v = match Npu1::validate(&bytes) {
        Ok(v) => v,
        Err(e) => {
            assert!(
                case.cmd.is_empty() && e.code == "empty-command-stream",
                "written blob rejected: {e}"
            );
            return;
        }
    };
    assert_eq!(v.header().accel().raw(), case.accel);
    assert_eq!(v.cmd_stream(), &case.cmd[..]);
    assert_eq!(v.regions().len(), case.regions.len());
    for (r, (role, d)) in v.regions().zip(&case.regions) {
        assert_eq!(r.role().raw(), *role);
        match d {
            Ok(b) => assert_eq!(r.data(), Some(&b[..])),
            Err(size) => assert_eq!((r.data(), r.size()), (None, *size)),
        }
    }
});
