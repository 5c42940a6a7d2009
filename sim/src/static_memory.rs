//! The simulated NPU's memory without an allocator: windows at NPU bus addresses, kept in
//! memory the caller gives ([`StaticMemory::give`]) or mapped in place from read-only
//! `'static` bytes ([`StaticMemory::map_static`]).
//!
//! This is the simulator's memory in a `no_std` build (the firmware image links the
//! simulated NPU). It is compiled, and unit-tested, in every build.
//!
//! * **Read-only windows** ([`StaticMemory::map_static`]) are the bytes themselves, not a
//!   copy: the blob in flash, holding the command stream and the baked regions, as the NPU
//!   reads them on a real board. A store into one succeeds only with the bytes it already
//!   holds (the driver's cache clean of the command stream); a write or a DMA copy into one
//!   fails, as a write to flash would.
//! * **Writable windows** are carved in order from the backing memory, one per first store
//!   at an address range no window covers (the driver's cache clean of each runtime
//!   region); a later store inside one overwrites it. A store that overlaps a window
//!   without lying inside it, or that no longer fits the backing memory or the window
//!   table, fails (returns `false`): the NPU then finds the range unmapped and the run
//!   stops with a bus fault. Nothing is ever merged or freed until [`StaticMemory::clear`].
//! * The command stream the executor runs must lie in a read-only window
//!   ([`StaticMemory::stream`]): the executor reads it while DMA writes other windows.

/// Most windows a [`StaticMemory`] holds (the command stream, up to eight regions, and
/// room for a harness's own).
pub const MAX_WINDOWS: usize = 16;

/// A command stream in a read-only window: the bytes themselves, which stay valid while
/// the executor writes other windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream(&'static [u8]);

