//! The Ethos-U55 driver: one inference, the way Arm's C driver does it.
//!
//! 1. [`Driver::init`]: probe `ID` and `CONFIG` (the product must be U55), soft reset with a
//!    bounded wait, check `PROT`, write `AXI_LIMIT0..3`, enable the clock and power
//!    Q-channels (`CMD[3:2]`).
//! 2. Start ([`Driver::run`], [`Driver::run_irq`], [`Driver::start`], [`Driver::start_irq`]):
//!    check what the job was compiled for against `ID` and `CONFIG`
//!    ([`Driver::check_compiled_for`]), that `STATUS` does not say the NPU is running, the
//!    16-byte alignment of every address and that every buffer lies below 4 GiB (the U55's
//!    addresses are 32-bit); request power ([`Driver::request_power`]: the first request
//!    soft-resets the NPU and disables clock and power gating); clean the data cache over
//!    everything the NPU reads; program `QBASE`, `QSIZE`, `QCONFIG`, `BASEP[n]` and
//!    `REGIONCFG`; start with `CMD = (CMD & 0xC) | 1`.
//! 3. Completion: by polling `STATUS`, or woken by the interrupt handler
//!    ([`IrqLatch::on_irq`]) and confirmed from the driver's own `STATUS` (the latch is a
//!    wake-up, not evidence), within [`DriverOptions::run_timeout`] of the platform's
//!    clock. Success needs
//!    `cmd_end_reached` and none of `bus_status`, `cmd_parse_error`, `wd_fault`,
//!    `ecc_fault`; anything else is an error carrying `STATUS` and `QREAD`, and the NPU is
//!    soft-reset. The data cache is then invalidated over every region the NPU may write,
//!    and the power request released (the last release enables gating again).
//!
//! # Soundness: the NPU never uses memory the program can touch
//!
//! The NPU reads and writes the job's memory (the blob's command stream and baked regions,
//! the arena, caller-owned buffers) behind the compiler's back. Safe code must not be able
//! to reach that memory while the NPU may still use it, even by leaking a value
//! (`core::mem::forget` is safe). Two shapes of API guarantee it:
//!
//! * **Blocking, borrowed job** ([`Driver::run`], [`Driver::run_irq`]): the run starts and
//!   ends inside the call, which returns only once the NPU has stopped (completion, or a
//!   timeout or fault followed by a soft reset, which stops it). No value that could be
//!   leaked exists while the NPU runs, so the job can borrow any memory. Should a
//!   [`Platform`] hook panic during the wait, a guard soft-resets the NPU while the panic
//!   unwinds, before the borrow ends (with `panic = "abort"`, as in firmware, nothing
//!   unwinds, and the guard is compiled out).
//! * **Owned transfer, `'static` job** ([`Driver::start`], [`Driver::start_irq`]), the
//!   `embedded-dma` approach: the job moves by value into the returned [`Transfer`], and
//!   comes back only from [`Transfer::wait`] (or `Transfer::wait_async`, feature `async`), once the NPU
//!   has stopped. Dropping an unfinished transfer soft-resets the NPU before the job is
//!   dropped. Forgetting it forgets the job with it: because the job must be
//!   `CheckedJob<'static, 'static>` (its blob `&'static [u8]`, its arena and buffers
//!   `&'static mut [u8]`), no borrow ends when the transfer is forgotten, and nothing else
//!   can ever reach that memory again. The driver itself is free again after a forgotten
//!   transfer; [`Driver::start`] then refuses with `npu-busy` while `STATUS` says the NPU
//!   is running (a soft reset, [`Driver::soft_reset`], stops it).
//!
//! No safe path writes the NPU's registers except this driver: the driver does not hand out
//! its register block, and [`crate::mmio::Mmio`], the real one, is made only by an `unsafe`
//! constructor whose contract reserves it to a driver (and to [`IrqLatch::on_irq`], which
//! writes only `CMD`'s clear-IRQ bit).
//!
//! Four more things keep the NPU off memory the program can touch:
//!
//! * **The stream is checked on the device.** The U55 has no region bounds, so a stream
//!   that accesses past its regions, or writes a baked region (the blob's bytes, which the
//!   program holds as `&[u8]`), reaches other memory. The driver runs only a
//!   [`CheckedJob`], which only [`CheckedJob::check`] makes (every access against the
//!   bound regions, no write to a baked one), or the `unsafe` [`CheckedJob::vouched`],
//!   whose caller vouches for the stream.
//! * **Addresses come from an `unsafe trait`.** [`crate::binder::AddressMap`] decides where
//!   the NPU's DMA goes, so implementing it is `unsafe` (the implementation vouches the map
//!   is linear over each buffer and gives addresses the NPU may use).
//! * **A latch is a wake-up, bound to one driver.** Completion on the interrupt path is
//!   confirmed from the driver's own `STATUS`, so a latch filled from another register
//!   block proves nothing; and a driver waits on a latch only with its one [`IrqKey`],
//!   held by `&mut` for the run.
//! * **A job whose NPU did not reset is not given back.** After a failed run the NPU is
//!   soft-reset; should that reset fail, the NPU may still run. A blocking run then does
//!   not return until a reset succeeds (retrying, with [`Platform::reset_failed`] between
//!   tries); [`Transfer::wait`] returns [`Stuck`] without the job (its `'static` memory is
//!   out of reach for good), and the driver refuses every start with `npu-not-reset`
//!   until [`Driver::soft_reset`] or [`Driver::init`] succeeds.

mod error;
mod irq;
mod platform;
pub mod pmu;
pub mod regs;

use core::sync::atomic::{Ordering, fence};

pub use error::{DriverDetail, DriverError};
pub use irq::{IrqKey, IrqLatch};
pub use platform::{CacheTarget, NoCache, Platform};
pub use pmu::{PmuConfig, PmuCounters, PmuEvent};
pub use regs::{Config, Id, Registers, Status};

