//! `--arch u55|u65` of `disasm` and `verify`: whose commands the stream is made of.

use npuschema_runtime::cmd::Arch;

/// The `--arch` argument: an architecture by its schema name (`u55`, `u65`). An unknown name
/// is a usage error (exit 2) that lists the known ones.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ArchArg {
    /// The NPU the stream is for: u55 (the default) or u65. A command the architecture does
    /// not have is an `unknown-opcode` error (and `disasm` lists that architecture's fields).
    #[arg(long = "arch", value_name = "ARCH", default_value = "u55", value_parser = parse_arch)]
    pub arch: Arch,
}

/// `Arch::from_name`, with the known names in the error.
pub fn parse_arch(s: &str) -> Result<Arch, String> {
    Arch::from_name(s).ok_or_else(|| {
        let known: Vec<&str> = Arch::ALL.iter().map(|a| a.name()).collect();
        format!(
            "unknown architecture `{s}`; known architectures: {}",
            known.join(", ")
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_ones_list_the_known() {
        assert_eq!(parse_arch("u55").unwrap(), Arch::U55);
        assert_eq!(parse_arch("u65").unwrap(), Arch::U65);
        assert_eq!(
            parse_arch("u85").unwrap_err(),
            "unknown architecture `u85`; known architectures: u55, u65"
        );
    }
}
