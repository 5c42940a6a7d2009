//! The lowering phase's driver: its diagnostics for a checked schema, after every check of
//! the check phase has run (so a place they diagnosed is not said twice).

use crate::check::Checked;
use crate::diag::Diags;

/// What the writer cannot write (`writer.rs`) and the names its spec types would give two
/// members (`names.rs`), for the file and each variant.
pub(crate) fn check(c: &Checked, d: &mut Diags) {
    for x in std::iter::once(c).chain(&c.variants) {
        crate::lower::writer::check(x, d);
        crate::lower::names::check(x, d);
    }
}
