//! The Ethos-U55 performance monitoring unit: a 48-bit cycle counter started and stopped by
//! events, and four 32-bit event counters, each counting one event type, with overflow
//! flags. The register sequence is Arm's (`ETHOSU_PMU_*` in ethos-u-core-driver).

use npuschema_generated::ethos_u55_regs::{Pmevtyper, Pmovsset};

/// A PMU event type, as written to `PMEVTYPER[n]` and `PMCCNTR_CFG` (10 bits). Open: any
/// value can be written; the associated constants are the Ethos-U55's documented events
/// (Arm's `pmu_event` list; Vela's `pmu_event_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PmuEvent(pub u16);

#[allow(
    missing_docs,
    reason = "the names are Arm's event names, documented by the TRM"
)]
impl PmuEvent {
    pub const NO_EVENT: Self = Self(0);
    pub const CYCLE: Self = Self(17);
    pub const NPU_IDLE: Self = Self(32);
    pub const CC_STALLED_ON_BLOCKDEP: Self = Self(33);
    pub const CC_STALLED_ON_SHRAM_RECONFIG: Self = Self(34);
    pub const NPU_ACTIVE: Self = Self(35);
    pub const MAC_ACTIVE: Self = Self(48);
    pub const MAC_ACTIVE_8BIT: Self = Self(49);
    pub const MAC_ACTIVE_16BIT: Self = Self(50);
    pub const MAC_DPU_ACTIVE: Self = Self(51);
    pub const MAC_STALLED_BY_WD_ACC: Self = Self(52);
    pub const MAC_STALLED_BY_WD: Self = Self(53);
    pub const MAC_STALLED_BY_ACC: Self = Self(54);
    pub const MAC_STALLED_BY_IB: Self = Self(55);
    pub const MAC_ACTIVE_32BIT: Self = Self(56);
    pub const MAC_STALLED_BY_INT_W: Self = Self(57);
    pub const MAC_STALLED_BY_INT_ACC: Self = Self(58);
    pub const AO_ACTIVE: Self = Self(64);
    pub const AO_ACTIVE_8BIT: Self = Self(65);
    pub const AO_ACTIVE_16BIT: Self = Self(66);
    pub const AO_STALLED_BY_OFMP_OB: Self = Self(67);
    pub const AO_STALLED_BY_OFMP: Self = Self(68);
    pub const AO_STALLED_BY_OB: Self = Self(69);
    pub const AO_STALLED_BY_ACC_IB: Self = Self(70);
    pub const AO_STALLED_BY_ACC: Self = Self(71);
    pub const AO_STALLED_BY_IB: Self = Self(72);
    pub const WD_ACTIVE: Self = Self(80);
    pub const WD_STALLED: Self = Self(81);
    pub const WD_STALLED_BY_WS: Self = Self(82);
    pub const WD_STALLED_BY_WD_BUF: Self = Self(83);
    pub const WD_PARSE_ACTIVE: Self = Self(84);
    pub const WD_PARSE_STALLED: Self = Self(85);
    pub const WD_PARSE_STALLED_IN: Self = Self(86);
    pub const WD_PARSE_STALLED_OUT: Self = Self(87);
    pub const WD_TRANS_WS: Self = Self(88);
    pub const WD_TRANS_WB: Self = Self(89);
    pub const WD_TRANS_DW0: Self = Self(90);
    pub const WD_TRANS_DW1: Self = Self(91);
    pub const AXI0_RD_TRANS_ACCEPTED: Self = Self(128);
    pub const AXI0_RD_TRANS_COMPLETED: Self = Self(129);
    pub const AXI0_RD_DATA_BEAT_RECEIVED: Self = Self(130);
    pub const AXI0_RD_TRAN_REQ_STALLED: Self = Self(131);
    pub const AXI0_WR_TRANS_ACCEPTED: Self = Self(132);
    pub const AXI0_WR_TRANS_COMPLETED_M: Self = Self(133);
    pub const AXI0_WR_TRANS_COMPLETED_S: Self = Self(134);
    pub const AXI0_WR_DATA_BEAT_WRITTEN: Self = Self(135);
    pub const AXI0_WR_TRAN_REQ_STALLED: Self = Self(136);
    pub const AXI0_WR_DATA_BEAT_STALLED: Self = Self(137);
    pub const AXI0_ENABLED_CYCLES: Self = Self(140);
    pub const AXI0_RD_STALL_LIMIT: Self = Self(142);
    pub const AXI0_WR_STALL_LIMIT: Self = Self(143);
    pub const AXI_LATENCY_ANY: Self = Self(160);
    pub const AXI_LATENCY_32: Self = Self(161);
    pub const AXI_LATENCY_64: Self = Self(162);
    pub const AXI_LATENCY_128: Self = Self(163);
    pub const AXI_LATENCY_256: Self = Self(164);
    pub const AXI_LATENCY_512: Self = Self(165);
    pub const AXI_LATENCY_1024: Self = Self(166);
    pub const ECC_DMA: Self = Self(176);
    pub const ECC_SB0: Self = Self(177);
    pub const AXI1_RD_TRANS_ACCEPTED: Self = Self(384);
    pub const AXI1_RD_TRANS_COMPLETED: Self = Self(385);
    pub const AXI1_RD_DATA_BEAT_RECEIVED: Self = Self(386);
    pub const AXI1_RD_TRAN_REQ_STALLED: Self = Self(387);
    pub const AXI1_WR_TRANS_ACCEPTED: Self = Self(388);
    pub const AXI1_WR_TRANS_COMPLETED_M: Self = Self(389);
    pub const AXI1_WR_TRANS_COMPLETED_S: Self = Self(390);
    pub const AXI1_WR_DATA_BEAT_WRITTEN: Self = Self(391);
    pub const AXI1_WR_TRAN_REQ_STALLED: Self = Self(392);
    pub const AXI1_WR_DATA_BEAT_STALLED: Self = Self(393);
    pub const AXI1_ENABLED_CYCLES: Self = Self(396);
    pub const AXI1_RD_STALL_LIMIT: Self = Self(398);
    pub const AXI1_WR_STALL_LIMIT: Self = Self(399);
    pub const ECC_SB1: Self = Self(433);

