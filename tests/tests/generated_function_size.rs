//! Generated code a person can audit: no generated function is longer than 150 lines,
//! except the ones listed in `LONG`, each with the length it may not exceed. The list is a
//! ratchet, not a licence: a function that grows past its ceiling, or a new long one,
//! fails here, and an entry whose function got short fails too, so the list only shrinks.
//! Validators and writers are cut into helpers by `codegen/src/emit/split.rs`.

use std::path::Path;

const LIMIT: usize = 150;

/// (file, first line of the function, most lines it may have).
const LONG: &[(&str, &str, usize)] = &[
    // A constant table (each command's fields), one match arm per command: data, not logic.
    (
        "ethos_u55_cmd.rs",
        "pub const fn fields(self) -> &'static [CommandField] {",
        1921,
    ),
];

/// Every function of a generated file: (its first line, trimmed; its length in lines).
fn functions(text: &str) -> Vec<(String, usize)> {
    spans(text)
        .into_iter()
        .map(|(first, _, len)| (first, len))
        .collect()
}

/// Every function of a generated file: its first line, trimmed; the index of that line;
/// its length in lines.
fn spans(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let indent = l.len() - t.len();
        let is_fn = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "const fn ",
            "pub const fn ",
        ]
        .iter()
        .any(|p| t.starts_with(p));
        if !is_fn {
            continue;
        }
        // A one-line function, or the first closing brace at its indentation.
        if t.ends_with('}') && t.contains('{') {
            out.push((t.to_string(), i, 1));
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        if let Some(end) = lines[i + 1..].iter().position(|x| *x == close) {
            out.push((t.to_string(), i, end + 2));
        }
    }
    out
}

