// A read view hands out shared borrows only: the blob cannot be modified through it.
use npuschema_generated::npu1::Npu1;

fn main() {
    let buf = vec![0u8; 64];
    let view = Npu1::validate(&buf).unwrap();
    let stream = view.cmd_stream();
    stream[0] = 0xff;
}
