/*
 * The libfabric transport's entry in the transport contract
 * (transports/transport.h): its base and parts; see ofi_internal.h for the
 * map of this folder.
 *
 * Its collectives' shortcuts depend on the provider init() chooses
 * (ofi_provider.c: shmt_ofi.signal_msg, .put_word, .put_tagged), so that
 * part is filled at init and emptied at finalize: a member is there only
 * where the provider allows it, which is what the core reads at connect.
 */
#include "config.h"

#include "transports/ofi/ofi_internal.h"

static const shmt_rma_ops_t shmt_ofi_rma = {
    .size = sizeof(shmt_rma_ops_t),
    .put = shmt_ofi_put,
    .get = shmt_ofi_get,
    .put_signal = shmt_ofi_put_signal,
};

static const shmt_atomic_ops_t shmt_ofi_atomic = {
    .size = sizeof(shmt_atomic_ops_t),
    .amo = shmt_ofi_amo,
};

static const shmt_order_ops_t shmt_ofi_order = {
    .size = sizeof(shmt_order_ops_t),
    .fence = shmt_ofi_fence,
    .quiet = shmt_ofi_quiet,
};

static shmt_coll_ops_t shmt_ofi_coll = {.size = sizeof(shmt_coll_ops_t)};

static shmt_init_fn shmt_ofi_start;
static shmt_finalize_fn shmt_ofi_stop;

/* init, then the collectives' part from the provider chosen. */
static int shmt_ofi_start(const shmt_job_t *job)
{
    int ret = shmt_ofi_init(job);

    if (ret != 0)
        return ret;
    shmt_ofi_coll.put_signal_msg =
        shmt_ofi.signal_msg ? shmt_ofi_put_signal_msg : NULL;
    shmt_ofi_coll.put_word = shmt_ofi.put_word ? shmt_ofi_put_word : NULL;
    shmt_ofi_coll.put_tagged = shmt_ofi.put_tagged ? shmt_ofi_put_tagged : NULL;
    return 0;
}

static void shmt_ofi_stop(void)
{
    shmt_ofi_finalize();
    shmt_ofi_coll = (shmt_coll_ops_t){.size = sizeof(shmt_coll_ops_t)};
}

const shmt_ops_t shmt_ofi_ops = {
    .size = sizeof(shmt_ops_t),
    .name = "ofi",
    .kind = SHMT_KIND_NETWORK,
    .init = shmt_ofi_start,
    .connect = shmt_ofi_connect,
    .finalize = shmt_ofi_stop,
    .reachable = shmt_ofi_reachable,
    .caps = shmt_ofi_caps,
    .caps_of = shmt_ofi_caps_of_candidate,
    .ep_create = shmt_ofi_ep_create,
    .ep_destroy = shmt_ofi_ep_destroy,
    .progress = shmt_ofi_progress,
    .check_unused = shmt_ofi_check_unused,
    .started = shmt_ofi_started,
    .rma = &shmt_ofi_rma,
    .atomic = &shmt_ofi_atomic,
    .order = &shmt_ofi_order,
    .coll = &shmt_ofi_coll,
};
