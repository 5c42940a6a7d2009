//! NPU1 version 2 from real Vela output: `pack` writes every shared model's compilation (every
//! configuration and output format in `vela-out/`) as version 2, and the tensor table that
//! `inspect --json` lists under `io` holds what the model and Vela say: names, shapes, types
//! and quantisation from the original `.tflite` (read by Vela's own flatbuffer bindings), and
//! for a `.npz` its regions and offsets from its arrays (read by numpy); the compiled-for
//! words are the payload's CONFIG and ID. `pack --format-version 1` writes what version 1
//! wrote. Skips, saying so, without `vela-out/` or the Vela venv.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use npuschema_cli::pack::{AccelChoice, FormatVersion, load, pack_model_as};
use npuschema_generated::npu1::Npu1;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn corpus() -> PathBuf {
    std::env::var_os("NPUSCHEMA_CORPUS").map_or_else(|| repo().join("../shared"), PathBuf::from)
}

/// What the model and Vela say of the tensors: Python over Vela's venv.
const ORACLE: &str = r#"
import json, sys
import numpy as np
from ethosu.vela.tflite.Model import Model
model, npz = sys.argv[1], sys.argv[2]
m = Model.GetRootAsModel(open(model, 'rb').read(), 0)
sg = m.Subgraphs(0)
out = {}
for kind, idxs in (("input", sg.InputsAsNumpy()), ("output", sg.OutputsAsNumpy())):
    ts = []
    for i in idxs:
        t = sg.Tensors(int(i))
        q = t.Quantization()
        sc = [float(x) for x in q.ScaleAsNumpy()] if q is not None and q.ScaleLength() else []
        zp = [int(x) for x in q.ZeroPointAsNumpy()] if q is not None and q.ZeroPointLength() else []
        ts.append({"name": t.Name().decode(), "shape": [int(d) for d in t.ShapeAsNumpy()],
                   "type": int(t.Type()), "scale": sc, "zero_point": zp})
    out[kind] = ts
if npz != "-":
    z = np.load(npz, allow_pickle=True)
    for kind in ("input", "output"):
        out[kind + "_npz"] = {"region": [int(x) for x in z[kind + "_region"]],
                              "offset": [int(x) for x in z[kind + "_offset"]]}
print(json.dumps(out))
"#;

fn oracle(py: &Path, model: &Path, npz: Option<&Path>) -> Value {
    let out = Command::new(py)
        .args(["-c", ORACLE])
        .arg(model)
        .arg(npz.map_or_else(|| PathBuf::from("-"), Path::to_path_buf))
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn outputs(dir: &Path, found: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            outputs(&p, found);
        } else if p.to_string_lossy().ends_with("_vela.npz")
            || p.to_string_lossy().ends_with("_vela.tflite")
        {
            found.push(p);
        }
    }
}

