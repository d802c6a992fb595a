/*
 * What the program and its kernels may not address on the device heap, and
 * what the kernel proxy must refuse (docs/gpu.md, "Device-initiated
 * communication"); each mode must end the job with a message
 * (tests/gpu/gpu.cases, through tests/badinput/expect_fail.sh), never hang
 * or crash. Run with SHMEM_SYMMETRIC_DEVICE_SIZE=1m on the mock, 2 PEs:
 * the device barrier's words then start 1 MiB into the device heap.
 *
 *   host_put   PE 0 puts into PE 1's barrier count from the host
 *   host_amo   PE 0 adds to it with a host atomic
 *   dev_p      a kernel of PE 0 writes it with shmemd_long_p
 *   ok         none of that: the device barrier passes (the check itself)
 *   then, in every mode, a kernel barrier on every PE (it would hang on
 *   PE 1 had the write landed).
 *
 * With SHMEM_KERNEL_PATH=proxy (PE 1 reached through PE 0's proxy), PE 0's
 * kernel posts requests by hand that no device routine posts:
 *   big_g      a G of 64 KiB (the slot's value field holds 8 bytes)
 *   big_p      a P of 4 KiB
 *   bad_src    a PUT whose source is a page mapped PROT_NONE
 *   low_src    a PUT whose source is address 0x10
 *   ro_dst     a GET into a read-only page
 *   bad_op     an operation code no device routine uses
 *   sync_word  an atomic on the barrier's words from another routine
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>

#include "tests/gpu/gpu_test.h"

/* SHMEM_SYMMETRIC_DEVICE_SIZE of the cases: the user part of the heap. */
#define USER_BYTES ((uint64_t)1 << 20)

typedef struct kb_args {
    const char *mode;
    long *block; /* a device block, the same on every PE */
    void *local; /* the bad local buffer of the mode */
} kb_args_t;

static long *reserve_word(void)
{
    return (long *)(shmemd_i_state()->heap_base + USER_BYTES);
}

/* A request as no device routine writes it, from PE 0 to PE 1. */
static void post_raw(const kb_args_t *a)
{
    const shmemd_state_t *s = shmemd_i_state();
    uint32_t op = SHMEMD_OP_PUT, rid = SHMEMD_R_shmemd_putmem;
    uint64_t t;
    shmemd_req_t *r;

    if (strcmp(a->mode, "big_g") == 0) {
        op = SHMEMD_OP_G;
        rid = SHMEMD_R_shmemd_long_g;
    } else if (strcmp(a->mode, "big_p") == 0) {
        op = SHMEMD_OP_P;
        rid = SHMEMD_R_shmemd_long_p;
    } else if (strcmp(a->mode, "ro_dst") == 0) {
        op = SHMEMD_OP_GET;
        rid = SHMEMD_R_shmemd_getmem;
    } else if (strcmp(a->mode, "bad_op") == 0) {
        op = 77;
    } else if (strcmp(a->mode, "sync_word") == 0) {
        op = SHMEMD_OP_AMO;
        rid = SHMEMD_R_shmemd_long_atomic_add;
    }
    r = shmemd_i_slot(s, rid, op, 1, &t);
    r->dest = (uint64_t)(uintptr_t)a->block;
    r->source = (uint64_t)(uintptr_t)a->block;
    r->nbytes = 64;
    r->value = 1000;
    if (op == SHMEMD_OP_G)
        r->nbytes = 65536;
    else if (op == SHMEMD_OP_P)
        r->nbytes = 4096;
    else if (op == SHMEMD_OP_PUT)
        r->source = (uint64_t)(uintptr_t)a->local;
    else if (op == SHMEMD_OP_GET)
        r->dest = (uint64_t)(uintptr_t)a->local;
    if (op == SHMEMD_OP_AMO) {
        r->dest = (uint64_t)(uintptr_t)reserve_word() + 8;
        r->amo = SHMEMD_AMO_ADD;
        r->width = 8;
        r->nbytes = 0;
    }
    shmemd_i_post(r, t);
    shmemd_i_await(s, r, t);
}

static void k_misuse(void **v)
{
    const kb_args_t *a = (const kb_args_t *)v[0];

    if (shmemd_my_pe() != 0)
        return;
    if (strcmp(a->mode, "dev_p") == 0)
        shmemd_long_p(reserve_word(), 1000, 1);
    else if (strcmp(a->mode, "ok") != 0 && strcmp(a->mode, "host_put") != 0 &&
             strcmp(a->mode, "host_amo") != 0)
        post_raw(a);
    shmemd_quiet();
}

static void k_barrier(void **v)
{
    (void)v;
    shmemd_barrier_all();
    shmemd_barrier_all();
}

static void launch(void (*fn)(void **), kb_args_t *a)
{
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    void *args[1] = {a};

    shmem_barrier_all();
    CHECK(shmemx_collective_launch((const void *)fn, grid, block, args, 0,
                                   NULL) == 0);
    shmem_barrier_all();
}

/* The local buffer the mode passes to the proxy. */
static void *bad_local(const char *mode)
{
    void *p;

    if (strcmp(mode, "low_src") == 0)
        return (void *)(uintptr_t)0x10;
    if (strcmp(mode, "bad_src") != 0 && strcmp(mode, "ro_dst") != 0)
        return NULL;
    /* bad_src: a page nothing may read (an unmapped one could be mapped
     * again by the time the proxy looks, as ASan's allocator does). */
    p = mmap(NULL, 4096, strcmp(mode, "bad_src") == 0 ? PROT_NONE : PROT_READ,
             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    return p;
}

int main(int argc, char **argv)
{
    kb_args_t a;
    long v = 1000;
    int me;

    shmem_init();
    me = shmem_my_pe();
    a.mode = argc > 1 ? argv[1] : "ok";
    a.block = (long *)shmemx_calloc_device(1, 64 << 10);
    if (!a.block)
        return gt_skip_no_device_heap();
    CHECK(shmem_n_pes() == 2);
    CHECK(shmemd_init() == 0);
    a.local = bad_local(a.mode);
    if (me == 0 && strcmp(a.mode, "host_put") == 0)
        shmem_putmem(reserve_word(), &v, sizeof(v), 1);
    if (me == 0 && strcmp(a.mode, "host_amo") == 0)
        shmem_long_atomic_add(reserve_word(), v, 1);
    shmem_quiet();
    launch(k_misuse, &a);
    launch(k_barrier, &a);
    if (me == 0)
        printf("kernel_bad %s: the device barrier passed\n", a.mode);
    fflush(stdout);
    return check_pes_end("kernel_bad");
}
