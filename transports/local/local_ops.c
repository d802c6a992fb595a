/*
 * Data members of shmt_local_ops (see local.h): the same operations as the
 * inline hot path of local_inline.h, behind the shmt_ops_t signatures.
 */
#include "config.h"

#include "core/error.h"
#include "core/segment.h"
#include "transports/local/local.h"
#include "transports/local/local_inline.h"

/* Endpoints carry no state; this is what ep_create hands out. */
static char shmt_local_ep_token;

int shmt_local_ep_create(long options, shmt_ep_t **ep)
{
    (void)options;
    *ep = (shmt_ep_t *)&shmt_local_ep_token;
    return 0;
}

void shmt_local_ep_destroy(shmt_ep_t *ep)
{
    (void)ep;
}

int shmt_local_put(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                   const void *src, size_t len, int nbi)
{
    void *p = shmi_seg_peer_ptr(pe, seg, off);

    (void)ep;
    (void)nbi;
    if (p == NULL)
        return SHMI_ERANGE;
    shmt_local_copy(p, src, len, SHMT_TO_PEER);
    return 0;
}

int shmt_local_get(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                   void *dst, size_t len, int nbi)
{
    void *p = shmi_seg_peer_ptr(pe, seg, off);

    (void)ep;
    (void)nbi;
    if (p == NULL)
        return SHMI_ERANGE;
    shmt_local_copy(dst, p, len, SHMT_FROM_PEER);
    return 0;
}

int shmt_local_amo(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                   shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                   const void *compare, void *fetched, int nbi)
{
    void *p = shmi_seg_peer_ptr(pe, seg, off);
    size_t size = shmi_dtype_size(dt);

    (void)ep;
    (void)nbi;
    if (p == NULL)
        return SHMI_ERANGE;
    if (size > 8 || (size & (size - 1)) || ((uintptr_t)p & (size - 1)) ||
        shmi_dtype_kind(dt) == SHMI_DK_COMPLEX)
        return SHMI_EINVAL;
    shmt_local_amo_apply(p, op, dt, operand, compare, fetched);
    return 0;
}

int shmt_local_put_signal(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                          const void *src, size_t len, shmi_seg_id_t sig_seg,
                          size_t sig_off, uint64_t signal, int sig_op, int nbi)
{
    void *p = shmi_seg_peer_ptr(pe, seg, off);
    uint64_t *s = shmi_seg_peer_ptr(pe, sig_seg, sig_off);

    (void)ep;
    (void)nbi;
    if ((p == NULL && len > 0) || s == NULL)
        return SHMI_ERANGE;
    if ((uintptr_t)s & 7)
        return SHMI_EINVAL;
    shmt_local_put_signal_apply(p, src, len, s, signal, sig_op);
    return 0;
}

int shmt_local_fence(shmt_ep_t *ep)
{
    (void)ep;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return 0;
}

int shmt_local_quiet(shmt_ep_t *ep, int pe)
{
    (void)ep;
    (void)pe;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return 0;
}

void shmt_local_progress(void)
{
}
