//! no_std firmware runtime: arena binder, command-stream checker, Ethos-U55 driver
//!
//! No allocation and no panics. `unsafe` is denied crate-wide; the one exception is
//! [`mmio`], the volatile register access, where every block carries a `// SAFETY:` comment.
#![no_std]
#![deny(unsafe_code)]

pub mod binder;
pub mod cmd;
pub mod driver;
pub mod mmio;
pub mod tensors;
