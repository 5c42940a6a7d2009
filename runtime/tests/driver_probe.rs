//! The probe on a register block with no NPU behind it: where the Ethos-U55 should be, a
//! board without one (or QEMU's MPS3 AN547, which does not model it) reads as zero and
//! ignores writes. `init` must say `not-u55` there, before writing anything.
// Test code: a panic is a test failure.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::cell::Cell;
use std::rc::Rc;

use npuschema_runtime::driver::regs::{self, Registers};
use npuschema_runtime::driver::{Driver, DriverDetail, DriverOptions, NoCache};
use npuschema_sim::{Sim, SimConfig};

/// Reads as zero, ignores writes (RAZ/WI), and counts the writes (in a counter the test
/// keeps: the driver does not give its register block back).
#[derive(Default)]
struct Nothing {
    writes: Rc<Cell<u32>>,
}

impl Registers for Nothing {
    fn read(&mut self, _offset: u32) -> u32 {
        0
    }
    fn write(&mut self, _offset: u32, _value: u32) {
        self.writes.set(self.writes.get().saturating_add(1));
    }
}

#[test]
fn a_block_that_reads_as_zero_is_not_u55_and_is_not_written() {
    let block = Nothing::default();
    let writes = Rc::clone(&block.writes);
    let mut driver = Driver::new(block, NoCache, DriverOptions::default());
    let e = driver.init().unwrap_err();
    assert_eq!(e.code, "not-u55");
    assert_eq!(e.offset, regs::ID);
    assert_eq!(
        e.detail,
        DriverDetail::Mismatch {
            found: 0,
            expected: 1
        }
    );
    assert!(!driver.is_ready());
    assert_eq!(writes.get(), 0, "no register written");
}

#[test]
fn an_id_with_architecture_major_zero_is_not_u55() {
    // A U55 CONFIG, but ID 0x0010_0100 (arch 0.1.0).
    let sim = Sim::new(SimConfig {
        id: 0x0010_0100,
        ..SimConfig::default()
    });
    let mut driver = Driver::new(sim.clone(), sim.clone(), DriverOptions::default());
    assert_eq!(driver.init().unwrap_err().code, "not-u55");
    assert!(sim.write_log().is_empty(), "no register written");
    // The simulator's default ID (arch 1.1.0) passes the probe.
    let sim = Sim::default();
    let mut driver = Driver::new(sim.clone(), sim, DriverOptions::default());
    driver.init().unwrap();
}
