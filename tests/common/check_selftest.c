/*
 * check.h checked: what a failed check prints, what it counts and the
 * status a program ends with (tests/common/check_selftest.sh runs each
 * mode and reads the output).
 *
 *   check_selftest pass   checks that hold: no output on stderr, status 0
 *   check_selftest fail   as PE 3 on host "nodeA": one CHECK and one
 *                         CHECK_MSG fail, one of each holds; status 1
 *   check_selftest many   25 failed checks: 20 printed, all 25 counted
 */
#include <stdio.h>
#include <string.h>

#include "tests/common/check.h"

/* An inconsistency of check.h itself: status 3, which no mode expects. */
static int broken(const char *what)
{
    printf("check.h is broken: %s\n", what);
    return 3;
}

static int run_pass(void)
{
    int x = 4;

    if (CHECK(x == 4) != 1 || CHECK_MSG(x > 1, "x is %d", x) != 1)
        return broken("a check that holds did not return 1");
    if (check_failures() != 0)
        return broken("a check that holds was counted");
    return check_end("check_selftest");
}

static int run_fail(void)
{
    int x = 4;

    check_set_pe(3, "nodeA");
    if (CHECK(1 + 1 == 3) != 0)
        return broken("a failed CHECK did not return 0");
    CHECK(x == 4);
    if (CHECK_MSG(x == 5, "x is %d", x) != 0)
        return broken("a failed CHECK_MSG did not return 0");
    CHECK_MSG(x < 5, "x is %d", x);
    if (check_failures() != 2)
        return broken("two failed checks not counted as 2");
    return check_end("check_selftest");
}

static int run_many(void)
{
    for (int i = 0; i < 25; i++)
        CHECK_MSG(i < 0, "i is %d", i);
    if (check_failures() != 25)
        return broken("25 failed checks not counted as 25");
    return check_end("check_selftest");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    if (strcmp(mode, "pass") == 0)
        return run_pass();
    if (strcmp(mode, "fail") == 0)
        return run_fail();
    if (strcmp(mode, "many") == 0)
        return run_many();
    fprintf(stderr, "usage: check_selftest pass|fail|many\n");
    return 2;
}
