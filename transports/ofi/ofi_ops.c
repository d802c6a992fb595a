/*
 * The libfabric transport's entry in the transport contract
 * (transports/transport.h); see ofi_internal.h for the map of this folder.
 */
#include "config.h"

#include "transports/ofi/ofi_internal.h"

const shmt_ops_t shmt_ofi_ops = {
    .size = sizeof(shmt_ops_t),
    .name = "ofi",
    .init = shmt_ofi_init,
    .connect = shmt_ofi_connect,
    .finalize = shmt_ofi_finalize,
    .reachable = shmt_ofi_reachable,
    .ep_create = shmt_ofi_ep_create,
    .ep_destroy = shmt_ofi_ep_destroy,
    .put = shmt_ofi_put,
    .get = shmt_ofi_get,
    .amo = shmt_ofi_amo,
    .put_signal = shmt_ofi_put_signal,
    .put_signal_msg = shmt_ofi_put_signal_msg,
    .put_word = shmt_ofi_put_word,
    .put_tagged = shmt_ofi_put_tagged,
    .fence = shmt_ofi_fence,
    .quiet = shmt_ofi_quiet,
    .progress = shmt_ofi_progress,
    .check_unused = shmt_ofi_check_unused,
    .started = shmt_ofi_started,
    .caps = shmt_ofi_caps,
    .mapped_base = shmt_stub_mapped_base,
    .kind = SHMT_KIND_NETWORK,
};
