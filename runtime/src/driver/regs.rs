//! The Ethos-U55 register map (offsets from the NPU's base address), the bit fields the
//! driver uses, and the [`Registers`] access trait.
//!
//! All registers are 32-bit, little-endian, inside a 4 KiB block.

/// 32-bit register access at byte offsets from the NPU's base address.
///
/// The firmware implementation is [`crate::mmio::Mmio`] (volatile loads and stores); the
/// host simulator in `npuschema-sim` implements it over a register model. Both `read` and
/// `write` may have side effects (a `STATUS` read in the simulator advances its clock).
pub trait Registers {
    /// Read the register at `offset`.
    fn read(&mut self, offset: u32) -> u32;
    /// Write `value` to the register at `offset`.
    fn write(&mut self, offset: u32, value: u32);
}

impl<T: Registers + ?Sized> Registers for &mut T {
    fn read(&mut self, offset: u32) -> u32 {
        (**self).read(offset)
    }
    fn write(&mut self, offset: u32, value: u32) {
        (**self).write(offset, value);
    }
}

// Every offset, reset value and bit position below comes from the generated register map
// (`schema/ethos_u55_regs.yaml`, `npuschema_generated::ethos_u55_regs`); this module only
// names them as the driver and the simulator use them.
use npuschema_generated::ethos_u55_regs as map;

pub use map::{
    CMD, CONFIG, ID, PMCCNTR_CFG, PMCCNTR_HI, PMCNTENCLR, PMCNTENSET, PMCR, PMINTCLR, PMINTSET,
    PMOVSCLR, PMOVSSET, PROT, QBASE, QBASE_HI, QCONFIG, QREAD, QSIZE, REGIONCFG, RESET, STATUS,
};

/// Size of the register block in bytes.
pub const BLOCK_BYTES: u32 = map::REGISTER_BLOCK_BYTES;

/// `AXI_LIMIT[0]`; `AXI_LIMIT[1..4]` follow at [`map::AXI_LIMIT_STRIDE`] steps.
pub const AXI_LIMIT0: u32 = map::AXI_LIMIT;
/// `BASEP[0]` low word; region `n`'s low word is at `BASEP + n * BASEP_STRIDE`, its high
/// word at `BASEP_HI + n * BASEP_STRIDE`.
pub const BASEP0: u32 = map::BASEP;
/// Number of region slots (`BASEP[0..8]`).
pub const REGION_SLOTS: usize = map::BASEP_COUNT as usize;

/// Offset of `AXI_LIMIT[n]`, `n` in `0..4` (larger `n` wrap into range).
#[must_use]
pub const fn axi_limit(n: u32) -> u32 {
    map::axi_limit(n)
}

/// Offset of the low word of `BASEP[n]`, `n` in `0..8` (larger `n` wrap into range).
#[must_use]
pub const fn basep_lo(n: u32) -> u32 {
    map::basep(n)
}

/// Offset of the high word of `BASEP[n]`.
#[must_use]
pub const fn basep_hi(n: u32) -> u32 {
    map::basep_hi(n)
}

/// `CMD.transition_to_running_state`.
pub const CMD_RUN: u32 = map::Cmd::TRANSITION_TO_RUNNING_STATE_MASK;
/// `CMD.clear_irq`.
pub const CMD_CLEAR_IRQ: u32 = map::Cmd::CLEAR_IRQ_MASK;
/// `CMD.clock_q_enable` (the NPU's clock may be gated while it is idle).
pub const CMD_CLOCK_Q_ENABLE: u32 = map::Cmd::CLOCK_Q_ENABLE_MASK;
/// `CMD.power_q_enable` (the NPU may be powered down while it is idle).
pub const CMD_POWER_Q_ENABLE: u32 = map::Cmd::POWER_Q_ENABLE_MASK;
/// `CMD`'s clock-Q and power-Q enables, preserved by every command write. Both are set
/// after a reset; the driver clears them while it holds a power request (a run, or the
/// PMU) and sets them when the last request is released, as Arm's driver does.
pub const CMD_PWR_CLK_MASK: u32 = CMD_CLOCK_Q_ENABLE | CMD_POWER_Q_ENABLE;
/// `CMD` after a reset: both Q-channels enabled.
pub const CMD_RESET_VALUE: u32 = map::CMD_RESET;

