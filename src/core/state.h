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

typedef struct shmi_state {
    /* this PE's segments; first, so that the range check's loop
     * (dataplane.h) addresses them from the symbol itself */
    shmi_seg_t seg[SHMI_SEG_COUNT];

    int initialized;  /* shmem_init completed and shmem_finalize not called */
    int finalized;    /* shmem_finalize completed */
    int thread_level; /* SHMEM_THREAD_* granted */

    shmi_boot_info_t boot; /* rank, size, locality (my PE = boot.rank) */

    /*
     * peer_base[seg][pe]: where segment seg of pe is mapped in this process
     * (load/store reachable), or NULL when it must go through a fabric.
     * peer_base[seg][my_pe] == seg[seg].base. Owned by transports/local.
     */
    char **peer_base[SHMI_SEG_COUNT];

    /*
     * heap_user_peer[pe]: peer_base[SHMI_SEG_HEAP][pe] plus the offset of
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
