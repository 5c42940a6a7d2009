//! Which container a file is, and validation of any of them. Every subcommand that takes a
//! container file chooses the format here, the same way: a format forced by the caller
//! (`check --format`), else the one the magic names, else the one the extension names
//! (`.npub` NPU1, `.nb`/`.nbg` VPMN, in any case), so that a damaged `.npub` gets NPU1's own
//! error (`bad-magic`, `truncated-header`) rather than `unknown-format`.

use std::path::Path;

use npuschema_core::Error;
use npuschema_generated::npu1::Npu1;

use crate::io::{Input, InputError, read_input};

/// A container format this tool knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// NPU1 `.npub` (magic `NPU1`).
    Npu1,
    /// VPMN `.nb` (magic `VPMN`).
    Vpmn,
}

impl Format {
    /// The name used in JSON (`"npu1"`, `"vpmn"`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Npu1 => "npu1",
            Format::Vpmn => "vpmn",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "npu1" => Ok(Self::Npu1),
            "vpmn" => Ok(Self::Vpmn),
            other => Err(format!("{other:?}: expected npu1 or vpmn")),
        }
    }
}

impl Format {
    /// The name in messages (`NPU1`, `VPMN`).
    pub fn upper(self) -> &'static str {
        match self {
            Format::Npu1 => "NPU1",
            Format::Vpmn => "VPMN",
        }
    }
}

/// The format a file name's extension names (case-insensitive): `.npub` NPU1, `.nb` and
/// `.nbg` VPMN.
pub fn by_extension(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "npub" => Some(Format::Npu1),
        "nb" | "nbg" => Some(Format::Vpmn),
        _ => None,
    }
}

/// The format to validate a file as: `forced`, else its magic's, else its extension's.
pub fn choose(forced: Option<Format>, head: &[u8], path: &Path) -> Option<Format> {
    forced
        .or_else(|| detect(head))
        .or_else(|| by_extension(path))
}

/// Validate `bytes` as `format` (`None`: `unknown-format`).
pub fn validate_as(format: Option<Format>, bytes: &[u8]) -> Result<(), Error> {
    match format {
        Some(Format::Npu1) => Npu1::validate(bytes).map(|_| ()),
        Some(Format::Vpmn) => validate_vpmn(bytes),
        None => Err(unknown_format(bytes)),
    }
}

/// A container file read for validation.
#[derive(Debug)]
pub struct Loaded {
    /// The format chosen ([`choose`]).
    pub format: Option<Format>,
    /// The whole file, or only its head when the head already decides the verdict (no
    /// format, or a magic that is not the chosen format's).
    pub input: Input,
}

impl Loaded {
    /// The verdict: the chosen format's validator over what was read. When only the head
    /// was read, the head decides it (`unknown-format`, `bad-magic`: every format checks
    /// its magic before anything past its header), so the result is the whole file's.
    pub fn validate(&self) -> Result<(), Error> {
        validate_as(self.format, self.input.bytes())
    }

    /// The whole file, if it was read (the chosen format's magic matched).
    pub fn whole(&self) -> Option<&[u8]> {
        match &self.input {
            Input::Whole(b) => Some(b),
            Input::Head(_) => None,
        }
    }
}

/// Read `path` for validation, choosing its format as [`choose`] does: the whole file
/// (at most `limit` bytes) when its magic is the chosen format's, else only its head.
///
/// # Errors
///
/// As [`read_input`].
pub fn load(path: &Path, forced: Option<Format>, limit: u64) -> Result<Loaded, InputError> {
    let mut format = None;
    let input = read_input(path, limit, |head| {
        format = choose(forced, head, path);
        format.is_some() && format == detect(head)
    })?;
    if let Input::Whole(b) = &input {
        format = choose(forced, b, path);
    }
    Ok(Loaded { format, input })
}

/// The format named by the first four bytes, if any.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    match bytes.get(..4) {
        Some(b"NPU1") => Some(Format::Npu1),
        Some(b"VPMN") => Some(Format::Vpmn),
        _ => None,
    }
}

/// The error for a file whose magic names no known format.
pub fn unknown_format(bytes: &[u8]) -> Error {
    let found = bytes
        .iter()
        .take(4)
        .enumerate()
        .fold(0u64, |a, (i, b)| a | (u64::from(*b) << (8 * i)));
    Error::new(
        "unknown-format",
        npuschema_core::Field::plain("magic"),
        0,
        npuschema_core::Detail::Mismatch {
            found,
            expected: u64::from(npuschema_generated::npu1::MAGIC),
        },
    )
}

/// Validate `bytes` as whatever format its magic names.
pub fn validate(bytes: &[u8]) -> (Option<Format>, Result<(), Error>) {
    match detect(bytes) {
        Some(Format::Npu1) => (Some(Format::Npu1), Npu1::validate(bytes).map(|_| ())),
        Some(Format::Vpmn) => (Some(Format::Vpmn), validate_vpmn(bytes)),
        None => (None, Err(unknown_format(bytes))),
    }
}

fn validate_vpmn(bytes: &[u8]) -> Result<(), Error> {
    crate::vpmn_check(bytes)
}

/// Read `path` for a command that takes NPU1 files only (`disasm`, `verify`, `run`): the
/// whole file when its magic is NPU1, at most the input limit. Otherwise the refusal, as
/// `(exit status, message)`: a VPMN file is named as one; anything else gets NPU1's own
/// verdict on its head (`bad-magic`, `truncated-header`), as `check --format npu1` gives.
///
/// # Errors
///
/// `(2, message)` for an I/O error or a file over the input limit, `(1, message)` for a
/// file that is not NPU1.
pub fn load_npu1(path: &Path, cmd: &str) -> Result<Vec<u8>, (u8, String)> {
    let name = path.display();
    let loaded = load(path, Some(Format::Npu1), crate::io::max_input_bytes())
        .map_err(|e| (2, format!("npuschema {cmd}: {name}: {e}")))?;
    match loaded.input {
        Input::Whole(b) if detect(&b) == Some(Format::Npu1) => Ok(b),
        input => {
            if detect(input.bytes()) == Some(Format::Vpmn) {
                return Err((
                    1,
                    format!(
                        "npuschema {cmd}: {name}: this is a VPMN file; {cmd} takes NPU1 (.npub) files (check, inspect and explain read VPMN)"
                    ),
                ));
            }
            let e = Npu1::validate(input.bytes())
                .err()
                .unwrap_or_else(|| unknown_format(input.bytes()));
            Err((1, format!("npuschema {cmd}: {name}: {e}")))
        }
    }
}