use crate::binder::{ARENA_ALIGN, Job, RegionKind};
use crate::cmd::CheckedJob;
use npuschema_generated::ethos_u55_regs as map;
use regs::{
    AXI_LIMIT_DEFAULT, CMD, CMD_CLEAR_IRQ, CMD_PWR_CLK_MASK, CMD_RUN, CONFIG, ID, PMCCNTR,
    PMCCNTR_CFG, PMCCNTR_HI, PMCNTENCLR, PMCNTENSET, PMCR, PMCR_CNT_EN, PMCR_CYCLE_CNT_RST,
    PMCR_EVENT_CNT_RST, PMOVSCLR, PMOVSSET, PROT, QBASE, QBASE_HI, QCONFIG, QREAD, QSIZE,
    REGION_SLOTS, REGIONCFG, RESET, STATUS,
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
    /// How long a run may take before `npu-timeout`, in the unit of [`Platform::now`]
    /// (measured from the start). A platform without a clock (`now()` is `None`) counts
    /// completion checks instead.
    pub run_timeout: u64,
    /// Width of the NPU's bus addresses: every buffer must lie below `2^address_bits`.
    /// 32 for the Ethos-U55 (Arm's driver asserts it). A host-side simulation whose bus
    /// addresses are the host's 64-bit addresses sets 64 (no limit).
    pub address_bits: u32,
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
            run_timeout: 10_000_000,
            address_bits: 32,
        }
    }
}

impl DriverOptions {
    /// The `RESET` word these options ask for (and `PROT` must then read back).
    #[must_use]
    pub const fn reset_word(&self) -> u32 {
        map::Reset::new()
            .with_pending_cpl(self.privileged)
            .with_pending_csl(!self.secure)
            .bits()
    }

    /// The `REGIONCFG` word.
    #[must_use]
    pub fn regioncfg(&self) -> u32 {
        // REGIONCFG's eight fields are alike and evenly spaced: region n's is region 0's
        // shifted by n steps.
        use map::Regioncfg as R;
        const FIELD: u32 = R::REGION0_MASK >> R::REGION0_SHIFT;
        const STEP: usize = (R::REGION1_SHIFT - R::REGION0_SHIFT) as usize;
        self.region_attrs
            .iter()
            .zip((R::REGION0_SHIFT..).step_by(STEP))
            .fold(0, |acc, (&attr, shift)| {
                acc | ((u32::from(attr) & FIELD) << shift)
            })
    }
}

/// What [`Driver::init`] read from the NPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HwInfo {
    /// The `ID` register.
    pub id: Id,
    /// The `CONFIG` register.
    pub config: Config,
}

/// What a command stream was compiled for, checked against `ID` and `CONFIG` before a run
/// the way Arm's driver checks Vela's optimizer configuration.
///
/// An NPU1 v1 file carries only the MACs/cycle ([`CompiledFor::npu1_v1`]); the rest is what
/// every NPU1 v1 stream is: Vela's Ethos-U55 output, command-stream version 0, register
/// architecture 1.0.6 (Vela's `ARCH_VER`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CompiledFor {
    /// MACs per cycle; 0 = unspecified (not checked).
    pub macs: u32,
    /// `CONFIG.product` (0 = Ethos-U55).
    pub product: u32,
    /// `CONFIG.cmd_stream_version`.
    pub cmd_stream_version: u32,
    /// `ID.arch_major_rev`: the NPU's must be equal.
    pub arch_major: u32,
    /// `ID.arch_minor_rev`: the NPU's must be at least this.
    pub arch_minor: u32,
    /// `ID.arch_patch_rev` (reported, not checked, as in Arm's driver).
    pub arch_patch: u32,
}

impl CompiledFor {
    /// An NPU1 v1 stream compiled for `macs` MACs/cycle (the header's `accel`).
    #[must_use]
    pub const fn npu1_v1(macs: u32) -> Self {
        Self {
            macs,
            product: 0,
            cmd_stream_version: 0,
            arch_major: 1,
            arch_minor: 0,
            arch_patch: 6,
        }
    }

    /// The architecture packed as `ID[31:16]` holds it: major `[15:12]`, minor `[11:4]`,
    /// patch `[3:0]`.
    #[must_use]
    pub const fn arch_word(&self) -> u32 {
        Id::arch_word_of(self.arch_major, self.arch_minor, self.arch_patch)
    }
}

/// The two words of Vela's `OPTIMIZER_CONFIG` driver action, which Arm's driver checks
/// against the NPU before a run: the `CONFIG` and `ID` the stream was compiled for (an
/// NPU1 v2 file's `npu_config` and `npu_id` header words). See
/// [`Driver::check_optimizer_config`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct OptimizerConfig {
    /// The `CONFIG` word compiled for (Vela's U55-128: `0x0000_1807`).
    pub config: u32,
    /// The `ID` word compiled for.
    pub id: u32,
}

/// The job's compiled-for words as [`Driver::check_optimizer_config`] takes them: `None`
/// for an NPU1 v1 blob, a job bound from a list of regions, or words the producer left zero.
fn optimizer_words(job: &Job<'_, '_>) -> Option<OptimizerConfig> {
    job.compiled_for()
        .filter(|&(config, id)| config != 0 || id != 0)
        .map(|(config, id)| OptimizerConfig { config, id })
}

/// What [`Driver::check_optimizer_config`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigCheck {
    /// The words were checked and match this NPU.
    Matched,
    /// No words to check (an NPU1 v1 file carries none): nothing was compared beyond the
    /// MACs/cycle [`Driver::check_config`] compares.
    Skipped,
}

