/*
 * The local transport's set-up: mapping the heap and data segment of every
 * PE of this node (docs/design.md, decision 1), and shmt_local_ops itself
 * (its data members are stubs: the core does the loads and stores).
 *
 * After connect, mapped_base(pe, seg) is where segment seg of another PE
 * of the node is mapped in this process when SHMEM_LOCAL=1 and its segment
 * is shared (the heap always, the data segment when it was remapped, see
 * src/core/heap/data_seg.c), NULL otherwise; the core routes the rest
 * elsewhere (src/core/route.c). A peer whose heap cannot be mapped (e.g. /proc restricted) is
 * reported and reached through the fabric, which is slower but correct.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/heap/heap.h"
#include "core/state.h"
#include "services/env.h"
#include "services/error.h"
#include "transports/local/local.h"

/* The mappings made here: [seg][pe]. */
typedef struct peer_map {
    char *addr;
    size_t len;
} peer_map_t;

static peer_map_t *mapped[SHMI_SEG_DATA + 1];

int shmt_local_init(void)
{
    /* Nothing to publish: the segments published themselves. */
    return 0;
}

/* Maps segment seg of pe; 0, or a negative code when it is not shared or
 * cannot be mapped. */
static int map_peer(int pe, int seg)
{
    shmi_shm_desc_t d;
    void *p;
    int fd, ret;

    ret = shmi_segments_peer_desc(pe, seg, &d);
    if (ret != 0)
        return ret;
    if (d.kind == SHMI_SHM_NONE)
        return SHMI_ENOTSUP;
    if (seg == SHMI_SEG_HEAP && d.size != shmi_state.seg[seg].size)
        SHMI_FATAL("SHMEM_SYMMETRIC_SIZE differs between PEs: the heap of PE "
                   "%d has %llu bytes, this PE's %zu; give every PE the same "
                   "value",
                   pe, (unsigned long long)d.size, shmi_state.seg[seg].size);
    if (d.size != shmi_state.seg[seg].size) {
        /* Different executables (MPMD): globals are not symmetric. */
        SHMI_LOG(SHMI_LOG_WARN, "local",
                 "PE %d's %s segment is %llu bytes, mine %zu: not mapped", pe,
                 seg == SHMI_SEG_HEAP ? "heap" : "data",
                 (unsigned long long)d.size, shmi_state.seg[seg].size);
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
    mapped[seg][pe].addr = p;
    mapped[seg][pe].len = (size_t)d.size;
    return 0;
}

int shmt_local_connect(void)
{
    const shmi_boot_info_t *b = &shmi_state.boot;
    int failed = 0;

    if (!shmi_env.LOCAL || b->local_size <= 1)
        return 0;
    for (int s = SHMI_SEG_HEAP; s <= SHMI_SEG_DATA; s++) {
        mapped[s] = calloc((size_t)b->size, sizeof(peer_map_t));
        if (!mapped[s])
            return SHMI_ENOMEM;
    }
    for (int i = 0; i < b->local_size; i++) {
        int pe = b->local_pes[i];

        if (pe == b->rank)
            continue;
        if (map_peer(pe, SHMI_SEG_HEAP) != 0)
            failed++;
        /* The data segment is mapped only when its owner shared it. */
        (void)map_peer(pe, SHMI_SEG_DATA);
    }
    if (failed)
        SHMI_LOG(SHMI_LOG_WARN, "local",
                 "%d PE(s) of this node could not be mapped; they are reached "
                 "through the fabric (SHMEM_HEAP_OBJECT=posix may help)",
                 failed);
    return 0;
}

void shmt_local_finalize(void)
{
    int me = shmi_state.boot.rank;

    for (int s = SHMI_SEG_HEAP; s <= SHMI_SEG_DATA; s++) {
        if (!mapped[s])
            continue;
        for (int pe = 0; pe < shmi_state.boot.size; pe++) {
            if (!mapped[s][pe].addr || pe == me)
                continue;
            munmap(mapped[s][pe].addr, mapped[s][pe].len);
        }
        free(mapped[s]);
        mapped[s] = NULL;
    }
}

/* Where seg of pe is mapped here by this transport, or NULL. */
static void *shmt_local_mapped_base(int pe, shmi_seg_id_t seg)
{
    if (pe < 0 || pe >= shmi_state.boot.size || seg < SHMI_SEG_HEAP ||
        seg > SHMI_SEG_DATA || !mapped[seg])
        return NULL;
    return mapped[seg][pe].addr;
}

int shmt_local_reachable(int pe, shmi_seg_id_t seg)
{
    return shmt_local_mapped_base(pe, seg) != NULL;
}

/* Loads and stores into mapped segments; its atomics are the CPU's own
 * (src/services/cpu_ops.h), whatever else reaches the same words. */
static unsigned shmt_local_caps(void)
{
    return SHMT_CAP_LOAD_STORE | SHMT_CAP_ATOMICS_CPU;
}

/*
 * The core does the loads and stores itself, on the mappings this
 * transport makes (SHMT_CAP_LOAD_STORE): its data members are the
 * contract's stubs, never called.
 */
const shmt_ops_t shmt_local_ops = {
    .size = sizeof(shmt_ops_t),
    .name = "local",
    .init = shmt_local_init,
    .connect = shmt_local_connect,
    .finalize = shmt_local_finalize,
    .reachable = shmt_local_reachable,
    .ep_create = shmt_stub_ep_create,
    .ep_destroy = shmt_stub_ep_destroy,
    .put = shmt_stub_put,
    .get = shmt_stub_get,
    .amo = shmt_stub_amo,
    .put_signal = shmt_stub_put_signal,
    .fence = shmt_stub_fence,
    .quiet = shmt_stub_quiet,
    .progress = shmt_stub_progress,
    .check_unused = shmt_stub_check_unused,
    .started = shmt_stub_started,
    .caps = shmt_local_caps,
    .mapped_base = shmt_local_mapped_base,
};
