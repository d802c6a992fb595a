/*
 * Placement of the PEs of a node from the hwloc topology (see placement.h).
 *
 * The rule, for local rank r of n:
 *  1. the anchor: GPU r*G/n in PCI bus order, which is how the GPU runtimes
 *     number devices; without GPUs, NUMA node r*M/n;
 *  2. the NIC: the one whose PCI path shares the deepest ancestor with the
 *     anchor (same PCIe switch beats same host bridge beats same package);
 *     ranks sharing an anchor take equally close NICs in turn;
 *  3. the cores: those local to the anchor, spread over the ranks that share
 *     it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services/error.h"
#include "topo/placement.h"

enum { PLACE_MAX_DEVS = 64 };

/* The node's GPUs or NICs, in PCI bus order. */
typedef struct dev_list {
    hwloc_obj_t pci[PLACE_MAX_DEVS];
    int n;
} dev_list_t;

static int osdev_child(hwloc_obj_t pci, hwloc_obj_osdev_type_t type,
                       const char **name, int need_subtype)
{
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
        if (c->type != HWLOC_OBJ_OS_DEVICE || c->attr->osdev.type != type)
            continue;
        if (need_subtype && !c->subtype)
            continue;
        if (name)
            *name = c->name;
        return 1;
    }
    return 0;
}

/* Datacenter GPUs are 3D controllers (0x0302) or "other display" (0x0380);
 * a VGA device (0x0300) counts only when a GPU runtime names it, so that a
 * server's management VGA chip is not taken for a GPU. */
static int pci_is_gpu(hwloc_obj_t pci)
{
    unsigned cls = pci->attr->pcidev.class_id;

    if (cls == 0x0302 || cls == 0x0380)
        return 1;
    return cls == 0x0300 &&
           (osdev_child(pci, HWLOC_OBJ_OSDEV_GPU, NULL, 1) ||
            osdev_child(pci, HWLOC_OBJ_OSDEV_COPROC, NULL, 1));
}

/* A network controller with a name the fabric knows it by. */
static const char *pci_nic_name(hwloc_obj_t pci)
{
    const char *name = NULL;

    if ((pci->attr->pcidev.class_id >> 8) != 0x02)
        return NULL;
    if (osdev_child(pci, HWLOC_OBJ_OSDEV_OPENFABRICS, &name, 0) ||
        osdev_child(pci, HWLOC_OBJ_OSDEV_NETWORK, &name, 0))
        return name;
    return NULL;
}

static int pci_cmp(const void *a, const void *b)
{
    const struct hwloc_pcidev_attr_s *x = &(*(hwloc_obj_t const *)a)->attr->pcidev;
    const struct hwloc_pcidev_attr_s *y = &(*(hwloc_obj_t const *)b)->attr->pcidev;
    unsigned long kx = ((unsigned long)x->domain << 24) | (x->bus << 16) |
                       (x->dev << 8) | x->func;
    unsigned long ky = ((unsigned long)y->domain << 24) | (y->bus << 16) |
                       (y->dev << 8) | y->func;

    return kx < ky ? -1 : kx > ky;
}

static void collect(hwloc_topology_t topo, dev_list_t *gpus, dev_list_t *nics)
{
    hwloc_obj_t pci = NULL;

    gpus->n = nics->n = 0;
    while ((pci = hwloc_get_next_pcidev(topo, pci)) != NULL) {
        if (pci_is_gpu(pci) && gpus->n < PLACE_MAX_DEVS)
            gpus->pci[gpus->n++] = pci;
        else if (pci_nic_name(pci) && nics->n < PLACE_MAX_DEVS)
            nics->pci[nics->n++] = pci;
    }
    qsort(gpus->pci, (size_t)gpus->n, sizeof(hwloc_obj_t), pci_cmp);
    qsort(nics->pci, (size_t)nics->n, sizeof(hwloc_obj_t), pci_cmp);
}

/* Distance of obj from the root (root = 0). */
static int obj_level(hwloc_obj_t obj)
{
    int level = 0;

    while ((obj = obj->parent) != NULL)
        level++;
    return level;
}

/* Level of the deepest common ancestor of a and b: larger is closer. */
static int closeness(hwloc_obj_t a, hwloc_obj_t b)
{
    for (hwloc_obj_t x = a; x; x = x->parent)
        for (hwloc_obj_t y = b; y; y = y->parent)
            if (x == y)
                return obj_level(x);
    return -1;
}

/* Index among count objects that rank r of n anchors to: blocks of
 * consecutive ranks share an object when ranks outnumber objects, and ranks
 * land evenly far apart when objects outnumber ranks. */
static int spread(int r, int n, int count)
{
    return (int)((long)r * count / n);
}

/* The anchor object of rank r: its GPU's PCI device, else its NUMA node's
 * parent (NUMA nodes hang off normal objects as memory children). */
static hwloc_obj_t anchor_of(hwloc_topology_t topo, const dev_list_t *gpus,
                             int r, int n, int *index)
{
    int nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    hwloc_obj_t numa;

    if (gpus->n > 0) {
        *index = spread(r, n, gpus->n);
        return gpus->pci[*index];
    }
    *index = spread(r, n, nnuma > 0 ? nnuma : 1);
    numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)*index);
    return numa ? numa->parent : hwloc_get_root_obj(topo);
}

