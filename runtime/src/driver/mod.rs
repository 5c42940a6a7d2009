//! The Ethos-U55 driver: one inference, the way Arm's C driver does it.
//!
//! 1. [`Driver::init`]: probe `ID` and `CONFIG` (the product must be U55), soft reset with a
//!    bounded wait, check `PROT`, write `AXI_LIMIT0..3`.
//! 2. [`Driver::start`] / [`Driver::start_irq`]: check the job's MACs/cycle against
//!    `1 << CONFIG.macs_per_cc` (0 = unspecified, skipped) and the 16-byte alignment of every
//!    address; clean the data cache over everything the NPU reads; program `QBASE`,
//!    `QSIZE`, `QCONFIG`, `BASEP[n]` and `REGIONCFG`; start with `CMD = (CMD & 0xC) | 1`.
//! 3. Completion, through the returned [`Running`]: by polling `STATUS` (bounded), or from
//!    the interrupt handler ([`IrqLatch::on_irq`]). Success needs `cmd_end_reached` and none
//!    of `bus_status`, `cmd_parse_error`, `wd_fault`, `ecc_fault`; anything else is an error
//!    carrying `STATUS` and `QREAD`, and the NPU is soft-reset. The data cache is then
//!    invalidated over every runtime region.
//!
//! The [`Running`] value borrows the driver and the job until the run is over, so the
//! arena cannot be touched by the CPU while the NPU owns it; dropping it unfinished
//! soft-resets the NPU (stopping it) before the borrow ends.

mod error;
mod irq;
mod platform;
pub mod regs;

use core::sync::atomic::{Ordering, fence};

pub use error::{DriverDetail, DriverError};
pub use irq::IrqLatch;
pub use platform::{NoCache, Platform};
pub use regs::{Config, Id, Registers, Status};

use crate::binder::{ARENA_ALIGN, Job, RegionKind};
use regs::{
    AXI_LIMIT_DEFAULT, CMD, CMD_CLEAR_IRQ, CMD_PWR_CLK_MASK, CMD_RUN, CONFIG, ID, PROT, QBASE,
    QBASE_HI, QCONFIG, QREAD, QSIZE, REGION_SLOTS, REGIONCFG, RESET, STATUS,
};

/// Driver settings. [`Default`] is Arm's driver defaults: privileged and secure,
/// `AXI_LIMITn = 0x0F1F0000`, `QCONFIG = 2`, `REGIONCFG` attributes `3,0,1,1,1,1,1,1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverOptions {
    /// Ask for the privileged level at reset (`RESET.pending_CPL = 1`).
    pub privileged: bool,
    /// Ask for the secure state at reset (`RESET.pending_CSL = 0`).
    pub secure: bool,
    /// `AXI_LIMIT0..3`, written after every reset.
    pub axi_limits: [u32; 4],
    /// `QCONFIG`: AXI attribute for command fetches.
    pub qconfig: u32,
    /// Two-bit AXI attribute of each region, packed into `REGIONCFG`.
    pub region_attrs: [u8; REGION_SLOTS],
    /// `STATUS` polls allowed for a soft reset to complete (Arm uses 100000).
    pub reset_polls: u32,
    /// Checks (`STATUS` polls, or latch checks with [`Platform::idle`] between them)
    /// allowed for a run to complete before `npu-timeout`.
    pub run_polls: u32,
}

impl Default for DriverOptions {
    fn default() -> Self {
        Self {
            privileged: true,
            secure: true,
            axi_limits: [AXI_LIMIT_DEFAULT; 4],
            qconfig: 2,
            region_attrs: [3, 0, 1, 1, 1, 1, 1, 1],
            reset_polls: 100_000,
            run_polls: 10_000_000,
        }
    }
}

impl DriverOptions {
    /// The `RESET` word these options ask for (and `PROT` must then read back).
    #[must_use]
    pub const fn reset_word(&self) -> u32 {
        (self.privileged as u32) | ((!self.secure as u32) << 1)
    }

    /// The `REGIONCFG` word.
    #[must_use]
    pub fn regioncfg(&self) -> u32 {
        self.region_attrs
            .iter()
            .zip((0u32..).step_by(2))
            .fold(0, |acc, (&attr, shift)| {
                acc | ((u32::from(attr) & 3) << shift)
            })
    }
}

/// What [`Driver::init`] read from the NPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HwInfo {
    /// The `ID` register.
    pub id: Id,
    /// The `CONFIG` register.
    pub config: Config,
}

/// A successful run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RunInfo {
    /// `STATUS` at completion.
    pub status: Status,
    /// `QREAD` at completion.
    pub qread: u32,
    /// Completion checks made (polls of `STATUS` or of the interrupt latch).
    pub polls: u32,
}

