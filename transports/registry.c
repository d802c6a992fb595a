/*
 * The one list of transports built into this library, in the order the core
 * prefers them within each kind (transports/transport.h, shmt_ops_t.kind:
 * the core starts the first network transport that runs here), and the
 * start-up check of each entry's `size`.
 *
 * A table whose `size` does not cover every member the core reads was built
 * against an older, smaller shmt_ops_t: the core would read past its end;
 * likewise a part whose size is too small, or a table without a member it
 * must have (the core calls those without testing them). Such an entry is
 * refused, not skipped: the job could otherwise run with a
 * different set of paths on different PEs, so start-up fails with a message
 * that names the transport and both sizes.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>

#include "services/error.h"
#include "transports/transport.h"

const shmt_ops_t *const shmt_registry[] = {
    &shmt_local_ops,
    &shmt_ofi_ops,
    &shmt_device_ops,
    NULL,
};

/* The smallest size of each part: every member the core reads. */
#define SHMT_PART_MIN(type, last)                                              \
    (offsetof(type, last) + sizeof(((type *)0)->last))

/* The name of the first thing t lacks, or NULL when it lacks nothing: a
 * member every transport fills, what a transport that carries operations
 * needs, a part too small for what the core reads. */
static const char *shmt_registry_lack(const shmt_ops_t *t)
{
    int carries = t->kind == SHMT_KIND_NETWORK || t->kind == SHMT_KIND_DEVICE;

    if (!t->init || !t->connect || !t->finalize || !t->reachable || !t->caps)
        return "one of init, connect, finalize, reachable, caps";
    if (carries && (!t->ep_create || !t->ep_destroy || !t->rma))
        return "endpoints or the RMA part (it carries operations)";
    if (t->rma && (t->rma->size < SHMT_PART_MIN(shmt_rma_ops_t, put_signal) ||
                   !t->rma->put || !t->rma->get || !t->rma->put_signal))
        return "a whole RMA part";
    if (t->atomic && (t->atomic->size < SHMT_PART_MIN(shmt_atomic_ops_t, amo) ||
                      !t->atomic->amo))
        return "a whole atomics part";
    if (t->order && (t->order->size < SHMT_PART_MIN(shmt_order_ops_t, quiet) ||
                     !t->order->fence || !t->order->quiet))
        return "a whole ordering part";
    if (t->coll && t->coll->size < SHMT_PART_MIN(shmt_coll_ops_t, put_tagged))
        return "a whole collectives part";
    return NULL;
}

int shmt_registry_check(const shmt_ops_t *t, char *why, size_t len)
{
    const char *lack;

    if (t->size < SHMT_OPS_MIN_SIZE) {
        snprintf(why, len,
                 "transport \"%s\" declares a contract of %zu bytes, but "
                 "this library needs at least %zu (rebuild it against this "
                 "transports/transport.h)",
                 t->name ? t->name : "?", t->size, (size_t)SHMT_OPS_MIN_SIZE);
        return SHMI_EINVAL;
    }
    lack = shmt_registry_lack(t);
    if (lack == NULL)
        return 0;
    snprintf(why, len, "transport \"%s\" lacks %s (transports/transport.h)",
             t->name ? t->name : "?", lack);
    return SHMI_EINVAL;
}
