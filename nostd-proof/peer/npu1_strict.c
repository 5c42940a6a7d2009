/* A reference point for scripts/code-size, not a product: shared/peers/npu1_ref.c (the C
 * peer) extended, as a careful C firmware engineer would, with the checks that the
 * generated validator and the binder make and the peer does not, so that the size of
 * "the same checks in C" can be read next to the Rust figure:
 *   - region flags with bits other than BAKED are refused (unknown-region-flags);
 *   - the command stream and every baked region must sit at a 16-byte aligned address
 *     (misaligned-command-stream, misaligned-baked-region);
 *   - a zero-size runtime region takes no room and is not refused past the arena's end;
 *   - distinct codes for an empty and an out-of-bounds command stream.
 * Same contract as the peer (valid pointers: the Rust entry points take slices, which
 * cannot be null), same job layout and FNV-1a. One pass over the descriptors, as C
 * would. The placement checks are written by difference and quotient (`size > total - off`,
 * `count > (total - HDR_BYTES) / DESC_BYTES`), as the generated code makes them, rather than
 * as the peer's 64-bit sums: on a 32-bit core the sums cost a carry chain each. */
#include <stdint.h>
#include <stddef.h>

#define NPU1_MAGIC 0x3155504Eu
#define HDR_BYTES 32u
#define DESC_BYTES 16u
#define ALIGN 16u
#define FLAG_BAKED 1u
#define MAX_REGIONS 8u

typedef struct { const uint8_t *cmd; uint32_t cmd_bytes; uintptr_t base[MAX_REGIONS]; uint32_t size[MAX_REGIONS]; uint32_t count; } npu1_job_t;

enum { OK = 0, E_SHORT, E_MAGIC, E_VERSION, E_TOTAL, E_TABLE, E_EMPTY, E_CMD, E_CHECKSUM,
       E_FLAGS, E_BAKED, E_TOO_MANY, E_CMD_ALIGN, E_BAKED_ALIGN, E_ARENA };

static inline uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24); }

static uint32_t fnv1a(const uint8_t *p, size_t n) {
    uint32_t h = 0x811C9DC5u;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x01000193u; }
    return h;
}

int npu1_load_strict(const uint8_t *blob, size_t len, uint8_t *arena, size_t arena_len, npu1_job_t *job) {
    if (len < HDR_BYTES) return E_SHORT;
    if (rd32(blob) != NPU1_MAGIC) return E_MAGIC;
    if (rd32(blob + 4) != 1u) return E_VERSION;
    uint32_t total = rd32(blob + 8);
    if ((size_t)total != len) return E_TOTAL;
    uint32_t count = rd32(blob + 12);
    if (count > (total - HDR_BYTES) / DESC_BYTES) return E_TABLE; /* total == len >= HDR_BYTES */
    uint32_t cmd_off = rd32(blob + 16), cmd_bytes = rd32(blob + 20);
    if (cmd_bytes == 0) return E_EMPTY;
    if (cmd_off > total || cmd_bytes > total - cmd_off) return E_CMD;
    if (fnv1a(blob + HDR_BYTES, total - HDR_BYTES) != rd32(blob + 28)) return E_CHECKSUM;
    if (count > MAX_REGIONS) return E_TOO_MANY;
    if (((uintptr_t)blob + cmd_off) % ALIGN) return E_CMD_ALIGN;
    uintptr_t cursor = (uintptr_t)arena, end = (uintptr_t)arena + arena_len;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *d = blob + HDR_BYTES + i * DESC_BYTES;
        uint32_t flags = rd32(d + 4), size = rd32(d + 8), off = rd32(d + 12);
        if (flags & ~FLAG_BAKED) return E_FLAGS;
        if (flags & FLAG_BAKED) {
            if (off > total || size > total - off) return E_BAKED;
            if (((uintptr_t)blob + off) % ALIGN) return E_BAKED_ALIGN;
            job->base[i] = (uintptr_t)(blob + off);
        } else {
            uintptr_t a = (cursor + (ALIGN - 1)) & ~(uintptr_t)(ALIGN - 1);
            if (a < cursor) return E_ARENA;
            if (size) {
                if (a > end || end - a < size) return E_ARENA;
                cursor = a + size;
            }
            job->base[i] = a;
        }
        job->size[i] = size;
    }
    job->count = count;
    job->cmd = blob + cmd_off;
    job->cmd_bytes = cmd_bytes;
    return OK;
}
