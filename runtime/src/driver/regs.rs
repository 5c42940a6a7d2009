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

/// Size of the register block in bytes.
pub const BLOCK_BYTES: u32 = 0x1000;

/// `ID`: version and architecture fields.
pub const ID: u32 = 0x000;
/// `STATUS`: run state, IRQ and fault bits (see [`Status`]).
pub const STATUS: u32 = 0x004;
/// `CMD`: run, clear IRQ, clock/power Q enables.
pub const CMD: u32 = 0x008;
/// `RESET`: a write starts a soft reset; bits 0/1 are the pending privilege/security level.
pub const RESET: u32 = 0x00C;
/// `QBASE`: command-stream address, low word.
pub const QBASE: u32 = 0x010;
/// `QBASE_HI`: command-stream address, high word (0 on a 32-bit system).
pub const QBASE_HI: u32 = 0x014;
/// `QREAD`: byte offset of the command being executed.
pub const QREAD: u32 = 0x018;
/// `QCONFIG`: AXI attribute for command fetches.
pub const QCONFIG: u32 = 0x01C;
/// `QSIZE`: command-stream length in bytes.
pub const QSIZE: u32 = 0x020;
/// `PROT`: active privilege (bit 0) and security (bit 1) level.
pub const PROT: u32 = 0x024;
/// `CONFIG`: hardware configuration (see [`Config`]).
pub const CONFIG: u32 = 0x028;
/// `REGIONCFG`: two bits of AXI attribute per region.
pub const REGIONCFG: u32 = 0x03C;
/// `AXI_LIMIT0`; `AXI_LIMIT1..3` follow at 4-byte steps.
pub const AXI_LIMIT0: u32 = 0x040;
/// `BASEP[0]` low word; region `n` is at `0x080 + 8n` (low) and `0x084 + 8n` (high).
pub const BASEP0: u32 = 0x080;
/// Number of region slots (`BASEP[0..8]`).
pub const REGION_SLOTS: usize = 8;

/// Offset of `AXI_LIMIT[n]`, `n` in `0..4`.
#[must_use]
pub const fn axi_limit(n: u32) -> u32 {
    AXI_LIMIT0 | ((n & 3) << 2)
}

/// Offset of the low word of `BASEP[n]`, `n` in `0..8` (larger `n` wrap into range).
#[must_use]
pub const fn basep_lo(n: u32) -> u32 {
    BASEP0 | ((n & 7) << 3)
}

/// Offset of the high word of `BASEP[n]`.
#[must_use]
pub const fn basep_hi(n: u32) -> u32 {
    basep_lo(n) | 4
}

/// `CMD` bit 0: transition to the running state.
pub const CMD_RUN: u32 = 1 << 0;
/// `CMD` bit 1: clear the IRQ.
pub const CMD_CLEAR_IRQ: u32 = 1 << 1;
/// `CMD` bit 2: clock Q-channel enable (the NPU's clock may be gated while it is idle).
pub const CMD_CLOCK_Q_ENABLE: u32 = 1 << 2;
/// `CMD` bit 3: power Q-channel enable (the NPU may be powered down while it is idle).
pub const CMD_POWER_Q_ENABLE: u32 = 1 << 3;
/// `CMD` bits 2 and 3: clock-Q and power-Q enable, preserved by every command write. Their
/// reset value is `0xC` (both enabled); the driver clears them while it holds a power
/// request (a run, or the PMU) and sets them when the last request is released, as Arm's
/// driver does.
pub const CMD_PWR_CLK_MASK: u32 = CMD_CLOCK_Q_ENABLE | CMD_POWER_Q_ENABLE;
/// `CMD` after a reset: both Q-channels enabled.
pub const CMD_RESET_VALUE: u32 = CMD_PWR_CLK_MASK;

