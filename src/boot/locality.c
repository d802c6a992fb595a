/*
 * Locality: which PEs share this node, and a dense node number for every PE.
 *
 * Launchers differ in what they provide: oshrun, Slurm and Open MPI give
 * PMIX_LOCAL_PEERS; the node of a remote PE comes from PMIX_NODEID where
 * present, else from its PMIX_HOSTNAME, else from hostnames exchanged with
 * one fence.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot_pmix.h"
#include "services/error.h"

#define HOST_MAX 256
#define HOST_KEY "boot.host"

/* Parses "0,1,5" (PMIX_LOCAL_PEERS) into ascending ranks. */
static int parse_peers(const char *text, int size, int **pes, int *n)
{
    int *out = calloc((size_t)size, sizeof(int));
    int count = 0;
    const char *p = text;

    if (!out)
        return SHMI_ENOMEM;
    while (*p) {
        char *end;
        long r = strtol(p, &end, 10);

        if (end == p || r < 0 || r >= size || count == size) {
            free(out);
            return SHMI_EIO;
        }
        out[count++] = (int)r;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            free(out);
            return SHMI_EIO;
        }
    }
    for (int i = 1; i < count; i++) /* insertion sort: lists are short */
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    *pes = out;
    *n = count;
    return 0;
}

/* Raw node ids from PMIX_NODEID of every PE. */
static int nodes_from_nodeid(int size, int *raw)
{
    for (int r = 0; r < size; r++) {
        uint32_t id;

        if (shmi_boot_get_u32(r, PMIX_NODEID, &id))
            return SHMI_EIO;
        raw[r] = (int)id;
    }
    return 0;
}

/* Index of host in hosts[0..*n), appending it when new. */
static int host_index(char (*hosts)[HOST_MAX], int *n, const char *host)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(hosts[i], host) == 0)
            return i;
    snprintf(hosts[*n], HOST_MAX, "%s", host);
    return (*n)++;
}

/* Raw node ids from hostnames: the launcher's, else exchanged by a fence. */
static int nodes_from_hosts(int size, int *raw, int exchange)
{
    char(*hosts)[HOST_MAX] = calloc((size_t)size, HOST_MAX);
    char host[HOST_MAX] = "";
    int n = 0, ret = 0;

    if (!hosts)
        return SHMI_ENOMEM;
    if (exchange) {
        gethostname(host, sizeof(host) - 1);
        ret = shmi_boot_put(HOST_KEY, host, sizeof(host));
        if (!ret)
            ret = shmi_boot_fence();
    }
    for (int r = 0; r < size && !ret; r++) {
        if (exchange)
            ret = shmi_boot_get(r, HOST_KEY, host, sizeof(host));
        else
            ret = shmi_boot_get_string(r, PMIX_HOSTNAME, host, sizeof(host));
        if (!ret)
            raw[r] = host_index(hosts, &n, host);
    }
    free(hosts);
    return ret;
}

/* Renumbers raw node ids densely in order of first rank; returns the count. */
static int densify(int size, int *raw)
{
    int *map_from = malloc((size_t)size * sizeof(int));
    int n = 0;

    if (!map_from)
        return SHMI_ENOMEM;
    for (int r = 0; r < size; r++) {
        int k = 0;

        while (k < n && map_from[k] != raw[r])
            k++;
        if (k == n)
            map_from[n++] = raw[r];
        raw[r] = k;
    }
    free(map_from);
    return n;
}

static int node_ids(shmi_boot_info_t *info, int *raw)
{
    int ret;

    if (info->size == 1 || (info->local_size == info->size && info->local_pes))
        return 0; /* every PE is here: raw is all zero */
    ret = nodes_from_nodeid(info->size, raw);
    if (ret)
        ret = nodes_from_hosts(info->size, raw, 0);
    if (ret) {
        SHMI_LOG(SHMI_LOG_DEBUG, "boot",
                 "launcher gave neither %s nor %s; exchanging hostnames",
                 PMIX_NODEID, PMIX_HOSTNAME);
        ret = nodes_from_hosts(info->size, raw, 1);
    }
    return ret;
}

/* Local peers when the launcher gave no PMIX_LOCAL_PEERS: same node id. */
static int peers_from_nodes(shmi_boot_info_t *info)
{
    int me = info->node_of_pe[info->rank], n = 0;

    info->local_pes = malloc((size_t)info->size * sizeof(int));
    if (!info->local_pes)
        return SHMI_ENOMEM;
    for (int r = 0; r < info->size; r++)
        if (info->node_of_pe[r] == me)
            info->local_pes[n++] = r;
    info->local_size = n;
    return 0;
}

int shmi_boot_locality(shmi_boot_info_t *info)
{
    char *peers = malloc((size_t)info->size * 12 + 1);
    int ret = SHMI_ENOMEM;

    info->node_of_pe = calloc((size_t)info->size, sizeof(int));
    if (!peers || !info->node_of_pe)
        goto out;
    if (info->singleton) {
        info->local_pes = calloc(1, sizeof(int));
        info->local_size = 1;
        ret = info->local_pes ? 0 : SHMI_ENOMEM;
    } else if (shmi_boot_get_string(SHMI_BOOT_JOB, PMIX_LOCAL_PEERS, peers,
                                    (size_t)info->size * 12 + 1) == 0) {
        ret =
            parse_peers(peers, info->size, &info->local_pes, &info->local_size);
    } else {
        ret = 0; /* derived from the node ids below */
    }
    if (!ret)
        ret = node_ids(info, info->node_of_pe);
    if (ret)
        goto out;
    info->n_nodes = densify(info->size, info->node_of_pe);
    if (info->n_nodes < 0) {
        ret = info->n_nodes;
        goto out;
    }
    if (!info->local_pes && (ret = peers_from_nodes(info)))
        goto out;
    info->node_id = info->node_of_pe[info->rank];
    info->local_rank = -1;
    for (int i = 0; i < info->local_size; i++)
        if (info->local_pes[i] == info->rank)
            info->local_rank = i;
    if (info->local_rank < 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot",
                 "rank %d is not among its node's "
                 "peers (%s)",
                 info->rank, PMIX_LOCAL_PEERS);
        ret = SHMI_EIO;
    }
out:
    free(peers);
    return ret;
}
