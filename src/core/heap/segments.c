/*
 * Set-up and tear-down of this PE's symmetric segments (segment.h): the heap
 * and the data segment, their publication to the other PEs, and the table
 * of the heap's user area in each peer's mapping (heap_user_peer, state.h).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/heap/device_heap.h"
#include "core/heap/heap.h"
#include "core/heap/heap_space.h"
#include "core/segment.h"
#include "core/state.h"
#include "services/env.h"
#include "services/error.h"

static shmi_shm_t data_obj = {.fd = -1, .unlinked = 1};
/* The kind of the heap's object (shmi_shm_kind_t), for map_on_use. */
static int heap_kind;

/* A POSIX heap object whose pages /dev/shm cannot hold (shm_object.c
 * reserves them all at creation). */
_Noreturn static void heap_no_room(size_t size)
{
    struct statvfs vfs;
    unsigned long long avail = 0;

    if (statvfs("/dev/shm", &vfs) == 0)
        avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
    SHMI_FATAL("SHMEM_SYMMETRIC_SIZE=%zu bytes: /dev/shm has no room for this "
               "PE's symmetric heap (%zu bytes with Weft's %zu MiB; %llu "
               "bytes free there, shared by every PE of the node). See "
               "`df /dev/shm`: ask for less, make /dev/shm larger (containers: "
               "--shm-size), or use SHMEM_HEAP_OBJECT=memfd, which is not "
               "limited by it",
               size, size + SHMI_HEAP_RUNTIME_RESERVE,
               SHMI_HEAP_RUNTIME_RESERVE >> 20, avail);
}

/* Address space a heap of SHMEM_SYMMETRIC_SIZE = size takes in a process
 * that maps it: the runtime's reserve, and the alignment the mapping needs
 * to find an aligned start (shmi_shm_map), at most 1 GiB. */
static size_t heap_span(size_t size)
{
    return size + SHMI_HEAP_RUNTIME_RESERVE + ((size_t)1 << 30);
}

/* The largest SHMEM_SYMMETRIC_SIZE of which n heaps fit in this process's
 * address space, as text; call it with no heap of this PE mapped. */
static void heap_fit_text(int n, char *buf, size_t len)
{
    size_t fit = shmi_heap_space_fit(n, heap_span(0));

    /* Start-up maps more between the heaps (the allocator's tables, the
     * data segment, libraries): leave them a sixteenth, so that the size
     * suggested works and is not only just short of what fits. */
    shmi_heap_space_text(fit - fit / 16, buf, len);
}

/* Own heap too large for this process: say what would fit, counting the
 * heaps of the node's other PEs that this process maps too. */
static _Noreturn void heap_too_large(size_t size)
{
    int n = shmi_env.LOCAL ? shmi_state.boot.local_size : 1;
    char most[32];

    n = n > 1 ? n : 1;
    heap_fit_text(n, most, sizeof(most));
    SHMI_FATAL("SHMEM_SYMMETRIC_SIZE=%zu bytes: this machine cannot map a "
               "symmetric heap that large (address space or memory limits); "
               "ask for at most %s (what the address space of a process has "
               "room for, with the heaps of the %d PE%s of this node)",
               size, most, n, n == 1 ? "" : "s");
}

/*
 * With the load/store transport every PE of a node maps the heaps of all of
 * them: local_size heaps per process. A size that fits once but not that
 * many times would fail later, peer by peer, as a mapping error; check it
 * here, where the variable can be named.
 */
static void heap_check_node_space(size_t size)
{
    int n = shmi_state.boot.local_size;
    /* What a peer's mapping of this heap reserves (shmi_shm_map). */
    size_t span = shmi_state.seg[SHMI_SEG_HEAP].size + shmi_heap_max_align();
    char want[32], most[32];

    if (!shmi_env.LOCAL || n <= 1 || shmi_heap_space_fits(span, n - 1))
        return;
    shmi_heap_space_text(size, want, sizeof(want));
    /* The job ends: this PE's heap can go, so that what fits is measured
     * as a fresh start would see it. */
    shmi_heap_destroy();
    heap_fit_text(n, most, sizeof(most));
    SHMI_FATAL("SHMEM_SYMMETRIC_SIZE=%s (%zu bytes) is too large for %d PEs on "
               "one node: each PE maps the heaps of all %d (%d x %s of address "
               "space), more than the address space of a process holds; ask "
               "for at most %s, or run fewer PEs per node",
               want, size, n, n, n, want, most);
}

/* The program's variables in the data segment (shmi_data_seg_find). */
static char *data_user;
static size_t data_user_size;

