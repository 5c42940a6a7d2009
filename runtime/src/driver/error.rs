//! The driver's error: a stable kebab-case code, the register it concerns (name and offset),
//! and the values read.

use core::fmt;

use super::regs::Status;

/// The values behind a [`DriverError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DriverDetail {
    /// Nothing more than the code and the register.
    None,
    /// A register or a blob field does not hold the value it must.
    Mismatch {
        /// What was found.
        found: u64,
        /// What was required.
        expected: u64,
    },
    /// An address handed to the NPU is not 16-byte aligned.
    Misaligned {
        /// The NPU bus address.
        address: u64,
    },
    /// A buffer handed to the NPU does not lie below 4 GiB (the U55's addresses are 32-bit).
    Address {
        /// The NPU bus address.
        address: u64,
        /// The buffer's length in bytes.
        len: u64,
    },
    /// A bounded wait ran out.
    Polls {
        /// The last `STATUS` read.
        status: Status,
        /// How many times it was polled.
        polls: u32,
    },
    /// A run ended badly (or did not end): the `STATUS` and `QREAD` the NPU reported.
    Run {
        /// `STATUS` when the run ended (or when the wait gave up).
        status: Status,
        /// `QREAD`: byte offset of the command being executed.
        qread: u32,
    },
}

/// A driver failure. `code` is stable and kebab-case:
///
/// | code | register | meaning |
/// |---|---|---|
/// | `not-u55` | `CONFIG` | `CONFIG.product` is not 0 |
/// | `reset-timeout` | `STATUS` | `reset_status` did not clear within the poll bound |
/// | `prot-mismatch` | `PROT` | after reset, the privilege/security level is not the one asked for |
/// | `product-mismatch` | `CONFIG` | the stream was compiled for another product |
/// | `config-mismatch` | `CONFIG` | the blob's MACs/cycle differ from `1 << CONFIG.macs_per_cc` |
/// | `cmd-stream-version-mismatch` | `CONFIG` | `CONFIG.cmd_stream_version` is not the stream's |
/// | `arch-mismatch` | `ID` | the NPU's architecture major revision differs from the stream's, or its minor revision is older |
/// | `npu-busy` | `STATUS` | a start while `STATUS` says the NPU is running (a forgotten transfer) |
/// | `misaligned-command-stream` | `QBASE` | command-stream address not 16-byte aligned |
/// | `misaligned-region` | `BASEP` | a region address not 16-byte aligned |
/// | `address-out-of-range` | `QBASE`/`BASEP` | the stream or a region does not lie below 4 GiB |
/// | `command-stream-too-long` | `QSIZE` | the stream does not fit the 32-bit `QSIZE` |
/// | `not-initialised` | `RESET` | [`super::Driver::init`] has not succeeded (or a reset after a fault failed) |
/// | `npu-timeout` | `STATUS` | the run did not finish within `run_timeout` |
/// | `bus-fault` | `STATUS` | `bus_status`: an AXI abort (see the faulting interface/channel) |
/// | `cmd-parse-error` | `STATUS` | `cmd_parse_error` |
/// | `watchdog-fault` | `STATUS` | `wd_fault` |
/// | `ecc-fault` | `STATUS` | `ecc_fault` |
/// | `cmd-end-not-reached` | `STATUS` | the IRQ came without `cmd_end_reached` |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DriverError {
    /// Stable, kebab-case error code.
    pub code: &'static str,
    /// Name of the register the check reads or the value goes to (`"BASEP"` for a region).
    pub register: &'static str,
    /// Byte offset of that register from the NPU's base address.
    pub offset: u32,
    /// The values involved.
    pub detail: DriverDetail,
}

impl DriverError {
    pub(crate) const fn new(
        code: &'static str,
        register: &'static str,
        offset: u32,
        detail: DriverDetail,
    ) -> Self {
        Self {
            code,
            register,
            offset,
            detail,
        }
    }

    /// The stable code.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        self.code
    }

    /// `STATUS` and `QREAD` when the error is about a run.
    #[must_use]
    pub const fn run_status(&self) -> Option<(Status, u32)> {
        match self.detail {
            DriverDetail::Run { status, qread } => Some((status, qread)),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x}", self.0)?;
        let names = [
            (self.running(), "running"),
            (self.irq_raised(), "irq_raised"),
            (self.bus_status(), "bus_status"),
            (self.reset_status(), "reset_status"),
            (self.cmd_parse_error(), "cmd_parse_error"),
            (self.cmd_end_reached(), "cmd_end_reached"),
            (self.pmu_irq_raised(), "pmu_irq_raised"),
            (self.wd_fault(), "wd_fault"),
            (self.ecc_fault(), "ecc_fault"),
        ];
        let mut first = true;
        for (set, name) in names {
            if set {
                f.write_str(if first { " (" } else { ", " })?;
                f.write_str(name)?;
                first = false;
            }
        }
        if !first {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} at {:#05x}",
            self.code, self.register, self.offset
        )?;
        match self.detail {
            DriverDetail::None => Ok(()),
            DriverDetail::Mismatch { found, expected } => {
                write!(f, ": found {found:#x}, expected {expected:#x}")
            }
            DriverDetail::Misaligned { address } => {
                write!(f, ": address {address:#x} is not 16-byte aligned")
            }
            DriverDetail::Address { address, len } => {
                write!(f, ": {len:#x} bytes at {address:#x} pass 4 GiB")
            }
            DriverDetail::Polls { status, polls } => {
                write!(f, ": STATUS {status} after {polls} polls")
            }
            DriverDetail::Run { status, qread } => {
                write!(f, ": STATUS {status}, QREAD {qread:#x}")?;
                if status.bus_status() {
                    write!(
                        f,
                        ", faulting interface {} channel {}",
                        status.faulting_interface(),
                        status.faulting_channel()
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl core::error::Error for DriverError {}
