/*
 * The library's global state: one instance, set up by shmem_init.
 */
#ifndef SHMI_STATE_H
#define SHMI_STATE_H

#include <stddef.h>

#include "boot/boot.h"
#include "transports/transport.h"

/*
 * One symmetric segment of this PE (heap, data+bss, device heap).
 * [user, user + user_size) is the part that the program's own calls may
 * address (src/core/heap/segments.c sets it): in the heap, the area that
 * shmem_malloc hands out, without the runtime's state before it or the
 * slack after it; in the data segment, the program's data and bss without
 * the page rounding around them. Offsets stay relative to base.
 */
typedef struct shmi_seg {
    char *base;       /* first byte, in this process */
    size_t size;      /* bytes; 0 when the segment does not exist */
    char *user;       /* first byte a program's call may address */
    size_t user_size; /* bytes from user; 0 when none */
    size_t user_off;  /* user - base, so that the range check turns an
                         offset from user into one from base with one add */
} shmi_seg_t;

/* The most transports that carry operations in one job (every transport in
 * use but a pure load/store one): a context has one endpoint slot each. */
#define SHMI_CARRIERS_MAX 4

typedef struct shmi_state {
    /* this PE's segments; first, so that the range check's loop
     * (dataplane.h) addresses them from the symbol itself */
    shmi_seg_t seg[SHMI_SEG_COUNT];

    int initialized;  /* shmem_init completed and shmem_finalize not called */
    int finalized;    /* shmem_finalize completed */
    int thread_level; /* SHMEM_THREAD_* granted */

    shmi_boot_info_t boot; /* rank, size, locality (my PE = boot.rank) */

    /*
     * route[seg][pe]: how this PE reaches segment seg of pe (src/core/
     * route.h), built at connect; NULL (the table) before and after.
     */
    struct shmi_route *route[SHMI_SEG_COUNT];

    /* The transports that carry operations, in endpoint-slot order
     * (route.h); n_carriers of them. Set when they start. */
    const shmt_ops_t *carrier[SHMI_CARRIERS_MAX];
    int n_carriers;

    /*
     * heap_user_peer[pe]: the heap's route base for pe plus the offset of
     * the heap's user area (seg[SHMI_SEG_HEAP].user - base), or NULL; so that
     * the common path of put/get (dataplane.h) checks the user area and finds
     * the peer's address with no more instructions than a check of the whole
     * segment. NULL (the table) until shmem_init has set the user area up,
     * and again from the start of shmem_finalize. Owned by segments.c.
     */
    char **heap_user_peer;

    /* The fabric transport for PEs/segments not mapped here; NULL when no
     * fabric is needed (single-node job with everything mapped). */
    const shmt_ops_t *fabric;

    /* The device transport, where this PE has a device heap; else NULL. */
    const shmt_ops_t *device;
} shmi_state_t;

extern shmi_state_t shmi_state;

static inline int shmi_my_pe_fast(void)
{
    return shmi_state.boot.rank;
}

static inline int shmi_n_pes_fast(void)
{
    return shmi_state.boot.size;
}

#endif /* SHMI_STATE_H */
