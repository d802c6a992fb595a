/*
 * Ordering and completion: put-with-signal, fence and quiet.
 *
 * Counters are per endpoint, not per target PE, so fence and quiet wait for
 * every PE. Fence does not use FI_FENCE (not every provider has it): it
 * waits until the earlier puts and atomics are delivered, which orders them
 * before anything issued afterwards. Put-with-signal does the same between
 * the data and the signal, so the target can never see the signal first.
 * Neither waits when the provider applies writes and atomics to a peer in
 * issue order, data included (shmt_ofi.ordered: tcp;ofi_rxm, sockets).
 */
#include "config.h"

#include "transports/ofi/ofi_internal.h"

int shmt_ofi_put_signal(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                        const void *src, size_t len, shmi_seg_id_t sig_seg,
                        size_t sig_off, uint64_t signal, shmi_amo_op_t sig_op,
                        int nbi)
{
    int ret;

    if (sig_op != SHMI_AMO_SET && sig_op != SHMI_AMO_ADD)
        return SHMI_EINVAL;
    /* Ordered: a blocking put returns locally complete and the signal
     * cannot overtake it. Otherwise the data is delivered first. */
    ret = shmt_ofi_put(ep, pe, seg, off, src, len, shmt_ofi.ordered ? nbi : 1);
    if (ret == 0 && !shmt_ofi.ordered)
        ret = shmt_ofi_wait_writes(ep);
    if (ret == 0)
        ret = shmt_ofi_amo(ep, pe, sig_seg, sig_off, sig_op, SHMI_DT_UINT64,
                           &signal, NULL, NULL, 1);
    return ret;
}

int shmt_ofi_fence(shmt_ep_t *ep)
{
    int ret;

    if (shmt_ofi.ordered)
        return 0; /* the provider applies them in issue order */
    ret = shmt_ofi_wait_writes(ep);

    /* Non-fetching atomics posted as fetching ones count as reads. */
    if (ret == 0 && shmt_ofi.amo_as_fetch)
        ret = shmt_ofi_wait_reads(ep);
    return ret;
}

int shmt_ofi_quiet(shmt_ep_t *ep, int pe)
{
    int ret, ret2;

    (void)pe; /* counters are per endpoint: every PE is waited for */
    ret = shmt_ofi_wait_writes(ep);
    ret2 = shmt_ofi_wait_reads(ep);
    if (ret2 == 0)
        ep->amo_next = 0; /* no fetching atomic in flight: slots are free */
    return ret ? ret : ret2;
}
