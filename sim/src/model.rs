//! The register model and the command-stream executor.

use npuschema_generated::ethos_u55_regs as map;
use npuschema_runtime::cmd::{self, AccessKind, Opcode, StreamState};
use npuschema_runtime::driver::PmuEvent;
use npuschema_runtime::driver::Status;
use npuschema_runtime::driver::regs::{
    self, CMD, CMD_CLEAR_IRQ, CMD_PWR_CLK_MASK, CMD_RESET_VALUE, CMD_RUN, CONFIG, ID, PMCCNTR,
    PMCCNTR_CFG, PMCCNTR_HI, PMCNTENCLR, PMCNTENSET, PMCR, PMCR_CNT_EN, PMCR_CYCLE_CNT_RST,
    PMCR_EVENT_CNT_RST, PMINTCLR, PMINTSET, PMOVSCLR, PMOVSSET, PMU_CYCLE_BIT, PROT, QBASE,
    QBASE_HI, QCONFIG, QREAD, QSIZE, REGION_SLOTS, REGIONCFG, RESET, STATUS,
};

/// Index of the element at `offset` of the register array `base`, `stride`, `count` (as
/// the generated register map declares them).
fn element(offset: u32, base: u32, stride: u32, count: u32) -> Option<usize> {
    let rel = offset.checked_sub(base)?;
    if stride == 0 || !rel.is_multiple_of(stride) || rel / stride >= count {
        return None;
    }
    usize::try_from(rel / stride).ok()
}

/// `AXI_LIMIT[n]`'s index from its offset.
fn axi_limit_index(offset: u32) -> Option<usize> {
    element(
        offset,
        map::AXI_LIMIT,
        map::AXI_LIMIT_STRIDE,
        map::AXI_LIMIT_COUNT,
    )
}

/// The index in the simulator's sixteen `BASEP` words (low word of region `n` at `2n`,
/// high word at `2n + 1`) of the register at `offset`.
fn basep_word(offset: u32) -> Option<usize> {
    if let Some(n) = element(offset, map::BASEP, map::BASEP_STRIDE, map::BASEP_COUNT) {
        n.checked_mul(2)
    } else {
        element(
            offset,
            map::BASEP_HI,
            map::BASEP_HI_STRIDE,
            map::BASEP_HI_COUNT,
        )?
        .checked_mul(2)?
        .checked_add(1)
    }
}

/// `PMEVCNTR[n]`'s index from its offset.
fn pmevcntr_index(offset: u32) -> Option<usize> {
    element(
        offset,
        map::PMEVCNTR,
        map::PMEVCNTR_STRIDE,
        map::PMEVCNTR_COUNT,
    )
}

/// `PMEVTYPER[n]`'s index from its offset.
fn pmevtyper_index(offset: u32) -> Option<usize> {
    element(
        offset,
        map::PMEVTYPER,
        map::PMEVTYPER_STRIDE,
        map::PMEVTYPER_COUNT,
    )
}

/// Event counter `n`'s bit in `PMCNTENSET`/`PMCNTENCLR`.
const EVENT_ENABLE: [u32; 4] = [
    map::Pmcntenset::EVENT_CNT_0_MASK,
    map::Pmcntenset::EVENT_CNT_1_MASK,
    map::Pmcntenset::EVENT_CNT_2_MASK,
    map::Pmcntenset::EVENT_CNT_3_MASK,
];

/// Event counter `n`'s bit in `PMOVSSET`/`PMOVSCLR`.
const EVENT_OVERFLOW: [u32; 4] = [
    map::Pmovsset::EVENT_CNT_0_OVF_MASK,
    map::Pmovsset::EVENT_CNT_1_OVF_MASK,
    map::Pmovsset::EVENT_CNT_2_OVF_MASK,
    map::Pmovsset::EVENT_CNT_3_OVF_MASK,
];

use crate::compute::{self, Budget, ComputeError, Outcome, Work};
use crate::elementwise::LUT_BYTES;
use crate::memory::Memory;

/// Faults the simulator can be told to inject.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    /// Report this `CONFIG.product` instead of 0 (U55).
    pub product: Option<u32>,
    /// A soft reset never completes (`STATUS.reset_status` stays set).
    pub reset_hangs: bool,
    /// After a reset, `PROT` reads the opposite privilege level to the one asked for.
    pub prot_mismatch: bool,
    /// The run stops with `ecc_fault` at its first memory-touching operation.
    pub ecc_fault: bool,
    /// The run stops with `wd_fault` at its first memory-touching operation.
    pub watchdog_fault: bool,
    /// A started run never finishes (no IRQ, `STATUS.state` stays running).
    pub hang: bool,
    /// The interrupt line fires once right after every start, with `STATUS.irq_raised`
    /// clear (a spurious interrupt), before the run completes.
    pub spurious_irq: bool,
}

/// The simulated NPU's identity, timing and faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimConfig {
    /// The `ID` word.
    pub id: u32,
    /// The `CONFIG` word (product 0 = U55; bits 0..4 log2 MACs/cycle).
    pub config: u32,
    /// `STATUS` reads (or idle ticks) a soft reset takes; 0 completes it at once.
    pub reset_latency: u32,
    /// Ticks (`STATUS` reads, or [`npuschema_runtime::driver::Platform::idle`] calls) from
    /// start to completion; 0 completes the run inside the `CMD` write that starts it.
    pub run_latency: u32,
    /// Injected faults.
    pub faults: Faults,
    /// The work and data one run may use ([`Budget::DEFAULT`]): a stream that needs more
    /// stops with `wd_fault` (the watchdog: the run takes too long) and
    /// [`RunRecord::compute_error`] says [`ComputeError::Budget`].
    pub budget: Budget,
}

/// `ID` word the simulator reports by default: arch 1.1.0, product major 0, version 1.0.0.
pub const DEFAULT_ID: u32 = map::Id::new()
    .with_arch_major_rev(1)
    .with_arch_minor_rev(1)
    .with_version_major(1)
    .bits();

/// Vela's U55-128 `CONFIG` word: 128 MACs/cycle, command-stream version 0, 24 KiB SHRAM.
pub const CONFIG_U55_128: u32 = map::Config::new()
    .with_macs_per_cc(7)
    .with_shram_size(24)
    .bits();

/// Vela's U55-256 `CONFIG` word: 256 MACs/cycle, 48 KiB SHRAM.
pub const CONFIG_U55_256: u32 = map::Config::new()
    .with_macs_per_cc(8)
    .with_shram_size(48)
    .bits();

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            id: DEFAULT_ID,
            config: CONFIG_U55_128,
            reset_latency: 2,
            run_latency: 3,
            faults: Faults::default(),
            budget: Budget::DEFAULT,
        }
    }
}

impl SimConfig {
    /// A U55 with `macs` MACs/cycle (32, 64, 128 or 256; anything else is rounded down to
    /// a power of two), SHRAM as Vela assumes for it.
    #[must_use]
    pub fn u55(macs: u32) -> Self {
        let log2 = 31u32.saturating_sub(macs.max(1).leading_zeros());
        let shram_kib: u32 = match log2 {
            0..=6 => 16,
            7 => 24,
            _ => 48,
        };
        Self {
            config: map::Config::new()
                .with_shram_size(shram_kib as u8)
                .with_macs_per_cc(log2 as u8)
                .bits(),
            ..Self::default()
        }
    }
}

