/*
 * What the libfabric transport can do, as SHMT_CAP_* bits, from the
 * provider it chose (ofi_provider.c).
 *
 * The answer the core acts on is who applies the atomics that arrive
 * through libfabric (docs/dataplane.md, "Atomic coherence"). The software
 * providers listed below apply them in the target process, with the CPU's
 * atomic instructions: they compose with the CPU atomics that PEs mapping
 * the same word apply (dp_stress_mixed_* in tests/dataplane/dataplane.cases
 * checks it on each). Any other provider is declared as applying atomics
 * on the NIC: a NIC provider, and also one this list does not know (one
 * chosen by preference included), because declaring CPU atomics where the
 * NIC applies them loses updates, while the opposite only sends the atomics
 * of mapped words through the fabric as well. A composed name
 * ("tcp;ofi_rxm") is software only when each of its parts is.
 * SHMEM_OFI_ATOMICS=cpu|nic replaces the answer: tests use it to force each
 * combination on the providers of a machine, and a site may state what a
 * provider this list lacks does.
 */
#include "config.h"

#include <string.h>

#include "services/env.h"
#include "transports/ofi/ofi_internal.h"

/* Providers that apply atomics at the target with CPU atomic instructions. */
static const char *const shmt_ofi_soft_atomics[] = {
    "shm", "tcp", "sockets", "udp", "ofi_rxm", "ofi_rxd",
};

static int shmt_ofi_soft_part(const char *part, size_t len)
{
    size_t n = sizeof(shmt_ofi_soft_atomics) / sizeof(shmt_ofi_soft_atomics[0]);

    for (size_t i = 0; i < n; i++)
        if (strlen(shmt_ofi_soft_atomics[i]) == len &&
            strncmp(part, shmt_ofi_soft_atomics[i], len) == 0)
            return 1;
    return 0;
}

/* 1 when every part of prov ("tcp;ofi_rxm") is a software provider. */
static int shmt_ofi_soft(const char *prov)
{
    if (prov == NULL || !*prov)
        return 0;
    for (const char *p = prov; *p;) {
        size_t len = strcspn(p, ";");

        if (!shmt_ofi_soft_part(p, len))
            return 0;
        p += len + (p[len] == ';');
    }
    return 1;
}

unsigned shmt_ofi_caps_of(const struct fi_info *info)
{
    const char *mode = shmi_env.OFI_ATOMICS;
    unsigned caps = 0;
    int cpu;

    if (strcmp(mode, "auto") == 0)
        cpu = shmt_ofi_soft(info->fabric_attr->prov_name);
    else
        cpu = strcmp(mode, "cpu") == 0;
    caps |= cpu ? SHMT_CAP_ATOMICS_CPU : SHMT_CAP_ATOMICS_NIC;
    if (info->caps & FI_HMEM)
        caps |= SHMT_CAP_HMEM;
    return caps;
}

unsigned shmt_ofi_caps_of_candidate(const void *candidate)
{
    return shmt_ofi_caps_of(candidate);
}

unsigned shmt_ofi_caps(void)
{
    unsigned caps;

    if (shmt_ofi.info == NULL)
        return 0;
    caps = shmt_ofi_caps_of(shmt_ofi.info);
    if (shmt_ofi.ordered)
        caps |= SHMT_CAP_ORDERED;
    return caps;
}
