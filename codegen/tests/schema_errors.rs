//! Golden tests: each `schema_errors/<kind>.yaml` holds schema mistakes of one kind, and
//! `<kind>.expected` the diagnostics the loader must print for it, file:line:column and all.
//! Regenerate an expected file with `NPUSCHEMA_BLESS=1 cargo test -p npuschema-codegen
//! --test schema_errors` after reviewing the change.

use std::path::Path;

mod golden;
use golden::golden;

#[test]
fn yaml_syntax() {
    golden("yaml_syntax");
}
#[test]
fn unknown_key() {
    golden("unknown_key");
}
#[test]
fn unknown_field_reference() {
    golden("unknown_field_reference");
}
#[test]
fn overlapping_fields() {
    golden("overlapping_fields");
}
#[test]
fn offset_differs_from_layout() {
    golden("offset_differs");
}
#[test]
fn width_does_not_fit_the_type() {
    golden("width_does_not_fit");
}
#[test]
fn duplicate_names() {
    golden("duplicate_names");
}
#[test]
fn undefined_enum() {
    golden("undefined_enum");
}
#[test]
fn every_mistake_is_reported_at_once() {
    golden("all_at_once");
}
#[test]
fn one_mistake_gives_one_diagnostic() {
    golden("one_mistake");
}

#[test]
fn the_shipped_schemas_load() {
    let mut n = 0;
    for dir in ["../schema", "../formats", "../tests/schemas"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        for entry in std::fs::read_dir(&root).expect("schema dir") {
            let p = entry.expect("entry").path();
            if p.extension().is_some_and(|e| e == "yaml") {
                if let Err(d) = npuschema_codegen::load(&p) {
                    panic!("{d}");
                }
                n += 1;
            }
        }
    }
    assert!(n >= 3, "the shipped and test schemas are found ({n})");
}
#[test]
fn directory_constructs() {
    golden("directories");
}
/// A closed enum read without an `enum_known` step would have no value to return for an
/// undefined raw value: the checker requires the step for every closed-enum field the file
/// reads (header, table records, located records, collections).
#[test]
fn closed_enum_without_enum_known() {
    golden("enum_unchecked");
}
/// Two variants with a table of the same name would emit two iterator types of one name
/// (E0428); a table named like a struct likewise. Refused, with both places.
#[test]
fn generated_names_collide() {
    golden("variant_collision");
}
/// One mistake, one diagnostic: a misspelt key is read as the key it is close to and
/// reported once (no missing key, no reference to what it defined).
#[test]
fn key_typo_gives_one_diagnostic() {
    golden("key_typo");
}
/// `n`, `off`, `null` as names: YAML 1.1 reads them as a boolean or nothing; the message
/// says so, with the word as written.
#[test]
fn yaml_1_1_traps() {
    golden("yaml_traps");
}

/// `Builder::build`'s error prints one clean line per mistake, with `Display` and with
/// `Debug` alike (so `build().unwrap()` shows real newlines, not `\n`).
#[test]
fn builder_error_prints_clean_lines() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema_errors");
    let out = std::env::temp_dir().join(format!("npuschema-builder-{}", std::process::id()));
    std::fs::create_dir_all(&out).expect("out dir");
    let err = npuschema_codegen::Builder::new()
        .schema(dir.join("key_typo.yaml"))
        .out_dir(&out)
        .build()
        .expect_err("the schema has mistakes");
    let shown = err.to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 9, "8 mistakes and a summary:\n{shown}");
    assert!(
        lines[..8]
            .iter()
            .all(|l| l.contains("key_typo.yaml:") && l.contains(": error: "))
    );
    assert!(!shown.contains("\\n"));
    let debug = format!("{err:?}");
    assert!(debug.contains(&shown) && !debug.contains("\\n"), "{debug}");
    // A good schema is written through a temp file, renamed into place.
    let ok = npuschema_codegen::Builder::new()
        .schema(Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/npu1.yaml"))
        .out_dir(&out)
        .build()
        .expect("npu1 generates");
    assert_eq!(ok, vec![out.join("npu1.rs")]);
    let names: Vec<_> = std::fs::read_dir(&out)
        .expect("out")
        .map(|e| e.expect("e").file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("npu1.rs")]);
    let _ = std::fs::remove_dir_all(&out);
}

