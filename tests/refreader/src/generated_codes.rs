//! The differential's vocabulary: for each rule this crate's readers report
//! ([`RefError::rule`](crate::RefError::rule)), the error codes of the generated validators
//! (`npuschema_generated::{npu1, vpmn}`) that stand for the same failure. The differential
//! tests and the fuzz targets hold the two verdicts against each other with it.
//!
//! It is a table of names only: the readers never use it, and it uses nothing generated.
//! A rule with no counterpart (such as `"read"`) maps to the empty slice.

/// The generated NPU1 validator's codes for an [`npu1`](crate::npu1) reader rule.
#[must_use]
pub fn npu1(rule: &str) -> &'static [&'static str] {
    match rule {
        "short" => &["truncated-header"],
        "magic" => &["bad-magic"],
        "version" => &["unsupported-version"],
        "total-bytes" => &["total-bytes-mismatch"],
        "region-table" => &["region-table-out-of-bounds"],
        "cmd-stream" => &["empty-command-stream", "command-stream-out-of-bounds"],
        "checksum" => &["checksum-mismatch"],
        "baked-region" => &["baked-region-out-of-bounds"],
        _ => &[],
    }
}

/// The generated VPMN validator's codes for a [`vpmn`](crate::vpmn) reader rule.
#[must_use]
pub fn vpmn(rule: &str) -> &'static [&'static str] {
    match rule {
        "short" => &["truncated-header"],
        "magic" => &["bad-magic"],
        "version" => &["unsupported-version"],
        "total-size" => &["file-size-mismatch"],
        "sub-header-count" => &["sub-header-count"],
        "sub-header-size" => &["sub-header-size"],
        "sub-header-bounds" => &["sub-header-out-of-bounds"],
        "section-header-size" => &["section-header-size"],
        "directory-bounds" => &["section-table-out-of-bounds"],
        "section-type" => &["unknown-section-type"],
        "section-bounds" => &["section-out-of-bounds"],
        "section-entsize" => &["section-entry-size"],
        "io-dim-count" | "io-dim-zero" => &["bad-io-record"],
        "metadata-count" => &["metadata-count-mismatch"],
        "checksum-target" => &["section-checksum-missing", "section-checksum-duplicate"],
        "checksum-duplicate" => &["section-checksum-duplicate"],
        "section-checksum" => &["section-checksum-mismatch"],
        "file-checksum" => &["file-checksum-mismatch"],
        "dynio-pair" => &["dynaio-unpaired"],
        "dynio-size" | "dynio-entry" => &["dynaio-entry-invalid"],
        "dynio-padding" => &["dynaio-padding-nonzero"],
        _ => &[],
    }
}

/// The generated VPMN validator's codes (its `VpmnV1` layout) for a
/// [`vpmn_v1`](crate::vpmn_v1) reader rule.
#[must_use]
pub fn vpmn_v1(rule: &str) -> &'static [&'static str] {
    match rule {
        "short" | "fixed-short" => &["truncated-header"],
        "magic" => &["bad-magic"],
        "version" => &["unsupported-version"],
        "entry-bounds" => &["section-out-of-bounds"],
        "io-table-size" => &["section-entry-size"],
        "io-dim-count" | "io-dim-zero" => &["bad-io-record"],
        "io-count" => &["metadata-count-mismatch"],
        _ => &[],
    }
}