impl core::ops::Deref for Stream {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Read-only, in place.
    Fixed(&'static [u8]),
    /// `start .. start + len` of the backing memory.
    Backing { start: usize, len: usize },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Window {
    base: u64,
    place: Place,
}

impl Window {
    fn len(&self) -> u64 {
        match self.place {
            Place::Fixed(b) => b.len() as u64,
            Place::Backing { len, .. } => len as u64,
        }
    }

    fn end(&self) -> u64 {
        self.base.saturating_add(self.len())
    }

    /// `addr .. addr + len` as an offset range inside this window, if it lies inside.
    fn inner(&self, addr: u64, len: u64) -> Option<(usize, usize)> {
        let end = addr.checked_add(len)?;
        if addr < self.base || end > self.end() {
            return None;
        }
        let start = usize::try_from(addr.checked_sub(self.base)?).ok()?;
        let stop = usize::try_from(end.checked_sub(self.base)?).ok()?;
        Some((start, stop))
    }

    /// The window and `addr .. addr + len` share a byte.
    fn overlaps(&self, addr: u64, len: u64) -> bool {
        len > 0 && addr < self.end() && addr.saturating_add(len) > self.base
    }
}

/// Windows of simulated memory in caller-given storage (see the module documentation).
#[derive(Debug, Default)]
pub struct StaticMemory {
    backing: &'static mut [u8],
    used: usize,
    windows: [Option<Window>; MAX_WINDOWS],
}

impl StaticMemory {
    /// No memory at all (and no backing memory for writable windows).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Use `backing` for writable windows from now on (dropping every writable window made
    /// in the previous backing memory; read-only windows stay).
    pub fn give(&mut self, backing: &'static mut [u8]) {
        self.drop_writable();
        self.backing = backing;
    }

    fn drop_writable(&mut self) {
        for slot in &mut self.windows {
            if matches!(
                slot,
                Some(Window {
                    place: Place::Backing { .. },
                    ..
                })
            ) {
                *slot = None;
            }
        }
        self.used = 0;
    }

    /// Take the backing memory back (dropping every writable window; read-only windows
    /// stay), for the next simulated NPU.
    pub fn take_backing(&mut self) -> &'static mut [u8] {
        self.drop_writable();
        core::mem::take(&mut self.backing)
    }

    /// Bytes of backing memory not yet used by a writable window.
    #[must_use]
    pub fn backing_free(&self) -> usize {
        self.backing.len().saturating_sub(self.used)
    }

    fn find(&self, addr: u64, len: u64) -> Option<(Window, usize, usize)> {
        self.windows
            .iter()
            .flatten()
            .find_map(|w| w.inner(addr, len).map(|(s, e)| (*w, s, e)))
    }

    fn add(&mut self, window: Window) -> bool {
        let len = window.len();
        if self
            .windows
            .iter()
            .flatten()
            .any(|w| w.overlaps(window.base, len))
        {
            return false;
        }
        match self.windows.iter_mut().find(|w| w.is_none()) {
            Some(slot) => {
                *slot = Some(window);
                true
            }
            None => false,
        }
    }

    /// Make the read-only `bytes` visible at bus address `base`, in place. Returns `false`
    /// (and changes nothing) if the range overlaps a window, passes the end of the address
    /// space, or the window table is full.
    pub fn map_static(&mut self, base: u64, bytes: &'static [u8]) -> bool {
        if base.checked_add(bytes.len() as u64).is_none() {
            return false;
        }
        bytes.is_empty()
            || self.add(Window {
                base,
                place: Place::Fixed(bytes),
            })
    }

    /// Make `base .. base + data.len()` hold `data`: inside a writable window, overwrite
    /// it; inside a read-only one, succeed only if it already holds `data`; overlapping no
    /// window, carve a new writable window from the backing memory. Returns `false` (and
    /// changes nothing) otherwise.
    pub fn store(&mut self, base: u64, data: &[u8]) -> bool {
        let len = data.len() as u64;
        if base.checked_add(len).is_none() {
            return false;
        }
        if data.is_empty() {
            return true;
        }
        if let Some((w, s, e)) = self.find(base, len) {
            return match w.place {
                Place::Fixed(bytes) => bytes.get(s..e) == Some(data),
                Place::Backing { start, .. } => self.backing_range(start, s, e).is_some_and(|r| {
                    self.backing
                        .get_mut(r)
                        .map(|d| d.copy_from_slice(data))
                        .is_some()
                }),
            };
        }
        let start = self.used;
        let Some(stop) = start.checked_add(data.len()) else {
            return false;
        };
        let Some(dst) = self.backing.get_mut(start..stop) else {
            return false;
        };
        dst.copy_from_slice(data);
        let added = self.add(Window {
            base,
            place: Place::Backing {
                start,
                len: data.len(),
            },
        });
        if added {
            self.used = stop;
        }
        added
    }

    /// `s .. e` of a writable window starting at `start` of the backing memory.
    fn backing_range(&self, start: usize, s: usize, e: usize) -> Option<core::ops::Range<usize>> {
        Some(start.checked_add(s)?..start.checked_add(e)?)
    }

    /// The bytes `addr .. addr + len` if they all lie in one window.
    #[must_use]
    pub fn read(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let (w, s, e) = self.find(addr, len)?;
        match w.place {
            Place::Fixed(bytes) => bytes.get(s..e),
            Place::Backing { start, .. } => self.backing.get(self.backing_range(start, s, e)?),
        }
    }

    /// The bytes `addr .. addr + len`, writable, if they all lie in one writable window
    /// (the `no_std` build's OFM writes).
    #[cfg_attr(feature = "std", allow(dead_code))]
    pub(crate) fn read_mut(&mut self, addr: u64, len: u64) -> Option<&mut [u8]> {
        let (w, s, e) = self.find(addr, len)?;
        let Place::Backing { start, .. } = w.place else {
            return None;
        };
        let r = self.backing_range(start, s, e)?;
        self.backing.get_mut(r)
    }

    /// The command stream `addr .. addr + len`, if it lies in one read-only window.
    #[must_use]
    pub fn stream(&self, addr: u64, len: u64) -> Option<Stream> {
        match self.find(addr, len)? {
            (
                Window {
                    place: Place::Fixed(bytes),
                    ..
                },
                s,
                e,
            ) => bytes.get(s..e).map(Stream),
            _ => None,
        }
    }

    /// Whether `addr .. addr + len` lies in one window.
    #[must_use]
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        self.find(addr, len).is_some()
    }