/// The Ethos-U55 driver over a register block `R` and platform hooks `P`.
#[derive(Debug)]
pub struct Driver<R, P = NoCache> {
    regs: R,
    platform: P,
    opts: DriverOptions,
    hw: Option<HwInfo>,
    ready: bool,
    last_reset_error: Option<DriverError>,
}

const fn err(code: &'static str, offset: u32, detail: DriverDetail) -> DriverError {
    DriverError::new(code, regs::name(offset), offset, detail)
}

impl<R: Registers, P: Platform> Driver<R, P> {
    /// A driver over `regs`; call [`Driver::init`] before starting a job.
    pub fn new(regs: R, platform: P, opts: DriverOptions) -> Self {
        Self {
            regs,
            platform,
            opts,
            hw: None,
            ready: false,
            last_reset_error: None,
        }
    }

    /// The options in use.
    #[must_use]
    pub fn options(&self) -> &DriverOptions {
        &self.opts
    }

    /// `ID` and `CONFIG` as read by the last successful [`Driver::init`].
    #[must_use]
    pub fn hw_info(&self) -> Option<HwInfo> {
        self.hw
    }

    /// The driver is initialised and the last reset succeeded.
    #[must_use]
    pub fn is_ready(&self) -> bool {
        self.ready
    }

    /// The error of the soft reset that followed a failed run, if that reset failed too
    /// (the driver is then not ready until [`Driver::init`] succeeds).
    #[must_use]
    pub fn last_reset_error(&self) -> Option<DriverError> {
        self.last_reset_error
    }

    /// The register block.
    pub fn registers_mut(&mut self) -> &mut R {
        &mut self.regs
    }

    /// The platform hooks.
    pub fn platform_mut(&mut self) -> &mut P {
        &mut self.platform
    }

    /// Give back the register block and the platform.
    pub fn into_parts(self) -> (R, P) {
        (self.regs, self.platform)
    }

    /// Probe and reset: `ID`'s architecture major must not be 0 (nothing there) and
    /// `CONFIG.product` must be 0 (U55), then a soft reset
    /// ([`Driver::soft_reset`]).
    ///
    /// # Errors
    ///
    /// `not-u55`, and the errors of [`Driver::soft_reset`].
    pub fn init(&mut self) -> Result<HwInfo, DriverError> {
        self.ready = false;
        let id = Id(self.regs.read(ID));
        // No Ethos-U has architecture major 0: an `ID` of that reads where there is no NPU
        // (a block that reads as zero, as QEMU's MPS3 AN547 has at the U55's address).
        if id.arch_major() == 0 {
            return Err(err(
                "not-u55",
                ID,
                DriverDetail::Mismatch {
                    found: u64::from(id.arch_major()),
                    expected: 1,
                },
            ));
        }
        let config = Config(self.regs.read(CONFIG));
        if config.product() != 0 {
            return Err(err(
                "not-u55",
                CONFIG,
                DriverDetail::Mismatch {
                    found: u64::from(config.product()),
                    expected: 0,
                },
            ));
        }
        let hw = HwInfo { id, config };
        self.hw = Some(hw);
        self.soft_reset()?;
        Ok(hw)
    }

    /// Soft reset: write `RESET` with the privilege/security level asked for, poll
    /// `STATUS.reset_status` until clear (at most `reset_polls` times), check `PROT`, write
    /// `AXI_LIMIT0..3`.
    ///
    /// # Errors
    ///
    /// `reset-timeout`, `prot-mismatch`.
    pub fn soft_reset(&mut self) -> Result<(), DriverError> {
        self.ready = false;
        let want = self.opts.reset_word();
        self.regs.write(RESET, want);
        let mut polls: u32 = 0;
        loop {
            let status = Status(self.regs.read(STATUS));
            polls = polls.saturating_add(1);
            if !status.reset_status() {
                break;
            }
            if polls >= self.opts.reset_polls {
                return Err(err(
                    "reset-timeout",
                    STATUS,
                    DriverDetail::Polls { status, polls },
                ));
            }
            self.platform.idle();
        }
        let prot = self.regs.read(PROT) & 3;
        if prot != want {
            return Err(err(
                "prot-mismatch",
                PROT,
                DriverDetail::Mismatch {
                    found: u64::from(prot),
                    expected: u64::from(want),
                },
            ));
        }
        for (n, &limit) in (0u32..).zip(self.opts.axi_limits.iter()) {
            self.regs.write(regs::axi_limit(n), limit);
        }
        self.ready = self.hw.is_some();
        Ok(())
    }

