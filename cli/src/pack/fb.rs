//! A small, safe reader of the FlatBuffers binary format: exactly what `pack` needs to read
//! a TFLite model (tables, scalars with defaults, offsets to tables, vectors of scalars and of
//! tables, strings). No `unsafe`: every position is computed with checked arithmetic and every
//! read goes through `get`, so a malformed buffer gives an [`Invalid`] error, never a panic or
//! an out-of-bounds read. Verification is lazy: a field is checked when it is read.
//!
//! Format (flatbuffers.dev, "Internals"): the buffer starts with a `u32` offset to the root
//! table; a table starts with an `i32` distance back to its vtable; the vtable holds its own
//! length (`u16`), the table's length (`u16`), then one `u16` offset per field slot (0 =
//! absent, so the field has its default). Offset fields (`u32`) are relative to where they
//! are stored; a vector is a `u32` element count followed by the elements; a string is a
//! vector of bytes followed by a NUL (required, as the FlatBuffers verifier does).
//!
//! The slots of the TFLite tables are in `tflite_subset.fbs` (field index `k` is slot `k`).

/// A malformed buffer: what was being read and the byte position where it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// What was read.
    pub what: &'static str,
    /// Byte position in the buffer.
    pub at: u64,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at {:#x} does not lie inside the buffer",
            self.what, self.at
        )
    }
}

fn chunk<const N: usize>(buf: &[u8], at: usize, what: &'static str) -> Result<[u8; N], Invalid> {
    buf.get(at..)
        .and_then(|s| s.first_chunk::<N>())
        .copied()
        .ok_or(Invalid {
            what,
            at: at as u64,
        })
}

fn u32_at(buf: &[u8], at: usize, what: &'static str) -> Result<u32, Invalid> {
    chunk::<4>(buf, at, what).map(u32::from_le_bytes)
}

fn add(a: usize, b: usize, what: &'static str) -> Result<usize, Invalid> {
    a.checked_add(b).ok_or(Invalid { what, at: a as u64 })
}

/// The position an offset field at `at` points to.
fn follow(buf: &[u8], at: usize, what: &'static str) -> Result<usize, Invalid> {
    let off = u32_at(buf, at, what)?;
    add(at, off as usize, what)
}

/// One table of a buffer.
#[derive(Clone, Copy, Debug)]
pub struct Table<'a> {
    buf: &'a [u8],
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

impl<'a> Table<'a> {
    /// The root table of `buf`.
    ///
    /// # Errors
    /// [`Invalid`] when the root offset or the root table's vtable is outside `buf`.
    pub fn root(buf: &'a [u8]) -> Result<Self, Invalid> {
        let pos = u32_at(buf, 0, "root offset")? as usize;
        Self::at(buf, pos)
    }

    fn at(buf: &'a [u8], pos: usize) -> Result<Self, Invalid> {
        let bad = |what| Invalid {
            what,
            at: pos as u64,
        };
        let back = i32::from_le_bytes(chunk::<4>(buf, pos, "table")?);
        let vtable = i64::try_from(pos)
            .ok()
            .and_then(|p| p.checked_sub(i64::from(back)))
            .and_then(|v| usize::try_from(v).ok())
            .ok_or(bad("vtable offset"))?;
        let vtable_len = usize::from(u16::from_le_bytes(chunk::<2>(buf, vtable, "vtable")?));
        let table_len = usize::from(u16::from_le_bytes(chunk::<2>(
            buf,
            add(vtable, 2, "vtable")?,
            "vtable",
        )?));
        let fits =
            |start: usize, len: usize| start.checked_add(len).is_some_and(|e| e <= buf.len());
        if vtable_len < 4 || !vtable_len.is_multiple_of(2) || !fits(vtable, vtable_len) {
            return Err(bad("vtable"));
        }
        if table_len < 4 || !fits(pos, table_len) {
            return Err(bad("table"));
        }
        Ok(Self {
            buf,
            pos,
            vtable,
            vtable_len,
        })
    }

    /// Where field `slot` is stored, `None` when the table does not have it.
    fn field(&self, slot: usize, what: &'static str) -> Result<Option<usize>, Invalid> {
        let entry = slot.saturating_mul(2).saturating_add(4);
        if entry.saturating_add(2) > self.vtable_len {
            return Ok(None);
        }
        let off = u16::from_le_bytes(chunk::<2>(self.buf, add(self.vtable, entry, what)?, what)?);
        if off == 0 {
            return Ok(None);
        }
        add(self.pos, usize::from(off), what).map(Some)
    }

    fn scalar<const N: usize>(
        &self,
        slot: usize,
        what: &'static str,
    ) -> Result<Option<[u8; N]>, Invalid> {
        self.field(slot, what)?
            .map(|at| chunk::<N>(self.buf, at, what))
            .transpose()
    }

