/*
 * put and get over fi_writemsg/fi_readmsg.
 *
 * Every write carries FI_DELIVERY_COMPLETE, so the write counter counts a
 * put only once the target holds the data (quiet = counters reach what was
 * issued). Writes of at most inject_size bytes also carry FI_INJECT: the
 * source is copied before the call returns, which makes a small blocking put
 * locally complete at once. Longer transfers are split at max_msg_size.
 *
 * A blocking put longer than inject_size but at most SHMEM_OFI_BOUNCE bytes
 * is copied into the endpoint's registered bounce space and returns at
 * once, like an injected one; quiet (or any wait for every write) completes
 * it and frees the space.
 *
 * put_word (shmt_coll_ops_t, the collectives' barrier words) is one
 * injected write that asks for inject completion only: the target sends
 * nothing back, where a delivered write costs tcp;ofi_rxm an
 * acknowledgement and the initiator its reception (tcp acknowledges a
 * write that asks for transmit completion too). Under ofi_rxm it leaves
 * from the target endpoint, which has no write counter
 * (target_writes_on_cq, ofi_provider.c): ofi_rxm then hands it straight
 * to the connection, with no completion to report or count, and the
 * words of two PEs share one connection both ways, the one their peers'
 * words arrive on. Elsewhere it counts on the caller's write counter like
 * any write, so quiet's arithmetic holds; quiet then waits for its local
 * completion only, which is all the contract promises.
 *
 * put_tagged (shmt_coll_ops_t, the reductions' tagged rounds) is the
 * same kind of write for a buffer that ends in its tag, offered only for
 * tcp (ofi_provider.c): its target copies a write's bytes from the byte
 * stream in address order, in the progress of the target process, under
 * the provider's progress lock. So a reader that sees the tag sees what
 * precedes it, once it has taken that lock after the copy (the contract's
 * one progress pass when other threads may progress). A buffer longer
 * than the inject size is copied into the bounce space and written from
 * there, again asking for no more than its local completion (the space
 * is free again once the write counter has counted it); where the space
 * is full or off (SHMEM_OFI_BOUNCE), it goes as a signal message
 * (ofi_msg.c: the target applies the data, then sets the tag).
 *
 * With FI_MR_LOCAL, a local buffer outside the registered segments is
 * registered for the duration of the operation, which is then waited for
 * even when non-blocking (the registration must outlive it).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "services/env.h"
#include "transports/ofi/ofi_internal.h"

/* One posted RMA operation (a chunk). */
typedef struct shmt_ofi_rma {
    void *buf;      /* local buffer */
    size_t len;     /* bytes */
    void *desc;     /* local descriptor or NULL */
    int pe;         /* target */
    uint64_t raddr; /* remote address */
    uint64_t key;   /* remote key */
    uint64_t flags; /* fi_*msg flags */
} shmt_ofi_rma_t;

static ssize_t shmt_ofi_post_write(shmt_ep_t *ep, void *arg)
{
    shmt_ofi_rma_t *r = arg;
    struct iovec iov = {r->buf, r->len};
    struct fi_rma_iov riov = {r->raddr, r->len, r->key};
    struct fi_msg_rma msg = {
        .msg_iov = &iov,
        .desc = &r->desc,
        .iov_count = 1,
        .addr = shmt_ofi.addr[r->pe],
        .rma_iov = &riov,
        .rma_iov_count = 1,
        .context = &shmt_ofi_write_ctx,
    };

    return fi_writemsg(ep->ep, &msg, r->flags);
}

static ssize_t shmt_ofi_post_read(shmt_ep_t *ep, void *arg)
{
    shmt_ofi_rma_t *r = arg;
    struct iovec iov = {r->buf, r->len};
    struct fi_rma_iov riov = {r->raddr, r->len, r->key};
    struct fi_msg_rma msg = {
        .msg_iov = &iov,
        .desc = &r->desc,
        .iov_count = 1,
        .addr = shmt_ofi.addr[r->pe],
        .rma_iov = &riov,
        .rma_iov_count = 1,
    };

    return fi_readmsg(ep->ep, &msg, r->flags);
}