#[test]
fn every_packed_vela_output_lists_the_models_tensors() {
    let vela_out = repo().join("vela-out");
    let py = repo().join(".venv-vela/bin/python");
    if !vela_out.join(".stamp").is_file() || !py.is_file() {
        eprintln!("SKIPPED: vela-out/ or .venv-vela not built (scripts/setup-vela)");
        return;
    }
    let mut files = Vec::new();
    outputs(&vela_out, &mut files);
    files.sort();
    assert!(!files.is_empty());
    let mut checked = 0;
    for f in &files {
        // vela-out/<model>/<accel>/<variant>/<model>_vela.<ext>
        let model_name = f.iter().rev().nth(3).unwrap().to_string_lossy().to_string();
        let model = corpus().join("models").join(format!("{model_name}.tflite"));
        let is_npz = f.extension().is_some_and(|e| e == "npz");
        let want = oracle(&py, &model, is_npz.then_some(f.as_path()));

        let m = load(f).unwrap();
        let packed = pack_model_as(&m, AccelChoice::Auto, FormatVersion::V2).unwrap();
        let view = Npu1::validate(&packed.bytes).unwrap();
        assert_eq!(view.header().version(), 2);
        assert_eq!(
            view.ext().npu_config(),
            Some(m.cop.config),
            "{}",
            f.display()
        );
        assert_eq!(view.ext().npu_id(), Some(m.cop.id));
        let io = npuschema_cli::inspect::npu1_io_json(&view);
        let n_in = want["input"].as_array().unwrap().len();
        let n_out = want["output"].as_array().unwrap().len();
        assert_eq!(io.len(), n_in + n_out, "{}", f.display());
        for kind in ["input", "output"] {
            for (i, t) in want[kind].as_array().unwrap().iter().enumerate() {
                let got = io
                    .iter()
                    .find(|x| x["direction"] == kind && x["index"] == i)
                    .unwrap_or_else(|| panic!("{}: no {kind} {i}", f.display()));
                // npz carries no names: pack names them `input[i]`.
                let name = if is_npz {
                    format!("{kind}[{i}]")
                } else {
                    t["name"].as_str().unwrap().to_string()
                };
                assert_eq!(got["name"], name.as_str(), "{}", f.display());
                // The model's shape; an npz's is padded to 6 with leading 1s, which pack
                // drops down to four dimensions.
                let shape: Vec<u64> = t["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_u64().unwrap())
                    .collect();
                let got_shape: Vec<u64> = got["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_u64().unwrap())
                    .collect();
                if is_npz {
                    assert_eq!(
                        got_shape.iter().product::<u64>(),
                        shape.iter().product::<u64>()
                    );
                    assert_eq!(got_shape.len(), 4);
                } else {
                    assert_eq!(got_shape, shape, "{}", f.display());
                }
                // TFLite TensorType 9 is int8, 3 uint8, 7 int16, 2 int32.
                let dtype = match t["type"].as_i64().unwrap() {
                    9 => "int8",
                    3 => "uint8",
                    7 => "int16",
                    2 => "int32",
                    other => panic!("type {other}"),
                };
                assert_eq!(got["dtype"], dtype);
                let elem = match dtype {
                    "int16" => 2,
                    "int32" => 4,
                    _ => 1,
                };
                assert_eq!(
                    got["size"].as_u64().unwrap(),
                    shape.iter().product::<u64>() * elem
                );
                let scale = t["scale"].as_array().unwrap();
                if scale.len() == 1 {
                    let s = scale[0].as_f64().unwrap() as f32;
                    assert_eq!(got["scale"].as_f64().unwrap() as f32, s, "{}", f.display());
                    assert_eq!(got["zero_point"], t["zero_point"][0]);
                } else {
                    assert!(got["scale"].is_null());
                }
                if is_npz {
                    let z = &want[format!("{kind}_npz")];
                    assert_eq!(got["region"], z["region"][i], "{}", f.display());
                    assert_eq!(got["offset"], z["offset"][i], "{}", f.display());
                }
                // Inside its region, which is a runtime one.
                let r = view
                    .regions()
                    .nth(got["region"].as_u64().unwrap() as usize)
                    .unwrap();
                assert!(r.data().is_none());
                assert!(
                    got["offset"].as_u64().unwrap() + got["size"].as_u64().unwrap()
                        <= u64::from(r.size())
                );
            }
        }
        // Version 1 of the same compilation: the same stream, regions and bytes after the
        // header, without the extension and the tensor table.
        let v1 = pack_model_as(&m, AccelChoice::Auto, FormatVersion::V1).unwrap();
        let v1v = Npu1::validate(&v1.bytes).unwrap();
        assert_eq!(v1v.header().version(), 1);
        assert_eq!(v1v.io().len(), 0);
        assert_eq!(v1v.cmd_stream(), view.cmd_stream());
        assert_eq!(
            v1v.regions()
                .map(|r| (r.size(), r.data()))
                .collect::<Vec<_>>(),
            view.regions()
                .map(|r| (r.size(), r.data()))
                .collect::<Vec<_>>()
        );
        checked += 1;
    }
    eprintln!("checked {checked} Vela outputs");
}
