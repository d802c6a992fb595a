/*
 * SHMEM_TRANSPORT: which of the registered transports (transports/registry.c)
 * this job may use. Read before the segments are set up, because leaving
 * out the local transport means what SHMEM_LOCAL=0 means (no peer heap is
 * mapped), and src/core/heap/segments.c sizes the heap from that.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/init_seq.h"
#include "core/state.h"
#include "services/env.h"
#include "services/error.h"
#include "transports/transport.h"

/* Bit i: registry entry i may be used (every one unless SHMEM_TRANSPORT
 * says otherwise). */
static unsigned long shmi_path_allowed = ~0UL;

int shmi_path_may_use(const shmt_ops_t *t)
{
    for (int i = 0; shmt_registry[i]; i++)
        if (shmt_registry[i] == t)
            return (shmi_path_allowed >> i) & 1UL;
    return 0;
}

/* 1 when the registry has an allowed transport of kind k. */
static int shmi_path_kind_allowed(unsigned k)
{
    for (int i = 0; shmt_registry[i]; i++)
        if (shmt_registry[i]->kind == k && ((shmi_path_allowed >> i) & 1UL))
            return 1;
    return 0;
}

int shmi_path_network_allowed(void)
{
    return shmi_path_kind_allowed(SHMT_KIND_NETWORK);
}

/* 1 when name (len bytes) names a registered transport, then *which is its
 * registry index. */
static int shmi_path_select_find(const char *name, size_t len, int *which)
{
    for (int i = 0; shmt_registry[i]; i++)
        if (strlen(shmt_registry[i]->name) == len &&
            strncmp(shmt_registry[i]->name, name, len) == 0) {
            *which = i;
            return 1;
        }
    return 0;
}

/* The registry entries a comma list chooses, as bits; -1 on a bad word. */
static long shmi_path_select_parse(const char *s)
{
    long chosen = 0;

    while (*s) {
        size_t len = strcspn(s, ",");
        int which;

        if (!shmi_path_select_find(s, len, &which)) {
            SHMI_LOG(SHMI_LOG_ERROR, "path",
                     "SHMEM_TRANSPORT=\"%s\": \"%.*s\" is not a registered "
                     "transport (shmem_info lists them)",
                     shmi_env.TRANSPORT, (int)len, s);
            return -1;
        }
        chosen |= 1L << which;
        s += len + (s[len] == ',');
    }
    return chosen;
}

/* Refuses a registered transport whose base or parts are smaller than the
 * members the core reads, or that lacks a member it must have
 * (transports/registry.c says why it is refused, not skipped). */
static int shmi_paths_check_registry(void)
{
    char why[256];

    for (int i = 0; shmt_registry[i]; i++)
        if (shmt_registry_check(shmt_registry[i], why, sizeof(why)) < 0) {
            SHMI_LOG(SHMI_LOG_ERROR, "path", "%s", why);
            return SHMI_EINVAL;
        }
    return 0;
}

int shmi_paths_select(void)
{
    long chosen;
    int want_local, want_net;

    if (shmi_paths_check_registry() < 0)
        return SHMI_EINVAL;
    shmi_path_allowed = ~0UL;
    if (shmi_env.TRANSPORT[0] == '\0')
        return 0; /* every registered transport */
    chosen = shmi_path_select_parse(shmi_env.TRANSPORT);
    if (chosen < 0)
        return SHMI_EINVAL;
    shmi_path_allowed = (unsigned long)chosen;
    want_local = shmi_path_kind_allowed(SHMT_KIND_LOAD_STORE);
    want_net = shmi_path_kind_allowed(SHMT_KIND_NETWORK);
    if (!want_local && !want_net) {
        SHMI_LOG(SHMI_LOG_ERROR, "path",
                 "SHMEM_TRANSPORT=\"%s\" names no transport of host memory "
                 "(load/store or a network)",
                 shmi_env.TRANSPORT);
        return SHMI_EINVAL;
    }
    if (want_local && !want_net && !shmi_env.LOCAL) {
        SHMI_LOG(SHMI_LOG_ERROR, "path",
                 "SHMEM_TRANSPORT=\"%s\" leaves only load/store, but "
                 "SHMEM_LOCAL=0 turns load/store off; drop one of the two",
                 shmi_env.TRANSPORT);
        return SHMI_EINVAL;
    }
    if (!want_local)
        shmi_env.LOCAL = 0; /* SHMEM_TRANSPORT=ofi is SHMEM_LOCAL=0 */
    return 0;
}

/* The message of a job that left out the fabric but needs it. */
int shmi_paths_fabric_refused(int any_off)
{
    SHMI_LOG(SHMI_LOG_ERROR, "path",
             "SHMEM_TRANSPORT=\"%s\" leaves out the fabric, but PE %d "
             "needs it: %s",
             shmi_env.TRANSPORT, shmi_my_pe_fast(),
             any_off ? "SHMEM_LOCAL_OFF_PES sends PEs through it"
             : strcmp(shmi_env.AMO_ENGINE, "fabric") == 0
                 ? "SHMEM_AMO_ENGINE=fabric sends atomics through it"
                 : "some peers are on other nodes or cannot be mapped");
    return SHMI_EINVAL;
}

/* The dp_transport_* cases of tests/dataplane/dataplane.cases read this
 * line. */
void shmi_paths_report_reach(int by_load_store)
{
    SHMI_LOG(SHMI_LOG_DEBUG, "path", "load/store reaches %d of %d other PEs",
             by_load_store, shmi_n_pes_fast() - 1);
}
