//! The simulated NPU's view of memory: disjoint windows of bytes at NPU bus addresses.
//!
//! The simulator never dereferences an address. It sees only bytes that were put into a
//! window: by the driver's cache-clean hook (the bytes the NPU is about to read, copied at
//! the bus address the driver gave it) or by the test harness ([`crate::Sim::map`]).
//!
//! A window's memory grows with what is in it, not with its size: a new window starts
//! zeroed by the allocator (pages the process has not touched), and only the pages whose
//! bytes are not all zero are copied in. A runtime region of zeros costs address space, not
//! memory, until the stream writes it.
//!
//! With the `std` feature the windows grow as needed ([`Memory`], below). Without it the
//! simulator cannot allocate: [`crate::StaticMemory`] keeps its windows in memory the
//! caller gives it, and is `Memory` then.

#[cfg(not(feature = "std"))]
pub use crate::static_memory::StaticMemory as Memory;

#[cfg(feature = "std")]
/// `a - b` as a `usize`, if `a >= b` and it fits.
fn usize_diff(a: u64, b: u64) -> Option<usize> {
    usize::try_from(a.checked_sub(b)?).ok()
}

/// Bytes compared at a time by [`copy_touching`]: a page.
#[cfg(feature = "std")]
const CHUNK: usize = 4096;

/// `dst.copy_from_slice(src)`, but leaving alone every page-sized chunk where both are all
/// zero, so that a zeroed destination's untouched pages stay untouched.
#[cfg(feature = "std")]
fn copy_touching(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.chunks_mut(CHUNK).zip(src.chunks(CHUNK)) {
        if s.iter().any(|&b| b != 0) || d.iter().any(|&b| b != 0) {
            d.copy_from_slice(s);
        }
    }
}

/// One contiguous window.
#[cfg(feature = "std")]
#[derive(Debug, Clone, PartialEq, Eq)]
struct Window {
    base: u64,
    bytes: Vec<u8>,
}

#[cfg(feature = "std")]
impl Window {
    fn end(&self) -> u64 {
        self.base.saturating_add(self.bytes.len() as u64)
    }
}

/// Sorted, disjoint, non-adjacent windows.
#[cfg(feature = "std")]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memory {
    windows: Vec<Window>,
}

#[cfg(feature = "std")]
impl Memory {
    /// No memory at all.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Make `base .. base + data.len()` visible and holding `data`, merging with any
    /// window it overlaps or touches (the new bytes win). Returns `false` (and changes
    /// nothing) if the range passes the end of the 64-bit address space.
    pub fn store(&mut self, base: u64, data: &[u8]) -> bool {
        let Some(end) = base.checked_add(data.len() as u64) else {
            return false;
        };
        if data.is_empty() {
            return true;
        }
        // Inside one window (a run's cache clean of what the last run's mapped): in place,
        // as the merge below would leave it (windows are disjoint and non-adjacent, so no
        // other window touches the range).
        let inside = self.find(base, data.len() as u64);
        if let Some(dst) = inside.and_then(|(i, start, stop)| {
            self.windows
                .get_mut(i)
                .and_then(|w| w.bytes.get_mut(start..stop))
        }) {
            copy_touching(dst, data);
            return true;
        }
        // Windows that overlap or touch [base, end).
        let first = self.windows.partition_point(|w| w.end() < base);
        let last = self.windows.partition_point(|w| w.base <= end);
        let (lo, hi) = match self.windows.get(first..last) {
            Some([]) | None => (base, end),
            Some(ws) => {
                let lo = ws.first().map_or(base, |w| w.base.min(base));
                let hi = ws.last().map_or(end, |w| w.end().max(end));
                (lo, hi)
            }
        };
        let (Some(len), Some(at)) = (usize_diff(hi, lo), usize_diff(base, lo)) else {
            return false;
        };
        // Zeroed by the allocator: untouched pages take no memory until written. Asked for
        // fallibly first: a refusal leaves the range unmapped (the run then faults on it)
        // instead of aborting the process.
        if Vec::<u8>::new().try_reserve_exact(len).is_err() {
            return false;
        }
        let mut merged = vec![0u8; len];
        for w in self.windows.drain(first..last) {
            // Every merged window lies inside lo..hi.
            if let Some(dst) = usize_diff(w.base, lo)
                .and_then(|off| merged.get_mut(off..off.checked_add(w.bytes.len())?))
            {
                copy_touching(dst, &w.bytes);
            }
        }
        if let Some(dst) = merged.get_mut(at..at.saturating_add(data.len())) {
            copy_touching(dst, data);
        }
        self.windows.insert(
            first,
            Window {
                base: lo,
                bytes: merged,
            },
        );
        true
    }

    fn find(&self, addr: u64, len: u64) -> Option<(usize, usize, usize)> {
        let end = addr.checked_add(len)?;
        let i = self.windows.partition_point(|w| w.end() <= addr);
        let w = self.windows.get(i)?;
        if w.base > addr || end > w.end() {
            return None;
        }
        let start = usize_diff(addr, w.base)?;
        let stop = usize_diff(end, w.base)?;
        Some((i, start, stop))
    }

