/*
 * Stream-ordered RMA, signals and quiet (stream.h), and the helpers that
 * create, synchronise and feed streams through the device back end, for
 * programs (and tests) that have no GPU runtime of their own to call: on
 * cuda and hip they are the runtime's streams, on the mock its in-order
 * host queues.
 *
 * Every buffer of a stream-ordered routine is device memory: symmetric
 * addresses in the device heap, local buffers anywhere the back end's
 * copies reach (its own allocations, or an imported peer heap).
 *
 * Each routine checks its arguments here, once, and translates the
 * symmetric ones into offsets in the device heap. The route table says
 * where the back end's copies reach the target directly (route.h, copy):
 * then the operation is one copy on the stream; else the stream's lane
 * hands (PE, segment, offset) to the engine (src/core/engine/engine.h).
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>

#include "core/core_api.h"
#include "core/device_mem.h"
#include "core/engine/engine.h"
#include "core/heap/device_heap.h"
#include "core/init.h"
#include "core/route.h"
#include "core/segment.h"
#include "core/state.h"
#include "core/stream/stream.h"
#include "services/error.h"

typedef struct rma_args {
    const char *routine;
    size_t off;  /* of the symmetric buffer, in the device heap */
    size_t soff; /* of the signal word, in the device heap */
    void *dest;  /* the local buffer of a get */
    const void *src;
    size_t nbytes;
    uint64_t signal;
    shmi_amo_op_t sig_op;
    const uint64_t *sig; /* this PE's own signal word (waits) */
    int cmp;
    int pe;
} rma_args_t;

static void check_pe(const char *routine, int pe)
{
    if (pe < 0 || pe >= shmi_n_pes_fast())
        SHMI_FATAL("%s: PE %d: target PE %d is outside 0..%d", routine,
                   shmi_my_pe_fast(), pe, shmi_n_pes_fast() - 1);
}

/* Where sym lies in the device heap (the caller checked that it does). */
static size_t device_off(const void *sym)
{
    return (size_t)((const char *)sym - shmi_state.seg[SHMI_SEG_DEVICE].base);
}

/* Where the back end's copy on the stream reaches offset off of pe's
 * device heap directly (route.h, copy), or NULL: the operation goes
 * through the stream's lane. */
static char *direct_ptr(int pe, size_t off)
{
    const shmi_route_t *r = shmi_route_of(pe, SHMI_SEG_DEVICE);

    return r->copy ? r->copy + off : NULL;
}

static rma_args_t *args_new(rma_args_t a)
{
    rma_args_t *p = malloc(sizeof(*p));

    if (p)
        *p = a;
    return p;
}

static void stream_copy(const char *routine, void *dst, const void *src,
                        size_t len, void *stream)
{
    int ret = shmi_stream_backend(routine)->stream_copy(dst, src, len,
                                                        SHMI_GPU_D2D, stream);

    if (ret != 0)
        shmi_device_fail(routine, shmi_my_pe_fast(), ret);
}

/* ---- what the lanes run ---- */

static void run_put(shmi_coll_exec_t *x, void *arg)
{
    rma_args_t *a = arg;

    shmi_eng_put(a->routine, x->ctx, a->pe, SHMI_SEG_DEVICE, a->off, a->src,
                 a->nbytes, 0);
    shmi_eng_quiet(a->routine, x->ctx, -1);
}

static void run_get(shmi_coll_exec_t *x, void *arg)
{
    rma_args_t *a = arg;

    shmi_eng_get(a->routine, x->ctx, a->pe, SHMI_SEG_DEVICE, a->off, a->dest,
                 a->nbytes, 0);
}

static void run_put_signal(shmi_coll_exec_t *x, void *arg)
{
    rma_args_t *a = arg;

    shmi_eng_put_signal(a->routine, x->ctx, a->pe, SHMI_SEG_DEVICE, a->off,
                        a->src, a->nbytes, SHMI_SEG_DEVICE, a->soff, a->signal,
                        a->sig_op, 0, SHMI_ENG_SIGNAL_PROGRAM);
    shmi_eng_quiet(a->routine, x->ctx, -1);
}

