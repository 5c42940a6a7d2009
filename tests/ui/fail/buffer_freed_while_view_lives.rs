// The buffer cannot be dropped or reused while a view of it lives.
use npuschema_generated::npu1::Npu1;

fn main() {
    let mut buf = vec![0u8; 64];
    let view = Npu1::validate(&buf);
    buf.clear();
    let _ = view;
}
