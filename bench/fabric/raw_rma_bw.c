/*
 * Raw libfabric RMA, rank 0 -> rank 1, as the reference for Weft's put
 * bandwidth and latency across nodes (bench/fabric/compare-nodes.sh):
 *   write_bw   a window of 64 fi_write then a wait on the write counter,
 *              MB/s (the shape of shmem_bandwidth's put_bw)
 *   write_lat  one fi_write then a wait on the write counter, us (the
 *              shape of shmem_latency's put_quiet)
 *   msg_exchange  both ranks inject an 8-byte message to the other, then
 *              read the CQ until the other's has arrived and repost its
 *              receive, us per exchange
 *   write_exchange  both ranks inject an 8-byte write of the exchange's
 *              number into the other's flag word (no completion asked
 *              beyond the inject, so nothing is acknowledged), then read
 *              the CQ until the other's number has landed, us per exchange
 * The two exchanges are the least a 2-PE barrier costs over the provider
 * (the shape of a one-round dissemination barrier, shmem_coll's barrier)
 * and are reported as size 0, the size of a barrier's row.
 * Started by srun --mpi=pmix (or any PMIx launcher): endpoint names, keys
 * and buffer addresses are exchanged with PMIx_Put/Commit/Fence/Get.
 * The provider is FI_PROVIDER (default "tcp;ofi_rxm"); writes carry
 * FI_DELIVERY_COMPLETE, as Weft's do, unless --transmit-complete.
 * Rank 1 only drives progress (manual progress) until rank 0 writes the
 * end-of-size flag into its buffer. Options: those of bench_util.h, plus
 * --transmit-complete, and --yield or --sleep (rank 1 calls sched_yield,
 * or sleeps 50 us, between polls, as a waiting Weft PE does once its spin
 * budget is spent), and --no-counter (the exchanges only): bind no write
 * counter to the endpoint, from which alone ofi_rxm injects a write
 * straight into its connection, as Weft's words leave its target
 * endpoint (transports/ofi/ofi_provider.c, target_writes_on_cq).
 */
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>

#include <pmix.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "bench/bench_util.h"

enum { WINDOW = 64, NAME_MAX_LEN = 256, MSG_BUFS = 8, MSG_LEN = 8 };

/* What a rank publishes: its endpoint name and its buffer's key and base. */
struct card {
    uint64_t key, base;
    size_t name_len;
    char name[NAME_MAX_LEN];
};

struct raw {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fid_cntr *wcntr;
    struct fid_mr *mr;
    fi_addr_t peer;
    uint64_t peer_key, peer_base, done, flags;
    int yield;         /* rank 1 between polls: 0 spin, 1 yield, 2 sleep */
    int no_counter;    /* --no-counter: no write counter bound */
    char *buf;         /* registered: data, then the flag word at `flag`,
                          then MSG_BUFS receive buffers of MSG_LEN */
    size_t flag;
    size_t msgs;       /* offset of the receive buffers in buf */
    pmix_proc_t me;
};

static void die(const char *call, int ret)
{
    fprintf(stderr, "raw_rma_bw: %s: %s\n", call, fi_strerror(-ret));
    exit(1);
}

static void die_pmix(const char *call, pmix_status_t ret)
{
    fprintf(stderr, "raw_rma_bw: %s: %s\n", call, PMIx_Error_string(ret));
    exit(1);
}

static struct fi_info *raw_hints(void)
{
    struct fi_info *h = fi_allocinfo();
    const char *prov = getenv("FI_PROVIDER");

    if (!h)
        die("fi_allocinfo", -FI_ENOMEM);
    h->caps = FI_RMA | FI_WRITE | FI_REMOTE_WRITE | FI_MSG | FI_SEND | FI_RECV;
    h->mode = 0;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                              FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->fabric_attr->prov_name = strdup(prov && *prov ? prov : "tcp;ofi_rxm");
    return h;
}