static void place_nic(const dev_list_t *nics, hwloc_obj_t anchor, int turn,
                      shmi_placement_t *out)
{
    int best = -2, cand[PLACE_MAX_DEVS], ncand = 0;

    for (int i = 0; i < nics->n; i++) {
        int c = closeness(anchor, nics->pci[i]);

        if (c > best) {
            best = c;
            ncand = 0;
        }
        if (c == best)
            cand[ncand++] = i;
    }
    if (ncand > 0)
        snprintf(out->nic, sizeof(out->nic), "%s",
                 pci_nic_name(nics->pci[cand[turn % ncand]]));
}

/* NUMA node and core near the anchor for the turn-th of nshare ranks. */
static void place_cpus(hwloc_topology_t topo, hwloc_obj_t anchor, int turn,
                       int nshare, shmi_placement_t *out)
{
    hwloc_obj_t host = hwloc_get_non_io_ancestor_obj(topo, anchor);
    hwloc_obj_t numa = NULL, core;
    int ncores;

    if (!host || !host->cpuset)
        return;
    numa = hwloc_get_next_obj_covering_cpuset_by_type(
        topo, host->cpuset, HWLOC_OBJ_NUMANODE, NULL);
    if (!numa)
        numa = hwloc_get_next_obj_inside_cpuset_by_type(
            topo, host->cpuset, HWLOC_OBJ_NUMANODE, NULL);
    out->numa = numa ? (int)numa->logical_index : -1;
    ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, host->cpuset,
                                                    HWLOC_OBJ_CORE);
    if (ncores <= 0)
        return;
    core = hwloc_get_obj_inside_cpuset_by_type(
        topo, host->cpuset, HWLOC_OBJ_CORE,
        (unsigned)spread(turn, nshare, ncores));
    out->core = core ? (int)core->logical_index : -1;
}

/* Rank r's turn among the ranks that share its anchor (same_anchor) or the
 * host object of its anchor (cores are shared per host, not per GPU). */
typedef struct place_turn {
    int anchor_turn, anchor_share;
    int host_turn, host_share;
} place_turn_t;

static place_turn_t turns_of(hwloc_topology_t topo, const dev_list_t *gpus,
                             int lrank, int lsize)
{
    place_turn_t t = {0, 0, 0, 0};
    int mine, other;
    hwloc_obj_t host = hwloc_get_non_io_ancestor_obj(
        topo, anchor_of(topo, gpus, lrank, lsize, &mine));

    for (int r = 0; r < lsize; r++) {
        hwloc_obj_t h = hwloc_get_non_io_ancestor_obj(
            topo, anchor_of(topo, gpus, r, lsize, &other));

        if (other == mine) {
            t.anchor_turn += r < lrank;
            t.anchor_share++;
        }
        if (h == host) {
            t.host_turn += r < lrank;
            t.host_share++;
        }
    }
    return t;
}

int shmi_topo_place(hwloc_topology_t topo, int lrank, int lsize,
                    shmi_placement_t *out)
{
    dev_list_t gpus, nics;
    hwloc_obj_t anchor;
    place_turn_t t;
    int index;

    if (lsize < 1 || lrank < 0 || lrank >= lsize)
        return SHMI_EINVAL;
    collect(topo, &gpus, &nics);
    memset(out, 0, sizeof(*out));
    out->gpu = out->numa = out->core = -1;
    out->ngpus = gpus.n;
    out->nnics = nics.n;
    anchor = anchor_of(topo, &gpus, lrank, lsize, &index);
    t = turns_of(topo, &gpus, lrank, lsize);
    if (gpus.n > 0)
        out->gpu = index;
    place_nic(&nics, anchor, t.anchor_turn, out);
    place_cpus(topo, anchor, t.host_turn, t.host_share, out);
    return 0;
}

/* A topology to be loaded, with the I/O devices placement needs. */
static int topo_new(hwloc_topology_t *topo)
{
    if (hwloc_topology_init(topo) != 0)
        return SHMI_ENOMEM;
    hwloc_topology_set_io_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    /* Linux's sysfs gives the same PCI devices and their locality; the
     * libpciaccess plugin would also leave memory behind that no one can
     * free once hwloc unloads it (sanitizer runs report it). */
    (void)hwloc_topology_set_components(
        *topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
    return 0;
}

int shmi_topo_load(hwloc_topology_t *topo, const char *xml)
{
    hwloc_topology_t t;
    int ret = topo_new(&t);

    if (ret)
        return ret;
    if ((xml && hwloc_topology_set_xml(t, xml) != 0) ||
        hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return SHMI_EIO;
    }
    *topo = t;
    return 0;
}

int shmi_topo_load_this_node(hwloc_topology_t *topo, const char *xml)
{
    hwloc_topology_t t;
    int ret = topo_new(&t);

    if (ret)
        return ret;
    /* The description is of this machine: binding through it must bind
     * (hwloc takes a topology read from XML for another machine's and
     * would only pretend to). */
    if (hwloc_topology_set_xmlbuffer(t, xml, (int)strlen(xml) + 1) != 0 ||
        hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) != 0 ||
        hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return SHMI_EIO;
    }
    *topo = t;
    return 0;
}