/// `STATUS.faulting_channel` values the simulator reports for a bus fault: Arm's encoding
/// (read channels 0 command, 1 IFM, 2 weights, 3 scale and bias, 4 memory-to-memory;
/// write channels 8 OFM, 9 memory-to-memory).
pub mod channel {
    /// Command fetch (read).
    pub const CMD: u32 = 0;
    /// IFM / IFM2 read.
    pub const IFM: u32 = 1;
    /// Weight read.
    pub const WEIGHTS: u32 = 2;
    /// Scale and bias read.
    pub const SCALES: u32 = 3;
    /// Memory-to-memory (DMA) read.
    pub const MEM2MEM_READ: u32 = 4;
    /// OFM write.
    pub const OFM: u32 = 8;
    /// Memory-to-memory (DMA) write.
    pub const MEM2MEM_WRITE: u32 = 9;
    /// DMA source read: [`MEM2MEM_READ`].
    pub const DMA_SRC: u32 = MEM2MEM_READ;
    /// DMA destination write: [`MEM2MEM_WRITE`].
    pub const DMA_DST: u32 = MEM2MEM_WRITE;
}

fn channel_of(kind: AccessKind) -> u32 {
    match kind {
        AccessKind::Ifm | AccessKind::Ifm2 => channel::IFM,
        AccessKind::Weights => channel::WEIGHTS,
        AccessKind::Scales => channel::SCALES,
        AccessKind::Ofm => channel::OFM,
        AccessKind::DmaSrc => channel::DMA_SRC,
        AccessKind::DmaDst => channel::DMA_DST,
    }
}

/// Why the simulator raised `bus_status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BusFault {
    /// The command stream `QBASE .. QBASE + QSIZE` is not in simulated memory.
    CommandFetch {
        /// `QBASE`.
        address: u64,
        /// `QSIZE`.
        len: u64,
    },
    /// An access to a region the harness gave no size for.
    UnboundRegion {
        /// What the access was for.
        kind: AccessKind,
        /// Region index.
        region: u8,
    },
    /// An access past the end of its region.
    OutsideRegion {
        /// What the access was for.
        kind: AccessKind,
        /// Region index.
        region: u8,
        /// Offset of the first byte in the region.
        start: u64,
        /// Length.
        len: u64,
        /// The region's size.
        size: u64,
    },
    /// The address range (`BASEP + offset`) is not in simulated memory.
    Unmapped {
        /// What the access was for.
        kind: AccessKind,
        /// Region index.
        region: u8,
        /// Bus address.
        address: u64,
        /// Length.
        len: u64,
    },
    /// The access computation overflowed the 32-bit address range.
    AddressOverflow {
        /// What the access was for.
        kind: AccessKind,
    },
}

/// What one run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunRecord {
    /// Commands executed (the faulting one included).
    pub commands: u64,
    /// Memory-touching operations executed.
    pub operations: u64,
    /// `NPU_OP_DMA_START`s that copied bytes between regions.
    pub dma_copies: u64,
    /// Bytes those copies moved.
    pub dma_bytes: u64,
    /// DMA transfers to or from SHRAM (not modelled beyond the external side's check).
    pub shram_transfers: u64,
    /// `NPU_OP_IRQ` commands seen (not modelled: the run goes on).
    pub irq_ops: u64,
    /// Per region: one past the highest byte offset read.
    pub read_extent: [u64; 8],
    /// Per region: one past the highest byte offset written.
    pub write_extent: [u64; 8],
    /// The bus fault, if the run raised one.
    pub bus_fault: Option<BusFault>,
    /// The decode error, if the run raised `cmd_parse_error`.
    pub parse_error: Option<cmd::DecodeError>,
    /// `STATUS` when the run completed (`None` while running or if it never completed).
    pub final_status: Option<u32>,
    /// `QREAD` when the run stopped.
    pub qread: u32,
    /// `CMD[3:2]` (clock/power Q-channel enables) when the run started: 0 when the driver
    /// had disabled gating for the run, as it must.
    pub cmd_q_at_start: u32,
    /// Operations whose output values the simulator computed.
    pub computed: u64,
    /// Operations whose accesses were checked but whose values the simulator does not
    /// model yet (their outputs are left as they were).
    pub not_computed: u64,
    /// The budget ran out (the run stopped with `wd_fault`), or the first operation whose
    /// outputs could not be computed (a weight stream that does not decode, a register
    /// value not modelled: the run goes on, counted in `not_computed`).
    pub compute_error: Option<ComputeError>,
    /// Work the run used against [`SimConfig::budget`].
    pub work: Work,
}

/// Counters over the simulator's life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Runs started.
    pub runs: u32,
    /// Soft resets started.
    pub resets: u32,
    /// `CMD` run requests ignored (NPU busy, resetting, or needing a reset after a fault).
    pub ignored_starts: u32,
    /// IRQs raised.
    pub irqs: u32,
    /// IRQs delivered to a registered handler.
    pub irqs_delivered: u32,
    /// Cache-clean calls received (as the platform).
    pub cleans: u32,
    /// Cache-invalidate calls received (as the platform).
    pub invalidates: u32,
    /// Idle calls received (as the platform).
    pub idles: u32,
    /// Sleep calls received (as the platform).
    pub sleeps: u32,
    /// Spurious interrupts raised (`Faults::spurious_irq`).
    pub spurious_irqs: u32,
}

/// The PMU model: the cycle counter counts the simulator's ticks (between its start and
/// stop events), the event counters count the events the simulator produces: `CYCLE`,
/// `NPU_ACTIVE` and `NPU_IDLE` per tick, and per memory access of an executed operation
/// (and the command fetch) one `AXIn_RD_TRANS_ACCEPTED` or `AXIn_WR_TRANS_ACCEPTED` and
/// one `AXIn_RD_DATA_BEAT_RECEIVED` or `AXIn_WR_DATA_BEAT_WRITTEN` per 8 bytes (a 64-bit
/// bus), on the AXI interface of the region's attribute. A soft reset clears it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pmu {
    pmcr: u32,
    cnten: u32,
    ovs: u32,
    inten: u32,
    ccnt: u64,
    ccnt_cfg: u32,
    counting: bool,
    evtype: [u32; 4],
    evcnt: [u32; 4],
}

impl Default for Pmu {
    /// The PMU after a reset: every register at its reset value.
    fn default() -> Self {
        let cycles = (u64::from(map::PMCCNTR_HI_RESET) << 32) | u64::from(map::PMCCNTR_LO_RESET);
        Self {
            pmcr: map::PMCR_RESET & !map::Pmcr::NUM_EVENT_CNT_MASK,
            cnten: map::PMCNTENSET_RESET,
            ovs: map::PMOVSSET_RESET,
            inten: map::PMINTSET_RESET,
            ccnt: cycles,
            ccnt_cfg: map::PMCCNTR_CFG_RESET,
            counting: false,
            evtype: [map::PMEVTYPER_RESET; 4],
            evcnt: [map::PMEVCNTR_RESET; 4],
        }
    }
}

/// The sixteen `BASEP` words after a reset (low and high words reset alike).
const BASEP_WORDS_RESET: [u32; 16] = {
    assert!(map::BASEP_RESET == map::BASEP_HI_RESET);
    [map::BASEP_RESET; 16]
};

/// REGIONCFG's attribute for region `region` (`0..8`; others wrap).
fn region_attr(regioncfg: u32, region: u8) -> u8 {
    let r = map::Regioncfg::from_bits(regioncfg);
    match u32::from(region) % map::BASEP_COUNT {
        0 => r.region0(),
        1 => r.region1(),
        2 => r.region2(),
        3 => r.region3(),
        4 => r.region4(),
        5 => r.region5(),
        6 => r.region6(),
        _ => r.region7(),
    }
}

