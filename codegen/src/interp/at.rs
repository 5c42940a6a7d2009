//! `table[index].field` in the interpreter: the field is compiled once with a placeholder
//! record index, and each evaluation reads the record at the index it computes (no record
//! there, or an index that overflowed: the value is missing and the check fails). A key
//! (`table[field == value]`) is found by walking the records from the first (`CE::Find`);
//! in a `for_each` over a stream that holds another (`within:`), that stream's record by
//! its key among the current record's (`CE::SubFind`, walked in `stream.rs`).

use super::compile::Comp;
use super::ir::*;
use crate::check::{Resolved, Scope};
use crate::expr::Expr;

/// The placeholder record index: [`crate::check::index::COMPUTED`], which the checker reserves.
const COMPUTED: u64 = crate::check::index::COMPUTED;

impl Comp<'_> {
    /// Compile `table[index].field`.
    pub(super) fn at(&self, table: &str, index: &Expr, field: &[String], scope: Scope<'_>) -> CE {
        // A record of a stream, walked for: among the current record's (a stream within
        // it), or in the whole stream at file level; its key and field read in its own
        // header's scope.
        if let Some(sub) = crate::check::index::walked(self.c, table, scope) {
            let file = &self.c.schema.file;
            let Some(si) = file.streams.iter().position(|s| s.name.text == table) else {
                return CE::Zero;
            };
            let part = crate::check::index::sub_stream(self.c, table, scope).is_some();
            let (which, key) = match index {
                Expr::Key(key, value) => (
                    self.expr(value, scope),
                    Some(Box::new(self.leaf(key, Scope::Record(sub)))),
                ),
                _ => (self.expr(index, scope), None),
            };
            return CE::SubFind {
                stream: si,
                part,
                which: Box::new(which),
                key,
                field: Box::new(self.leaf(field, Scope::Record(sub))),
            };
        }
        let Ok(r) = crate::check::index::resolve(self.c, table, field, scope) else {
            return CE::Zero;
        };
        let field = self.element(table, field, r, scope);
        let index = match index {
            // `table[key == value]`: the first record whose key is the value.
            Expr::Key(key, value) => {
                match crate::check::index::resolve(self.c, table, key, scope) {
                    Ok(r) => CE::Find(
                        Box::new(self.expr(value, scope)),
                        Box::new(self.element(table, key, r, scope)),
                    ),
                    Err(_) => CE::Zero,
                }
            }
            _ => self.expr(index, scope),
        };
        CE::At(Box::new(index), Box::new(field))
    }

    /// A field of the table's record, read with the placeholder index.
    fn element(&self, table: &str, field: &[String], r: Resolved, scope: Scope<'_>) -> CE {
        match r {
            Resolved::Field(..) | Resolved::Composed(..) | Resolved::BitField(..) => {
                let mut p = vec![table.to_string(), COMPUTED.to_string()];
                p.extend(field.iter().cloned());
                self.leaf(&p, scope)
            }
            _ => CE::Zero,
        }
    }
}

impl FRef {
    fn at_index(self, k: u64) -> FRef {
        match self.own {
            Own::Element(t, COMPUTED) => FRef {
                own: Own::Element(t, k),
                ..self
            },
            _ => self,
        }
    }
}

impl CE {
    /// The compiled field of a `table[..]`, reading record `k`.
    pub(super) fn at_index(&self, k: u64) -> CE {
        match self {
            CE::Field(f) => CE::Field(f.at_index(k)),
            CE::Composed(l, h) => CE::Composed(l.at_index(k), h.at_index(k)),
            CE::BitRange(f, lo, mask) => CE::BitRange(f.at_index(k), *lo, *mask),
            other => other.clone(),
        }
    }
}
