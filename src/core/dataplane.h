/*
 * The door of the data plane: what the entry points (rma.c, amo.c,
 * signal.c, order.c, wait.c, under the generated API) check of the
 * program's arguments, and their translation, once, into what the engine
 * takes (src/core/engine/engine.h): a team PE into a world PE, a
 * symmetric address into a segment and an offset.
 *
 * Path choice is the engine's, per call (docs/design.md, decision 4): one
 * lookup in the route table (route.h).
 */
#ifndef SHMI_DATAPLANE_H
#define SHMI_DATAPLANE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core_api.h"
#include "core/ctx.h"
#include "core/device_mem.h"
#include "core/engine/engine.h"
#include "core/progress.h"
#include "core/route.h"
#include "core/segment.h"
#include "core/state.h"
#include "services/error.h"

/* shmi_X for the non-typed public routines (generated). */
#include "core/core_decl.h"

/* The entry points of the common path (put, get, p, g, their nbi forms,
 * atomics) start on a cache line of their own: each is a handful of
 * instructions, and where the linker happened to place them moved an
 * 8-byte get by a cycle from one build to the next. */
#define SHMI_DP_ENTRY __attribute__((aligned(64)))

/* Fatal, naming routine, when the library is not initialized (before
 * shmem_init, after shmem_finalize): the usual cause of a bad PE or
 * address. Returns otherwise. dp_check.c. */
void shmi_dp_check_state(const char *routine);

/* Never returns: names the routine, the PE and what was wrong.
 * shmi_dp_bad_addr (range_check.c) says which bound the range crossed. */
_Noreturn void shmi_dp_bad_pe(const char *routine, shmem_ctx_t ctx, int pe);
_Noreturn void shmi_dp_bad_addr(const char *routine, const void *addr,
                                size_t len, int pe);
_Noreturn void shmi_dp_bad_ctx(const char *routine);

/*
 * For the collectives' entry points (coll_api.c): fatal, naming routine and
 * nelems, when nelems elements of es bytes exceed any buffer, and, naming
 * the range, when dest or src (NULL: not checked) lies in a symmetric
 * segment without fitting in its user part. range_check.c.
 */
void shmi_coll_check_count(const char *routine, const void *dest,
                           const void *src, size_t nelems, size_t es);

/* Translation of a PE number of a team context into a world PE: slow path. */
int shmi_dp_team_pe(const char *routine, shmem_ctx_t ctx, int pe);

/*
 * Hot-path argument checks. configure --disable-checks (WEFT_NO_CHECKS)
 * leaves out the PE-range check, the NULL check of the local buffer and the
 * length part of the symmetric-range check (shmi_dp_seg), so that
 * bench/check-cost.sh can measure what they cost; each is one predictable
 * branch when on. A
 * symmetric address that lies in no segment stays fatal either way: the call
 * cannot be translated without its segment.
 */
#ifdef WEFT_NO_CHECKS
enum { SHMI_DP_CHECKS = 0 };
#else
enum { SHMI_DP_CHECKS = 1 };
#endif

