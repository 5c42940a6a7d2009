//! Proc-macro entry point.
