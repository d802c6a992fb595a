/*
 * Bootstrap: who am I, who is with me, and a one-time exchange service.
 *
 * PMIx is the only bootstrap interface (docs/design.md, decision 7). After
 * start-up nothing else in Weft talks to PMIx except the abort path.
 */
#ifndef SHMI_BOOT_H
#define SHMI_BOOT_H

#include <stddef.h>

typedef struct shmi_boot_info {
    int rank;          /* this PE's number in the job, 0..size-1 */
    int size;          /* number of PEs in the job */
    int local_rank;    /* index of this PE among the PEs of its node */
    int local_size;    /* number of PEs on this node */
    int *local_pes;    /* local_size job ranks on this node, ascending; owned
                          by boot, valid until shmi_boot_finalize */
    int *node_of_pe;   /* size entries: node index of every PE (0-based,
                          dense, numbered in order of first rank); owned by
                          boot */
    int node_id;       /* node index of this PE (== node_of_pe[rank]) */
    int n_nodes;       /* number of distinct nodes in the job */
    int singleton;     /* 1 when started without a launcher */
    char jobid[64];    /* job identifier (PMIx namespace), unique per job */
    char launcher[32]; /* "oshrun", "srun", "mpirun", "singleton", ... */
} shmi_boot_info_t;

/* Connects to the launcher (or becomes a singleton) and fills *info.
 * Refuses with a clear message under a PMI-1/2-only launcher (PMI_FD set). */
int shmi_boot_init(shmi_boot_info_t *info);

/* Publishes a blob under key for every PE to read after shmi_boot_fence. */
int shmi_boot_put(const char *key, const void *blob, size_t len);

/* Commits what was put, then waits for every PE (collecting data). */
int shmi_boot_fence(void);

/* Reads the blob that pe published under key; len must equal its size. */
int shmi_boot_get(int pe, const char *key, void *blob, size_t len);

/* Asks the launcher to end the whole job with status; does not return when
 * a launcher is there (falls back to _exit). msg goes to the launcher log. */
_Noreturn void shmi_boot_abort(int status, const char *msg);

/* This node's topology as hwloc (v2) XML where the launcher hands it out
 * (a PMIx server that shares the topology it loaded: oshrun's), so that
 * the PEs of a node need not each discover it; NULL where it does not.
 * The caller frees it. */
char *shmi_boot_node_topology(void);

/* Disconnects; after this no other shmi_boot_* call is allowed. */
void shmi_boot_finalize(void);

#endif /* SHMI_BOOT_H */