static void raw_open(struct raw *r, size_t len)
{
    struct fi_info *h = raw_hints();
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT,
                                 .wait_obj = FI_WAIT_NONE};
    struct fi_cntr_attr cn_attr = {.events = FI_CNTR_EVENTS_COMP,
                                   .wait_obj = FI_WAIT_NONE};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    int ret;

    ret = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &r->info);
    fi_freeinfo(h);
    if (ret)
        die("fi_getinfo", ret);
    if ((ret = fi_fabric(r->info->fabric_attr, &r->fabric, NULL)) ||
        (ret = fi_domain(r->fabric, r->info, &r->domain, NULL)) ||
        (ret = fi_endpoint(r->domain, r->info, &r->ep, NULL)) ||
        (ret = fi_cq_open(r->domain, &cq_attr, &r->cq, NULL)) ||
        (ret = fi_cntr_open(r->domain, &cn_attr, &r->wcntr, NULL)) ||
        (ret = fi_av_open(r->domain, &av_attr, &r->av, NULL)))
        die("opening the fabric, domain, endpoint, cq, counter or av", ret);
    if ((ret = fi_ep_bind(r->ep, &r->av->fid, 0)) ||
        (ret = fi_ep_bind(r->ep, &r->cq->fid,
                          FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) ||
        (!r->no_counter &&
         (ret = fi_ep_bind(r->ep, &r->wcntr->fid, FI_WRITE))) ||
        (ret = fi_enable(r->ep)))
        die("binding the endpoint", ret);
    r->buf = aligned_alloc(4096, (len + 128 + 4095) / 4096 * 4096);
    if (!r->buf)
        die("aligned_alloc", -FI_ENOMEM);
    memset(r->buf, 1, len);
    memset(r->buf + len, 0, 128); /* the flag word starts at 0 */
    r->flag = len;
    r->msgs = len + 64;
    ret = fi_mr_reg(r->domain, r->buf, len + 128,
                    FI_WRITE | FI_REMOTE_WRITE | FI_SEND | FI_RECV, 0, 0, 0,
                    &r->mr, NULL);
    if (ret)
        die("fi_mr_reg", ret);
    if (r->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        if ((ret = fi_mr_bind(r->mr, &r->ep->fid, 0)) ||
            (ret = fi_mr_enable(r->mr)))
            die("fi_mr_bind/enable", ret);
    }
}

static void raw_exchange(struct raw *r)
{
    struct card mine = {0}, *theirs;
    pmix_value_t val = {0}, *got = NULL;
    pmix_proc_t peer;
    pmix_info_t info;
    bool collect = true;
    int ret;

    mine.name_len = NAME_MAX_LEN;
    if ((ret = fi_getname(&r->ep->fid, mine.name, &mine.name_len)))
        die("fi_getname", ret);
    mine.key = fi_mr_key(r->mr);
    mine.base = r->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR
                    ? (uint64_t)(uintptr_t)r->buf : 0;
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)&mine;
    val.data.bo.size = sizeof(mine);
    if ((ret = PMIx_Put(PMIX_GLOBAL, "raw_rma_bw.card", &val)) != PMIX_SUCCESS ||
        (ret = PMIx_Commit()) != PMIX_SUCCESS)
        die_pmix("PMIx_Put/Commit", ret);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if ((ret = PMIx_Fence(NULL, 0, &info, 1)) != PMIX_SUCCESS)
        die_pmix("PMIx_Fence", ret);
    PMIX_LOAD_PROCID(&peer, r->me.nspace, r->me.rank == 0 ? 1 : 0);
    if ((ret = PMIx_Get(&peer, "raw_rma_bw.card", NULL, 0, &got)) != PMIX_SUCCESS)
        die_pmix("PMIx_Get", ret);
    theirs = (struct card *)got->data.bo.bytes;
    if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != sizeof(*theirs))
        die_pmix("PMIx_Get (not a card)", PMIX_ERR_BAD_PARAM);
    if (fi_av_insert(r->av, theirs->name, 1, &r->peer, 0, NULL) != 1)
        die("fi_av_insert", -FI_EINVAL);
    r->peer_key = theirs->key;
    r->peer_base = theirs->base;
    PMIX_VALUE_RELEASE(got);
}

static uint32_t raw_job_size(const struct raw *r)
{
    pmix_proc_t job;
    pmix_value_t *v = NULL;
    uint32_t n = 0;

    PMIX_LOAD_PROCID(&job, r->me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS && v) {
        if (v->type == PMIX_UINT32)
            n = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    return n;
}

static void raw_fence(void)
{
    int ret = PMIx_Fence(NULL, 0, NULL, 0);

    if (ret != PMIX_SUCCESS)
        die_pmix("PMIx_Fence", ret);
}

/* Waits (polling, which drives progress) until `want` writes completed. */
static void raw_wait(struct raw *r, uint64_t want)
{
    while (fi_cntr_read(r->wcntr) < want) {
        if (fi_cntr_readerr(r->wcntr) > 0)
            die("a write failed (fi_cntr_readerr)", -FI_EIO);
    }
}

static void raw_write(struct raw *r, size_t off, size_t len, uint64_t remote)
{
    struct iovec iov = {r->buf + off, len};
    void *desc = fi_mr_desc(r->mr);
    struct fi_rma_iov rma = {r->peer_base + remote, len, r->peer_key};
    struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1,
                             .addr = r->peer, .rma_iov = &rma,
                             .rma_iov_count = 1};
    ssize_t ret;

    while ((ret = fi_writemsg(r->ep, &msg, r->flags)) == -FI_EAGAIN)
        fi_cntr_read(r->wcntr);
    if (ret)
        die("fi_writemsg", (int)ret);
    r->done++;
}

