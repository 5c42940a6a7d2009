// An AddressMap decides where the NPU's DMA reads and writes: one that returns another
// live buffer's address for the arena would point BASEPn at it. Implementing it is
// therefore `unsafe` (as embedded-dma's DMA-address traits are): safe code cannot.
// Expected: E0200 (the trait requires an `unsafe impl`).
use npuschema_runtime::binder::AddressMap;

struct Elsewhere(usize);

impl AddressMap for Elsewhere {
    fn npu_address(&self, _cpu: usize) -> u64 {
        self.0 as u64 // some other buffer
    }
}

fn main() {
    let _ = Elsewhere(0x2000_0000).npu_address(0);
}
