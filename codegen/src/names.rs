//! Naming helpers shared by the checker (which refuses clashing generated names) and the
//! emitters: schema names to generated Rust names.

pub(crate) fn camel(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c == '_' || c == '-' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `s` is UPPER_SNAKE (`STATUS`, `AXI_LIMIT`): a register's or a command's name.
pub(crate) fn upper_snake(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether `s` is lower_snake (`axi_limit`).
pub(crate) fn lower_snake(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Rust's keywords: a name the generator uses as it is must not be one (a field `type` would
/// generate `fn type(&self)`): register and command fields (`check/regs.rs`,
/// `check/commands.rs`), and a file schema's names (`check/writer_names.rs`).
pub(crate) const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];
