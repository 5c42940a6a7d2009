//! Compile-time guarantees of the generated API (and of the runtime's job), as UI tests.
//! Regenerate the expected `.stderr` files with `TRYBUILD=overwrite cargo test -p
//! npuschema-tests --test trybuild` after reviewing a change in the messages.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.pass("ui/pass/*.rs");
}
