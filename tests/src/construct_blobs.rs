//! Files for the test schemas that interp_differential and the `interp_constructs` fuzz target
//! compare and that have no builder elsewhere (`namedtab.yaml`, `dirnotes.yaml`,
//! `blobpack.yaml`, `npu1_v2.yaml`, `plainloc.yaml`), built byte by byte so that no generated code makes its
//! own input, each with its `reseal` (recompute the checksum, as far as the bytes allow).
//! Shared by tests/tests/interp_differential.rs and fuzz/seeds (by path).

fn le16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn le32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// `namedtab.yaml`: a label (u8-prefixed, in the names table) and items, each with a
/// NUL-terminated name in the names table and a note (big-endian u16-prefixed) after it.
#[must_use]
pub fn namedtab_file(label: &[u8], items: &[(&[u8], &[u8], u32)]) -> Vec<u8> {
    let items_end = 20 + 12 * items.len();
    let mut names = vec![u8::try_from(label.len()).unwrap_or(u8::MAX)];
    names.extend_from_slice(label);
    let mut name_at = Vec::new();
    for (name, _, _) in items {
        name_at.push(names.len());
        names.extend_from_slice(name);
        names.push(0);
    }
    let notes_start = items_end + names.len();
    let mut notes = Vec::new();
    let mut note_at = Vec::new();
    for (_, note, _) in items {
        note_at.push(notes_start + notes.len());
        notes.extend_from_slice(&u16::try_from(note.len()).unwrap_or(u16::MAX).to_be_bytes());
        notes.extend_from_slice(note);
    }
    let mut b = Vec::new();
    le32(&mut b, 0x4D41_4E54);
    le32(&mut b, u32_of(items.len()));
    le32(&mut b, u32_of(items_end));
    le32(&mut b, u32_of(names.len()));
    le16(&mut b, 0);
    le16(&mut b, 3);
    for (k, (_, _, value)) in items.iter().enumerate() {
        le32(&mut b, u32_of(name_at[k]));
        le32(&mut b, u32_of(note_at[k]));
        le32(&mut b, *value);
    }
    b.extend_from_slice(&names);
    b.extend_from_slice(&notes);
    b
}

/// `dirnotes.yaml`: sections (`(kind, entsize, payload)`), then the notes, the trailer and the
/// NUL-terminated title, sealed (the CRC-32 over everything after the 36-byte header).
#[must_use]
pub fn dirnotes_file(
    sections: &[(u16, u16, &[u8])],
    notes: &[u8],
    trailer: &[u8],
    title: &[u8],
) -> Vec<u8> {
    let dir = 36;
    let mut at = dir + 12 * sections.len();
    let mut recs = Vec::new();
    let mut payloads = Vec::new();
    for (kind, entsize, p) in sections {
        le16(&mut recs, *kind);
        le16(&mut recs, *entsize);
        le32(&mut recs, u32_of(at));
        le32(&mut recs, u32_of(p.len()));
        payloads.extend_from_slice(p);
        at += p.len();
    }
    let notes_at = at;
    let trailer_at = notes_at + notes.len();
    let title_at = trailer_at + trailer.len();
    let mut b = Vec::new();
    le32(&mut b, 0x544F_4E44);
    le16(&mut b, u16::try_from(sections.len()).unwrap_or(u16::MAX));
    le16(&mut b, 9);
    le32(&mut b, u32_of(dir));
    le32(&mut b, u32_of(notes_at));
    le32(&mut b, u32_of(notes.len()));
    le32(&mut b, u32_of(trailer_at));
    le32(&mut b, u32_of(trailer.len()));
    le32(&mut b, 0);
    le32(&mut b, u32_of(title_at));
    b.extend_from_slice(&recs);
    b.extend_from_slice(&payloads);
    b.extend_from_slice(notes);
    b.extend_from_slice(trailer);
    b.extend_from_slice(title);
    b.push(0);
    dirnotes_reseal(&mut b);
    b
}

/// Recompute `dirnotes.yaml`'s CRC-32 (bytes 28..32, over everything after byte 36).
pub fn dirnotes_reseal(b: &mut [u8]) {
    if b.len() >= 36 {
        let sum = npuschema_core::crc32(0, &b[36..]);
        b[28..32].copy_from_slice(&sum.to_le_bytes());
    }
}

/// A `blobpack.yaml` entry: kind, flags, blob, skew, weights.
type BlobEntry<'a> = (u16, u16, &'a [u8], i16, [u8; 6]);

