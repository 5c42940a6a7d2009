// Fields are read only through a validated view: there is no way to build one from raw
// bytes without `validate`.
use npuschema_generated::npu1::Npu1;

fn main() {
    let buf = [0u8; 64];
    let view = Npu1 { buf: &buf[..] };
    let _ = view.header().total_bytes();
}
