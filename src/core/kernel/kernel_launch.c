/*
 * Launching kernels that communicate, and what device code compiled as
 * host code asks of libweft (docs/gpu.md, "Device-initiated
 * communication"): the mock's launcher runs host threads in place of GPU
 * threads, and these routines tell such a thread its place in the grid,
 * synchronise its block or warp, and stop it on a trap.
 */
#include "config.h"

#include <sched.h>
#include <time.h>

#include "core/core_decl.h"
#include "core/heap/device_heap.h"
#include "core/init.h"
#include "core/kernel/kernel.h"
#include "core/state.h"
#include "services/error.h"

/* How long a trapped host thread waits for the proxy to end the job. */
#define TRAP_WAIT_S 30

int shmix_collective_launch(const void *func, const unsigned *grid,
                            const unsigned *block, void **args,
                            size_t shared_bytes, void *stream)
{
    const char *routine = "shmemx_collective_launch";
    const shmi_gpu_ops_t *g;
    int ret;

    shmi_require_init(routine);
    if (!func || !grid || !block)
        SHMI_FATAL("%s: PE %d: %s is NULL", routine, shmi_my_pe_fast(),
                   !func   ? "func"
                   : !grid ? "grid"
                           : "block");
    g = shmi_device_backend();
    if (!g)
        SHMI_FATAL("%s: PE %d has no device heap (SHMEM_DEVICE_BACKEND, "
                   "SHMEM_SYMMETRIC_DEVICE_SIZE)",
                   routine, shmi_my_pe_fast());
    ret = g->launch(func, grid, block, args, shared_bytes, stream);
    if (ret != 0)
        SHMI_LOG(SHMI_LOG_ERROR, "kernel",
                 "%s: PE %d: launching %ux%ux%u blocks of %ux%ux%u threads "
                 "on %s failed: %s",
                 routine, shmi_my_pe_fast(), grid[0], grid[1], grid[2],
                 block[0], block[1], block[2], g->name, shmi_strerror(ret));
    return ret == 0 ? 0 : -1;
}

/* Only device code compiled as host code calls these three, and only a
 * back end that runs it has the members (services/gpu_ops.h). */
const void *shmix_kernel_thread_info(void)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    return g && g->host_thread ? g->host_thread() : NULL;
}

void shmix_kernel_block_sync(void)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    if (g && g->host_block_sync)
        g->host_block_sync();
}

void shmix_kernel_warp_sync(void)
{
    const shmi_gpu_ops_t *g = shmi_device_backend();

    if (g && g->host_warp_sync)
        g->host_warp_sync();
}

/* One pause of a polling loop of device code compiled as host code.
 * Mock kernels run many more threads than cores (80 per PE on 2 cores in
 * the tests): a waiting thread yields a few times, then sleeps from 8 us
 * doubling to 1 ms. Yielding alone left the proxy one time slice in 80;
 * short fixed sleeps woke 80 threads every 60 us. */
void shmix_kernel_relax(unsigned polls)
{
    struct timespec ts = {0, 0};

    if (polls < 8) {
        sched_yield();
        return;
    }
    ts.tv_nsec = polls < 15 ? 1000L << (polls - 5) : 1000000L;
    nanosleep(&ts, NULL);
}

/* A host thread standing in for a GPU thread that traps: it has recorded
 * its error for the proxy, which ends the job; it must never return into
 * the device routine. Should no proxy run, it ends the job itself. */
void shmix_kernel_trap(void)
{
    struct timespec ts = {0, 10 * 1000 * 1000};

    for (int i = 0; i < TRAP_WAIT_S * 100; i++)
        nanosleep(&ts, NULL);
    SHMI_FATAL("device code of PE %d stopped on an error that no proxy "
               "reported within %d s",
               shmi_my_pe_fast(), TRAP_WAIT_S);
}
