/*
 * SHMEM_TRANSPORT: which of the registered transports (transports/registry.c)
 * this job may use. Read before the segments are set up, because leaving
 * out the local transport means what SHMEM_LOCAL=0 means (no peer heap is
 * mapped), and src/core/heap/segments.c sizes the heap from that.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/env.h"
#include "core/error.h"
#include "core/init_seq.h"
#include "transports/transport.h"

int shmi_path_fabric_allowed = 1;

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

/* The transports a comma list chooses: 1 local, 2 the fabric; -1 on a bad
 * word. */
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
        chosen |= shmt_registry[which] == &shmt_local_ops ? 1L : 2L;
        s += len + (s[len] == ',');
    }
    return chosen;
}

int shmi_paths_select(void)
{
    long chosen;
    int want_local, want_ofi;

    if (shmi_env.TRANSPORT[0] == '\0')
        return 0; /* every registered transport */
    chosen = shmi_path_select_parse(shmi_env.TRANSPORT);
    if (chosen < 0)
        return SHMI_EINVAL;
    want_local = (chosen & 1L) != 0;
    want_ofi = (chosen & 2L) != 0;
    if (!want_local && !want_ofi) {
        SHMI_LOG(SHMI_LOG_ERROR, "path",
                 "SHMEM_TRANSPORT=\"%s\" names no transport",
                 shmi_env.TRANSPORT);
        return SHMI_EINVAL;
    }
    if (want_local && !want_ofi && !shmi_env.LOCAL) {
        SHMI_LOG(SHMI_LOG_ERROR, "path",
                 "SHMEM_TRANSPORT=\"%s\" leaves only load/store, but "
                 "SHMEM_LOCAL=0 turns load/store off; drop one of the two",
                 shmi_env.TRANSPORT);
        return SHMI_EINVAL;
    }
    if (!want_local)
        shmi_env.LOCAL = 0; /* SHMEM_TRANSPORT=ofi is SHMEM_LOCAL=0 */
    shmi_path_fabric_allowed = want_ofi;
    return 0;
}
