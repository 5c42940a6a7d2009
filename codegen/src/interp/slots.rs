//! A run's slot storage: a fixed number of `Option<T>` slots, sized once per file layout,
//! held in the state itself when there are at most `N` (every layout of the shipped
//! schemas), on the heap otherwise. Making one is writing `N` tags; no allocation, no
//! per-thread cache, nothing to give back.

use std::ops::{Deref, DerefMut};

#[derive(Clone, Debug)]
pub(super) struct Slots<T: Copy, const N: usize> {
    /// The number of slots; in `inline` when at most `N`, else in `heap`.
    len: usize,
    inline: [Option<T>; N],
    heap: Vec<Option<T>>,
}

impl<T: Copy, const N: usize> Slots<T, N> {
    /// `len` empty slots.
    #[inline]
    pub(super) fn new(len: usize) -> Self {
        Slots {
            len,
            inline: [None; N],
            heap: if len > N { vec![None; len] } else { Vec::new() },
        }
    }

    /// Made `len` empty slots again, in place: only those slots are written (held in the
    /// state, `len` tags).
    #[inline]
    pub(super) fn reset(&mut self, len: usize) {
        self.len = len;
        match self.inline.get_mut(..len) {
            Some(s) => s.fill(None),
            None => {
                self.heap.clear();
                self.heap.resize(len, None);
            }
        }
    }

    /// No slot at all.
    #[inline]
    pub(super) fn none() -> Self {
        Self::new(0)
    }

    /// The slots from `n` on dropped (no-op when there are `n` or fewer).
    #[cfg(debug_assertions)]
    pub(super) fn truncate(&mut self, n: usize) {
        if self.len > N {
            self.heap.truncate(n);
            if n <= N {
                for (d, s) in self.inline.iter_mut().zip(&self.heap) {
                    *d = *s;
                }
                self.heap = Vec::new();
            }
        }
        self.len = self.len.min(n);
    }
}

impl<T: Copy, const N: usize> Deref for Slots<T, N> {
    type Target = [Option<T>];

    #[inline(always)]
    fn deref(&self) -> &[Option<T>] {
        match self.inline.get(..self.len) {
            Some(s) => s,
            None => &self.heap,
        }
    }
}

impl<T: Copy, const N: usize> DerefMut for Slots<T, N> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Option<T>] {
        if self.len <= N {
            self.inline.get_mut(..self.len).unwrap_or_default()
        } else {
            &mut self.heap
        }
    }
}

impl<T: Copy + PartialEq, const N: usize> PartialEq for Slots<T, N> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::Slots;

    #[test]
    fn inline_and_heap_slots_behave_alike() {
        for n in [0usize, 1, 3, 4, 5, 9] {
            let mut s: Slots<u64, 4> = Slots::new(n);
            assert_eq!(s.len(), n);
            assert!(s.iter().all(Option::is_none));
            for (i, x) in s.iter_mut().enumerate() {
                *x = Some(i as u64);
            }
            let t = s.clone();
            assert_eq!(s, t);
            assert_eq!(s.get(n), None);
            if n > 0 {
                assert_eq!(s[n - 1], Some(n as u64 - 1));
            }
            let mut r = s.clone();
            r.reset(n + 1);
            assert_eq!(r.len(), n + 1);
            assert!(r.iter().all(Option::is_none));
            r.reset(1);
            assert_eq!(&*r, &[None]);
            #[cfg(debug_assertions)]
            {
                s.truncate(2);
                assert_eq!(s.len(), n.min(2));
                assert!(s.iter().enumerate().all(|(i, x)| *x == Some(i as u64)));
            }
        }
    }
}
