//! Writing the NPU1 blob and proving it: the generated writer lays it out, the generated
//! validator re-reads it, and the runtime's static checker runs the command stream against
//! the region sizes the blob declares.

use std::fs;
use std::path::Path;
use std::str::FromStr;

use npuschema_generated::npu1::{
    Accel, DType, Direction, HEADER_BYTES, Npu1, Npu1Writer, RegionData, RegionSpec, Role, Set,
    TensorFlags, TensorSpec, VERSION_V1, VERSION_V2,
};
use npuschema_runtime::cmd::check;

use super::layout::{PlanRole, PlannedRegion, plan};
use super::model::{PackError, TensorPlacement, TensorType, VelaModel};
use super::report::{CheckReport, PackReport, RegionReport};

/// `--accel`: take the configuration from the payload's CONFIG word, or insist on one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccelChoice {
    /// MACs per cycle = `1 << CONFIG.macs_per_cc`.
    Auto,
    /// 32, 64, 128 or 256; must agree with CONFIG.
    Macs(u32),
}

impl FromStr for AccelChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Self::Auto),
            "32" | "64" | "128" | "256" => s.parse().map(Self::Macs).map_err(|e| format!("{e}")),
            other => Err(format!("{other:?}: expected auto, 32, 64, 128 or 256")),
        }
    }
}

fn accel_from_macs(macs: u64) -> Option<Accel> {
    match macs {
        32 => Some(Accel::Macs32),
        64 => Some(Accel::Macs64),
        128 => Some(Accel::Macs128),
        256 => Some(Accel::Macs256),
        _ => None,
    }
}

/// The accelerator word for the blob: from CONFIG, checked against `--accel`.
fn choose_accel(m: &VelaModel, choice: AccelChoice) -> Result<Accel, PackError> {
    let field = format!("{} CONFIG word", m.cop.format.name());
    if m.cop.product() != 0 {
        return Err(PackError::new(
            "not-ethos-u55",
            field,
            None,
            format!(
                "CONFIG {:#010x} names product {} (0 = Ethos-U55, 1 = Ethos-U65): the stream is not for this NPU",
                m.cop.config,
                m.cop.product()
            ),
        ));
    }
    let macs = m.cop.macs();
    let from_config = accel_from_macs(macs).ok_or_else(|| {
        PackError::new(
            "unsupported-accel",
            field.clone(),
            None,
            format!(
                "CONFIG {:#010x}: macs_per_cc {} = {macs} MACs/cycle, not an Ethos-U55 configuration (32..256)",
                m.cop.config,
                m.cop.macs_per_cc_log2()
            ),
        )
    })?;
    match choice {
        AccelChoice::Auto => Ok(from_config),
        AccelChoice::Macs(n) if u64::from(n) == macs => Ok(from_config),
        AccelChoice::Macs(n) => Err(PackError::new(
            "accel-mismatch",
            field,
            None,
            format!(
                "--accel {n}, but the stream was compiled for {macs} MACs/cycle (CONFIG {:#010x}); recompile with vela --accelerator-config ethos-u55-{n}",
                m.cop.config
            ),
        )),
    }
}

/// `--format-version`: which NPU1 layout `pack` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FormatVersion {
    /// Version 1: header, regions, stream, baked data (byte for byte what `pack` wrote
    /// before version 2 existed).
    V1,
    /// Version 2 (the default): version 1 plus the compiled-for words and the I/O tensor
    /// table.
    #[default]
    V2,
}

impl FromStr for FormatVersion {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "1" => Ok(Self::V1),
            "2" => Ok(Self::V2),
            other => Err(format!("{other:?}: expected 1 or 2")),
        }
    }
}

/// One tensor of the I/O table, owned until the writer borrows it.
struct IoTensor {
    direction: Direction,
    index: u32,
    name: String,
    region: u32,
    offset: u32,
    size: u32,
    dtype: DType,
    dims: [u32; 4],
    rank: u32,
    quant: Option<(f32, i32)>,
}

