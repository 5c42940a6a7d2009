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
    /// Where an expression is wrong in itself (a name that does not resolve, a call
    /// misused, an operand of the wrong kind), with those diagnostics: any other error at
    /// the same place, found before or after, is a knock-on of that one mistake (a writer
    /// that cannot use a field that does not exist) and is dropped when the diagnostics
    /// are sorted. One mistake gives one diagnostic.
    poisoned: Vec<(Pos, Vec<String>)>,
}

impl Diags {
    /// Start collecting for `file`.
    pub fn new(file: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            items: Vec::new(),
            poisoned: Vec::new(),
        }
    }

    /// Record a mistake.
    pub fn error(&mut self, pos: Pos, message: impl Into<String>) {
        self.items.push(Diag {
            pos,
            message: message.into(),
        });
    }

    /// The expression at `pos` is wrong in itself, and the diagnostics recorded from
    /// `since` on say how: whatever else fails there follows from it.
    pub(crate) fn poison(&mut self, pos: Pos, since: usize) {
        let roots: Vec<String> = self
            .items
            .get(since..)
            .unwrap_or_default()
            .iter()
            .filter(|x| x.pos == pos)
            .map(|x| x.message.clone())
            .collect();
        match self.poisoned.iter_mut().find(|(p, _)| *p == pos) {
            Some((_, r)) => r.extend(roots),
            None => self.poisoned.push((pos, roots)),
        }
    }

    /// Whether anything was recorded.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn sort(&mut self) {
        // Knock-ons of an expression wrong in itself (see `poisoned`).
        let poisoned = &self.poisoned;
        self.items.retain(|x| {
            poisoned
                .iter()
                .find(|(p, _)| *p == x.pos)
                .is_none_or(|(_, roots)| roots.contains(&x.message))
        });
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
