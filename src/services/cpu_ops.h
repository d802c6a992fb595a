/*
 * Copies and atomics with the CPU's own instructions on memory mapped in
 * this process: the load/store path of the core (src/core/rma.c, amo.c,
 * signal.c) applies them to peers' mapped segments, and the device back
 * ends and the device service to host memory. Inline, so that an on-node
 * 8-byte put or fetch-add costs a few instructions and no call.
 *
 * Memory model (docs/dataplane.md):
 *  - puts are plain stores, except that naturally aligned 1/2/4/8-byte puts
 *    and gets access the peer's memory with one relaxed atomic access, so
 *    that a PE polling a flag written by shmem_long_p never sees a torn
 *    value (the caller's own buffer takes a plain access);
 *  - read-modify-write atomics are sequentially consistent (one locked
 *    instruction on x86 either way); atomic fetch is an acquire load and
 *    atomic set a release store;
 *  - a signal is a release store or an atomic add after the data, so a PE
 *    that observes it with an acquire load also observes the data;
 *  - fence and quiet are release fences (src/core/order.c).
 */
#ifndef SHMI_CPU_OPS_H
#define SHMI_CPU_OPS_H

#include <stdint.h>
#include <string.h>

#include "services/amo_op.h"
#include "services/dtype.h"

/* Which side of a copy is the peer's memory (shmi_cpu_copy). */
typedef enum { SHMI_CPU_TO_PEER, SHMI_CPU_FROM_PEER } shmi_cpu_dir_t;

/*
 * One naturally aligned word of 1, 2, 4 or 8 bytes: a relaxed atomic access
 * on the peer's side, a plain one on the local side (the caller's buffer,
 * which nobody else watches). The plain side lets a shmem_TYPE_p/_g keep
 * its value in a register.
 */
static inline void shmi_cpu_word(void *dst, const void *src, size_t len,
                                   shmi_cpu_dir_t dir)
{
    uint64_t v64;
    uint32_t v32;
    uint16_t v16;
    uint8_t v8;

    switch (len) {
    case 8:
        if (dir == SHMI_CPU_TO_PEER) {
            memcpy(&v64, src, 8);
            __atomic_store_n((uint64_t *)dst, v64, __ATOMIC_RELAXED);
        } else {
            v64 = __atomic_load_n((const uint64_t *)src, __ATOMIC_RELAXED);
            memcpy(dst, &v64, 8);
        }
        break;
    case 4:
        if (dir == SHMI_CPU_TO_PEER) {
            memcpy(&v32, src, 4);
            __atomic_store_n((uint32_t *)dst, v32, __ATOMIC_RELAXED);
        } else {
            v32 = __atomic_load_n((const uint32_t *)src, __ATOMIC_RELAXED);
            memcpy(dst, &v32, 4);
        }
        break;
    case 2:
        if (dir == SHMI_CPU_TO_PEER) {
            memcpy(&v16, src, 2);
            __atomic_store_n((uint16_t *)dst, v16, __ATOMIC_RELAXED);
        } else {
            v16 = __atomic_load_n((const uint16_t *)src, __ATOMIC_RELAXED);
            memcpy(dst, &v16, 2);
        }
        break;
    default:
        if (dir == SHMI_CPU_TO_PEER) {
            memcpy(&v8, src, 1);
            __atomic_store_n((uint8_t *)dst, v8, __ATOMIC_RELAXED);
        } else {
            v8 = __atomic_load_n((const uint8_t *)src, __ATOMIC_RELAXED);
            memcpy(dst, &v8, 1);
        }
        break;
    }
}

/*
 * Copies len bytes to a peer's mapping or from it (dir says which side is
 * the peer's). Naturally aligned 1, 2, 4 and 8 bytes take one access each
 * way (shmi_cpu_word), so that a PE polling a flag never sees it torn. One
 * test sorts them out (len a power of two up to 8, the peer's address
 * aligned to it; the local side's alignment does not matter to a plain
 * access), then the common 8 comes first: a switch on len compiled to a jump
 * table, whose indirect jump cost more than the copy.
 */
static inline void shmi_cpu_copy(void *dst, const void *src, size_t len,
                                   shmi_cpu_dir_t dir)
{
    const void *peer = dir == SHMI_CPU_TO_PEER ? dst : src;
    uintptr_t mis = (uintptr_t)peer & (len - 1);

    if (__builtin_expect(len - 1 < 8 && (len & (len - 1)) == 0 && mis == 0,
                         1)) {
        if (__builtin_expect(len == 8, 1))
            shmi_cpu_word(dst, src, 8, dir);
        else
            shmi_cpu_word(dst, src, len, dir);
        return;
    }
    memcpy(dst, src, len);
}

/*
 * One integer atomic of each width, returning the old value. Signedness does
 * not matter for two's complement add/and/or/xor/swap/cswap, so the unsigned
 * type of the width serves every integer dtype.
 */
#define SHMI_CPU_AMO_INT(BITS)                                               \
    static inline uint##BITS##_t shmi_cpu_amo_u##BITS(                       \
        uint##BITS##_t *p, shmi_amo_op_t op, uint##BITS##_t v,                 \
        uint##BITS##_t cmp)                                                    \
    {                                                                          \
        switch (op) {                                                          \
        case SHMI_AMO_FETCH: return __atomic_load_n(p, __ATOMIC_ACQUIRE);      \
        case SHMI_AMO_SET: __atomic_store_n(p, v, __ATOMIC_RELEASE); return 0; \
        case SHMI_AMO_CSWAP:                                                   \
            __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_SEQ_CST,       \
                                        __ATOMIC_SEQ_CST);                     \
            return cmp;                                                        \
        case SHMI_AMO_SWAP:                                                    \
            return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                \
        case SHMI_AMO_FETCH_INC:                                               \
        case SHMI_AMO_INC: return __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);  \
        case SHMI_AMO_FETCH_ADD:                                               \
        case SHMI_AMO_ADD: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);  \
        case SHMI_AMO_FETCH_AND:                                               \
        case SHMI_AMO_AND: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);  \
        case SHMI_AMO_FETCH_OR:                                                \
        case SHMI_AMO_OR: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);    \
        case SHMI_AMO_FETCH_XOR:                                               \
        case SHMI_AMO_XOR: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);  \
        default: return 0;                                                     \
        }                                                                      \
    }
