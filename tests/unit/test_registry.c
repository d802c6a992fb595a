/*
 * The transport registry (transports/registry.c): every entry is accepted
 * by the check and has what its kind needs (a transport that carries
 * operations has endpoints and the RMA part; the load/store one has no
 * part); a table built against a smaller contract, a part too small for
 * what the core reads, or a table lacking a member it must have is refused
 * with a message naming it.
 */
#include "config.h"

#include <string.h>

#include "services/error.h"
#include "tests/common/check.h"
#include "transports/transport.h"

static void test_entries(void)
{
    char why[256] = "";
    int n = 0;

    for (int i = 0; shmt_registry[i]; i++, n++) {
        const shmt_ops_t *t = shmt_registry[i];

        CHECK_MSG(shmt_registry_check(t, why, sizeof(why)) == 0,
                  "%s refused: %s", t->name, why);
        CHECK_MSG(t->init && t->connect && t->finalize && t->reachable &&
                      t->caps,
                  "%s lacks a member of the base", t->name);
        CHECK_MSG(t->kind == SHMT_KIND_LOAD_STORE ||
                      (t->ep_create && t->ep_destroy && t->rma),
                  "%s carries operations without endpoints or RMA", t->name);
        CHECK_MSG(t->kind == SHMT_KIND_LOAD_STORE ||
                      t->kind == SHMT_KIND_NETWORK ||
                      t->kind == SHMT_KIND_DEVICE,
                  "%s declares kind %u", t->name, t->kind);
        /* One that maps peers for load/store is of that kind. */
        CHECK_MSG(!(shmt_caps(t) & SHMT_CAP_LOAD_STORE) ||
                      t->kind == SHMT_KIND_LOAD_STORE,
                  "%s declares load-store but is not of that kind", t->name);
    }
    /* The core reads kinds, not positions; within a kind the order is its
     * preference. */
    CHECK_MSG(n == 3, "%d entries", n);
    CHECK(shmt_registry[0] == &shmt_local_ops &&
          shmt_local_ops.kind == SHMT_KIND_LOAD_STORE);
    CHECK(shmt_registry[1] == &shmt_ofi_ops &&
          shmt_ofi_ops.kind == SHMT_KIND_NETWORK);
    CHECK(shmt_registry[2] == &shmt_device_ops &&
          shmt_device_ops.kind == SHMT_KIND_DEVICE);
}

static void test_too_small(void)
{
    shmt_ops_t old = shmt_ofi_ops;
    char why[256] = "";

    old.name = "old";
    old.size = offsetof(shmt_ops_t, coll); /* built before coll existed */
    CHECK(shmt_registry_check(&old, why, sizeof(why)) == SHMI_EINVAL);
    CHECK_MSG(strstr(why, "\"old\"") != NULL, "why: %s", why);
    old.size = SHMT_OPS_MIN_SIZE - 1;
    CHECK(shmt_registry_check(&old, why, sizeof(why)) == SHMI_EINVAL);
    old.size = SHMT_OPS_MIN_SIZE;
    CHECK(shmt_registry_check(&old, why, sizeof(why)) == 0);
}

/* A part too small for the members the core reads, or missing one, and a
 * carrier without endpoints, are refused, naming the transport. */
static void test_parts(void)
{
    shmt_rma_ops_t rma = *shmt_ofi_ops.rma;
    shmt_coll_ops_t coll = {.size = sizeof(coll)};
    shmt_ops_t t = shmt_ofi_ops;
    char why[256] = "";

    t.name = "parts";
    t.rma = &rma;
    t.coll = &coll;
    CHECK(shmt_registry_check(&t, why, sizeof(why)) == 0);
    rma.size = offsetof(shmt_rma_ops_t, put_signal); /* before put_signal */
    CHECK(shmt_registry_check(&t, why, sizeof(why)) == SHMI_EINVAL);
    CHECK_MSG(strstr(why, "\"parts\"") && strstr(why, "RMA"), "why: %s", why);
    rma.size = sizeof(rma);
    rma.get = NULL;
    CHECK(shmt_registry_check(&t, why, sizeof(why)) == SHMI_EINVAL);
    rma.get = shmt_ofi_ops.rma->get;
    coll.size = offsetof(shmt_coll_ops_t, put_tagged);
    CHECK(shmt_registry_check(&t, why, sizeof(why)) == SHMI_EINVAL);
    coll.size = sizeof(coll);
    t.rma = NULL; /* a network transport carries operations */
    CHECK(shmt_registry_check(&t, why, sizeof(why)) == SHMI_EINVAL);
    t.rma = &rma;
    t.ep_create = NULL;
    CHECK(shmt_registry_check(&t, why, sizeof(why)) == SHMI_EINVAL);
    /* The load/store transport needs neither. */
    CHECK(shmt_local_ops.rma == NULL && shmt_local_ops.ep_create == NULL &&
          shmt_registry_check(&shmt_local_ops, why, sizeof(why)) == 0);
}

int main(void)
{
    test_entries();
    test_too_small();
    test_parts();
    return check_end("unit_registry");
}
