// The documented usage: write, validate, then read through infallible accessors.
use npuschema_generated::npu1::{
    Accel, Header, Npu1, Npu1Visit, Npu1Writer, Region, RegionData, RegionSpec, Role,
};

// A caller's hook: sees each region once its checks pass, in the validator's one pass, and
// may keep the borrowed record's bytes for as long as the buffer lives.
struct Baked<'a> {
    found: Vec<&'a [u8]>,
}

impl<'a, E> Npu1Visit<'a, E> for Baked<'a> {
    fn regions(&mut self, _: &Header<'a>, _: usize, record: &Region<'a>) -> Result<(), E> {
        if let Some(bytes) = record.data() {
            self.found.push(bytes);
        }
        Ok(())
    }
}

fn main() {
    let weights = [1u8; 32];
    let stream = [0u8, 0, 0xff, 0xff];
    let specs = [
        RegionSpec { role: Role::Weights, data: RegionData::Baked(&weights) },
        RegionSpec { role: Role::Scratch, data: RegionData::Runtime(256) },
    ];
    let writer = Npu1Writer::new().version(npuschema_generated::npu1::VERSION_V1).accel(Accel::Macs256).regions(&specs).cmd_stream(&stream);
    let mut out = [0u8; 256];
    let n = writer.write_into(&mut out).expect("fits");
    let blob = &out[..n];
    let view = Npu1::validate(blob).expect("valid");
    let total: u32 = view.header().total_bytes();
    assert_eq!(total as usize, n);
    for region in view.regions() {
        let _index: u32 = region.index();
        let _bytes: Option<&[u8]> = region.data();
    }
    let _stream: &[u8] = view.cmd_stream();
    assert_eq!(view.regions().len(), 2);
    // The size-first error type: same checks, only the failing check's site.
    let brief: Result<Npu1<'_>, npuschema_core::Brief> = Npu1::validate_as(blob);
    assert!(brief.is_ok());
    let e = Npu1::validate_as::<npuschema_core::Brief>(&blob[..31]).unwrap_err();
    let site = npuschema_generated::npu1::error_site(e.id()).unwrap();
    assert_eq!(site.code, "truncated-header");
    // One pass with the caller's hook.
    let mut baked = Baked { found: Vec::new() };
    let view = Npu1::validate_with::<npuschema_core::Error, _>(blob, &mut baked).expect("valid");
    assert_eq!(baked.found, [&weights[..]]);
    assert_eq!(view.regions().len(), 2);
}
