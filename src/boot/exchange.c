/*
 * The one-time exchange: PMIx_Put / Commit / Fence(collect) / Get of byte
 * blobs. A singleton keeps its own blobs here instead, so the exchange works
 * even where PMIx without a server refuses some of these calls.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boot/boot_pmix.h"
#include "services/error.h"

/* Keys are prefixed so that Weft's never collide with a launcher's. */
static int full_key(const char *key, pmix_key_t out)
{
    size_t n = strlen(key);

    if (n == 0 || n + 5 > PMIX_MAX_KEYLEN)
        return SHMI_EINVAL;
    memcpy(out, "weft.", 5);
    memcpy(out + 5, key, n + 1);
    return 0;
}

static int check_state(void)
{
    if (!shmi_boot_pmix.connected || shmi_boot_pmix.finalized)
        return SHMI_ESTATE;
    return 0;
}

int shmi_boot_put(const char *key, const void *blob, size_t len)
{
    pmix_key_t k;
    pmix_value_t val;
    pmix_status_t rc;
    int ret = check_state();

    if (!ret)
        ret = full_key(key, k);
    if (ret)
        return ret;
    if (shmi_boot_pmix.singleton)
        return shmi_boot_local_put(k, blob, len);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)blob; /* PMIx_Put copies it */
    val.data.bo.size = len;
    rc = PMIx_Put(PMIX_GLOBAL, k, &val);
    if (rc != PMIX_SUCCESS) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot", "PMIx_Put(%s, %zu bytes): %s", k, len,
                 PMIx_Error_string(rc));
        return SHMI_EIO;
    }
    return 0;
}

int shmi_boot_fence(void)
{
    pmix_info_t info;
    bool yes = true;
    pmix_status_t rc;
    int ret = check_state();

    if (ret || shmi_boot_pmix.singleton)
        return ret;
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot", "PMIx_Commit: %s",
                 PMIx_Error_string(rc));
        return SHMI_EIO;
    }
    /* Collecting makes every later Get local: no per-key server round. */
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        /* Usually a PE died while the job starts. The launcher then stops
         * the job and names that PE; our own error, sooner, would end the
         * job in our name and hide which PE it was. */
        struct timespec grace = {1, 0};

        nanosleep(&grace, NULL);
        SHMI_LOG(SHMI_LOG_ERROR, "boot",
                 "PMIx_Fence: %s (did a PE end during start-up?)",
                 PMIx_Error_string(rc));
        return SHMI_EIO;
    }
    return 0;
}

int shmi_boot_get(int pe, const char *key, void *blob, size_t len)
{
    pmix_key_t k;
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    int ret = check_state();

    if (!ret)
        ret = full_key(key, k);
    if (ret)
        return ret;
    if (shmi_boot_pmix.singleton)
        return pe == 0 ? shmi_boot_local_get(k, blob, len) : SHMI_ERANGE;
    PMIX_LOAD_PROCID(&proc, shmi_boot_pmix.me.nspace, (pmix_rank_t)pe);
    rc = PMIx_Get(&proc, k, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || !val) {
        shmi_boot_check_left(pe);
        SHMI_LOG(SHMI_LOG_ERROR, "boot", "PMIx_Get(pe %d, %s): %s", pe, k,
                 PMIx_Error_string(rc));
        return SHMI_EIO;
    }
    if (val->type != PMIX_BYTE_OBJECT || val->data.bo.size != len) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot",
                 "PMIx_Get(pe %d, %s): %zu bytes "
                 "published, %zu expected",
                 pe, k, val->type == PMIX_BYTE_OBJECT ? val->data.bo.size : 0,
                 len);
        ret = SHMI_EIO;
    } else {
        memcpy(blob, val->data.bo.bytes, len);
    }
    PMIX_VALUE_RELEASE(val);
    return ret;
}