/// A valid `blobpack.yaml` file: three entries (text, compressed image, inline empty).
#[must_use]
pub fn blobpack_file() -> Vec<u8> {
    let entries: [BlobEntry<'_>; 3] = [
        (1, 0, b"hello", 0, [1, 2, 3, 4, 5, 6]),
        (2, 1, b"\x89PNG", 5, [0; 6]),
        (3, 2, b"", 7, [9; 6]),
    ];
    let base = 44 + 24 * entries.len();
    let (mut recs, mut data) = (Vec::new(), Vec::new());
    for (kind, flags, blob, skew, w) in entries {
        let off = u32_of(base + data.len());
        le16(&mut recs, kind);
        le16(&mut recs, flags);
        le32(&mut recs, off);
        le32(&mut recs, u32_of(blob.len()));
        recs.extend_from_slice(&skew.to_le_bytes());
        recs.extend_from_slice(&w);
        le32(&mut recs, off | 0x8000_0000);
        data.extend_from_slice(blob);
    }
    let mut b = Vec::new();
    le32(&mut b, 0x4B50_4C42);
    le16(&mut b, 3);
    b.extend_from_slice(&[9, 0]);
    b.extend_from_slice(&((44 + recs.len() + data.len()) as u64).to_le_bytes());
    b.extend_from_slice(&[0; 4]);
    b.extend_from_slice(&2i32.to_le_bytes());
    b.extend_from_slice(b"pack\0\0\0\0");
    for x in [1u16, 2, 3, 4] {
        le16(&mut b, x);
    }
    b.extend_from_slice(&[1, 2, 3, 4]);
    b.extend_from_slice(&recs);
    b.extend_from_slice(&data);
    blobpack_reseal(&mut b);
    b
}

/// Recompute `blobpack.yaml`'s CRC-32 (bytes 16..20, over everything after byte 44).
pub fn blobpack_reseal(b: &mut [u8]) {
    if b.len() >= 44 {
        let crc = npuschema_core::crc32(0, &b[44..]);
        b[16..20].copy_from_slice(&crc.to_le_bytes());
    }
}

/// A `npu1_v2.yaml` file (NPU1 version 2: the 36-byte header with `model_id`): regions
/// (`(role, baked bytes or a runtime size)`), then the command stream and the baked bytes,
/// each at a multiple of 16, sealed.
#[must_use]
pub fn npu1_v2_file(
    regions: &[(u32, Result<&[u8], u32>)],
    stream: &[u8],
    model_id: u32,
) -> Vec<u8> {
    let align = |n: usize| n.div_ceil(16) * 16;
    let cmd_at = align(36 + 16 * regions.len());
    let mut at = align(cmd_at + stream.len());
    let mut descs = Vec::new();
    let mut data: Vec<(usize, &[u8])> = Vec::new();
    for (role, r) in regions {
        le32(&mut descs, *role);
        match r {
            Ok(bytes) => {
                le32(&mut descs, 1);
                le32(&mut descs, u32_of(bytes.len()));
                le32(&mut descs, u32_of(at));
                data.push((at, bytes));
                at = align(at + bytes.len());
            }
            Err(size) => {
                le32(&mut descs, 0);
                le32(&mut descs, *size);
                le32(&mut descs, 0);
            }
        }
    }
    let total = data
        .last()
        .map_or(cmd_at + stream.len(), |(a, d)| a + d.len());
    let mut b = Vec::new();
    for w in [
        0x3155_504E,
        2,
        u32_of(total),
        u32_of(regions.len()),
        u32_of(cmd_at),
        u32_of(stream.len()),
        128,
        0,
        model_id,
    ] {
        le32(&mut b, w);
    }
    b.extend_from_slice(&descs);
    b.resize(cmd_at, 0);
    b.extend_from_slice(stream);
    for (a, d) in data {
        b.resize(a, 0);
        b.extend_from_slice(d);
    }
    npu1_v2_reseal(&mut b);
    b
}

/// Recompute `npu1_v2.yaml`'s FNV-1a checksum (bytes 28..32, over everything after byte 36).
pub fn npu1_v2_reseal(b: &mut [u8]) {
    if b.len() >= 36 {
        let sum = npuschema_core::fnv1a32(npuschema_core::FNV1A32_OFFSET_BASIS, &b[36..]);
        b[28..32].copy_from_slice(&sum.to_le_bytes());
    }
}

