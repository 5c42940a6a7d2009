//! Schema diagnostics: every mistake with its file, line and column.

use std::collections::HashMap;
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
    poisoned: HashMap<Pos, Vec<String>>,
    /// Diagnostics that follow from one mistake, by the mistake (`caused`): `(where, what,
    /// the mistake, and for the mistake itself what it leaves unread)`.
    caused: Vec<(Pos, String, String, Option<String>)>,
}

impl Diags {
    /// Start collecting for `file`.
    pub fn new(file: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            items: Vec::new(),
            poisoned: HashMap::new(),
            caused: Vec::new(),
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
        self.poisoned.entry(pos).or_default().extend(roots);
    }

    /// The diagnostics recorded from `since` on follow from the mistake `cause` (a name
    /// that does not resolve, a struct that is not defined, a field left out for its type),
    /// which may be met in many places: the diagnostics are folded into one, the mistake's
    /// own (`root`: what it leaves unread, as `field \`version\``) or else the first, which
    /// lists the other places. One mistake gives one diagnostic, however many checks read
    /// what it broke.
    pub(crate) fn caused(&mut self, since: usize, cause: &str, root: Option<&str>) {
        let new: Vec<_> = self
            .items
            .get(since..)
            .unwrap_or_default()
            .iter()
            .map(|x| {
                (
                    x.pos,
                    x.message.clone(),
                    cause.to_string(),
                    root.map(str::to_string),
                )
            })
            .collect();
        self.caused.extend(new);
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
                .get(&x.pos)
                .is_none_or(|roots| roots.contains(&x.message))
        });
        self.items
            .sort_by(|a, b| a.pos.cmp(&b.pos).then_with(|| a.message.cmp(&b.message)));
        self.items.dedup();
        self.fold_caused();
    }

    /// One diagnostic per mistake (see `caused`): the mistake's own, else the first by
    /// position, naming where else it was met; the others dropped.
    fn fold_caused(&mut self) {
        let n = self.items.len();
        let (mut keep, mut extra) = (vec![true; n], vec![String::new(); n]);
        {
            // Each diagnostic's mistake, if it follows from one, and for the mistake itself
            // what it leaves unread (the first recorded for a place and message).
            let mut cause_at: HashMap<(Pos, &str), (&str, Option<&str>)> = HashMap::new();
            for c in &self.caused {
                cause_at
                    .entry((c.0, c.1.as_str()))
                    .or_insert((c.2.as_str(), c.3.as_deref()));
            }
            // The diagnostics of each mistake, in position order, the mistakes in the order
            // they are first met.
            let mut order: Vec<&str> = Vec::new();
            let mut groups: HashMap<&str, Vec<(usize, Option<&str>)>> = HashMap::new();
            for (j, x) in self.items.iter().enumerate() {
                if let Some(&(cause, unread)) = cause_at.get(&(x.pos, x.message.as_str())) {
                    let g = groups.entry(cause).or_default();
                    if g.is_empty() {
                        order.push(cause);
                    }
                    g.push((j, unread));
                }
            }
            for cause in order {
                let Some(group) = groups.get(cause) else {
                    continue;
                };
                // Every place the mistake itself was made stays (two structs misspelt alike
                // are two mistakes); what follows from it is told on the first of them.
                let (roots, knock_ons): (Vec<_>, Vec<_>) =
                    group.iter().partition(|(_, unread)| unread.is_some());
                let Some(&(head, unread)) = roots.first().or(knock_ons.first()) else {
                    continue;
                };
                let others: Vec<Pos> = knock_ons
                    .iter()
                    .filter(|(j, _)| *j != head)
                    .filter_map(|(j, _)| self.items.get(*j).map(|x| x.pos))
                    .collect();
                if others.is_empty() {
                    continue;
                }
                for (j, _) in &knock_ons {
                    if let Some(k) = keep.get_mut(*j) {
                        *k = *j == head;
                    }
                }
                if let Some(e) = extra.get_mut(head) {
                    *e = places(unread, &others);
                }
            }
        }
        let mut i = 0;
        self.items.retain_mut(|x| {
            let (k, e) = (keep.get(i).copied().unwrap_or(true), extra.get(i));
            i += 1;
            x.message.push_str(e.map_or("", String::as_str));
            k
        });
    }
}

/// What a folded diagnostic adds: where else its mistake was met (at most six places
/// written out).
fn places(unread: Option<&str>, others: &[Pos]) -> String {
    const SHOWN: usize = 6;
    let mut list: Vec<String> = others
        .iter()
        .take(SHOWN)
        .map(|p| format!("{}:{}", p.line, p.col))
        .collect();
    if others.len() > SHOWN {
        list.push(format!("{} more", others.len() - SHOWN));
    }
    let list = match list.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    match unread {
        Some(what) => {
            let n = others.len();
            format!(
                "; {n} place{} that read{} {what} {} not checked ({list})",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" },
                if n == 1 { "is" } else { "are" },
            )
        }
        None => format!("; the same at {list}"),
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
