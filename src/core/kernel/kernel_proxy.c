/*
 * The proxy (docs/gpu.md, "Device-initiated communication"): one thread
 * per PE that serves the requests this PE's kernels post in the ring
 * (include/shmem/device/abi.h, shmemd_req_t), in ticket order, through
 * the host path on a private context, so that the target may be reached
 * however host calls reach it (IPC, the fabric, the owner's device
 * service). After a run of requests it quiets the context and publishes
 * how many tickets are complete, which device quiet waits for. It also
 * watches the error box: a kernel that met bad input records it and
 * stops, and the proxy prints the message and ends the job.
 *
 * Like the device service, this thread is an exception to docs/design.md,
 * decision 11 (no progress threads): a kernel cannot call libfabric. It
 * exists only in processes that called shmemd_init.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "api/gen/core_decl.h"
#include "core/core_api.h"
#include "core/ctx.h"
#include "core/dataplane.h"
#include "core/kernel/kernel.h"
#include "core/kernel/routine_names.h"
#include "core/state.h"
#include "services/backoff.h"
#include "services/error.h"

static struct {
    pthread_t thread;
    int running;
    int stop; /* set by shmi_kernel_finalize */
    shmi_kernel_ring_t ring;
    shmem_ctx_t ctx;
} px;

static const char *routine_name(uint32_t rid)
{
    return shmi_kernel_routine_names[rid < shmi_kernel_routine_count ? rid : 0];
}

/* Ends the job with the error a kernel recorded, if one did. */
static void check_error(void)
{
    const shmemd_error_t *e = px.ring.error;
    const char *base = px.ring.heap_base;

    if (__atomic_load_n(&e->set, __ATOMIC_ACQUIRE) != 1)
        return;
    if (e->what == 1)
        SHMI_FATAL("%s (device code): PE %d is out of range 0..%d (address "
                   "%#llx)",
                   routine_name(e->routine), e->pe, shmi_n_pes_fast() - 1,
                   (unsigned long long)e->addr);
    if (e->what == 2)
        SHMI_FATAL("%s (device code): PE %d, address %#llx (%llu bytes) is "
                   "outside the device heap [%p, %p) or misaligned",
                   routine_name(e->routine), e->pe, (unsigned long long)e->addr,
                   (unsigned long long)e->nbytes, (const void *)base,
                   (const void *)(base + px.ring.heap_size));
    SHMI_FATAL("%s (device code): bad argument %d (PE or comparison), "
               "address %#llx",
               routine_name(e->routine), e->pe, (unsigned long long)e->addr);
}

static const shmi_amo_op_t amo_ops[] = {
    [SHMEMD_AMO_FETCH] = SHMI_AMO_FETCH,
    [SHMEMD_AMO_SET] = SHMI_AMO_SET,
    [SHMEMD_AMO_SWAP] = SHMI_AMO_SWAP,
    [SHMEMD_AMO_CSWAP] = SHMI_AMO_CSWAP,
    [SHMEMD_AMO_FETCH_ADD] = SHMI_AMO_FETCH_ADD,
    [SHMEMD_AMO_ADD] = SHMI_AMO_ADD,
};

/* An atomic request; returns 1 when the kernel waits for its result. */
static int serve_amo(const char *routine, const shmemd_req_t *r,
                     uint64_t *result)
{
    uint64_t value = r->value, compare = r->compare;
    shmi_dtype_t dt = r->width == 4 ? SHMI_DT_UINT32 : SHMI_DT_UINT64;
    int fetching = r->nbytes != 0;

    if (r->amo < SHMEMD_AMO_FETCH || r->amo > SHMEMD_AMO_ADD ||
        (r->width != 4 && r->width != 8))
        SHMI_FATAL("%s (device code): PE %d: request with atomic %u of "
                   "width %u",
                   routine, shmi_my_pe_fast(), r->amo, r->width);
    *result = 0;
    shmi_amo(routine, px.ctx, amo_ops[r->amo], dt, (void *)(uintptr_t)r->dest,
             &value, &compare, fetching ? result : NULL, r->pe);
    return fetching;
}

