//! The interpreter's record streams (`streams.rs`): the `stream_fits` walk, `for_each`
//! over a stream or a stream's collection, `count()`, and the dynamic view's records.
use super::{CStep, Comp};

pub(super) fn compile_fits(_c: &mut Comp<'_>, _code: &str, _stream: &str) -> Option<CStep> {
    None
}
