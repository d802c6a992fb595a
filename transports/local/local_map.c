/*
 * The local transport's set-up: mapping the heap and data segment of the
 * PEs of this node (docs/design.md, decision 1), and shmt_local_ops itself
 * (it has no parts: the core does the loads and stores).
 *
 * When: where the owners keep their objects openable until shmem_finalize
 * (job->map_on_use, SHMEM_MAP_PEERS=first-use with memfd objects), a peer
 * is mapped at this PE's first access to it (map_now, which the core calls
 * from its route table, src/core/route.c), so that start-up, shut-down and
 * the page tables of a PE grow with the peers it talks to rather than with
 * the PEs of the node (docs/scaling.md). Connect maps two peers at once
 * (map_first), which also shows that mapping works here at all; where it
 * does not, and for every other setting, connect maps every PE of the node
 * as it always did.
 *
 * After connect, mapped_base(pe, seg) is where segment seg of another PE
 * of the node is mapped in this process (the heap always, the data segment
 * when it was remapped, see src/core/heap/data_seg.c), NULL otherwise; the
 * core routes the rest elsewhere (src/core/route.c). The core's
 * job->map_peer opens and maps a peer's shared object (the heap's own code
 * knows its descriptor). A peer whose heap cannot be mapped at connect
 * (e.g. /proc restricted) is reported and reached through the fabric,
 * which is slower but correct.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "services/env.h"
#include "services/error.h"
#include "transports/local/local.h"

/* The mappings made here: [seg][pe]. failed: map_now could not map it
 * (and will not try again). */
typedef struct peer_map {
    char *addr;
    size_t len;
    int failed;
} peer_map_t;

static peer_map_t *mapped[SHMI_SEG_DATA + 1];
static const shmt_job_t *job;
/* Segments mapped on first use (bit 1 << seg), decided at connect. */
static unsigned on_use;
/* Serializes map_now: two threads that touch one peer at once map it once. */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

int shmt_local_init(const shmt_job_t *j)
{
    /* Nothing to publish: the segments published themselves. */
    job = j;
    on_use = 0;
    return 0;
}

/* Maps segment seg of pe; 0, or a negative code when it is not shared or
 * cannot be mapped (the core's map_peer says why where it matters). */
static int map_peer(int pe, int seg)
{
    void *p;
    size_t len;
    int ret;

    if (mapped[seg][pe].addr != NULL)
        return 0;
    ret = job->map_peer(pe, (shmi_seg_id_t)seg, &p, &len);
    if (ret != 0)
        return ret;
    mapped[seg][pe].len = len;
    __atomic_store_n(&mapped[seg][pe].addr, (char *)p, __ATOMIC_RELEASE);
    return 0;
}

/* Every PE of the node, now. */
static void map_all(void)
{
    int failed = 0;

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
}

/* Maps the peers every PE maps at start-up when the others are mapped on
 * first use; 0, or a negative code when one of them cannot be mapped (then
 * mapping does not work here: every peer is mapped at once). */
static int map_first(int next, int leader)
{
    int ret = map_peer(next, SHMI_SEG_HEAP);

    if (ret == 0 && leader != job->rank)
        ret = map_peer(leader, SHMI_SEG_HEAP);
    if (ret == 0 && (job->map_on_use & (1u << SHMI_SEG_DATA))) {
        (void)map_peer(next, SHMI_SEG_DATA);
        if (leader != job->rank)
            (void)map_peer(leader, SHMI_SEG_DATA);
    }
    return ret;
}

int shmt_local_connect(void)
{
    int next, leader;

    if (!shmi_env.LOCAL || job->local_size <= 1)
        return 0;
    for (int s = SHMI_SEG_HEAP; s <= SHMI_SEG_DATA; s++) {
        mapped[s] = calloc((size_t)job->size, sizeof(peer_map_t));
        if (!mapped[s])
            return SHMI_ENOMEM;
    }
    /* Two peers are mapped at once: the next PE of the node (a ring,
     * which SHMEM_DEBUG's comparison of collective calls follows; the
     * first peer of the dissemination barrier too) and the node's first
     * PE, in whose record the PEs of the node leave their finalized marks
     * (src/core/coll/peer_record.h). Both also show that mapping works. */
    next = job->local_pes[(job->local_rank + 1) % job->local_size];
    leader = job->local_pes[0];
    if ((job->map_on_use & (1u << SHMI_SEG_HEAP)) &&
        map_first(next, leader) == 0)
        on_use = job->map_on_use;
    if (on_use == 0) {
        map_all();
        return 0;
    }
    /* A data segment the owners do not keep open is mapped now. */
    if (!(on_use & (1u << SHMI_SEG_DATA)))
        for (int i = 0; i < job->local_size; i++)
            if (job->local_pes[i] != job->rank)
                (void)map_peer(job->local_pes[i], SHMI_SEG_DATA);
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
    on_use = 0;
    job = NULL;
}

/* Where seg of pe is mapped here by this transport, or NULL. */
static shmt_mapped_base_fn shmt_local_mapped_base;

static void *shmt_local_mapped_base(int pe, shmi_seg_id_t seg)
{
    if (!job || pe < 0 || pe >= job->size || seg < SHMI_SEG_HEAP ||
        seg > SHMI_SEG_DATA || !mapped[seg])
        return NULL;
    return __atomic_load_n(&mapped[seg][pe].addr, __ATOMIC_ACQUIRE);
}

/* Mapped, or mapped on its first use: another PE of this node whose
 * segment is of those kept open, not found unmappable. */
int shmt_local_reachable(int pe, shmi_seg_id_t seg)
{
    if (shmt_local_mapped_base(pe, seg) != NULL)
        return 1;
    return mapped[SHMI_SEG_HEAP] && (on_use & (1u << seg)) &&
           pe != job->rank && job->node_of_pe[pe] == job->node_id &&
           !__atomic_load_n(&mapped[seg][pe].failed, __ATOMIC_ACQUIRE);
}

static shmt_map_now_fn shmt_local_map_now;

static void *shmt_local_map_now(int pe, shmi_seg_id_t seg)
{
    char *p;

    if (!shmt_local_reachable(pe, seg))
        return NULL;
    pthread_mutex_lock(&map_lock);
    p = shmt_local_mapped_base(pe, seg);
    if (p == NULL && !mapped[seg][pe].failed) {
        if (map_peer(pe, seg) == 0)
            p = mapped[seg][pe].addr;
        else
            __atomic_store_n(&mapped[seg][pe].failed, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&map_lock);
    return p;
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
    .map_now = shmt_local_map_now,
};
