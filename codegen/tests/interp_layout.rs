//! The interpreter's parts form a DAG (issue 12, item 6): `interp.rs` declares them in an
//! order, and each part uses (`use super::x` or a `super::x::` path) only parts declared
//! before it, so no two parts use each other. `interp.rs` itself only declares the parts
//! and re-exports the API.
#![allow(clippy::expect_used, missing_docs)]

use std::path::Path;

fn src(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The parts `text` names after `super::` (in `use` lines and paths), outside comments.
fn used_parts(text: &str, parts: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("super::") {
            rest = &rest[i + "super::".len()..];
            // `super::{a, b}` names several parts.
            let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
                group
                    .split('}')
                    .next()
                    .unwrap_or("")
                    .split(',')
                    .map(str::trim)
                    .collect()
            } else {
                vec![
                    rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                        .next()
                        .unwrap_or(""),
                ]
            };
            for n in names {
                if parts.iter().any(|p| p == n) && !found.iter().any(|f: &String| f == n) {
                    found.push(n.to_string());
                }
            }
        }
    }
    found
}

#[test]
fn interp_parts_use_only_parts_declared_before_them() {
    let root = src("interp.rs");
    let parts: Vec<String> = root
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    assert!(parts.len() >= 10, "{parts:?}");
    // The root: module declarations and re-exports only (and documentation).
    let code: String = root
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//"))
        .collect::<Vec<_>>()
        .join(" ");
    for stmt in code.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        assert!(
            stmt.starts_with("mod ") || stmt.starts_with("pub use "),
            "interp.rs holds more than declarations: {stmt}"
        );
    }
    for (i, part) in parts.iter().enumerate() {
        let text = src(&format!("interp/{part}.rs"));
        // Its own unit tests may use the part they test (`super::`); only the part's code
        // before its test module counts.
        let code = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or(&text);
        for used in used_parts(code, &parts) {
            let j = parts.iter().position(|p| *p == used).expect("a part");
            assert!(
                j < i,
                "interp/{part}.rs uses `{used}`, declared after it: the parts must form a DAG"
            );
        }
    }
}
