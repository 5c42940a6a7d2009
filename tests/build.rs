//! The build-script entry point, as a firmware crate would use it: generate code from a
//! schema into OUT_DIR and `include!` it. Here it generates the shipped NPU1 schema (for
//! tests/tests/build_rs_usage.rs) and a version-2 copy of it (tests/tests/version_bump.rs).
//! (The other test schemas are expanded by the macro, in `npuschema_tests::compare`.)

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    for (schema, sub) in [
        ("../schema/npu1.yaml", "v1"),
        ("schemas/npu1_v2.yaml", "v2"),
    ] {
        let dir = out.join(sub);
        std::fs::create_dir_all(&dir).expect("out dir");
        if let Err(e) = npuschema_codegen::Builder::new()
            .schema(schema)
            .out_dir(&dir)
            .build()
        {
            panic!("{e}");
        }
    }
}