/// `PMCR`: PMU control. Bit 0 `cnt_en`, bit 1 `event_cnt_rst`, bit 2 `cycle_cnt_rst`,
/// bits 11..16 `num_event_cnt` (read-only).
pub const PMCR: u32 = 0x180;
/// `PMCNTENSET`: write 1s to enable counters (bits 0..4 event counters, bit 31 cycles).
pub const PMCNTENSET: u32 = 0x184;
/// `PMCNTENCLR`: write 1s to disable counters.
pub const PMCNTENCLR: u32 = 0x188;
/// `PMOVSSET`: overflow flags (read), write 1s to set.
pub const PMOVSSET: u32 = 0x18C;
/// `PMOVSCLR`: write 1s to clear overflow flags.
pub const PMOVSCLR: u32 = 0x190;
/// `PMINTSET`: write 1s to enable the PMU interrupt on a counter's overflow.
pub const PMINTSET: u32 = 0x194;
/// `PMINTCLR`: write 1s to disable it.
pub const PMINTCLR: u32 = 0x198;
/// `PMCCNTR`: the 48-bit cycle counter, low word.
pub const PMCCNTR: u32 = 0x1A0;
/// `PMCCNTR_HI`: the cycle counter, bits 32..48.
pub const PMCCNTR_HI: u32 = 0x1A4;
/// `PMCCNTR_CFG`: bits 0..10 the cycle counter's start event, bits 16..26 its stop event.
pub const PMCCNTR_CFG: u32 = 0x1A8;
/// `PMEVCNTR[0]`; `PMEVCNTR[1..4]` follow at 4-byte steps.
pub const PMEVCNTR0: u32 = 0x300;
/// `PMEVTYPER[0]`; `PMEVTYPER[1..4]` follow at 4-byte steps.
pub const PMEVTYPER0: u32 = 0x380;
/// Number of PMU event counters on the Ethos-U55.
pub const PMU_EVENT_COUNTERS: usize = 4;
/// `PMCR.cnt_en`.
pub const PMCR_CNT_EN: u32 = 1 << 0;
/// `PMCR.event_cnt_rst`: a write of 1 zeroes the event counters.
pub const PMCR_EVENT_CNT_RST: u32 = 1 << 1;
/// `PMCR.cycle_cnt_rst`: a write of 1 zeroes the cycle counter.
pub const PMCR_CYCLE_CNT_RST: u32 = 1 << 2;
/// The cycle counter's bit in `PMCNTENSET`, `PMCNTENCLR`, `PMOVSSET`, `PMOVSCLR`.
pub const PMU_CYCLE_BIT: u32 = 1 << 31;

/// Offset of `PMEVCNTR[n]`, `n` in `0..4`.
#[must_use]
pub const fn pmevcntr(n: u32) -> u32 {
    PMEVCNTR0 | ((n & 3) << 2)
}

/// Offset of `PMEVTYPER[n]`, `n` in `0..4`.
#[must_use]
pub const fn pmevtyper(n: u32) -> u32 {
    PMEVTYPER0 | ((n & 3) << 2)
}

/// Arm's default `AXI_LIMITn` word: max_outstanding_write_m1 15, max_outstanding_read_m1 31.
pub const AXI_LIMIT_DEFAULT: u32 = 0x0F1F_0000;

/// A decoded `STATUS` word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Status(pub u32);

impl Status {
    /// Bit 0: the NPU is running.
    pub const STATE: u32 = 1 << 0;
    /// Bit 1: an IRQ is raised.
    pub const IRQ_RAISED: u32 = 1 << 1;
    /// Bit 2: bus abort.
    pub const BUS_STATUS: u32 = 1 << 2;
    /// Bit 3: a soft reset is in progress.
    pub const RESET_STATUS: u32 = 1 << 3;
    /// Bit 4: the command stream could not be parsed.
    pub const CMD_PARSE_ERROR: u32 = 1 << 4;
    /// Bit 5: the end of the command stream was reached.
    pub const CMD_END_REACHED: u32 = 1 << 5;
    /// Bit 6: a PMU IRQ is raised.
    pub const PMU_IRQ_RAISED: u32 = 1 << 6;
    /// Bit 7: watchdog fault.
    pub const WD_FAULT: u32 = 1 << 7;
    /// Bit 8: ECC fault.
    pub const ECC_FAULT: u32 = 1 << 8;
    /// Bit 11: the faulting AXI interface.
    pub const FAULTING_INTERFACE: u32 = 1 << 11;
    /// Bits 12..16: the faulting channel.
    pub const FAULTING_CHANNEL_SHIFT: u32 = 12;
    /// The four fault bits (any one makes a run fail).
    pub const FAULTS: u32 =
        Self::BUS_STATUS | Self::CMD_PARSE_ERROR | Self::WD_FAULT | Self::ECC_FAULT;

    const fn bit(self, mask: u32) -> bool {
        self.0 & mask != 0
    }
    /// The NPU is running.
    #[must_use]
    pub const fn running(self) -> bool {
        self.bit(Self::STATE)
    }
    /// An IRQ is raised.
    #[must_use]
    pub const fn irq_raised(self) -> bool {
        self.bit(Self::IRQ_RAISED)
    }
    /// A bus abort happened.
    #[must_use]
    pub const fn bus_status(self) -> bool {
        self.bit(Self::BUS_STATUS)
    }
    /// A soft reset is in progress.
    #[must_use]
    pub const fn reset_status(self) -> bool {
        self.bit(Self::RESET_STATUS)
    }
    /// The command stream could not be parsed.
    #[must_use]
    pub const fn cmd_parse_error(self) -> bool {
        self.bit(Self::CMD_PARSE_ERROR)
    }
    /// The end of the command stream was reached.
    #[must_use]
    pub const fn cmd_end_reached(self) -> bool {
        self.bit(Self::CMD_END_REACHED)
    }
    /// A PMU IRQ is raised.
    #[must_use]
    pub const fn pmu_irq_raised(self) -> bool {
        self.bit(Self::PMU_IRQ_RAISED)
    }
    /// Watchdog fault.
    #[must_use]
    pub const fn wd_fault(self) -> bool {
        self.bit(Self::WD_FAULT)
    }
    /// ECC fault.
    #[must_use]
    pub const fn ecc_fault(self) -> bool {
        self.bit(Self::ECC_FAULT)
    }
    /// Any of the four fault bits.
    #[must_use]
    pub const fn any_fault(self) -> bool {
        self.bit(Self::FAULTS)
    }
    /// Bit 11: the AXI interface of a bus fault.
    #[must_use]
    pub const fn faulting_interface(self) -> u32 {
        (self.0 >> 11) & 1
    }
    /// Bits 12..16: the channel of a bus fault.
    #[must_use]
    pub const fn faulting_channel(self) -> u32 {
        (self.0 >> Self::FAULTING_CHANNEL_SHIFT) & 0xF
    }
    /// Bits 16..32: IRQ history mask.
    #[must_use]
    pub const fn irq_history_mask(self) -> u32 {
        self.0 >> 16
    }
}

