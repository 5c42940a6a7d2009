//! Region assignment: which NPU1 region descriptor (= BASEP slot) holds what.
//!
//! | slot | role | kind | size |
//! |---|---|---|---|
//! | 0 | weights | baked | the read-only bytes |
//! | 1 | scratch | runtime | Vela's scratch size |
//! | 2 | scratch | runtime | the fast scratch, when Vela put it in a separate memory |
//! | 2 | other | runtime | 0: a placeholder, when slots 3 and 4 are used but 2 is not |
//! | 3 | input | runtime | separate IO: max(offset + bytes) over the inputs |
//! | 4 | output | runtime | separate IO: max(offset + bytes) over the outputs |
//!
//! Every input and output must lie inside the region it is placed in.

use serde::Serialize;

use super::model::{PackError, VelaModel};

/// What a region is for (mirrors NPU1's informational role field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanRole {
    /// Read-only data.
    Weights,
    /// Scratch arena or fast scratch.
    Scratch,
    /// Model inputs.
    Input,
    /// Model outputs.
    Output,
    /// Anything else (an unused placeholder slot).
    Other,
}

/// One region of the blob to be written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlannedRegion {
    /// Its BASEP slot (= index in the region table).
    pub slot: u32,
    /// Its role.
    pub role: PlanRole,
    /// True when the bytes are stored in the blob (the read-only data).
    pub baked: bool,
    /// Size in bytes.
    pub size: u32,
    /// What it holds, for reports.
    pub what: &'static str,
}

fn size32(size: u64, slot: u32, what: &str) -> Result<u32, PackError> {
    u32::try_from(size).map_err(|_| {
        PackError::new(
            "region-too-large",
            format!("region {slot} ({what})"),
            None,
            format!("{size} bytes; NPU1 sizes are 32-bit"),
        )
    })
}

/// The region table for `m`, after checking every input and output fits its region.
pub fn plan(m: &VelaModel) -> Result<Vec<PlannedRegion>, PackError> {
    let mut regions = vec![
        PlannedRegion {
            slot: 0,
            role: PlanRole::Weights,
            baked: true,
            size: size32(m.readonly.len() as u64, 0, "read-only data")?,
            what: "read-only data (weights, scales, constants)",
        },
        PlannedRegion {
            slot: 1,
            role: PlanRole::Scratch,
            baked: false,
            size: size32(m.scratch_size, 1, "scratch")?,
            what: "scratch arena",
        },
    ];
    if let Some(fast) = m.fast_scratch_size {
        regions.push(PlannedRegion {
            slot: 2,
            role: PlanRole::Scratch,
            baked: false,
            size: size32(fast, 2, "fast scratch")?,
            what: "fast scratch",
        });
    }
    if m.separate_io {
        if m.fast_scratch_size.is_none() {
            regions.push(PlannedRegion {
                slot: 2,
                role: PlanRole::Other,
                baked: false,
                size: 0,
                what: "unused (no separate fast scratch)",
            });
        }
        let extent =
            |list: &[super::model::TensorPlacement], what: &str| -> Result<u64, PackError> {
                list.iter().try_fold(0u64, |acc, t| {
                    t.end().map(|e| acc.max(e)).ok_or_else(|| {
                        PackError::new(
                            "tensor-too-large",
                            format!("{what} {}", t.name),
                            None,
                            "offset + size overflows 64 bits",
                        )
                    })
                })
            };
        regions.push(PlannedRegion {
            slot: 3,
            role: PlanRole::Input,
            baked: false,
            size: size32(extent(&m.inputs, "input")?, 3, "inputs")?,
            what: "model inputs",
        });
        regions.push(PlannedRegion {
            slot: 4,
            role: PlanRole::Output,
            baked: false,
            size: size32(extent(&m.outputs, "output")?, 4, "outputs")?,
            what: "model outputs",
        });
    }

    for (kind, list) in [("input", &m.inputs), ("output", &m.outputs)] {
        for t in list {
            let region = usize::try_from(t.region).ok().and_then(|r| regions.get(r));
            let Some(region) = region else {
                return Err(PackError::new(
                    "io-tensor-in-missing-region",
                    format!("{kind} {}", t.name),
                    None,
                    format!(
                        "placed in region {}, but the blob has {} regions",
                        t.region,
                        regions.len()
                    ),
                ));
            };
            match t.end() {
                Some(end) if end <= u64::from(region.size) => {}
                end => {
                    return Err(PackError::new(
                        "io-tensor-outside-region",
                        format!("{kind} {}", t.name),
                        None,
                        format!(
                            "offset {:#x} + {} bytes = {} > region {} size {:#x}",
                            t.offset,
                            t.bytes().map_or("overflow".to_string(), |b| b.to_string()),
                            end.map_or("overflow".to_string(), |e| format!("{e:#x}")),
                            t.region,
                            region.size
                        ),
                    ));
                }
            }
        }
    }
    Ok(regions)
}