static int heap_init(shmi_shm_desc_t *d)
{
    size_t size = shmi_env.SYMMETRIC_SIZE;
    int ret;

    if (size == 0)
        SHMI_FATAL("SHMEM_SYMMETRIC_SIZE=0: the symmetric heap needs at least "
                   "one byte (e.g. SHMEM_SYMMETRIC_SIZE=64m)");
    if (size > SIZE_MAX / 2)
        ret = SHMI_ENOMEM;
    else
        ret = shmi_heap_create(size + SHMI_HEAP_RUNTIME_RESERVE,
                               shmi_env.HEAP_OBJECT, d);
    if (ret == SHMI_ENOSPC)
        heap_no_room(size);
    if (ret == SHMI_ENOMEM)
        heap_too_large(size);
    if (ret != 0)
        SHMI_FATAL("cannot create the symmetric heap's shared-memory object "
                   "(SHMEM_HEAP_OBJECT=%s): %s",
                   shmi_env.HEAP_OBJECT, shmi_strerror(ret));
    heap_check_node_space(size);
    return 0;
}

/* The remap only pays off when some peer of this node will map the segment. */
static int data_remap_wanted(void)
{
    return shmi_env.DATA_REMAP && shmi_env.LOCAL &&
           shmi_state.boot.local_size > 1;
}

static void data_init(shmi_shm_desc_t *d)
{
    char *base;
    size_t size;

    memset(d, 0, sizeof(*d));
    d->magic = SHMI_SHM_MAGIC;
    d->kind = SHMI_SHM_NONE;
    if (shmi_data_seg_find(&base, &size, &data_user, &data_user_size) != 0) {
        SHMI_LOG(SHMI_LOG_WARN, "heap",
                 "cannot find the program's data segment: global and static "
                 "variables are not symmetric");
        return;
    }
    shmi_state.seg[SHMI_SEG_DATA].base = base;
    shmi_state.seg[SHMI_SEG_DATA].size = size;
    d->size = size;
    if (!data_remap_wanted())
        return;
    if (shmi_data_seg_remap(base, size, &data_obj) == 0) {
        *d = data_obj.desc;
        return;
    }
    SHMI_LOG(SHMI_LOG_WARN, "heap",
             "cannot share the data segment with the PEs of this node; "
             "globals are reached through the fabric");
}

int shmi_segments_init(void)
{
    int ret;
    shmi_shm_desc_t hd, dd;

    heap_init(&hd);
    heap_kind = hd.kind;
    data_init(&dd);
    ret = shmi_boot_put(SHMI_HEAP_KEY, &hd, sizeof(hd));
    if (ret == 0)
        ret = shmi_boot_put(SHMI_DATA_KEY, &dd, sizeof(dd));
    if (ret == 0)
        ret = shmi_device_heap_init();
    /* Until shmi_segments_user_start, the runtime's own start-up traffic
     * may address every segment whole. */
    shmi_segments_user_end();
    SHMI_LOG(SHMI_LOG_DEBUG, "heap",
             "heap %zu bytes at %p (%s), data %zu bytes at %p (%s)",
             shmi_state.seg[SHMI_SEG_HEAP].size,
             (void *)shmi_state.seg[SHMI_SEG_HEAP].base,
             hd.kind == SHMI_SHM_MEMFD ? "memfd" : "POSIX shm",
             shmi_state.seg[SHMI_SEG_DATA].size,
             (void *)shmi_state.seg[SHMI_SEG_DATA].base,
             dd.kind == SHMI_SHM_NONE ? "private" : "shared on node");
    return ret;
}

int shmi_segments_peer_desc(int pe, int seg, shmi_shm_desc_t *d)
{
    const char *key = seg == SHMI_SEG_HEAP ? SHMI_HEAP_KEY : SHMI_DATA_KEY;
    int ret;

    if (seg != SHMI_SEG_HEAP && seg != SHMI_SEG_DATA)
        return SHMI_EINVAL;
    ret = shmi_boot_get(pe, key, d, sizeof(*d));
    if (ret != 0)
        return ret;
    return d->magic == SHMI_SHM_MAGIC ? 0 : SHMI_EIO;
}

/* Symmetric allocation needs the same heap size everywhere: with different
 * SHMEM_SYMMETRIC_SIZE values, a shmem_malloc could fail on some PEs only.
 * Comparing with PE 0 catches any difference at the cost of one lookup. */
static void check_same_heap_size(void)
{
    shmi_shm_desc_t d;

    if (shmi_state.boot.rank == 0 ||
        shmi_segments_peer_desc(0, SHMI_SEG_HEAP, &d) != 0)
        return;
    if (d.size != shmi_state.seg[SHMI_SEG_HEAP].size)
        SHMI_FATAL("SHMEM_SYMMETRIC_SIZE differs between PEs: the heap of PE "
                   "0 has %llu bytes, this PE's %zu; give every PE the same "
                   "value",
                   (unsigned long long)d.size,
                   shmi_state.seg[SHMI_SEG_HEAP].size);
}

unsigned shmi_segments_map_on_use(void)
{
    unsigned bits = 0;

    if (strcmp(shmi_env.MAP_PEERS, "first-use") != 0)
        return 0;
    if (heap_kind == SHMI_SHM_MEMFD)
        bits |= 1u << SHMI_SEG_HEAP;
    if (data_obj.fd >= 0 && data_obj.desc.kind == SHMI_SHM_MEMFD)
        bits |= 1u << SHMI_SEG_DATA;
    return bits;
}

