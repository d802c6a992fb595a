/*
 * The hand-written core entry points that the generated API layer calls.
 *
 * Every public routine of shmem.h / shmemx.h is a generated one-line wrapper
 * (src/api/gen/) named pshmem_X, with shmem_X a weak alias of it (the
 * OpenSHMEM profiling interface). A wrapper does one of two things:
 *
 *  - routines that differ only by type or size (put, get, atomics, wait/test,
 *    reductions, collectives) call one of the byte-and-tag functions declared
 *    below, passing the public routine name for error messages;
 *  - every other routine shmem_X(args) calls shmi_X(args) with the same
 *    signature (shmemx_X calls shmix_X; the deprecated start_pes, _my_pe and
 *    _num_pes call shmi_start_pes, shmi_my_pe, shmi_n_pes). Those are declared
 *    in the generated src/core/core_decl.h and implemented by hand in
 *    src/core.
 *
 * Errors the specification treats as fatal (bad PE, address outside the
 * symmetric segments, ...) end the job through shmi_fatal() with a message
 * naming `routine`; nothing here returns an error code to the user except
 * where the specification says so (team collectives return int).
 */
#ifndef SHMI_CORE_API_H
#define SHMI_CORE_API_H

#include <stddef.h>
#include <stdint.h>

#include "services/amo_op.h"
#include "services/dtype.h"
#include "services/reduce_ops.h"
#include "shmem.h"
#include "shmemx.h"

/*
 * The byte count of nelems elements of es bytes for the typed wrappers;
 * SIZE_MAX when it does not fit in size_t. No symmetric range is that long,
 * so the range check that every call makes anyway refuses it (and its
 * message names nelems): a wrapped count (nelems = SIZE_MAX / 8 + 2 longs
 * would be 8 bytes) can never be taken for a small transfer. Two
 * instructions in the wrapper (a shift and a branch) for es > 1.
 */
static inline size_t shmi_nbytes(size_t nelems, size_t es)
{
    size_t n;

    return __builtin_mul_overflow(nelems, es, &n) ? SIZE_MAX : n;
}

/* ---- RMA (src/core/rma.c) ------------------------------------------------ */

/* Blocking put: returns when src may be reused. */
void shmi_put(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
              size_t nbytes, int pe);
/* Non-blocking put: src must not change until the next quiet. */
void shmi_put_nbi(const char *routine, shmem_ctx_t ctx, void *dest,
                  const void *src, size_t nbytes, int pe);
/* Blocking get: dest holds the data on return. */
void shmi_get(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
              size_t nbytes, int pe);
/* Non-blocking get: dest holds the data after the next quiet. */
void shmi_get_nbi(const char *routine, shmem_ctx_t ctx, void *dest,
                  const void *src, size_t nbytes, int pe);
/* shmem_TYPE_p and shmem_TYPE_g of types of at most 8 bytes: the value
 * travels in a register, as the first `size` bytes of `bits` (where memcpy
 * puts them), so that the common case needs no stack on either side. */
void shmi_p(const char *routine, shmem_ctx_t ctx, void *dest, uint64_t bits,
            size_t size, int pe);
uint64_t shmi_g(const char *routine, shmem_ctx_t ctx, const void *src,
                size_t size, int pe);
/* Strided put/get of nelems elements of elem_size bytes; strides in elements. */
void shmi_iput(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
               ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_size,
               int pe);
void shmi_iget(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
               ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_size,
               int pe);
/* Block-strided (1.6 ibput/ibget): nblocks blocks of bsize elements. */
void shmi_ibput(const char *routine, shmem_ctx_t ctx, void *dest,
                const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                size_t nblocks, size_t elem_size, int pe);
void shmi_ibget(const char *routine, shmem_ctx_t ctx, void *dest,
                const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                size_t nblocks, size_t elem_size, int pe);

/* ---- Atomics (src/core/amo.c) -------------------------------------------- */

/*
 * One atomic on the dtype-sized word at symmetric address dest of pe.
 * operand/compare point to one element (NULL when the op takes none);
 * fetched receives the old value for fetching ops (NULL otherwise).
 * shmi_amo returns once fetched is valid (non-fetching ops complete at quiet);
 * shmi_amo_nbi lets fetched be written as late as the next quiet.
 */
void shmi_amo(const char *routine, shmem_ctx_t ctx, shmi_amo_op_t op,
              shmi_dtype_t dt, void *dest, const void *operand,
              const void *compare, void *fetched, int pe);
void shmi_amo_nbi(const char *routine, shmem_ctx_t ctx, shmi_amo_op_t op,
                  shmi_dtype_t dt, void *dest, const void *operand,
                  const void *compare, void *fetched, int pe);

/* ---- Signals (src/core/signal.c) ----------------------------------------- */

/* Put nbytes then update *sig_addr on pe with sig_op (SHMEM_SIGNAL_SET/ADD);
 * the signal becomes visible only after the data. nbi: as shmi_put_nbi. */
void shmi_put_signal(const char *routine, shmem_ctx_t ctx, void *dest,
                     const void *src, size_t nbytes, uint64_t *sig_addr,
                     uint64_t signal, int sig_op, int pe, int nbi);

/* ---- Point-to-point synchronization (src/core/wait.c) -------------------- */