/// A successful run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RunInfo {
    /// `STATUS` at completion.
    pub status: Status,
    /// `QREAD` at completion.
    pub qread: u32,
    /// Completion checks made (polls of `STATUS` or of the interrupt latch).
    pub polls: u32,
    /// Time from the start to the check that saw completion, in [`Platform::now`]'s unit
    /// (`None` without a clock).
    pub elapsed: Option<u64>,
    /// Whether the stream's compiled-for words (NPU1 v2's `npu_config`, `npu_id`) were
    /// checked against this NPU before the run ([`ConfigCheck::Matched`]: they were, and
    /// matched), or skipped: an NPU1 v1 blob, or a v2 one whose producer did not know them
    /// (both zero), where only the MACs/cycle were compared.
    pub compiled_for: ConfigCheck,
}

/// The Ethos-U55 driver over a register block `R` and platform hooks `P`.
#[derive(Debug)]
pub struct Driver<R, P = NoCache> {
    regs: R,
    platform: P,
    opts: DriverOptions,
    hw: Option<HwInfo>,
    ready: bool,
    power_requests: u32,
    pmu_on: bool,
    last_reset_error: Option<DriverError>,
}

const fn err(code: &'static str, offset: u32, detail: DriverDetail) -> DriverError {
    DriverError::new(code, regs::name(offset), offset, detail)
}

/// Check that `address .. address + len` is 16-byte aligned and lies below
/// `2^address_bits`.
fn check_address(
    address: u64,
    len: u64,
    address_bits: u32,
    offset: u32,
    misaligned: &'static str,
) -> Result<(), DriverError> {
    if !address.is_multiple_of(ARENA_ALIGN) {
        return Err(err(
            misaligned,
            offset,
            DriverDetail::Misaligned { address },
        ));
    }
    let fits = match (address.checked_add(len), 1u64.checked_shl(address_bits)) {
        (Some(end), Some(limit)) => end <= limit,
        (Some(_), None) => true,
        (None, _) => false,
    };
    if fits {
        Ok(())
    } else {
        Err(err(
            "address-out-of-range",
            offset,
            DriverDetail::Address { address, len },
        ))
    }
}

/// The state of a run being waited for.
#[derive(Debug)]
struct Waiting<'l> {
    latch: Option<&'l IrqLatch>,
    polls: u32,
    started: Option<u64>,
    outcome: Option<Result<RunInfo, DriverError>>,
}

/// A job refused by [`Driver::start`]: the error and the job, given back.
#[derive(Debug)]
pub struct Refused {
    /// Why the run did not start (nothing was written to the NPU's run registers).
    pub error: DriverError,
    /// The job, untouched.
    pub job: CheckedJob<'static, 'static>,
}

/// A run that failed and whose NPU then did not reset: it may still be running, so its job
/// is not given back (see [`Transfer::wait`]); the driver refuses to start anything
/// (`npu-not-reset`) until a soft reset ([`Driver::soft_reset`], [`Driver::init`])
/// succeeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[must_use]
pub struct Stuck {
    /// Why the run failed.
    pub run: DriverError,
    /// Why the reset that followed failed (`reset-timeout`, `prot-mismatch`).
    pub reset: DriverError,
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
            power_requests: 0,
            pmu_on: false,
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

    /// The driver is initialised and the last reset succeeded (a driver whose reset failed
    /// after a failed run is poisoned: see [`Driver::last_reset_error`]).
    #[must_use]
    pub fn is_ready(&self) -> bool {
        self.ready
    }

    /// The error of the soft reset that followed a failed run, if that reset failed too.
    /// The driver is then poisoned: every start is refused with `npu-not-reset` until a
    /// soft reset ([`Driver::soft_reset`] or [`Driver::init`]) succeeds.
    #[must_use]
    pub fn last_reset_error(&self) -> Option<DriverError> {
        self.last_reset_error
    }

    /// Read the register at `offset` (for diagnostics: reads start nothing). The driver
    /// gives no write access to its registers: see the [module docs](self).
    pub fn read_register(&mut self, offset: u32) -> u32 {
        self.regs.read(offset)
    }

    /// The platform hooks.
    pub fn platform_mut(&mut self) -> &mut P {
        &mut self.platform
    }

    /// Give back the platform (the register block stays with the driver, which is
    /// dropped).
    pub fn into_platform(self) -> P {
        self.platform
    }

    /// Power requests held ([`Driver::request_power`]; a run and an enabled PMU hold one
    /// each).
    #[must_use]
    pub fn power_requests(&self) -> u32 {
        self.power_requests
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
    /// `AXI_LIMIT0..3`, and set the clock/power Q-channel enables (`CMD[3:2]`): cleared
    /// while a power request is held, set otherwise. Stops a running NPU.
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
        let prot = self.regs.read(PROT) & map::Prot::FIELDS;
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
        self.set_gating(self.power_requests == 0);
        self.ready = self.hw.is_some();
        self.last_reset_error = None;
        Ok(())
    }

    /// `CMD[3:2]`: allow (`true`) or forbid clock and power gating.
    fn set_gating(&mut self, allowed: bool) {
        self.regs
            .write(CMD, if allowed { CMD_PWR_CLK_MASK } else { 0 });
    }

    /// Keep the NPU powered and clocked: the first request soft-resets it (a known state
    /// after a possible power-down, as Arm's driver does) and clears the clock and power
    /// Q-channel enables (`CMD[3:2]`); later ones only count. Every run holds one while it
    /// runs, the PMU one while enabled; hold one across runs to save the reset per run.
    ///
    /// # Errors
    ///
    /// Those of [`Driver::soft_reset`] (the request is then not held).
    pub fn request_power(&mut self) -> Result<(), DriverError> {
        if self.power_requests == 0 {
            self.power_requests = 1;
            if let Err(e) = self.soft_reset() {
                self.power_requests = 0;
                return Err(e);
            }
        } else {
            self.power_requests = self.power_requests.saturating_add(1);
        }
        Ok(())
    }

