//! Generated readers, validators and writers for the schemas in `schema/`.
//!
//! Every module here is written by `npuschema gen` from its schema and checked in; the test
//! `tests/tests/drift.rs` regenerates each and fails on any difference. Do not edit the
//! modules by hand: edit the schema and regenerate (`scripts/regenerate`).
//!
//! `no_std`, no allocation (the `alloc` feature adds `to_vec()` conveniences), no `unsafe`.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "alloc")]
extern crate alloc;

/// NPU1 (`.npub`): see `schema/npu1.yaml`.
pub mod npu1;

/// VPMN / NBG (`.nb`): see `schema/vpmn.yaml`.
pub mod vpmn;
