/*
 * What the libfabric transport declares it can do (SHMT_CAP_* of
 * transports/transport.h), from a provider's fi_info: the same code
 * answers for the provider the transport runs on and, through
 * shmt_ops_t.caps_of, for every provider tools/shmem_info lists.
 */
#ifndef SHMT_OFI_CAPS_H
#define SHMT_OFI_CAPS_H

#include "transports/transport.h"

struct fi_info;

/* The SHMT_CAP_* bits that follow from the provider of info alone (atomics
 * engine, HMEM), with SHMEM_OFI_ATOMICS applied; ORDERED also depends on
 * the job's settings and is added by the transport's caps(). */
unsigned shmt_ofi_caps_of(const struct fi_info *info);

/* The transport's caps (transports/transport.h): the chosen provider's. */
shmt_caps_fn shmt_ofi_caps;

/* shmt_ofi_caps_of for a tool that has a provider's fi_info in hand
 * (shmt_ops_t.caps_of). */
shmt_caps_of_fn shmt_ofi_caps_of_candidate;

#endif /* SHMT_OFI_CAPS_H */
