//! The library half of the `npuschema` tool: subcommand implementations that integration
//! tests (the `npuschema-tests` crate) call directly, since a separate package cannot run a
//! binary of this one through `CARGO_BIN_EXE_*`. `main.rs` uses them from here.

pub mod check;
pub mod explain;
pub mod format;
pub mod generate;
pub mod inspect;
pub mod io;
pub mod pack;
pub mod schema_cmd;
pub mod site;
pub mod tensor_io;

pub mod vpmn;

/// VPMN validation for `check`: the generated validator.
pub(crate) fn vpmn_check(bytes: &[u8]) -> Result<(), npuschema_core::Error> {
    vpmn::check(bytes)
}

/// VPMN `inspect`: the field map's keys, the ledger with `--ledger`.
pub(crate) fn vpmn_inspect(bytes: &[u8], args: &inspect::Args) -> std::process::ExitCode {
    vpmn::inspect::run(bytes, &args.file, args.json, args.ledger)
}