/// The 48-bit cycle counter's range: `PMCCNTR_LO` and `PMCCNTR_HI.cycle_cnt_hi`.
const CYCLE_COUNTER_MASK: u64 = ((map::PmccntrHi::CYCLE_CNT_HI_MASK as u64) << 32) | 0xFFFF_FFFF;

impl Pmu {
    fn enabled(&self) -> bool {
        self.pmcr & PMCR_CNT_EN != 0
    }

    fn start_event(&self) -> u32 {
        u32::from(map::PmccntrCfg::from_bits(self.ccnt_cfg).cycle_cnt_cfg_start())
    }

    fn stop_event(&self) -> u32 {
        u32::from(map::PmccntrCfg::from_bits(self.ccnt_cfg).cycle_cnt_cfg_stop())
    }

    /// `n` occurrences of `event`.
    fn event(&mut self, event: PmuEvent, n: u64) {
        if !self.enabled() || n == 0 || event == PmuEvent::NO_EVENT {
            return;
        }
        let code = event.bits();
        let bits = EVENT_ENABLE.iter().zip(EVENT_OVERFLOW.iter());
        for ((ty, cnt), (&enable, &overflow)) in
            self.evtype.iter().zip(self.evcnt.iter_mut()).zip(bits)
        {
            if *ty == code && self.cnten & enable != 0 {
                let sum = u64::from(*cnt).saturating_add(n);
                if sum > u64::from(u32::MAX) {
                    self.ovs |= overflow;
                }
                *cnt = sum as u32;
            }
        }
        if code == self.start_event() {
            self.counting = true;
        }
        if code == self.stop_event() {
            self.counting = false;
        }
    }

    /// One tick, the NPU running or not.
    fn tick(&mut self, running: bool) {
        self.event(PmuEvent::CYCLE, 1);
        self.event(
            if running {
                PmuEvent::NPU_ACTIVE
            } else {
                PmuEvent::NPU_IDLE
            },
            1,
        );
        if self.enabled() && self.cnten & PMU_CYCLE_BIT != 0 && self.counting {
            let next = self.ccnt.saturating_add(1);
            if next > CYCLE_COUNTER_MASK {
                self.ovs |= PMU_CYCLE_BIT;
            }
            self.ccnt = next & CYCLE_COUNTER_MASK;
        }
    }

    /// One memory access of `len` bytes on AXI interface `interface`.
    fn access(&mut self, interface: u32, write: bool, len: u64) {
        let (trans, beats) = match (interface, write) {
            (0, false) => (
                PmuEvent::AXI0_RD_TRANS_ACCEPTED,
                PmuEvent::AXI0_RD_DATA_BEAT_RECEIVED,
            ),
            (0, true) => (
                PmuEvent::AXI0_WR_TRANS_ACCEPTED,
                PmuEvent::AXI0_WR_DATA_BEAT_WRITTEN,
            ),
            (_, false) => (
                PmuEvent::AXI1_RD_TRANS_ACCEPTED,
                PmuEvent::AXI1_RD_DATA_BEAT_RECEIVED,
            ),
            (_, true) => (
                PmuEvent::AXI1_WR_TRANS_ACCEPTED,
                PmuEvent::AXI1_WR_DATA_BEAT_WRITTEN,
            ),
        };
        self.event(trans, 1);
        self.event(beats, len.div_ceil(8));
    }

    fn read(&self, offset: u32) -> Option<u32> {
        Some(match offset {
            // num_event_cnt (read only) as after a reset.
            PMCR => self.pmcr | (map::PMCR_RESET & map::Pmcr::NUM_EVENT_CNT_MASK),
            PMCNTENSET | PMCNTENCLR => self.cnten,
            PMOVSSET | PMOVSCLR => self.ovs,
            PMINTSET | PMINTCLR => self.inten,
            PMCCNTR => self.ccnt as u32,
            PMCCNTR_HI => (self.ccnt >> 32) as u32,
            PMCCNTR_CFG => self.ccnt_cfg,
            _ => {
                if let Some(i) = pmevcntr_index(offset) {
                    self.evcnt.get(i).copied().unwrap_or(0)
                } else if let Some(i) = pmevtyper_index(offset) {
                    self.evtype.get(i).copied().unwrap_or(0)
                } else {
                    return None;
                }
            }
        })
    }

    fn write(&mut self, offset: u32, value: u32) -> bool {
        match offset {
            PMCR => {
                self.pmcr = value & (map::Pmcr::CNT_EN_MASK | map::Pmcr::MASK_EN_MASK);
                if value & PMCR_EVENT_CNT_RST != 0 {
                    self.evcnt = [0; 4];
                }
                if value & PMCR_CYCLE_CNT_RST != 0 {
                    self.ccnt = 0;
                }
            }
            PMCNTENSET => self.cnten |= value & map::Pmcntenset::FIELDS,
            PMCNTENCLR => self.cnten &= !value,
            PMOVSSET => self.ovs |= value & map::Pmovsset::FIELDS,
            PMOVSCLR => self.ovs &= !value,
            PMINTSET => self.inten |= value & map::Pmintset::FIELDS,
            PMINTCLR => self.inten &= !value,
            PMCCNTR => self.ccnt = (self.ccnt & !0xFFFF_FFFF) | u64::from(value),
            PMCCNTR_HI => {
                let hi = map::PmccntrHi::from_bits(value).cycle_cnt_hi();
                self.ccnt = (self.ccnt & 0xFFFF_FFFF) | (u64::from(hi) << 32);
            }
            PMCCNTR_CFG => {
                self.ccnt_cfg = value & map::PmccntrCfg::FIELDS;
                self.counting = self.start_event() == 0;
            }
            _ => {
                if let Some(i) = pmevcntr_index(offset) {
                    if let Some(c) = self.evcnt.get_mut(i) {
                        *c = value;
                    }
                } else if let Some(i) = pmevtyper_index(offset) {
                    if let Some(t) = self.evtype.get_mut(i) {
                        *t = value & map::Pmevtyper::FIELDS;
                    }
                } else {
                    return false;
                }
            }
        }
        true
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    Idle,
    /// Running; completes with `status` bits after `remaining` more ticks.
    Running {
        remaining: u32,
        status: u32,
    },
    /// Never completes.
    Hung,
}

/// One command of a kept stream ([`Kept`]): the command, its opcode, and for a
/// memory-touching operation the index of its registers and accesses in [`Kept::ops`]
/// ([`Step::NONE`] for other commands).
#[cfg(feature = "std")]
#[derive(Debug, Clone, Copy)]
struct Step {
    command: cmd::Command,
    opcode: Option<Opcode>,
    op: u32,
}

#[cfg(feature = "std")]
impl Step {
    /// [`Step::op`] of a command that is not a memory-touching operation.
    const NONE: u32 = u32::MAX;
}

/// The last command stream's decoding, kept by a session ([`Core::set_keep`]): its bytes,
/// its commands up to the end or the first that does not decode (and that error), and at
/// each memory-touching operation the registers as the stream leaves them and what the
/// operation touches (relative to its regions: the region checks, base addresses and
/// memory are the run's). All of it follows from the bytes alone, so it is kept while the
/// bytes are the same, compared on every run. Its size is bounded by the stream's:
/// [`KeptBytes::STEP_BYTES`] a command and [`KeptBytes::OPERATION_BYTES`] more an
/// operation, at most [`Kept::MAX_OPS`] operations.
#[cfg(feature = "std")]
#[derive(Debug)]
pub(crate) struct Kept {
    bytes: Vec<u8>,
    steps: Vec<Step>,
    error: Option<cmd::DecodeError>,
    ops: Vec<(StreamState, cmd::Operation)>,
    /// The bytes of the distinct weight streams (region, offset, length) its operations
    /// read, and how many: what bounds the kept weight decodings ([`Core::weight_limit`]).
    weight_bytes: u64,
    weight_streams: u64,
}

#[cfg(feature = "std")]
impl Kept {
    /// The most operations kept (at most some 16 MiB of them on a 64-bit host); a stream
    /// with more is decoded as it runs, and no weight decodings are kept for it.
    pub(crate) const MAX_OPS: usize = 16 << 10;

