//! `cargo run -p npuschema-codegen --example gen -- SCHEMA.yaml`: print the generated code.
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: gen SCHEMA.yaml");
        std::process::exit(2);
    };
    match npuschema_codegen::generate_file(std::path::Path::new(&path)) {
        Ok(code) => print!("{code}"),
        Err(d) => {
            eprintln!("{d}");
            std::process::exit(1);
        }
    }
}
