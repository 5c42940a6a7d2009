//! no_std firmware runtime: arena binder, command-stream checker, Ethos-U55 driver