    /// Decode `stream` up to its end or its first decode error; `None` past
    /// [`Self::MAX_OPS`] operations.
    fn new(stream: &[u8]) -> Option<Self> {
        let mut state = StreamState::new();
        let (mut steps, mut ops, mut error) = (Vec::new(), Vec::new(), None);
        let mut weights: Vec<(u8, u64, u64)> = Vec::new();
        for item in cmd::decode(stream) {
            let command = match item {
                Ok(c) => c,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            };
            let op = match state.apply(&command) {
                Some(op) if ops.len() < Self::MAX_OPS => {
                    weights.extend(
                        op.accesses()
                            .iter()
                            .filter(|a| a.kind == AccessKind::Weights && !a.shram)
                            .map(|a| (a.region, a.start, a.len)),
                    );
                    ops.push((state.clone(), op));
                    u32::try_from(ops.len() - 1).ok()?
                }
                Some(_) => return None,
                None => Step::NONE,
            };
            steps.push(Step {
                command,
                opcode: command.opcode(),
                op,
            });
        }
        weights.sort_unstable();
        weights.dedup();
        steps.shrink_to_fit();
        ops.shrink_to_fit();
        Some(Self {
            bytes: stream.to_vec(),
            steps,
            error,
            ops,
            weight_bytes: weights
                .iter()
                .fold(0u64, |sum, &(_, _, len)| sum.saturating_add(len)),
            weight_streams: weights.len() as u64,
        })
    }

    /// Its bytes (the allocations' capacities).
    fn size(&self) -> u64 {
        let bytes = self
            .bytes
            .capacity()
            .saturating_add(self.steps.capacity().saturating_mul(KeptBytes::STEP_BYTES))
            .saturating_add(
                self.ops
                    .capacity()
                    .saturating_mul(KeptBytes::OPERATION_BYTES),
            )
            .saturating_add(core::mem::size_of::<Self>());
        bytes as u64
    }
}

/// What a simulator keeps beyond its memory (the bound regions), SHRAM and its registers:
/// decodings kept for the next runs, which only a session asks for
/// ([`crate::Sim::set_keep_decodings`], [`crate::with_session`]). A one-shot run keeps
/// none (all zero), as the `no_std` build.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptBytes {
    /// Bytes of the kept command-stream decoding (allocations included): at most
    /// [`Self::stream_bound`] of its commands and operations.
    pub stream: u64,
    /// Commands in it.
    pub commands: u64,
    /// Memory-touching operations in it.
    pub operations: u64,
    /// Bytes of the kept weight-stream decodings (allocations included): at most
    /// [`Self::weights_limit`].
    pub weights: u64,
    /// The bytes of the distinct weight streams (region, offset, length) the kept
    /// stream's operations read.
    pub weight_stream_bytes: u64,
    /// How many they are.
    pub weight_streams: u64,
    /// The limit on [`Self::weights`], [`Self::weights_bound`] of the two above (and
    /// 64 MiB at most).
    pub weights_limit: u64,
}

#[cfg(feature = "std")]
impl KeptBytes {
    /// Bytes a kept command takes (the command, its opcode, its operation's index).
    pub const STEP_BYTES: usize = core::mem::size_of::<Step>();
    /// Bytes a kept operation takes on top (the registers after it, what it touches).
    pub const OPERATION_BYTES: usize = core::mem::size_of::<(StreamState, cmd::Operation)>();

    /// The most a kept decoding of a `stream_len`-byte stream of `commands` commands and
    /// `operations` operations takes: the stream's copy, [`Self::STEP_BYTES`] a command,
    /// [`Self::OPERATION_BYTES`] an operation (a command takes at least 4 of the stream's
    /// bytes, so at most `stream_len / 4` commands), and the decoding's own fields.
    #[must_use]
    pub fn stream_bound(stream_len: u64, commands: u64, operations: u64) -> u64 {
        stream_len
            .saturating_add(commands.saturating_mul(Self::STEP_BYTES as u64))
            .saturating_add(operations.saturating_mul(Self::OPERATION_BYTES as u64))
            .saturating_add(core::mem::size_of::<Kept>() as u64)
    }

    /// Bytes a kept weight decoding takes beside its stream's copy and its weights.
    pub const WEIGHT_ENTRY_BYTES: usize = compute::Entry::BYTES;

    /// The most the kept decodings of `streams` weight streams of `bytes` bytes in all
    /// may take: [`crate::compute::KEPT_WEIGHT_BYTES_PER_STREAM_BYTE`] a byte and
    /// [`Self::WEIGHT_ENTRY_BYTES`] a stream.
    #[must_use]
    pub fn weights_bound(bytes: u64, streams: u64) -> u64 {
        bytes
            .saturating_mul(compute::KEPT_WEIGHT_BYTES_PER_STREAM_BYTE)
            .saturating_add(streams.saturating_mul(Self::WEIGHT_ENTRY_BYTES as u64))
    }

    /// Everything kept.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.stream.saturating_add(self.weights)
    }
}

/// The whole simulated NPU.
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) cfg: SimConfig,
    pub(crate) memory: Memory,
    pub(crate) region_sizes: [Option<u64>; 8],
    pub(crate) stats: SimStats,
    pub(crate) last_run: Option<RunRecord>,
    #[cfg(feature = "std")]
    pub(crate) writes: Vec<(u32, u32)>,
    qbase: u32,
    qbase_hi: u32,
    qsize: u32,
    qconfig: u32,
    regioncfg: u32,
    axi_limits: [u32; 4],
    basep: [u32; 16],
    cmd_q: u32,
    prot: u32,
    pending_prot: u32,
    status: u32,
    qread: u32,
    reset_remaining: Option<u32>,
    run: Run,
    needs_reset: bool,
    irq_event: bool,
    ticks: u64,
    pmu: Pmu,
    /// SHRAM's LUT memory (its last 2 KiB), as DMA transfers into SHRAM leave it.
    lut: [u8; LUT_BYTES],
    /// Weight streams decoded before (`compute::WeightCache`): kept only while
    /// [`Self::keep`] is set.
    pub(crate) weights: compute::WeightCache,
    /// Keep decodings for the next runs (a session's; [`Self::set_keep`]).
    #[cfg(feature = "std")]
    keep: bool,
    /// The last command stream's decoding, while [`Self::keep`] is set (`execute`).
    #[cfg(feature = "std")]
    commands: Option<Kept>,
}