void shmi_segments_connected(void)
{
    unsigned keep = shmi_segments_map_on_use();

    check_same_heap_size();
    /* Every local peer has mapped what it maps at start-up: nothing must
     * outlive the job in /dev/shm. A memfd that peers map on first use
     * stays open until shmi_segments_finalize (it lives in no file
     * system; only processes that may read this one's memory anyway can
     * open it, docs/security.md). */
    if (!(keep & (1u << SHMI_SEG_HEAP)))
        shmi_heap_release_object();
    if (!(keep & (1u << SHMI_SEG_DATA)))
        shmi_shm_release(&data_obj);
    shmi_device_heap_connected();
}

int shmi_segments_user_start(void)
{
    shmi_seg_t *h = &shmi_state.seg[SHMI_SEG_HEAP];
    char **up;
    int n = shmi_n_pes_fast();
    size_t lo, hi;
    int ret;

    shmi_heap_debug_init();
    ret = shmi_heap_user_window(shmi_env.SYMMETRIC_SIZE, &lo, &hi);
    if (ret != 0)
        return ret;
    up = calloc((size_t)n, sizeof(char *));
    if (!up)
        return SHMI_ENOMEM;
    for (int pe = 0; pe < n; pe++)
        up[pe] = shmi_seg_peer_mapped(pe, SHMI_SEG_HEAP, lo);
    h->user = h->base + lo;
    h->user_size = hi - lo;
    h->user_off = lo;
    if (data_user_size) {
        shmi_seg_t *d = &shmi_state.seg[SHMI_SEG_DATA];

        d->user = data_user;
        d->user_size = data_user_size;
        d->user_off = (size_t)(data_user - d->base);
    }
    shmi_state.heap_user_peer = up;
    SHMI_LOG(SHMI_LOG_DEBUG, "heap",
             "user area of the heap: %zu bytes at %p (runtime state before "
             "it: %zu bytes); program variables: %zu bytes at %p",
             h->user_size, (void *)h->user, lo, data_user_size,
             (void *)data_user);
    return 0;
}

void shmi_segments_user_end(void)
{
    free(shmi_state.heap_user_peer);
    shmi_state.heap_user_peer = NULL;
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        shmi_state.seg[s].user = shmi_state.seg[s].base;
        shmi_state.seg[s].user_size = shmi_state.seg[s].size;
        shmi_state.seg[s].user_off = 0;
    }
}

void shmi_segments_finalize(void)
{
    shmi_alloc_stats_t st;

    shmi_heap_stats(&st);
    SHMI_LOG(SHMI_LOG_DEBUG, "heap",
             "at finalize: %zu bytes in %zu blocks still allocated, largest "
             "free block %zu of %zu bytes",
             st.in_use, st.n_blocks, st.largest_free, st.size);
    shmi_heap_release_object();
    shmi_shm_release(&data_obj);
    shmi_device_heap_finalize();
    shmi_heap_destroy();
    /* The data segment stays mapped (the program may still use its
     * globals) but is no longer symmetric. */
    shmi_state.seg[SHMI_SEG_DATA].base = NULL;
    shmi_state.seg[SHMI_SEG_DATA].size = 0;
    for (int s = 0; s < SHMI_SEG_COUNT; s++) {
        shmi_state.seg[s].user = NULL;
        shmi_state.seg[s].user_size = 0;
        shmi_state.seg[s].user_off = 0;
    }
}

int shmi_segments_map_peer(int pe, shmi_seg_id_t seg, void **base,
                           size_t *len)
{
    size_t own = shmi_state.seg[seg].size;
    shmi_shm_desc_t d;
    void *p;
    int fd, ret;

    ret = shmi_segments_peer_desc(pe, seg, &d);
    if (ret != 0)
        return ret;
    if (d.kind == SHMI_SHM_NONE)
        return SHMI_ENOTSUP;
    if (seg == SHMI_SEG_HEAP && d.size != own)
        SHMI_FATAL("SHMEM_SYMMETRIC_SIZE differs between PEs: the heap of PE "
                   "%d has %llu bytes, this PE's %zu; give every PE the same "
                   "value",
                   pe, (unsigned long long)d.size, own);
    if (d.size != own) {
        /* Different executables (MPMD): globals are not symmetric. */
        SHMI_LOG(SHMI_LOG_WARN, "local",
                 "PE %d's %s segment is %llu bytes, mine %zu: not mapped", pe,
                 seg == SHMI_SEG_HEAP ? "heap" : "data",
                 (unsigned long long)d.size, own);
        return SHMI_EINVAL;
    }
    ret = shmi_shm_open_peer(&d, &fd);
    if (ret != 0)
        return ret;
    p = shmi_shm_map(fd, (size_t)d.size, (size_t)d.align);
    if (!p) {
        SHMI_LOG(SHMI_LOG_WARN, "local", "mapping PE %d's segment: %s", pe,
                 strerror(errno));
        close(fd);
        return SHMI_ENOMEM;
    }
    close(fd);
    *base = p;
    *len = (size_t)d.size;
    return 0;
}
