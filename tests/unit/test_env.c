/*
 * The environment table: defaults, SHMEM_ and SMA_ names, SHMEM_ taking
 * precedence, each type's parser, and the message of a bad value.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services/env.h"
#include "services/error.h"
#include "tests/common/check.h"

/* Removes every variable the table knows under both prefixes. */
static void clear_env(void)
{
    static const char *const names[] = {
#define SHMI_ENV(NAME, TYPE, DEFAULT, CATEGORY, HELP) #NAME,
#include "services/env_table.h"
#undef SHMI_ENV
    };
    char buf[128];

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(buf, sizeof(buf), "SHMEM_%s", names[i]);
        unsetenv(buf);
        snprintf(buf, sizeof(buf), "SMA_%s", names[i]);
        unsetenv(buf);
    }
}

static int load(char *err, size_t len)
{
    err[0] = '\0';
    return shmi_env_load(err, len);
}

/* A bad value: SHMI_EINVAL, the message names variable, value and form,
 * and the previous values stay. */
static void expect_bad(const char *var, const char *value, const char *form)
{
    char err[512];
    size_t before = shmi_env.SYMMETRIC_SIZE;

    setenv(var, value, 1);
    CHECK(load(err, sizeof(err)) == SHMI_EINVAL);
    CHECK_MSG(strstr(err, var) && strstr(err, value) && strstr(err, form),
              "message for %s=%s: \"%s\"", var, value, err);
    CHECK(shmi_env.SYMMETRIC_SIZE == before);
    unsetenv(var);
}

static void test_defaults(void)
{
    char err[512];

    clear_env();
    CHECK(load(err, sizeof(err)) == 0);
    CHECK(shmi_env.SYMMETRIC_SIZE == 256u << 20);
    CHECK(shmi_env.LOCAL == 1);
    CHECK(shmi_env.DEBUG == 0);
    CHECK(shmi_env.OFI_PROVIDER != NULL && shmi_env.OFI_PROVIDER[0] == '\0');
    CHECK(shmi_env.BIND != NULL && !strcmp(shmi_env.BIND, "none"));
    CHECK(shmi_env.WAIT_SPIN == 2000);
}

static void test_prefixes(void)
{
    char err[512];

    clear_env();
    setenv("SMA_SYMMETRIC_SIZE", "1m", 1);
    CHECK(load(err, sizeof(err)) == 0);
    CHECK(shmi_env.SYMMETRIC_SIZE == 1u << 20);

    setenv("SHMEM_SYMMETRIC_SIZE", "3.1m", 1); /* SHMEM_ wins */
    CHECK(load(err, sizeof(err)) == 0);
    CHECK(shmi_env.SYMMETRIC_SIZE == 3250586);

    /* SHMEM_ wins even when SMA_ is bad: the SMA_ value is never read. */
    setenv("SMA_SYMMETRIC_SIZE", "bogus", 1);
    CHECK(load(err, sizeof(err)) == 0);
    CHECK(shmi_env.SYMMETRIC_SIZE == 3250586);
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    CHECK(load(err, sizeof(err)) == SHMI_EINVAL);
    CHECK(strstr(err, "SMA_SYMMETRIC_SIZE") != NULL);
    clear_env();

    setenv("SHMEM_OFI_PROVIDER", "tcp;ofi_rxm", 1);
    setenv("SMA_OFI_PROVIDER", "shm", 1);
    setenv("SMA_WAIT_SPIN", "5", 1);
    CHECK(load(err, sizeof(err)) == 0);
    setenv("SHMEM_OFI_PROVIDER", "changed", 1); /* the loaded copy stays */
    CHECK(!strcmp(shmi_env.OFI_PROVIDER, "tcp;ofi_rxm"));
    CHECK(shmi_env.WAIT_SPIN == 5);
    clear_env();
}

static void test_types(void)
{
    char err[512];

    clear_env();
    setenv("SHMEM_LOCAL", "no", 1);
    setenv("SHMEM_BIND", "numa", 1);
    CHECK(load(err, sizeof(err)) == 0);
    CHECK(shmi_env.LOCAL == 0);
    CHECK(!strcmp(shmi_env.BIND, "numa"));
    setenv("SHMEM_LOCAL", "ON", 1);
    CHECK(load(err, sizeof(err)) == 0);
    CHECK(shmi_env.LOCAL == 1);
    clear_env();

    /* The specification's "Any" variables: set means on. */
    setenv("SHMEM_INFO", "please", 1);
    setenv("SMA_VERSION", "", 1);
    CHECK(load(err, sizeof(err)) == 0);
    CHECK(shmi_env.INFO == 1);
    CHECK(shmi_env.VERSION == 1);
    clear_env();

    /* SHMEM_DEBUG turns debug logging on. */
    shmi_log_level = SHMI_LOG_WARN;
    setenv("SHMEM_DEBUG", "1", 1);
    CHECK(load(err, sizeof(err)) == 0);
    CHECK(shmi_env.DEBUG == 1);
    CHECK(shmi_log_level == SHMI_LOG_DEBUG);
    shmi_log_level = SHMI_LOG_WARN;
    clear_env();
    CHECK(load(err, sizeof(err)) == 0);
}

static void test_bad_values(void)
{
    expect_bad("SHMEM_SYMMETRIC_SIZE", "bogus", "k/K, m/M, g/G or t/T");
    expect_bad("SHMEM_SYMMETRIC_SIZE", "-1m", "positive");
    expect_bad("SHMEM_SYMMETRIC_SIZE", "m", "suffix");
    expect_bad("SHMEM_SYMMETRIC_SIZE", "20kk", "suffix");
    expect_bad("SHMEM_SYMMETRIC_SIZE", "99999999t", "positive");
    expect_bad("SMA_SYMMETRIC_SIZE", "0", "positive");
    expect_bad("SHMEM_LOCAL", "maybe", "yes/no");
    expect_bad("SHMEM_WAIT_SPIN", "12abc", "decimal integer");
    expect_bad("SHMEM_WAIT_SPIN", "99999999999999999999999", "decimal integer");
    /* Integers outside their SHMI_ENV_RANGE of env_table.h. */
    expect_bad("SHMEM_WAIT_SPIN", "-1", "decimal integer of at least 0");
    expect_bad("SHMEM_DEVICE_ID", "-7", "decimal integer of at least -1");
    expect_bad("SHMEM_KERNEL_RING", "65537", "decimal integer from 2 to 65536");
    expect_bad("SHMEM_BIND", "socket", "core|numa|none");
    expect_bad("SHMEM_BIND", "cor", "core|numa|none");
}

static void test_print(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    CHECK(f != NULL);
    if (!f)
        return;
    setenv("SHMEM_SYMETRIC_SIZE", "1m", 1); /* a typo is reported */
    shmi_env_print(f);
    unsetenv("SHMEM_SYMETRIC_SIZE");
    shmi_env_print_markdown(f);
    fclose(f);
    CHECK(strstr(buf, "SHMEM_SYMMETRIC_SIZE") != NULL);
    CHECK(strstr(buf, "256m (268435456 bytes)") != NULL);
    CHECK(strstr(buf, "ignored]\n    SHMEM_SYMETRIC_SIZE\n") != NULL);
    CHECK(strstr(buf, "| `SHMEM_BIND` | `none` |") != NULL);
    CHECK(strstr(buf, "core\\|numa\\|none") != NULL);
    free(buf);
}

int main(void)
{
    test_defaults();
    test_prefixes();
    test_types();
    test_bad_values();
    test_print();
    return check_end("test_env");
}