    /// Overwrite `addr .. addr + data.len()`, which must lie in one writable window.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Option<()> {
        let (w, s, e) = self.find(addr, data.len() as u64)?;
        let Place::Backing { start, .. } = w.place else {
            return None;
        };
        let r = self.backing_range(start, s, e)?;
        self.backing.get_mut(r)?.copy_from_slice(data);
        Some(())
    }

    /// Copy `len` bytes from `src` to `dst` (each must lie in one window, `dst` a writable
    /// one; they may overlap, as with `memmove`).
    pub fn copy(&mut self, src: u64, dst: u64, len: u64) -> Option<()> {
        let (dw, ds, de) = self.find(dst, len)?;
        let Place::Backing { start: dstart, .. } = dw.place else {
            return None;
        };
        let to = self.backing_range(dstart, ds, de)?;
        let (sw, ss, se) = self.find(src, len)?;
        match sw.place {
            Place::Fixed(bytes) => {
                self.backing
                    .get_mut(to)?
                    .copy_from_slice(bytes.get(ss..se)?);
            }
            Place::Backing { start, .. } => {
                let from = self.backing_range(start, ss, se)?;
                // Both ranges were checked to lie in the backing memory by `find`'s windows.
                self.backing.get(from.clone())?;
                self.backing.get(to.clone())?;
                self.backing.copy_within(from, to.start);
            }
        }
        Some(())
    }

    /// The windows as `(base, len)`, in the order they were made.
    pub fn windows(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.windows.iter().flatten().map(|w| (w.base, w.len()))
    }

    /// Forget every window (the backing memory stays given, all of it free again).
    pub fn clear(&mut self) {
        self.windows = [None; MAX_WINDOWS];
        self.used = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static FLASH: [u8; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

    fn backing(n: usize) -> &'static mut [u8] {
        Box::leak(vec![0u8; n].into_boxed_slice())
    }

    #[test]
    fn read_only_windows_are_read_in_place_and_refuse_other_bytes() {
        let mut m = StaticMemory::new();
        assert!(m.map_static(0x1000, &FLASH));
        assert_eq!(m.stream(0x1002, 4).as_deref(), Some(&FLASH[2..6]));
        // The clean of bytes it already holds succeeds; other bytes do not.
        assert!(m.store(0x1000, &FLASH[..4]));
        assert!(!m.store(0x1000, &[9, 9]));
        assert!(m.write(0x1000, &[1]).is_none());
        // Overlapping a window is refused.
        assert!(!m.map_static(0x1004, &FLASH));
        // No backing memory: a store outside every window fails.
        assert!(!m.store(0x2000, &[1]));
    }

    #[test]
    fn writable_windows_are_carved_from_the_backing_and_overwritten_in_place() {
        let mut m = StaticMemory::new();
        m.give(backing(32));
        assert!(m.store(0x2000, &[7; 16]));
        assert!(m.store(0x3000, &[8; 8]));
        assert_eq!(m.backing_free(), 8);
        assert!(m.store(0x2004, &[1, 2]));
        assert_eq!(m.read(0x2003, 4), Some(&[7, 1, 2, 7][..]));
        // Writable memory is not a command stream.
        assert!(m.stream(0x2000, 4).is_none());
        // Partly overlapping, too big, or across two windows: refused, nothing changed.
        assert!(!m.store(0x1FFC, &[0; 8]));
        assert!(!m.store(0x4000, &[0; 9]));
        assert!(!m.contains(0x2000, 17));
        assert_eq!(m.windows().count(), 2);
        assert!(m.store(0x4000, &[0; 8]));
        assert_eq!(m.backing_free(), 0);
        m.clear();
        assert_eq!(m.windows().count(), 0);
        assert_eq!(m.backing_free(), 32);
        // Handed back whole, writable windows gone, read-only ones kept.
        assert!(m.map_static(0x1000, &FLASH));
        assert!(m.store(0x2000, &[7; 4]));
        assert_eq!(m.take_backing().len(), 32);
        assert_eq!(m.windows().collect::<Vec<_>>(), vec![(0x1000, 8)]);
        assert_eq!(m.backing_free(), 0);
    }

    #[test]
    fn copies_go_from_any_window_into_writable_ones() {
        let mut m = StaticMemory::new();
        m.give(backing(16));
        assert!(m.map_static(0x1000, &FLASH));
        assert!(m.store(0x2000, &[0; 8]));
        assert!(m.store(0x3000, &[0; 8]));
        assert!(m.copy(0x1001, 0x2002, 3).is_some());
        assert_eq!(m.read(0x2000, 8), Some(&[0, 0, 2, 3, 4, 0, 0, 0][..]));
        assert!(m.copy(0x2002, 0x3005, 3).is_some());
        assert_eq!(m.read(0x3000, 8), Some(&[0, 0, 0, 0, 0, 2, 3, 4][..]));
        // Overlapping, as memmove.
        assert!(m.copy(0x3005, 0x3004, 3).is_some());
        assert_eq!(m.read(0x3004, 4), Some(&[2, 3, 4, 4][..]));
        // Into flash, or out of a window: refused.
        assert!(m.copy(0x2000, 0x1000, 2).is_none());
        assert!(m.copy(0x2006, 0x3000, 4).is_none());
    }

    #[test]
    fn full_window_table_and_address_overflow_are_refused() {
        let mut m = StaticMemory::new();
        m.give(backing(MAX_WINDOWS + 1));
        for i in 0..MAX_WINDOWS as u64 {
            assert!(m.store(0x100 * i, &[1]));
        }
        assert!(!m.store(0x10_0000, &[1]));
        assert_eq!(m.backing_free(), 1);
        assert!(!m.store(u64::MAX, &[1, 2]));
        assert!(!m.map_static(u64::MAX - 2, &FLASH));
    }
}
