/*
 * shmem_info: what this Weft is and what it finds on this machine.
 *
 * Prints the version and build configuration, the transports and what each
 * declares it can do, the libfabric providers (those that offer what Weft
 * needs, with the atomics engine the ofi transport would declare for each,
 * then everything), the hwloc topology, and the environment table with the
 * values in effect. It starts no job and needs
 * no NIC or GPU: whatever is missing is reported as missing.
 */
#include "config.h"

#include <hwloc.h>
#include <pmix.h>
#include <rdma/fabric.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services/env.h"
#include "services/error.h"
#include "transports/transport.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: shmem_info [OPTION]\n"
            "Print Weft's version, build configuration, the libfabric "
            "providers, the hardware topology and the environment "
            "variables.\n\n"
            "  --env           print only the environment variables and "
            "their values\n"
            "  --env-markdown  print the variables as Markdown (docs/env.md)\n"
            "  --version       print only the version\n"
            "  --help          print this help\n");
}

static void print_build(void)
{
    printf("Weft %s (OpenSHMEM %s)\n\n", PACKAGE_VERSION, WEFT_SPEC_VERSION);
    printf("Build configuration\n");
    printf("  prefix:            %s\n", WEFT_CONFIG_PREFIX);
    printf("  configure args:    %s\n", WEFT_CONFIG_ARGS);
    printf("  C compiler:        %s %s\n", WEFT_CONFIG_CC, WEFT_CONFIG_CFLAGS);
    printf("  libfabric:         %s\n", WEFT_CONFIG_OFI);
    printf("  PMIx:              %s\n", WEFT_CONFIG_PMIX);
    printf("  hwloc:             %s\n", WEFT_CONFIG_HWLOC);
#ifdef WEFT_HAVE_CUDA
    printf("  CUDA back end:     yes\n");
#else
    printf("  CUDA back end:     no\n");
#endif
#ifdef WEFT_HAVE_HIP
    printf("  HIP back end:      yes\n");
#else
    printf("  HIP back end:      no\n");
#endif
    printf("  MPI (MPI twins):   %s, launcher %s\n", WEFT_CONFIG_MPICC,
           WEFT_CONFIG_MPIEXEC);
}

static void print_runtime_versions(void)
{
    unsigned fv = fi_version();
    unsigned hv = hwloc_get_api_version();

    printf("\nLibraries in use\n");
    printf("  libfabric:         %u.%u (built against %d.%d)\n", FI_MAJOR(fv),
           FI_MINOR(fv), FI_MAJOR_VERSION, FI_MINOR_VERSION);
    printf("  PMIx:              %s\n", PMIx_Get_version());
    printf("  hwloc API:         %u.%u.%u\n", hv >> 16, (hv >> 8) & 0xff,
           hv & 0xff);
}

/* Prints the libfabric variables that change what fi_getinfo returns. */
static void print_fi_env(void)
{
    static const char *const vars[] = {"FI_PROVIDER", "FI_TCP_IFACE",
                                       "FI_SOCKETS_IFACE", "FI_HMEM"};
    int any = 0;

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);

        if (v) {
            printf("%s%s=%s", any ? " " : "  (with ", vars[i], v);
            any = 1;
        }
    }
    if (any)
        printf(")\n");
}

/* Has an earlier entry of the list the same provider, domain and EP type? */
static int fi_seen(const struct fi_info *head, const struct fi_info *cur)
{
    for (const struct fi_info *p = head; p != cur; p = p->next) {
        if (p->ep_attr->type == cur->ep_attr->type &&
            !strcmp(p->fabric_attr->prov_name, cur->fabric_attr->prov_name) &&
            !strcmp(p->domain_attr->name, cur->domain_attr->name))
            return 1;
    }
    return 0;
}

/* The entry of list with the provider, domain and EP type of p, or NULL. */
static const struct fi_info *fi_find(const struct fi_info *list,
                                     const struct fi_info *p)
{
    for (; list; list = list->next) {
        if (list->ep_attr->type == p->ep_attr->type &&
            !strcmp(list->fabric_attr->prov_name, p->fabric_attr->prov_name) &&
            !strcmp(list->domain_attr->name, p->domain_attr->name))
            return list;
    }
    return NULL;
}

