//! The generator's module graph: laid out by phase, with no two modules importing each other.
//!
//! Reads every `.rs` file under `codegen/src`, derives each module's dependencies from the
//! paths it names (`crate::a::b`, `super::x`, a child module's `x::y` in its parent; in a `use`
//! or inline, with comments and string literals stripped first), prints the graph, and fails on
//! any cycle (a strongly connected component of more than one module) and on any phase
//! violation. The phases, in order:
//!
//! - base: everything outside the five phase directories (`yaml`, `diag`, `expr`, ...), which
//!   imports no phase;
//! - load (`schema/`): the schema's types and reading them from the YAML tree (base, load);
//! - `check`: resolve and check (base, load, check);
//! - `lower`: what the checked schema means for a back end, stated once (the writer's plan,
//!   the checks' error sites) (base, load, check, lower);
//! - `emit`: the Rust emitters (base, load, check, lower, emit);
//! - `interp`: the interpreter (base, load, check, lower, interp), which shares no code with
//!   `emit` (it takes its error sites' numbers and what they blame from `lower`).
//!
//! The crate root (`lib.rs`) is the entry point and may use every phase; no module may use it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `check/mod.rs` -> `check`, `check/strings.rs` -> `check::strings`, `lib.rs` -> `crate`.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("file name");
    let stem = last.trim_end_matches(".rs").to_string();
    if !(stem == "mod" || (stem == "lib" && parts.is_empty())) {
        parts.push(stem);
    }
    if parts.is_empty() {
        "crate".to_string()
    } else {
        parts.join("::")
    }
}