/// `PMCCNTR_LO`: the 48-bit cycle counter, low word.
pub const PMCCNTR: u32 = map::PMCCNTR_LO;
/// `PMEVCNTR[0]`; `PMEVCNTR[1..4]` follow at 4-byte steps.
pub const PMEVCNTR0: u32 = map::PMEVCNTR;
/// `PMEVTYPER[0]`; `PMEVTYPER[1..4]` follow at 4-byte steps.
pub const PMEVTYPER0: u32 = map::PMEVTYPER;
/// Number of PMU event counters on the Ethos-U55.
pub const PMU_EVENT_COUNTERS: usize = map::PMEVCNTR_COUNT as usize;
/// `PMCR.cnt_en`.
pub const PMCR_CNT_EN: u32 = map::Pmcr::CNT_EN_MASK;
/// `PMCR.event_cnt_rst`: a write of 1 zeroes the event counters.
pub const PMCR_EVENT_CNT_RST: u32 = map::Pmcr::EVENT_CNT_RST_MASK;
/// `PMCR.cycle_cnt_rst`: a write of 1 zeroes the cycle counter.
pub const PMCR_CYCLE_CNT_RST: u32 = map::Pmcr::CYCLE_CNT_RST_MASK;
/// The cycle counter's bit in `PMCNTENSET`, `PMCNTENCLR`, `PMOVSSET`, `PMOVSCLR`,
/// `PMINTSET` and `PMINTCLR` (one layout).
pub const PMU_CYCLE_BIT: u32 = map::Pmcntenset::CYCLE_CNT_MASK;

/// Offset of `PMEVCNTR[n]`, `n` in `0..4` (larger `n` wrap into range).
#[must_use]
pub const fn pmevcntr(n: u32) -> u32 {
    map::pmevcntr(n)
}

/// Offset of `PMEVTYPER[n]`, `n` in `0..4` (larger `n` wrap into range).
#[must_use]
pub const fn pmevtyper(n: u32) -> u32 {
    map::pmevtyper(n)
}

/// Arm's default `AXI_LIMITn` word: max_outstanding_read_m1 31, max_outstanding_write_m1 15.
pub const AXI_LIMIT_DEFAULT: u32 = map::AxiLimit::new()
    .with_max_outstanding_read_m1(31)
    .with_max_outstanding_write_m1(15)
    .bits();

/// A decoded `STATUS` word (the generated [`map::Status`], with the driver's names and
/// `defmt` support).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Status(pub u32);

impl Status {
    /// `state`: the NPU is running.
    pub const STATE: u32 = map::Status::STATE_MASK;
    /// `irq_raised`.
    pub const IRQ_RAISED: u32 = map::Status::IRQ_RAISED_MASK;
    /// `bus_status`: bus abort.
    pub const BUS_STATUS: u32 = map::Status::BUS_STATUS_MASK;
    /// `reset_status`: a soft reset is in progress.
    pub const RESET_STATUS: u32 = map::Status::RESET_STATUS_MASK;
    /// `cmd_parse_error`.
    pub const CMD_PARSE_ERROR: u32 = map::Status::CMD_PARSE_ERROR_MASK;
    /// `cmd_end_reached`.
    pub const CMD_END_REACHED: u32 = map::Status::CMD_END_REACHED_MASK;
    /// `pmu_irq_raised`.
    pub const PMU_IRQ_RAISED: u32 = map::Status::PMU_IRQ_RAISED_MASK;
    /// `wd_fault`: watchdog fault.
    pub const WD_FAULT: u32 = map::Status::WD_FAULT_MASK;
    /// `ecc_fault`.
    pub const ECC_FAULT: u32 = map::Status::ECC_FAULT_MASK;
    /// `faulting_interface`: the faulting AXI interface.
    pub const FAULTING_INTERFACE: u32 = map::Status::FAULTING_INTERFACE_MASK;
    /// `faulting_channel`'s lowest bit.
    pub const FAULTING_CHANNEL_SHIFT: u32 = map::Status::FAULTING_CHANNEL_SHIFT;
    /// `faulting_channel` in place.
    pub const FAULTING_CHANNEL: u32 = map::Status::FAULTING_CHANNEL_MASK;
    /// The four fault bits (any one makes a run fail).
    pub const FAULTS: u32 =
        Self::BUS_STATUS | Self::CMD_PARSE_ERROR | Self::WD_FAULT | Self::ECC_FAULT;