/* Whether p offers cap: "yes"; "asked" when only a query that asks for it
 * gets it (p's entry in usable, the answer to Weft's query, has it);
 * "no". */
static const char *fi_cap_text(const struct fi_info *p, uint64_t cap,
                               const struct fi_info *usable)
{
    const struct fi_info *u;

    if (p->caps & cap)
        return "yes";
    u = fi_find(usable, p);
    return u && (u->caps & cap) ? "asked" : "no";
}

static const char *fi_ep_name(enum fi_ep_type t)
{
    switch (t) {
    case FI_EP_MSG: return "msg";
    case FI_EP_DGRAM: return "dgram";
    case FI_EP_RDM: return "rdm";
    default: return "other";
    }
}

/* A byte count in binary units, short enough for a table column. */
static const char *size_text(size_t n, char *buf, size_t len)
{
    static const char *const units[] = {"KiB", "MiB", "GiB",
                                        "TiB", "PiB", "EiB"};
    double v = (double)n;
    int u = -1;

    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%zu B", n);
    else
        snprintf(buf, len, "%.4g %s", v, units[u]);
    return buf;
}

/* The network transport that answers for a provider it could run on
 * (shmt_ops_t.caps_of, transports/transport.h): the libfabric one. */
static const shmt_ops_t *fi_transport(void)
{
    for (int i = 0; shmt_registry[i]; i++)
        if (shmt_registry[i]->kind == SHMT_KIND_NETWORK &&
            shmt_registry[i]->caps_of)
            return shmt_registry[i];
    return NULL;
}

/* Who would apply the atomics the libfabric transport carries with
 * provider p (SHMEM_OFI_ATOMICS applied): "cpu" or "nic". */
static const char *fi_engine(const struct fi_info *p)
{
    const shmt_ops_t *t = fi_transport();

    return t && (t->caps_of(p) & SHMT_CAP_ATOMICS_CPU) ? "cpu" : "nic";
}

/*
 * usable == NULL: the providers usable by Weft (list), which all offer
 * FI_RMA and FI_ATOMIC (the query asks for both), so the one atomics column
 * says who applies them at the target, as the ofi transport would declare
 * (fi_engine), and a note below says what the values mean. Otherwise every
 * provider (list) and whether each offers FI_RMA and FI_ATOMIC, "asked"
 * where libfabric's answer to a query without hints leaves one out that
 * Weft's query (usable) gets: tcp;ofi_rxm's atomics.
 */
static void print_fi_list(const struct fi_info *list,
                          const struct fi_info *usable)
{
    int engine = usable == NULL, asked = 0;
    char modes[256], size[32];

    printf("  %-20s %-5s %-20s %-16s %s%-12s %s%s\n", "provider", "ep",
           "fabric", "domain", engine ? "" : "rma   atomics ", "max_msg_size",
           engine ? "atomics-by " : "", "mr_mode");
    for (const struct fi_info *p = list; p; p = p->next) {
        int mr = p->domain_attr->mr_mode;

        if (fi_seen(list, p))
            continue;
        if (!fi_tostr_r(modes, sizeof(modes), &mr, FI_TYPE_MR_MODE) ||
            !modes[0])
            snprintf(modes, sizeof(modes), "%s", mr ? "?" : "none");
        printf("  %-20s %-5s %-20s %-16s ", p->fabric_attr->prov_name,
               fi_ep_name(p->ep_attr->type), p->fabric_attr->name,
               p->domain_attr->name);
        if (!engine) {
            const char *rma = fi_cap_text(p, FI_RMA, usable);
            const char *amo = fi_cap_text(p, FI_ATOMIC, usable);

            asked |= !strcmp(rma, "asked") || !strcmp(amo, "asked");
            printf("%-5s %-7s ", rma, amo);
        }
        printf("%-12s ", size_text(p->ep_attr->max_msg_size, size, sizeof(size)));
        if (engine)
            printf("%-10s ", fi_engine(p));
        printf("%s\n", modes);
    }
    if (engine)
        printf("  Atomics-by: who applies at the target the atomics Weft sends "
               "through the provider.\n"
               "  cpu: the provider's own code in the target process, with "
               "the CPU's atomic\n"
               "  instructions (software providers: shm, tcp, sockets, udp and "
               "their ofi_rxm or\n"
               "  ofi_rxd layers), so PEs that map the word may use CPU "
               "atomics beside them; nic:\n"
               "  the NIC, or a provider not known to be software "
               "(transports/ofi/ofi_caps.c).\n"
               "  SHMEM_OFI_ATOMICS=cpu|nic states it for a provider.\n");
    if (asked)
        printf("  Asked: left out of libfabric's answer to a query without "
               "hints, offered to one\n"
               "  that asks for it, as Weft's does (the table above).\n");
}