/// A decoded `CONFIG` word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config(pub u32);

impl Config {
    /// Bits 0..4: log2 of the MACs per cycle.
    #[must_use]
    pub const fn macs_per_cc(self) -> u32 {
        self.0 & 0xF
    }
    /// MACs per cycle, `1 << macs_per_cc`.
    #[must_use]
    pub const fn macs(self) -> u32 {
        1 << self.macs_per_cc()
    }
    /// Bits 4..8: command-stream version.
    #[must_use]
    pub const fn cmd_stream_version(self) -> u32 {
        (self.0 >> 4) & 0xF
    }
    /// Bits 8..16: SHRAM size in KiB.
    #[must_use]
    pub const fn shram_kib(self) -> u32 {
        (self.0 >> 8) & 0xFF
    }
    /// Bit 27: custom DMA.
    #[must_use]
    pub const fn custom_dma(self) -> bool {
        self.0 & (1 << 27) != 0
    }
    /// Bits 28..32: product (0 = Ethos-U55).
    #[must_use]
    pub const fn product(self) -> u32 {
        self.0 >> 28
    }
}

/// A decoded `ID` word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Id(pub u32);

impl Id {
    /// Bits 0..4.
    #[must_use]
    pub const fn version_status(self) -> u32 {
        self.0 & 0xF
    }
    /// Bits 4..8.
    #[must_use]
    pub const fn version_minor(self) -> u32 {
        (self.0 >> 4) & 0xF
    }
    /// Bits 8..12.
    #[must_use]
    pub const fn version_major(self) -> u32 {
        (self.0 >> 8) & 0xF
    }
    /// Bits 12..16.
    #[must_use]
    pub const fn product_major(self) -> u32 {
        (self.0 >> 12) & 0xF
    }
    /// Bits 16..20.
    #[must_use]
    pub const fn arch_patch(self) -> u32 {
        (self.0 >> 16) & 0xF
    }
    /// Bits 20..28.
    #[must_use]
    pub const fn arch_minor(self) -> u32 {
        (self.0 >> 20) & 0xFF
    }
    /// Bits 28..32.
    #[must_use]
    pub const fn arch_major(self) -> u32 {
        self.0 >> 28
    }
}

/// The name of the register at `offset`, for messages (`"?"` for an unknown offset).
#[must_use]
pub const fn name(offset: u32) -> &'static str {
    match offset {
        ID => "ID",
        STATUS => "STATUS",
        CMD => "CMD",
        RESET => "RESET",
        QBASE => "QBASE",
        QBASE_HI => "QBASE_HI",
        QREAD => "QREAD",
        QCONFIG => "QCONFIG",
        QSIZE => "QSIZE",
        PROT => "PROT",
        CONFIG => "CONFIG",
        REGIONCFG => "REGIONCFG",
        PMCR => "PMCR",
        PMCNTENSET => "PMCNTENSET",
        PMCNTENCLR => "PMCNTENCLR",
        PMOVSSET => "PMOVSSET",
        PMOVSCLR => "PMOVSCLR",
        PMINTSET => "PMINTSET",
        PMINTCLR => "PMINTCLR",
        PMCCNTR => "PMCCNTR",
        PMCCNTR_HI => "PMCCNTR_HI",
        PMCCNTR_CFG => "PMCCNTR_CFG",
        0x300..=0x30F => "PMEVCNTR",
        0x380..=0x38F => "PMEVTYPER",
        0x040..=0x04F => "AXI_LIMIT",
        0x080..=0x0BF => {
            if offset & 4 == 0 {
                "BASEP.lo"
            } else {
                "BASEP.hi"
            }
        }
        _ => "?",
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
        assert_eq!(name(basep_hi(3)), "BASEP.hi");
    }
}
