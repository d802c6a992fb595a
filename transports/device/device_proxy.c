/*
 * The device service (device.h): the ring in the host heap, the requester
 * side (tickets, flow control, pipelined chunks, replies) and the owner's
 * thread.
 *
 * Why. Without FI_HMEM the fabric cannot read or write a GPU's memory, and
 * the cuda and hip back ends have no host-initiated device atomics. The PE
 * that owns a device heap can always copy to and from it, so the others ask
 * it to: puts, gets and atomics are requests, a put-with-signal is a put
 * request followed by an atomic one.
 *
 * Where. A request ring in each PE's host symmetric heap (a symmetric
 * allocation of the host path, at the same offset on every PE, registered
 * like the rest of the heap, so every path reaches it): a ticket counter
 * that requesters increment with a fabric atomic (a CPU atomic where the
 * owner's heap is mapped here and the job's engine is the CPU), the
 * owner's count of tickets served, SHMT_DEV_SVC_SLOTS request slots of
 * SHMT_DEV_SVC_CHUNK payload bytes each, and SHMT_DEV_SVC_REPLIES reply
 * boxes where the services of other PEs answer this PE's requests.
 *
 * Protocol. A requester takes ticket t, waits until the owner has served
 * ticket t - SLOTS (flow control), writes request and payload into slot
 * t % SLOTS and then, ordered after them, the slot's flag t + 1 (one put-
 * with-signal, or stores when the owner's heap is mapped here). The owner's
 * helper thread (services/helper_thread.h) serves tickets in order,
 * polling the next slot's flag with its back-off (after a request a few
 * sched_yield polls, past the spin of a node that is not crowded, then
 * sleeps from 1 us growing to 100 us), and answers into the
 * requester's reply box (data, status, then the box's sequence number). Large transfers
 * are cut into chunks, with up to SHMT_DEV_SVC_REPLIES requests in flight
 * per requester.
 *
 * Words and their engines. The ticket counter is the only word several
 * PEs modify: fabric atomics, or CPU atomics where the owner's heap is
 * mapped here and the job's engine allows them (the rule of every other
 * word). Each slot flag and reply box has one writer at a time and is
 * written after its data (put-with-signal, or a release store).
 *
 * Locks. client_lock serialises this PE's requests (one send buffer, the
 * reply boxes); it is taken before a context's lock, never after. amo_lock
 * serialises read-modify-write atomics on the own device heap between the
 * service thread and this PE's own atomics.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "services/backoff.h"
#include "services/cpu_ops.h"
#include "services/env.h"
#include "services/error.h"
#include "services/helper_thread.h"
#include "transports/device/device.h"

/* Polls past the spin after which the idle service sleeps whatever the
 * node (services/helper_thread.h): it lives the whole job and is idle
 * most of it, and after a request the next chunk of a transfer is usually
 * on its way, so a few polls give the core away (sched_yield) first. */
#define SVC_YIELD_POLLS 16

enum { SVC_PUT = 1, SVC_GET = 2, SVC_AMO = 3 };

/* A request, as the requester writes it before the payload. */
typedef struct svc_req {
    uint32_t op;  /* SVC_* */
    int32_t from; /* requester PE */
    uint32_t amo; /* shmi_amo_op_t */
    uint32_t dt;  /* shmi_dtype_t */
    uint64_t seq; /* reply box sequence number to answer with */
    uint64_t off; /* offset in the owner's device heap */
    uint64_t len; /* payload bytes (PUT) or bytes wanted (GET) */
    uint64_t operand;
    uint64_t compare;
    uint64_t pad;
} svc_req_t;

/* The answer, in the same place of the box. */
typedef struct svc_rep {
    int64_t status; /* 0 or SHMI_E* */
    uint64_t value; /* the fetched word of an atomic */
    uint64_t pad[6];
} svc_rep_t;

typedef struct svc_msg {
    union {
        svc_req_t req;
        svc_rep_t rep;
    } h;
    unsigned char data[SHMT_DEV_SVC_CHUNK];
} svc_msg_t;