/* The optional parts of t's contract (transports/transport.h), after its
 * capabilities: what it can be asked to do. */
static void shmem_info_parts(const shmt_ops_t *t)
{
    const char *part[4];
    int n = 0;

    if (t->rma)
        part[n++] = "rma";
    if (t->atomic)
        part[n++] = "atomics";
    if (t->order)
        part[n++] = "ordering";
    if (t->coll)
        part[n++] = "collectives";
    printf("; parts: ");
    if (n == 0)
        printf("none");
    for (int i = 0; i < n; i++)
        printf("%s%s", i ? ", " : "", part[i]);
}

/* One line per transport: its name, its kind, the capabilities it
 * declares and the parts it has (transports/transport.h). A transport whose answer depends on
 * what it chooses at start-up (ofi: the provider) declares nothing before
 * that. */
static void print_transports(void)
{
    char why[256];

    printf("\nTransports (transports/registry.c, in the order preferred "
           "within a kind; capabilities each declares; SHMEM_TRANSPORT "
           "restricts them)\n");
    for (int i = 0; shmt_registry[i]; i++) {
        const shmt_ops_t *t = shmt_registry[i];
        unsigned caps;
        int n = 0;

        printf("  %-8s", t->name);
        if (shmt_registry_check(t, why, sizeof(why)) < 0) {
            printf("refused: %s\n", why);
            continue;
        }
        printf("%-11s", shmt_kind_name(t->kind));
        caps = shmt_caps(t);
        for (int b = 0; b < SHMT_CAP_COUNT; b++)
            if (caps & (1u << b))
                printf("%s%s", n++ ? ", " : "", shmt_cap_name(b));
        if (n == 0)
            printf("set by the provider chosen at start-up; the atomics "
                   "engine of each is the atomics-by column below");
        shmem_info_parts(t);
        printf("\n");
    }
}

/* What fi_getinfo returns for hints (NULL: everything), or NULL after
 * printing why there is nothing. */
static struct fi_info *fi_query(struct fi_info *hints)
{
    struct fi_info *list = NULL;
    int ret;

    ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL,
                     0, hints, &list);
    if (ret == -FI_ENODATA || (ret == 0 && !list)) {
        printf("  none found\n");
        return NULL;
    }
    if (ret) {
        printf("  fi_getinfo failed: %s\n", fi_strerror(-ret));
        return NULL;
    }
    return list;
}

static void print_providers(void)
{
    struct fi_info *hints = fi_allocinfo(), *usable = NULL, *all;

    printf("\nlibfabric providers\n");
    print_fi_env();
    if (!hints) {
        printf("  fi_allocinfo failed\n");
        return;
    }
    /* What Weft asks for: reliable datagrams with RMA and atomics, and every
     * memory-registration mode it knows how to obey. */
    hints->caps = FI_RMA | FI_ATOMIC;
    hints->ep_attr->type = FI_EP_RDM;
    hints->mode = FI_CONTEXT;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
                                  FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                                  FI_MR_ENDPOINT;
    printf("\n  Usable by Weft (FI_EP_RDM with FI_RMA | FI_ATOMIC):\n");
    usable = fi_query(hints);
    if (usable)
        print_fi_list(usable, NULL);
    fi_freeinfo(hints);
    printf("\n  All providers and endpoint types:\n");
    all = fi_query(NULL);
    if (all)
        print_fi_list(all, usable ? usable : all);
    fi_freeinfo(all);
    fi_freeinfo(usable);
}

