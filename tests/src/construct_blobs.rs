//! Files for the test schemas that interp_differential and the `interp_constructs` fuzz target
//! compare and that have no builder elsewhere (`namedtab.yaml`, `dirnotes.yaml`,
//! `blobpack.yaml`, `npu1_v2.yaml`, `twodirs.yaml`, `nestflag.yaml`, `whenw.yaml`, `plainloc.yaml`, `dirgate.yaml`, `strided.yaml`, `dirlabel.yaml`, `loctable.yaml`, `dirrel.yaml`, `dirwhen.yaml`, `linforms.yaml`, `sigtrail.yaml`, `tailtab.yaml`, `tailfix.yaml`, `gatedw.yaml`, `dirtail.yaml`, `dirfoot.yaml`, `dirindex.yaml`, `diropt.yaml`, `dirlin.yaml`, `loclin.yaml`, `dirgatew.yaml`), built byte by byte so that no generated code makes its
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

/// A `npu1_v2.yaml` file (the one-word bump, version 3: the 36-byte header with `model_id`): regions
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
        3, // tests/schemas/npu1_v2.yaml's VERSION (the one-word bump)
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

/// `twodirs.yaml`: a code directory (`(kind, entsize, align, payload)`) and an asset directory
/// (`(kind, align, entsize, payload)`), laid out as its writer does (both tables, then the code
/// payloads, then the asset payloads, each at a multiple of 4 and of its `align`), sealed.
#[must_use]
pub fn twodirs_file(code: &[(u16, u16, u32, &[u8])], assets: &[(u32, u32, u32, &[u8])]) -> Vec<u8> {
    let place = |cursor: usize, align: u32| {
        let at = cursor.next_multiple_of(4);
        match align {
            0 => at,
            a => at.next_multiple_of(a as usize),
        }
    };
    let code_at = 24;
    let asset_at = code_at + 16 * code.len();
    let mut cursor = asset_at + 20 * assets.len();
    let mut code_places = Vec::new();
    for (_, _, align, p) in code {
        let at = place(cursor, *align);
        code_places.push(at);
        cursor = at + p.len();
    }
    let mut asset_places = Vec::new();
    for (_, align, _, p) in assets {
        let at = place(cursor, *align);
        asset_places.push(at);
        cursor = at + p.len();
    }
    let mut b = Vec::new();
    le32(&mut b, 0x4444_5754);
    le16(&mut b, u16::try_from(code.len()).unwrap_or(u16::MAX));
    le16(&mut b, u16::try_from(assets.len()).unwrap_or(u16::MAX));
    le32(&mut b, u32_of(code_at));
    le32(&mut b, u32_of(asset_at));
    le32(&mut b, 0);
    le32(&mut b, 0);
    for ((kind, entsize, align, p), at) in code.iter().zip(&code_places) {
        le16(&mut b, *kind);
        le16(&mut b, *entsize);
        le32(&mut b, u32_of(*at));
        le32(&mut b, u32_of(p.len()));
        le32(&mut b, *align);
    }
    for ((kind, align, entsize, p), at) in assets.iter().zip(&asset_places) {
        le32(&mut b, *kind);
        le32(&mut b, *align);
        le32(&mut b, u32_of(*at));
        le32(&mut b, u32_of(p.len()));
        le32(&mut b, *entsize);
    }
    b.resize(cursor, 0);
    for ((_, _, _, p), at) in code.iter().zip(&code_places) {
        b[*at..*at + p.len()].copy_from_slice(p);
    }
    for ((_, _, _, p), at) in assets.iter().zip(&asset_places) {
        b[*at..*at + p.len()].copy_from_slice(p);
    }
    twodirs_reseal(&mut b);
    b
}