/* A request slot or a reply box: the flag, then the message. */
typedef struct svc_box {
    uint64_t flag; /* slot: ticket + 1; reply box: sequence number */
    uint64_t pad[7];
    svc_msg_t msg;
} svc_box_t;

/* The symmetric area of one PE. */
typedef struct svc_area {
    uint64_t tail; /* tickets handed out */
    uint64_t pad0[7];
    uint64_t head; /* tickets served (written by the owner only) */
    uint64_t pad1[7];
    svc_box_t slot[SHMT_DEV_SVC_SLOTS];
    svc_box_t reply[SHMT_DEV_SVC_REPLIES];
    svc_msg_t out; /* this PE's send buffer (registered, as all the heap) */
} svc_area_t;

_Static_assert(sizeof(svc_req_t) == 64 && sizeof(svc_rep_t) == 64,
               "request and reply headers share a place");

static struct {
    int up;
    int all, rmw;
    svc_area_t *area;    /* own area (host heap) */
    size_t off;          /* its heap offset, the same on every PE */
    uint64_t *head_seen; /* [npes] last head read of each owner */
    uint64_t seq;        /* last reply sequence number used */
    uint64_t head;       /* next ticket to serve (the thread's) */
    uint64_t served;     /* requests served (written by the thread) */
    pthread_mutex_t client_lock;
    pthread_mutex_t amo_lock;
    shmi_helper_t *thread;
    void *owner; /* the thread's own context (host path) */
} svc = {.client_lock = PTHREAD_MUTEX_INITIALIZER,
         .amo_lock = PTHREAD_MUTEX_INITIALIZER};

int shmt_dev_svc_up(void)
{
    return svc.up;
}

uint64_t shmt_dev_svc_served(void)
{
    return __atomic_load_n(&svc.served, __ATOMIC_RELAXED);
}

int shmt_dev_svc_all(void)
{
    return svc.up && svc.all;
}

int shmt_dev_svc_rmw(void)
{
    return svc.rmw; /* set only with the service up, or on a lone PE */
}

/* ---- reaching another PE's area ------------------------------------------ */

#define SVC_OFF(member) (svc.off + offsetof(svc_area_t, member))

static size_t box_off(int reply, unsigned i)
{
    return reply ? SVC_OFF(reply) + i * sizeof(svc_box_t)
                 : SVC_OFF(slot) + i * sizeof(svc_box_t);
}

/* (pe, heap offset off) when mapped here, else NULL. */
static char *svc_mapped(int pe, size_t off)
{
    return shmt_dev.host->mapped(pe, SHMI_SEG_HEAP, off);
}

/* len bytes of message, then the box's flag, into pe's box at box. */
static int svc_send(void *owner, int pe, size_t box, const svc_msg_t *m,
                    size_t len, uint64_t flag)
{
    size_t moff = box + offsetof(svc_box_t, msg);
    char *p = svc_mapped(pe, box);

    if (p) {
        memcpy(p + offsetof(svc_box_t, msg), m, len);
        __atomic_store_n((uint64_t *)p, flag, __ATOMIC_RELEASE);
        return 0;
    }
    return shmt_dev.host->fabric_put_signal(owner, pe, SHMI_SEG_HEAP, moff, m,
                                            len, SHMI_SEG_HEAP, box, flag,
                                            SHMI_AMO_SET, 0);
}

static int svc_take_ticket(void *owner, int pe, uint64_t *t)
{
    uint64_t *p = (uint64_t *)svc_mapped(pe, SVC_OFF(tail)), one = 1;

    if (p && shmt_dev.cpu_atomics) {
        *t = __atomic_fetch_add(p, 1, __ATOMIC_ACQ_REL);
        return 0;
    }
    return shmt_dev.host->fabric_amo(owner, pe, SHMI_SEG_HEAP, SVC_OFF(tail),
                                     SHMI_AMO_FETCH_ADD, SHMI_DT_UINT64, &one,
                                     NULL, t, 0);
}

