/*
 * Defaults for the members of shmt_ops_t (transports/transport.h) that a
 * transport does not provide, so that none is NULL and the core calls every
 * member without testing it: operations answer SHMI_ENOSYS, optional hooks
 * do nothing.
 */
#include "config.h"

#include "services/error.h"
#include "transports/transport.h"

int shmt_stub_ep_create(long options, void *owner, shmt_ep_t **ep)
{
    (void)options, (void)owner, (void)ep;
    return SHMI_ENOSYS;
}

void shmt_stub_ep_destroy(shmt_ep_t *ep)
{
    (void)ep;
}

int shmt_stub_put(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                  const void *src, size_t len, int nbi)
{
    (void)ep, (void)pe, (void)seg, (void)off, (void)src, (void)len, (void)nbi;
    return SHMI_ENOSYS;
}

int shmt_stub_get(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                  void *dst, size_t len, int nbi)
{
    (void)ep, (void)pe, (void)seg, (void)off, (void)dst, (void)len, (void)nbi;
    return SHMI_ENOSYS;
}

int shmt_stub_amo(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                  shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                  const void *compare, void *fetched, int nbi)
{
    (void)ep, (void)pe, (void)seg, (void)off, (void)op, (void)dt;
    (void)operand, (void)compare, (void)fetched, (void)nbi;
    return SHMI_ENOSYS;
}

int shmt_stub_put_signal(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                         const void *src, size_t len, shmi_seg_id_t sig_seg,
                         size_t sig_off, uint64_t signal, shmi_amo_op_t sig_op,
                         int nbi)
{
    (void)ep, (void)pe, (void)seg, (void)off, (void)src, (void)len;
    (void)sig_seg, (void)sig_off, (void)signal, (void)sig_op, (void)nbi;
    return SHMI_ENOSYS;
}

int shmt_stub_put_signal_msg(shmt_ep_t *ep, int pe, shmi_seg_id_t seg,
                             size_t off, const void *src, size_t len,
                             shmi_seg_id_t sig_seg, size_t sig_off,
                             uint64_t signal, shmi_amo_op_t sig_op)
{
    (void)ep, (void)pe, (void)seg, (void)off, (void)src, (void)len;
    (void)sig_seg, (void)sig_off, (void)signal, (void)sig_op;
    return SHMI_ENOSYS;
}

int shmt_stub_put_word(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                       uint64_t value)
{
    (void)ep, (void)pe, (void)seg, (void)off, (void)value;
    return SHMI_ENOSYS;
}

int shmt_stub_put_tagged(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                         const void *src, size_t len)
{
    (void)ep, (void)pe, (void)seg, (void)off, (void)src, (void)len;
    return SHMI_ENOSYS;
}

int shmt_stub_fence(shmt_ep_t *ep)
{
    (void)ep;
    return SHMI_ENOSYS;
}

int shmt_stub_quiet(shmt_ep_t *ep, int pe)
{
    (void)ep, (void)pe;
    return SHMI_ENOSYS;
}

void shmt_stub_progress(void)
{
}

void shmt_stub_check_unused(const shmt_job_t *job)
{
    (void)job;
}

void shmt_stub_started(void)
{
}

void *shmt_stub_mapped_base(int pe, shmi_seg_id_t seg)
{
    (void)pe, (void)seg;
    return NULL;
}