    /// Release a power request; the last one sets the Q-channel enables again
    /// (`CMD[3:2] = 0b11`), letting the NPU's clock and power be gated while it is idle.
    /// Without a request held, does nothing.
    pub fn release_power(&mut self) {
        match self.power_requests {
            0 => {}
            1 => {
                self.power_requests = 0;
                self.set_gating(true);
            }
            n => self.power_requests = n.saturating_sub(1),
        }
    }

    /// Check a stream compiled for `accel_macs` MACs/cycle (0 = unspecified) as an NPU1 v1
    /// stream: [`Driver::check_compiled_for`] with [`CompiledFor::npu1_v1`].
    ///
    /// # Errors
    ///
    /// As [`Driver::check_compiled_for`].
    pub fn check_config(&self, accel_macs: u32) -> Result<(), DriverError> {
        self.check_compiled_for(&CompiledFor::npu1_v1(accel_macs))
    }

    /// Check what a stream was compiled for against this NPU, as Arm's driver does: the
    /// product, the MACs/cycle (`1 << CONFIG.macs_per_cc`; 0 = unspecified, skipped), the
    /// command-stream version, the architecture's major revision (equal) and minor
    /// revision (the NPU's at least the stream's).
    ///
    /// # Errors
    ///
    /// `product-mismatch`, `config-mismatch` (MACs/cycle), `cmd-stream-version-mismatch`
    /// (all at `CONFIG`), `arch-mismatch` (at `ID`, the values packed as `ID[31:16]`);
    /// `not-initialised` before [`Driver::init`].
    pub fn check_compiled_for(&self, want: &CompiledFor) -> Result<(), DriverError> {
        let Some(hw) = self.hw else {
            return Err(err("not-initialised", RESET, DriverDetail::None));
        };
        let mismatch = |code, offset, found: u32, expected: u32| {
            err(
                code,
                offset,
                DriverDetail::Mismatch {
                    found: u64::from(found),
                    expected: u64::from(expected),
                },
            )
        };
        let c = hw.config;
        if c.product() != want.product {
            return Err(mismatch(
                "product-mismatch",
                CONFIG,
                c.product(),
                want.product,
            ));
        }
        if want.macs != 0 && want.macs != c.macs() {
            return Err(mismatch("config-mismatch", CONFIG, c.macs(), want.macs));
        }
        if c.cmd_stream_version() != want.cmd_stream_version {
            return Err(mismatch(
                "cmd-stream-version-mismatch",
                CONFIG,
                c.cmd_stream_version(),
                want.cmd_stream_version,
            ));
        }
        let id = hw.id;
        if id.arch_major() != want.arch_major || id.arch_minor() < want.arch_minor {
            return Err(mismatch(
                "arch-mismatch",
                ID,
                id.arch_word(),
                want.arch_word(),
            ));
        }
        Ok(())
    }

    /// Check Vela's `OPTIMIZER_CONFIG` words against this NPU's `CONFIG` and `ID`, as Arm's
    /// driver does (`ethosu_dev_verify_optimizer_config`): when the `CONFIG` words differ,
    /// the product, MACs/cycle and command-stream version must be equal and a stream
    /// compiled for custom DMA needs an NPU with it (the SHRAM size is not compared); the
    /// architecture's major revision must be equal and the NPU's minor revision at least
    /// the stream's. `None` (a file without the words, NPU1 v1) is a reported skip.
    ///
    /// # Errors
    ///
    /// `optimizer-config-mismatch`, at `CONFIG` (found: the NPU's field, expected: the
    /// stream's) or at `ID` (the architectures packed as `ID[31:16]`); `not-initialised`
    /// before [`Driver::init`].
    pub fn check_optimizer_config(
        &self,
        words: Option<OptimizerConfig>,
    ) -> Result<ConfigCheck, DriverError> {
        let Some(hw) = self.hw else {
            return Err(err("not-initialised", RESET, DriverDetail::None));
        };
        let Some(words) = words else {
            return Ok(ConfigCheck::Skipped);
        };
        let mismatch = |offset, found: u32, expected: u32| {
            err(
                "optimizer-config-mismatch",
                offset,
                DriverDetail::Mismatch {
                    found: u64::from(found),
                    expected: u64::from(expected),
                },
            )
        };
        let (npu, opt) = (hw.config, Config(words.config));
        if npu.0 != opt.0 {
            for (found, expected) in [
                (npu.product(), opt.product()),
                (npu.macs_per_cc(), opt.macs_per_cc()),
                (npu.cmd_stream_version(), opt.cmd_stream_version()),
            ] {
                if found != expected {
                    return Err(mismatch(CONFIG, found, expected));
                }
            }
            if opt.custom_dma() && !npu.custom_dma() {
                return Err(mismatch(CONFIG, 0, 1));
            }
        }
        let (npu, opt) = (hw.id, Id(words.id));
        if npu.arch_major() != opt.arch_major() || npu.arch_minor() < opt.arch_minor() {
            return Err(mismatch(ID, npu.arch_word(), opt.arch_word()));
        }
        Ok(ConfigCheck::Matched)
    }

    /// Run `job` to completion by polling `STATUS`. Returns once the NPU has stopped.
    ///
    /// The job is a [`CheckedJob`]: its stream was checked against its bound regions
    /// ([`CheckedJob::check`]), or the caller vouched for it ([`CheckedJob::vouched`]).
    ///
    /// A failed run is followed by a soft reset. Should that reset fail, the NPU may still
    /// be using the job's memory, which this call borrows: it does not return until a
    /// reset succeeds, retrying after each failure and calling
    /// [`Platform::reset_failed`] in between (which may log, or reset the system and never
    /// return).
    ///
    /// # Errors
    ///
    /// Those of [`Driver::start`] and [`Transfer::wait`].
    pub fn run(&mut self, job: &mut CheckedJob<'_, '_>) -> Result<RunInfo, DriverError> {
        let job = job.job_mut();
        let waiting = self.launch(job, None)?;
        self.block_guarded(waiting, job)
    }

