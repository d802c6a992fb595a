/*
 * Put-with-signal by message (shmt_coll_ops_t.put_signal_msg,
 * transports/transport.h), for the runtime's collectives.
 *
 * Why. Over a software provider every RMA write and atomic posted with
 * FI_DELIVERY_COMPLETE costs two messages (the operation and the target's
 * acknowledgement), and put-with-signal on an unordered provider waits a
 * whole round trip for the data's delivery before the signal may leave:
 * a barrier on tcp;ofi_rxm sent two messages per signal where MPI sends
 * one, and a small reduction three. Here the data and the signal travel
 * as one message (fi_sendmsg with FI_INJECT) that the target applies in
 * its progress: the data with memcpy, then the signal with a CPU atomic of
 * release order, so that a PE that sees the signal sees the data. Nothing
 * comes back, and nothing needs to: a collective learns of an arrival only
 * through the signal. Offered only where the provider's atomics are CPU
 * atomics (ofi_caps.c), so the message's signal composes with every other
 * update of the word, and not on shm (ofi_provider.c).
 *
 * The target endpoint keeps SHMT_OFI_MSG_BUFS receive buffers posted, each
 * reposted as soon as its message is applied; one arrival is one CQ entry
 * whose context is the buffer (shmt_ofi_msg_completed, from every CQ read of
 * the target endpoint). Messages a provider takes while every buffer is
 * in use wait in the provider (ofi_rxm keeps them as unexpected messages).
 * Messages leave from the target endpoint, which every progress call
 * drives. One up to the provider's inject size is injected from the
 * stack; a longer one (up to SHMT_OFI_MSG_DATA bytes of data) is sent from
 * the registered msg_out buffer, which the next such message waits for
 * (its local completion, not its delivery). Anything longer goes the
 * ordinary put_signal way.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "transports/ofi/ofi_internal.h"

/* What a message carries ahead of its data: where the data and the signal
 * go in the target's segments. */
typedef struct shmt_ofi_msg_hdr {
    uint64_t off;     /* of the data in segment seg */
    uint64_t sig_off; /* of the 64-bit signal word in segment sig_seg */
    uint64_t signal;  /* operand of sig_op */
    uint32_t len;     /* bytes of data following the header */
    uint8_t seg, sig_seg;
    uint8_t sig_op; /* SHMI_AMO_SET or SHMI_AMO_ADD */
    uint8_t magic;  /* SHMT_OFI_MSG_MAGIC: a message of this kind */
} shmt_ofi_msg_hdr_t;

#define SHMT_OFI_MSG_MAGIC 0x57
/* Receive buffers kept posted on the target endpoint. */
#define SHMT_OFI_MSG_BUFS 32
/* Largest data a message carries: the collectives' chunk (coll.h). */
#define SHMT_OFI_MSG_DATA 2048

typedef struct shmt_ofi_msg_buf {
    shmt_ofi_msg_hdr_t hdr;
    unsigned char data[SHMT_OFI_MSG_DATA];
} shmt_ofi_msg_buf_t;

static shmt_ofi_msg_buf_t *msg_bufs; /* [SHMT_OFI_MSG_BUFS] */
static int msg_seen;                 /* a message was applied (logged) */
static int msg_long_sent;            /* one was sent from msg_out (logged) */
/* The target endpoint's buffer for messages too long to inject, and
 * whether a send from it is in flight (threads take turns). */
static shmt_ofi_msg_buf_t *msg_out;
static int msg_out_busy;
static shmt_ofi_mr_t msg_mr;         /* their registration (FI_MR_LOCAL) */

static int shmt_ofi_msg_post(shmt_ofi_msg_buf_t *b)
{
    struct iovec iov = {b, sizeof(*b)};
    void *desc = msg_mr.desc;
    struct fi_msg msg = {
        .msg_iov = &iov,
        .desc = &desc,
        .iov_count = 1,
        .addr = FI_ADDR_UNSPEC,
        .context = b,
    };
    ssize_t ret;

    /* The CQ is bound with FI_SELECTIVE_COMPLETION: only a receive posted
     * with FI_COMPLETION reports its arrival. */
    while ((ret = fi_recvmsg(shmt_ofi.target->ep, &msg, FI_COMPLETION)) ==
           -FI_EAGAIN)
        ;
    if (ret) {
        shmt_ofi_log_fail("fi_recvmsg", (int)ret);
        return SHMI_EIO;
    }
    return 0;
}