/* The signal alone, after a put done on the stream itself. */
static void run_signal(shmi_coll_exec_t *x, void *arg)
{
    rma_args_t *a = arg;

    shmi_eng_amo(a->routine, x->ctx, a->pe, SHMI_SEG_DEVICE, a->soff, a->sig_op,
                 SHMI_DT_UINT64, &a->signal, NULL, NULL, 0);
    shmi_eng_quiet(a->routine, x->ctx, -1);
}

static void run_signal_wait(shmi_coll_exec_t *x, void *arg)
{
    rma_args_t *a = arg;

    (void)x;
    shmi_device_signal_wait(a->routine, a->sig, a->cmp, a->signal);
}

static void run_quiet(shmi_coll_exec_t *x, void *arg)
{
    rma_args_t *a = arg;

    shmi_eng_quiet(a->routine, x->ctx, -1);
}

/* ---- the routines ---- */

void shmix_putmem_on_stream(void *dest, const void *source, size_t nelems,
                            int pe, void *stream)
{
    const char *routine = "shmemx_putmem_on_stream";
    char *direct;

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    check_pe(routine, pe);
    shmi_stream_need_count(routine, "nelems", nelems, nelems);
    shmi_stream_need_device_heap(routine, "dest", dest, nelems);
    shmi_stream_need_device(routine, "source", source, "nelems", nelems);
    if (nelems == 0)
        return;
    if ((direct = direct_ptr(pe, device_off(dest))))
        stream_copy(routine, direct, source, nelems, stream);
    else
        shmi_stream_enqueue(routine, stream, run_put,
                            args_new((rma_args_t){.routine = routine,
                                                  .off = device_off(dest),
                                                  .src = source,
                                                  .nbytes = nelems,
                                                  .pe = pe}));
}

void shmix_getmem_on_stream(void *dest, const void *source, size_t nelems,
                            int pe, void *stream)
{
    const char *routine = "shmemx_getmem_on_stream";
    char *direct;

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    check_pe(routine, pe);
    shmi_stream_need_count(routine, "nelems", nelems, nelems);
    shmi_stream_need_device_heap(routine, "source", source, nelems);
    shmi_stream_need_device(routine, "dest", dest, "nelems", nelems);
    if (nelems == 0)
        return;
    if ((direct = direct_ptr(pe, device_off(source))))
        stream_copy(routine, dest, direct, nelems, stream);
    else
        shmi_stream_enqueue(routine, stream, run_get,
                            args_new((rma_args_t){.routine = routine,
                                                  .off = device_off(source),
                                                  .dest = dest,
                                                  .nbytes = nelems,
                                                  .pe = pe}));
}

void shmix_putmem_signal_on_stream(void *dest, const void *source,
                                   size_t nelems, uint64_t *sig_addr,
                                   uint64_t signal, int sig_op, int pe,
                                   void *stream)
{
    const char *routine = "shmemx_putmem_signal_on_stream";
    rma_args_t a = {.routine = routine,
                    .src = source,
                    .nbytes = nelems,
                    .signal = signal,
                    .sig_op = sig_op == SHMEM_SIGNAL_ADD ? SHMI_AMO_ADD
                                                         : SHMI_AMO_SET,
                    .pe = pe};
    char *direct;

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    check_pe(routine, pe);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        SHMI_FATAL("%s: PE %d: sig_op %d is neither SHMEM_SIGNAL_SET nor "
                   "SHMEM_SIGNAL_ADD",
                   routine, shmi_my_pe_fast(), sig_op);
    shmi_stream_need_count(routine, "nelems", nelems, nelems);
    shmi_stream_need_device_heap(routine, "dest", dest, nelems);
    shmi_stream_need_device_heap(routine, "sig_addr", sig_addr,
                                 sizeof(*sig_addr));
    shmi_stream_need_device(routine, "source", source, "nelems", nelems);
    a.off = device_off(dest);
    a.soff = device_off(sig_addr);
    if (nelems > 0 && (direct = direct_ptr(pe, a.off))) {
        /* The stream orders the signal after the copy. */
        stream_copy(routine, direct, source, nelems, stream);
        shmi_stream_enqueue(routine, stream, run_signal, args_new(a));
    } else {
        shmi_stream_enqueue(routine, stream, run_put_signal, args_new(a));
    }
}