    /// Run `job` to completion through the interrupt: `irq` is the key of the latch this
    /// NPU's interrupt handler fills ([`IrqLatch::on_irq`]); the driver sleeps in
    /// [`Platform::sleep`] between checks, and on each wake-up confirms completion from its
    /// own `STATUS`. Returns once the NPU has stopped (as [`Driver::run`], also after a
    /// failed reset).
    ///
    /// # Errors
    ///
    /// As [`Driver::run`].
    pub fn run_irq(
        &mut self,
        job: &mut CheckedJob<'_, '_>,
        irq: &mut IrqKey<'_>,
    ) -> Result<RunInfo, DriverError> {
        let job = job.job_mut();
        let waiting = self.launch(job, Some(irq.latch()))?;
        self.block_guarded(waiting, job)
    }

    /// Wait for a run started on a borrowed job. Where panics unwind, through the
    /// [`Active`] guard: should a platform hook panic, the guard's drop stops the NPU
    /// before the job's borrow ends. With `panic = "abort"` (firmware) nothing unwinds,
    /// and the guard, whose drop would only repeat what the wait does, is left out.
    fn block_guarded(
        &mut self,
        waiting: Waiting<'_>,
        job: &mut Job<'_, '_>,
    ) -> Result<RunInfo, DriverError> {
        #[cfg(panic = "unwind")]
        let result = Active {
            driver: &mut *self,
            waiting,
            borrowed: true,
        }
        .block(job);
        #[cfg(not(panic = "unwind"))]
        let result = {
            let mut waiting = waiting;
            self.block(&mut waiting, job)
        };
        self.reset_until_stopped();
        result
    }

    /// After a failed run whose reset failed too: retry the reset until it succeeds, with
    /// [`Platform::reset_failed`] between tries (for a borrowed job, which must not be
    /// given back while the NPU may use it).
    fn reset_until_stopped(&mut self) {
        while let Some(e) = self.last_reset_error {
            self.platform.reset_failed(&e);
            self.recover();
        }
    }

