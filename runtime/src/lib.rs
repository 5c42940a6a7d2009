//! no_std firmware runtime: arena binder, command-stream checker, Ethos-U55 driver
#![no_std]
#![deny(unsafe_code)]

pub mod cmd;