static int svc_read_head(void *owner, int pe, uint64_t *h)
{
    uint64_t *p = (uint64_t *)svc_mapped(pe, SVC_OFF(head));

    if (p) {
        *h = __atomic_load_n(p, __ATOMIC_ACQUIRE);
        return 0;
    }
    return shmt_dev.host->fabric_get(owner, pe, SHMI_SEG_HEAP, SVC_OFF(head), h,
                                     sizeof(*h), 0);
}

/* ---- requester side ------------------------------------------------------ */

/* Sends svc.area->out (header + len payload bytes) to pe's ring. */
static int svc_request(void *owner, int pe, size_t len)
{
    uint64_t t = 0;
    shmi_backoff_t b;
    int ret = svc_take_ticket(owner, pe, &t);

    /* Flow control: slot t % SLOTS is free once ticket t - SLOTS is served. */
    shmi_backoff_init(&b);
    while (ret == 0 && t >= svc.head_seen[pe] + SHMT_DEV_SVC_SLOTS) {
        uint64_t h = 0;

        ret = svc_read_head(owner, pe, &h);
        if (h > svc.head_seen[pe])
            svc.head_seen[pe] = h;
        else
            shmi_backoff_wait(&b);
    }
    if (ret != 0)
        return ret;
    return svc_send(owner, pe, box_off(0, t % SHMT_DEV_SVC_SLOTS),
                    &svc.area->out, offsetof(svc_msg_t, data) + len, t + 1);
}

/* Starts the request in the send buffer; returns its reply number. */
static uint64_t svc_begin(uint32_t op, size_t off, size_t len)
{
    svc_req_t *r = &svc.area->out.h.req;

    memset(r, 0, sizeof(*r));
    r->op = op;
    r->from = shmt_dev.job->rank;
    r->seq = ++svc.seq;
    r->off = off;
    r->len = len;
    return r->seq;
}

/* Waits for the reply numbered seq; returns its box. */
static svc_box_t *svc_wait(uint64_t seq)
{
    svc_box_t *box = &svc.area->reply[seq % SHMT_DEV_SVC_REPLIES];
    shmi_backoff_t b;

    shmi_backoff_init(&b);
    while (__atomic_load_n(&box->flag, __ATOMIC_ACQUIRE) != seq)
        shmi_backoff_wait(&b);
    return box;
}

static int svc_status(const svc_box_t *box, int ret)
{
    return ret != 0 ? ret : (int)box->msg.h.rep.status;
}

static int svc_copy_in(void *dst, const void *src, size_t len)
{
    if (shmt_dev_touches(src, len))
        return shmt_dev.gpu->copy(dst, src, len, SHMI_GPU_D2H);
    memcpy(dst, src, len);
    return 0;
}

static int svc_copy_out(void *dst, const void *src, size_t len)
{
    if (shmt_dev_touches(dst, len))
        return shmt_dev.gpu->copy(dst, src, len, SHMI_GPU_H2D);
    memcpy(dst, src, len);
    return 0;
}

static size_t svc_chunk(size_t len, size_t done)
{
    return len - done < SHMT_DEV_SVC_CHUNK ? len - done
                                              : SHMT_DEV_SVC_CHUNK;
}

int shmt_dev_svc_put(void *owner, int pe, size_t off, const void *src,
                     size_t len)
{
    const char *s = src;
    uint64_t w;
    int ret = 0;

    if (!svc.up)
        return SHMI_ENOTSUP;
    pthread_mutex_lock(&svc.client_lock);
    w = svc.seq + 1; /* the oldest reply not yet waited for */
    for (size_t done = 0; done < len && ret == 0;) {
        size_t n = svc_chunk(len, done);

        /* The reply box of this chunk must have been answered. */
        for (; w + SHMT_DEV_SVC_REPLIES <= svc.seq + 1; w++)
            ret = svc_status(svc_wait(w), ret);
        svc_begin(SVC_PUT, off + done, n);
        if (ret == 0)
            ret = svc_copy_in(svc.area->out.data, s + done, n);
        if (ret == 0)
            ret = svc_request(owner, pe, n);
        if (ret != 0)
            svc.seq--; /* never sent */
        done += n;
    }
    for (; w <= svc.seq; w++)
        ret = svc_status(svc_wait(w), ret);
    pthread_mutex_unlock(&svc.client_lock);
    return ret;
}