/// The I/O tensor table of a version 2 blob: each of the model's inputs and outputs, sorted
/// by name (the format's rule: names unique, in order).
fn io_table(m: &VelaModel) -> Result<Vec<IoTensor>, PackError> {
    let mut out = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (direction, list) in [
        (Direction::Input, &m.inputs),
        (Direction::Output, &m.outputs),
    ] {
        for (i, t) in list.iter().enumerate() {
            let what = || {
                format!(
                    "{} {i} ({})",
                    if direction == Direction::Input {
                        "input"
                    } else {
                        "output"
                    },
                    t.name
                )
            };
            out.push(io_tensor(direction, i, t, &what)?);
            names.push(&t.name);
        }
    }
    out.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    if let Some(w) = out.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(PackError::new(
            "duplicate-tensor-name",
            w[0].name.clone(),
            None,
            "two of the model's inputs and outputs have this name; NPU1 version 2 finds tensors by name (pack --format-version 1 writes no tensor table)".to_string(),
        ));
    }
    Ok(out)
}

fn io_tensor(
    direction: Direction,
    i: usize,
    t: &TensorPlacement,
    what: &dyn Fn() -> String,
) -> Result<IoTensor, PackError> {
    let bad = |code: &'static str, detail: String| PackError::new(code, what(), None, detail);
    let dtype = match t.dtype {
        Some(TensorType::Int8) => DType::Int8,
        Some(TensorType::Uint8) => DType::Uint8,
        Some(TensorType::Int16) => DType::Int16,
        Some(TensorType::Int32) => DType::Int32,
        None => {
            return Err(bad(
                "unsupported-tensor-type",
                format!(
                    "{} bytes per element, not int8, uint8, int16 or int32: NPU1 version 2 cannot describe it (--format-version 1 writes no tensor table)",
                    t.elem_size
                ),
            ));
        }
    };
    // Vela's npz pads shapes to 6 dimensions with leading 1s: drop those first.
    let mut shape: &[u64] = &t.shape;
    while shape.len() > 4 && shape.first() == Some(&1) {
        shape = shape.get(1..).unwrap_or_default();
    }
    if shape.len() > 4 {
        return Err(bad(
            "tensor-rank-over-4",
            format!("shape {:?} has more than 4 dimensions", t.shape),
        ));
    }
    let mut dims = [1u32; 4];
    for (d, &v) in dims.iter_mut().zip(shape) {
        *d = u32::try_from(v)
            .map_err(|_| bad("tensor-too-large", format!("dimension {v} is over 32 bits")))?;
    }
    let size = t
        .bytes()
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| bad("tensor-too-large", "byte size over 32 bits".to_string()))?;
    let offset = u32::try_from(t.offset).map_err(|_| {
        bad(
            "tensor-too-large",
            format!("offset {} is over 32 bits", t.offset),
        )
    })?;
    let quant = match &t.quantization {
        Some(q) if q.scale.len() == 1 && q.zero_point.len() == 1 => {
            let zp = q.zero_point.first().copied().unwrap_or(0);
            let zp = i32::try_from(zp).map_err(|_| {
                bad(
                    "bad-quantization",
                    format!("zero point {zp} is over 32 bits"),
                )
            })?;
            q.scale.first().map(|&s| (s, zp))
        }
        // Per-channel (or none): the table holds per-tensor quantisation only.
        _ => None,
    };
    Ok(IoTensor {
        direction,
        index: u32::try_from(i).unwrap_or(u32::MAX),
        name: t.name.clone(),
        region: t.region,
        offset,
        size,
        dtype,
        dims,
        rank: u32::try_from(shape.len()).unwrap_or(4),
        quant,
    })
}

fn role(r: PlanRole) -> Role {
    match r {
        PlanRole::Weights => Role::Weights,
        PlanRole::Scratch => Role::Scratch,
        PlanRole::Input => Role::Input,
        PlanRole::Output => Role::Output,
        PlanRole::Other => Role::Other,
    }
}

/// A packed model: the blob and what was proved about it.
#[derive(Clone, Debug)]
pub struct Packed {
    /// The NPU1 file.
    pub bytes: Vec<u8>,
    /// Its description (without input and output file names).
    pub report: PackReport,
}

/// Write `m` as an NPU1 version 2 blob, then validate it and check its stream; any failure
/// is an error.
pub fn pack_model(m: &VelaModel, accel: AccelChoice) -> Result<Packed, PackError> {
    pack_model_as(m, accel, FormatVersion::V2)
}