    /// Start `job` and return while the NPU runs; completion is found by polling `STATUS`
    /// ([`Transfer::poll_done`], [`Transfer::wait`]). The job moves into the transfer and
    /// comes back once the NPU has stopped (see the [module docs](self) for why it must be
    /// `'static`).
    ///
    /// # Errors
    ///
    /// The job comes back in [`Refused`] with `not-initialised`, `npu-busy` (`STATUS` says
    /// the NPU is running), `product-mismatch`, `config-mismatch`,
    /// `cmd-stream-version-mismatch`, `arch-mismatch`, `misaligned-command-stream`,
    /// `misaligned-region`, `address-out-of-range`, `command-stream-too-long`, or the
    /// errors of [`Driver::request_power`]. Nothing is written to the NPU's run registers
    /// then.
    #[allow(
        clippy::result_large_err,
        reason = "the refused job comes back by value, as it went in"
    )]
    pub fn start(
        &mut self,
        job: CheckedJob<'static, 'static>,
    ) -> Result<Transfer<'_, R, P>, Refused> {
        self.start_with(job, None)
    }

    /// As [`Driver::start`], woken by the interrupt handler through the latch `irq` is the
    /// key of ([`IrqLatch::on_irq`], which must be wired to this NPU's interrupt); the key
    /// stays borrowed while the transfer lives.
    ///
    /// # Errors
    ///
    /// As [`Driver::start`].
    #[allow(
        clippy::result_large_err,
        reason = "the refused job comes back by value, as it went in"
    )]
    pub fn start_irq<'d>(
        &'d mut self,
        job: CheckedJob<'static, 'static>,
        irq: &'d mut IrqKey<'_>,
    ) -> Result<Transfer<'d, R, P>, Refused> {
        self.start_with(job, Some(irq.latch()))
    }

    #[allow(
        clippy::result_large_err,
        reason = "the refused job comes back by value, as it went in"
    )]
    fn start_with<'d>(
        &'d mut self,
        mut job: CheckedJob<'static, 'static>,
        latch: Option<&'d IrqLatch>,
    ) -> Result<Transfer<'d, R, P>, Refused> {
        match self.launch(job.job_mut(), latch) {
            Ok(waiting) => Ok(Transfer {
                inner: Active {
                    driver: self,
                    waiting,
                    borrowed: false,
                },
                job,
            }),
            Err(error) => Err(Refused { error, job }),
        }
    }

    fn launch<'l>(
        &mut self,
        job: &mut Job<'_, '_>,
        latch: Option<&'l IrqLatch>,
    ) -> Result<Waiting<'l>, DriverError> {
        if self.last_reset_error.is_some() {
            return Err(err("npu-not-reset", RESET, DriverDetail::None));
        }
        if !self.ready {
            return Err(err("not-initialised", RESET, DriverDetail::None));
        }
        // The compiled-for words first, when the blob has them (NPU1 v2): the whole CONFIG
        // and ID, with their own error; then the MACs/cycle every version records.
        self.check_optimizer_config(optimizer_words(job))?;
        self.check_config(job.accel_macs())?;
        let status = Status(self.regs.read(STATUS));
        if status.running() {
            let qread = self.regs.read(QREAD);
            return Err(err("npu-busy", STATUS, DriverDetail::Run { status, qread }));
        }
        let line = u64::from(self.platform.cache_line());
        let writes = job
            .regions()
            .any(|r| r.kind != RegionKind::Baked && r.size > 0);
        if writes && line > job.region_align() {
            return Err(err(
                "regions-not-cache-aligned",
                REGIONCFG,
                DriverDetail::Mismatch {
                    found: job.region_align(),
                    expected: line,
                },
            ));
        }
        let qbase = job.cmd_npu_address();
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
        let bits = self.opts.address_bits;
        check_address(
            qbase,
            u64::from(qsize),
            bits,
            QBASE,
            "misaligned-command-stream",
        )?;
        let mut basep = [0u64; REGION_SLOTS];
        for (r, slot) in job.regions().zip(basep.iter_mut()) {
            check_address(
                r.npu_address,
                r.size,
                bits,
                regs::basep_lo(u32::from(r.index)),
                "misaligned-region",
            )?;
            *slot = r.npu_address;
        }
        self.request_power()?;

        // Everything the NPU reads must be in memory, not only in the CPU's cache.
        self.platform
            .clean(job.cmd_stream(), qbase, CacheTarget::CommandStream);
        for i in 0..job.region_count() {
            if let (Some(r), Some(bytes)) = (job.region(i), job.region_bytes(i)) {
                let target = CacheTarget::Region {
                    index: r.index,
                    kind: r.kind,
                };
                self.platform.clean(bytes, r.npu_address, target);
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
        self.platform.inference_begin();
        let started = self.platform.now();
        let cmd = self.regs.read(CMD);
        self.regs.write(CMD, (cmd & CMD_PWR_CLK_MASK) | CMD_RUN);
        Ok(Waiting {
            latch,
            polls: 0,
            started,
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

    /// Invalidate the data cache over every region the NPU may have written.
    fn invalidate_outputs(&mut self, job: &mut Job<'_, '_>) {
        fence(Ordering::SeqCst);
        for i in 0..job.region_count() {
            let Some(r) = job.region(i) else { continue };
            if r.kind == RegionKind::Baked {
                continue;
            }
            let target = CacheTarget::Region {
                index: r.index,
                kind: r.kind,
            };
            if let Some(bytes) = job.region_bytes_mut(i) {
                self.platform.invalidate(bytes, r.npu_address, target);
            }
        }
    }

    /// Time since the run started, if the platform has a clock.
    fn elapsed(&mut self, w: &Waiting<'_>) -> Option<u64> {
        let start = w.started?;
        Some(self.platform.now()?.saturating_sub(start))
    }

    /// Check once for completion; `None` while the NPU runs.
    fn check(
        &mut self,
        w: &mut Waiting<'_>,
        job: &mut Job<'_, '_>,
    ) -> Option<Result<RunInfo, DriverError>> {
        if let Some(outcome) = w.outcome {
            return Some(outcome);
        }
        w.polls = w.polls.saturating_add(1);
        let status = match w.latch {
            Some(latch) => {
                // The latch is a wake-up, not evidence: the NPU's own STATUS says whether
                // it stopped (a latch filled from another register block, or by another
                // NPU's handler, proves nothing).
                if !latch.take() {
                    return None;
                }
                let status = Status(self.regs.read(STATUS));
                if status.running() {
                    return None;
                }
                status
            }
            None => {
                let status = Status(self.regs.read(STATUS));
                if !(status.irq_raised() || status.any_fault()) {
                    return None;
                }
                status
            }
        };
        let qread = self.regs.read(QREAD);
        if status.irq_raised() {
            self.clear_irq();
        }
        let elapsed = self.elapsed(w);
        let outcome = self.finish(job, status, qread, w.polls, elapsed);
        w.outcome = Some(outcome);
        Some(outcome)
    }

    /// The run has had its time: by the platform's clock, or by the number of checks on a
    /// platform without one.
    fn timed_out(&mut self, w: &Waiting<'_>) -> bool {
        let spent = match self.elapsed(w) {
            Some(t) => t,
            None => u64::from(w.polls),
        };
        spent >= self.opts.run_timeout
    }

    /// Wait between two checks: sleep until the interrupt on the interrupt path, spin when
    /// polling.
    fn pause(&mut self, w: &Waiting<'_>) {
        match w.latch {
            Some(latch) => self.platform.sleep(&|| latch.is_pending()),
            None => self.platform.idle(),
        }
    }

    /// Wait for completion or the timeout.
    fn block(
        &mut self,
        w: &mut Waiting<'_>,
        job: &mut Job<'_, '_>,
    ) -> Result<RunInfo, DriverError> {
        loop {
            if let Some(outcome) = self.check(w, job) {
                return outcome;
            }
            if self.timed_out(w) {
                let e = self.give_up(w);
                self.invalidate_outputs(job);
                self.platform.inference_end(false);
                return Err(e);
            }
            self.pause(w);
        }
    }

    /// Stop waiting: report `npu-timeout` with the current `STATUS` and `QREAD`, reset
    /// (which stops the NPU), release the run's power request.
    fn give_up(&mut self, w: &mut Waiting<'_>) -> DriverError {
        let status = Status(self.regs.read(STATUS));
        let qread = self.regs.read(QREAD);
        let e = err("npu-timeout", STATUS, DriverDetail::Run { status, qread });
        self.recover();
        self.release_power();
        w.outcome = Some(Err(e));
        e
    }

    /// Turn the final `STATUS`/`QREAD` into the run's result; reset after a failure;
    /// invalidate the outputs; release the run's power request.
    fn finish(
        &mut self,
        job: &mut Job<'_, '_>,
        status: Status,
        qread: u32,
        polls: u32,
        elapsed: Option<u64>,
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
                elapsed,
                compiled_for: if optimizer_words(job).is_some() {
                    ConfigCheck::Matched
                } else {
                    ConfigCheck::Skipped
                },
            }),
            Some(code) => {
                self.recover();
                Err(err(code, STATUS, DriverDetail::Run { status, qread }))
            }
        };
        self.invalidate_outputs(job);
        self.release_power();
        self.platform.inference_end(result.is_ok());
        result
    }

    fn clear_irq(&mut self) {
        let cmd = self.regs.read(CMD);
        self.regs
            .write(CMD, (cmd & CMD_PWR_CLK_MASK) | CMD_CLEAR_IRQ);
    }

    /// Enable the PMU (Arm's `ETHOSU_PMU_Enable` and set-up): request power (held until
    /// [`Driver::pmu_disable`], so runs in between do not reset the NPU and its counters),
    /// `PMCR` enable with both counter resets, `PMEVTYPER[0..4]` and `PMCCNTR_CFG` from
    /// `cfg`, the overflow flags cleared and the five counters enabled. Enabling it again
    /// reprograms it and resets the counters.
    ///
    /// # Errors
    ///
    /// `not-initialised`, and those of [`Driver::request_power`].
    pub fn pmu_enable(&mut self, cfg: &PmuConfig) -> Result<(), DriverError> {
        if !self.ready {
            return Err(err("not-initialised", RESET, DriverDetail::None));
        }
        if !self.pmu_on {
            self.request_power()?;
            self.pmu_on = true;
        }
        self.regs
            .write(PMCR, PMCR_CNT_EN | PMCR_EVENT_CNT_RST | PMCR_CYCLE_CNT_RST);
        for (n, e) in (0u32..).zip(cfg.events.iter()) {
            self.regs.write(regs::pmevtyper(n), e.bits());
        }
        self.regs.write(
            PMCCNTR_CFG,
            map::PmccntrCfg::new()
                .with_cycle_cnt_cfg_start(cfg.cycle_start.0)
                .with_cycle_cnt_cfg_stop(cfg.cycle_stop.0)
                .bits(),
        );
        self.regs.write(PMOVSCLR, PMU_ALL);
        self.regs.write(PMCNTENSET, PMU_ALL);
        Ok(())
    }

    /// Zero the cycle counter and the event counters (`PMCR` reset bits), counting on.
    pub fn pmu_reset_counters(&mut self) {
        let pmcr = self.regs.read(PMCR);
        self.regs
            .write(PMCR, pmcr | PMCR_EVENT_CNT_RST | PMCR_CYCLE_CNT_RST);
    }

    /// Set event counter `n` (`0..4`; others ignored), e.g. to `u32::MAX - k` to see an
    /// overflow after `k + 1` events.
    pub fn pmu_set_event_counter(&mut self, n: u32, value: u32) {
        if n < map::PMEVCNTR_COUNT {
            self.regs.write(regs::pmevcntr(n), value);
        }
    }

    /// Read the counters and the overflow flags.
    pub fn pmu_read(&mut self) -> PmuCounters {
        let lo = self.regs.read(PMCCNTR);
        let hi = map::PmccntrHi::from_bits(self.regs.read(PMCCNTR_HI)).cycle_cnt_hi();
        let mut events = [0u32; 4];
        for (n, e) in (0u32..).zip(events.iter_mut()) {
            *e = self.regs.read(regs::pmevcntr(n));
        }
        PmuCounters {
            cycles: (u64::from(hi) << 32) | u64::from(lo),
            events,
            overflow: self.regs.read(PMOVSSET),
        }
    }

    /// Enable the counters in `mask` (`PMCNTENSET`: bit `n` event counter `n`, bit 31 the
    /// cycle counter), leaving the others as they are: Arm's per-counter enable.
    pub fn pmu_enable_counters(&mut self, mask: u32) {
        self.regs.write(PMCNTENSET, mask & PMU_ALL);
    }

    /// Disable the counters in `mask` (`PMCNTENCLR`), leaving the others counting.
    pub fn pmu_disable_counters(&mut self, mask: u32) {
        self.regs.write(PMCNTENCLR, mask & PMU_ALL);
    }

    /// Preset the 48-bit cycle counter (`PMCCNTR_LO`/`_HI`; bits above 48 dropped), e.g.
    /// to `2^48 - k` to see its overflow after `k` cycles (Arm's
    /// `ETHOSU_PMU_Set_CCNTR`).
    pub fn pmu_set_cycle_counter(&mut self, value: u64) {
        let hi = map::PmccntrHi::new()
            .with_cycle_cnt_hi((value >> 32) as u16)
            .bits();
        self.regs.write(PMCCNTR, value as u32);
        self.regs.write(PMCCNTR_HI, hi);
    }

    /// Raise the NPU interrupt on the overflow of the counters in `mask` (`PMINTSET`; bit
    /// `n` event counter `n`, bit 31 the cycle counter). The interrupt handler then sees
    /// `STATUS.pmu_irq_raised` ([`IrqLatch::on_irq`] records it); clear the overflow with
    /// [`Driver::pmu_clear_overflow`].
    pub fn pmu_enable_irq(&mut self, mask: u32) {
        self.regs.write(map::PMINTSET, mask & PMU_ALL);
    }

    /// Stop raising the interrupt for the counters in `mask` (`PMINTCLR`).
    pub fn pmu_disable_irq(&mut self, mask: u32) {
        self.regs.write(map::PMINTCLR, mask & PMU_ALL);
    }

    /// Clear the overflow flags in `mask` (bit `n` event counter `n`, bit 31 cycles).
    pub fn pmu_clear_overflow(&mut self, mask: u32) {
        self.regs.write(PMOVSCLR, mask);
    }

    /// Disable the PMU (`PMCR = 0`, counters disabled) and release its power request.
    pub fn pmu_disable(&mut self) {
        self.regs.write(PMCR, 0);
        self.regs.write(PMCNTENCLR, PMU_ALL);
        if self.pmu_on {
            self.pmu_on = false;
            self.release_power();
        }
    }
}

