//! Error sites: what a failed check reports besides its run-time numbers (its code, the
//! field it blames, the field's offset in its struct, the shape of its detail), numbered
//! once for a schema.
//!
//! The lowered model numbers a schema's sites (`lower/sites.rs`, in the order of the
//! schema's steps): site `k` of the [`SiteList`] is `ERROR_SITES[k]`, with id `k + 1`, and
//! the same site met again keeps its first number. Neither back end numbers sites: the
//! emitter and the interpreter look each of theirs up in the model's list
//! ([`crate::Checked`] keeps it), so they report the same numbers by construction.
//! `tests/tests/site_numbers.rs` pins the shipped formats' lists.

/// The shape of a site's detail, with the names it prints (`npuschema_core::DetailKind`
/// without the run-time numbers).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Shape {
    None,
    Short,
    Mismatch,
    /// The left operand's name, the operator, the right operand's name.
    Compare([String; 3]),
    /// The name of the limit a range must lie within.
    Range(String),
    UnknownBits,
    UnknownValue,
}

/// One site: a row of a generated module's `ERROR_SITES` without its id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SiteKey {
    pub(crate) code: String,
    /// The table of the record blamed (empty outside a table).
    pub(crate) table: String,
    pub(crate) name: String,
    /// The field's offset in its struct (a larger one is added at run time).
    pub(crate) offset: u32,
    pub(crate) shape: Shape,
}

/// A schema's sites, in number order: the site at index `k` has id `k + 1`. Each site's
/// index is also kept by key, so numbering or finding one is a hash lookup (a schema of
/// 20,000 steps has as many sites).
#[derive(Clone, Debug, Default)]
pub(crate) struct SiteList(Vec<SiteKey>, std::collections::HashMap<SiteKey, usize>);

impl SiteList {
    /// The index of `key`, registered at the end if it is new.
    pub(crate) fn number(&mut self, key: SiteKey) -> usize {
        let next = self.0.len();
        match self.1.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => *e.get(),
            std::collections::hash_map::Entry::Vacant(e) => {
                self.0.push(e.key().clone());
                e.insert(next);
                next
            }
        }
    }

    /// The index of `key`, if it is in the list.
    pub(crate) fn find(&self, key: &SiteKey) -> Option<usize> {
        self.1.get(key).copied()
    }

    /// The sites, in number order.
    pub(crate) fn keys(&self) -> &[SiteKey] {
        &self.0
    }
}
