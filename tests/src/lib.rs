//! Integration and trybuild tests live in tests/.