SHMI_CPU_AMO_INT(8)
SHMI_CPU_AMO_INT(16)
SHMI_CPU_AMO_INT(32)
SHMI_CPU_AMO_INT(64)
#undef SHMI_CPU_AMO_INT

/* One word of any AMO width; operands are copied in with their own size. */
typedef union shmi_cpu_word {
    uint64_t u64;
    uint32_t u32;
    uint16_t u16;
    uint8_t u8;
    double d;
    float f;
} shmi_cpu_word_t;

/* Arithmetic on float/double words: a compare-and-swap loop on their bits.
 * (The specification has no such AMO today; fetch/set/swap of float and
 * double are bitwise and take the integer path.) */
static inline shmi_cpu_word_t
shmi_cpu_amo_fp(void *p, shmi_amo_op_t op, size_t size, shmi_cpu_word_t v)
{
    shmi_cpu_word_t old, nw;

    if (op == SHMI_AMO_INC || op == SHMI_AMO_FETCH_INC) {
        if (size == 4)
            v.f = 1.0f;
        else
            v.d = 1.0;
    }
    if (size == 4) {
        old.u32 = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED);
        do {
            nw.f = old.f + v.f;
        } while (!__atomic_compare_exchange_n((uint32_t *)p, &old.u32, nw.u32,
                                              1, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
    } else {
        old.u64 = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED);
        do {
            nw.d = old.d + v.d;
        } while (!__atomic_compare_exchange_n((uint64_t *)p, &old.u64, nw.u64,
                                              1, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
    }
    return old;
}

static inline int shmi_cpu_amo_is_arith(shmi_amo_op_t op)
{
    return op == SHMI_AMO_ADD || op == SHMI_AMO_FETCH_ADD ||
           op == SHMI_AMO_INC || op == SHMI_AMO_FETCH_INC;
}

/* Reads and writes of one operand of `size` bytes: constant-size copies,
 * which compile to single moves (a variable-size memcpy is a library call
 * on the hot path). */
static inline shmi_cpu_word_t shmi_cpu_word_in(const void *src, size_t size)
{
    shmi_cpu_word_t w = {0};

    if (src == NULL)
        return w;
    switch (size) {
    case 8: memcpy(&w.u64, src, 8); break;
    case 4: memcpy(&w.u32, src, 4); break;
    case 2: memcpy(&w.u16, src, 2); break;
    default: memcpy(&w.u8, src, 1); break;
    }
    return w;
}

static inline void shmi_cpu_word_out(void *dst, shmi_cpu_word_t w,
                                       size_t size)
{
    if (dst == NULL)
        return;
    switch (size) {
    case 8: memcpy(dst, &w.u64, 8); break;
    case 4: memcpy(dst, &w.u32, 4); break;
    case 2: memcpy(dst, &w.u16, 2); break;
    default: memcpy(dst, &w.u8, 1); break;
    }
}

/*
 * Applies op to the word at p (a peer's mapping or our own memory), which
 * the caller checked to be naturally aligned and of a size of 1, 2, 4 or 8.
 * operand/compare/fetched as in shmi_amo (core_api.h); each points to one
 * element of the dtype.
 */
static inline void shmi_cpu_amo_apply(void *p, shmi_amo_op_t op,
                                        shmi_dtype_t dt, const void *operand,
                                        const void *compare, void *fetched)
{
    size_t size = shmi_dtype_size(dt);
    shmi_cpu_word_t v = shmi_cpu_word_in(operand, size);
    shmi_cpu_word_t c = shmi_cpu_word_in(compare, size);
    shmi_cpu_word_t old = {0};

    if (shmi_dtype_kind(dt) == SHMI_DK_FLOAT && shmi_cpu_amo_is_arith(op))
        old = shmi_cpu_amo_fp(p, op, size, v);
    else if (size == 8)
        old.u64 = shmi_cpu_amo_u64(p, op, v.u64, c.u64);
    else if (size == 4)
        old.u32 = shmi_cpu_amo_u32(p, op, v.u32, c.u32);
    else if (size == 2)
        old.u16 = shmi_cpu_amo_u16(p, op, v.u16, c.u16);
    else
        old.u8 = shmi_cpu_amo_u8(p, op, v.u8, c.u8);
    shmi_cpu_word_out(fetched, old, size);
}

/* A signal update: an atomic add (add = 1, SHMEM_SIGNAL_ADD), a full
 * barrier, or a release store (SHMEM_SIGNAL_SET); either keeps the signal
 * from becoming visible before the stores that precede it. */
static inline void shmi_cpu_signal(uint64_t *sig, uint64_t signal, int add)
{
    if (add)
        __atomic_fetch_add(sig, signal, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
}

/* Data, then the signal (shmi_cpu_signal). */
static inline void shmi_cpu_put_signal(void *dst, const void *src, size_t len,
                                       uint64_t *sig, uint64_t signal, int add)
{
    shmi_cpu_copy(dst, src, len, SHMI_CPU_TO_PEER);
    shmi_cpu_signal(sig, signal, add);
}

#endif /* SHMI_CPU_OPS_H */
