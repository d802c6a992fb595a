/*
 * The local transport's set-up: mapping the heap and data segment of every
 * PE of this node (docs/design.md, decision 1), and shmt_local_ops itself
 * (it has no parts: the core does the loads and stores).
 *
 * After connect, mapped_base(pe, seg) is where segment seg of another PE
 * of the node is mapped in this process when SHMEM_LOCAL=1 and its segment
 * is shared (the heap always, the data segment when it was remapped, see
 * src/core/heap/data_seg.c), NULL otherwise; the core routes the rest
 * elsewhere (src/core/route.c). The core's job->map_peer opens and maps a
 * peer's shared object (the heap's own code knows its descriptor). A peer
 * whose heap cannot be mapped (e.g. /proc restricted) is reported and
 * reached through the fabric, which is slower but correct.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "services/env.h"
#include "services/error.h"
#include "transports/local/local.h"

/* The mappings made here: [seg][pe]. */
typedef struct peer_map {
    char *addr;
    size_t len;
} peer_map_t;

static peer_map_t *mapped[SHMI_SEG_DATA + 1];
static const shmt_job_t *job;

int shmt_local_init(const shmt_job_t *j)
{
    /* Nothing to publish: the segments published themselves. */
    job = j;
    return 0;
}

/* Maps segment seg of pe; 0, or a negative code when it is not shared or
 * cannot be mapped (the core's map_peer says why where it matters). */
static int map_peer(int pe, int seg)
{
    void *p;
    size_t len;
    int ret = job->map_peer(pe, (shmi_seg_id_t)seg, &p, &len);

    if (ret != 0)
        return ret;
    mapped[seg][pe].addr = p;
    mapped[seg][pe].len = len;
    return 0;
}

int shmt_local_connect(void)
{
    int failed = 0;

    if (!shmi_env.LOCAL || job->local_size <= 1)
        return 0;
    for (int s = SHMI_SEG_HEAP; s <= SHMI_SEG_DATA; s++) {
        mapped[s] = calloc((size_t)job->size, sizeof(peer_map_t));
        if (!mapped[s])
            return SHMI_ENOMEM;
    }
    for (int i = 0; i < job->local_size; i++) {
        int pe = job->local_pes[i];

        if (pe == job->rank)
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
    for (int s = SHMI_SEG_HEAP; s <= SHMI_SEG_DATA; s++) {
        if (!mapped[s])
            continue;
        for (int pe = 0; pe < job->size; pe++)
            if (mapped[s][pe].addr)
                munmap(mapped[s][pe].addr, mapped[s][pe].len);
        free(mapped[s]);
        mapped[s] = NULL;
    }
    job = NULL;
}

/* Where seg of pe is mapped here by this transport, or NULL. */
static shmt_mapped_base_fn shmt_local_mapped_base;

static void *shmt_local_mapped_base(int pe, shmi_seg_id_t seg)
{
    if (!job || pe < 0 || pe >= job->size || seg < SHMI_SEG_HEAP ||
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
static shmt_caps_fn shmt_local_caps;

static unsigned shmt_local_caps(void)
{
    return SHMT_CAP_LOAD_STORE | SHMT_CAP_ATOMICS_CPU;
}

/*
 * The core does the loads and stores itself, on the mappings this
 * transport makes (SHMT_CAP_LOAD_STORE): it carries no operation, so it has
 * no endpoint and none of the contract's parts.
 */
const shmt_ops_t shmt_local_ops = {
    .size = sizeof(shmt_ops_t),
    .name = "local",
    .kind = SHMT_KIND_LOAD_STORE,
    .init = shmt_local_init,
    .connect = shmt_local_connect,
    .finalize = shmt_local_finalize,
    .reachable = shmt_local_reachable,
    .caps = shmt_local_caps,
    .mapped_base = shmt_local_mapped_base,
};
