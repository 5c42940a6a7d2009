//! What the CLI's process-level tests share: a child run that cannot hang the test, and the
//! NPU1 blob whose stream repeats one large DMA (the simulator's budget stops it).
#![allow(dead_code)] // each test file uses part of it

use std::fmt::Debug;
use std::process::{Child, Output};
use std::time::{Duration, Instant};

use npuschema_generated::npu1::{Accel, Npu1Writer, RegionData, RegionSpec, Role};

/// Wait for `child`, killing it and failing the test if it has not ended within `limit` (a
/// hang is the finding, so the test must not hang with it); `what` names the run.
pub fn wait_bounded(mut child: Child, limit: Duration, what: &dyn Debug) -> Output {
    let t = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().expect("output")
}

/// An NPU1 blob of two `len`-byte runtime regions whose stream starts one `len`-byte DMA
/// between them `times` times.
pub fn dma_repeat(len: u32, times: usize) -> Vec<u8> {
    let weights = [7u8; 64];
    let mut stream = Vec::new();
    let mut cmd = |code: u16, param: u16, payload: Option<u32>| {
        stream.extend_from_slice(&(u32::from(code) | (u32::from(param) << 16)).to_le_bytes());
        if let Some(p) = payload {
            stream.extend_from_slice(&p.to_le_bytes());
        }
    };
    cmd(0x0130, 1, None); // DMA source region 1
    cmd(0x0131, 2, None); // DMA destination region 2
    cmd(0x4030, 0, Some(0));
    cmd(0x4031, 0, Some(0));
    cmd(0x4032, 0, Some(len));
    for _ in 0..times {
        cmd(0x0010, 0, None); // DMA start
    }
    cmd(0x0011, 0, None);
    cmd(0x0000, 0xFFFF, None);
    let specs = [
        RegionSpec {
            role: Role::Weights,
            data: RegionData::Baked(&weights),
        },
        RegionSpec {
            role: Role::Input,
            data: RegionData::Runtime(len),
        },
        RegionSpec {
            role: Role::Output,
            data: RegionData::Runtime(len),
        },
    ];
    Npu1Writer::new()
        .version(npuschema_generated::npu1::VERSION_V1)
        .accel(Accel::Macs128)
        .regions(&specs)
        .cmd_stream(&stream)
        .to_vec()
        .expect("writes")
}