/* Posts [buf, buf+len) as chunks of at most max_msg bytes. */
static int shmt_ofi_rma_chunks(shmt_ep_t *ep, int write, int pe,
                               shmi_seg_id_t seg, size_t off, void *buf,
                               size_t len, void *desc)
{
    uint64_t key = shmt_ofi.rkey[seg][pe];
    size_t done = 0;

    do {
        size_t n = len - done < shmt_ofi.max_msg ? len - done : shmt_ofi.max_msg;
        shmt_ofi_rma_t r = {
            .buf = (char *)buf + done,
            .len = n,
            .desc = desc,
            .pe = pe,
            .raddr = shmt_ofi_raddr(pe, seg, off + done),
            .key = key,
        };
        int ret;

        if (write) {
            r.flags = FI_DELIVERY_COMPLETE | shmt_ofi_count_flags(ep);
            if (n <= shmt_ofi.inject_size)
                r.flags |= FI_INJECT;
            ret = shmt_ofi_post(ep, pe, "fi_writemsg", shmt_ofi_post_write,
                                &r);
            ep->w_issued += ret == 0;
        } else {
            ret = shmt_ofi_post(ep, pe, "fi_readmsg", shmt_ofi_post_read, &r);
            ep->r_issued += ret == 0;
        }
        if (ret)
            return ret;
        done += n;
    } while (done < len);
    return 0;
}

/* Finds or makes the local descriptor for buf; *tmp is set when a temporary
 * registration was made (the caller waits and releases it). */
static int shmt_ofi_rma_desc(shmt_ep_t *ep, const void *buf, size_t len,
                             void **desc, shmt_ofi_mr_t *tmp)
{
    *desc = shmt_ofi_local_desc(ep, buf, len);
    tmp->mr = NULL;
    if (*desc || !(shmt_ofi.mr_mode & FI_MR_LOCAL))
        return 0;
    if (shmt_ofi_mr_one(ep, (void *)buf, len, tmp))
        return SHMI_EIO;
    *desc = tmp->desc;
    return 0;
}

/* Copy space for a blocking put of len bytes, or NULL (then the put waits
 * for its delivery as before). */
static char *shmt_ofi_bounce(shmt_ep_t *ep, size_t len)
{
    size_t lim = shmi_env.OFI_BOUNCE, need = (len + 63) & ~(size_t)63;

    if (lim > SHMT_OFI_BOUNCE_AREA)
        lim = SHMT_OFI_BOUNCE_AREA;
    if (len > lim || len > shmt_ofi.max_msg)
        return NULL;
    if (!ep->bounce) {
        ep->bounce = malloc(SHMT_OFI_BOUNCE_AREA);
        if (!ep->bounce || shmt_ofi_mr_one(ep, ep->bounce,
                                           SHMT_OFI_BOUNCE_AREA,
                                           &ep->bounce_mr)) {
            free(ep->bounce);
            ep->bounce = NULL;
            ep->bounce_mr.mr = NULL;
            return NULL;
        }
        ep->bounce_used = 0;
    }
    /* Full: the writes that use it complete first (wait_writes frees it). */
    if (ep->bounce_used + need > SHMT_OFI_BOUNCE_AREA &&
        shmt_ofi_wait_writes(ep))
        return NULL;
    if (ep->bounce_used + need > SHMT_OFI_BOUNCE_AREA)
        return NULL;
    ep->bounce_used += need;
    return ep->bounce + ep->bounce_used - need;
}

int shmt_ofi_put(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                 const void *src, size_t len, int nbi)
{
    shmt_ofi_mr_t tmp;
    void *desc = NULL;
    char *copy;
    int ret;

    if (len == 0)
        return 0;
    if (!nbi && len > shmt_ofi.inject_size &&
        (copy = shmt_ofi_bounce(ep, len)) != NULL) {
        memcpy(copy, src, len);
        return shmt_ofi_rma_chunks(ep, 1, pe, seg, off, copy, len,
                                   ep->bounce_mr.desc);
    }
    /* An injected write needs no descriptor and is locally complete. */
    if (len > shmt_ofi.inject_size) {
        ret = shmt_ofi_rma_desc(ep, src, len, &desc, &tmp);
        if (ret)
            return ret;
    } else {
        tmp.mr = NULL;
    }
    ret = shmt_ofi_rma_chunks(ep, 1, pe, seg, off, (void *)src, len, desc);
    if (ret == 0 && (tmp.mr || (!nbi && len > shmt_ofi.inject_size)))
        ret = shmt_ofi_wait_writes(ep);
    if (tmp.mr)
        fi_close(&tmp.mr->fid);
    return ret;
}

