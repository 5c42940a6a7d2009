//! Ethos-U55 register command streams: decoding ([`decode`]), a Vela-style listing
//! ([`Listing`]), the register state and memory accesses of each operation
//! ([`StreamState`]), and a static checker of those accesses against region sizes
//! ([`check`]).
//!
//! `no_std`, no allocation, no panics: everything works on a borrowed `&[u8]` stream and
//! fixed-size state.

mod check;
mod decode;
mod listing;
mod opcode;
mod state;

pub use check::{
    CheckSummary, CheckedJob, Finding, FindingCode, JobCheckError, JobRefused, check, check_for,
};
pub use decode::{Command, DecodeError, Decoder, decode, decode_for};
pub use listing::{Fields, FieldsIn, Listing, ListingIn};
pub use opcode::{
    Arch, CMD1_FLAG, CommandField, OPCODE_MASK, Opcode, code16, from_code_in, touches_memory,
};
pub use state::{ADDRESS_LIMIT, Access, AccessKind, Layout, MAX_ACCESSES, Operation, StreamState};