int shmt_ofi_msg_init(void)
{
    size_t bytes = SHMT_OFI_MSG_BUFS * sizeof(shmt_ofi_msg_buf_t);
    int ret;

    msg_seen = 0;
    msg_long_sent = 0;
    if (!shmt_ofi.signal_msg)
        return 0;
    /* msg_out is the last of the buffers; registered with them.
     * aligned_alloc wants a multiple of the alignment. */
    bytes = (bytes + sizeof(shmt_ofi_msg_buf_t) + 63) & ~(size_t)63;
    msg_bufs = aligned_alloc(64, bytes);
    if (!msg_bufs)
        return SHMI_ENOMEM;
    memset(msg_bufs, 0, bytes);
    msg_out = &msg_bufs[SHMT_OFI_MSG_BUFS];
    msg_out_busy = 0;
    msg_mr.mr = NULL;
    msg_mr.desc = NULL;
    if ((shmt_ofi.mr_mode & FI_MR_LOCAL) &&
        shmt_ofi_mr_one(shmt_ofi.target, msg_bufs, bytes, &msg_mr)) {
        free(msg_bufs);
        msg_bufs = NULL;
        msg_out = NULL;
        return SHMI_EIO;
    }
    for (int i = 0; i < SHMT_OFI_MSG_BUFS; i++) {
        ret = shmt_ofi_msg_post(&msg_bufs[i]);
        if (ret)
            return ret;
    }
    return 0;
}

/* After the target endpoint is closed (its receives with it). */
void shmt_ofi_msg_finalize(void)
{
    if (msg_mr.mr)
        fi_close(&msg_mr.mr->fid);
    msg_mr.mr = NULL;
    free(msg_bufs);
    msg_bufs = NULL;
    msg_out = NULL;
}

/* 1 when [off, off+len) lies in this PE's segment seg (a host segment). */
static int shmt_ofi_msg_in_seg(unsigned seg, uint64_t off, uint64_t len)
{
    const shmt_seg_t *s;

    if (seg >= SHMI_SEG_COUNT || seg == SHMI_SEG_DEVICE)
        return 0;
    s = &shmt_ofi.job->seg[seg];
    return s->base != NULL && off <= s->size && len <= s->size - off;
}

/* Applies the message in b: the data, then the signal. */
static void shmt_ofi_msg_apply(const shmt_ofi_msg_buf_t *b)
{
    const shmt_ofi_msg_hdr_t *h = &b->hdr;
    uint64_t *sig;

    if (h->magic != SHMT_OFI_MSG_MAGIC || h->len > SHMT_OFI_MSG_DATA ||
        !shmt_ofi_msg_in_seg(h->seg, h->off, h->len) ||
        !shmt_ofi_msg_in_seg(h->sig_seg, h->sig_off, sizeof(uint64_t)) ||
        h->sig_off % sizeof(uint64_t) != 0) {
        SHMI_LOG(SHMI_LOG_ERROR, "ofi",
                 "dropped a malformed signal message (provider %s)",
                 shmt_ofi.prov);
        return;
    }
    /* Once, for tests and SHMEM_DEBUG=1: the path is in use. */
    if (!__atomic_exchange_n(&msg_seen, 1, __ATOMIC_RELAXED))
        SHMI_LOG(SHMI_LOG_DEBUG, "ofi",
                 "first signal message applied (%u bytes of data)",
                 (unsigned)h->len);
    if (h->len)
        memcpy(shmt_ofi.job->seg[h->seg].base + h->off, b->data, h->len);
    sig = (uint64_t *)(void *)(shmt_ofi.job->seg[h->sig_seg].base +
                               h->sig_off);
    if (h->sig_op == SHMI_AMO_ADD)
        __atomic_fetch_add(sig, h->signal, __ATOMIC_RELEASE);
    else
        __atomic_store_n(sig, h->signal, __ATOMIC_RELEASE);
}

void shmt_ofi_msg_completed(void *context)
{
    shmt_ofi_msg_buf_t *b = context;

    if (context != NULL && context == msg_out) {
        __atomic_store_n(&msg_out_busy, 0, __ATOMIC_RELEASE);
        return;
    }
    if (msg_bufs == NULL || b < msg_bufs || b >= msg_bufs + SHMT_OFI_MSG_BUFS)
        return; /* not one of ours */
    shmt_ofi_msg_apply(b);
    (void)shmt_ofi_msg_post(b);
}