impl Core {
    pub(crate) fn new(cfg: SimConfig) -> Self {
        Self {
            cfg,
            memory: Memory::new(),
            region_sizes: [None; 8],
            stats: SimStats::default(),
            last_run: None,
            #[cfg(feature = "std")]
            writes: Vec::new(),
            qbase: map::QBASE_RESET,
            qbase_hi: map::QBASE_HI_RESET,
            qsize: map::QSIZE_RESET,
            qconfig: map::QCONFIG_RESET,
            regioncfg: map::REGIONCFG_RESET,
            axi_limits: [map::AXI_LIMIT_RESET; 4],
            basep: BASEP_WORDS_RESET,
            cmd_q: CMD_RESET_VALUE,
            prot: map::PROT_RESET,
            pending_prot: map::PROT_RESET,
            status: map::STATUS_RESET,
            qread: map::QREAD_RESET,
            reset_remaining: None,
            run: Run::Idle,
            needs_reset: false,
            irq_event: false,
            ticks: 0,
            pmu: Pmu::default(),
            lut: [0; LUT_BYTES],
            weights: compute::WeightCache::default(),
            #[cfg(feature = "std")]
            keep: false,
            #[cfg(feature = "std")]
            commands: None,
        }
    }

    /// Keep the command stream's decoding and its weight streams' for the next runs (a
    /// session's), each bounded by the stream's ([`KeptBytes`]); or keep nothing (the
    /// default, and what is kept is dropped): each run decodes as it runs.
    #[cfg(feature = "std")]
    pub(crate) fn set_keep(&mut self, keep: bool) {
        self.keep = keep;
        if !keep {
            self.commands = None;
            self.weights.set_limit(0);
        }
    }

    /// The limit on the kept weight decodings for the kept stream `k`
    /// ([`KeptBytes::weights_bound`] of its weight streams).
    #[cfg(feature = "std")]
    fn weight_limit(k: &Kept) -> usize {
        let limit = KeptBytes::weights_bound(k.weight_bytes, k.weight_streams);
        usize::try_from(limit).unwrap_or(usize::MAX)
    }

    /// What is kept for the next runs.
    #[cfg(feature = "std")]
    pub(crate) fn kept(&self) -> KeptBytes {
        let (stream, commands, operations, weight_stream_bytes, weight_streams) =
            self.commands.as_ref().map_or((0, 0, 0, 0, 0), |k| {
                (
                    k.size(),
                    k.steps.len() as u64,
                    k.ops.len() as u64,
                    k.weight_bytes,
                    k.weight_streams,
                )
            });
        KeptBytes {
            stream,
            commands,
            operations,
            weights: self.weights.kept_bytes() as u64,
            weight_stream_bytes,
            weight_streams,
            weights_limit: self.weights.limit() as u64,
        }
    }

    /// Ticks since the simulator was made: its clock.
    pub(crate) fn now(&self) -> u64 {
        self.ticks
    }

    fn config_word(&self) -> u32 {
        match self.cfg.faults.product {
            Some(p) => map::Config::from_bits(self.cfg.config)
                .with_product(p as u8)
                .bits(),
            None => self.cfg.config,
        }
    }

    /// `BASEP[n]` as a 64-bit address.
    pub(crate) fn basep(&self, n: usize) -> u64 {
        let word = |i: Option<usize>| i.and_then(|i| self.basep.get(i)).copied().unwrap_or(0);
        let lo = word(n.checked_mul(2));
        let hi = word(n.checked_mul(2).and_then(|i| i.checked_add(1)));
        (u64::from(hi) << 32) | u64::from(lo)
    }

    pub(crate) fn axi_limits(&self) -> [u32; 4] {
        self.axi_limits
    }

    pub(crate) fn regioncfg(&self) -> u32 {
        self.regioncfg
    }

    pub(crate) fn qconfig(&self) -> u32 {
        self.qconfig
    }

    pub(crate) fn take_irq_event(&mut self) -> bool {
        core::mem::take(&mut self.irq_event)
    }

    pub(crate) fn read(&self, offset: u32) -> u32 {
        match offset {
            ID => self.cfg.id,
            STATUS => self.status,
            CMD => self.cmd_q,
            QBASE => self.qbase,
            QBASE_HI => self.qbase_hi,
            QREAD => self.qread,
            QCONFIG => self.qconfig,
            QSIZE => self.qsize,
            PROT => self.prot,
            CONFIG => self.config_word(),
            REGIONCFG => self.regioncfg,
            _ => {
                if let Some(v) = self.pmu.read(offset) {
                    v
                } else if let Some(i) = axi_limit_index(offset) {
                    self.axi_limits.get(i).copied().unwrap_or(0)
                } else if let Some(i) = basep_word(offset) {
                    self.basep.get(i).copied().unwrap_or(0)
                } else {
                    0
                }
            }
        }
    }

    pub(crate) fn write(&mut self, offset: u32, value: u32) {
        #[cfg(feature = "std")]
        self.writes.push((offset, value));
        match offset {
            CMD => self.command(value),
            RESET => self.start_reset(value),
            QBASE => self.qbase = value,
            QBASE_HI => self.qbase_hi = value,
            QCONFIG => self.qconfig = value,
            QSIZE => self.qsize = value,
            REGIONCFG => self.regioncfg = value,
            // ID, STATUS, QREAD, PROT, CONFIG are read-only; other offsets are not modelled.
            _ if self.pmu.write(offset, value) => {}
            _ => {
                let slot = if let Some(i) = axi_limit_index(offset) {
                    self.axi_limits.get_mut(i)
                } else if let Some(i) = basep_word(offset) {
                    self.basep.get_mut(i)
                } else {
                    None
                };
                if let Some(r) = slot {
                    *r = value;
                }
            }
        }
    }

    /// One unit of simulated time.
    pub(crate) fn tick(&mut self) {
        self.ticks = self.ticks.wrapping_add(1);
        let running = self.run != Run::Idle;
        self.pmu.tick(running);
        if let Some(left) = self.reset_remaining {
            if left <= 1 {
                if !self.cfg.faults.reset_hangs {
                    self.finish_reset();
                }
            } else {
                self.reset_remaining = Some(left.saturating_sub(1));
            }
        }
        if let Run::Running { remaining, status } = self.run {
            if remaining <= 1 {
                self.complete(status);
            } else {
                self.run = Run::Running {
                    remaining: remaining.saturating_sub(1),
                    status,
                };
            }
        }
    }

    fn command(&mut self, value: u32) {
        self.cmd_q = value & CMD_PWR_CLK_MASK;
        if value & CMD_CLEAR_IRQ != 0 {
            self.status &= !Status::IRQ_RAISED;
        }
        // clear_irq_history: 1s clear the matching history bits.
        let status = map::Status::from_bits(self.status);
        let clear = map::Cmd::from_bits(value).clear_irq_history();
        self.status = status
            .with_irq_history_mask(status.irq_history_mask() & !clear)
            .bits();
        if value & CMD_RUN != 0 {
            self.start_run();
        }
    }

    fn start_reset(&mut self, value: u32) {
        self.stats.resets = self.stats.resets.saturating_add(1);
        // PROT after the reset: the privilege and security levels asked for.
        let asked = map::Reset::from_bits(value);
        self.pending_prot = map::Prot::new()
            .with_active_cpl(asked.pending_cpl())
            .with_active_csl(asked.pending_csl())
            .bits();
        self.run = Run::Idle;
        self.status = Status::RESET_STATUS;
        if self.cfg.reset_latency == 0 && !self.cfg.faults.reset_hangs {
            self.finish_reset();
        } else {
            self.reset_remaining = Some(self.cfg.reset_latency.max(1));
        }
    }

