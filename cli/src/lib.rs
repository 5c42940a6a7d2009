//! The library half of the `npuschema` tool: subcommand implementations that integration
//! tests (the `npuschema-tests` crate) call directly, since a separate package cannot run a
//! binary of this one through `CARGO_BIN_EXE_*`. `main.rs` uses them from here.

pub mod explain;
pub mod pack;
