/*
 * State shared by the files of src/boot (not part of boot.h): the PMIx
 * identity of this process and the functions that read job information.
 */
#ifndef SHMI_BOOT_PMIX_H
#define SHMI_BOOT_PMIX_H

#include <pmix.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/boot.h"

typedef struct shmi_boot_pmix {
    pmix_proc_t me;  /* namespace and rank PMIx gave this process */
    int connected;   /* PMIx_Init succeeded: PMIx_Finalize is owed */
    int singleton;   /* no launcher: rank 0 of 1, exchange kept here */
    int finalized;   /* shmi_boot_finalize ran */
    int *local_pes;  /* the arrays handed out in shmi_boot_info_t, */
    int *node_of_pe; /* freed by shmi_boot_finalize */
} shmi_boot_pmix_t;

extern shmi_boot_pmix_t shmi_boot_pmix;

/* Reads a job-level (rank = wildcard) or per-PE (rank >= 0) value of the
 * given PMIx type from the local store without asking the server to look
 * elsewhere. Returns 0, or SHMI_EIO when the launcher did not provide it. */
int shmi_boot_get_u32(int rank, const char *key, uint32_t *out);
int shmi_boot_get_string(int rank, const char *key, char *out, size_t outlen);

/* Rank value meaning "the job as a whole" for the getters above. */
#define SHMI_BOOT_JOB (-1)

/* Fills info->local_* and info->node_* (locality.c). May use one fence. */
int shmi_boot_locality(shmi_boot_info_t *info);

/* Singleton exchange (exchange_local.c): the blobs this PE put, kept here. */
int shmi_boot_local_put(const char *key, const void *blob, size_t len);
int shmi_boot_local_get(const char *key, void *blob, size_t len);
void shmi_boot_local_clear(void);

/* Called when pe published nothing under a key after the first fence: if
 * pe exited before shmem_init (pmix_boot.c), ends the job naming it and
 * does not return; otherwise returns at once. */
void shmi_boot_check_left(int pe);

/* launcher_watch.c: once connected, a lost connection to the launcher's
 * PMIx server ends this PE (status 129) with a message; unwatch before
 * disconnecting on purpose (finalize, abort). */
void shmi_boot_watch_launcher(void);
void shmi_boot_unwatch_launcher(void);

#endif /* SHMI_BOOT_PMIX_H */
