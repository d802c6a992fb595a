/*
 * Global and static variables are symmetric (data and bss): RMA and atomics
 * on them reach the same variable on the other PE, initialised data keeps
 * its value through start-up (the data segment may be remapped then), and
 * shmem_addr_accessible/shmem_ptr agree with where they live.
 * Argument "noremap": the case runs with SHMEM_DATA_REMAP=0, so shmem_ptr of
 * a global is NULL for other PEs (while RMA still works through the fabric).
 */
#include <stdint.h>
#include <string.h>

#include "tests/common/check_pes.h"

long global_array[1000];       /* bss */
int initialised_global = 1234; /* data */
static long static_counter;    /* bss, file scope */
static char big_bss[8 << 20];  /* a large bss: remapped without copying */

static void test_put_get(int me, int npes)
{
    static long function_static[4];
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    long v = 1000 + me;

    shmem_long_put(&global_array[me % 1000], &v, 1, next);
    shmem_long_p(&function_static[1], 77 + me, next);
    shmem_char_p(&big_bss[sizeof(big_bss) - 1], (char)(me + 1), next);
    shmem_barrier_all();
    CHECK(global_array[prev % 1000] == 1000 + prev);
    CHECK(function_static[1] == 77 + prev);
    CHECK(big_bss[sizeof(big_bss) - 1] == (char)(prev + 1));
    CHECK(shmem_int_g(&initialised_global, next) == 1234);
    shmem_long_atomic_inc(&static_counter, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(static_counter == npes);
}

static void test_queries(int me, int npes, int remap)
{
    long on_stack = 0;
    long *heap = shmem_malloc(64);

    for (int pe = 0; pe < npes; pe++) {
        void *p = shmem_ptr(global_array, pe);

        CHECK(shmem_addr_accessible(global_array, pe) == 1);
        CHECK(shmem_addr_accessible(&static_counter, pe) == 1);
        CHECK(shmem_addr_accessible(heap, pe) == 1);
        CHECK(shmem_addr_accessible(&on_stack, pe) == 0);
        CHECK(shmem_ptr(&on_stack, pe) == NULL);
        if (pe == me)
            CHECK(p == (void *)global_array);
        else if (!remap)
            CHECK(p == NULL);
    }
    CHECK(shmem_addr_accessible(global_array, npes) == 0);
    CHECK(shmem_addr_accessible(global_array, -1) == 0);
    if (remap && npes > 1) {
        /* Writes through the mapping are the owner's variable. */
        long *peer = shmem_ptr(&global_array[999], (me + 1) % npes);

        CHECK(peer != NULL);
        shmem_barrier_all();
        if (peer)
            *peer = 5000 + me;
        shmem_barrier_all();
        CHECK(global_array[999] == 5000 + (me + npes - 1) % npes);
    }
    shmem_free(heap);
}

int main(int argc, char **argv)
{
    int remap = !(argc > 1 && strcmp(argv[1], "noremap") == 0);
    int me, npes;

    shmem_init();
    check_set_pe(shmem_my_pe(), NULL);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(initialised_global == 1234);
    test_put_get(me, npes);
    test_queries(me, npes, remap);
    return check_pes_end("heap_static");
}