    fn finish_reset(&mut self) {
        self.reset_remaining = None;
        self.status = map::STATUS_RESET;
        self.qread = map::QREAD_RESET;
        self.qbase = map::QBASE_RESET;
        self.qbase_hi = map::QBASE_HI_RESET;
        self.qsize = map::QSIZE_RESET;
        self.qconfig = map::QCONFIG_RESET;
        self.regioncfg = map::REGIONCFG_RESET;
        self.axi_limits = [map::AXI_LIMIT_RESET; 4];
        self.basep = BASEP_WORDS_RESET;
        self.cmd_q = CMD_RESET_VALUE;
        self.pmu = Pmu::default();
        self.needs_reset = false;
        self.run = Run::Idle;
        self.prot = if self.cfg.faults.prot_mismatch {
            self.pending_prot ^ map::Prot::ACTIVE_CPL_MASK
        } else {
            self.pending_prot
        };
    }

    fn start_run(&mut self) {
        if self.reset_remaining.is_some() || self.needs_reset || self.run != Run::Idle {
            self.stats.ignored_starts = self.stats.ignored_starts.saturating_add(1);
            return;
        }
        self.stats.runs = self.stats.runs.saturating_add(1);
        self.status &= !(Status::FAULTS
            | Status::CMD_END_REACHED
            | Status::FAULTING_INTERFACE
            | Status::FAULTING_CHANNEL);
        self.status |= Status::STATE;
        if self.cfg.faults.spurious_irq {
            self.stats.spurious_irqs = self.stats.spurious_irqs.saturating_add(1);
            self.irq_event = true;
        }
        let cmd_q_at_start = self.cmd_q;
        if self.cfg.faults.hang {
            self.last_run = Some(RunRecord {
                cmd_q_at_start,
                ..RunRecord::default()
            });
            self.run = Run::Hung;
            return;
        }
        let (mut record, bits) = self.execute();
        record.cmd_q_at_start = cmd_q_at_start;
        self.qread = record.qread;
        self.last_run = Some(record);
        if self.cfg.run_latency == 0 {
            self.complete(bits);
        } else {
            self.run = Run::Running {
                remaining: self.cfg.run_latency,
                status: bits,
            };
        }
    }

    fn complete(&mut self, bits: u32) {
        self.run = Run::Idle;
        self.status &= !Status::STATE;
        // The IRQ, and its first history bit.
        self.status |=
            bits | Status::IRQ_RAISED | map::Status::new().with_irq_history_mask(1).bits();
        if bits & Status::FAULTS != 0 {
            self.needs_reset = true;
        }
        if let Some(r) = self.last_run.as_mut() {
            r.final_status = Some(self.status);
        }
        self.stats.irqs = self.stats.irqs.saturating_add(1);
        self.irq_event = true;
    }

    /// The AXI interface a region's accesses use: attributes 2 and 3 are AXI1.
    fn interface_of_attr(attr: u32) -> u32 {
        u32::from(attr >= 2)
    }

    /// The memory attribute of command fetches: `QCONFIG.cmd_region0`.
    fn qconfig_attr(qconfig: u32) -> u32 {
        u32::from(map::Qconfig::from_bits(qconfig).cmd_region0())
    }

    fn bus_fault_bits(channel: u32, interface: u32) -> u32 {
        map::Status::new()
            .with_bus_status(true)
            .with_faulting_channel(channel as u8)
            .with_faulting_interface(interface != 0)
            .bits()
    }

    /// The injected ECC or watchdog fault, raised at the first memory-touching operation
    /// (or at `NPU_OP_STOP` in a stream without one).
    fn injected_fault(&self) -> Option<u32> {
        if self.cfg.faults.ecc_fault {
            Some(Status::ECC_FAULT)
        } else if self.cfg.faults.watchdog_fault {
            Some(Status::WD_FAULT)
        } else {
            None
        }
    }

    /// A DMA of `len` bytes from bus address `src` to SHRAM offset `at`: the part that
    /// lands in the LUT memory (SHRAM's last 2 KiB, where regor's `InsertLUTDMACommand`
    /// puts tables) is copied there; the rest of SHRAM holds nothing an operation reads
    /// across commands, and is not kept.
    fn load_lut(&mut self, src: u64, at: u64, len: u64) {
        let shram =
            u64::from(map::Config::from_bits(self.cfg.config).shram_size()).saturating_mul(1024);
        let base = shram.saturating_sub(LUT_BYTES as u64);
        for i in 0..len.min(shram) {
            let off = at.saturating_add(i);
            if off < base || off >= shram {
                continue;
            }
            let byte = src
                .checked_add(i)
                .and_then(|a| self.memory.read(a, 1))
                .and_then(|b| b.first().copied());
            if let (Some(b), Some(slot)) = (
                byte,
                usize::try_from(off.saturating_sub(base))
                    .ok()
                    .and_then(|o| self.lut.get_mut(o)),
            ) {
                *slot = b;
            }
        }
    }

    /// Run the stream now; returns what happened and the `STATUS` bits to raise at
    /// completion.
    fn execute(&mut self) -> (RunRecord, u32) {
        let rec = RunRecord::default();
        let qbase = (u64::from(self.qbase_hi) << 32) | u64::from(self.qbase);
        let qsize = u64::from(self.qsize);
        let interface = Self::interface_of_attr(Self::qconfig_attr(self.qconfig));
        // In a session ([`Self::set_keep`]) the last stream's decoding is kept ([`Kept`])
        // and reused while the stream's bytes are the same (compared in place on every
        // run), and with it the weight streams' decodings, up to a limit from the
        // stream's weight streams; otherwise (a one-shot run, the `no_std` build) the
        // stream is decoded as it runs and nothing is kept.
        #[cfg(feature = "std")]
        {
            let Some(stream) = self.memory.read(qbase, qsize) else {
                return Self::fetch_fault(rec, qbase, qsize, interface);
            };
            let kept = if self.keep {
                match self.commands.take() {
                    Some(k) if k.bytes.as_slice() == stream => Some(k),
                    _ => Kept::new(stream),
                }
            } else {
                None
            };
            self.pmu.access(interface, false, qsize);
            match kept {
                Some(k) => {
                    self.weights.set_limit(Self::weight_limit(&k));
                    let out = self.run_kept(rec, qsize, &k);
                    self.commands = Some(k);
                    out
                }
                // Not kept (a one-shot run, or too many operations to keep each one's
                // registers: then no weight decodings either): decoded as it runs, from a
                // copy (DMA commands may write the stream's window).
                None => {
                    self.weights.set_limit(0);
                    match self.memory.stream(qbase, qsize) {
                        Some(stream) => self.run_decoding(rec, qsize, &stream),
                        None => Self::fetch_fault(RunRecord::default(), qbase, qsize, interface),
                    }
                }
            }
        }
        #[cfg(not(feature = "std"))]
        {
            let Some(stream) = self.memory.stream(qbase, qsize) else {
                return Self::fetch_fault(rec, qbase, qsize, interface);
            };
            self.pmu.access(interface, false, qsize);
            self.run_decoding(rec, qsize, &stream)
        }
    }

    /// The command stream `QBASE .. QBASE + QSIZE` is not in simulated memory.
    fn fetch_fault(mut rec: RunRecord, address: u64, len: u64, interface: u32) -> (RunRecord, u32) {
        rec.bus_fault = Some(BusFault::CommandFetch { address, len });
        (rec, Self::bus_fault_bits(channel::CMD, interface))
    }