/* The message being sent: buf holds the header and the data. */
typedef struct shmt_ofi_msg_send {
    shmt_ofi_msg_buf_t *buf;
    size_t len; /* header and data */
    void *desc; /* msg_out's descriptor when buf is msg_out */
    int pe;
} shmt_ofi_msg_send_t;

static ssize_t shmt_ofi_post_msg(shmt_ep_t *ep, void *arg)
{
    shmt_ofi_msg_send_t *m = arg;
    struct iovec iov = {m->buf, m->len};
    struct fi_msg msg = {
        .msg_iov = &iov,
        .desc = &m->desc,
        .iov_count = 1,
        .addr = shmt_ofi.addr[m->pe],
        .context = m->buf,
    };

    /* These flags replace the endpoint's default FI_DELIVERY_COMPLETE:
     * nothing waits for the message's delivery. msg_out reports its
     * (local) completion on the CQ, after which it is free again. */
    return fi_sendmsg(ep->ep, &msg,
                      m->buf == msg_out ? FI_COMPLETION | FI_TRANSMIT_COMPLETE
                                        : FI_INJECT | FI_TRANSMIT_COMPLETE);
}

/* Takes msg_out once its previous send has completed (another thread's,
 * or this one's), driving the target endpoint meanwhile. */
static void shmt_ofi_msg_out_take(void)
{
    shmt_ofi_backoff_t b = {0};
    int free_ = 0;

    while (!__atomic_compare_exchange_n(&msg_out_busy, &free_, 1, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        free_ = 0;
        shmt_ofi_ep_progress(shmt_ofi.target);
        shmt_ofi_backoff(&b);
    }
}

int shmt_ofi_put_signal_msg(shmt_ep_t *ep, int pe, shmi_seg_id_t seg,
                            size_t off, const void *src, size_t len,
                            shmi_seg_id_t sig_seg, size_t sig_off,
                            uint64_t signal, shmi_amo_op_t sig_op)
{
    shmt_ofi_msg_buf_t stack_buf, *buf = &stack_buf;
    shmt_ofi_msg_send_t m = {buf, sizeof(buf->hdr) + len, NULL, pe};
    int ret;

    if (!shmt_ofi.signal_msg || msg_bufs == NULL || len > SHMT_OFI_MSG_DATA ||
        seg == SHMI_SEG_DEVICE || sig_seg == SHMI_SEG_DEVICE ||
        (sig_op != SHMI_AMO_SET && sig_op != SHMI_AMO_ADD))
        return len ? shmt_ofi_put_signal(ep, pe, seg, off, src, len, sig_seg,
                                         sig_off, signal, sig_op, 0)
                   : shmt_ofi_amo(ep, pe, sig_seg, sig_off, sig_op,
                                  SHMI_DT_UINT64, &signal, NULL, NULL, 1);
    /* The message does not leave from ep, so no provider ordering puts it
     * behind what ep still has in flight (a collective's data put before
     * its signal, with a fence that an ordered provider made free): that
     * is delivered first. */
    ret = shmt_ofi_wait_writes(ep);
    if (ret)
        return ret;
    if (m.len > shmt_ofi.inject_size) {
        shmt_ofi_msg_out_take();
        m.buf = buf = msg_out;
        m.desc = msg_mr.desc;
        if (!__atomic_exchange_n(&msg_long_sent, 1, __ATOMIC_RELAXED))
            SHMI_LOG(SHMI_LOG_DEBUG, "ofi",
                     "first signal message longer than the inject size "
                     "(%zu bytes of data, inject %zu)",
                     len, shmt_ofi.inject_size);
    }
    buf->hdr = (shmt_ofi_msg_hdr_t){
        .off = off,
        .sig_off = sig_off,
        .signal = signal,
        .len = (uint32_t)len,
        .seg = (uint8_t)seg,
        .sig_seg = (uint8_t)sig_seg,
        .sig_op = (uint8_t)sig_op,
        .magic = SHMT_OFI_MSG_MAGIC,
    };
    if (len)
        memcpy(buf->data, src, len);
    /* From the target endpoint, whatever ep the caller holds: every
     * progress call drives it, so a message that a provider sends only in
     * progress (sockets) leaves even when the PE next waits on another
     * endpoint, or on none of the collectives'. */
    ret = shmt_ofi_post(shmt_ofi.target, pe, "fi_sendmsg", shmt_ofi_post_msg,
                        &m);
    if (ret && buf == msg_out)
        __atomic_store_n(&msg_out_busy, 0, __ATOMIC_RELEASE);
    return ret;
}
