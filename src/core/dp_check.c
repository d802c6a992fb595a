/*
 * The data plane's checks that end the job (dataplane.h): a call outside
 * the library's lifetime, a PE out of range or outside the context's team,
 * an invalid or destroyed context or team. The entry points' fast paths
 * test with loads and compares only and call these when a test fails, so
 * the message names the routine, the PE and the bad value.
 */
#include "config.h"

#include "core/dataplane.h"
#include "core/team/team.h"
#include "services/error.h"

/* The usual cause of a bad PE or segment outside a job: say so. */
void shmi_dp_check_state(const char *routine)
{
    if (shmi_state.finalized)
        SHMI_FATAL("%s: called after shmem_finalize", routine);
    if (!shmi_state.initialized)
        SHMI_FATAL("%s: called before shmem_init", routine);
}

_Noreturn void shmi_dp_bad_pe(const char *routine, shmem_ctx_t ctx, int pe)
{
    shmi_dp_check_state(routine);
    if (ctx != SHMEM_CTX_INVALID && ctx->team && ctx->team != SHMEM_TEAM_WORLD)
        SHMI_FATAL("%s: PE %d is not a PE of the context's team (%d PEs)",
                   routine, pe, ctx->team->n_pes);
    SHMI_FATAL("%s: PE %d is out of range (the job has PEs 0..%d)", routine, pe,
               shmi_n_pes_fast() - 1);
}

_Noreturn void shmi_dp_bad_ctx(const char *routine)
{
    SHMI_FATAL("%s: the context is SHMEM_CTX_INVALID (not created, or "
               "creation failed)",
               routine);
}

int shmi_dp_team_pe(const char *routine, shmem_ctx_t ctx, int pe)
{
    const struct shmem_impl_team *t = ctx->team;

    if (SHMI_UNLIKELY(t == &shmi_ctx_dead_team))
        shmi_ctx_bad_destroyed(routine, ctx);
    if (t == NULL)
        shmi_dp_check_state(routine);
    if (t != NULL && t->destroyed)
        SHMI_FATAL("%s: the team of context %p was destroyed "
                   "(shmem_team_destroy)",
                   routine, (void *)ctx);
    if (t == NULL || (unsigned)pe >= (unsigned)t->n_pes)
        shmi_dp_bad_pe(routine, ctx, pe);
    return shmi_team_world_pe(t, pe);
}
