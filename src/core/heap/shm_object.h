/*
 * Shared-memory objects behind symmetric segments, and how a PE of the same
 * node opens another PE's object (docs/design.md, decision 1).
 *
 * Two kinds:
 *  - memfd (preferred): anonymous, nothing in any file system to leak; a
 *    peer opens it through /proc/<pid>/fd/<fd> while the owner keeps the fd
 *    open (until shmi_segments_connected, or until shmem_finalize where
 *    peers map it on first use: shmi_segments_map_on_use).
 *  - POSIX shm: a name in /dev/shm created O_EXCL with mode 0600, unique per
 *    job, PE and process; unlinked by its owner once every peer mapped it,
 *    and by the means of shm_names.h when the owner dies before that. Its
 *    pages are allocated at creation (a full /dev/shm is an error there,
 *    never a SIGBUS at a later touch).
 * A peer checks the device and inode it opened against the published ones,
 * so a recycled pid or a pid namespace can never map the wrong object.
 */
#ifndef SHMI_HEAP_SHM_OBJECT_H
#define SHMI_HEAP_SHM_OBJECT_H

#include <stddef.h>
#include <stdint.h>

typedef enum shmi_shm_kind {
    SHMI_SHM_NONE = 0, /* not shared: peers do not map this segment */
    SHMI_SHM_MEMFD = 1,
    SHMI_SHM_POSIX = 2
} shmi_shm_kind_t;

#define SHMI_SHM_MAGIC 0x57656674u /* "Weft": a blob from this code */

/* What a peer needs to map one segment; published with shmi_boot_put.
 * Fixed-size fields only: PEs of one job share one build. */
typedef struct shmi_shm_desc {
    uint32_t magic;
    int32_t kind;   /* shmi_shm_kind_t */
    int32_t pid;    /* owner process (memfd) */
    int32_t fd;     /* owner's descriptor (memfd) */
    uint64_t size;  /* bytes of the segment */
    uint64_t align; /* alignment of the owner's base: peers map alike */
    uint64_t dev;   /* st_dev and st_ino of the object, checked on open */
    uint64_t ino;
    char name[96]; /* POSIX shm name (with the leading '/') */
} shmi_shm_desc_t;

/* An object this process owns. */
typedef struct shmi_shm {
    shmi_shm_desc_t desc;
    int fd;       /* -1 once closed */
    int unlinked; /* POSIX name removed (or never had one) */
} shmi_shm_t;

/*
 * Creates an object of size bytes. kind is "auto", "memfd" or "posix"
 * (SHMEM_HEAP_OBJECT); tag names it in /proc/<pid>/maps or /dev/shm.
 * Returns 0 or a negative SHMI_E* code (with a logged reason), except
 * SHMI_ENOSPC, not logged (the caller names what asked for the size): /dev/shm
 * has no room for a POSIX object of that size.
 */
int shmi_shm_create(const char *kind, const char *tag, size_t size,
                    shmi_shm_t *obj);

/* Opens a peer's object for reading and writing; SHMI_EIO when it cannot be
 * opened or is not the published object. */
int shmi_shm_open_peer(const shmi_shm_desc_t *d, int *fd);

/* Removes the POSIX name (no-op for memfd) and closes the descriptor;
 * mappings stay valid. Idempotent. */
void shmi_shm_release(shmi_shm_t *obj);

/*
 * Maps size bytes of fd shared and read-write at an address aligned to
 * align (a power of two), reserving address space only (MAP_NORESERVE: pages
 * materialise on first touch). Returns the address, or NULL with errno set.
 */
void *shmi_shm_map(int fd, size_t size, size_t align);

/* The system page size. */
size_t shmi_page_size(void);

#endif /* SHMI_HEAP_SHM_OBJECT_H */