/* Validates ctx and pe; returns the world PE number. */
static inline int shmi_dp_target(const char *routine, shmem_ctx_t ctx, int pe)
{
    if (SHMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        shmi_dp_bad_ctx(routine);
    if (SHMI_LIKELY(ctx->team == SHMEM_TEAM_WORLD)) {
        if (SHMI_DP_CHECKS &&
            SHMI_UNLIKELY((unsigned)pe >= (unsigned)shmi_n_pes_fast()))
            shmi_dp_bad_pe(routine, ctx, pe);
        return pe;
    }
    return shmi_dp_team_pe(routine, ctx, pe);
}

/* Fatal when a local buffer of a non-empty transfer is NULL. */
static inline void shmi_dp_check_local(const char *routine, const void *buf,
                                       size_t len, int pe)
{
    if (SHMI_DP_CHECKS && SHMI_UNLIKELY(buf == NULL))
        shmi_dp_bad_addr(routine, buf, len, pe);
}

/*
 * Finds the segment of the symmetric range [addr, addr+len), len > 0, and
 * its offset from the segment's base; fatal if none. The range must lie in
 * the part of a segment that the program may address (shmi_seg_t.user): a
 * put into the runtime's own state at the start of the heap, into the slack
 * after the user area or past the program's bss is refused like any other
 * address that is not symmetric. One subtraction and one compare per segment
 * find where addr starts (an addr below the start wraps to a huge offset);
 * the check that the range fits is one more compare, and it cannot wrap
 * (d < user_size), so a byte count near SIZE_MAX fails it too.
 */
static inline int shmi_dp_seg(const char *routine, const void *addr, size_t len,
                              int pe, size_t *off)
{
    uintptr_t a = (uintptr_t)addr;
    const shmi_seg_t *g = shmi_state.seg;

    for (int s = 0; s < SHMI_SEG_COUNT; s++, g++) {
        uintptr_t d = a - (uintptr_t)g->user;

        if (d < g->user_size) {
            if (SHMI_DP_CHECKS && SHMI_UNLIKELY(len > g->user_size - d))
                break;
            *off = d + g->user_off;
            return s;
        }
    }
    shmi_dp_bad_addr(routine, addr, len, pe);
}

/*
 * The same for the runtime's own symmetric state (team and collective
 * flags and buffers, src/core/coll/coll_state.c): the whole segment.
 * Only the runtime's own calls use it, never an address from the program.
 */
static inline int shmi_dp_seg_runtime(const char *routine, const void *addr,
                                      size_t len, int pe, size_t *off)
{
    uintptr_t a = (uintptr_t)addr;

    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        uintptr_t d = a - (uintptr_t)shmi_state.seg[s].base;
        size_t size = shmi_state.seg[s].size;

        if (d < size && len <= size - d) {
            *off = d;
            return s;
        }
    }
    shmi_dp_bad_addr(routine, addr, len, pe);
}

/*
 * The common case of an RMA call, decided with loads and compares only, so
 * that a routine built on it needs no stack frame (bench/check_cost): a world
 * context, a PE in range whose heap is mapped here, a range inside the
 * heap's user area, a non-NULL local buffer and no device heap. Returns
 * where sym lies in that PE's mapping of the heap (heap_user_peer, state.h),
 * or NULL when the full path must decide; that
 * path also names whatever argument was wrong. The checks are the same as
 * the full path's: PE range (one compare), NULL local buffer (one test),
 * range (an add whose carry is tested, and one compare, where the unchecked
 * build needs one compare to know that sym lies in the heap).
 */
static inline void *shmi_dp_fast_peer(shmem_ctx_t ctx, const void *sym,
                                      const void *local, size_t len, int pe)
{
    const shmi_seg_t *heap = &shmi_state.seg[SHMI_SEG_HEAP];
    uintptr_t d = (uintptr_t)sym - (uintptr_t)heap->user;
    char **bases = shmi_state.heap_user_peer;
    char *b;

    if (SHMI_UNLIKELY(ctx == SHMEM_CTX_INVALID || ctx->team != SHMEM_TEAM_WORLD))
        return NULL;
    if (SHMI_DP_CHECKS &&
        SHMI_UNLIKELY((unsigned)pe >= (unsigned)shmi_n_pes_fast() ||
                      local == NULL))
        return NULL;
    if (SHMI_DP_CHECKS) {
        /* [d, d + len) inside the heap's user area, d + len not wrapping
         * around (len 0 at the very end copies nothing) */
        size_t end;

        if (SHMI_UNLIKELY(__builtin_add_overflow(d, len, &end) ||
                          end > heap->user_size))
            return NULL;
    } else if (SHMI_UNLIKELY(d >= heap->user_size)) {
        return NULL;
    }
    if (SHMI_UNLIKELY(shmi_device_active || bases == NULL))
        return NULL;
    b = bases[pe];
    return SHMI_LIKELY(b != NULL) ? b + d : NULL;
}

/* Waits until *ivar compares true with value; returns the value that
 * satisfied the comparison (signal_wait_until). wait.c. */
uint64_t shmi_wait_u64(const char *routine, volatile uint64_t *ivar, int cmp,
                       uint64_t value);

#endif /* SHMI_DATAPLANE_H */