    /// Check a stream compiled for `accel_macs` MACs/cycle (0 = unspecified: always fine)
    /// against this NPU's `1 << CONFIG.macs_per_cc`.
    ///
    /// # Errors
    ///
    /// `config-mismatch`; `not-initialised` before [`Driver::init`].
    pub fn check_config(&self, accel_macs: u32) -> Result<(), DriverError> {
        let Some(hw) = self.hw else {
            return Err(err("not-initialised", RESET, DriverDetail::None));
        };
        if accel_macs != 0 && accel_macs != hw.config.macs() {
            return Err(err(
                "config-mismatch",
                CONFIG,
                DriverDetail::Mismatch {
                    found: u64::from(hw.config.macs()),
                    expected: u64::from(accel_macs),
                },
            ));
        }
        Ok(())
    }

    /// Start `job`; completion is found by polling `STATUS`.
    ///
    /// # Errors
    ///
    /// `not-initialised`, `config-mismatch`, `misaligned-command-stream`,
    /// `misaligned-region`, `command-stream-too-long`. Nothing is written to the NPU then.
    pub fn start<'r, 'b, 'a>(
        &'r mut self,
        job: &'r mut Job<'b, 'a>,
    ) -> Result<Running<'r, 'b, 'a, R, P>, DriverError> {
        self.launch(job, None)
    }

    /// Start `job`; completion is reported by the interrupt handler through `latch`
    /// ([`IrqLatch::on_irq`]), which must be wired to this NPU's interrupt.
    ///
    /// # Errors
    ///
    /// As [`Driver::start`].
    pub fn start_irq<'r, 'b, 'a>(
        &'r mut self,
        job: &'r mut Job<'b, 'a>,
        latch: &'r IrqLatch,
    ) -> Result<Running<'r, 'b, 'a, R, P>, DriverError> {
        self.launch(job, Some(latch))
    }

    /// Run `job` to completion by polling.
    ///
    /// # Errors
    ///
    /// Those of [`Driver::start`] and [`Running::wait`].
    pub fn run(&mut self, job: &mut Job<'_, '_>) -> Result<RunInfo, DriverError> {
        self.start(job)?.wait()
    }

    fn launch<'r, 'b, 'a>(
        &'r mut self,
        job: &'r mut Job<'b, 'a>,
        latch: Option<&'r IrqLatch>,
    ) -> Result<Running<'r, 'b, 'a, R, P>, DriverError> {
        if !self.ready {
            return Err(err("not-initialised", RESET, DriverDetail::None));
        }
        self.check_config(job.accel_macs())?;
        let qbase = job.cmd_npu_address();
        if !qbase.is_multiple_of(ARENA_ALIGN) {
            return Err(err(
                "misaligned-command-stream",
                QBASE,
                DriverDetail::Misaligned { address: qbase },
            ));
        }
        let cmd_len = job.cmd_stream().len();
        let Ok(qsize) = u32::try_from(cmd_len) else {
            return Err(err(
                "command-stream-too-long",
                QSIZE,
                DriverDetail::Mismatch {
                    found: cmd_len as u64,
                    expected: u64::from(u32::MAX),
                },
            ));
        };
        let mut basep = [0u64; REGION_SLOTS];
        for (r, slot) in job.regions().zip(basep.iter_mut()) {
            if !r.npu_address.is_multiple_of(ARENA_ALIGN) {
                return Err(err(
                    "misaligned-region",
                    regs::basep_lo(u32::from(r.index)),
                    DriverDetail::Misaligned {
                        address: r.npu_address,
                    },
                ));
            }
            *slot = r.npu_address;
        }

        // Everything the NPU reads must be in memory, not only in the CPU's cache.
        self.platform.clean(job.cmd_stream(), qbase);
        for i in 0..job.region_count() {
            if let (Some(r), Some(bytes)) = (job.region(i), job.region_bytes(i)) {
                self.platform.clean(bytes, r.npu_address);
            }
        }
        fence(Ordering::SeqCst);
        if let Some(l) = latch {
            l.clear();
        }

        self.regs.write(QBASE, qbase as u32);
        self.regs.write(QBASE_HI, (qbase >> 32) as u32);
        self.regs.write(QSIZE, qsize);
        self.regs.write(QCONFIG, self.opts.qconfig);
        // Unbound slots get 0 so no stale address from an earlier job stays programmed.
        for (n, &addr) in (0u32..).zip(basep.iter()) {
            self.regs.write(regs::basep_lo(n), addr as u32);
            self.regs.write(regs::basep_hi(n), (addr >> 32) as u32);
        }
        self.regs.write(REGIONCFG, self.opts.regioncfg());
        let cmd = self.regs.read(CMD);
        self.regs.write(CMD, (cmd & CMD_PWR_CLK_MASK) | CMD_RUN);
        Ok(Running {
            driver: self,
            job,
            latch,
            polls: 0,
            outcome: None,
        })
    }

    /// Soft reset after a failed run; remember a failure of the reset itself.
    fn recover(&mut self) {
        match self.soft_reset() {
            Ok(()) => self.last_reset_error = None,
            Err(e) => self.last_reset_error = Some(e),
        }
    }

    /// Invalidate the data cache over every runtime region.
    fn invalidate_outputs(&mut self, job: &mut Job<'_, '_>) {
        fence(Ordering::SeqCst);
        for i in 0..job.region_count() {
            let Some(r) = job.region(i) else { continue };
            if r.kind != RegionKind::Runtime {
                continue;
            }
            if let Some(bytes) = job.region_bytes_mut(i) {
                self.platform.invalidate(bytes, r.npu_address);
            }
        }
    }

    /// Turn the final `STATUS`/`QREAD` into the run's result; reset after a failure.
    fn finish(
        &mut self,
        job: &mut Job<'_, '_>,
        status: Status,
        qread: u32,
        polls: u32,
    ) -> Result<RunInfo, DriverError> {
        let code = if status.bus_status() {
            Some("bus-fault")
        } else if status.cmd_parse_error() {
            Some("cmd-parse-error")
        } else if status.wd_fault() {
            Some("watchdog-fault")
        } else if status.ecc_fault() {
            Some("ecc-fault")
        } else if !status.cmd_end_reached() {
            Some("cmd-end-not-reached")
        } else {
            None
        };
        let result = match code {
            None => Ok(RunInfo {
                status,
                qread,
                polls,
            }),
            Some(code) => {
                self.recover();
                Err(err(code, STATUS, DriverDetail::Run { status, qread }))
            }
        };
        self.invalidate_outputs(job);
        result
    }

    fn clear_irq(&mut self) {
        let cmd = self.regs.read(CMD);
        self.regs
            .write(CMD, (cmd & CMD_PWR_CLK_MASK) | CMD_CLEAR_IRQ);
    }
}