/// `plainloc.yaml` as its plain writer lays it out (`writer.order: [items, info, body,
/// extra]`, 4-aligned): the 16-byte header, the items (id, value) at 16, `info` (kind 7,
/// the item count, `version`, `extra`'s and `body`'s places, `body`'s length), the body, and
/// `extra` (`base`, `added` from version 2, `old` before version 3, `tail`) in the layout of
/// its gate, `version & 0xFFFF`; the CRC-32 of everything after the header at 12.
#[must_use]
pub fn plainloc_file(
    (flags, level): (u16, u16),
    version: u32,
    items: &[(u32, i32)],
    body: &[u8],
    (base, added, old, tail): (u32, u32, u16, u8),
) -> Vec<u8> {
    let align = |n: usize| (n + 3) & !3;
    let info_at = align(16 + 8 * items.len());
    let body_at = info_at + 20;
    let extra_at = align(body_at + body.len());
    let mut b = Vec::new();
    le32(&mut b, 0x434F_4C50);
    le32(&mut b, u32_of(info_at));
    le16(&mut b, flags);
    le16(&mut b, level);
    le32(&mut b, 0);
    for &(id, value) in items {
        le32(&mut b, id);
        b.extend_from_slice(&value.to_le_bytes());
    }
    b.resize(info_at, 0);
    le16(&mut b, 7);
    le16(&mut b, u16::try_from(items.len()).unwrap_or(u16::MAX));
    for w in [
        version,
        u32_of(extra_at),
        u32_of(body_at),
        u32_of(body.len()),
    ] {
        le32(&mut b, w);
    }
    b.extend_from_slice(body);
    b.resize(extra_at, 0);
    le32(&mut b, base);
    let gate = version & 0xFFFF;
    if gate >= 2 {
        le32(&mut b, added);
    }
    if gate < 3 {
        le16(&mut b, old);
    }
    b.push(tail);
    plainloc_reseal(&mut b);
    b
}

/// Recompute `plainloc.yaml`'s CRC-32 (bytes 12..16, over everything after the header).
pub fn plainloc_reseal(b: &mut [u8]) {
    if b.len() >= 16 {
        let crc = npuschema_core::crc32(0, &b[16..]);
        b[12..16].copy_from_slice(&crc.to_le_bytes());
    }
}

/// `dirgate.yaml` as its directory writer lays it out (`writer.order: [sections, fixed,
/// names, payload]`, 4-aligned): the 28-byte header, the directory at 28 (kind, entsize,
/// offset, size, name offset), `fixed` (`base`, `added` from gate 1, `tail`) in the layout
/// of its gate `(version >> 16) - 1` (the gate-0 layout when the major version is 0, which
/// no validator accepts), the string table (each section's name and a NUL, in order) and
/// the payloads, each 4-aligned. A section is (kind, entsize, name, payload).
#[must_use]
pub fn dirgate_file(
    version: u32,
    sections: &[(u16, u16, &[u8], &[u8])],
    (base, added, tail): (u32, u16, u8),
) -> Vec<u8> {
    let align = |n: usize| (n + 3) & !3;
    let gate = (version >> 16).saturating_sub(1);
    let fixed_at = align(28 + 16 * sections.len());
    let fixed_len = if gate >= 1 { 7 } else { 5 };
    let names_at = align(fixed_at + fixed_len);
    let mut names = Vec::new();
    let mut name_offsets = Vec::new();
    for &(_, _, name, _) in sections {
        name_offsets.push(names.len());
        names.extend_from_slice(name);
        names.push(0);
    }
    let mut at = names_at + names.len();
    let mut places = Vec::new();
    for &(_, _, _, p) in sections {
        at = align(at);
        places.push(at);
        at += p.len();
    }
    let mut b = Vec::new();
    for w in [
        0x5441_4744,
        version,
        u32_of(sections.len()),
        28,
        u32_of(fixed_at),
        u32_of(names_at),
        u32_of(names.len()),
    ] {
        le32(&mut b, w);
    }
    for ((&(kind, entsize, _, p), &place), &name_at) in
        sections.iter().zip(&places).zip(&name_offsets)
    {
        le16(&mut b, kind);
        le16(&mut b, entsize);
        le32(&mut b, u32_of(place));
        le32(&mut b, u32_of(p.len()));
        le32(&mut b, u32_of(name_at));
    }
    b.resize(fixed_at, 0);
    le32(&mut b, base);
    if gate >= 1 {
        le16(&mut b, added);
    }
    b.push(tail);
    b.resize(names_at, 0);
    b.extend_from_slice(&names);
    for (&(_, _, _, p), &place) in sections.iter().zip(&places) {
        b.resize(place, 0);
        b.extend_from_slice(p);
    }
    b
}