/// Recompute `twodirs.yaml`'s checksums as far as the bytes allow: each `sums` record's CRC-32
/// of the one code section of the type it names, the CRC-32 over the code payloads (the sums'
/// values as zero) at 16, the CRC-32 over the asset payloads at 20. A table or payload not
/// inside `b` is skipped.
pub fn twodirs_reseal(b: &mut [u8]) {
    let word = |b: &[u8], at: usize| {
        b.get(at..at + 4)
            .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    let half = |b: &[u8], at: usize| {
        b.get(at..at + 2)
            .map_or(0, |w| usize::from(u16::from_le_bytes([w[0], w[1]])))
    };
    if b.len() < 24 {
        return;
    }
    // (type, offset, size) of each directory's sections whose records are inside `b`.
    let mut code = Vec::new();
    let (n, at) = (half(b, 4), word(b, 8));
    for i in 0..n {
        let Some(r) = i.checked_mul(16).and_then(|x| x.checked_add(at)) else {
            break;
        };
        if r.saturating_add(16) > b.len() {
            break;
        }
        code.push((half(b, r), word(b, r + 4), word(b, r + 8)));
    }
    let mut assets = Vec::new();
    let (n, at) = (half(b, 6), word(b, 12));
    for i in 0..n {
        let Some(r) = i.checked_mul(20).and_then(|x| x.checked_add(at)) else {
            break;
        };
        if r.saturating_add(20) > b.len() {
            break;
        }
        assets.push((word(b, r), word(b, r + 8), word(b, r + 12)));
    }
    let inside =
        |b: &[u8], off: usize, size: usize| off.checked_add(size).is_some_and(|e| e <= b.len());
    // The sums records.
    for &(kind, off, size) in &code {
        if kind != 3 || !inside(b, off, size) {
            continue;
        }
        for j in 0..size / 8 {
            let rec = off + 8 * j;
            let target = half(b, rec);
            let mut hits = code.iter().filter(|x| x.0 == target);
            if let (Some(&(_, po, ps)), None) = (hits.next(), hits.next())
                && inside(b, po, ps)
            {
                let crc = npuschema_core::crc32(0, &b[po..po + ps]);
                b[rec + 4..rec + 8].copy_from_slice(&crc.to_le_bytes());
            }
        }
    }
    let mut crc = 0;
    for &(kind, off, size) in &code {
        if !inside(b, off, size) {
            continue;
        }
        let mut p = b[off..off + size].to_vec();
        if kind == 3 {
            for rec in p.chunks_exact_mut(8) {
                rec[4..8].fill(0);
            }
        }
        crc = npuschema_core::crc32(crc, &p);
    }
    b[16..20].copy_from_slice(&crc.to_le_bytes());
    let mut crc = 0;
    for &(_, off, size) in &assets {
        if inside(b, off, size) {
            crc = npuschema_core::crc32(crc, &b[off..off + size]);
        }
    }
    b[20..24].copy_from_slice(&crc.to_le_bytes());
}

/// `nestflag.yaml`: entries (`(kind, marks, level, value, data)`) after the 12-byte header,
/// each entry's data after the table (4-aligned) when `marks` has `HAS_DATA` (bit 0), its
/// span zero otherwise.
#[must_use]
pub fn nestflag_file(entries: &[(u16, u8, u8, u32, &[u8])]) -> Vec<u8> {
    let mut b = Vec::new();
    le32(&mut b, 0x4741_4C46);
    le32(&mut b, u32_of(entries.len()));
    le32(&mut b, 12);
    let mut cursor = 12 + 16 * entries.len();
    let mut data = Vec::new();
    for (kind, marks, level, value, bytes) in entries {
        le16(&mut b, *kind);
        b.push(*marks);
        b.push(*level);
        if marks & 1 == 1 {
            let at = cursor.next_multiple_of(4);
            le32(&mut b, u32_of(at));
            le32(&mut b, u32_of(bytes.len()));
            data.push((at, *bytes));
            cursor = at + bytes.len();
        } else {
            le32(&mut b, 0);
            le32(&mut b, 0);
        }
        le32(&mut b, *value);
    }
    b.resize(cursor, 0);
    for (at, bytes) in data {
        b[at..at + bytes.len()].copy_from_slice(bytes);
    }
    b
}

/// `whenw.yaml`: the 36-byte header (`version`, `kind`, `flags` as given, HAS_NOTES and
/// HAS_MARKS set when `notes` and `marks` are there), the tags (`(id, value)`), the marks
/// (at 68, so after at most 4 tags), then `ext`, `extra` and `notes`, each 4-aligned, a part
/// left out taking no bytes and its fields zero.
#[must_use]
pub fn whenw_file(
    (version, kind, flags): (u16, u16, u16),
    tags: &[(u32, u32)],
    marks: Option<&[u32]>,
    ext: Option<&[u8]>,
    extra: Option<&[u8]>,
    notes: Option<&[u8]>,
) -> Vec<u8> {
    let mut body = Vec::new();
    for (id, value) in tags {
        le32(&mut body, *id);
        le32(&mut body, *value);
    }
    if let Some(marks) = marks {
        body.resize(body.len().max(68 - 36), 0);
        for m in marks {
            le32(&mut body, *m);
        }
    }
    let mut place = |part: Option<&[u8]>| match part {
        Some(d) => {
            while body.len() % 4 != 0 {
                body.push(0);
            }
            let at = 36 + body.len();
            body.extend_from_slice(d);
            (u32_of(at), u32_of(d.len()))
        }
        None => (0, 0),
    };
    let ext = place(ext);
    let extra = place(extra);
    let notes_at = place(notes);
    let flags = if notes.is_some() {
        flags | 1
    } else {
        flags & !1
    };
    let flags = if marks.is_some() {
        flags | 4
    } else {
        flags & !4
    };
    let mut b = Vec::new();
    le32(&mut b, 0x574E_4857);
    le16(&mut b, version);
    le16(&mut b, kind);
    le16(&mut b, flags);
    le16(
        &mut b,
        u16::try_from(marks.map_or(0, <[u32]>::len)).unwrap_or(u16::MAX),
    );
    le32(&mut b, u32_of(tags.len()));
    for w in [ext.0, ext.1, extra.0, extra.1] {
        le32(&mut b, w);
    }
    le16(&mut b, u16::try_from(notes_at.0).unwrap_or(u16::MAX));
    le16(&mut b, u16::try_from(notes_at.1).unwrap_or(u16::MAX));
    b.extend_from_slice(&body);
    b
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

/// `strided.yaml` as its plain writer lays it out (`writer.order: [items, slots]`,
/// 4-aligned): the 20-byte header (magic, item count, item stride 8, where the items and
/// the slots are, the file's length), the items (id, weight) at 20, then the three slots
/// (base, limit).
#[must_use]
pub fn strided_file(items: &[(u32, u32)], slots: [(u32, u32); 3]) -> Vec<u8> {
    let slots_at = 20 + 8 * items.len();
    let total = slots_at + 24;
    let mut b = Vec::new();
    le32(&mut b, 0x4449_5254);
    le16(&mut b, u16::try_from(items.len()).unwrap_or(u16::MAX));
    le16(&mut b, 8);
    for w in [20, u32_of(slots_at), u32_of(total)] {
        le32(&mut b, w);
    }
    for &(id, weight) in items {
        le32(&mut b, id);
        le32(&mut b, weight);
    }
    for (base, limit) in slots {
        le32(&mut b, base);
        le32(&mut b, limit);
    }
    b
}

/// `dirlabel.yaml` as its directory writer lays it out (`writer.order: [sections, payload,
/// label]`, 4-aligned): the 12-byte header (magic, count, 12), the directory at 12 (kind,
/// entsize 0, offset, size, label offset), each payload 4-aligned, then every label with
/// its NUL, back to back from a 4-aligned place. A section is (kind, payload, label).
#[must_use]
pub fn dirlabel_file(sections: &[(u16, &[u8], &str)]) -> Vec<u8> {
    let align = |n: usize| (n + 3) & !3;
    let mut at = 12 + 16 * sections.len();
    let mut places = Vec::new();
    for &(_, p, _) in sections {
        at = align(at);
        places.push(at);
        at += p.len();
    }
    let labels_at = align(at);
    let mut label_at = Vec::new();
    let mut l = labels_at;
    for &(_, _, label) in sections {
        label_at.push(l);
        l += label.len() + 1;
    }
    let mut b = Vec::new();
    for w in [0x4C42_4C44, u32_of(sections.len()), 12] {
        le32(&mut b, w);
    }
    for ((&(kind, p, _), &place), &la) in sections.iter().zip(&places).zip(&label_at) {
        le16(&mut b, kind);
        le16(&mut b, 0);
        le32(&mut b, u32_of(place));
        le32(&mut b, u32_of(p.len()));
        le32(&mut b, u32_of(la));
    }
    for (&(_, p, _), &place) in sections.iter().zip(&places) {
        b.resize(place, 0);
        b.extend_from_slice(p);
    }
    b.resize(labels_at, 0);
    for &(_, _, label) in sections {
        b.extend_from_slice(label.as_bytes());
        b.push(0);
    }
    b
}

/// `loctable.yaml` as its plain writer lays it out (`writer.order: [notes, index,
/// entries, title, footer]`, 8-aligned): the 20-byte header (magic, where `index` is, where the
/// notes are, their count, `level`, the entries' CRC-32), the notes at 24, `index` (where the
/// entries are, their
/// count, their size 8, `owner`, where the title is), the entries (id, value), the title
/// and its NUL, then `footer` (`!END`, the file's length) right after it, ending the file.
#[must_use]
pub fn loctable_file(
    level: u16,
    owner: u32,
    entries: &[(u32, i32)],
    notes: &[u32],
    title: &str,
) -> Vec<u8> {
    let align = |n: usize| (n + 7) & !7;
    let index_at = align(24 + 4 * notes.len());
    let entries_at = align(index_at + 16);
    let title_at = align(entries_at + 8 * entries.len());
    let mut b = Vec::new();
    for w in [0x4C42_544C, u32_of(index_at), 24] {
        le32(&mut b, w);
    }
    le16(&mut b, u16::try_from(notes.len()).unwrap_or(u16::MAX));
    le16(&mut b, level);
    le32(&mut b, 0);
    b.resize(24, 0);
    for &w in notes {
        le32(&mut b, w);
    }
    b.resize(index_at, 0);
    le32(&mut b, u32_of(entries_at));
    le16(&mut b, u16::try_from(entries.len()).unwrap_or(u16::MAX));
    le16(&mut b, 8);
    le32(&mut b, owner);
    le32(&mut b, u32_of(title_at));
    b.resize(entries_at, 0);
    for &(id, value) in entries {
        le32(&mut b, id);
        b.extend_from_slice(&value.to_le_bytes());
    }
    b.resize(title_at, 0);
    b.extend_from_slice(title.as_bytes());
    b.push(0);
    let total = b.len() + 8;
    le32(&mut b, 0x444E_4521);
    le32(&mut b, u32_of(total));
    loctable_reseal(&mut b);
    b
}

/// Recompute `loctable.yaml`'s CRC-32 over the entries (bytes 16..20), its span read from
/// `index` as far as the bytes allow.
pub fn loctable_reseal(b: &mut [u8]) {
    let word = |b: &[u8], at: usize| {
        b.get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    let Some(index_at) = word(b, 4) else { return };
    let (Some(from), Some(count)) = (
        word(b, index_at),
        b.get(index_at + 4..index_at + 6)
            .map(|w| usize::from(u16::from_le_bytes([w[0], w[1]]))),
    ) else {
        return;
    };
    if let Some(d) = from.checked_add(count * 8).and_then(|to| b.get(from..to)) {
        let crc = npuschema_core::crc32(0, d);
        // (A file shorter than the header has nowhere to store it.)
        if let Some(slot) = b.get_mut(16..20) {
            slot.copy_from_slice(&crc.to_le_bytes());
        }
    }
}

/// A section of `dirrel.yaml`: its kind, flags (`HAS_RELOCS` is set or cleared by whether
/// it has relocations), entry size, payload, and its relocation bytes (`Ok`) or the length
/// recorded without them (`Err`).
pub type DirRelSection<'a> = (u16, u16, u32, &'a [u8], Result<&'a [u8], u32>);

/// `dirrel.yaml` as its directory writer lays it out (`writer.order: [info, sections,
/// payload, relocs, title]`, 4-aligned): the 20-byte header (magic, count, where the
/// directory is, the CRC-32 over the payloads, where `info` is), `info` (`build`, where the
/// title is) at 20, the directory at 28 (kind, flags, offset, size, relocations' offset and
/// size, entry size), each payload 4-aligned, the relocations of the sections that carry
/// them, each 4-aligned, then the title and its NUL.
#[must_use]
pub fn dirrel_file(build: u32, sections: &[DirRelSection<'_>], title: &str) -> Vec<u8> {
    let align = |n: usize| (n + 3) & !3;
    let mut at = 28 + 24 * sections.len();
    let mut places = Vec::new();
    for &(_, _, _, p, _) in sections {
        at = align(at);
        places.push(at);
        at += p.len();
    }
    let mut rel_places = Vec::new();
    for &(_, _, _, _, r) in sections {
        match r {
            Ok(bytes) => {
                at = align(at);
                rel_places.push(at);
                at += bytes.len();
            }
            Err(_) => rel_places.push(0),
        }
    }
    let title_at = align(at);
    let mut b = Vec::new();
    for w in [
        0x4C45_5244,
        u32_of(sections.len()),
        28,
        0,
        20,
        build,
        u32_of(title_at),
    ] {
        le32(&mut b, w);
    }
    for ((&(kind, flags, entsize, p, r), &place), &rel) in
        sections.iter().zip(&places).zip(&rel_places)
    {
        le16(&mut b, kind);
        le16(&mut b, (flags & !1) | u16::from(r.is_ok()));
        le32(&mut b, u32_of(place));
        le32(&mut b, u32_of(p.len()));
        le32(&mut b, u32_of(rel));
        le32(&mut b, r.map_or_else(|n| n, |x| u32_of(x.len())));
        le32(&mut b, entsize);
    }
    for (&(_, _, _, p, _), &place) in sections.iter().zip(&places) {
        b.resize(place, 0);
        b.extend_from_slice(p);
    }
    for (&(_, _, _, _, r), &rel) in sections.iter().zip(&rel_places) {
        if let Ok(bytes) = r {
            b.resize(rel, 0);
            b.extend_from_slice(bytes);
        }
    }
    b.resize(title_at, 0);
    b.extend_from_slice(title.as_bytes());
    b.push(0);
    dirrel_reseal(&mut b);
    b
}

/// Recompute `dirrel.yaml`'s CRC-32 over the payloads (bytes 12..16), over the sections
/// whose records and payloads lie inside `b`.
pub fn dirrel_reseal(b: &mut [u8]) {
    let word = |b: &[u8], at: usize| {
        b.get(at..at + 4)
            .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    if b.len() < 16 {
        return;
    }
    let (n, at) = (word(b, 4), word(b, 8));
    let mut crc = 0;
    for i in 0..n {
        let Some(r) = i.checked_mul(24).and_then(|x| x.checked_add(at)) else {
            break;
        };
        if r.saturating_add(24) > b.len() {
            break;
        }
        let (off, size) = (word(b, r + 4), word(b, r + 8));
        if let Some(p) = off.checked_add(size).and_then(|e| b.get(off..e)) {
            crc = npuschema_core::crc32(crc, p);
        }
    }
    b[12..16].copy_from_slice(&crc.to_le_bytes());
}

/// A `dirwhen.yaml` section: kind, entsize, its payload (none for a section without one).
pub type DirWhenSection<'a> = (u16, u16, Option<&'a [u8]>);
/// A `dirwhen.yaml` blob: id, flags (HAS_DATA set or cleared from whether there are bytes),
/// entsize, its bytes.
pub type DirWhenBlob<'a> = (u32, u16, u16, Option<&'a [u8]>);

/// `dirwhen.yaml` as its directory writer lays it out (`writer.order: [sections, blobs,
/// marks, tags, data, blob_bytes, ext, notes]`, 4-aligned): the 52-byte header (`version`,
/// `flags` with HAS_NOTES and HAS_TAGS set when `notes` and `tags` are there), the section
/// and blob records, the marks and tags when there, then the payloads that are there, `ext`
/// and `notes`; a part left out takes no bytes and its fields are zero; the CRC-32 of
/// everything after the header at 48.
#[must_use]
pub fn dirwhen_file(
    (version, flags): (u16, u16),
    sections: &[DirWhenSection<'_>],
    blobs: &[DirWhenBlob<'_>],
    marks: Option<&[u32]>,
    tags: Option<&[(u32, u32)]>,
    ext: Option<&[u8]>,
    notes: Option<&[u8]>,
) -> Vec<u8> {
    let align = |n: usize| n.div_ceil(4) * 4;
    let mut cursor = 52 + 12 * sections.len();
    let blobs_at = align(cursor);
    cursor = blobs_at + 16 * blobs.len();
    let mut table = |n: Option<usize>| match n {
        Some(n) => {
            let at = align(cursor);
            cursor = at + n;
            at
        }
        None => 0,
    };
    let marks_at = table(marks.map(|m| 4 * m.len()));
    let tags_at = table(tags.map(|t| 8 * t.len()));
    let mut place = |part: Option<&[u8]>| match part {
        Some(d) => {
            let at = align(cursor);
            cursor = at + d.len();
            (at, d.len())
        }
        None => (0, 0),
    };
    let data: Vec<(usize, usize)> = sections.iter().map(|s| place(s.2)).collect();
    let bytes: Vec<(usize, usize)> = blobs.iter().map(|s| place(s.3)).collect();
    let ext_at = place(ext);
    let notes_at = place(notes);
    let flags = if notes.is_some() {
        flags | 1
    } else {
        flags & !1
    };
    let flags = if tags.is_some() {
        flags | 2
    } else {
        flags & !2
    };
    let count = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
    let mut b = Vec::new();
    le32(&mut b, 0x4E48_5744);
    le16(&mut b, version);
    le16(&mut b, flags);
    le16(&mut b, count(sections.len()));
    le16(&mut b, count(blobs.len()));
    for w in [52, blobs_at, ext_at.0, ext_at.1, notes_at.0, notes_at.1] {
        le32(&mut b, u32_of(w));
    }
    le16(&mut b, count(marks.map_or(0, <[u32]>::len)));
    le16(&mut b, count(tags.map_or(0, <[(u32, u32)]>::len)));
    for w in [marks_at, tags_at, 0] {
        le32(&mut b, u32_of(w));
    }
    for (s, &(at, n)) in sections.iter().zip(&data) {
        le16(&mut b, s.0);
        le16(&mut b, s.1);
        le32(&mut b, u32_of(at));
        le32(&mut b, u32_of(n));
    }
    b.resize(blobs_at, 0);
    for (s, &(at, n)) in blobs.iter().zip(&bytes) {
        le32(&mut b, s.0);
        le16(&mut b, if s.3.is_some() { s.1 | 1 } else { s.1 & !1 });
        le16(&mut b, s.2);
        le32(&mut b, u32_of(at));
        le32(&mut b, u32_of(n));
    }
    if let Some(m) = marks {
        b.resize(marks_at, 0);
        for w in m {
            le32(&mut b, *w);
        }
    }
    if let Some(t) = tags {
        b.resize(tags_at, 0);
        for (id, value) in t {
            le32(&mut b, *id);
            le32(&mut b, *value);
        }
    }
    let parts = sections
        .iter()
        .map(|s| s.2)
        .zip(&data)
        .chain(blobs.iter().map(|s| s.3).zip(&bytes))
        .chain([(ext, &ext_at), (notes, &notes_at)]);
    for (d, &(at, _)) in parts {
        if let Some(d) = d {
            b.resize(at, 0);
            b.extend_from_slice(d);
        }
    }
    b.resize(cursor, 0);
    dirwhen_reseal(&mut b);
    b
}

/// Recompute `dirwhen.yaml`'s CRC-32 (over everything after the 52-byte header, at 48).
pub fn dirwhen_reseal(b: &mut [u8]) {
    if b.len() >= 52 {
        let sum = npuschema_core::crc32(0, &b[52..]);
        b[48..52].copy_from_slice(&sum.to_le_bytes());
    }
}

/// `linforms.yaml` as its plain writer lays it out (`writer.order: [items, pairs, data, blob,
/// note, stamp, body, tail]`, 4-byte aligned): each place the first aligned one at or after
/// what precedes it that its form can store (`items` at least 16, `pairs` a multiple of 8,
/// each item's data at least 64, `blob` 12 past a multiple of 8, `note` 4 before a multiple
/// of 16), each field solved for the value it stores
/// (`items_n` the count plus one, `pair_half` half the count, `blob_words` and `data_words` the
/// length in words, `note_len` the length plus one); the 4-byte `stamp`, then `body`, then the
/// 8-byte trailer right after it (the file ends there). Items are `(id, data)`, pairs `(a, b)`,
/// `ends` the stamp, body and trailer.
#[must_use]
pub fn linforms_file(
    items: &[(u16, &[u8])],
    pairs: &[(u16, u16)],
    blob: &[u8],
    note: &[u8],
    ends: ([u8; 4], &[u8], [u8; 8]),
) -> Vec<u8> {
    let (stamp, body, tail) = ends;
    let up = |x: usize, a: usize| x.div_ceil(a) * a;
    let narrow = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
    let items_at = up(32, 4).max(16);
    let pairs_at = up(up(items_at + 6 * items.len(), 4), 8);
    let mut cursor = pairs_at + 4 * pairs.len();
    let mut data_at = Vec::new();
    for (_, d) in items {
        let at = up(cursor, 4).max(64);
        data_at.push(at);
        cursor = at + d.len();
    }
    let blob_at = 12 + up(up(cursor, 4).max(12) - 12, 8);
    let note_at = up(up(blob_at + blob.len(), 4) + 4, 16) - 4;
    let stamp_at = up(note_at + note.len(), 4);
    let body_at = up(stamp_at + 4, 4);
    let mut b = Vec::new();
    le32(&mut b, 0x4D52_4F46);
    le16(&mut b, narrow(items_at - 16));
    b.push(u8::try_from(items.len() + 1).unwrap_or(u8::MAX));
    b.push(3);
    le16(&mut b, narrow(pairs_at / 8));
    le16(&mut b, narrow(pairs.len() / 2));
    le32(&mut b, u32_of((blob_at - 12) / 8));
    le16(&mut b, narrow(blob.len() / 4));
    le16(&mut b, narrow(note.len() + 1));
    le32(&mut b, u32_of((note_at + 4) / 16));
    le32(&mut b, u32_of(stamp_at));
    le32(&mut b, u32_of(body_at));
    b.resize(items_at, 0);
    for ((id, d), at) in items.iter().zip(&data_at) {
        le16(&mut b, *id);
        le16(&mut b, narrow(at - 64));
        le16(&mut b, narrow(d.len() / 4));
    }
    b.resize(pairs_at, 0);
    for &(a, x) in pairs {
        le16(&mut b, a);
        le16(&mut b, x);
    }
    for ((_, d), &at) in items.iter().zip(&data_at) {
        b.resize(at, 0);
        b.extend_from_slice(d);
    }
    b.resize(blob_at, 0);
    b.extend_from_slice(blob);
    b.resize(note_at, 0);
    b.extend_from_slice(note);
    b.resize(stamp_at, 0);
    b.extend_from_slice(&stamp);
    b.resize(body_at, 0);
    b.extend_from_slice(body);
    b.extend_from_slice(&tail);
    b
}

/// `sigtrail.yaml` as its plain writer lays it out (`writer.order: [body, sig]`, 8-byte
/// aligned): the 12-byte header, the body at 16, the signature right after it (unaligned; the
/// file ends there).
#[must_use]
pub fn sigtrail_file(kind: u16, body: &[u8], sig: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    le32(&mut b, 0x4749_5353);
    le32(&mut b, 16);
    le16(&mut b, u16::try_from(sig.len()).unwrap_or(u16::MAX));
    le16(&mut b, kind);
    b.resize(16, 0);
    b.extend_from_slice(body);
    b.extend_from_slice(sig);
    b
}

/// `tailtab.yaml` as its plain writer lays it out (`writer.order: [blob, index]`, 4-byte
/// aligned): the 8-byte header, each entry's blob (`(id, bytes)`) aligned to 4, then the
/// 12-byte entries right after the last blob, ending the file.
#[must_use]
pub fn tailtab_file(entries: &[(u32, &[u8])]) -> Vec<u8> {
    let mut b = Vec::new();
    le32(&mut b, 0x4C49_4154);
    le32(&mut b, u32::try_from(entries.len()).unwrap_or(u32::MAX));
    let mut places = Vec::new();
    for (_, blob) in entries {
        b.resize(b.len().next_multiple_of(4), 0);
        places.push(u32::try_from(b.len()).unwrap_or(u32::MAX));
        b.extend_from_slice(blob);
    }
    for ((id, blob), at) in entries.iter().zip(places) {
        le32(&mut b, *id);
        le32(&mut b, at);
        le32(&mut b, u32::try_from(blob.len()).unwrap_or(u32::MAX));
    }
    b
}

/// `tailfix.yaml` as its plain writer lays it out (`writer.order: [body, slots]`): the 12-byte
/// header, the body at 12, then the four `(key, value)` slots right after it, ending the file.
#[must_use]
pub fn tailfix_file(body: &[u8], slots: [(u32, u32); 4]) -> Vec<u8> {
    let mut b = Vec::new();
    le32(&mut b, 0x5849_4654);
    le32(&mut b, u32::try_from(body.len()).unwrap_or(u32::MAX));
    le32(&mut b, 4);
    b.extend_from_slice(body);
    for (k, v) in slots {
        le32(&mut b, k);
        le32(&mut b, v);
    }
    b
}

/// What `gatedw.yaml`'s writer is given: the version (`meta`'s gate), the user's flag bits
/// (`SIGNED`; `HAS_NOTES` is the writer's), `meta.legacy`, the body, `notes` and `extra`
/// when given, and the log's bytes (a record stream).
pub struct GatedWParts<'a> {
    /// `header.version`.
    pub version: u16,
    /// `header.flags` without `HAS_NOTES`.
    pub flags: u16,
    /// `meta.legacy` (written before version 3).
    pub legacy: u16,
    /// The body.
    pub body: &'a [u8],
    /// `notes` (from version 2).
    pub notes: Option<&'a [u8]>,
    /// `extra` (given exactly when the version is at least 1).
    pub extra: Option<&'a [u8]>,
    /// The log.
    pub log: &'a [u8],
    /// The words of the table `marks`.
    pub marks: &'a [u32],
    /// `stamp.when`.
    pub stamp: u64,
    /// The title (without its NUL).
    pub title: &'a [u8],
}

/// `gatedw.yaml` as its plain writer lays it out (`writer.order: [meta, body, notes, extra,
/// log, marks, stamp, title]`, 4-aligned): the 16-byte header, `meta` at 16 in the layout of
/// its version (40, 46 or 44 bytes), then each part given aligned to 4 (the title with its
/// NUL), the CRC-32 of the body in the header.
#[must_use]
pub fn gatedw_file(w: &GatedWParts<'_>) -> Vec<u8> {
    let v = w.version;
    let meta_len = 4 + 4 + if v >= 2 { 6 } else { 0 } + if v < 3 { 2 } else { 0 } + 30;
    let mut at: usize = 16 + meta_len;
    let mut place = |n: Option<usize>| match n {
        Some(n) => {
            at = at.next_multiple_of(4);
            let p = at;
            at += n;
            p
        }
        None => 0,
    };
    let body_at = place(Some(w.body.len()));
    let notes_at = place(w.notes.map(<[u8]>::len));
    let extra_at = place(w.extra.map(<[u8]>::len));
    let log_at = place(Some(w.log.len()));
    let marks_at = place(Some(4 * w.marks.len()));
    let stamp_at = place(Some(8));
    let title_at = place(Some(w.title.len() + 1));
    let title: Vec<u8> = w.title.iter().copied().chain([0]).collect();
    let marks: Vec<u8> = w.marks.iter().flat_map(|m| m.to_le_bytes()).collect();
    let stamp = w.stamp.to_le_bytes();
    let u = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let mut b = Vec::new();
    le32(&mut b, 0x5754_4147);
    le16(&mut b, v);
    le16(&mut b, (w.flags & !1) | u16::from(w.notes.is_some()));
    le32(&mut b, 16);
    le32(&mut b, npuschema_core::crc32(0, w.body));
    le32(&mut b, u(body_at));
    le32(&mut b, u(w.body.len()));
    if v >= 2 {
        le32(&mut b, u(notes_at));
        le16(
            &mut b,
            u16::try_from(w.notes.map_or(0, <[u8]>::len)).unwrap_or(u16::MAX),
        );
    }
    if v < 3 {
        le16(&mut b, w.legacy);
    }
    le32(&mut b, u(extra_at));
    le32(&mut b, u(w.extra.map_or(0, <[u8]>::len)));
    le32(&mut b, u(log_at));
    le32(&mut b, u(w.log.len()));
    le32(&mut b, u(marks_at));
    le16(&mut b, u16::try_from(w.marks.len()).unwrap_or(u16::MAX));
    le32(&mut b, u(stamp_at));
    le32(&mut b, u(title_at));
    for (p, bytes) in [
        (body_at, Some(w.body)),
        (notes_at, w.notes),
        (extra_at, w.extra),
        (log_at, Some(w.log)),
        (marks_at, Some(&marks[..])),
        (stamp_at, Some(&stamp[..])),
        (title_at, Some(&title[..])),
    ] {
        if let Some(bytes) = bytes {
            b.resize(p, 0);
            b.extend_from_slice(bytes);
        }
    }
    b
}

/// Recompute `gatedw.yaml`'s CRC-32 of the body (bytes 12..16), its span read from `meta`
/// (located by the word at 8), as far as the bytes allow.
pub fn gatedw_reseal(b: &mut [u8]) {
    let word = |b: &[u8], at: usize| {
        b.get(at..at.checked_add(4)?)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    let Some(meta_at) = word(b, 8) else { return };
    let (Some(from), Some(n)) = (
        word(b, meta_at),
        meta_at.checked_add(4).and_then(|a| word(b, a)),
    ) else {
        return;
    };
    if let Some(d) = from.checked_add(n).and_then(|to| b.get(from..to)) {
        let crc = npuschema_core::crc32(0, d);
        if let Some(slot) = b.get_mut(12..16) {
            slot.copy_from_slice(&crc.to_le_bytes());
        }
    }
}

/// A section of `dirtail.yaml`, `dirfoot.yaml` or `dirindex.yaml`: its kind, entry size and
/// payload.
pub type DirEndSection<'a> = (u32, u32, &'a [u8]);

/// The directory records (kind, offset, size, entry size) of `sections` whose payloads
/// start at `at`, each 4-aligned; returns them and where the last payload ends.
fn dir_end_records(sections: &[DirEndSection<'_>], mut at: usize) -> (Vec<u8>, Vec<u8>, usize) {
    let mut recs = Vec::new();
    let mut pays = Vec::new();
    let start = at;
    for &(kind, entsize, p) in sections {
        at = at.next_multiple_of(4);
        le32(&mut recs, kind);
        le32(&mut recs, u32_of(at));
        le32(&mut recs, u32_of(p.len()));
        le32(&mut recs, entsize);
        pays.resize(at - start, 0);
        pays.extend_from_slice(p);
        at += p.len();
    }
    (recs, pays, at)
}

/// `dirtail.yaml` as its directory writer lays it out (`writer.order: [note, sections,
/// payload, body, sig]`, 4-aligned): the 16-byte header, the note at 16, the directory at 24,
/// each payload aligned, the body aligned, then the signature right after it, ending the file.
#[must_use]
pub fn dirtail_file(
    level: u16,
    note: &[u8],
    sections: &[DirEndSection<'_>],
    body: &[u8],
    sig: &[u8],
) -> Vec<u8> {
    let dir_at = 24;
    let (recs, pays, end) = dir_end_records(sections, dir_at + 16 * sections.len());
    let body_at = end.next_multiple_of(4);
    let mut b = Vec::new();
    le32(&mut b, 0x4C54_4444);
    le16(&mut b, u16::try_from(sections.len()).unwrap_or(u16::MAX));
    le16(&mut b, level);
    le32(&mut b, u32_of(dir_at));
    le32(&mut b, u32_of(body_at));
    b.extend_from_slice(note);
    b.extend_from_slice(&recs);
    b.extend_from_slice(&pays);
    b.resize(body_at, 0);
    b.extend_from_slice(body);
    b.extend_from_slice(sig);
    b
}

/// `dirfoot.yaml` as its directory writer lays it out (`writer.order: [sections, payload,
/// footer]`): the 8-byte header, the directory at 8, each payload 4-aligned, then the
/// 12-byte footer (where the directory is, its count, the stamp) right after the last one.
#[must_use]
pub fn dirfoot_file(level: u32, stamp: u32, sections: &[DirEndSection<'_>]) -> Vec<u8> {
    let (recs, pays, _) = dir_end_records(sections, 8 + 16 * sections.len());
    let mut b = Vec::new();
    le32(&mut b, 0x5446_4444);
    le32(&mut b, level);
    b.extend_from_slice(&recs);
    b.extend_from_slice(&pays);
    le32(&mut b, 8);
    le32(&mut b, u32_of(sections.len()));
    le32(&mut b, stamp);
    b
}

/// `dirindex.yaml` as its directory writer lays it out (`writer.order: [sections, payload,
/// index]`): the 16-byte header, the directory at 16, each payload 4-aligned, then the
/// 8-byte marks (`(section, value)`) right after the last payload, ending the file.
#[must_use]
pub fn dirindex_file(sections: &[DirEndSection<'_>], marks: &[(u32, u32)]) -> Vec<u8> {
    let (recs, pays, _) = dir_end_records(sections, 16 + 16 * sections.len());
    let mut b = Vec::new();
    le32(&mut b, 0x5849_4444);
    le32(&mut b, u32_of(sections.len()));
    le32(&mut b, 16);
    le32(&mut b, u32_of(marks.len()));
    b.extend_from_slice(&recs);
    b.extend_from_slice(&pays);
    for &(sec, v) in marks {
        le32(&mut b, sec);
        le32(&mut b, v);
    }
    b
}

/// A `diropt.yaml` section: kind, flags (as given: the writer checks them), entsize, its
/// payload (none for a section without one).
pub type DirOptSection<'a> = (u16, u16, u32, Option<&'a [u8]>);
/// A `diropt.yaml` tag: id, name (in the string table), label (u8-prefixed), its bytes.
pub type DirOptTag<'a> = (u32, &'a [u8], &'a [u8], &'a [u8]);

/// `diropt.yaml` as its directory writer lays it out (`writer.order: [info, sections, tags,
/// names, data, blob, label]`, 4-aligned): the 40-byte header (`flags` with HAS_TAGS set when
/// `tags` are there), `info` (`crc_from`, `note`), the section records, the tag records when
/// there, the string table (each tag's name, then the title, each with its NUL), the
/// payloads that are there, each tag's bytes, then every tag's label (u8 length first) back
/// to back; left out, the tags take no bytes and their place and count are zero; the CRC-32
/// from `crc_from` to the end at 36.
#[must_use]
pub fn diropt_file(
    (flags, version, crc_from, note): (u16, u16, u32, u32),
    title: &[u8],
    sections: &[DirOptSection<'_>],
    tags: Option<&[DirOptTag<'_>]>,
) -> Vec<u8> {
    let align = |n: usize| n.div_ceil(4) * 4;
    let tl = tags.unwrap_or(&[]);
    let mut cursor = 48 + 16 * sections.len();
    let tags_at = match tags {
        Some(t) => {
            let at = align(cursor);
            cursor = at + 20 * t.len();
            at
        }
        None => 0,
    };
    let names_at = align(cursor);
    let mut names = Vec::new();
    let mut name_at = Vec::new();
    for t in tl {
        name_at.push(names.len());
        names.extend_from_slice(t.1);
        names.push(0);
    }
    let title_at = names.len();
    names.extend_from_slice(title);
    names.push(0);
    cursor = names_at + names.len();
    let mut place = |part: Option<&[u8]>| match part {
        Some(d) => {
            let at = align(cursor);
            cursor = at + d.len();
            (at, d.len())
        }
        None => (0, 0),
    };
    let data: Vec<(usize, usize)> = sections.iter().map(|s| place(s.3)).collect();
    let blobs: Vec<(usize, usize)> = tl.iter().map(|t| place(Some(t.3))).collect();
    let label_at = align(cursor);
    let mut labels = Vec::new();
    let mut label_offs = Vec::new();
    for t in tl {
        label_offs.push(label_at + labels.len());
        labels.push(u8::try_from(t.2.len()).unwrap_or(u8::MAX));
        labels.extend_from_slice(t.2);
    }
    let flags = if tags.is_some() {
        flags | 1
    } else {
        flags & !1
    };
    let count = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
    let mut b = Vec::new();
    le32(&mut b, 0x5450_4F44);
    le16(&mut b, flags);
    le16(&mut b, count(sections.len()));
    le32(&mut b, 48);
    le16(&mut b, count(tl.len()));
    le16(&mut b, version);
    for w in [tags_at, 40, names_at, names.len(), title_at, 0] {
        le32(&mut b, u32_of(w));
    }
    le32(&mut b, crc_from);
    le32(&mut b, note);
    for (s, &(at, n)) in sections.iter().zip(&data) {
        le16(&mut b, s.0);
        le16(&mut b, s.1);
        le32(&mut b, s.2);
        le32(&mut b, u32_of(at));
        le32(&mut b, u32_of(n));
    }
    if tags.is_some() {
        b.resize(tags_at, 0);
    }
    for (k, t) in tl.iter().enumerate() {
        le32(&mut b, t.0);
        for w in [name_at[k], label_offs[k], blobs[k].0, blobs[k].1] {
            le32(&mut b, u32_of(w));
        }
    }
    b.resize(names_at, 0);
    b.extend_from_slice(&names);
    let parts = sections
        .iter()
        .map(|s| s.3)
        .zip(&data)
        .chain(tl.iter().map(|t| Some(t.3)).zip(&blobs));
    for (d, &(at, _)) in parts {
        if let Some(d) = d {
            b.resize(at, 0);
            b.extend_from_slice(d);
        }
    }
    b.resize(label_at, 0);
    b.extend_from_slice(&labels);
    diropt_reseal(&mut b);
    b
}

/// Recompute `diropt.yaml`'s CRC-32 (from `info.crc_from`, `info` where the header's
/// `info_at` at 20 says, to the end; stored at 36), when the bytes hold all of it and the
/// span starts after the stored CRC.
pub fn diropt_reseal(b: &mut [u8]) {
    let word = |b: &[u8], at: usize| {
        b.get(at..at.saturating_add(4))
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map(u32::from_le_bytes)
    };
    let Some(info_at) = word(b, 20).and_then(|a| usize::try_from(a).ok()) else {
        return;
    };
    let Some(from) = word(b, info_at).and_then(|a| usize::try_from(a).ok()) else {
        return;
    };
    if from < 40 {
        return;
    }
    let Some(body) = b.get(from..) else { return };
    let sum = npuschema_core::crc32(0, body);
    b[36..40].copy_from_slice(&sum.to_le_bytes());
}

/// A `dirlin.yaml` section: kind, entsize, its payload (of even length; a `bss` section, kind
/// 8, has none, and its bytes here must be empty).
pub type DirLinSection<'a> = (u16, u16, &'a [u8]);

/// `dirlin.yaml` as its directory writer lays it out (`writer.order: [sub, sections,
/// payload, notes, marks, data, name]`, 4-byte aligned): each place the first aligned one at
/// or after what precedes it that its form can store (`sub` at least 28, the directory a
/// multiple of 16, each payload a multiple of 8, `notes` a multiple of 4, `marks` a multiple
/// of 2, each mark's bytes anywhere (`data_at - 16`), `name` at least 1), each
/// field solved for the value it stores (`sub_at` the place less 28, `dir_at16` a sixteenth,
/// `count1` the count plus one, `offset` an eighth, `size2` half the length, `notes_words` a
/// quarter, `notes_len` the length plus 2, `marks_at` a half, `data_at` the place plus 16,
/// `name_at` the place less 1). Marks are `(id, bytes)`.
#[must_use]
pub fn dirlin_file(
    sections: &[DirLinSection<'_>],
    notes: &[u8],
    marks: &[(u32, &[u8])],
    name: &[u8],
) -> Vec<u8> {
    let up = |x: usize, a: usize| x.div_ceil(a) * a;
    let sub_at = up(24, 4).max(28);
    let dir_at = up(up(sub_at + 8, 4), 16);
    let mut cursor = dir_at + 12 * sections.len();
    let mut pay_at = Vec::new();
    for (kind, _, p) in sections {
        if *kind == 8 {
            pay_at.push(0);
            continue;
        }
        let at = up(up(cursor, 4), 8);
        pay_at.push(at);
        cursor = at + p.len();
    }
    let notes_at = up(up(cursor, 4), 4);
    let marks_at = up(up(notes_at + notes.len(), 4), 2);
    cursor = marks_at + 12 * marks.len();
    let mut data_at = Vec::new();
    for (_, d) in marks {
        let at = up(cursor, 4);
        data_at.push(at);
        cursor = at + d.len();
    }
    let name_at = up(cursor, 4).max(1);
    let mut b = Vec::new();
    le32(&mut b, 0x4E49_4C44);
    let narrow = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
    le32(&mut b, u32_of(sub_at - 28));
    le32(&mut b, u32_of(notes_at / 4));
    le32(&mut b, u32_of(name_at - 1));
    le32(&mut b, u32_of(marks_at / 2));
    le16(&mut b, narrow(notes.len() + 2));
    le16(&mut b, narrow(marks.len()));
    b.resize(sub_at, 0);
    le32(&mut b, u32_of(dir_at / 16));
    le32(&mut b, u32_of(sections.len() + 1));
    b.resize(dir_at, 0);
    for ((kind, entsize, p), at) in sections.iter().zip(&pay_at) {
        le16(&mut b, *kind);
        le16(&mut b, *entsize);
        le32(&mut b, u32_of(at / 8));
        le32(&mut b, u32_of(p.len() / 2));
    }
    for ((kind, _, p), &at) in sections.iter().zip(&pay_at) {
        if *kind != 8 {
            b.resize(at, 0);
            b.extend_from_slice(p);
        }
    }
    b.resize(notes_at, 0);
    b.extend_from_slice(notes);
    b.resize(marks_at, 0);
    for ((id, d), at) in marks.iter().zip(&data_at) {
        le32(&mut b, *id);
        le32(&mut b, u32_of(at + 16));
        le32(&mut b, u32_of(d.len()));
    }
    for ((_, d), &at) in marks.iter().zip(&data_at) {
        b.resize(at, 0);
        b.extend_from_slice(d);
    }
    b.resize(name_at, 0);
    b.extend_from_slice(name);
    b.push(0);
    b
}

/// `loclin.yaml` as its plain writer lays it out (`writer.order: [info, items, blob]`, 4-byte
/// aligned): the 8-byte header, `info` at 8, the items at the first multiple of 4 after it
/// (`items_at4` a quarter of it, `items_n1` the count plus one), the blob at the first aligned
/// place after them, at least 16 (`blob_at` 16 less, `blob_len2` half its length). Items are
/// `(id, value)`.
#[must_use]
pub fn loclin_file(items: &[(u16, u32)], blob: &[u8], stamp: u32) -> Vec<u8> {
    let up = |x: usize, a: usize| x.div_ceil(a) * a;
    let narrow = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
    let items_at = up(up(24, 4), 4);
    let blob_at = up(items_at + 6 * items.len(), 4).max(16);
    let mut b = Vec::new();
    le32(&mut b, 0x4E4C_434C);
    le32(&mut b, 8);
    le32(&mut b, u32_of(items_at / 4));
    le16(&mut b, narrow(items.len() + 1));
    le16(&mut b, narrow(blob.len() / 2));
    le32(&mut b, u32_of(blob_at - 16));
    le32(&mut b, stamp);
    b.resize(items_at, 0);
    for &(id, v) in items {
        le16(&mut b, id);
        le32(&mut b, v);
    }
    b.resize(blob_at, 0);
    b.extend_from_slice(blob);
    b
}

/// `dirgatew.yaml` as its directory writer lays it out (`writer.order: [meta, sections,
/// payload, extra, title]`, 4-aligned): the 20-byte header (magic, version, flags with
/// `HAS_EXTRA` set when `extra` is given, where the directory and `meta` are, the CRC-32 from
/// the title to the end), `meta` at 20 in the layout of `version` (10, 18 or 16 bytes), the
/// directory, each payload, `extra` when given, then the title and its NUL, each aligned.
#[must_use]
pub fn dirgatew_file(
    version: u16,
    flags: u16,
    legacy: u16,
    sections: &[DirEndSection<'_>],
    extra: Option<&[u8]>,
    title: &[u8],
) -> Vec<u8> {
    let v = version;
    let meta_len = 8 + if v >= 2 { 8 } else { 0 } + if v < 3 { 2 } else { 0 };
    let dir_at = (20usize + meta_len).next_multiple_of(4);
    let (recs, pays, mut end) = dir_end_records(sections, dir_at + 16 * sections.len());
    let extra_at = match extra {
        Some(x) => {
            let at = end.next_multiple_of(4);
            end = at + x.len();
            at
        }
        None => 0,
    };
    let title_at = end.next_multiple_of(4);
    let mut b = Vec::new();
    le32(&mut b, 0x5747_4444);
    le16(&mut b, v);
    le16(&mut b, (flags & !1) | u16::from(extra.is_some()));
    le32(&mut b, u32_of(dir_at));
    le32(&mut b, 20);
    le32(&mut b, 0);
    le32(&mut b, u32_of(sections.len()));
    le32(&mut b, u32_of(title_at));
    if v >= 2 {
        le32(&mut b, u32_of(extra_at));
        le32(&mut b, u32_of(extra.map_or(0, <[u8]>::len)));
    }
    if v < 3 {
        le16(&mut b, legacy);
    }
    b.resize(dir_at, 0);
    b.extend_from_slice(&recs);
    b.extend_from_slice(&pays);
    if let Some(x) = extra {
        b.resize(extra_at, 0);
        b.extend_from_slice(x);
    }
    b.resize(title_at, 0);
    b.extend_from_slice(title);
    b.push(0);
    dirgatew_reseal(&mut b);
    b
}

/// Recompute `dirgatew.yaml`'s CRC-32 (bytes 16..20) from where `meta` (located by the word
/// at 12) says the title is to the end of the file, as far as the bytes allow.
pub fn dirgatew_reseal(b: &mut [u8]) {
    let word = |b: &[u8], at: usize| {
        b.get(at..at.checked_add(4)?)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    let Some(meta_at) = word(b, 12) else { return };
    let Some(from) = meta_at.checked_add(4).and_then(|a| word(b, a)) else {
        return;
    };
    if let Some(d) = b.get(from..) {
        let crc = npuschema_core::crc32(0, d);
        if let Some(slot) = b.get_mut(16..20) {
            slot.copy_from_slice(&crc.to_le_bytes());
        }
    }
}

/// `formats/opentype.yaml`'s sums set as a font's maker sets them: every table's checksum in
/// its record (the sum of its big-endian words, the `head` table's with its
/// checkSumAdjustment, bytes 8..12, as zero; a record whose table is not in the file is
/// left), then [`opentype_seal`].
pub fn opentype_reseal(b: &mut [u8]) {
    let n = b
        .get(4..6)
        .map_or(0, |w| usize::from(u16::from_be_bytes([w[0], w[1]])));
    for i in 0..n {
        let at = 12 + 16 * i;
        let Some(r) = b.get(at..at + 16) else { break };
        let head = r[..4] == *b"head";
        let off = u32::from_be_bytes([r[8], r[9], r[10], r[11]]) as usize;
        let len = u32::from_be_bytes([r[12], r[13], r[14], r[15]]) as usize;
        let Some(t) = off.checked_add(len).and_then(|e| b.get(off..e)) else {
            continue;
        };
        let zero: &[(u64, u64)] = if head { &[(8, 4)] } else { &[] };
        let sum = npuschema_core::sum32_be_zeroed(t, 0, zero);
        b[at + 4..at + 8].copy_from_slice(&sum.to_be_bytes());
    }
    opentype_seal(b);
}

/// `head`'s checkSumAdjustment set so that the whole font sums to 0xB1B0AFBA, when the
/// directory finds a `head` table holding the word (the table checksums left as they are).
pub fn opentype_seal(b: &mut [u8]) {
    let n = b
        .get(4..6)
        .map_or(0, |w| usize::from(u16::from_be_bytes([w[0], w[1]])));
    let adj = (0..n)
        .map(|i| 12 + 16 * i)
        .find(|&r| b.get(r..r + 4) == Some(&b"head"[..]))
        .and_then(|r| b.get(r + 8..r + 12))
        .and_then(|o| (u32::from_be_bytes([o[0], o[1], o[2], o[3]]) as usize).checked_add(8))
        .filter(|&a| a.checked_add(4).is_some_and(|e| e <= b.len()));
    if let Some(a) = adj {
        b[a..a + 4].fill(0);
        let sum = npuschema_core::sum32_be(b);
        b[a..a + 4].copy_from_slice(&0xB1B0_AFBA_u32.wrapping_sub(sum).to_be_bytes());
    }
}