typedef enum shmi_wait_kind {
    SHMI_WAIT_ONE,  /* wait_until / test on a single ivar */
    SHMI_WAIT_ALL,  /* every unmasked element satisfies */
    SHMI_WAIT_ANY,  /* one unmasked element satisfies: its index */
    SHMI_WAIT_SOME  /* all unmasked elements satisfying now: count + indices */
} shmi_wait_kind_t;

/*
 * The one engine behind wait_until, wait_until_all/any/some(_vector),
 * test, test_all/any/some(_vector) and signal_wait_until.
 *   ivars:    nelems elements of type dt (nelems = 1 for SHMI_WAIT_ONE)
 *   status:   NULL or nelems ints; nonzero excludes that element
 *   values:   one element, or nelems elements when values_vector is nonzero
 *   indices:  for SHMI_WAIT_SOME, receives the indices found
 *   blocking: 0 for the test forms (return at once)
 * Returns: ONE: 1 if satisfied (always 1 when blocking); ALL: 1 if satisfied;
 * ANY: the index found, or SIZE_MAX when none (test) or nelems all masked;
 * SOME: how many indices were written.
 */
size_t shmi_wait(const char *routine, shmi_wait_kind_t kind, shmi_dtype_t dt,
                 volatile void *ivars, size_t nelems, const int *status,
                 int cmp, const void *values, int values_vector,
                 size_t *indices, int blocking);

/* ---- Collectives (src/core/coll/) ---------------------------------------- */

/* Team-based forms: return 0 on success, nonzero on error, as the spec says.
 * Sizes are in bytes except where an element count is needed for arithmetic. */
int shmi_team_reduce(const char *routine, shmem_team_t team, void *dest,
                     const void *src, size_t nreduce, shmi_dtype_t dt,
                     shmi_op_t op);
/* shmemx_TYPE_OP_reduce_on_stream: the reduction enqueued on a device
 * stream (src/core/stream/stream_coll.c); 0, or -1 for SHMEM_TEAM_INVALID. */
int shmi_stream_reduce(const char *routine, shmem_team_t team, void *dest,
                       const void *src, size_t nreduce, shmi_dtype_t dt,
                       shmi_op_t op, void *stream);
/* Inclusive (exclusive = 0) or exclusive (exclusive = 1) prefix reduction. */
int shmi_team_scan(const char *routine, shmem_team_t team, void *dest,
                   const void *src, size_t nelems, shmi_dtype_t dt, shmi_op_t op,
                   int exclusive);
int shmi_team_broadcast(const char *routine, shmem_team_t team, void *dest,
                        const void *src, size_t nbytes, int root);
/* collect: each PE contributes nbytes (may differ between PEs). */
int shmi_team_collect(const char *routine, shmem_team_t team, void *dest,
                      const void *src, size_t nbytes);
/* fcollect: each PE contributes the same nbytes. */
int shmi_team_fcollect(const char *routine, shmem_team_t team, void *dest,
                       const void *src, size_t nbytes);
/* alltoall: nbytes to and from every PE of the team. */
int shmi_team_alltoall(const char *routine, shmem_team_t team, void *dest,
                       const void *src, size_t nbytes);
/* alltoalls: nelems elements of elem_size to each PE, strides in elements. */
int shmi_team_alltoalls(const char *routine, shmem_team_t team, void *dest,
                        const void *src, ptrdiff_t dst, ptrdiff_t sst,
                        size_t nelems, size_t elem_size);

/* The nonblocking collectives (src/core/coll/nbc_post.c): the checks of
 * the blocking form, then the collective posted to the team's lane;
 * *request names it. 0, or -1 (with *request SHMEMX_REQ_NULL) for
 * SHMEM_TEAM_INVALID or a bad root. */
int shmi_nbc_broadcast(const char *routine, shmem_team_t team, void *dest,
                       const void *src, size_t nbytes, int root,
                       shmemx_req_h *request);
int shmi_nbc_alltoall(const char *routine, shmem_team_t team, void *dest,
                      const void *src, size_t nbytes, shmemx_req_h *request);
int shmi_nbc_reduce(const char *routine, shmem_team_t team, void *dest,
                    const void *src, size_t nreduce, shmi_dtype_t dt,
                    shmi_op_t op, shmemx_req_h *request);

/* Deprecated active-set forms (PE_start, logPE_stride, PE_size, pSync). */
void shmi_as_reduce(const char *routine, void *dest, const void *src,
                    int nreduce, int PE_start, int logPE_stride, int PE_size,
                    void *pWrk, long *pSync, shmi_dtype_t dt, shmi_op_t op);
void shmi_as_broadcast(const char *routine, void *dest, const void *src,
                       size_t nbytes, int PE_root, int PE_start,
                       int logPE_stride, int PE_size, long *pSync);
void shmi_as_collect(const char *routine, void *dest, const void *src,
                     size_t nbytes, int PE_start, int logPE_stride, int PE_size,
                     long *pSync);
void shmi_as_fcollect(const char *routine, void *dest, const void *src,
                      size_t nbytes, int PE_start, int logPE_stride,
                      int PE_size, long *pSync);
void shmi_as_alltoall(const char *routine, void *dest, const void *src,
                      size_t nbytes, int PE_start, int logPE_stride,
                      int PE_size, long *pSync);
void shmi_as_alltoalls(const char *routine, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                       size_t elem_size, int PE_start, int logPE_stride,
                       int PE_size, long *pSync);

#endif /* SHMI_CORE_API_H */
