/*
 * The proxy (docs/gpu.md, "Device-initiated communication"): one helper
 * thread (services/helper_thread.h) per PE that serves the requests this PE's kernels post in the ring
 * (include/shmem/device/abi.h, shmemd_req_t), in ticket order, through
 * the host path on a private context, so that the target may be reached
 * however host calls reach it (IPC, the fabric, the owner's device
 * service). After a run of requests it quiets the context and publishes
 * how many tickets are complete, which device quiet waits for. It also
 * watches the error box: a kernel that met bad input records it and
 * stops, and the proxy prints the message and ends the job.
 *
 * A kernel cannot call libfabric, so this thread is one of the helpers of
 * docs/design.md, decision 11. It exists only in processes that called
 * shmemd_init.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/core_decl.h"
#include "core/core_api.h"
#include "core/ctx.h"
#include "core/dataplane.h"
#include "core/engine/engine.h"
#include "core/kernel/kernel.h"
#include "core/device_mem.h"
#include "core/heap/device_heap.h"
#include "core/kernel/routine_names.h"
#include "core/state.h"
#include "shmem/device/routines.h"
#include "services/error.h"
#include "services/helper_thread.h"
#include "services/host_probe.h"

static struct {
    shmi_helper_t *thread; /* NULL: not started */
    uint64_t head;         /* next ticket to serve (the thread's) */
    shmi_kernel_ring_t ring;
    shmem_ctx_t ctx;
} px;

static const char *routine_name(uint32_t rid)
{
    return shmi_kernel_routine_names[rid < shmi_kernel_routine_count ? rid : 0];
}

/* The user part of this PE's device heap, as device code addresses it:
 * [heap_base, heap_base + heap_size); the barrier's words follow it. */
static int in_user(uint64_t addr, uint64_t nbytes)
{
    uint64_t base = (uint64_t)(uintptr_t)px.ring.heap_base;

    return addr >= base && addr - base <= px.ring.heap_size &&
           nbytes <= px.ring.heap_size - (addr - base);
}

/* Ends the job for a symmetric range a device routine may not address:
 * the host heap's message (range_check.c) where it lies in the device heap
 * but outside its user part, else the device heap's bounds. */
static _Noreturn void bad_range(const char *routine, const char *what, int pe,
                                uint64_t addr, uint64_t nbytes)
{
    const shmi_seg_t *g = &shmi_state.seg[SHMI_SEG_DEVICE];
    const char *base = px.ring.heap_base;
    char name[128];

    snprintf(name, sizeof(name), "%s (device code)", routine);
    if (addr - (uint64_t)(uintptr_t)g->base < g->size)
        shmi_dp_bad_addr(name, (const void *)(uintptr_t)addr,
                         nbytes > SIZE_MAX - 1 ? SIZE_MAX - 1 : nbytes, pe);
    SHMI_FATAL("%s: PE %d, %saddress %#llx (%llu bytes) is outside the device "
               "heap [%p, %p) or misaligned",
               name, pe, what, (unsigned long long)addr,
               (unsigned long long)nbytes, (const void *)base,
               (const void *)(base + px.ring.heap_size));
}

/* Ends the job with the error a kernel recorded, if one did. */
static void check_error(void)
{
    const shmemd_error_t *e = px.ring.error;
    const char *routine;
    uint64_t a;

    if (__atomic_load_n(&e->set, __ATOMIC_ACQUIRE) != 1)
        return;
    routine = routine_name(e->routine);
    a = e->addr;
    if (e->what == 1)
        SHMI_FATAL("%s (device code): PE %d is out of range 0..%d (address "
                   "%#llx)",
                   routine, e->pe, shmi_n_pes_fast() - 1,
                   (unsigned long long)a);
    /* Outside the user part: the host heap's message says which bound the
     * range crossed; inside it, the call's alignment was wrong. */
    if (e->what == 2 && !in_user(a, e->nbytes))
        bad_range(routine, "", e->pe, a, e->nbytes);
    if (e->what == 2)
        SHMI_FATAL("%s (device code): PE %d, address %#llx (%llu bytes) is "
                   "misaligned for the call (or outside the device heap "
                   "[%p, %p))",
                   routine, e->pe, (unsigned long long)a,
                   (unsigned long long)e->nbytes,
                   (const void *)px.ring.heap_base,
                   (const void *)(px.ring.heap_base + px.ring.heap_size));
    SHMI_FATAL("%s (device code): bad argument %d (PE or comparison), "
               "address %#llx",
               routine, e->pe, (unsigned long long)a);
}

