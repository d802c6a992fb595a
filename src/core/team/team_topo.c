/*
 * A team's members grouped by node (struct shmi_team_topo), computed
 * locally from the bootstrap's node map at team creation, so every member
 * derives the same grouping without communication.
 */
#include "config.h"

#include <stdlib.h>

#include "core/state.h"
#include "core/team/team.h"
#include "services/env.h"
#include "services/error.h"

static int shmi_topo_node_of(int wpe)
{
    if (shmi_env.COLL_NODE_PES > 0)
        return (int)(wpe / shmi_env.COLL_NODE_PES);
    return shmi_state.boot.node_of_pe ? shmi_state.boot.node_of_pe[wpe] : 0;
}

/* leader_of[i]: the first team PE on the node of team PE i (node ids are
 * small non-negative integers). */
static int shmi_topo_leaders_of(int n, const int *node, int *leader_of)
{
    int max = 0;
    int *first;

    for (int i = 0; i < n; i++)
        max = node[i] > max ? node[i] : max;
    first = malloc(((size_t)max + 1) * sizeof(int));
    if (first == NULL)
        return SHMI_ENOMEM;
    for (int v = 0; v <= max; v++)
        first[v] = -1;
    for (int i = 0; i < n; i++) {
        if (first[node[i]] < 0)
            first[node[i]] = i;
        leader_of[i] = first[node[i]];
    }
    free(first);
    return 0;
}

static int shmi_topo_fill(struct shmem_impl_team *t, const int *leader_of)
{
    shmi_team_topo_t *o = &t->topo;
    int me = t->my_pe, n = t->n_pes, nl = 0, k = 0;

    o->leaders = malloc((size_t)n * sizeof(int));
    if (o->leaders == NULL)
        return SHMI_ENOMEM;
    o->my_leader = leader_of[me];
    o->leader_idx = -1;
    for (int i = 0; i < n; i++) {
        if (leader_of[i] == i) {
            if (i == me)
                o->leader_idx = nl;
            o->leaders[nl++] = i;
        }
        if (leader_of[i] == o->my_leader)
            o->n_local++;
    }
    o->n_leaders = nl;
    o->node = malloc((size_t)o->n_local * sizeof(int));
    if (o->node == NULL)
        return SHMI_ENOMEM;
    for (int i = 0, j = 0; i < n; i++)
        if (leader_of[i] == o->my_leader) {
            if (i == me)
                o->node_idx = j;
            o->node[j++] = i;
        }
    if (o->leader_idx < 0 || o->n_local == 1)
        return 0;
    o->local = malloc((size_t)o->n_local * sizeof(int));
    if (o->local == NULL)
        return SHMI_ENOMEM;
    for (int i = 0; i < n; i++)
        if (i != me && leader_of[i] == me)
            o->local[k++] = i;
    return 0;
}

int shmi_team_topo_init(struct shmem_impl_team *t)
{
    int *node = calloc((size_t)t->n_pes, sizeof(int));
    int ret = SHMI_ENOMEM;

    t->topo = (shmi_team_topo_t){0};
    t->topo.leader_of = calloc((size_t)t->n_pes, sizeof(int));
    if (node == NULL || t->topo.leader_of == NULL)
        goto out;
    for (int i = 0; i < t->n_pes; i++)
        node[i] = shmi_topo_node_of(shmi_team_world_pe(t, i));
    ret = shmi_topo_leaders_of(t->n_pes, node, t->topo.leader_of);
    if (ret == 0)
        ret = shmi_topo_fill(t, t->topo.leader_of);
out:
    free(node);
    if (ret != 0)
        shmi_team_topo_fini(t);
    return ret;
}

void shmi_team_topo_fini(struct shmem_impl_team *t)
{
    free(t->topo.leaders);
    free(t->topo.local);
    free(t->topo.leader_of);
    free(t->topo.node);
    t->topo = (shmi_team_topo_t){0};
}
