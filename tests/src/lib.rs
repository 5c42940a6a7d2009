//! Integration and trybuild tests live in tests/.

pub mod refreader;
