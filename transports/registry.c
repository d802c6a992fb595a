/*
 * The one list of transports built into this library, in the order the core
 * prefers them within each kind (transports/transport.h, shmt_ops_t.kind:
 * the core starts the first network transport that runs here), and the
 * start-up check of each entry's `size`.
 *
 * A table whose `size` does not cover every member the core reads was built
 * against an older, smaller shmt_ops_t: the core would read past its end.
 * Such an entry is refused, not skipped: the job could otherwise run with a
 * different set of paths on different PEs, so start-up fails with a message
 * that names the transport and both sizes.
 */
#include "config.h"

#include <stdio.h>

#include "services/error.h"
#include "transports/transport.h"

const shmt_ops_t *const shmt_registry[] = {
    &shmt_local_ops,
    &shmt_ofi_ops,
    &shmt_device_ops,
    NULL,
};

int shmt_registry_check(const shmt_ops_t *t, char *why, size_t len)
{
    if (t->size >= SHMT_OPS_MIN_SIZE)
        return 0;
    snprintf(why, len,
             "transport \"%s\" declares a contract of %zu bytes, but this "
             "library needs at least %zu (rebuild it against this "
             "transports/transport.h)",
             t->name ? t->name : "?", t->size, (size_t)SHMT_OPS_MIN_SIZE);
    return SHMI_EINVAL;
}