/* ---- what a request may ask (docs/gpu.md, "Device-initiated
 * communication") ---------------------------------------------------------
 * A request is device memory's word, not the library's: every field is
 * checked before the proxy acts on it, as the device service checks what
 * other PEs send it (transports/device/device_proxy.c), and a bad one
 * ends the job naming the device routine, the PE and the value. */

static _Noreturn void bad_request(const shmemd_req_t *q, uint64_t t,
                                  const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static _Noreturn void bad_request(const shmemd_req_t *q, uint64_t t,
                                  const char *fmt, ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    SHMI_FATAL("%s (device code): PE %d: request %llu to the proxy (operation "
               "%u, target PE %d): %s",
               routine_name(q->routine), shmi_my_pe_fast(),
               (unsigned long long)t, q->op, q->pe, why);
}

/* The kernel's local buffer of a PUT (source) or GET (dest): the user
 * part of this PE's device heap, other device memory of the back end, or
 * host memory this process reaches. */
static void check_local(const shmemd_req_t *q, uint64_t t, const char *what,
                        uint64_t addr, uint64_t n, int write)
{
    const shmi_seg_t *g = &shmi_state.seg[SHMI_SEG_DEVICE];
    const shmi_gpu_ops_t *gpu = shmi_device_backend();
    const void *p = (const void *)(uintptr_t)addr;

    if (n == 0)
        return;
    if (addr < 4096 || addr + n - 1 < addr)
        bad_request(q, t, "%s %#llx (%llu bytes) is not a valid address", what,
                    (unsigned long long)addr, (unsigned long long)n);
    if (addr - (uint64_t)(uintptr_t)g->base < g->size ||
        (addr + n - 1) - (uint64_t)(uintptr_t)g->base < g->size) {
        if (!in_user(addr, n))
            bad_request(q, t,
                        "%s %#llx (%llu bytes) is in this PE's device heap "
                        "but not in its user area [%p, %p)",
                        what, (unsigned long long)addr, (unsigned long long)n,
                        (const void *)px.ring.heap_base,
                        (const void *)(px.ring.heap_base + px.ring.heap_size));
        return;
    }
    if (gpu && gpu->is_device(p) && gpu->is_device((const char *)p + (n - 1)))
        return;
    if (shmi_host_unreachable((uintptr_t)addr, (size_t)n, write) != 0)
        bad_request(q, t,
                    "%s %#llx (%llu bytes) is neither device memory nor "
                    "host memory this process may %s",
                    what, (unsigned long long)addr, (unsigned long long)n,
                    write ? "write" : "read");
}

/* A symmetric range of the target: the user part of the device heap. */
static void check_sym(const shmemd_req_t *q, uint64_t t, const char *what,
                      uint64_t addr, uint64_t n, uint64_t align)
{
    if (!in_user(addr, n))
        bad_range(routine_name(q->routine), what, q->pe, addr, n);
    if (addr % align != 0)
        bad_request(q, t, "%saddress %#llx is not aligned to %llu bytes", what,
                    (unsigned long long)addr, (unsigned long long)align);
}

/* Whether an atomic is the device barrier's set of a flag word
 * (shmemd_i_sync_set, include/shmem/device/sync.h): the one request that
 * may address the words past the user part. */
static int is_sync_set(const shmemd_req_t *q)
{
    uint64_t w = (uint64_t)(uintptr_t)px.ring.heap_base + px.ring.heap_size;

    return q->routine == SHMEMD_R_shmemd_sync_all && q->amo == SHMEMD_AMO_SET &&
           q->width == 8 && q->nbytes == 0 && q->dest >= w + 8 &&
           q->dest < w + 8 * (1 + SHMEMD_SYNC_ROUNDS) && q->dest % 8 == 0;
}

static void check_request(const shmemd_req_t *q, uint64_t t)
{
    if (q->routine == SHMEMD_R_NONE || q->routine >= shmi_kernel_routine_count)
        bad_request(q, t, "unknown device routine id %u", q->routine);
    if (q->pe < 0 || q->pe >= shmi_n_pes_fast())
        bad_request(q, t, "target PE %d is out of range 0..%d", q->pe,
                    shmi_n_pes_fast() - 1);
    switch (q->op) {
    case SHMEMD_OP_PUT:
    case SHMEMD_OP_PUT_SIGNAL:
        check_sym(q, t, "dest ", q->dest, q->nbytes, 1);
        check_local(q, t, "source", q->source, q->nbytes, 0);
        if (q->op == SHMEMD_OP_PUT)
            return;
        check_sym(q, t, "sig_addr ", q->sig_addr, 8, 8);
        if (q->amo != SHMEM_SIGNAL_SET && q->amo != SHMEM_SIGNAL_ADD)
            bad_request(q, t,
                        "sig_op %u is neither SHMEM_SIGNAL_SET nor "
                        "SHMEM_SIGNAL_ADD",
                        q->amo);
        return;
    case SHMEMD_OP_GET:
        check_sym(q, t, "source ", q->source, q->nbytes, 1);
        check_local(q, t, "dest", q->dest, q->nbytes, 1);
        return;
    case SHMEMD_OP_P:
    case SHMEMD_OP_G:
        if (q->nbytes == 0 || q->nbytes > sizeof(q->value))
            bad_request(q, t,
                        "%llu bytes: a single-element %s carries 1 to %zu "
                        "bytes (the slot's value field)",
                        (unsigned long long)q->nbytes,
                        q->op == SHMEMD_OP_P ? "put" : "get", sizeof(q->value));
        if (q->op == SHMEMD_OP_P)
            check_sym(q, t, "dest ", q->dest, q->nbytes, 1);
        else
            check_sym(q, t, "source ", q->source, q->nbytes, 1);
        return;
    case SHMEMD_OP_AMO:
        if (q->amo < SHMEMD_AMO_FETCH || q->amo > SHMEMD_AMO_ADD)
            bad_request(q, t, "unknown atomic operation %u", q->amo);
        if (q->width != 4 && q->width != 8)
            bad_request(q, t, "atomic of width %u (4 or 8 bytes)", q->width);
        if (q->nbytes > 1)
            bad_request(q, t, "fetch flag %llu (0 or 1)",
                        (unsigned long long)q->nbytes);
        if (!is_sync_set(q))
            check_sym(q, t, "dest ", q->dest, q->width, q->width);
        return;
    case SHMEMD_OP_FENCE: return;
    default: bad_request(q, t, "unknown operation %u", q->op);
    }
}

static const shmi_amo_op_t amo_ops[] = {
    [SHMEMD_AMO_FETCH] = SHMI_AMO_FETCH,
    [SHMEMD_AMO_SET] = SHMI_AMO_SET,
    [SHMEMD_AMO_SWAP] = SHMI_AMO_SWAP,
    [SHMEMD_AMO_CSWAP] = SHMI_AMO_CSWAP,
    [SHMEMD_AMO_FETCH_ADD] = SHMI_AMO_FETCH_ADD,
    [SHMEMD_AMO_ADD] = SHMI_AMO_ADD,
};

/* The segment and offset of a symmetric address of a request that
 * check_request accepted: what the engine takes. */
static int sym_at(const char *routine, uint64_t addr, size_t nbytes,
                  size_t *off)
{
    return shmi_eng_seg_at(routine, (const void *)(uintptr_t)addr, nbytes, off);
}

/* An atomic request (checked); returns 1 when the kernel waits for its
 * result. The runtime's words past the user part (is_sync_set) take a set
 * like any other word. */
static int serve_amo(const char *routine, const shmemd_req_t *q,
                     uint64_t *result)
{
    uint64_t value = q->value, compare = q->compare;
    shmi_dtype_t dt = q->width == 4 ? SHMI_DT_UINT32 : SHMI_DT_UINT64;
    shmi_amo_op_t op = is_sync_set(q) ? SHMI_AMO_SET : amo_ops[q->amo];
    int fetching = q->nbytes != 0;
    size_t off;
    int seg;

    if (is_sync_set(q))
        dt = SHMI_DT_UINT64;
    seg = sym_at(routine, q->dest, shmi_dtype_size(dt), &off);
    *result = 0;
    shmi_eng_amo(routine, px.ctx, q->pe, seg, off, op, dt, &value, &compare,
                 fetching && !is_sync_set(q) ? result : NULL, 0);
    return fetching;
}

/* Serves ticket t in slot r; returns when the kernel may go on. The
 * request is read once, checked and served from that copy: the kernel
 * side cannot change it in between. */
static void serve(shmemd_req_t *r, uint64_t t)
{
    shmemd_req_t q;
    const char *routine;
    void *dest;
    const void *src;
    uint64_t result = 0, value;
    size_t off, soff;
    int wait = 1, seg, sseg;

    memcpy(&q, r, sizeof(q));
    check_request(&q, t);
    routine = routine_name(q.routine);
    dest = (void *)(uintptr_t)q.dest;
    src = (const void *)(uintptr_t)q.source;
    value = q.value;
    switch (q.op) {
    case SHMEMD_OP_PUT:
    case SHMEMD_OP_P:
        seg = sym_at(routine, q.dest, q.nbytes, &off);
        wait = q.op == SHMEMD_OP_PUT;
        shmi_eng_put(routine, px.ctx, q.pe, seg, off, wait ? src : &value,
                     q.nbytes, 0);
        break;
    case SHMEMD_OP_GET:
    case SHMEMD_OP_G:
        seg = sym_at(routine, q.source, q.nbytes, &off);
        shmi_eng_get(routine, px.ctx, q.pe, seg, off,
                     q.op == SHMEMD_OP_GET ? dest : (void *)&result, q.nbytes,
                     0);
        break;
    case SHMEMD_OP_PUT_SIGNAL:
        sseg = sym_at(routine, q.sig_addr, sizeof(uint64_t), &soff);
        seg = sseg; /* no data: dest is not looked at */
        off = 0;
        if (q.nbytes > 0)
            seg = sym_at(routine, q.dest, q.nbytes, &off);
        shmi_eng_put_signal(
            routine, px.ctx, q.pe, seg, off, src, q.nbytes, sseg, soff, value,
            q.amo == SHMEM_SIGNAL_ADD ? SHMI_AMO_ADD : SHMI_AMO_SET, 0,
            SHMI_ENG_SIGNAL_PROGRAM);
        break;
    case SHMEMD_OP_AMO: wait = serve_amo(routine, &q, &result); break;
    default: /* SHMEMD_OP_FENCE: check_request refused the rest */
        shmi_eng_fence(routine, px.ctx);
        wait = 0;
        break;
    }
    if (wait) {
        r->result = result;
        __atomic_store_n(&r->done, t + 1, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&r->turn, t + px.ring.nslots, __ATOMIC_RELEASE);
    }
}

/* The helper's hooks (services/helper_thread.h). serve: the error box
 * first (on every poll, so that a kernel's error ends the job even while
 * nothing else comes), then the next ticket if its request is ready. */
static int proxy_serve(void *arg)
{
    shmemd_req_t *r = &px.ring.slots[px.head & (px.ring.nslots - 1)];

    (void)arg;
    check_error();
    if (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) != px.head + 1)
        return 0;
    serve(r, px.head++);
    return 1;
}

