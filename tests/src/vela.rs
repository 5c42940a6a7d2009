//! Where the Vela reference outputs are: `<repo>/vela-out/`, made by `scripts/setup-vela`
//! (not in git). Shared by the tests that read them (pack, the command-stream decoder, the
//! simulator).

use std::path::{Path, PathBuf};

/// The `vela-out/` folder, or `None` (after printing "skipping: ...") when
/// `scripts/setup-vela` has not run.
#[must_use]
pub fn out_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vela-out");
    if dir.join(".stamp").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: run scripts/setup-vela ({} not found)",
            dir.display()
        );
        None
    }
}

/// Every `*_vela.npz` and `*_vela.tflite` under `dir`, sorted.
#[must_use]
pub fn outputs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for p in entries.flatten().map(|e| e.path()) {
            let name = p.to_string_lossy();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with("_vela.npz") || name.ends_with("_vela.tflite") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A program of one of the project's Python environments (`.venv-vela/bin/vela`,
/// `.venv-litert/bin/python`), made by `scripts/<setup>`; `None`, saying so on stderr, when
/// it is not there (the test then skips).
#[must_use]
pub fn venv_tool(rel: &str, setup: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found (run scripts/{setup})", p.display());
        None
    }
}