/// The source with comments, string/char literals blanked (kept: identifiers, punctuation).
fn strip(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < b.len() {
        let c = b[i];
        let prev_ident = i > 0 && ident(b[i - 1]);
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && b.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
            continue;
        }
        // raw strings: r"..", r#".."#, br#".."#
        if !prev_ident && (c == 'r' || (c == 'b' && b.get(i + 1) == Some(&'r'))) {
            let mut j = if c == 'b' { i + 2 } else { i + 1 };
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) == Some(&'"') {
                j += 1;
                loop {
                    if j >= b.len() {
                        break;
                    }
                    if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
                continue;
            }
        }
        if c == '"' || (c == 'b' && !prev_ident && b.get(i + 1) == Some(&'"')) {
            i += if c == 'b' { 2 } else { 1 };
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
            continue;
        }
        if c == '\'' {
            if b.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
                continue;
            }
            if b.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Expands a `use` tree (`crate::{a::{b, c}, d}`) into its paths.
fn expand_use(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    fn go(prefix: &str, t: &str, out: &mut Vec<String>) {
        match t.find('{') {
            None => out.push(format!("{prefix}{t}")),
            Some(open) => {
                let head = &t[..open];
                let inner = &t[open + 1..t.len() - 1];
                let mut depth = 0;
                let mut start = 0;
                let mut parts = Vec::new();
                for (i, c) in inner.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            parts.push(&inner[start..i]);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                parts.push(&inner[start..]);
                for p in parts.into_iter().filter(|p| !p.is_empty()) {
                    go(&format!("{prefix}{head}"), p, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    go("", &tree, &mut out);
    out
}

struct Graph {
    modules: BTreeSet<String>,
    deps: BTreeMap<String, BTreeSet<String>>,
}

/// The module a path names: the longest prefix that is a module, else the crate root.
fn resolve(modules: &BTreeSet<String>, segs: &[&str]) -> String {
    for n in (1..=segs.len()).rev() {
        let cand = segs[..n].join("::");
        if modules.contains(&cand) {
            return cand;
        }
    }
    "crate".to_string()
}

fn parent(m: &str) -> String {
    match m.rfind("::") {
        Some(i) => m[..i].to_string(),
        None => "crate".to_string(),
    }
}

fn graph() -> Graph {
    let dir = src_dir();
    let mut files = Vec::new();
    rs_files(&dir, &mut files);
    let mut sources = Vec::new();
    let mut modules = BTreeSet::new();
    for f in &files {
        let m = module_of(f.strip_prefix(&dir).expect("under src"));
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        modules.insert(m.clone());
        sources.push((m, strip(&text)));
    }
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, text) in &sources {
        let entry = deps.entry(m.clone()).or_default();
        // Paths, both in `use` trees (expanded) and inline. A `mod name {` block shifts
        // what `super` means inside it.
        let mut paths: Vec<(String, usize)> = Vec::new(); // (path, inline-mod depth)
        let toks: Vec<char> = text.chars().collect();
        let mut i = 0;
        let mut depth = 0i32;
        let mut mod_depths: Vec<i32> = Vec::new();
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        while i < toks.len() {
            let c = toks[i];
            if c == '{' {
                depth += 1;
            } else if c == '}' {
                depth -= 1;
                if mod_depths.last() == Some(&depth) {
                    mod_depths.pop();
                }
            }
            if ident(c) && (i == 0 || !ident(toks[i - 1])) {
                let mut j = i;
                while j < toks.len() && ident(toks[j]) {
                    j += 1;
                }
                let word: String = toks[i..j].iter().collect();
                if word == "mod" {
                    // `mod name {` opens an inline module
                    let rest: String = toks[j..toks.len().min(j + 80)].iter().collect();
                    let rest = rest.trim_start();
                    let name_len = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
                    if rest[name_len..].trim_start().starts_with('{') {
                        mod_depths.push(depth);
                    }
                }
                if word == "use" {
                    let end = toks[j..].iter().position(|&c| c == ';').map(|p| j + p);
                    if let Some(end) = end {
                        let tree: String = toks[j..end].iter().collect();
                        for p in expand_use(&tree) {
                            paths.push((p, mod_depths.len()));
                        }
                        i = end;
                        continue;
                    }
                }
                // an inline path: word::word::...
                let mut k = j;
                let mut path = word.clone();
                while k + 1 < toks.len() && toks[k] == ':' && toks[k + 1] == ':' {
                    let s = k + 2;
                    let mut e = s;
                    while e < toks.len() && ident(toks[e]) {
                        e += 1;
                    }
                    if e == s {
                        break;
                    }
                    path.push_str("::");
                    path.extend(&toks[s..e]);
                    k = e;
                }
                if path.contains("::") {
                    paths.push((path, mod_depths.len()));
                }
                i = k.max(j);
                continue;
            }
            i += 1;
        }
        // children declared by this module: `x::y` paths name them relative to here
        let children: BTreeSet<&str> = modules
            .iter()
            .filter(|c| {
                if m == "crate" {
                    !c.contains("::") && c.as_str() != "crate"
                } else {
                    c.starts_with(&format!("{m}::")) && !c[m.len() + 2..].contains("::")
                }
            })
            .map(|c| c.rsplit("::").next().expect("name"))
            .collect();
        for (p, inner) in paths {
            let segs: Vec<&str> = p.split("::").collect();
            let target = match segs[0] {
                "crate" => resolve(&modules, &segs[1..]),
                "super" => {
                    let mut base = m.clone();
                    let mut rest = &segs[..];
                    let mut levels = 0usize;
                    while rest.first() == Some(&"super") {
                        levels += 1;
                        rest = &rest[1..];
                    }
                    // inside `inner` inline modules, the first `inner` supers stay in this file
                    for _ in 0..levels.saturating_sub(inner) {
                        base = parent(&base);
                    }
                    if base == "crate" {
                        resolve(&modules, rest)
                    } else {
                        let mut full: Vec<&str> = base.split("::").collect();
                        full.extend_from_slice(rest);
                        resolve(&modules, &full)
                    }
                }
                "self" => continue,
                first if children.contains(first) => {
                    let mut full: Vec<&str> = if m == "crate" {
                        Vec::new()
                    } else {
                        m.split("::").collect()
                    };
                    full.extend_from_slice(&segs);
                    resolve(&modules, &full)
                }
                _ => continue,
            };
            if &target != m {
                entry.insert(target);
            }
        }
    }
    Graph { modules, deps }
}

fn phase(m: &str) -> &'static str {
    match m.split("::").next().expect("segment") {
        "crate" => "root",
        "schema" => "load",
        "check" => "check",
        "lower" => "lower",
        "emit" => "emit",
        "interp" => "interp",
        _ => "base",
    }
}

fn allowed(from: &str, to: &str) -> bool {
    match (from, to) {
        // The interpreter is a second back end behind the public API: it takes the crate's
        // public `Checked` (and its tests load schemas through `crate::load`).
        ("interp", "root") => true,
        (_, "root") => false,
        ("root", _) => true,
        (f, t) if f == t => true,
        (_, "base") => true,
        ("check" | "lower" | "emit" | "interp", "load") => true,
        ("lower" | "emit" | "interp", "check") => true,
        ("emit" | "interp", "lower") => true,
        _ => false,
    }
}

/// Tarjan's strongly connected components.
fn sccs(g: &Graph) -> Vec<Vec<String>> {
    struct St<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        on: BTreeSet<&'a str>,
        stack: Vec<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut St<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        if let Some(ds) = s.g.deps.get(v) {
            for w in ds {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(lw));
                } else if s.on.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(iw));
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().expect("on stack");
                s.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            comp.sort();
            s.out.push(comp);
        }
    }
    let mut s = St {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        on: BTreeSet::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for m in &g.modules {
        if !s.index.contains_key(m.as_str()) {
            visit(&mut s, m.as_str());
        }
    }
    s.out
}

#[test]
fn the_reader_sees_use_trees_inline_paths_and_super() {
    let paths = expand_use("crate::{a::{b, c}, d::E}");
    assert_eq!(paths, ["crate::a::b", "crate::a::c", "crate::d::E"]);
    let s = strip("let x = \"crate::fake\"; // crate::nope\n crate::real::f(r#\"crate::x\"#, 'c')");
    assert!(!s.contains("fake") && !s.contains("nope") && !s.contains("crate::x"));
    assert!(s.contains("crate::real::f"));
    assert_eq!(module_of(Path::new("check/mod.rs")), "check");
    assert_eq!(module_of(Path::new("check/strings.rs")), "check::strings");
    assert_eq!(module_of(Path::new("lib.rs")), "crate");
    assert!(allowed("emit", "check") && !allowed("check", "emit") && !allowed("interp", "emit"));
    assert!(!allowed("emit", "interp") && !allowed("load", "check") && !allowed("base", "load"));
    assert!(allowed("emit", "lower") && allowed("lower", "check") && !allowed("check", "lower"));
    assert!(allowed("interp", "lower") && !allowed("lower", "emit") && !allowed("lower", "interp"));
}

#[test]
fn modules_form_a_dag_laid_out_by_phase() {
    let g = graph();
    println!("module graph ({} modules):", g.modules.len());
    for m in &g.modules {
        let ds: Vec<&str> = g.deps[m].iter().map(String::as_str).collect();
        println!("  {m} [{}] -> {}", phase(m), ds.join(", "));
    }
    let mut problems = Vec::new();
    for comp in sccs(&g) {
        if comp.len() < 2 {
            continue;
        }
        problems.push(format!("cycle: {}", comp.join(" <-> ")));
    }
    for (m, ds) in &g.deps {
        for d in ds {
            if !allowed(phase(m), phase(d)) {
                problems.push(format!(
                    "phase: {m} ({}) imports {d} ({})",
                    phase(m),
                    phase(d)
                ));
            }
        }
    }
    // Within a phase directory: `mod.rs` is the bottom (it imports no sibling) and `top.rs`
    // the top (no sibling imports it), so that a construct's module sits between the two.
    for dir in ["schema", "check", "lower", "emit"] {
        let top = format!("{dir}::top");
        for (m, ds) in &g.deps {
            if m == dir && ds.iter().any(|d| d.starts_with(&format!("{dir}::"))) {
                problems.push(format!("layering: {dir}/mod.rs imports a sibling"));
            }
            if m.starts_with(&format!("{dir}::")) && *m != top && ds.contains(&top) {
                problems.push(format!("layering: {m} imports {top}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
