//! The library half of the `npuschema` tool: subcommand implementations that integration
//! tests (the `npuschema-tests` crate) call directly, since a separate package cannot run a
//! binary of this one through `CARGO_BIN_EXE_*`. `main.rs` uses them from here.

pub mod explain;
pub mod pack;
pub mod check;
pub mod format;
pub mod generate;
pub mod inspect;

/// VPMN validation for `check`. The VPMN schema's generated validator plugs in here.
pub(crate) fn vpmn_check(bytes: &[u8]) -> Result<(), npuschema_core::Error> {
    let _ = bytes;
    Err(npuschema_core::Error::new(
        "unsupported-format",
        npuschema_core::Field::plain("magic"),
        0,
        npuschema_core::Detail::None,
    ))
}

/// VPMN `inspect`. The VPMN schema's generated view plugs in here.
pub(crate) fn vpmn_inspect(bytes: &[u8], args: &inspect::Args) -> std::process::ExitCode {
    let _ = bytes;
    eprintln!("{}: VPMN inspection is not available in this build", args.file.display());
    std::process::ExitCode::from(2)
}