/// The four event counters and the cycle counter, as `PMCNTENSET`/`PMOVSCLR` bits.
const PMU_ALL: u32 = map::Pmcntenset::FIELDS;

/// The driver's half of a [`Transfer`]: dropped first, it stops an unfinished run before
/// the job is dropped.
#[derive(Debug)]
struct Active<'d, R: Registers, P: Platform> {
    driver: &'d mut Driver<R, P>,
    waiting: Waiting<'d>,
    /// The job is borrowed (a blocking run), not owned by a [`Transfer`]: dropped while
    /// the NPU may run, the guard must not let the borrow end before a reset succeeds.
    borrowed: bool,
}

impl<R: Registers, P: Platform> Active<'_, R, P> {
    /// Wait for completion or the timeout. Should a platform hook panic and unwind out of
    /// the wait, dropping `self` stops the NPU before the job's borrow ends.
    #[cfg(panic = "unwind")]
    fn block(mut self, job: &mut Job<'_, '_>) -> Result<RunInfo, DriverError> {
        let Active {
            driver, waiting, ..
        } = &mut self;
        driver.block(waiting, job)
    }
}

impl<R: Registers, P: Platform> Drop for Active<'_, R, P> {
    fn drop(&mut self) {
        if self.waiting.outcome.is_none() {
            let _ = self.driver.give_up(&mut self.waiting);
            self.driver.platform.inference_end(false);
        }
        if self.borrowed {
            self.driver.reset_until_stopped();
        }
    }
}

