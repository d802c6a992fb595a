/*
 * Library state checks for every area: routines that need an initialized
 * library call shmi_require_init first.
 */
#ifndef SHMI_INIT_H
#define SHMI_INIT_H

#include "core/state.h"

/* Ends the job with a message saying routine was called before shmem_init
 * or after shmem_finalize. */
_Noreturn void shmi_not_initialized(const char *routine);

/* Fatal (see above) unless shmem_init completed and shmem_finalize has not
 * been called; one predictable branch on the fast path. */
static inline void shmi_require_init(const char *routine)
{
    if (__builtin_expect(!shmi_state.initialized, 0))
        shmi_not_initialized(routine);
}

/* shmem_finalized (newer than 1.6, not yet in the generated API): 1 once
 * shmem_finalize completed. Callable at any time. */
void shmi_query_finalized(int *finalized);

#endif /* SHMI_INIT_H */
