// A validated view borrows the buffer: it cannot outlive it.
use npuschema_generated::npu1::{Npu1, Header};

fn header_of_temporary() -> Header<'static> {
    let buf = vec![0u8; 64];
    let view = Npu1::validate(&buf).unwrap();
    view.header()
}

fn main() {
    let _ = header_of_temporary();
}