    /// The bytes `addr .. addr + len` if they all lie in one window.
    #[must_use]
    pub fn read(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let (i, start, stop) = self.find(addr, len)?;
        self.windows.get(i)?.bytes.get(start..stop)
    }

    /// The bytes `addr .. addr + len`, writable, if they all lie in one window.
    pub(crate) fn read_mut(&mut self, addr: u64, len: u64) -> Option<&mut [u8]> {
        let (i, start, stop) = self.find(addr, len)?;
        self.windows.get_mut(i)?.bytes.get_mut(start..stop)
    }

    /// A copy of the command stream `addr .. addr + len`, if it lies in one window (the
    /// executor reads it while DMA commands write other windows).
    pub(crate) fn stream(&self, addr: u64, len: u64) -> Option<Vec<u8>> {
        self.read(addr, len).map(<[u8]>::to_vec)
    }

    /// Whether `addr .. addr + len` lies in one window.
    #[must_use]
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        self.find(addr, len).is_some()
    }

    /// Overwrite `addr .. addr + data.len()`, which must lie in one window.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Option<()> {
        let (i, start, stop) = self.find(addr, data.len() as u64)?;
        self.windows
            .get_mut(i)?
            .bytes
            .get_mut(start..stop)?
            .copy_from_slice(data);
        Some(())
    }

    /// Copy `len` bytes from `src` to `dst` (both must lie in a window each; they may
    /// overlap, as with `memmove`).
    pub fn copy(&mut self, src: u64, dst: u64, len: u64) -> Option<()> {
        let data = self.read(src, len)?.to_vec();
        self.write(dst, &data)
    }

    /// The windows as `(base, len)`, in address order.
    pub fn windows(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.windows.iter().map(|w| (w.base, w.bytes.len() as u64))
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.windows.clear();
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    #[test]
    fn windows_merge_and_new_bytes_win() {
        let mut m = Memory::new();
        assert!(m.store(0x100, &[1; 16]));
        assert!(m.store(0x120, &[2; 16]));
        assert_eq!(m.windows().count(), 2);
        // Touches the first, overlaps the second: one window 0x100..0x130.
        assert!(m.store(0x110, &[3; 0x18]));
        assert_eq!(m.windows().collect::<Vec<_>>(), vec![(0x100, 0x30)]);
        assert_eq!(m.read(0x100, 16), Some(&[1u8; 16][..]));
        assert_eq!(m.read(0x110, 0x18), Some(&[3u8; 0x18][..]));
        assert_eq!(m.read(0x128, 8), Some(&[2u8; 8][..]));
        // Inside the window: written in place, the window unchanged, its other bytes kept.
        assert!(m.store(0x104, &[4; 8]));
        assert_eq!(m.windows().collect::<Vec<_>>(), vec![(0x100, 0x30)]);
        assert_eq!(m.read(0x100, 4), Some(&[1u8; 4][..]));
        assert_eq!(m.read(0x104, 8), Some(&[4u8; 8][..]));
        assert_eq!(m.read(0x10c, 4), Some(&[1u8; 4][..]));
        assert_eq!(m.read(0x110, 0x18), Some(&[3u8; 0x18][..]));
    }

    #[test]
    fn reads_must_lie_in_one_window() {
        let mut m = Memory::new();
        m.store(0, &[0; 8]);
        m.store(16, &[0; 8]);
        assert!(m.contains(0, 8));
        assert!(!m.contains(4, 8));
        assert!(!m.contains(8, 1));
        assert!(m.read(u64::MAX, 2).is_none());
        assert!(m.write(20, &[1; 4]).is_some());
        assert!(m.write(22, &[1; 4]).is_none());
    }

    #[test]
    fn zero_pages_are_skipped_but_zeros_still_overwrite() {
        let mut m = Memory::new();
        let mut data = vec![0u8; 3 * CHUNK + 5];
        data[CHUNK + 7] = 9;
        assert!(m.store(0x1000, &data));
        assert_eq!(m.read(0x1000, data.len() as u64), Some(&data[..]));
        // Zeros stored over non-zero bytes replace them.
        assert!(m.store(0x1000 + CHUNK as u64, &[0u8; CHUNK]));
        assert_eq!(m.read(0x1000 + CHUNK as u64 + 7, 1), Some(&[0u8][..]));
        let mut d = [1u8; 10];
        copy_touching(&mut d, &[0u8; 10]);
        assert_eq!(d, [0u8; 10]);
    }

    #[test]
    fn copy_moves_bytes_between_windows() {
        let mut m = Memory::new();
        m.store(0x1000, &[7, 8, 9, 10]);
        m.store(0x2000, &[0; 4]);
        assert!(m.copy(0x1001, 0x2002, 2).is_some());
        assert_eq!(m.read(0x2000, 4), Some(&[0, 0, 8, 9][..]));
        assert!(m.copy(0x1000, 0x2003, 2).is_none());
    }
}