    const fn map(self) -> map::Status {
        map::Status::from_bits(self.0)
    }
    /// The NPU is running.
    #[must_use]
    pub const fn running(self) -> bool {
        self.map().state()
    }
    /// An IRQ is raised.
    #[must_use]
    pub const fn irq_raised(self) -> bool {
        self.map().irq_raised()
    }
    /// A bus abort happened.
    #[must_use]
    pub const fn bus_status(self) -> bool {
        self.map().bus_status()
    }
    /// A soft reset is in progress.
    #[must_use]
    pub const fn reset_status(self) -> bool {
        self.map().reset_status()
    }
    /// The command stream could not be parsed.
    #[must_use]
    pub const fn cmd_parse_error(self) -> bool {
        self.map().cmd_parse_error()
    }
    /// The end of the command stream was reached.
    #[must_use]
    pub const fn cmd_end_reached(self) -> bool {
        self.map().cmd_end_reached()
    }
    /// A PMU IRQ is raised.
    #[must_use]
    pub const fn pmu_irq_raised(self) -> bool {
        self.map().pmu_irq_raised()
    }
    /// Watchdog fault.
    #[must_use]
    pub const fn wd_fault(self) -> bool {
        self.map().wd_fault()
    }
    /// ECC fault.
    #[must_use]
    pub const fn ecc_fault(self) -> bool {
        self.map().ecc_fault()
    }
    /// Any of the four fault bits.
    #[must_use]
    pub const fn any_fault(self) -> bool {
        self.0 & Self::FAULTS != 0
    }
    /// The AXI interface of a bus fault.
    #[must_use]
    pub const fn faulting_interface(self) -> u32 {
        self.map().faulting_interface() as u32
    }
    /// The channel of a bus fault.
    #[must_use]
    pub const fn faulting_channel(self) -> u32 {
        self.map().faulting_channel() as u32
    }
    /// IRQ history mask.
    #[must_use]
    pub const fn irq_history_mask(self) -> u32 {
        self.map().irq_history_mask() as u32
    }
}

/// A decoded `CONFIG` word (the generated [`map::Config`], with the driver's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config(pub u32);

impl Config {
    const fn map(self) -> map::Config {
        map::Config::from_bits(self.0)
    }
    /// log2 of the MACs per cycle.
    #[must_use]
    pub const fn macs_per_cc(self) -> u32 {
        self.map().macs_per_cc() as u32
    }
    /// MACs per cycle, `1 << macs_per_cc`.
    #[must_use]
    pub const fn macs(self) -> u32 {
        1 << self.macs_per_cc()
    }
    /// Command-stream version.
    #[must_use]
    pub const fn cmd_stream_version(self) -> u32 {
        self.map().cmd_stream_version() as u32
    }
    /// SHRAM size in KiB.
    #[must_use]
    pub const fn shram_kib(self) -> u32 {
        self.map().shram_size() as u32
    }
    /// Custom DMA.
    #[must_use]
    pub const fn custom_dma(self) -> bool {
        self.map().custom_dma()
    }
    /// Product (0 = Ethos-U55).
    #[must_use]
    pub const fn product(self) -> u32 {
        self.map().product() as u32
    }
}

