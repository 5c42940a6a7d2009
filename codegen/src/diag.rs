//! Schema diagnostics: every mistake with its file, line and column.

use std::fmt;

use crate::yaml::Pos;

/// One mistake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// Where.
    pub pos: Pos,
    /// What, in plain words.
    pub message: String,
}

/// All the mistakes found in one schema file, sorted by position.
#[derive(Clone, Debug, Default)]
pub struct Diags {
    /// The schema file's path as given.
    pub file: String,
    /// The mistakes.
    pub items: Vec<Diag>,
}

impl Diags {
    /// Start collecting for `file`.
    pub fn new(file: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            items: Vec::new(),
        }
    }

    /// Record a mistake.
    pub fn error(&mut self, pos: Pos, message: impl Into<String>) {
        self.items.push(Diag {
            pos,
            message: message.into(),
        });
    }

    /// Whether anything was recorded.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn sort(&mut self) {
        self.items
            .sort_by(|a, b| a.pos.cmp(&b.pos).then_with(|| a.message.cmp(&b.message)));
        self.items.dedup();
    }
}

impl fmt::Display for Diags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.items {
            writeln!(
                f,
                "{}:{}:{}: error: {}",
                self.file, d.pos.line, d.pos.col, d.message
            )?;
        }
        let n = self.items.len();
        write!(
            f,
            "{} error{} in {}",
            n,
            if n == 1 { "" } else { "s" },
            self.file
        )
    }
}

impl std::error::Error for Diags {}