/* After a run of requests: complete them, then tell device quiet. */
static void proxy_idle(void *arg)
{
    (void)arg;
    shmi_eng_quiet("shmem_quiet (device code)", px.ctx, -1);
    __atomic_store_n(px.ring.completed, px.head, __ATOMIC_RELEASE);
}

int shmi_kernel_proxy_start(const shmi_kernel_ring_t *ring)
{
    /* Decision 10's waits, no nap: kernels wait on this thread. */
    static const shmi_helper_client_t client = {
        .name = "kernel proxy",
        .serve = proxy_serve,
        .idle = proxy_idle,
    };

    px.ring = *ring;
    px.head = 0;
    px.ctx = shmi_ctx_runtime_new(SHMEM_CTX_PRIVATE);
    if (!px.ctx)
        return SHMI_ENOMEM;
    if (shmi_helper_start(&client, &px.thread) != 0) {
        shmi_ctx_runtime_free(px.ctx);
        px.ctx = NULL;
        return SHMI_ENOMEM;
    }
    return 0;
}

void shmi_kernel_finalize(void)
{
    if (px.thread) {
        /* Requests already in the ring are served and completed first. */
        shmi_helper_stop(px.thread);
        px.thread = NULL;
        shmi_ctx_runtime_free(px.ctx);
        px.ctx = NULL;
    }
    shmi_kernel_state_free();
}
