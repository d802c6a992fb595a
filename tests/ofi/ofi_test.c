/*
 * Scaffolding of the libfabric transport tests (see ofi_test.h).
 */
#include "config.h"

#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "core/state.h"
#include "services/env.h"
#include "services/error.h"
#include "tests/ofi/ofi_test.h"

/* A wait longer than this is a failure, not a hang (seconds). */
#define T_WAIT_LIMIT 120

int t_me, t_npes;
char *t_heap;
shmt_ep_t *t_ep;
const shmt_ops_t *t_ops = &shmt_ofi_ops;

/* The data segment the tests register: a static array, so that it sits at
 * a different address in each process but at the same offset. */
uint64_t t_data[T_DATA_WORDS];
static int t_shared;
static uint64_t t_bar_round;

_Noreturn void t_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "FAIL [pe %d] %s:%d: ", t_me, file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    shmi_boot_abort(1, "ofi test failed");
}

static void t_shm_name(char *buf, size_t len, int pe)
{
    char job[64];

    snprintf(job, sizeof(job), "%s", shmi_state.boot.jobid);
    for (char *c = job; *c; c++)
        if (*c == '/' || *c == '@' || *c == ':')
            *c = '_';
    snprintf(buf, len, "/weft-ofitest-%s-%d", job, pe);
}

static char *t_heap_create(int shared)
{
    char name[128];
    void *p;
    int fd;

    if (!shared) {
        p = mmap(NULL, T_HEAP_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    t_shm_name(name, sizeof(name), t_me);
    fd = shm_open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return NULL;
    if (ftruncate(fd, T_HEAP_SIZE) != 0) {
        close(fd);
        return NULL;
    }
    p = mmap(NULL, T_HEAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

char *t_map_peer_heap(int pe)
{
    char name[128];
    void *p;
    int fd;

    t_shm_name(name, sizeof(name), pe);
    fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0)
        return NULL;
    p = mmap(NULL, T_HEAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

shmt_job_t t_job;

void t_job_fill(char *heap, size_t heap_size, char *data, size_t data_size)
{
    const shmi_boot_info_t *b = &shmi_state.boot;

    memset(&t_job, 0, sizeof(t_job));
    t_job.rank = b->rank;
    t_job.size = b->size;
    t_job.node_id = b->node_id;
    t_job.n_nodes = b->n_nodes;
    t_job.node_of_pe = b->node_of_pe;
    t_job.local_rank = b->local_rank;
    t_job.local_size = b->local_size;
    t_job.local_pes = b->local_pes;
    t_job.seg[SHMI_SEG_HEAP] =
        (shmt_seg_t){heap, heap_size, heap, SHMI_MEM_HOST, 0};
    t_job.seg[SHMI_SEG_DATA] =
        (shmt_seg_t){data, data_size, data, SHMI_MEM_HOST, 0};
    t_job.publish = shmi_boot_put;
    t_job.lookup = shmi_boot_get;
}

int t_setup(int shared)
{
    char err[512];
    int ret;

    if (shmi_env_load(err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    ret = shmi_boot_init(&shmi_state.boot);
    T_CHECK(ret == 0, "shmi_boot_init: %s", shmi_strerror(ret));
    t_me = shmi_state.boot.rank;
    t_npes = shmi_state.boot.size;
    t_shared = shared;
    t_heap = t_heap_create(shared);
    T_CHECK(t_heap, "cannot create the test heap");
    memset(t_data, 0, sizeof(t_data));
    t_job_fill(t_heap, T_HEAP_SIZE, (char *)t_data, sizeof(t_data));
    ret = t_ops->init(&t_job);
    if (ret == SHMI_ENODEV) {
        printf("no usable libfabric provider here\n");
        return 77;
    }
    T_CHECK(ret == 0, "init: %s", shmi_strerror(ret));
    T_CHECK(shmi_boot_fence() == 0, "shmi_boot_fence");
    ret = t_ops->connect();
    T_CHECK(ret == 0, "connect: %s", shmi_strerror(ret));
    ret = t_ops->ep_create(0, NULL, &t_ep);
    T_CHECK(ret == 0, "ep_create: %s", shmi_strerror(ret));
    for (int pe = 0; pe < t_npes; pe++)
        T_CHECK(t_ops->reachable(pe, SHMI_SEG_HEAP) &&
                    t_ops->reachable(pe, SHMI_SEG_DATA),
                "PE %d not reachable", pe);
    /* Everyone connected before anyone sends. */
    T_CHECK(shmi_boot_fence() == 0, "shmi_boot_fence");
    return 0;
}

void t_heap_unlink(void)
{
    char name[128];

    if (!t_shared)
        return;
    t_shm_name(name, sizeof(name), t_me);
    shm_unlink(name);
}

void t_teardown(void)
{
    t_barrier();
    t_barrier();
    T_CHECK(shmi_boot_fence() == 0, "shmi_boot_fence");
    t_ops->ep_destroy(t_ep);
    t_ops->finalize();
    t_heap_unlink();
    munmap(t_heap, T_HEAP_SIZE);
    shmi_boot_finalize();
}

void t_wait_ge(size_t off, uint64_t value)
{
    time_t start = time(NULL);
    unsigned polls = 0;

    while (__atomic_load_n(t_word(off), __ATOMIC_ACQUIRE) < value) {
        t_ops->progress();
        if (++polls > 100)
            sched_yield();
        T_CHECK(time(NULL) - start < T_WAIT_LIMIT,
                "timed out waiting for word %zu to reach %llu (is %llu)", off,
                (unsigned long long)value,
                (unsigned long long)*t_word(off));
    }
}

/* Everyone adds 1 at PE 0, which releases them all with a put. */
void t_barrier(void)
{
    uint64_t one = 1, round = ++t_bar_round;
    int ret;

    ret = t_ops->order->quiet(t_ep, -1);
    T_CHECK(ret == 0, "quiet: %s", shmi_strerror(ret));
    ret = t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, T_OFF_BAR_COUNT,
                             SHMI_AMO_ADD, SHMI_DT_UINT64, &one, NULL, NULL, 0);
    T_CHECK(ret == 0, "barrier amo: %s", shmi_strerror(ret));
    ret = t_ops->order->quiet(t_ep, -1);
    T_CHECK(ret == 0, "quiet: %s", shmi_strerror(ret));
    if (t_me == 0) {
        t_wait_ge(T_OFF_BAR_COUNT, round * (uint64_t)t_npes);
        for (int pe = 0; pe < t_npes; pe++) {
            ret = t_ops->rma->put(t_ep, pe, SHMI_SEG_HEAP, T_OFF_BAR_FLAG,
                                  &round, sizeof(round), 1);
            T_CHECK(ret == 0, "barrier put: %s", shmi_strerror(ret));
        }
        ret = t_ops->order->quiet(t_ep, -1);
        T_CHECK(ret == 0, "quiet: %s", shmi_strerror(ret));
    }
    t_wait_ge(T_OFF_BAR_FLAG, round);
}
