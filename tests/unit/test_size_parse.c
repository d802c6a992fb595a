/*
 * shmi_size_parse against the OpenSHMEM specification's SHMEM_SYMMETRIC_SIZE
 * text: its examples ("20m", "3.1m", "20kk"), every suffix in both cases,
 * the ceiling rule, and values that must be rejected.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "services/env.h"
#include "services/error.h"
#include "tests/common/check.h"

static void expect_ok(const char *text, uint64_t want)
{
    size_t got = 0;
    int rc = shmi_size_parse(text, &got);

    CHECK_MSG(rc == 0 && (uint64_t)got == want,
              "\"%s\": rc %d, got %zu, want %llu", text, rc, got,
              (unsigned long long)want);
}

static void expect_bad(const char *text)
{
    size_t got = 12345;
    int rc = shmi_size_parse(text, &got);

    CHECK_MSG(rc == SHMI_EINVAL && got == 12345,
              "\"%s\" accepted: rc %d, got %zu", text, rc, got);
}

int main(void)
{
    /* The specification's own examples. */
    expect_ok("20m", 20971520);
    expect_ok("3.1m", 3250586); /* ceiling of 3250585.6 */
    expect_bad("20kk");         /* only one multiplier is recognized */

    /* Every suffix, both cases, powers of 2. */
    expect_ok("1k", 1024);
    expect_ok("1K", 1024);
    expect_ok("1m", 1048576);
    expect_ok("1M", 1048576);
    expect_ok("2g", 2147483648ull);
    expect_ok("2G", 2147483648ull);
    expect_ok("1t", 1099511627776ull);
    expect_ok("1T", 1099511627776ull);

    /* Integers and floating values, with the integer ceiling. */
    expect_ok("1", 1);
    expect_ok("4096", 4096);
    expect_ok("1.5g", 1610612736ull);
    expect_ok(".5m", 524288);
    expect_ok("0.5", 1);
    expect_ok("2.", 2);
    expect_ok("1.0001k", 1025);        /* 1024.1024 rounds up */
    expect_ok("0.0009765625k", 1);     /* exactly 1 byte */
    expect_ok("0.00097656250001k", 2); /* a hair more: the ceiling */
    expect_ok("3.999999999999999999999999m", 4194304);
    expect_ok("007k", 7168);

    /* Invalid: empty, suffix only, sign, zero, junk, blanks, exponent,
     * unknown suffix, overflow. */
    expect_bad("");
    expect_bad("m");
    expect_bad("k");
    expect_bad(".");
    expect_bad(".m");
    expect_bad("-1");
    expect_bad("-1m");
    expect_bad("+1m");
    expect_bad("0");
    expect_bad("0.0m");
    expect_bad("bogus");
    expect_bad("12x");
    expect_bad("12 m");
    expect_bad(" 12m");
    expect_bad("12m ");
    expect_bad("1e6");
    expect_bad("1.2.3");
    expect_bad("1mb");
    expect_bad("1b");
    expect_bad("0x10");
    expect_bad("16777216t");               /* 2^64 */
    expect_bad("18446744073709551616");    /* 2^64 */
    expect_bad("99999999999999999999999"); /* integer part overflows */
    expect_ok("18446744073709551615", 18446744073709551615ull);
    expect_bad("18446744073709551615.5");
    /* 2^64 - 2^40 + ceil(2^40 * 0.9999999999) = 2^64 - 109 */
    expect_ok("16777215.9999999999t", 18446744073709551507ull);
    expect_bad("16777215.99999999999999999t"); /* rounds up to 2^64 */

    CHECK_MSG(shmi_size_parse(NULL, NULL) == SHMI_EINVAL, "NULL accepted");
    return check_end("test_size_parse");
}
