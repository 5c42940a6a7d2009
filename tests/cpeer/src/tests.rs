//! The safe wrappers against the reference reader: the same checksum, the same bindings,
//! and the documented codes; or `None` everywhere when the C peer was not compiled.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;
use npuschema_refreader::npu1::{self as refnpu1, BuildRegion};

fn blob(regions: &[BuildRegion<'_>]) -> Vec<u8> {
    refnpu1::build(0, regions, &[1, 2, 3, 4, 5, 6, 7, 8], None).unwrap()
}

#[test]
fn fnv1a_is_the_reference_checksum() {
    if !available() {
        assert_eq!(fnv1a(b"foobar"), None);
        return;
    }
    assert_eq!(fnv1a(b""), Some(0x811C_9DC5));
    assert_eq!(fnv1a(b"foobar"), Some(0xbf9c_f968));
    let bytes: Vec<u8> = (0..=255).cycle().take(1000).collect();
    assert_eq!(fnv1a(&bytes), Some(refnpu1::fnv1a(&bytes)));
}

#[test]
fn load_binds_as_the_reference_does() {
    let weights = [7u8; 48];
    let b = blob(&[
        BuildRegion::Baked(1, &weights),
        BuildRegion::Runtime(2, 100),
        BuildRegion::Runtime(2, 20),
    ]);
    let mut arena = vec![0u8; 256];
    let mut job = Job::default();
    if !available() {
        assert_eq!(load(&b, &mut arena, &mut job), None);
        return;
    }
    assert_eq!(load(&b, &mut arena, &mut job), Some(OK));
    let r = refnpu1::read(&b).unwrap();
    let arena_addr = arena.as_ptr() as u64;
    let bindings = refnpu1::bind(&r, arena_addr, arena.len() as u64).unwrap();
    assert_eq!(job.count, 3);
    assert_eq!(
        job.cmd as usize,
        b.as_ptr() as usize + r.header.cmd_offset as usize
    );
    assert_eq!(job.cmd_bytes, 8);
    for (i, bind) in bindings.iter().enumerate() {
        let (base, size) = match *bind {
            refnpu1::Binding::Blob { offset, size } => (b.as_ptr() as u64 + offset, size),
            refnpu1::Binding::Arena { offset, size } => (arena_addr + offset, size),
        };
        assert_eq!((job.base[i] as u64, u64::from(job.size[i])), (base, size));
    }
}

#[test]
fn load_codes_name_the_failed_rule() {
    if !available() {
        return;
    }
    let mut job = Job::default();
    let mut arena = vec![0u8; 64];
    let good = blob(&[BuildRegion::Runtime(2, 16)]);
    assert_eq!(load(&good[..31], &mut arena, &mut job), Some(E_SHORT));
    let mut bad = good.clone();
    bad[0] ^= 1;
    assert_eq!(load(&bad, &mut arena, &mut job), Some(E_MAGIC));
    let mut bad = good.clone();
    bad[40] ^= 1; // a descriptor byte, under the checksum
    assert_eq!(load(&bad, &mut arena, &mut job), Some(E_CHECKSUM));
    assert_eq!(load(&good, &mut arena[..0], &mut job), Some(E_ARENA));
    let nine = blob(&[BuildRegion::Runtime(2, 0); 9]);
    assert_eq!(load(&nine, &mut arena, &mut job), Some(E_TOO_MANY));
    for (code, name) in [
        (OK, "ok"),
        (E_SHORT, "short"),
        (E_CHECKSUM, "checksum"),
        (E_ARENA, "arena"),
        (E_TOO_MANY, "too-many"),
        (-1, "?"),
    ] {
        assert_eq!(rule(code), name);
    }
}