    /// An `i8` field, or `default`.
    ///
    /// # Errors
    /// [`Invalid`] when the field lies outside the buffer.
    pub fn i8(&self, slot: usize, default: i8, what: &'static str) -> Result<i8, Invalid> {
        Ok(self
            .scalar::<1>(slot, what)?
            .map_or(default, i8::from_le_bytes))
    }

    /// A `u32` field, or `default`.
    ///
    /// # Errors
    /// As [`Self::i8`].
    pub fn u32(&self, slot: usize, default: u32, what: &'static str) -> Result<u32, Invalid> {
        Ok(self
            .scalar::<4>(slot, what)?
            .map_or(default, u32::from_le_bytes))
    }

    /// An `i32` field, or `default`.
    ///
    /// # Errors
    /// As [`Self::i8`].
    pub fn i32(&self, slot: usize, default: i32, what: &'static str) -> Result<i32, Invalid> {
        Ok(self
            .scalar::<4>(slot, what)?
            .map_or(default, i32::from_le_bytes))
    }

    /// A `u64` field, or `default`.
    ///
    /// # Errors
    /// As [`Self::i8`].
    pub fn u64(&self, slot: usize, default: u64, what: &'static str) -> Result<u64, Invalid> {
        Ok(self
            .scalar::<8>(slot, what)?
            .map_or(default, u64::from_le_bytes))
    }

    /// A table field.
    ///
    /// # Errors
    /// [`Invalid`] when the offset or the table it points to is outside the buffer.
    pub fn table(&self, slot: usize, what: &'static str) -> Result<Option<Self>, Invalid> {
        self.field(slot, what)?
            .map(|at| Self::at(self.buf, follow(self.buf, at, what)?))
            .transpose()
    }

    /// A vector field.
    ///
    /// # Errors
    /// [`Invalid`] when the offset or the vector's length word is outside the buffer (the
    /// elements are checked when read).
    pub fn vector(&self, slot: usize, what: &'static str) -> Result<Option<Vector<'a>>, Invalid> {
        self.field(slot, what)?
            .map(|at| {
                let start = follow(self.buf, at, what)?;
                let len = u32_at(self.buf, start, what)? as usize;
                Ok(Vector {
                    buf: self.buf,
                    start: add(start, 4, what)?,
                    len,
                    what,
                })
            })
            .transpose()
    }

    /// A string field (UTF-8).
    ///
    /// # Errors
    /// [`Invalid`] when it lies outside the buffer or is not UTF-8.
    pub fn str(&self, slot: usize, what: &'static str) -> Result<Option<&'a str>, Invalid> {
        self.vector(slot, what)?
            .map(|v| {
                let bad = Invalid {
                    what,
                    at: v.start as u64,
                };
                // As the FlatBuffers verifier: the terminating NUL must be there too.
                let with_nul = Vector {
                    len: v.len.checked_add(1).ok_or(bad.clone())?,
                    ..v
                }
                .bytes()?;
                match with_nul.split_last() {
                    Some((0, text)) => std::str::from_utf8(text).map_err(|_| bad),
                    _ => Err(bad),
                }
            })
            .transpose()
    }
}

/// A vector field: `len` elements from `start`.
#[derive(Clone, Copy, Debug)]
pub struct Vector<'a> {
    buf: &'a [u8],
    start: usize,
    len: usize,
    what: &'static str,
}

impl<'a> Vector<'a> {
    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    fn span(&self, elem: usize) -> Result<&'a [u8], Invalid> {
        let bad = Invalid {
            what: self.what,
            at: self.start as u64,
        };
        let end = self
            .len
            .checked_mul(elem)
            .and_then(|n| self.start.checked_add(n))
            .ok_or(bad.clone())?;
        self.buf.get(self.start..end).ok_or(bad)
    }

