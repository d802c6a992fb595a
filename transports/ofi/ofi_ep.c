/*
 * Endpoints: one per context, each with its own completion counters (so a
 * context's quiet waits only for its own operations) and an error-only CQ.
 *
 * Endpoint 0 (the target endpoint) is the one whose name peers insert into
 * their address vectors: every remote operation lands there, so progress()
 * always drives it. It is also handed to the first context created (the
 * default context); every other context gets a fresh endpoint. Under
 * ofi_rxm it has no write counter (writes_on_cq, ofi_internal.h), so that
 * the collectives' unacknowledged words, which leave from it, are
 * injected straight into the connection that peers' words arrive on. With
 * FI_MR_ENDPOINT each endpoint holds its own registrations of the segments;
 * peers use the target endpoint's keys.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "transports/ofi/ofi_internal.h"

static int shmt_ofi_ep_resources(shmt_ep_t *e)
{
    struct fi_cq_attr cq_attr = {0};
    struct fi_cntr_attr cntr_attr = {0};
    int ret;

    ret = fi_endpoint(shmt_ofi.domain, shmt_ofi.info, &e->ep, NULL);
    if (ret) {
        shmt_ofi_log_fail("fi_endpoint", ret);
        return SHMI_EIO;
    }
    cq_attr.format = FI_CQ_FORMAT_CONTEXT;
    cq_attr.wait_obj = FI_WAIT_NONE;
    ret = fi_cq_open(shmt_ofi.domain, &cq_attr, &e->cq, NULL);
    if (ret) {
        shmt_ofi_log_fail("fi_cq_open", ret);
        return SHMI_EIO;
    }
    cntr_attr.events = FI_CNTR_EVENTS_COMP;
    cntr_attr.wait_obj = FI_WAIT_NONE;
    ret = fi_cntr_open(shmt_ofi.domain, &cntr_attr, &e->wcntr, NULL);
    if (ret == 0)
        ret = fi_cntr_open(shmt_ofi.domain, &cntr_attr, &e->rcntr, NULL);
    if (ret) {
        shmt_ofi_log_fail("fi_cntr_open", ret);
        return SHMI_EIO;
    }
    return 0;
}

static int shmt_ofi_ep_bind_enable(shmt_ep_t *e)
{
    int ret;

    ret = fi_ep_bind(e->ep, &shmt_ofi.av->fid, 0);
    if (ret == 0)
        ret = fi_ep_bind(e->ep, &e->cq->fid,
                         FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION);
    if (ret == 0 && !e->writes_on_cq)
        ret = fi_ep_bind(e->ep, &e->wcntr->fid, FI_WRITE);
    if (ret == 0)
        ret = fi_ep_bind(e->ep, &e->rcntr->fid, FI_READ);
    if (ret) {
        shmt_ofi_log_fail("fi_ep_bind", ret);
        return SHMI_EIO;
    }
    if (shmt_ofi_shm_name(e->ep, e->id))
        return SHMI_EIO;
    ret = fi_enable(e->ep);
    if (ret) {
        shmt_ofi_log_fail("fi_enable", ret);
        shmt_ofi_shm_enable_failed(e->ep, ret);
        return SHMI_EIO;
    }
    return 0;
}

int shmt_ofi_ep_open(shmt_ep_t **out, int writes_on_cq)
{
    shmt_ep_t *e = calloc(1, sizeof(*e));
    int ret;

    if (!e)
        return SHMI_ENOMEM;
    e->writes_on_cq = writes_on_cq;
    /* Contexts may be created by several threads at once. */
    pthread_mutex_lock(&shmt_ofi.eps_lock);
    e->id = shmt_ofi.next_ep_id++;
    pthread_mutex_unlock(&shmt_ofi.eps_lock);
    ret = shmt_ofi_ep_resources(e);
    if (ret == 0)
        ret = shmt_ofi_ep_bind_enable(e);
    if (ret == 0 && (shmt_ofi.mr_mode & FI_MR_ENDPOINT))
        ret = shmt_ofi_mr_register(e, e->mr);
    else if (ret == 0)
        memcpy(e->mr, shmt_ofi.mr, sizeof(e->mr));
    /* Linked even on failure so that ep_close unwinds it. */
    pthread_mutex_lock(&shmt_ofi.eps_lock);
    e->next = shmt_ofi.eps;
    shmt_ofi.eps = e;
    pthread_mutex_unlock(&shmt_ofi.eps_lock);
    if (ret) {
        shmt_ofi_ep_close(e);
        return ret;
    }
    *out = e;
    return 0;
}

void shmt_ofi_ep_close(shmt_ep_t *e)
{
    pthread_mutex_lock(&shmt_ofi.eps_lock);
    for (shmt_ep_t **p = &shmt_ofi.eps; *p; p = &(*p)->next) {
        if (*p == e) {
            *p = e->next;
            break;
        }
    }
    pthread_mutex_unlock(&shmt_ofi.eps_lock);
    if (e->amo_mr.mr)
        fi_close(&e->amo_mr.mr->fid);
    if (e->bounce_mr.mr)
        fi_close(&e->bounce_mr.mr->fid);
    if (shmt_ofi.mr_mode & FI_MR_ENDPOINT)
        shmt_ofi_mr_release(e->mr);
    if (e->ep)
        fi_close(&e->ep->fid);
    if (e->rcntr)
        fi_close(&e->rcntr->fid);
    if (e->wcntr)
        fi_close(&e->wcntr->fid);
    if (e->cq)
        fi_close(&e->cq->fid);
    free(e->amo_slots);
    free(e->bounce);
    free(e);
}

int shmt_ofi_ep_create(long options, void *owner, shmt_ep_t **ep)
{
    shmt_ep_t *e;
    int ret;

    (void)options; /* every context gets the same kind of endpoint */
    (void)owner;
    if (shmt_ofi.target && !shmt_ofi.target->in_use) {
        shmt_ofi.target->in_use = 1;
        *ep = shmt_ofi.target;
        return 0;
    }
    ret = shmt_ofi_ep_open(&e, 0);
    if (ret)
        return ret;
    e->in_use = 1;
    *ep = e;
    return 0;
}

void shmt_ofi_ep_destroy(shmt_ep_t *ep)
{
    if (!ep)
        return;
    /* A destroyed context's operations complete first (as ctx_destroy
     * requires); errors were already logged. */
    (void)shmt_ofi_quiet(ep, -1);
    if (ep == shmt_ofi.target) {
        ep->in_use = 0;
        return;
    }
    shmt_ofi_ep_close(ep);
}