/* Rank 0 tells rank 1 that a size is over; rank 1 progresses until then. */
static void raw_end_of_size(struct raw *r, uint64_t seq)
{
    volatile uint64_t *flag = (volatile uint64_t *)(r->buf + r->flag);
    struct timespec nap = {0, 50000};
    struct fi_cq_entry e;

    if (r->me.rank == 0) {
        raw_wait(r, r->done);
        *flag = seq;
        raw_write(r, r->flag, sizeof(uint64_t), r->flag);
        raw_wait(r, r->done);
    } else if (r->me.rank == 1) {
        while (*flag < seq) {
            (void)fi_cq_read(r->cq, &e, 1);
            if (r->yield == 1)
                sched_yield();
            else if (r->yield == 2)
                nanosleep(&nap, NULL);
        }
    }
    raw_fence();
}

static double raw_bw(struct raw *r, size_t size, long windows)
{
    double t = bench_now();

    for (long w = 0; w < windows; w++) {
        for (int i = 0; i < WINDOW; i++)
            raw_write(r, 0, size, 0);
        raw_wait(r, r->done);
    }
    return bench_now() - t;
}

static double raw_lat(struct raw *r, size_t size, long n)
{
    double t = bench_now();

    for (long i = 0; i < n; i++) {
        raw_write(r, 0, size, 0);
        raw_wait(r, r->done);
    }
    return bench_now() - t;
}

/* Posts receive buffer i (its context is its index + 1). */
static void raw_post_recv(struct raw *r, int i)
{
    void *desc = fi_mr_desc(r->mr);
    struct iovec iov = {r->buf + r->msgs + (size_t)i * MSG_LEN, MSG_LEN};
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1,
                         .addr = FI_ADDR_UNSPEC,
                         .context = (void *)(uintptr_t)(i + 1)};
    ssize_t ret;

    /* FI_COMPLETION: the CQ is bound with FI_SELECTIVE_COMPLETION. */
    while ((ret = fi_recvmsg(r->ep, &msg, FI_COMPLETION)) == -FI_EAGAIN)
        (void)fi_cq_read(r->cq, NULL, 0);
    if (ret)
        die("fi_recv", (int)ret);
}

/* One exchange: inject to the peer, then read the CQ until one message
 * has arrived, and repost its buffer. */
static void raw_exchange_once(struct raw *r)
{
    uint64_t word = 1;
    struct fi_cq_entry e;
    ssize_t ret;

    while ((ret = fi_inject(r->ep, &word, sizeof(word), r->peer)) == -FI_EAGAIN)
        (void)fi_cq_read(r->cq, NULL, 0);
    if (ret)
        die("fi_inject", (int)ret);
    while ((ret = fi_cq_read(r->cq, &e, 1)) == -FI_EAGAIN)
        ;
    if (ret != 1)
        die("fi_cq_read", (int)ret);
    raw_post_recv(r, (int)((uintptr_t)e.op_context - 1));
}

/* One exchange by RMA: inject the exchange's number into the peer's flag
 * word, then read the CQ (progress) until the peer's number has landed in
 * this rank's flag word. */
static void raw_write_exchange_once(struct raw *r, uint64_t seq)
{
    volatile uint64_t *flag = (volatile uint64_t *)(r->buf + r->flag);
    struct fi_cq_entry e;
    ssize_t ret;

    while ((ret = fi_inject_write(r->ep, &seq, sizeof(seq), r->peer,
                                  r->peer_base + r->flag, r->peer_key)) ==
           -FI_EAGAIN)
        (void)fi_cq_read(r->cq, &e, 1);
    if (ret)
        die("fi_inject_write", (int)ret);
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < seq)
        (void)fi_cq_read(r->cq, &e, 1);
}