    /// The elements of a `[ubyte]` vector (or a string's bytes).
    ///
    /// # Errors
    /// [`Invalid`] when they are not all inside the buffer.
    pub fn bytes(&self) -> Result<&'a [u8], Invalid> {
        self.span(1)
    }

    fn words<const N: usize, T>(&self, f: fn([u8; N]) -> T) -> Result<Vec<T>, Invalid> {
        Ok(self
            .span(N)?
            .as_chunks::<N>()
            .0
            .iter()
            .map(|c| f(*c))
            .collect())
    }

    /// The elements of an `[int]` vector.
    ///
    /// # Errors
    /// As [`Self::bytes`].
    pub fn i32s(&self) -> Result<Vec<i32>, Invalid> {
        self.words(i32::from_le_bytes)
    }

    /// The elements of a `[long]` vector.
    ///
    /// # Errors
    /// As [`Self::bytes`].
    pub fn i64s(&self) -> Result<Vec<i64>, Invalid> {
        self.words(i64::from_le_bytes)
    }

    /// The elements of a `[float]` vector.
    ///
    /// # Errors
    /// As [`Self::bytes`].
    pub fn f32s(&self) -> Result<Vec<f32>, Invalid> {
        self.words(f32::from_le_bytes)
    }

    /// Table `i` of a vector of tables, `None` past the end.
    ///
    /// # Errors
    /// [`Invalid`] when the element, its offset or the table is outside the buffer.
    pub fn table(&self, i: usize) -> Result<Option<Table<'a>>, Invalid> {
        if i >= self.len {
            return Ok(None);
        }
        let at = i
            .checked_mul(4)
            .and_then(|o| self.start.checked_add(o))
            .ok_or(Invalid {
                what: self.what,
                at: self.start as u64,
            })?;
        Table::at(self.buf, follow(self.buf, at, self.what)?).map(Some)
    }

    /// Every table of a vector of tables.
    ///
    /// # Errors
    /// As [`Self::table`], for the first bad one.
    pub fn tables(&self) -> Result<Vec<Table<'a>>, Invalid> {
        self.span(4)?;
        (0..self.len)
            .filter_map(|i| self.table(i).transpose())
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "test code")]
mod tests {
    use super::*;

    /// A hand-laid buffer: root table with an `i32` in slot 0 (= 7), slot 1 absent, a string
    /// "ab" in slot 2 and a vector of one table (with slot 0 = 0x0102_0304) in slot 3.
    fn sample() -> Vec<u8> {
        let mut b = vec![0u8; 64];
        let w32 =
            |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        let w16 =
            |b: &mut Vec<u8>, at: usize, v: u16| b[at..at + 2].copy_from_slice(&v.to_le_bytes());
        w32(&mut b, 0, 16); // root table at 16
        // vtable at 4: len 12, table len 16, slots 0 -> +4, 1 -> 0, 2 -> +8, 3 -> +12
        for (i, v) in [12u16, 16, 4, 0, 8, 12].iter().enumerate() {
            w16(&mut b, 4 + 2 * i, *v);
        }
        w32(&mut b, 16, 12); // back to the vtable at 4
        w32(&mut b, 20, 7);
        w32(&mut b, 24, 32 - 24); // string at 32
        w32(&mut b, 28, 40 - 28); // vector at 40
        w32(&mut b, 32, 2);
        b[36..38].copy_from_slice(b"ab"); // and the NUL at 38
        w32(&mut b, 40, 1);
        w32(&mut b, 44, 48 - 44); // element 0: table at 48
        // inner table at 48, vtable at 56: len 6, table len 8, slot 0 -> +4
        w32(&mut b, 48, (48i32 - 56) as u32);
        w32(&mut b, 52, 0x0102_0304);
        for (i, v) in [6u16, 8, 4].iter().enumerate() {
            w16(&mut b, 56 + 2 * i, *v);
        }
        b
    }

    #[test]
    fn reads_scalars_defaults_strings_and_tables() {
        let b = sample();
        let t = Table::root(&b).unwrap();
        assert_eq!(t.i32(0, -1, "a").unwrap(), 7);
        assert_eq!(t.u32(1, 9, "b").unwrap(), 9, "absent: the default");
        assert_eq!(
            t.u32(40, 5, "c").unwrap(),
            5,
            "past the vtable: the default"
        );
        assert_eq!(t.str(2, "s").unwrap(), Some("ab"));
        let v = t.vector(3, "v").unwrap().unwrap();
        assert_eq!(v.len(), 1);
        let inner = v.table(0).unwrap().unwrap();
        assert_eq!(inner.u32(0, 0, "x").unwrap(), 0x0102_0304);
        assert!(v.table(1).unwrap().is_none());
    }

    #[test]
    fn every_truncation_and_every_corrupted_byte_fails_closed() {
        let good = sample();
        let read_all = |b: &[u8]| -> Result<(), Invalid> {
            let t = Table::root(b)?;
            t.i32(0, 0, "a")?;
            t.str(2, "s")?;
            if let Some(v) = t.vector(3, "v")? {
                for inner in v.tables()? {
                    inner.u32(0, 0, "x")?;
                }
            }
            Ok(())
        };
        assert!(read_all(&good).is_ok());
        for n in 0..good.len() {
            assert_eq!(read_all(&good[..n]).is_err(), n < 62, "length {n}");
        }
        for at in 0..good.len() {
            for v in [0u8, 0x7f, 0x80, 0xff] {
                let mut b = good.clone();
                b[at] = v;
                let _ = read_all(&b); // never panics; a bad position is an error
            }
        }
        let mut b = good.clone();
        b[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        let t = Table::root(&b).unwrap();
        assert!(
            t.vector(3, "v").unwrap().unwrap().tables().is_err(),
            "huge count"
        );
    }
}
