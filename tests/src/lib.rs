//! Integration and trybuild tests live in tests/.

/// The binrw reference readers (crate `npuschema-refreader`, in `tests/refreader/`).
pub use npuschema_refreader as refreader;

pub mod compare;
pub mod construct_blobs;
pub mod nested_blobs;
pub mod npu1_blobs;
pub mod opendir_blobs;
pub mod vela;
