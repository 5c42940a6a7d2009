//! Generated readers, validators and writers for the schemas in `schema/`.
//!
//! Every module here is written by `npuschema gen` from its schema and checked in; the test
//! `tests/tests/drift.rs` regenerates each and fails on any difference. Do not edit the
//! modules by hand: edit the schema and regenerate (`scripts/regenerate`).
//!
//! `no_std`, no allocation (the `alloc` feature adds `to_vec()` conveniences), no `unsafe`.
#![no_std]
#![forbid(unsafe_code)]

// The modules are formatted by the generator (prettyplease), not rustfmt: the drift test
// compares them byte for byte with the generator's output.

/// NPU1 (`.npub`): see `schema/npu1.yaml`.
#[rustfmt::skip]
pub mod npu1;

/// VPMN / NBG (`.nb`): see `schema/vpmn.yaml`.
#[rustfmt::skip]
pub mod vpmn;

/// The Ethos-U55 register map: see `schema/ethos_u55_regs.yaml`.
#[rustfmt::skip]
pub mod ethos_u55_regs;

/// The Ethos-U55/U65 command set: see `schema/ethos_u55_cmd.yaml`.
#[rustfmt::skip]
pub mod ethos_u55_cmd;

/// Vela's COP1 driver-actions payload: see `schema/ethos_u_cop1.yaml`.
#[rustfmt::skip]
pub mod ethos_u_cop1;

/// Vela's COP2 driver-actions payload: see `schema/ethos_u_cop2.yaml`.
#[rustfmt::skip]
pub mod ethos_u_cop2;