static void run_write_exchange(struct raw *r, const bench_opts_t *o)
{
    long n = bench_iters_for(o, sizeof(uint64_t));
    uint64_t seq = 1000000; /* above every end-of-size mark */
    double t;

    bench_header(o, "write_exchange", "us");
    if (r->me.rank > 1) {
        raw_fence();
        return;
    }
    raw_fence();
    for (long i = 0; i < o->warmup; i++)
        raw_write_exchange_once(r, ++seq);
    t = bench_now();
    for (long i = 0; i < n; i++)
        raw_write_exchange_once(r, ++seq);
    t = bench_now() - t;
    bench_row(o, "write_exchange", "us", 0, 1e6 * t / (double)n);
}

static void run_exchange(struct raw *r, const bench_opts_t *o)
{
    long n = bench_iters_for(o, MSG_LEN);
    double t;

    bench_header(o, "msg_exchange", "us");
    if (r->me.rank > 1) {
        raw_fence();
        return;
    }
    for (int i = 0; i < MSG_BUFS; i++)
        raw_post_recv(r, i);
    raw_fence();
    for (long i = 0; i < o->warmup; i++)
        raw_exchange_once(r);
    t = bench_now();
    for (long i = 0; i < n; i++)
        raw_exchange_once(r);
    t = bench_now() - t;
    bench_row(o, "msg_exchange", "us", 0, 1e6 * t / (double)n);
}

static void run(struct raw *r, const bench_opts_t *o, int bw, uint64_t *seq)
{
    const char *name = bw ? "write_bw" : "write_lat";
    const char *unit = bw ? "MB/s" : "us";

    bench_header(o, name, unit);
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long n = bench_iters_for(o, size);

        if (r->me.rank == 0 && bw) {
            long windows = n / WINDOW < 5 ? 5 : n / WINDOW;
            double t;

            raw_bw(r, size, windows / 5 + 1);
            t = raw_bw(r, size, windows);
            bench_row(o, name, unit, size,
                      1e-6 * (double)size * WINDOW * (double)windows / t);
        } else if (r->me.rank == 0) {
            raw_lat(r, size, o->warmup);
            bench_row(o, name, unit, size, 1e6 * raw_lat(r, size, n) / (double)n);
        }
        raw_end_of_size(r, ++*seq);
    }
}

int main(int argc, char **argv)
{
    int keep = 0, ret;
    struct raw r = {0};
    bench_opts_t o;
    uint64_t seq = 0;

    /* Our options, taken out before the common ones are parsed. */
    r.flags = FI_DELIVERY_COMPLETE;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--transmit-complete") == 0)
            r.flags = 0;
        else if (strcmp(argv[i], "--yield") == 0)
            r.yield = 1;
        else if (strcmp(argv[i], "--sleep") == 0)
            r.yield = 2;
        else if (strcmp(argv[i], "--no-counter") == 0)
            r.no_counter = 1;
        else
            argv[++keep] = argv[i];
    }
    o = bench_parse(keep + 1, argv, 4 << 20);
    if (r.no_counter && (bench_selected(&o, "write_bw") ||
                         bench_selected(&o, "write_lat"))) {
        fprintf(stderr, "raw_rma_bw: --no-counter is for the exchanges only "
                        "(--only write_exchange or msg_exchange)\n");
        return 2;
    }
    if ((ret = PMIx_Init(&r.me, NULL, 0)) != PMIX_SUCCESS)
        die_pmix("PMIx_Init (start with srun --mpi=pmix)", ret);
    o.print = r.me.rank == 0;
    if (raw_job_size(&r) < 2) {
        fprintf(stderr, "raw_rma_bw needs 2 processes (srun --mpi=pmix -N 2 -n 2)\n");
        PMIx_Finalize(NULL, 0);
        return 2;
    }
    raw_open(&r, o.max_size);
    raw_exchange(&r);
    if (o.print && !o.csv)
        printf("# provider %s, domain %s, %s\n", r.info->fabric_attr->prov_name,
               r.info->domain_attr->name,
               r.flags ? "FI_DELIVERY_COMPLETE" : "transmit complete");
    if (bench_selected(&o, "write_bw"))
        run(&r, &o, 1, &seq);
    if (bench_selected(&o, "write_lat"))
        run(&r, &o, 0, &seq);
    if (bench_selected(&o, "msg_exchange"))
        run_exchange(&r, &o);
    if (bench_selected(&o, "write_exchange"))
        run_write_exchange(&r, &o);
    raw_fence();
    fi_close(&r.mr->fid);
    fi_close(&r.ep->fid);
    fi_close(&r.av->fid);
    fi_close(&r.wcntr->fid);
    fi_close(&r.cq->fid);
    fi_close(&r.domain->fid);
    fi_close(&r.fabric->fid);
    fi_freeinfo(r.info);
    free(r.buf);
    PMIx_Finalize(NULL, 0);
    return 0;
}