    /// Run `stream` (`qsize` bytes), decoding it as it runs.
    fn run_decoding(&mut self, mut rec: RunRecord, qsize: u64, stream: &[u8]) -> (RunRecord, u32) {
        let mut state = StreamState::new();
        for item in cmd::decode(stream) {
            let command = match item {
                Ok(c) => c,
                Err(e) => return Self::parse_error(rec, e),
            };
            let opcode = command.opcode();
            let op = state.apply(&command);
            let op = op.as_ref().map(|op| (&state, op));
            if let Some(bits) = self.step(&mut rec, qsize, &command, opcode, op) {
                return (rec, bits);
            }
        }
        // The stream ran out without NPU_OP_STOP: the end of the stream is reached.
        (rec, Status::CMD_END_REACHED)
    }

    /// Run a kept decoding of the stream (`qsize` bytes): as [`Self::run_decoding`] does,
    /// with each command's opcode and each operation's registers and accesses as decoding
    /// the same bytes gives them.
    #[cfg(feature = "std")]
    fn run_kept(&mut self, mut rec: RunRecord, qsize: u64, kept: &Kept) -> (RunRecord, u32) {
        for step in &kept.steps {
            let op = usize::try_from(step.op)
                .ok()
                .and_then(|i| kept.ops.get(i))
                .map(|(state, op)| (state, op));
            if let Some(bits) = self.step(&mut rec, qsize, &step.command, step.opcode, op) {
                return (rec, bits);
            }
        }
        match kept.error {
            Some(e) => Self::parse_error(rec, e),
            None => (rec, Status::CMD_END_REACHED),
        }
    }

    /// The stream does not decode at `e`.
    fn parse_error(mut rec: RunRecord, e: cmd::DecodeError) -> (RunRecord, u32) {
        rec.qread = e.offset;
        rec.parse_error = Some(e);
        (rec, Status::CMD_PARSE_ERROR)
    }

    /// Execute `command` (opcode `opcode`; for a memory-touching operation, `op`: the
    /// registers after it and what it touches). `Some(bits)` stops the run with those
    /// `STATUS` bits.
    fn step(
        &mut self,
        rec: &mut RunRecord,
        qsize: u64,
        command: &cmd::Command,
        opcode: Option<Opcode>,
        op: Option<(&StreamState, &cmd::Operation)>,
    ) -> Option<u32> {
        rec.qread = command.offset;
        rec.commands = rec.commands.saturating_add(1);
        match opcode {
            Some(Opcode::OpStop) => {
                if let Some(bits) = self.injected_fault() {
                    return Some(bits);
                }
                let next = u64::from(command.offset).saturating_add(u64::from(command.size()));
                let end = if next >= qsize {
                    Status::CMD_END_REACHED
                } else {
                    0
                };
                return Some(end);
            }
            Some(Opcode::OpIrq) => rec.irq_ops = rec.irq_ops.saturating_add(1),
            _ => {}
        }
        let (state, op) = op?;
        rec.operations = rec.operations.saturating_add(1);
        if let Some(bits) = self.injected_fault() {
            return Some(bits);
        }
        if let Some(kind) = op.overflowed().next() {
            rec.bus_fault = Some(BusFault::AddressOverflow { kind });
            return Some(Self::bus_fault_bits(channel_of(kind), 0));
        }
        // Check every access first (the NPU stops at the first bad one).
        let mut dma: [Option<u64>; 2] = [None, None];
        // A DMA into SHRAM: its SHRAM offset.
        let mut shram_dst: Option<u64> = None;
        for a in op.accesses() {
            if a.shram {
                if a.kind == AccessKind::DmaDst {
                    shram_dst = Some(a.start);
                }
                continue;
            }
            let region = usize::from(a.region) % REGION_SLOTS;
            let attr = u32::from(region_attr(self.regioncfg, a.region));
            let fault = |f: BusFault| {
                (
                    f,
                    Self::bus_fault_bits(channel_of(a.kind), Self::interface_of_attr(attr)),
                )
            };
            let Some(size) = self.region_sizes.get(region).copied().flatten() else {
                let (f, bits) = fault(BusFault::UnboundRegion {
                    kind: a.kind,
                    region: a.region,
                });
                rec.bus_fault = Some(f);
                return Some(bits);
            };
            if a.end() > size {
                let (f, bits) = fault(BusFault::OutsideRegion {
                    kind: a.kind,
                    region: a.region,
                    start: a.start,
                    len: a.len,
                    size,
                });
                rec.bus_fault = Some(f);
                return Some(bits);
            }
            let address = self.basep(region).checked_add(a.start);
            let Some(address) = address.filter(|&addr| self.memory.contains(addr, a.len)) else {
                let (f, bits) = fault(BusFault::Unmapped {
                    kind: a.kind,
                    region: a.region,
                    address: self.basep(region).saturating_add(a.start),
                    len: a.len,
                });
                rec.bus_fault = Some(f);
                return Some(bits);
            };
            let extents = if a.write {
                &mut rec.write_extent
            } else {
                &mut rec.read_extent
            };
            if let Some(e) = extents.get_mut(region) {
                *e = (*e).max(a.end());
            }
            self.pmu
                .access(Self::interface_of_attr(attr), a.write, a.len);
            match a.kind {
                AccessKind::DmaSrc => dma[0] = Some(address),
                AccessKind::DmaDst => dma[1] = Some(address),
                _ => {}
            }
        }
        if op.opcode == Opcode::OpDmaStart {
            let len = u64::from(state.payload(Opcode::SetDma0Len));
            if let Err(e) = rec.work.bytes(len, &self.cfg.budget) {
                rec.compute_error = Some(e);
                return Some(Status::WD_FAULT);
            }
            match (dma, shram_dst) {
                ([Some(src), Some(dst)], _)
                    if len > 0 && self.memory.copy(src, dst, len).is_some() =>
                {
                    rec.dma_copies = rec.dma_copies.saturating_add(1);
                    rec.dma_bytes = rec.dma_bytes.saturating_add(len);
                }
                ([Some(src), None], Some(at)) => {
                    rec.shram_transfers = rec.shram_transfers.saturating_add(1);
                    self.load_lut(src, at, len);
                }
                _ if op.accesses().iter().any(|a| a.shram) => {
                    rec.shram_transfers = rec.shram_transfers.saturating_add(1);
                }
                _ => {}
            }
        }
        if op.opcode != Opcode::OpDmaStart {
            let mut basep = [0u64; 8];
            for (i, b) in basep.iter_mut().enumerate() {
                *b = self.basep(i);
            }
            let macs = 1u32 << (map::Config::from_bits(self.cfg.config).macs_per_cc() & 15);
            match compute::execute(
                op.opcode,
                state,
                &mut self.memory,
                &basep,
                macs,
                &self.lut,
                &mut self.weights,
                &mut rec.work,
                &self.cfg.budget,
            ) {
                Ok(Outcome::Computed) => rec.computed = rec.computed.saturating_add(1),
                Ok(Outcome::NotModelled) => {
                    rec.not_computed = rec.not_computed.saturating_add(1);
                }
                // The budget stops the run (the watchdog: a real NPU would still be
                // busy). Any other error (a weight stream that does not decode, a
                // register value not modelled) leaves that operation's outputs
                // uncomputed and the run going, as on hardware, which has no status
                // bit for them; the record keeps the first.
                Err(e @ ComputeError::Budget { .. }) => {
                    rec.compute_error = Some(e);
                    return Some(Status::WD_FAULT);
                }
                Err(e) => {
                    rec.not_computed = rec.not_computed.saturating_add(1);
                    if rec.compute_error.is_none() {
                        rec.compute_error = Some(e);
                    }
                }
            }
        }
        None
    }
}