    /// Arm's name of the event (`"NPU_ACTIVE"`, ...), or `None` for a value the Ethos-U55
    /// does not document.
    #[must_use]
    pub const fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "NO_EVENT",
            17 => "CYCLE",
            32 => "NPU_IDLE",
            33 => "CC_STALLED_ON_BLOCKDEP",
            34 => "CC_STALLED_ON_SHRAM_RECONFIG",
            35 => "NPU_ACTIVE",
            48 => "MAC_ACTIVE",
            49 => "MAC_ACTIVE_8BIT",
            50 => "MAC_ACTIVE_16BIT",
            51 => "MAC_DPU_ACTIVE",
            52 => "MAC_STALLED_BY_WD_ACC",
            53 => "MAC_STALLED_BY_WD",
            54 => "MAC_STALLED_BY_ACC",
            55 => "MAC_STALLED_BY_IB",
            56 => "MAC_ACTIVE_32BIT",
            57 => "MAC_STALLED_BY_INT_W",
            58 => "MAC_STALLED_BY_INT_ACC",
            64 => "AO_ACTIVE",
            65 => "AO_ACTIVE_8BIT",
            66 => "AO_ACTIVE_16BIT",
            67 => "AO_STALLED_BY_OFMP_OB",
            68 => "AO_STALLED_BY_OFMP",
            69 => "AO_STALLED_BY_OB",
            70 => "AO_STALLED_BY_ACC_IB",
            71 => "AO_STALLED_BY_ACC",
            72 => "AO_STALLED_BY_IB",
            80 => "WD_ACTIVE",
            81 => "WD_STALLED",
            82 => "WD_STALLED_BY_WS",
            83 => "WD_STALLED_BY_WD_BUF",
            84 => "WD_PARSE_ACTIVE",
            85 => "WD_PARSE_STALLED",
            86 => "WD_PARSE_STALLED_IN",
            87 => "WD_PARSE_STALLED_OUT",
            88 => "WD_TRANS_WS",
            89 => "WD_TRANS_WB",
            90 => "WD_TRANS_DW0",
            91 => "WD_TRANS_DW1",
            128 => "AXI0_RD_TRANS_ACCEPTED",
            129 => "AXI0_RD_TRANS_COMPLETED",
            130 => "AXI0_RD_DATA_BEAT_RECEIVED",
            131 => "AXI0_RD_TRAN_REQ_STALLED",
            132 => "AXI0_WR_TRANS_ACCEPTED",
            133 => "AXI0_WR_TRANS_COMPLETED_M",
            134 => "AXI0_WR_TRANS_COMPLETED_S",
            135 => "AXI0_WR_DATA_BEAT_WRITTEN",
            136 => "AXI0_WR_TRAN_REQ_STALLED",
            137 => "AXI0_WR_DATA_BEAT_STALLED",
            140 => "AXI0_ENABLED_CYCLES",
            142 => "AXI0_RD_STALL_LIMIT",
            143 => "AXI0_WR_STALL_LIMIT",
            160 => "AXI_LATENCY_ANY",
            161 => "AXI_LATENCY_32",
            162 => "AXI_LATENCY_64",
            163 => "AXI_LATENCY_128",
            164 => "AXI_LATENCY_256",
            165 => "AXI_LATENCY_512",
            166 => "AXI_LATENCY_1024",
            176 => "ECC_DMA",
            177 => "ECC_SB0",
            384 => "AXI1_RD_TRANS_ACCEPTED",
            385 => "AXI1_RD_TRANS_COMPLETED",
            386 => "AXI1_RD_DATA_BEAT_RECEIVED",
            387 => "AXI1_RD_TRAN_REQ_STALLED",
            388 => "AXI1_WR_TRANS_ACCEPTED",
            389 => "AXI1_WR_TRANS_COMPLETED_M",
            390 => "AXI1_WR_TRANS_COMPLETED_S",
            391 => "AXI1_WR_DATA_BEAT_WRITTEN",
            392 => "AXI1_WR_TRAN_REQ_STALLED",
            393 => "AXI1_WR_DATA_BEAT_STALLED",
            396 => "AXI1_ENABLED_CYCLES",
            398 => "AXI1_RD_STALL_LIMIT",
            399 => "AXI1_WR_STALL_LIMIT",
            433 => "ECC_SB1",
            _ => return None,
        })
    }

    /// The 10-bit register encoding.
    #[must_use]
    pub const fn bits(self) -> u32 {
        Pmevtyper::new().with_ev_type(self.0).bits()
    }
}

