// A writer cannot finish until the command stream is set (typestate).
use npuschema_generated::npu1::{Accel, Npu1Writer};

fn main() {
    let mut out = [0u8; 128];
    let _ = Npu1Writer::new().accel(Accel::Macs128).write_into(&mut out);
}
