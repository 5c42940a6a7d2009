//! Checked-in generated readers, validators and writers for the shipped schemas