#[test]
fn no_generated_function_is_longer_than_its_ceiling() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/src");
    let mut seen = vec![0usize; LONG.len()];
    let mut failures = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for (first, n) in functions(&text) {
            if n <= LIMIT {
                continue;
            }
            match LONG.iter().position(|(f, l, _)| *f == name && *l == first) {
                Some(k) => {
                    seen[k] += 1;
                    if n > LONG[k].2 {
                        failures.push(format!(
                            "{name}: `{first}` grew to {n} lines (ceiling {})",
                            LONG[k].2
                        ));
                    }
                }
                None => failures.push(format!("{name}: `{first}` has {n} lines (limit {LIMIT})")),
            }
        }
    }
    for (k, (f, l, _)) in LONG.iter().enumerate() {
        if seen[k] == 0 {
            failures.push(format!(
                "{f}: `{l}` is no longer over {LIMIT} lines: remove it from LONG"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_measure_counts_lines_of_a_function() {
    let text = "impl X {\n    pub fn a() {\n        1;\n        2;\n    }\n    fn b() { 3 }\n}\n";
    assert_eq!(
        functions(text),
        vec![
            ("pub fn a() {".to_string(), 4),
            ("fn b() { 3 }".to_string(), 1)
        ]
    );
}

/// The test schemas' generated code (each construct alone and in combination, and
/// `codegen/tests/own_crate/long.yaml`, long on purpose): no function over the limit, except
/// constant tables (`pub const fn`).
#[test]
fn no_function_generated_from_a_test_schema_is_longer_than_the_limit() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for p in schemas_in(&["schemas", "../formats", "../codegen/tests/own_crate"]) {
        let text = npuschema_codegen::generate_file(&p)
            .unwrap_or_else(|d| panic!("{}: {d:?}", p.display()));
        checked += 1;
        for (first, n) in over_limit(&text) {
            failures.push(format!("{}: `{first}` has {n} lines", p.display()));
        }
    }
    assert!(checked >= 40, "only {checked} test schemas found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The text of generated function `name` (from its `fn` line to its closing brace), with
/// every number replaced by `N` (error-site numbers move when a check is added anywhere).
fn function_text(text: &str, name: &str) -> Option<String> {
    let (_, start, len) = spans(text).into_iter().find(|(first, _, _)| {
        first.starts_with(&format!("fn {name}(")) || first.starts_with(&format!("fn {name}<"))
    })?;
    let body = text
        .lines()
        .skip(start)
        .take(len)
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut in_number = false;
    for ch in body.chars() {
        if ch.is_ascii_digit() {
            if !in_number {
                out.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(ch);
        }
    }
    Some(out)
}

/// A validator is cut where the file's parts meet (`codegen/src/lower/checks.rs`), a helper
/// per part: NPU1's header, its checksum, each of its tables. Checks added to one part
/// leave the other parts' helpers as they were (cut by length alone, the cuts would move).
#[test]
fn a_validator_is_cut_by_the_files_parts() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/npu1.yaml");
    let yaml = std::fs::read_to_string(&schema).unwrap();
    let text =
        npuschema_codegen::generate(&npuschema_codegen::load_str(&yaml, "npu1.yaml").unwrap());
    let parts = [
        "check_header",
        "check_checksums",
        "check_io",
        "check_regions",
    ];
    for p in parts {
        assert!(
            function_text(&text, p).is_some(),
            "no `{p}` in NPU1's validator"
        );
    }
    // VPMN: each version's header, the tables' records, the checksums (version 2), the
    // rules after them (slots, ownership); version 1's entries.
    let vpmn = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/src/vpmn.rs"),
    )
    .unwrap();
    for p in [
        "check_header",
        "check_sections",
        "check_inputs",
        "check_outputs",
        "check_network_info",
        "check_checksums",
        "check_rules",
        "check_entries",
    ] {
        assert!(
            function_text(&vpmn, p).is_some(),
            "no `{p}` in VPMN's validators"
        );
    }
    // Three more header checks, before the checksum.
    let anchor = "    - { code: checksum-mismatch, checksum: payload }\n";
    assert!(
        yaml.contains(anchor),
        "npu1.yaml changed: update the anchor"
    );
    let extra = "    - { code: cmd-too-long, assert: \"header.cmd_bytes <= header.total_bytes\", field: header.cmd_bytes }\n    - { code: too-many-regions, assert: \"header.region_count <= 16\", field: header.region_count }\n    - { code: empty-file, assert: \"header.total_bytes > HEADER_BYTES\", field: header.total_bytes }\n";
    let grown = yaml.replace(anchor, &format!("{extra}{anchor}"));
    let grown_text =
        npuschema_codegen::generate(&npuschema_codegen::load_str(&grown, "npu1.yaml").unwrap());
    assert_ne!(
        function_text(&text, "check_header"),
        function_text(&grown_text, "check_header"),
        "the header's checks were not added"
    );
    for p in ["check_checksums", "check_io", "check_regions"] {
        assert_eq!(
            function_text(&text, p),
            function_text(&grown_text, p),
            "`{p}` changed when only the header's checks did"
        );
    }
}

/// A walk of a stream within another's records whose per-record checks no longer fit one
/// helper: `formats/tiff.yaml` with a second rule on every entry, first (the strips' values,
/// as the schema once had it). The walk is bound by `let (..): (u64, u64, u64) = { .. }`; its type
/// was once taken for bindings in scope inside the block, `u64` a name of no known type, so
/// no statement of the walk could move and the whole of it stayed in `validate_as` (531
/// lines).
#[test]
fn a_walk_too_long_for_one_helper_is_cut_inside() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("../formats/tiff.yaml")).unwrap();
    let anchor = "        - { let: width";
    assert!(text.contains(anchor), "formats/tiff.yaml changed");
    let rule = "        - code: strips-again\n          assert: \"count * if(kind == SHORT, 2, 4) <= 4 || value + count * if(kind == SHORT, 2, 4) <= len\"\n          field: value\n          when: \"(tag == STRIP_OFFSETS || tag == STRIP_BYTE_COUNTS || tag == TILE_OFFSETS || tag == TILE_BYTE_COUNTS) && (kind == SHORT || kind == LONG)\"\n";
    let longer = text.replacen(anchor, &format!("{rule}{anchor}"), 1);
    let text = generate_text("fnsize", "tiff.yaml", &longer);
    let long = over_limit(&text);
    assert!(long.is_empty(), "{long:?}");
}

/// Every gallery, shipped and test schema with the one-line `assert` steps of its `for_each`
/// bodies repeated six more times (codes renamed): more checks per record than any of them
/// has, in every kind of loop the generator emits (a table's, a directory collection's, a
/// stream walk's, one within another stream's records, a file's in either byte order). No
/// generated function may pass the limit: a walk's checks are cut inside the closure that
/// defers their error, a helper's results are bound with their types (so later statements
/// may move too), and a body still too long is cut again.
#[test]
fn more_checks_per_record_are_cut_too() {
    let (mut grown, mut failures) = (0, Vec::new());
    for p in schemas_in(&["schemas", "../formats", "../schema"]) {
        let text = std::fs::read_to_string(&p).unwrap();
        let mut out = String::new();
        let mut more = 0;
        for line in text.lines() {
            out.push_str(line);
            out.push('\n');
            let t = line.trim_start();
            let indent = line.len() - t.len();
            let Some(rest) = t.strip_prefix("- { code: ") else {
                continue;
            };
            let Some((code, tail)) = rest.split_once(", assert: ") else {
                continue;
            };
            let plain = code
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if indent < 8 || !t.ends_with('}') || !plain {
                continue;
            }
            for k in 0..6 {
                out.push_str(&format!(
                    "{}- {{ code: {code}-g{k}, assert: {tail}\n",
                    &line[..indent]
                ));
            }
            more += 1;
        }
        if more == 0 {
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy();
        let text = generate_text("grow", &name, &out);
        grown += 1;
        for (first, n) in over_limit(&text) {
            failures.push(format!("{} grown: `{first}` has {n} lines", p.display()));
        }
    }
    assert!(
        grown >= 20,
        "only {grown} schemas with a record's one-line checks"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A record stream of many typed layouts, as a format with a record type per chunk kind
/// has (PNG names about twenty): `tests/schemas/tlv.yaml` with 60 more, each with a check of
/// its own and its `count()` asked. The walk looks a record's type up in one constant table
/// (`__rt::typed_layout`), whatever the number of layouts; it once had a `match` arm and a
/// counter per layout (12 layouts: a 359-line `validate_as`; 60: 1,350 lines).
#[test]
fn a_stream_of_many_typed_layouts_stays_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("schemas/tlv.yaml")).unwrap();
    let n = 60;
    let structs: String = (0..n)
        .map(|k| format!("  L{k}:\n    size: 4\n    fields:\n      - {{ name: a, type: u16 }}\n      - {{ name: b, type: u16 }}\n"))
        .collect();
    let layouts: String = (0..n)
        .map(|k| format!("        l{k}s: {{ type: {}, record: L{k} }}\n", 100 + k))
        .collect();
    let steps: String = (0..n)
        .map(|k| format!("    - for_each: l{k}s\n      validate:\n        - {{ code: l{k}-a-above-b, assert: \"a <= b\", field: a }}\n    - {{ code: l{k}-too-many, assert: \"count(l{k}s) <= 4\", field: header.record_count }}\n"))
        .collect();
    let anchors = [
        "\nfile:\n",
        "        points: { type: KIND_POINT, record: Point }\n",
        "  writer:\n",
    ];
    assert!(anchors.iter().all(|a| text.contains(a)), "tlv.yaml changed");
    let grown = text
        .replacen(anchors[0], &format!("\n{structs}\nfile:\n"), 1)
        .replacen(anchors[1], &format!("{}{layouts}", anchors[1]), 1)
        .replacen(anchors[2], &format!("{steps}{}", anchors[2]), 1);
    let code = generate_text("layouts", "tlv.yaml", &grown);
    let long = over_limit(&code);
    assert!(long.is_empty(), "{long:?}");
    // One table of 62 rows, looked up once per record.
    assert!(code.contains("const RECORDS_LAYOUTS: [__rt::TypedLayout; 62]"));
    assert_eq!(code.matches("__rt::typed_layout(").count(), 1);
}

/// A header that locates many records (a format of fixed sub-headers, each at an offset the
/// header holds), each checked and placed by the writer: 25 to 40 of them. The writer's header
/// block stores a derived offset per field, and a helper holding it alone takes a parameter
/// per offset: 30 records once gave a 163-line `write_into_part_1` (a statement is opened
/// when a helper holding it alone would pass the limit, not only when it is over the budget).
#[test]
fn a_header_locating_many_records_is_cut_for_its_writer_too() {
    for n in [25, 30, 35, 40] {
        many_located_records(n);
    }
}

fn many_located_records(n: usize) {
    let fields: String = (0..n)
        .map(|k| format!("      - {{ name: off{k}, type: u32 }}\n"))
        .collect();
    let records: String = (0..n)
        .map(|k| format!("    r{k}: {{ struct: Rec, at: header.off{k} }}\n"))
        .collect();
    let steps: String = (0..n)
        .map(|k| format!("    - {{ code: r{k}-outside, record_fits: r{k}, within: len }}\n    - {{ code: r{k}-big, assert: \"r{k}.a <= 100\", field: r{k}.a }}\n"))
        .collect();
    let order: Vec<String> = (0..n).map(|k| format!("r{k}")).collect();
    let schema = format!(
        "schema: manyrec\nconstants:\n  MAGIC: 0x31234567\nstructs:\n  Header:\n    size: {}\n    fields:\n      - {{ name: magic, type: u32 }}\n{fields}  Rec:\n    size: 4\n    fields:\n      - {{ name: a, type: u32 }}\nfile:\n  name: ManyRec\n  header: {{ struct: Header, code: truncated-header }}\n  records:\n{records}  validate:\n    - {{ code: bad-magic, expect: header.magic, equals: MAGIC }}\n{steps}  writer:\n    align: 4\n    order: [{}]\n",
        4 + 4 * n,
        order.join(", ")
    );
    let code = generate_text("records", "manyrec.yaml", &schema);
    assert!(code.contains("pub fn write_into("), "no writer");
    let long = over_limit(&code);
    assert!(long.is_empty(), "{n} records: {long:?}");
}

/// A struct of many fields (a header of a few hundred words): its view's `Debug` lists one
/// field a line, so 300 fields once gave a 305-line `fmt`; it lists them in helpers of 100
/// now (`codegen/tests/own_crate/wide.yaml` builds one warning-free).
#[test]
fn a_struct_of_many_fields_stays_short() {
    for n in [99_usize, 100, 101, 300] {
        let fields: String = (0..n)
            .map(|k| format!("      - {{ name: f{k}, type: u32 }}\n"))
            .collect();
        let schema = format!(
            "schema: manyfld\nconstants:\n  MAGIC: 0x31234567\nstructs:\n  Header:\n    size: {}\n    fields:\n      - {{ name: magic, type: u32 }}\n{fields}file:\n  name: ManyFld\n  header: {{ struct: Header, code: truncated-header }}\n  validate:\n    - {{ code: bad-magic, expect: header.magic, equals: MAGIC }}\n",
            4 + 4 * n
        );
        let code = generate_text("fields", "manyfld.yaml", &schema);
        let long = over_limit(&code);
        assert!(long.is_empty(), "{n} fields: {long:?}");
        // Every field listed once, in order, whether in `fmt` or in its helpers.
        let listed: Vec<usize> = (0..n)
            .map(|k| {
                code.find(&format!(".field(\"f{k}\", &self.f{k}()"))
                    .unwrap()
            })
            .collect();
        assert!(
            listed.windows(2).all(|w| w[0] < w[1]),
            "{n} fields out of order"
        );
        // n + 1 fields with the magic: helpers past 100.
        let helpers = code.matches("fn __debug_part_").count();
        assert_eq!(
            helpers,
            if n < 100 { 0 } else { (n + 1).div_ceil(100) },
            "{n} fields"
        );
    }
}

/// The schemas (`*.yaml`) in these folders of the repository (relative to `tests/`), in
/// path order.
fn schemas_in(dirs: &[&str]) -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<_> = dirs
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    names.sort();
    names
}

/// The functions of generated `text` over the limit (constant tables, `pub const fn`, aside).
fn over_limit(text: &str) -> Vec<(String, usize)> {
    functions(text)
        .into_iter()
        .filter(|(first, n)| *n > LIMIT && !first.starts_with("pub const fn"))
        .collect()
}

/// The code generated from schema `text`, written as `name` in a directory of its own (`tag`
/// and this process), removed after.
fn generate_text(tag: &str, name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("npuschema-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    let out = npuschema_codegen::generate_file(&p);
    std::fs::remove_dir_all(&dir).unwrap();
    out.unwrap_or_else(|d| panic!("{name}: {d:?}"))
}