/// The macro's errors: one `compile_error!` per mistake, no `error:` of its own (the
/// compiler prints one), no summary line.
#[test]
fn macro_errors_one_per_mistake() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema_errors");
    let d = npuschema_codegen::load(&dir.join("key_typo.yaml"))
        .err()
        .expect("rejected");
    let ts = npuschema_codegen::compile_errors(&d, proc_macro2::Span::call_site()).to_string();
    assert_eq!(ts.matches("compile_error").count(), d.items.len());
    assert_eq!(d.items.len(), 8);
    assert!(!ts.contains("error:") && !ts.contains("errors in"), "{ts}");
    assert!(
        ts.contains("key_typo.yaml:24:16: unknown key `recrod`"),
        "{ts}"
    );
}
/// Full boolean expressions in `assert`; operands of the wrong kind are refused.
#[test]
fn conditions() {
    golden("conditions");
}
/// `when` on a step that binds something, a non-condition `when`, a writer over a
/// conditional file-level range: refused.
#[test]
fn when_misplaced() {
    golden("when_misplaced");
}
/// `let`: used before it, defined twice, a taken name, inside a for_each, in a definition.
#[test]
fn let_misused() {
    golden("let_misused");
}
/// A float in an ordering comparison or arithmetic: refused (bitwise values).
#[test]
fn float_compare() {
    golden("float_compare");
}
/// A byte order other than `little` or `big`.
#[test]
fn byte_order() {
    golden("byte_order");
}
/// Order checks across records in the wrong place or over the wrong thing.
#[test]
fn order_misused() {
    golden("order_misused");
}
/// Record streams: bad references, expressions, layouts, and stream_fits out of place.
#[test]
fn search() {
    golden("search");
}

#[test]
fn per_record() {
    golden("per_record");
}

#[test]
fn per_record_writer() {
    golden("per_record_writer");
}

#[test]
fn optional_record() {
    golden("optional_record");
}

#[test]
fn optional_record_writer() {
    golden("optional_record_writer");
}

/// The file's byte order chosen when it is read, where it cannot be yet.
#[test]
fn file_order() {
    golden("file_order");
}

#[test]
fn file_order_writer() {
    golden("file_order_writer");
}

#[test]
fn stream_misused() {
    golden("stream_misused");
}
/// Directories over open or plain-integer type fields: bad type fields and layout keys.
#[test]
fn open_directories() {
    golden("open_directories");
}
/// A directory writer with a place or value it cannot derive: each refused where written.
#[test]
fn dir_writer() {
    golden("dir_writer");
}
/// What a directory writer still refuses next to other tables, streams and strings (a
/// second per-record range of a directory table, a computed gate, a directory's records'
/// strings, ...).
#[test]
fn dir_writer_mix() {
    golden("dir_writer_mix");
}

/// Two directories: what the writer of both still refuses.
#[test]
fn dir_writer_two() {
    golden("dir_writer_two");
}
/// What the writer of a file without a section directory refuses of its located records (a
/// record the order leaves out or names twice, an `at` or gate it cannot derive, a checksum
/// span read from a record `seal` cannot find), and its `payload_align`.
#[test]
fn plain_writer_located() {
    golden("plain_writer_located");
}

#[test]
fn located_trailer() {
    golden("located_trailer");
}
/// A plain writer's table whose `at` is neither one header field nor a constant.
#[test]
fn plain_writer_at() {
    golden("plain_writer_at");
}
/// A plain writer's table `count` or `stride` it can neither derive nor honour.
#[test]
fn writer_count_stride() {
    golden("writer_count_stride");
}
/// A variant's writer without a section directory: refused (variants write directories).
#[test]
fn dir_writer_variant() {
    golden("dir_writer_variant");
}
