/*
 * The transport registry (transports/registry.c): every entry is accepted
 * by the size check and has every member set (the stubs of
 * transports/transport_stubs.c fill what a transport does not provide); a
 * table built against a smaller contract is refused with a message naming
 * it; the stubs answer SHMI_ENOSYS.
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
                      t->ep_create && t->ep_destroy && t->put && t->get &&
                      t->amo && t->put_signal && t->fence && t->quiet &&
                      t->progress && t->check_unused && t->started && t->caps &&
                      t->mapped_base,
                  "%s has a NULL member", t->name);
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
    old.size = offsetof(shmt_ops_t, caps); /* built before caps existed */
    CHECK(shmt_registry_check(&old, why, sizeof(why)) == SHMI_EINVAL);
    CHECK_MSG(strstr(why, "\"old\"") != NULL, "why: %s", why);
    old.size = SHMT_OPS_MIN_SIZE - 1;
    CHECK(shmt_registry_check(&old, why, sizeof(why)) == SHMI_EINVAL);
    old.size = SHMT_OPS_MIN_SIZE;
    CHECK(shmt_registry_check(&old, why, sizeof(why)) == 0);
}

static void test_stubs(void)
{
    char buf[8];

    CHECK(shmt_stub_put(NULL, 0, SHMI_SEG_HEAP, 0, buf, 8, 0) == SHMI_ENOSYS);
    CHECK(shmt_stub_get(NULL, 0, SHMI_SEG_HEAP, 0, buf, 8, 1) == SHMI_ENOSYS);
    CHECK(shmt_stub_amo(NULL, 0, SHMI_SEG_HEAP, 0, SHMI_AMO_ADD,
                        SHMI_DT_INT64, buf, NULL, NULL, 0) == SHMI_ENOSYS);
    CHECK(shmt_stub_fence(NULL) == SHMI_ENOSYS);
    CHECK(shmt_stub_quiet(NULL, -1) == SHMI_ENOSYS);
    CHECK(shmt_stub_put_signal(NULL, 0, SHMI_SEG_HEAP, 0, buf, 8, SHMI_SEG_HEAP,
                               8, 1, SHMI_AMO_ADD, 0) == SHMI_ENOSYS);
    {
        shmt_ep_t *ep = NULL;

        CHECK(shmt_stub_ep_create(0, NULL, &ep) == SHMI_ENOSYS && ep == NULL);
        shmt_stub_ep_destroy(ep);
    }
    CHECK(shmt_stub_mapped_base(0, SHMI_SEG_HEAP) == NULL);
    shmt_stub_check_unused(NULL);
    shmt_stub_started();
    shmt_stub_progress();
}

int main(void)
{
    test_entries();
    test_too_small();
    test_stubs();
    return check_end("unit_registry");
}
