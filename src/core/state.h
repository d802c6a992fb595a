/*
 * The library's global state: one instance, set up by shmem_init.
 */
#ifndef SHMI_STATE_H
#define SHMI_STATE_H

#include <stddef.h>

#include "boot/boot.h"
#include "transports/transport.h"

/* One symmetric segment of this PE (heap, data+bss, device heap). */
typedef struct shmi_seg {
    char *base;  /* first byte, in this process */
    size_t size; /* bytes; 0 when the segment does not exist */
} shmi_seg_t;

typedef struct shmi_state {
    int initialized;  /* shmem_init completed and shmem_finalize not called */
    int finalized;    /* shmem_finalize completed */
    int thread_level; /* SHMEM_THREAD_* granted */

    shmi_boot_info_t boot; /* rank, size, locality (my PE = boot.rank) */

    shmi_seg_t seg[SHMI_SEG_COUNT]; /* this PE's segments */

    /*
     * peer_base[seg][pe]: where segment seg of pe is mapped in this process
     * (load/store reachable), or NULL when it must go through a fabric.
     * peer_base[seg][my_pe] == seg[seg].base. Owned by transports/local.
     */
    char **peer_base[SHMI_SEG_COUNT];

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
