//! The schema interpreter: the second engine of the schema language.
//!
//! It takes a checked schema (the same load and check as the generator: [`crate::load`],
//! [`crate::load_str`]) and a byte slice, and runs the same validation as the generated
//! `validate`: the same steps in the same order, with the same error code, field path, byte
//! offset, values and `ERROR_SITES` number. On success it gives a dynamic [`View`]: every
//! field of the header, the located records, the tables and the collections, with offset,
//! size, raw and decoded value; the byte ranges; and every checksum stored and computed.
//!
//! It shares nothing with the emitter but the checked schema: it reads the schema's steps
//! itself (host-only, `std`), and calls only `npuschema-core`'s run-time built-ins (the
//! checksum functions, the range helpers and the error type), so its checksums run at the
//! speed of the generated code's. The two engines can therefore disagree, and the
//! differential tests hold each to the other.
//!
//! ```
//! let c = npuschema_codegen::load(std::path::Path::new("../schema/npu1.yaml")).unwrap();
//! let interp = npuschema_codegen::interp::Interp::new(&c);
//! let err = interp.validate(b"NPU1").unwrap_err();
//! assert_eq!(err.code, "truncated-header");
//! ```

// The parts, each using only parts above it in this list (no two use each other); a lower
// part reaches a higher one only through a method the higher one defines on a lower type.
mod at;
mod compile;
mod decode;
mod fast;
mod fill;
mod ir;
mod lowered;
mod nested;
mod prog;
mod run;
mod slots;
mod stream;
mod strings;
mod view;
mod view_model;

pub use prog::Interp;
pub use view_model::{
    ChecksumView, FieldView, Group, RangeView, RecordView, StringView, Value, View,
};
