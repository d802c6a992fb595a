/*
 * The exchange of a singleton: what it puts, it alone reads back. A short
 * list is enough (a few keys per transport at start-up).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "boot/boot_pmix.h"
#include "services/error.h"

typedef struct local_blob {
    struct local_blob *next;
    char *key;
    size_t len;
    unsigned char data[]; /* len bytes */
} local_blob_t;

static local_blob_t *blobs;

static local_blob_t **find(const char *key)
{
    local_blob_t **b = &blobs;

    while (*b && strcmp((*b)->key, key) != 0)
        b = &(*b)->next;
    return b;
}

int shmi_boot_local_put(const char *key, const void *blob, size_t len)
{
    local_blob_t **slot = find(key);
    local_blob_t *b = malloc(sizeof(*b) + len);

    if (!b || !(b->key = strdup(key))) {
        free(b);
        return SHMI_ENOMEM;
    }
    b->len = len;
    memcpy(b->data, blob, len);
    /* A second put of a key replaces the first, as PMIx_Put does. */
    b->next = *slot ? (*slot)->next : NULL;
    if (*slot) {
        free((*slot)->key);
        free(*slot);
    }
    *slot = b;
    return 0;
}

int shmi_boot_local_get(const char *key, void *blob, size_t len)
{
    local_blob_t *b = *find(key);

    if (!b) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot", "nothing was published under %s", key);
        return SHMI_EIO;
    }
    if (b->len != len) {
        SHMI_LOG(SHMI_LOG_ERROR, "boot",
                 "%s: %zu bytes published, %zu "
                 "expected",
                 key, b->len, len);
        return SHMI_EIO;
    }
    memcpy(blob, b->data, len);
    return 0;
}

void shmi_boot_local_clear(void)
{
    while (blobs) {
        local_blob_t *next = blobs->next;

        free(blobs->key);
        free(blobs);
        blobs = next;
    }
}
