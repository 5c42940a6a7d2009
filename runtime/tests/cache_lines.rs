//! Cache lines: with a line size configured ([`CacheAligned::lines`], 32 bytes), every
//! region the NPU writes is aligned and sized to whole lines (the arena holds a runtime
//! region's last line, a caller's buffer holds its region rounded up to the line), and
//! the driver refuses a job whose regions are not, on a platform that maintains lines.
// Test code: a panic is a test failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use npuschema_generated::npu1::{Accel, Npu1, Npu1Writer, RegionData, RegionSpec as WSpec, Role};
use npuschema_runtime::binder::{
    CACHE_LINE, CacheAligned, Identity, Job, RegionSource, RegionSpec, arena_size_for_align,
};
use npuschema_runtime::cmd::CheckedJob;
use npuschema_runtime::driver::{CacheTarget, Driver, DriverOptions, Platform};
use npuschema_sim::{Sim, SimConfig};

#[repr(C, align(64))]
struct Aligned<const N: usize>([u8; N]);

/// Region 0 runtime 40 bytes, region 1 runtime 8 bytes.
fn specs() -> [RegionSpec<'static>; 2] {
    [
        RegionSpec {
            role: 2,
            source: RegionSource::Runtime(40),
        },
        RegionSpec {
            role: 3,
            source: RegionSource::Runtime(8),
        },
    ]
}

const STOP: [u8; 4] = [0x00, 0x00, 0xFF, 0xFF];

#[test]
fn the_arena_holds_the_last_regions_last_line() {
    assert_eq!(CACHE_LINE, 32);
    let need = arena_size_for_align(specs(), CACHE_LINE).unwrap();
    // 40 -> 64 (two lines), then 8 -> 32 (one line).
    assert_eq!(need.aligned_start, 96);
    assert_eq!(need.any_start, 96 + 31);
    let mut cmd = Aligned::<64>([0; 64]);
    cmd.0[..4].copy_from_slice(&STOP);
    let mut arena = Aligned::<128>([0; 128]);
    let map = CacheAligned::lines(Identity);
    // One byte short of the last line: refused, the line-rounded size reported.
    let e = Job::bind_parts(&cmd.0[..4], 0, specs(), &mut arena.0[..95], &map).unwrap_err();
    assert_eq!(e.code, "arena-overflow");
    assert!(e.to_string().contains("0x20"), "{e}");
    // Without lines (16), 16 + 40 rounded + 8 = 56 bytes were enough.
    assert!(Job::bind_parts(&cmd.0[..4], 0, specs(), &mut arena.0[..56], &Identity).is_ok());
    let job = Job::bind_parts(&cmd.0[..4], 0, specs(), &mut arena.0[..96], &map).unwrap();
    assert_eq!(job.arena_used(), 96);
    assert_eq!(job.region_align(), 32);
    for r in job.regions() {
        assert_eq!(r.npu_address % 32, 0, "{r:?}");
    }
    assert_eq!(job.region(1).unwrap().arena_offset, Some(64));
    assert_eq!(job.region(1).unwrap().size, 8, "the region keeps its size");
}

fn io_blob() -> Vec<u8> {
    let specs = [
        WSpec {
            role: Role::Input,
            data: RegionData::Runtime(40),
        },
        WSpec {
            role: Role::Output,
            data: RegionData::Runtime(8),
        },
    ];
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(&STOP)
        .to_vec()
        .unwrap()
}

#[test]
fn a_callers_buffer_holds_its_regions_last_line() {
    let bytes = io_blob();
    let mut blob = Aligned::<1024>([0; 1024]);
    blob.0[..bytes.len()].copy_from_slice(&bytes);
    let blob = &blob.0[..bytes.len()];
    let mut buffer = Aligned::<64>([0; 64]);
    let mut arena = Aligned::<64>([0; 64]);
    let map = CacheAligned::lines(Identity);

    let mut b = [const { None }; 8];
    b[0] = Some(&mut buffer.0[..40]);
    let e = Job::bind_with_buffers(Npu1::validate(blob).unwrap(), &mut arena.0, &map, b)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.code, "buffer-too-small");
    assert!(e.to_string().contains("0x40"), "the rounded size, 64: {e}");

    let mut b = [const { None }; 8];
    b[0] = Some(&mut buffer.0[..64]);
    let job = Job::bind_with_buffers(Npu1::validate(blob).unwrap(), &mut arena.0, &map, b).unwrap();
    assert_eq!(job.region(0).unwrap().size, 40);
}

/// A platform that maintains 32-byte lines.
struct Lines(Sim);
impl Platform for Lines {
    fn clean(&mut self, bytes: &[u8], npu: u64, target: CacheTarget) {
        self.0.clean(bytes, npu, target);
    }
    fn invalidate(&mut self, bytes: &mut [u8], npu: u64, target: CacheTarget) {
        assert_eq!(npu % 32, 0, "line-aligned");
        self.0.invalidate(bytes, npu, target);
    }
    fn cache_line(&self) -> u32 {
        32
    }
}

#[test]
fn the_driver_refuses_regions_not_on_the_platforms_lines() {
    let sim = Sim::new(SimConfig::default());
    let opts = DriverOptions {
        address_bits: 64,
        ..DriverOptions::default()
    };
    let mut driver = Driver::new(sim.clone(), Lines(sim.clone()), opts);
    driver.init().unwrap();
    let mut cmd = Aligned::<64>([0; 64]);
    cmd.0[..4].copy_from_slice(&STOP);
    let mut arena = Aligned::<128>([0; 128]);
    let job = Job::bind_parts(&cmd.0[..4], 0, specs(), &mut arena.0, &Identity).unwrap();
    let mut job = CheckedJob::check(job).unwrap();
    let e = driver.run(&mut job).unwrap_err();
    assert_eq!(e.code, "regions-not-cache-aligned");
    let map = CacheAligned::lines(Identity);
    let job = Job::bind_parts(&cmd.0[..4], 0, specs(), &mut arena.0, &map).unwrap();
    let mut job = CheckedJob::check(job).unwrap();
    sim.bind_job(&job);
    driver.run(&mut job).expect("line-aligned regions run");
}
