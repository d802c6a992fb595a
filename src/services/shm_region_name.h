/*
 * The names of libfabric shm provider regions in /dev/shm, read by both
 * sweeps of what dead processes left (tools/oshrun_sweep.c,
 * transports/ofi/ofi_shm_region.c): the provider's own form
 * "<pid>:<uid>:<endpoint>" (libfabric 1.17) and the one Weft gives its
 * endpoints, "weftfi-<pid>-<random>-<endpoint>". Inline: oshrun does not
 * link the library.
 */
#ifndef SHMI_SHM_REGION_NAME_H
#define SHMI_SHM_REGION_NAME_H

#include <string.h>

/* The prefix of the region names Weft chooses (fi_setname). */
#define SHMI_SHM_REGION_PREFIX "weftfi-"

/* The digits at p as a number in *v; returns what follows them, or NULL
 * when there are none or too many. */
static inline const char *shmi_name_digits(const char *p, long *v)
{
    const char *s = p;

    *v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (*v > 0x7fffffffL / 10)
            return NULL;
        *v = *v * 10 + (*p - '0');
    }
    return p == s ? NULL : p;
}

/* The pid in a region name of either form, with *uid the uid of the
 * provider's form (-1 in Weft's, whose files only their owner makes); 0
 * when name is neither. */
static inline long shmi_shm_region_pid(const char *name, long *uid)
{
    size_t n = sizeof(SHMI_SHM_REGION_PREFIX) - 1;
    const char *p;
    long pid, ep;

    *uid = -1;
    if (strncmp(name, SHMI_SHM_REGION_PREFIX, n) == 0)
        return (p = shmi_name_digits(name + n, &pid)) && *p == '-' ? pid : 0;
    if (!(p = shmi_name_digits(name, &pid)) || *p != ':' ||
        !(p = shmi_name_digits(p + 1, uid)) || *p != ':' ||
        !(p = shmi_name_digits(p + 1, &ep)) || *p != '\0') {
        *uid = -1;
        return 0;
    }
    return pid;
}

#endif /* SHMI_SHM_REGION_NAME_H */
