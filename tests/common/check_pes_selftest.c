/*
 * check_pes.h checked: PE 1 fails one check (or none with "pass"); the
 * closing line on PE 0 counts it and every PE exits with status 1, so the
 * launcher reports the failure although PE 0 saw none
 * (tests/common/common.cases).
 */
#include <string.h>

#include "tests/common/check_pes.h"

int main(int argc, char **argv)
{
    int fail = !(argc > 1 && strcmp(argv[1], "pass") == 0);
    int me;

    shmem_init();
    me = shmem_my_pe();
    check_set_pe(me, NULL);
    CHECK(shmem_n_pes() >= 2);
    CHECK_MSG(!(fail && me == 1), "PE %d fails on purpose", me);
    return check_pes_end("check_pes_selftest");
}