/* Copies the answered chunk of reply w into dst (chunk w - first). */
static int svc_get_take(uint64_t w, uint64_t first, char *dst, size_t len,
                        int ret)
{
    size_t done = (size_t)(w - first) * SHMT_DEV_SVC_CHUNK;
    svc_box_t *box = svc_wait(w);

    ret = svc_status(box, ret);
    if (ret == 0)
        ret = svc_copy_out(dst + done, box->msg.data, svc_chunk(len, done));
    return ret;
}

int shmt_dev_svc_get(void *owner, int pe, size_t off, void *dst, size_t len)
{
    uint64_t first, w;
    size_t done = 0;
    int ret = 0;

    if (!svc.up)
        return SHMI_ENOTSUP;
    pthread_mutex_lock(&svc.client_lock);
    first = w = svc.seq + 1;
    while (done < len && ret == 0) {
        size_t n = svc_chunk(len, done);

        for (; w + SHMT_DEV_SVC_REPLIES <= svc.seq + 1; w++)
            ret = svc_get_take(w, first, dst, len, ret);
        svc_begin(SVC_GET, off + done, n);
        ret = svc_request(owner, pe, 0);
        if (ret != 0)
            svc.seq--; /* never sent */
        done += n;
    }
    for (; w <= svc.seq; w++)
        ret = svc_get_take(w, first, dst, len, ret);
    pthread_mutex_unlock(&svc.client_lock);
    return ret;
}

int shmt_dev_svc_amo(void *owner, int pe, size_t off, shmi_amo_op_t op,
                     shmi_dtype_t dt, const void *operand, const void *compare,
                     void *fetched)
{
    size_t size = shmi_dtype_size(dt);
    svc_req_t *r = &svc.area->out.h.req;
    svc_box_t *box;
    uint64_t seq;
    int ret;

    if (!svc.up)
        return SHMI_ENOTSUP;
    pthread_mutex_lock(&svc.client_lock);
    seq = svc_begin(SVC_AMO, off, 0);
    r->amo = (uint32_t)op;
    r->dt = (uint32_t)dt;
    if (operand)
        memcpy(&r->operand, operand, size);
    if (compare)
        memcpy(&r->compare, compare, size);
    ret = svc_request(owner, pe, 0);
    if (ret == 0) {
        box = svc_wait(seq);
        ret = svc_status(box, 0);
        if (ret == 0 && fetched)
            memcpy(fetched, &box->msg.h.rep.value, size);
    } else {
        svc.seq--; /* never sent */
    }
    pthread_mutex_unlock(&svc.client_lock);
    return ret;
}

/* ---- owner side ---------------------------------------------------------- */

/* Read-modify-write through copies: the one engine for the word is this
 * lock (back ends without host-initiated device atomics). */
static int svc_rmw(void *word, shmi_amo_op_t op, shmi_dtype_t dt,
                   const void *operand, const void *compare, void *fetched)
{
    const shmi_gpu_ops_t *g = shmt_dev.gpu;
    size_t size = shmi_dtype_size(dt);
    uint64_t w = 0;
    int ret = g->copy(&w, word, size, SHMI_GPU_D2H);

    if (ret == 0)
        shmi_cpu_amo_apply(&w, op, dt, operand, compare, fetched);
    if (ret == 0 && op != SHMI_AMO_FETCH)
        ret = g->copy(word, &w, size, SHMI_GPU_H2D);
    return ret;
}

int shmt_dev_svc_amo_local(void *word, shmi_amo_op_t op, shmi_dtype_t dt,
                           const void *operand, const void *compare,
                           void *fetched)
{
    size_t size = shmi_dtype_size(dt);
    int ret;

    if ((unsigned)op >= SHMI_AMO_COUNT || (uintptr_t)word % size != 0)
        return SHMI_EINVAL;
    if (!svc.rmw)
        return shmt_dev.gpu->atomic(word, op, dt, operand, compare, fetched);
    pthread_mutex_lock(&svc.amo_lock);
    ret = svc_rmw(word, op, dt, operand, compare, fetched);
    pthread_mutex_unlock(&svc.amo_lock);
    return ret;
}