/// A job the NPU is running, started by [`Driver::start`] or [`Driver::start_irq`]. Owns
/// the job until the NPU has stopped: [`Transfer::wait`] gives it back.
///
/// Dropping it before completion soft-resets the NPU (stopping it) before the job is
/// dropped. Forgetting it keeps the job, and its `'static` memory, away from the program
/// for good (see the [module docs](self)).
#[derive(Debug)]
#[must_use = "dropping a Transfer soft-resets the NPU; call wait() or poll_done()"]
pub struct Transfer<'d, R: Registers, P: Platform> {
    // Field order matters: `inner` (which stops the NPU) is dropped before `job`.
    inner: Active<'d, R, P>,
    job: CheckedJob<'static, 'static>,
}

impl<R: Registers, P: Platform> Transfer<'_, R, P> {
    /// Check once for completion, without waiting: `None` while the NPU runs, then the
    /// run's result (the same one on every later call).
    pub fn poll_done(&mut self) -> Option<Result<RunInfo, DriverError>> {
        let Active {
            driver, waiting, ..
        } = &mut self.inner;
        driver.check(waiting, self.job.job_mut())
    }

    /// The run has finished (successfully or not).
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.inner.waiting.outcome.is_some()
    }

    /// Number of completion checks so far.
    #[must_use]
    pub fn polls(&self) -> u32 {
        self.inner.waiting.polls
    }

    /// Wait for completion (within [`DriverOptions::run_timeout`]; checks separated by
    /// [`Platform::idle`] when polling, [`Platform::sleep`] on the interrupt path), then give
    /// back the job with the run's result.
    ///
    /// The result's errors: `npu-timeout` (the NPU is then soft-reset), `bus-fault`,
    /// `cmd-parse-error`, `watchdog-fault`, `ecc-fault`, `cmd-end-not-reached`.
    ///
    /// # Errors
    ///
    /// [`Stuck`] when the run failed and the soft reset after it failed too: the NPU may
    /// still be using the job's memory, so the job is not given back (it is dropped here;
    /// its memory is `'static`, so nothing can reach it again), and the driver is poisoned
    /// until a reset succeeds ([`Driver::last_reset_error`]).
    #[allow(
        clippy::result_large_err,
        reason = "the job comes back by value, as it went in"
    )]
    pub fn wait(
        self,
    ) -> Result<(CheckedJob<'static, 'static>, Result<RunInfo, DriverError>), Stuck> {
        let Transfer { inner, mut job } = self;
        let driver_reset = {
            let mut inner = inner;
            let result = {
                let Active {
                    driver, waiting, ..
                } = &mut inner;
                driver.block(waiting, job.job_mut())
            };
            (result, inner.driver.last_reset_error)
        };
        settle(job, driver_reset)
    }

    /// As [`Transfer::wait`], as a future woken by the interrupt handler
    /// ([`IrqLatch::on_irq`] wakes the task that registered last): for an executor such as
    /// embassy's. Without a latch ([`Driver::start`]), the future polls `STATUS` each time
    /// it is polled and asks to be polled again at once.
    ///
    /// No timeout of its own: race it against the executor's timer (dropping the future
    /// drops the transfer, which stops the NPU). Forgetting the future forgets the job,
    /// as forgetting the transfer does.
    #[cfg(feature = "async")]
    ///
    /// # Errors
    ///
    /// As [`Transfer::wait`].
    #[allow(
        clippy::result_large_err,
        reason = "the job comes back by value, as it went in"
    )]
    pub async fn wait_async(
        mut self,
    ) -> Result<(CheckedJob<'static, 'static>, Result<RunInfo, DriverError>), Stuck> {
        let result = core::future::poll_fn(|cx| {
            if let Some(latch) = self.inner.waiting.latch {
                latch.register(cx.waker());
            }
            match self.poll_done() {
                Some(r) => core::task::Poll::Ready(r),
                None => {
                    if self.inner.waiting.latch.is_none() {
                        cx.waker().wake_by_ref();
                    }
                    core::task::Poll::Pending
                }
            }
        })
        .await;
        let Transfer { inner, job } = self;
        let reset = inner.driver.last_reset_error;
        drop(inner);
        settle(job, (result, reset))
    }
}

/// The job back with the run's result, unless the run failed and the reset after it did not
/// succeed: then the job is dropped (its memory is `'static`, so out of reach for good).
#[allow(
    clippy::type_complexity,
    clippy::result_large_err,
    reason = "the job and the run's result, as Transfer::wait returns them"
)]
fn settle(
    job: CheckedJob<'static, 'static>,
    (result, reset): (Result<RunInfo, DriverError>, Option<DriverError>),
) -> Result<(CheckedJob<'static, 'static>, Result<RunInfo, DriverError>), Stuck> {
    match (result, reset) {
        // `job` is not given back: it ends here, and its 'static memory with it.
        (Err(run), Some(reset)) => Err(Stuck { run, reset }),
        (result, _) => Ok((job, result)),
    }
}
