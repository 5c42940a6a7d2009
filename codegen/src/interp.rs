//! The schema interpreter: the second engine of the schema language.
//!
//! It takes a checked schema (the same load and check as the generator: [`crate::load`],
//! [`crate::load_str`]) and a byte slice, and runs the same validation as the generated
//! `validate`: the same steps in the same order, with the same error code, field path, byte
//! offset, values and `ERROR_SITES` number. On success it gives a dynamic [`View`]: every
//! field of the header, the located records, the tables and the collections, with offset,
//! size, raw and decoded value; the byte ranges; and every checksum stored and computed.
//!
//! It shares nothing with the emitter but the checked schema and the lowered model's error
//! sites (`lower/sites.rs`: their numbers and what each check blames): it reads the
//! schema's steps itself (host-only, `std`), and calls only `npuschema-core`'s run-time
//! built-ins (the checksum functions, the range helpers and the error type), so its
//! checksums run at the speed of the generated code's. Each site it can fail at is looked up
//! in the model's list, not numbered again. The two engines can therefore disagree on
//! anything but a number, and the differential tests hold each to the other.
//!
//! ```
//! let c = npuschema_codegen::load(std::path::Path::new("../schema/npu1.yaml")).unwrap();
//! let interp = npuschema_codegen::interp::Interp::new(&c);
//! let err = interp.validate(b"NPU1").unwrap_err();
//! assert_eq!(err.code, "truncated-header");
//! ```

// The parts, in layers: each uses only parts declared above it (no two use each other,
// `codegen/tests/interp_layout.rs`); a lower part reaches a higher one only by a method the
// higher one defines on a lower part's type (as `prog.rs`'s evaluator calls `stream.rs`'s
// `State::stream_first`).
//
// A run's slot storage.
mod slots;
// The dynamic view's forms and their JSON.
mod view_model;
// Compiled expressions and steps, error sites, resolved layouts, word helpers.
mod ir;
// The fast path's lowered forms.
mod lowered;
// A file layout, the interpreter, the run-time state and the generic evaluator.
mod prog;
// The schema's steps compiled.
mod compile;
// `table[index].field`.
mod at;
// Structs in structs.
mod nested;
// `fill` steps.
mod fill;
// Strings.
mod strings;
// `owned_apart`.
mod ownership;
// Field and record decoding for the view.
mod decode;
// Record streams.
mod stream;
// The fast path: lowering and running.
mod fast;
// The dynamic view.
mod view;
// The entry points and the generic executor.
mod run;

pub use prog::Interp;
pub use view_model::{
    ChecksumView, FieldView, Group, LIST_LIMIT, RangeView, RecordView, StringView, Value, View,
};