static int count_type(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(topo, type);

    return n < 0 ? 0 : n;
}

/* Lists the OS devices whose type is one of the two given. */
static void print_osdevs(hwloc_topology_t topo, const char *label,
                         hwloc_obj_osdev_type_t a, hwloc_obj_osdev_type_t b)
{
    hwloc_obj_t dev = NULL;
    int n = 0;

    printf("  %-18s", label);
    while ((dev = hwloc_get_next_osdev(topo, dev)) != NULL) {
        if (dev->attr->osdev.type != a && dev->attr->osdev.type != b)
            continue;
        printf("%s%s", n ? ", " : "", dev->name ? dev->name : "?");
        n++;
    }
    printf("%s\n", n ? "" : "none");
}

static void print_topology(void)
{
    hwloc_topology_t topo;

    printf("\nTopology (hwloc)\n");
    if (hwloc_topology_init(&topo)) {
        printf("  hwloc_topology_init failed\n");
        return;
    }
    /* I/O objects are filtered out by default; NICs and GPUs are OS
     * devices below PCI devices. */
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo)) {
        printf("  hwloc_topology_load failed\n");
        hwloc_topology_destroy(topo);
        return;
    }
    printf("  packages:         %d\n", count_type(topo, HWLOC_OBJ_PACKAGE));
    printf("  NUMA nodes:       %d\n", count_type(topo, HWLOC_OBJ_NUMANODE));
    printf("  cores:            %d\n", count_type(topo, HWLOC_OBJ_CORE));
    printf("  PUs:              %d\n", count_type(topo, HWLOC_OBJ_PU));
    printf("  PCI devices:      %d\n", count_type(topo, HWLOC_OBJ_PCI_DEVICE));
    print_osdevs(topo, "NICs:", HWLOC_OBJ_OSDEV_NETWORK,
                 HWLOC_OBJ_OSDEV_OPENFABRICS);
    print_osdevs(topo, "GPUs:", HWLOC_OBJ_OSDEV_GPU, HWLOC_OBJ_OSDEV_COPROC);
    hwloc_topology_destroy(topo);
}

/* Loads the environment; on a bad value prints the message to stderr. */
static int load_env(void)
{
    char err[512];

    if (shmi_env_load(err, sizeof(err)) == 0)
        return 0;
    fprintf(stderr, "shmem_info: %s\n", err);
    return 1;
}

int main(int argc, char **argv)
{
    const char *opt = argc > 1 ? argv[1] : "";
    int rc;

    if (argc > 2 ||
        (argc == 2 && strcmp(opt, "--env") && strcmp(opt, "--env-markdown") &&
         strcmp(opt, "--help") && strcmp(opt, "--version"))) {
        fprintf(stderr, "shmem_info: unknown argument '%s'\n",
                argc > 2 ? argv[2] : opt);
        usage(stderr);
        return 2;
    }
    if (!strcmp(opt, "--help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(opt, "--version")) {
        printf("Weft %s (OpenSHMEM %s)\n", PACKAGE_VERSION, WEFT_SPEC_VERSION);
        return 0;
    }
    if (!strcmp(opt, "--env-markdown")) {
        shmi_env_print_markdown(stdout);
        return 0;
    }
    rc = load_env();
    if (!strcmp(opt, "--env")) {
        if (rc == 0)
            shmi_env_print(stdout);
        return rc;
    }
    print_build();
    print_runtime_versions();
    print_transports();
    print_providers();
    print_topology();
    printf("\n");
    if (rc == 0)
        shmi_env_print(stdout);
    fflush(stdout);
    return rc;
}
