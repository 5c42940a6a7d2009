//! The validator's parts: which part of the file each top-level validation step checks, so
//! that the generated validator is cut where the schema's parts meet (`emit/split.rs`), one
//! helper function per part, rather than where a count of lines falls.
//!
//! A part is one of:
//! - **a collection**: a table's or a stream's records (its `for_each`, its `stream_fits`
//!   walk, an order over it);
//! - **the checksums** (`checksum`, `payload_checksum`, `record_checksums`);
//! - **the header**: every other step before the first collection or checksum (the header's
//!   fields, and the places of the parts they locate: `record_fits`, `range_fits`,
//!   `table_fits`);
//! - **the rules**: every other step after them (the places of parts read later, and rules
//!   over the whole file: `count()`, a located record read against a stream, slots,
//!   ownership).
//!
//! The parts follow the schema's order of steps: a part met twice (a table placed with the
//! header and walked later) is two runs. Where one part is longer than a helper may be, it
//! is cut again by lines, within the part.

use crate::schema::ext::ExtStep;
use crate::schema::top::Step;

/// The label of each step of `steps` (a file's top-level `validate` list), in order: a
/// collection's name, `checksums`, `header` or `rules`. Used to name the helpers
/// (`check_<label>`).
pub(crate) fn labels(steps: &[Step]) -> Vec<String> {
    let mut out = Vec::with_capacity(steps.len());
    let mut past_header = false;
    for s in steps {
        let label = if let Some(c) = collection(s) {
            Some(c.to_string())
        } else if is_checksum(s) {
            Some("checksums".to_string())
        } else {
            None
        };
        out.push(match label {
            Some(l) => {
                past_header = true;
                l
            }
            None if past_header => "rules".to_string(),
            None => "header".to_string(),
        });
    }
    out
}

/// The table or stream whose records step `s` goes over.
fn collection(s: &Step) -> Option<&str> {
    match s {
        Step::ForEach { table, .. } => Some(&table.text),
        Step::StreamFits { stream, .. } => Some(&stream.text),
        Step::Order { target, .. } => Some(&target.text),
        Step::When { step, .. } => collection(step),
        _ => None,
    }
}

fn is_checksum(s: &Step) -> bool {
    match s {
        Step::Checksum { .. }
        | Step::Ext(ExtStep::PayloadChecksum { .. } | ExtStep::RecordChecksums { .. }) => true,
        Step::When { step, .. } => is_checksum(step),
        _ => false,
    }
}
