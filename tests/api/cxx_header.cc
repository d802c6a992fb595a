// The public headers must compile as C++ (no _Generic there; extern "C").
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

#include <cstdint>

int cxx_uses_api(shmem_ctx_t ctx);
int cxx_uses_api(shmem_ctx_t ctx)
{
    static long d[4], s[4];
    static std::uint64_t sig;
    shmem_long_put(d, s, 4, 0);
    shmem_ctx_long_put(ctx, d, s, 4, 0);
    long v = shmem_long_atomic_fetch_add(d, 1, 0);
    shmem_uint64_put_signal(reinterpret_cast<std::uint64_t *>(d), &sig, 1, &sig, 1,
                            SHMEM_SIGNAL_ADD, 0);
    shmem_long_wait_until(d, SHMEM_CMP_GE, v);
    shmem_team_config_t cfg = {1};
    shmem_team_t team = SHMEM_TEAM_INVALID;
    (void)shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, &cfg,
                                   SHMEM_TEAM_NUM_CONTEXTS, &team);
    pshmem_barrier_all();
    void *p = shmemx_malloc_device(64);
    shmem_free(p);
    return ctx == SHMEM_CTX_DEFAULT && team != SHMEM_TEAM_INVALID;
}