/// A job the NPU is running. Borrows the driver and the job until the run is over.
///
/// Dropping it before completion soft-resets the NPU so it stops touching the job's memory.
#[derive(Debug)]
#[must_use = "dropping a Running soft-resets the NPU; call wait() or poll_done()"]
pub struct Running<'r, 'b, 'a, R: Registers, P: Platform> {
    driver: &'r mut Driver<R, P>,
    job: &'r mut Job<'b, 'a>,
    latch: Option<&'r IrqLatch>,
    polls: u32,
    outcome: Option<Result<RunInfo, DriverError>>,
}

impl<R: Registers, P: Platform> Running<'_, '_, '_, R, P> {
    /// Check once for completion, without waiting: `None` while the NPU runs, then the
    /// run's result (the same one on every later call).
    pub fn poll_done(&mut self) -> Option<Result<RunInfo, DriverError>> {
        if let Some(outcome) = self.outcome {
            return Some(outcome);
        }
        self.polls = self.polls.saturating_add(1);
        let (status, qread) = match self.latch {
            Some(latch) => latch.take()?,
            None => {
                let status = Status(self.driver.regs.read(STATUS));
                if !(status.irq_raised() || status.any_fault()) {
                    return None;
                }
                let qread = self.driver.regs.read(QREAD);
                self.driver.clear_irq();
                (status, qread)
            }
        };
        let outcome = self.driver.finish(self.job, status, qread, self.polls);
        self.outcome = Some(outcome);
        Some(outcome)
    }

    /// Wait for completion: at most `run_polls` checks, calling [`Platform::idle`] between
    /// two.
    ///
    /// # Errors
    ///
    /// `npu-timeout` (the NPU is then soft-reset), `bus-fault`, `cmd-parse-error`,
    /// `watchdog-fault`, `ecc-fault`, `cmd-end-not-reached`.
    pub fn wait(mut self) -> Result<RunInfo, DriverError> {
        loop {
            if let Some(outcome) = self.poll_done() {
                return outcome;
            }
            if self.polls >= self.driver.opts.run_polls {
                return self.give_up();
            }
            self.driver.platform.idle();
        }
    }

    /// Number of completion checks so far.
    #[must_use]
    pub fn polls(&self) -> u32 {
        self.polls
    }

    /// Stop waiting: report `npu-timeout` with the current `STATUS` and `QREAD`, reset.
    fn give_up(&mut self) -> Result<RunInfo, DriverError> {
        let status = Status(self.driver.regs.read(STATUS));
        let qread = self.driver.regs.read(QREAD);
        let e = err("npu-timeout", STATUS, DriverDetail::Run { status, qread });
        self.driver.recover();
        self.driver.invalidate_outputs(self.job);
        self.outcome = Some(Err(e));
        Err(e)
    }
}

impl<R: Registers, P: Platform> Drop for Running<'_, '_, '_, R, P> {
    fn drop(&mut self) {
        if self.outcome.is_none() {
            let _ = self.give_up();
        }
    }
}