/* Applies request r (payload in m->data); fills m->h.rep; returns the
 * payload bytes of the reply. */
static size_t svc_apply(const svc_req_t *r, svc_msg_t *m)
{
    const shmi_gpu_ops_t *g = shmt_dev.gpu;
    char *base = shmt_dev.base;
    size_t dsize = shmt_dev.size, out = 0;
    uint64_t operand = r->operand, compare = r->compare, value = 0;
    int ret = SHMI_EINVAL;

    if (r->off > dsize || r->len > dsize - r->off ||
        r->len > SHMT_DEV_SVC_CHUNK) {
        /* refused below */
    } else if (r->op == SVC_PUT) {
        ret = g->copy(base + r->off, m->data, r->len, SHMI_GPU_H2D);
    } else if (r->op == SVC_GET) {
        ret = g->copy(m->data, base + r->off, r->len, SHMI_GPU_D2H);
        out = ret == 0 ? r->len : 0;
    } else if (r->op == SVC_AMO && r->dt < SHMI_DT_COUNT &&
               r->off + shmi_dtype_size(r->dt) <= dsize) {
        ret = shmt_dev_svc_amo_local(base + r->off, r->amo, r->dt, &operand,
                                     &compare, &value);
    }
    memset(&m->h.rep, 0, sizeof(m->h.rep));
    m->h.rep.status = ret;
    m->h.rep.value = value;
    return out;
}

/* Serves the request in slot box and answers it. */
static void svc_serve(svc_box_t *box)
{
    svc_req_t r = box->msg.h.req;
    size_t n;
    int ret;

    if (r.from < 0 || r.from >= shmt_dev.job->size) {
        SHMI_LOG(SHMI_LOG_ERROR, "gpu",
                 "device service: request from PE %d dropped", (int)r.from);
        return;
    }
    n = svc_apply(&r, &box->msg);
    ret = svc_send(svc.owner, r.from, box_off(1, r.seq % SHMT_DEV_SVC_REPLIES),
                   &box->msg, offsetof(svc_msg_t, data) + n, r.seq);
    if (ret != 0)
        SHMI_FATAL("device service: the answer to PE %d could not be sent: "
                   "%s",
                   (int)r.from, shmi_strerror(ret));
}

/* The helper's hooks (services/helper_thread.h): the next ticket if its
 * request has come, in ticket order; after a run of them, the answers'
 * completion before the thread waits. */
static int svc_serve_next(void *arg)
{
    svc_box_t *box = &svc.area->slot[svc.head % SHMT_DEV_SVC_SLOTS];

    (void)arg;
    if (__atomic_load_n(&box->flag, __ATOMIC_ACQUIRE) != svc.head + 1)
        return 0;
    svc_serve(box);
    __atomic_store_n(&svc.area->head, ++svc.head, __ATOMIC_RELEASE);
    __atomic_store_n(&svc.served, svc.head, __ATOMIC_RELAXED);
    return 1;
}

static void svc_idle(void *arg)
{
    (void)arg;
    if (shmt_dev.host->fabric_up &&
        shmt_dev.host->fabric_quiet(svc.owner, -1) != 0)
        SHMI_FATAL("device service: the fabric's quiet failed");
}

/* ---- start and stop ------------------------------------------------------ */

/* Whether the back end has host-initiated device atomics: a fetch of the
 * first word of the own heap answers it. */
static int svc_backend_atomics(void)
{
    uint64_t v;

    return shmt_dev.gpu->atomic(shmt_dev.base, SHMI_AMO_FETCH, SHMI_DT_UINT64,
                                NULL, NULL, &v) != SHMI_ENOTSUP;
}