/* Serves ticket t in slot r; returns when the kernel may go on. */
static void serve(shmemd_req_t *r, uint64_t t)
{
    const char *routine = routine_name(r->routine);
    void *dest = (void *)(uintptr_t)r->dest;
    const void *src = (const void *)(uintptr_t)r->source;
    uint64_t result = 0, value = r->value;
    int wait = 1;

    switch (r->op) {
    case SHMEMD_OP_PUT:
        shmi_put(routine, px.ctx, dest, src, r->nbytes, r->pe);
        break;
    case SHMEMD_OP_GET:
        shmi_get(routine, px.ctx, dest, src, r->nbytes, r->pe);
        break;
    case SHMEMD_OP_P:
        shmi_put(routine, px.ctx, dest, &value, r->nbytes, r->pe);
        wait = 0;
        break;
    case SHMEMD_OP_G:
        shmi_get(routine, px.ctx, &result, src, r->nbytes, r->pe);
        break;
    case SHMEMD_OP_PUT_SIGNAL:
        shmi_put_signal(routine, px.ctx, dest, src, r->nbytes,
                        (uint64_t *)(uintptr_t)r->sig_addr, value, (int)r->amo,
                        r->pe, 0);
        break;
    case SHMEMD_OP_AMO: wait = serve_amo(routine, r, &result); break;
    case SHMEMD_OP_FENCE:
        shmi_ctx_fence(px.ctx);
        wait = 0;
        break;
    default:
        SHMI_FATAL("%s (device code): PE %d: request %llu with unknown "
                   "operation %u",
                   routine, shmi_my_pe_fast(), (unsigned long long)t, r->op);
    }
    if (wait) {
        r->result = result;
        __atomic_store_n(&r->done, t + 1, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&r->turn, t + px.ring.nslots, __ATOMIC_RELEASE);
    }
}

static void *proxy_main(void *arg)
{
    uint64_t head = 0, mask = px.ring.nslots - 1;
    int unflushed = 0;
    shmi_backoff_t b;

    (void)arg;
    shmi_backoff_init(&b);
    for (;;) {
        shmemd_req_t *r = &px.ring.slots[head & mask];

        check_error();
        if (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) == head + 1) {
            serve(r, head++);
            unflushed = 1;
            shmi_backoff_init(&b);
        } else if (unflushed) {
            shmi_ctx_quiet(px.ctx);
            __atomic_store_n(px.ring.completed, head, __ATOMIC_RELEASE);
            unflushed = 0;
        } else if (__atomic_load_n(&px.stop, __ATOMIC_ACQUIRE)) {
            break;
        } else {
            shmi_backoff_wait(&b); /* the waits' policy: decision 10 */
        }
    }
    return NULL;
}

int shmi_kernel_proxy_start(const shmi_kernel_ring_t *ring)
{
    px.ring = *ring;
    px.stop = 0;
    px.ctx = shmi_ctx_runtime_new(SHMEM_CTX_PRIVATE);
    if (!px.ctx)
        return SHMI_ENOMEM;
    shmi_progress_share();
    if (pthread_create(&px.thread, NULL, proxy_main, NULL) != 0) {
        shmi_ctx_runtime_free(px.ctx);
        px.ctx = NULL;
        return SHMI_ENOMEM;
    }
    px.running = 1;
    return 0;
}

void shmi_kernel_finalize(void)
{
    if (px.running) {
        __atomic_store_n(&px.stop, 1, __ATOMIC_RELEASE);
        pthread_join(px.thread, NULL);
        shmi_ctx_runtime_free(px.ctx);
        px.ctx = NULL;
        px.running = 0;
    }
    shmi_kernel_state_free();
}