void shmix_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp,
                                       uint64_t cmp_value, void *stream)
{
    const char *routine = "shmemx_signal_wait_until_on_stream";

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    shmi_stream_need_device_heap(routine, "sig_addr", sig_addr,
                                 sizeof(*sig_addr));
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        SHMI_FATAL("%s: PE %d: cmp %d is not a SHMEM_CMP_ constant", routine,
                   shmi_my_pe_fast(), cmp);
    shmi_stream_enqueue(routine, stream, run_signal_wait,
                        args_new((rma_args_t){.routine = routine,
                                              .sig = sig_addr,
                                              .cmp = cmp,
                                              .signal = cmp_value}));
}

void shmix_quiet_on_stream(void *stream)
{
    const char *routine = "shmemx_quiet_on_stream";

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    shmi_stream_enqueue(routine, stream, run_quiet,
                        args_new((rma_args_t){.routine = routine}));
}

/* ---- streams of the back end ---- */

int shmix_stream_create(void **stream)
{
    const char *routine = "shmemx_stream_create";

    shmi_require_init(routine);
    if (!stream)
        SHMI_FATAL("%s: PE %d: stream is NULL", routine, shmi_my_pe_fast());
    if (shmi_stream_backend(routine)->stream_create(stream) != 0)
        return -1;
    shmi_stream_made(routine, *stream);
    return 0;
}

int shmix_stream_destroy(void *stream)
{
    const char *routine = "shmemx_stream_destroy";
    const shmi_gpu_ops_t *g;

    shmi_require_init(routine);
    g = shmi_stream_backend(routine);
    shmi_stream_unmake(routine, stream);
    shmi_stream_forget(stream);
    return g->stream_destroy(stream) ? -1 : 0;
}

int shmix_stream_synchronize(void *stream)
{
    const char *routine = "shmemx_stream_synchronize";

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    return shmi_stream_backend(routine)->stream_sync(stream) ? -1 : 0;
}

int shmix_memcpy_on_stream(void *dest, const void *source, size_t nbytes,
                           void *stream)
{
    const char *routine = "shmemx_memcpy_on_stream";
    const shmi_gpu_ops_t *g;
    int dd, sd;

    shmi_require_init(routine);
    g = shmi_stream_backend(routine);
    shmi_stream_check(routine, stream);
    if (nbytes == 0)
        return 0;
    if (nbytes > (size_t)PTRDIFF_MAX)
        SHMI_FATAL("%s: PE %d: nbytes %zu is too large: no buffer is that "
                   "long (dest %p, source %p)",
                   routine, shmi_my_pe_fast(), nbytes, dest, source);
    dd = shmi_device_touches(dest, nbytes);
    sd = shmi_device_touches(source, nbytes);
    if (!dd && !sd)
        SHMI_FATAL("%s: PE %d: neither dest %p nor source %p is device "
                   "memory",
                   routine, shmi_my_pe_fast(), dest, source);
    /* The copy runs later, on the stream's worker or the GPU: a bad
     * address must end the job here, naming the argument. */
    if (dd)
        shmi_stream_need_device(routine, "dest", dest, "nbytes", nbytes);
    if (sd)
        shmi_stream_need_device(routine, "source", source, "nbytes", nbytes);
    if (!dd)
        shmi_stream_need_host(routine, "dest", dest, "nbytes", nbytes);
    if (!sd)
        shmi_stream_need_host(routine, "source", source, "nbytes", nbytes);
    return g->stream_copy(dest, source, nbytes,
                          dd && sd ? SHMI_GPU_D2D
                          : dd     ? SHMI_GPU_H2D
                                   : SHMI_GPU_D2H,
                          stream)
               ? -1
               : 0;
}

int shmix_host_func_on_stream(void *stream, shmemx_host_fn_t fn, void *arg)
{
    const char *routine = "shmemx_host_func_on_stream";

    shmi_require_init(routine);
    shmi_stream_check(routine, stream);
    if (!fn)
        SHMI_FATAL("%s: PE %d: fn is NULL", routine, shmi_my_pe_fast());
    return shmi_stream_backend(routine)->stream_host(stream, fn, arg) ? -1 : 0;
}