int shmt_ofi_get(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                 void *dst, size_t len, int nbi)
{
    shmt_ofi_mr_t tmp;
    void *desc;
    int ret;

    if (len == 0)
        return 0;
    ret = shmt_ofi_rma_desc(ep, dst, len, &desc, &tmp);
    if (ret)
        return ret;
    ret = shmt_ofi_rma_chunks(ep, 0, pe, seg, off, dst, len, desc);
    if (ret == 0 && (tmp.mr || !nbi))
        ret = shmt_ofi_wait_reads(ep);
    if (tmp.mr)
        fi_close(&tmp.mr->fid);
    return ret;
}

/* Posts one write of len bytes from buf that asks for inject completion
 * only (put_word, put_tagged). One short enough to inject leaves from the
 * target endpoint when that has no write counter (target_writes_on_cq):
 * nothing reports or counts it, so quiet has nothing to wait for, as the
 * contract allows. Any other is counted on ep like any write. The first
 * one is logged, for tests and SHMEM_DEBUG=1, as `what`. */
static int shmt_ofi_write_unacked(shmt_ep_t *ep, int pe, shmi_seg_id_t seg,
                                  size_t off, void *buf, size_t len,
                                  void *desc, int *seen, const char *what)
{
    int inject = len <= shmt_ofi.inject_size;
    int uncounted = inject && shmt_ofi.target->writes_on_cq;
    shmt_ep_t *from = uncounted ? shmt_ofi.target : ep;
    shmt_ofi_rma_t r = {
        .buf = buf,
        .len = len,
        .desc = desc,
        .pe = pe,
        .raddr = shmt_ofi_raddr(pe, seg, off),
        .key = shmt_ofi.rkey[seg][pe],
        /* injected when short: copied before the call returns */
        .flags = FI_INJECT_COMPLETE | (inject ? FI_INJECT : 0) |
                 (uncounted ? 0 : shmt_ofi_count_flags(ep)),
    };
    int ret;

    if (!__atomic_exchange_n(seen, 1, __ATOMIC_RELAXED))
        SHMI_LOG(SHMI_LOG_DEBUG, "ofi",
                 "first %s written unacknowledged (provider %s%s)", what,
                 shmt_ofi.prov,
                 uncounted ? ", injected from the target endpoint" : "");
    ret = shmt_ofi_post(from, pe, "fi_writemsg", shmt_ofi_post_write, &r);
    if (!uncounted)
        ep->w_issued += ret == 0;
    return ret;
}

static int put_word_seen;   /* put_word was used (logged once) */
static int put_tagged_seen; /* put_tagged wrote unacknowledged (once) */

int shmt_ofi_put_word(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                      uint64_t value)
{
    /* Without the capability the core does not call here; a delivered
     * put is the same write with more promised. */
    if (!shmt_ofi.put_word)
        return shmt_ofi_put(ep, pe, seg, off, &value, sizeof(value), 0);
    return shmt_ofi_write_unacked(ep, pe, seg, off, &value, sizeof(value),
                                  NULL, &put_word_seen, "word");
}

int shmt_ofi_put_tagged(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                        const void *src, size_t len)
{
    size_t head = len - sizeof(uint64_t);
    uint64_t tag;
    char *copy;

    /* Without the capability the core does not call here. */
    if (shmt_ofi.put_tagged && len <= shmt_ofi.inject_size)
        return shmt_ofi_write_unacked(ep, pe, seg, off, (void *)(uintptr_t)src,
                                      len, NULL, &put_tagged_seen,
                                      "tagged buffer");
    copy = shmt_ofi.put_tagged ? shmt_ofi_bounce(ep, len) : NULL;
    if (copy != NULL) {
        memcpy(copy, src, len);
        return shmt_ofi_write_unacked(ep, pe, seg, off, copy, len,
                                      ep->bounce_mr.desc, &put_tagged_seen,
                                      "tagged buffer");
    }
    memcpy(&tag, (const char *)src + head, sizeof(tag));
    return shmt_ofi_put_signal_msg(ep, pe, seg, off, src, head, seg,
                                   off + head, tag, SHMI_AMO_SET);
}