/// Name of a register for the write log.
#[must_use]
pub fn register_name(offset: u32) -> &'static str {
    regs::name(offset)
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    fn word(code: u16, param: u16) -> [u8; 4] {
        (u32::from(code) | (u32::from(param) << 16)).to_le_bytes()
    }

    /// `ops` DMAs of `len` bytes from region 0 offset 0 to region 1 offset 0, then stop.
    fn dmas(ops: usize, len: u32) -> Vec<u8> {
        let mut s = Vec::new();
        s.extend(word(0x130, 0));
        s.extend(word(0x131, 1));
        for (code, payload) in [(0x4030u16, 0u32), (0x4031, 0), (0x4032, len)] {
            s.extend(word(code, 0));
            s.extend(payload.to_le_bytes());
        }
        for _ in 0..ops {
            s.extend(word(0x010, 0)); // NPU_OP_DMA_START
        }
        s.extend(word(0x000, 0xFFFF)); // NPU_OP_STOP
        s
    }

    const STREAM: u64 = 0x1000;
    const SRC: u64 = 0x2000;
    const DST: u64 = 0x3000;

    /// A core keeping decodings (a session's) with `stream` at [`STREAM`], 16 bytes
    /// 1..=16 at [`SRC`] (region 0) and 16 zeros at [`DST`] (region 1).
    fn core(stream: &[u8]) -> Core {
        let mut c = Core::new(SimConfig {
            run_latency: 0,
            reset_latency: 0,
            ..SimConfig::default()
        });
        c.set_keep(true);
        let src: Vec<u8> = (1..=16).collect();
        assert!(c.memory.store(SRC, &src));
        assert!(c.memory.store(DST, &[0; 16]));
        assert!(c.memory.store(STREAM, stream));
        c.region_sizes = [Some(16), Some(16), None, None, None, None, None, None];
        program(&mut c, stream.len());
        c
    }

    /// The base pointers and the queue of a `len`-byte stream, as after [`core`].
    fn program(c: &mut Core, len: usize) {
        c.write(map::BASEP, SRC as u32);
        c.write(map::BASEP + map::BASEP_STRIDE, DST as u32);
        c.write(QBASE, STREAM as u32);
        c.write(QSIZE, len as u32);
    }

    fn run(c: &mut Core) -> RunRecord {
        c.write(CMD, CMD_RUN | CMD_CLEAR_IRQ);
        c.last_run.clone().unwrap()
    }

    #[test]
    fn a_kept_stream_is_decoded_again_when_its_bytes_change() {
        let a = dmas(1, 4);
        let mut c = core(&a);
        let r = run(&mut c);
        assert_eq!((r.operations, r.dma_bytes), (1, 4));
        assert_eq!(c.memory.read(DST, 8).unwrap(), &[1, 2, 3, 4, 0, 0, 0, 0]);
        assert!(c.commands.is_some(), "the stream's decoding is kept");
        // The same bytes again: the same run.
        assert_eq!(run(&mut c), r);
        // One payload byte changed in place (DMA0_LEN 4 -> 8): the run follows the bytes.
        let b = dmas(1, 8);
        assert_eq!(a.len(), b.len());
        assert!(c.memory.store(STREAM, &b));
        let r = run(&mut c);
        assert_eq!((r.operations, r.dma_bytes), (1, 8));
        assert_eq!(c.memory.read(DST, 8).unwrap(), &[1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn a_kept_stream_stops_at_its_first_command_that_does_not_decode() {
        let mut s = dmas(1, 4);
        let stop = s.len() - 4;
        // An unknown opcode in place of NPU_OP_STOP, then a DMA that never runs.
        s.splice(stop.., word(0x3FF, 0));
        s.extend(word(0x010, 0));
        let mut c = core(&s);
        let first = run(&mut c);
        assert!(c.commands.is_some());
        let e = first.parse_error.expect("a parse error");
        assert_eq!((e.offset, first.qread), (stop as u32, stop as u32));
        assert_eq!((first.operations, first.dma_bytes), (1, 4));
        assert_eq!(
            first.final_status.map(|s| s & Status::CMD_PARSE_ERROR),
            Some(Status::CMD_PARSE_ERROR)
        );
        // The kept decoding stops there too (after a reset: a parse error needs one).
        c.write(RESET, 0);
        program(&mut c, s.len());
        assert_eq!(run(&mut c), first);
        assert_eq!((c.stats.runs, c.stats.ignored_starts), (2, 0));
    }

    #[test]
    fn a_core_keeps_no_decoding_unless_asked_and_a_kept_one_is_bounded_by_the_stream() {
        let s = dmas(3, 4);
        let mut kept = core(&s);
        let mut plain = core(&s);
        plain.set_keep(false);
        for _ in 0..2 {
            let (a, b) = (run(&mut kept), run(&mut plain));
            assert_eq!(a, b, "the same run, kept or not");
            assert_eq!(plain.kept(), KeptBytes::default(), "nothing kept");
            assert!(plain.commands.is_none());
        }
        let k = kept.kept();
        // 2 region commands, 3 DMA registers, 3 DMAs, stop; 3 operations.
        assert_eq!((k.commands, k.operations), (9, 3));
        assert!(k.stream > 0);
        let bound = KeptBytes::stream_bound(s.len() as u64, k.commands, k.operations);
        assert!(k.stream <= bound, "{} > {bound}", k.stream);
        // No weight streams: no weight decodings may be kept.
        assert_eq!(
            (
                k.weight_stream_bytes,
                k.weight_streams,
                k.weights,
                k.weights_limit
            ),
            (0, 0, 0, 0)
        );
        // Turning keeping off drops what was kept.
        kept.set_keep(false);
        assert_eq!(kept.kept(), KeptBytes::default());
    }

    /// The sizes the session's documentation states (`crate::run::Session`).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn kept_sizes_are_the_documented_ones() {
        assert_eq!(
            (
                KeptBytes::STEP_BYTES,
                KeptBytes::OPERATION_BYTES,
                KeptBytes::WEIGHT_ENTRY_BYTES
            ),
            (24, 984, 152)
        );
    }

    #[test]
    fn a_stream_of_more_operations_than_are_kept_is_decoded_as_it_runs() {
        let n = Kept::MAX_OPS + 1;
        let mut c = core(&dmas(n, 2));
        let r = run(&mut c);
        assert!(c.commands.is_none(), "not kept");
        assert_eq!(r.operations, n as u64);
        assert_eq!(r.commands, n as u64 + 6);
        assert_eq!((r.dma_copies, r.dma_bytes), (n as u64, 2 * n as u64));
        assert_eq!(
            r.final_status.map(|s| s & Status::CMD_END_REACHED),
            Some(Status::CMD_END_REACHED)
        );
        // At the limit it is kept, and runs alike.
        let mut k = core(&dmas(n - 1, 2));
        let r = run(&mut k);
        assert!(k.commands.is_some());
        assert_eq!(
            (r.operations, r.dma_bytes),
            (n as u64 - 1, 2 * (n as u64 - 1))
        );
    }
}
