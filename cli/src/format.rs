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
    /// The generated validator's result over what was read. When only the head was read,
    /// the head decides it (`unknown-format`, `bad-magic`: every format checks its magic
    /// before anything past its header), so the result is the whole file's.
    pub fn validate(&self) -> Result<(), Error> {
        validate_as(self.format, self.input.bytes())
    }

    /// `check`'s verdict ([`verdict`]) over what was read (the head decides as above).
    pub fn verdict(&self) -> Result<(), Refusal> {
        verdict(self.format, self.input.bytes())
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
/// whole file when its magic is NPU1 (at most the input limit) and the firmware loader
/// would take it ([`npu1_loadable`]). Otherwise the refusal, as
/// `(exit status, message)`: a VPMN file is named as one; anything else gets NPU1's own
/// verdict on its head (`bad-magic`, `truncated-header`), as `check --format npu1` gives.
///
/// # Errors
///
/// `(2, code, message)` for an I/O error or a file over the input limit, `(1, code,
/// message)` for a file that is not NPU1 (`code` is the failing check's, or
/// `wrong-format` for a VPMN file).
pub fn load_npu1(path: &Path, cmd: &str) -> Result<Vec<u8>, (u8, &'static str, String)> {
    let name = crate::io::line_path(path);
    let loaded = load(path, Some(Format::Npu1), crate::io::max_input_bytes())
        .map_err(|e| (2, e.code(), format!("npuschema {cmd}: {name}: {e}")))?;
    match loaded.input {
        Input::Whole(b) if detect(&b) == Some(Format::Npu1) => match npu1_loadable(&b) {
            Ok(_) => Ok(b),
            Err(e) => Err((1, e.code, format!("npuschema {cmd}: {name}: {e}"))),
        },
        input => {
            if detect(input.bytes()) == Some(Format::Vpmn) {
                return Err((
                    1,
                    "wrong-format",
                    format!(
                        "npuschema {cmd}: {name}: this is a VPMN file; {cmd} takes NPU1 (.npub) files (check, inspect and explain read VPMN)"
                    ),
                ));
            }
            let e = Npu1::validate(input.bytes())
                .err()
                .unwrap_or_else(|| unknown_format(input.bytes()));
            Err((1, e.code, format!("npuschema {cmd}: {name}: {e}")))
        }
    }
}

/// Why a file is refused, by which check: the error the JSON of `check` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The stable code (`bad-magic`, `misaligned-baked-region`, `stop-before-end`, ...).
    pub code: &'static str,
    /// The field concerned (`regions[1].data_offset`, `cmd_stream`, ...).
    pub field: String,
    /// Its byte offset in the file.
    pub offset: u64,
    /// The whole message.
    pub message: String,
    /// Which check refused it: `validator` (the generated code of the schema), `binder`
    /// (the firmware loader's placement rules), `host` (this tool's rules for a loadable
    /// model) or `stream-checker` (the static command-stream checker). VPMN byte ownership
    /// is the validator's (the schema's `owned_apart` step).
    pub stage: &'static str,
}