/// A decoded `ID` word (the generated [`map::Id`], with the driver's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Id(pub u32);

impl Id {
    const fn map(self) -> map::Id {
        map::Id::from_bits(self.0)
    }
    /// `version_status`.
    #[must_use]
    pub const fn version_status(self) -> u32 {
        self.map().version_status() as u32
    }
    /// `version_minor`.
    #[must_use]
    pub const fn version_minor(self) -> u32 {
        self.map().version_minor() as u32
    }
    /// `version_major`.
    #[must_use]
    pub const fn version_major(self) -> u32 {
        self.map().version_major() as u32
    }
    /// `product_major`.
    #[must_use]
    pub const fn product_major(self) -> u32 {
        self.map().product_major() as u32
    }
    /// `arch_patch_rev`.
    #[must_use]
    pub const fn arch_patch(self) -> u32 {
        self.map().arch_patch_rev() as u32
    }
    /// `arch_minor_rev`.
    #[must_use]
    pub const fn arch_minor(self) -> u32 {
        self.map().arch_minor_rev() as u32
    }
    /// `arch_major_rev`.
    #[must_use]
    pub const fn arch_major(self) -> u32 {
        self.map().arch_major_rev() as u32
    }
    /// The architecture version (`arch_major_rev`, `arch_minor_rev`, `arch_patch_rev`) as
    /// one number: the ID word shifted down to `arch_patch_rev`.
    #[must_use]
    pub const fn arch_word(self) -> u32 {
        self.0 >> map::Id::ARCH_PATCH_REV_SHIFT
    }
    /// The [`Id::arch_word`] of an architecture version.
    #[must_use]
    pub const fn arch_word_of(major: u32, minor: u32, patch: u32) -> u32 {
        map::Id::new()
            .with_arch_major_rev(major as u8)
            .with_arch_minor_rev(minor as u8)
            .with_arch_patch_rev(patch as u8)
            .bits()
            >> map::Id::ARCH_PATCH_REV_SHIFT
    }
}

/// The name of the register at `offset` (an array's name for any of its elements), for
/// messages (`"?"` for an offset that is no register's).
#[must_use]
pub const fn name(offset: u32) -> &'static str {
    match map::register_name(offset) {
        Some(n) => n,
        None => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_decode() {
        let s = Status(0x0003_3827);
        assert!(s.running());
        assert!(s.irq_raised());
        assert!(s.bus_status());
        assert!(!s.reset_status());
        assert!(s.cmd_end_reached());
        assert!(!s.wd_fault());
        assert!(s.faulting_interface() == 1);
        assert_eq!(s.faulting_channel(), 3);
        assert_eq!(s.irq_history_mask(), 3);
    }

    #[test]
    fn config_fields_decode() {
        // Vela's U55-128 CONFIG word.
        let c = Config(0x0000_1807);
        assert_eq!(c.macs_per_cc(), 7);
        assert_eq!(c.macs(), 128);
        assert_eq!(c.cmd_stream_version(), 0);
        assert_eq!(c.shram_kib(), 0x18);
        assert_eq!(c.product(), 0);
        assert_eq!(Config(0x0000_3008).macs(), 256);
        assert_eq!(Config(0x1000_0000).product(), 1);
    }

    #[test]
    fn region_offsets() {
        assert_eq!(basep_lo(0), 0x080);
        assert_eq!(basep_hi(0), 0x084);
        assert_eq!(basep_lo(7), 0x0B8);
        assert_eq!(axi_limit(3), 0x04C);
        assert_eq!(name(basep_hi(3)), "BASEP_HI");
        assert_eq!(name(basep_lo(3)), "BASEP");
        assert_eq!(name(0x041), "?");
        assert_eq!(AXI_LIMIT_DEFAULT, 0x0F1F_0000);
        assert_eq!(CMD_RESET_VALUE, 0xC);
    }
}