/// What the blob of a model is written from: the accelerator word, the regions and the
/// tensor table.
struct Plan {
    accel: Accel,
    version: FormatVersion,
    regions: Vec<PlannedRegion>,
    io: Vec<IoTensor>,
}

fn prepare(m: &VelaModel, accel: AccelChoice, version: FormatVersion) -> Result<Plan, PackError> {
    let accel = choose_accel(m, accel)?;
    let regions = plan(m)?;
    let io = match version {
        FormatVersion::V1 => Vec::new(),
        FormatVersion::V2 => io_table(m)?,
    };
    Ok(Plan {
        accel,
        version,
        regions,
        io,
    })
}

/// `f` of the generated writer of `m` as `p` plans it, with `baked` as the bytes of the
/// read-only region.
fn with_writer<T>(
    m: &VelaModel,
    p: &Plan,
    baked: &[u8],
    f: impl FnOnce(&Npu1Writer<'_, Set>) -> T,
) -> T {
    let specs: Vec<RegionSpec<'_>> = p
        .regions
        .iter()
        .map(|r| RegionSpec {
            role: role(r.role),
            data: if r.baked {
                RegionData::Baked(baked)
            } else {
                RegionData::Runtime(r.size)
            },
        })
        .collect();
    let io_specs: Vec<TensorSpec<'_>> =
        p.io.iter()
            .map(|t| TensorSpec {
                direction: t.direction,
                io_index: t.index,
                region: t.region,
                offset: t.offset,
                size: t.size,
                dtype: t.dtype,
                rank: t.rank,
                dim0: t.dims[0],
                dim1: t.dims[1],
                dim2: t.dims[2],
                dim3: t.dims[3],
                flags: if t.quant.is_some() {
                    TensorFlags::QUANTIZED
                } else {
                    TensorFlags::empty()
                },
                scale: t.quant.map_or(0.0, |q| q.0),
                zero_point: t.quant.map_or(0, |q| q.1),
                name: &t.name,
            })
            .collect();
    let writer = Npu1Writer::new().accel(p.accel).regions(&specs);
    let writer = match p.version {
        FormatVersion::V1 => writer.version(VERSION_V1),
        FormatVersion::V2 => writer
            .version(VERSION_V2)
            .ext_npu_config(m.cop.config)
            .ext_npu_id(m.cop.id)
            .io(&io_specs),
    };
    f(&writer.cmd_stream(&m.cmd_stream))
}

fn write_failed(e: npuschema_core::WriteError) -> PackError {
    PackError::new("npu1-write-failed", "NPU1 writer", None, e.to_string())
}

/// [`pack_model`] in the given NPU1 version.
pub fn pack_model_as(
    m: &VelaModel,
    accel: AccelChoice,
    version: FormatVersion,
) -> Result<Packed, PackError> {
    let p = prepare(m, accel, version)?;
    let bytes = with_writer(m, &p, &m.readonly, |w| w.to_vec()).map_err(write_failed)?;
    let report = prove(&bytes, m, &p.regions, &|d| d == m.readonly.as_slice())?;
    Ok(Packed { bytes, report })
}

/// Validate `bytes` with the generated validator, compare it with what was meant to be
/// written (`readonly_ok` says whether the baked region holds the model's read-only data),
/// and run the static command-stream checker against its region sizes.
fn prove(
    bytes: &[u8],
    m: &VelaModel,
    regions: &[PlannedRegion],
    readonly_ok: &dyn Fn(&[u8]) -> bool,
) -> Result<PackReport, PackError> {
    let blob = Npu1::validate(bytes).map_err(|e| {
        PackError::at(
            e.code,
            format!("written blob: {}", e.field),
            e.offset,
            e.detail.to_string(),
        )
    })?;
    let mismatch = |what: &str| {
        PackError::new(
            "npu1-roundtrip-mismatch",
            "written blob",
            None,
            what.to_string(),
        )
    };
    if blob.cmd_stream() != m.cmd_stream.as_slice() {
        return Err(mismatch("the stored command stream differs from Vela's"));
    }
    if blob.regions().len() != regions.len() {
        return Err(mismatch("region count differs from the plan"));
    }
    let mut region_reports = Vec::new();
    for (r, p) in blob.regions().zip(regions) {
        let data = r.data();
        let baked_ok = if p.baked {
            data.is_some_and(readonly_ok)
        } else {
            data.is_none()
        };
        if r.size() != p.size || r.role() != role(p.role) || !baked_ok {
            return Err(mismatch(&format!(
                "region {} differs from the plan",
                r.index()
            )));
        }
        region_reports.push(RegionReport {
            slot: r.index(),
            role: p.role,
            baked: p.baked,
            size: r.size(),
            data_offset: p.baked.then(|| r.data_offset()),
            what: p.what,
        });
    }

    // The tensor table (version 2): every input and output, where the model says.
    let expected_io = if blob.header().version() == VERSION_V1 {
        0
    } else {
        m.inputs.len() + m.outputs.len()
    };
    if blob.io().len() != expected_io {
        return Err(mismatch(
            "the tensor table's length differs from the model's inputs and outputs",
        ));
    }
    for t in blob.io() {
        let list = if t.direction() == Direction::Input {
            &m.inputs
        } else {
            &m.outputs
        };
        let meant = usize::try_from(t.io_index()).ok().and_then(|i| list.get(i));
        let same = meant.is_some_and(|p| {
            blob.name(&t) == p.name.as_bytes()
                && t.region() == p.region
                && u64::from(t.offset()) == p.offset
                && Some(u64::from(t.size())) == p.bytes()
        });
        if !same {
            return Err(mismatch(&format!(
                "tensor {} differs from the model",
                t.index()
            )));
        }
    }

    let sizes: Vec<u64> = blob.regions().map(|r| u64::from(r.size())).collect();
    let mut findings = Vec::new();
    let summary = check(blob.cmd_stream(), &sizes, &mut |f| {
        findings.push(f.to_string())
    })
    .map_err(|e| {
        PackError::at(
            e.code,
            "command stream (static check)",
            u64::from(e.offset),
            e.to_string(),
        )
    })?;
    if !findings.is_empty() {
        let shown: Vec<&str> = findings.iter().take(8).map(String::as_str).collect();
        return Err(PackError::new(
            "cmd-check-failed",
            "command stream (static check against the region sizes)",
            None,
            format!(
                "{} finding(s): {}{}",
                findings.len(),
                shown.join("; "),
                if findings.len() > shown.len() {
                    "; ..."
                } else {
                    ""
                }
            ),
        ));
    }
    let h = blob.header();
    Ok(PackReport {
        input: String::new(),
        output: String::new(),
        source: m.source,
        cop: m.cop.clone(),
        format_version: h.version(),
        npu_config: blob.ext().npu_config(),
        npu_id: blob.ext().npu_id(),
        accel_macs: h.accel().raw(),
        blob_bytes: h.total_bytes(),
        checksum: h.checksum(),
        cmd_offset: h.cmd_offset(),
        cmd_bytes: h.cmd_bytes(),
        separate_io: m.separate_io,
        regions: region_reports,
        inputs: m.inputs.clone(),
        outputs: m.outputs.clone(),
        check: CheckReport {
            commands: summary.commands,
            operations: summary.operations,
            findings: summary.findings,
            extents: summary.touched().map(|(r, e)| (u32::from(r), e)).collect(),
        },
        notes: m.notes.clone(),
    })
}

/// Whether the file at `path` holds exactly `bytes`, read back 1 MiB at a time.
fn same_on_disk(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Read;
    let mut f = fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0usize;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        let end = at.saturating_add(n);
        if bytes.get(at..end) != buf.get(..n) {
            return Err(std::io::Error::other(format!(
                "the bytes read back differ from those written, at or after byte {at}"
            )));
        }
        at = end;
    }
    if at != bytes.len() {
        return Err(std::io::Error::other(format!(
            "{at} bytes read back, {} written",
            bytes.len()
        )));
    }
    Ok(())
}