impl Refusal {
    /// A validator or binder error.
    pub fn of(e: &Error, stage: &'static str) -> Self {
        Self {
            code: e.code,
            field: e.field.to_string(),
            offset: e.offset,
            message: e.to_string(),
            stage,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The accelerator values of real Ethos-U55 configurations (MACs per cycle), and 0 for
/// unspecified. The schema keeps `accel` an open enum (an unknown value is read and
/// reported, not an error in the generated validator); a loadable model must hold one of
/// these, or the driver refuses it at run time (`config-mismatch`).
pub const REAL_ACCELS: [u32; 5] = [0, 32, 64, 128, 256];

/// What the firmware loader accepts: the generated validator, then the binder's placement
/// rules that do not depend on the arena (at most 8 regions, the command stream and every
/// baked region 16-byte aligned, for a blob at a 16-byte aligned address), then an
/// accelerator value that is a real configuration ([`REAL_ACCELS`]). `disasm`, `verify`,
/// `run` and `check` all start here.
///
/// # Errors
///
/// The first check that fails.
pub fn npu1_loadable(bytes: &[u8]) -> Result<Npu1<'_>, Refusal> {
    use npuschema_runtime::binder::{Job, RegionSource, RegionSpec};
    let v = Npu1::validate(bytes).map_err(|e| Refusal::of(&e, "validator"))?;
    // Runtime regions as zero bytes (below): they take no arena, so only the placement
    // rules run.
    // The binder's placement rules on a copy of the blob at a 16-byte aligned address (as
    // the format requires a firmware image to place it), with the identity map: an
    // address is then aligned exactly when the blob offset is. A misaligned address is
    // reported as its offset in the blob ([`from_blob_start`]): the copy's address means
    // nothing to the user and changes from run to run. A buffer that already sits at such
    // an address (the allocator's usual alignment) is used as it is: no second copy of the
    // input.
    let mut placed = Vec::new();
    let cv = if bytes.as_ptr().addr() & 15 == 0 {
        v
    } else {
        placed.resize(bytes.len().saturating_add(15), 0u8);
        let skew = 0usize.wrapping_sub(placed.as_ptr().addr()) & 15;
        let copy = placed
            .get_mut(skew..skew.saturating_add(bytes.len()))
            .unwrap_or_default();
        copy.copy_from_slice(bytes);
        Npu1::validate(copy).map_err(|e| Refusal::of(&e, "validator"))?
    };
    let specs: Vec<RegionSpec<'_>> = cv
        .regions()
        .map(|r| RegionSpec {
            role: r.role().raw(),
            source: match r.data() {
                Some(d) => RegionSource::Baked(d),
                None => RegionSource::Runtime(0),
            },
        })
        .collect();
    Job::bind_parts(
        cv.cmd_stream(),
        cv.header().accel().raw(),
        specs,
        &mut [],
        &npuschema_runtime::binder::Identity,
    )
    .map_err(|e| Refusal::of(&from_blob_start(e, cv.as_bytes()), "binder"))?;
    let accel = v.header().accel().raw();
    if !REAL_ACCELS.contains(&accel) {
        let e = Error::new(
            "unsupported-accel",
            npuschema_core::Field::plain("header.accel"),
            24,
            npuschema_core::Detail::UnknownValue {
                value: u64::from(accel),
            },
        );
        let mut r = Refusal::of(&e, "host");
        r.message = format!(
            "{e}: not an Ethos-U55 configuration (0 unspecified, 32, 64, 128, 256 MACs/cycle); the driver would refuse it (config-mismatch)"
        );
        return Err(r);
    }
    Ok(v)
}

/// A binder error about an address in `blob` (bound with the identity map), with that
/// address given as its offset from the blob's start: `npu address 0x5651fac4943c % 0x10 =
/// 0xc` becomes `blob offset 0x21c % 0x10 = 0xc`. Other errors are returned as they are.
fn from_blob_start(mut e: Error, blob: &[u8]) -> Error {
    /// The binder's misalignment detail, rebased.
    const BLOB_OFFSET: [&str; 3] = ["blob offset", "% 0x10 =", ""];
    if let npuschema_core::Detail::Compare {
        lhs: Some(address),
        names,
        ..
    } = &mut e.detail
        && **names == npuschema_runtime::binder::MISALIGNED_NAMES
        && let Some(offset) = address.checked_sub(blob.as_ptr().addr() as u64)
        && offset < blob.len() as u64
    {
        *address = offset;
        *names = &BLOB_OFFSET;
    }
    e
}

/// `check`'s verdict on an NPU1 file: [`npu1_loadable`], then the static command-stream
/// checker (`verify`) over its regions, whose first finding or decode error refuses it.
/// So a file `check` accepts is one `disasm`, `verify`, `inspect` and `run --sim` accept
/// and the firmware loader binds.
///
/// # Errors
///
/// The first check that fails.
pub fn npu1_verdict(bytes: &[u8]) -> Result<(), Refusal> {
    let v = npu1_loadable(bytes)?;
    let sizes: Vec<u64> = v.regions().map(|r| u64::from(r.size())).collect();
    let base = u64::from(v.header().cmd_offset());
    let mut first = None;
    let checked = npuschema_runtime::cmd::check(v.cmd_stream(), &sizes, &mut |f| {
        first.get_or_insert(f);
    });
    let at = |off: u32| base.saturating_add(u64::from(off));
    match (checked, first) {
        (Err(e), _) => Err(Refusal {
            code: e.code,
            field: "cmd_stream".into(),
            offset: at(e.offset),
            message: format!("{}: cmd_stream (stream byte {:#x}): {e}", e.code, e.offset),
            stage: "stream-checker",
        }),
        (Ok(_), Some(f)) => Err(Refusal {
            code: f.code.as_str(),
            field: "cmd_stream".into(),
            offset: at(f.offset),
            message: format!("{f} (stream at {base:#x})"),
            stage: "stream-checker",
        }),
        (Ok(_), None) => Ok(()),
    }
}

/// `check`'s verdict on a VPMN file: the generated validator, which also checks the field
/// map's byte ownership (no two sections, tables or headers share a byte: the schema's
/// `ownership` and its `owned_apart` step), so firmware and `check` agree.
///
/// # Errors
///
/// The first check that fails.
pub fn vpmn_verdict(bytes: &[u8]) -> Result<(), Refusal> {
    match npuschema_generated::vpmn::Vpmn::validate(bytes) {
        Ok(_) => Ok(()),
        Err(e) => Err(Refusal::of(&e, "validator")),
    }
}

/// `check`'s verdict: as `format` ([`npu1_verdict`], [`vpmn_verdict`]), `unknown-format`
/// for none.
///
/// # Errors
///
/// The first check that fails.
pub fn verdict(format: Option<Format>, bytes: &[u8]) -> Result<(), Refusal> {
    match format {
        Some(Format::Npu1) => npu1_verdict(bytes),
        Some(Format::Vpmn) => vpmn_verdict(bytes),
        None => Err(Refusal::of(&unknown_format(bytes), "validator")),
    }
}