/// What [`super::Driver::pmu_enable`] programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PmuConfig {
    /// The event each of the four event counters counts ([`PmuEvent::NO_EVENT`]: none).
    pub events: [PmuEvent; 4],
    /// The event that starts the cycle counter ([`PmuEvent::NO_EVENT`]: counts from enable).
    pub cycle_start: PmuEvent,
    /// The event that stops it ([`PmuEvent::NO_EVENT`]: never stops).
    pub cycle_stop: PmuEvent,
}

impl core::fmt::Display for PmuEvent {
    /// Arm's name, or `event N` for an undocumented one.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "event {}", self.0),
        }
    }
}

/// The PMU's counters as read by [`super::Driver::pmu_read`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PmuCounters {
    /// The 48-bit cycle counter.
    pub cycles: u64,
    /// The four event counters.
    pub events: [u32; 4],
    /// `PMOVSSET`: bit `n` event counter `n` overflowed, bit 31 the cycle counter.
    pub overflow: u32,
}

impl PmuCounters {
    /// Event counter `n` overflowed (wrapped past `u32::MAX`) since the flags were cleared.
    #[must_use]
    pub const fn event_overflowed(&self, n: u32) -> bool {
        let o = Pmovsset::from_bits(self.overflow);
        match n {
            0 => o.event_cnt_0_ovf(),
            1 => o.event_cnt_1_ovf(),
            2 => o.event_cnt_2_ovf(),
            3 => o.event_cnt_3_ovf(),
            _ => false,
        }
    }

    /// The cycle counter overflowed (wrapped past 2^48 - 1).
    #[must_use]
    pub const fn cycles_overflowed(&self) -> bool {
        Pmovsset::from_bits(self.overflow).cycle_cnt_ovf()
    }
}