/// Where the header keeps its checksum (npu1.yaml: `header.checksum`, at byte 28).
const CHECKSUM_AT: usize = 28;

/// `npuschema pack`: read `input`, write `output`, through a uniquely named temporary file
/// created next to `output` ([`crate::io::AtomicOutput`]) and renamed only when the blob
/// written there validates and its stream checks; on any failure nothing is left behind and
/// `output` is untouched. Writing over `input` is refused (`output-is-input`).
///
/// Memory: one copy of the read-only data (the largest part by far: the weights) plus the
/// rest of the blob. The read-only bytes go to their place in the temporary file first and
/// are dropped; the generated writer then lays out the blob with a stand-in of zeros that
/// is never written (the kernel backs it with its shared zero page, so it is not resident);
/// the bytes are read back from the file into their place in the blob, the header's
/// checksum is computed over the result, and the blob is proved (the generated validator
/// re-checks that checksum, and the read-only region must have the CRC-32 of the model's
/// data) before its head is written and the whole file is compared with it piece by piece.
pub fn pack_file(input: &Path, output: &Path, accel: AccelChoice) -> Result<PackReport, PackError> {
    pack_file_as(input, output, accel, FormatVersion::V2)
}

/// [`pack_file`] in the given NPU1 version.
pub fn pack_file_as(
    input: &Path,
    output: &Path,
    accel: AccelChoice,
    version: FormatVersion,
) -> Result<PackReport, PackError> {
    let out_err = |e: crate::io::OutputError| {
        PackError::new(e.code, e.path.display().to_string(), None, e.message)
    };
    // Refuse before reading anything, and again when the temporary file is made.
    crate::io::resolve_output(output).map_err(out_err)?;
    if crate::io::same_file(input, output) {
        return Err(PackError::new(
            "output-is-input",
            output.display().to_string(),
            None,
            format!(
                "is the input {}: refusing to write over it",
                input.display()
            ),
        ));
    }
    let mut m = super::load(input)?;
    let p = prepare(&m, accel, version)?;
    let readonly = std::mem::take(&mut m.readonly);
    let n = readonly.len();
    let digest = npuschema_core::crc32(0, &readonly);
    let total = with_writer(&m, &p, &readonly, |w| w.encoded_len()).map_err(write_failed)?;
    // The writer lays the baked bytes out last (pack bakes one region); the proof below
    // fails if they are anywhere else.
    let data_at = total.checked_sub(n).ok_or_else(|| {
        PackError::new(
            "npu1-write-failed",
            "NPU1 writer",
            None,
            format!("{total} bytes in all, fewer than the {n} read-only bytes"),
        )
    })?;
    let mut out = crate::io::AtomicOutput::create(output, &[input]).map_err(out_err)?;
    out.write_all_at(&readonly, data_at as u64)
        .map_err(out_err)?;
    drop(readonly);
    let stand_in = vec![0u8; n];
    let mut blob = with_writer(&m, &p, &stand_in, |w| w.to_vec()).map_err(write_failed)?;
    drop(stand_in);
    let short = |what: &str| {
        PackError::new(
            "npu1-write-failed",
            "NPU1 writer",
            None,
            format!("{what}, {total} bytes planned"),
        )
    };
    if blob.len() != total {
        return Err(short(&format!("{} bytes written", blob.len())));
    }
    let data = blob
        .get_mut(data_at..)
        .ok_or_else(|| short("no read-only bytes"))?;
    out.read_exact_at(data, data_at as u64).map_err(out_err)?;
    let sum = npuschema_core::fnv1a32(
        npuschema_core::FNV1A32_OFFSET_BASIS,
        blob.get(HEADER_BYTES as usize..).unwrap_or_default(),
    );
    blob.get_mut(CHECKSUM_AT..CHECKSUM_AT + 4)
        .ok_or_else(|| short("no header"))?
        .copy_from_slice(&sum.to_le_bytes());
    let mut report = prove(&blob, &m, &p.regions, &|d| {
        d.len() == n && npuschema_core::crc32(0, d) == digest
    })?;
    out.write_all_at(blob.get(..data_at).unwrap_or_default(), 0)
        .map_err(out_err)?;
    // What is on disk is what was proved: read back in pieces and compared with the blob
    // (no second whole copy).
    let tmp = out.temp_path().to_path_buf();
    same_on_disk(&tmp, &blob).map_err(|e| {
        PackError::new(
            "io-error",
            tmp.display().to_string(),
            None,
            format!("cannot read back: {e}"),
        )
    })?;
    out.commit().map_err(out_err)?;
    report.input = input.display().to_string();
    report.output = output.display().to_string();
    Ok(report)
}