static int svc_start(void)
{
    static const shmi_helper_client_t client = {
        .name = "device service",
        .serve = svc_serve_next,
        .idle = svc_idle,
        .nap_after = SVC_YIELD_POLLS,
    };
    const shmt_host_t *h = shmt_dev.host;
    size_t off = 0;

    svc.area = h->sym_alloc(sizeof(svc_area_t), 64, &off);
    svc.head_seen = calloc((size_t)shmt_dev.job->size, sizeof(uint64_t));
    if (!svc.area || !svc.head_seen) {
        SHMI_LOG(SHMI_LOG_ERROR, "gpu",
                 "no room for the device service's ring (%zu bytes of "
                 "symmetric heap)",
                 sizeof(svc_area_t));
        return SHMI_ENOMEM;
    }
    /* The words the protocol starts from: no ticket handed out or served,
     * no slot or reply box written (the block may have held other data). */
    svc.area->tail = 0;
    svc.area->head = 0;
    for (int i = 0; i < SHMT_DEV_SVC_SLOTS; i++)
        svc.area->slot[i].flag = 0;
    for (int i = 0; i < SHMT_DEV_SVC_REPLIES; i++)
        svc.area->reply[i].flag = 0;
    svc.off = off;
    svc.seq = 0;
    svc.head = 0;
    svc.served = 0;
    svc.owner = h->ctx_create();
    if (svc.owner == NULL ||
        shmi_helper_start(&client, &svc.thread) != 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "gpu", "cannot start the device service");
        return SHMI_ENOMEM;
    }
    svc.up = 1;
    SHMI_LOG(SHMI_LOG_DEBUG, "gpu",
             "device service up: ring of %d slots of %zu bytes at heap "
             "offset %zu, %s%s%s",
             SHMT_DEV_SVC_SLOTS, SHMT_DEV_SVC_CHUNK, off,
             h->fabric_up ? "libfabric in use" : "load/store only",
             svc.all ? ", serving every access" : "",
             svc.rmw ? ", read-modify-write atomics" : "");
    return 0;
}

/* Without a fabric the ring is reached by stores and CPU atomics: every
 * PE's host heap must be mapped here (the core refuses a job without a
 * fabric where one is not, so this holds on every PE). */
static int svc_ring_mapped(void)
{
    if (!shmt_dev.cpu_atomics)
        return 0;
    for (int pe = 0; pe < shmt_dev.job->size; pe++)
        if (!svc_mapped(pe, 0))
            return 0;
    return 1;
}

int shmt_dev_svc_connect(void)
{
    const shmt_host_t *h = shmt_dev.host;
    int atomics = svc_backend_atomics();

    svc.all = strcmp(shmi_env.DEVICE_SERVICE, "all") == 0;
    svc.rmw = svc.all || !atomics;
    if (h->fabric_up)
        return svc_start();
    /* Back-end atomics on the IPC mappings need no thread (the mock). */
    if (!svc.all && atomics)
        return 0;
    if (shmt_dev.job->size == 1)
        return 0; /* nobody else's requests: the lock (rmw), no thread */
    if (!svc_ring_mapped()) {
        SHMI_LOG(shmt_dev.job->rank == 0 ? SHMI_LOG_WARN : SHMI_LOG_DEBUG,
                 "gpu",
                 "no device service: without libfabric its ring must be "
                 "mapped by every PE; atomics on %s device memory will fail",
                 shmt_dev.gpu->name);
        svc.rmw = 0;
        return 0;
    }
    return svc_start();
}

void shmt_dev_svc_stop(void)
{
    if (!svc.up) {
        svc.rmw = 0;
        svc.all = 0;
        return;
    }
    /* Requests already in the ring are served first (the helper drains
     * it); by now every PE has its answers (finalize's barrier). */
    shmi_helper_stop(svc.thread);
    svc.thread = NULL;
    SHMI_LOG(SHMI_LOG_DEBUG, "gpu", "device service: %llu requests served",
             (unsigned long long)svc.served);
    shmt_dev.host->ctx_destroy(svc.owner);
    svc.owner = NULL;
    shmt_dev.host->sym_free(svc.area);
    free(svc.head_seen);
    svc.head_seen = NULL;
    svc.area = NULL;
    svc.up = 0;
    svc.rmw = 0;
    svc.all = 0;
}
