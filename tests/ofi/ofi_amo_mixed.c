/*
 * Atomic coherence across paths (docs/design.md, decision 6): on one node, half
 * of the PEs add to a word of PE 0 with CPU atomics through a shared
 * mapping of PE 0's heap while the other half add to the same word through
 * the provider's atomics (which the software providers apply in PE 0's
 * process). No update may be lost, which holds only if the provider applies
 * each atomic with a CPU atomic instruction (see the note in
 * transports/ofi/ofi_amo.c). Needs 2 or more PEs on one node.
 * With --emulate-amo the fabric side uses the compare-swap emulation.
 */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include "core/state.h"
#include "services/error.h"
#include "tests/ofi/ofi_test.h"
#include "transports/ofi/ofi_internal.h"

/* Fabric atomics per fabric PE (fewer when emulated: a compare-swap loop
 * retries while CPU atomics keep changing the word). */
static int t_iters = 3000;
#define T_OFF_WORD T_OFF_AMO
#define T_OFF_WORD32 (T_OFF_AMO + 16)
#define T_OFF_DONE (T_OFF_AMO + 32)  /* fabric PEs finished */
#define T_OFF_CPU (T_OFF_AMO + 48)   /* increments the CPU PEs made */

/* How long the CPU side changes the words at most. A compare-swap loop is
 * lock-free, not wait-free: each attempt needs the word unchanged for one
 * round trip, which a word incremented without pause may never give (with 4
 * PEs on 2 cores, whether it does is up to the scheduler). After this the
 * CPU side stops, so the emulated loops always finish; the overlap is still
 * real, and every fabric update applied meanwhile must survive. */
#define T_HAMMER_SECONDS 2

/* CPU atomics on PE 0's words while the fabric side runs (at most
 * T_HAMMER_SECONDS), so that both really overlap; returns how many
 * increments were made. */
static uint64_t hammer_cpu(char *heap0, int fabric_pes)
{
    uint64_t *w = (uint64_t *)(heap0 + T_OFF_WORD);
    uint32_t *w32 = (uint32_t *)(heap0 + T_OFF_WORD32);
    uint64_t *done = (uint64_t *)(heap0 + T_OFF_DONE);
    time_t stop = time(NULL) + T_HAMMER_SECONDS;
    uint64_t n = 0;

    while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < (uint64_t)fabric_pes) {
        if (time(NULL) < stop) {
            __atomic_fetch_add(w, 1, __ATOMIC_SEQ_CST);
            __atomic_fetch_add(w32, 1, __ATOMIC_SEQ_CST);
            n++;
        }
        if (n % 64 == 0 || time(NULL) >= stop) {
            t_ops->progress();
            sched_yield(); /* the fabric PEs share the cores */
        }
    }
    return n;
}

static void t_add(size_t off, shmi_amo_op_t op, shmi_dtype_t dt,
                  const void *v, void *old, int nbi)
{
    int ret = t_ops->atomic->amo(t_ep, 0, SHMI_SEG_HEAP, off, op, dt, v, NULL,
                                 old, nbi);

    T_CHECK(ret == 0, "amo: %s", shmi_strerror(ret));
}

static void hammer_fabric(void)
{
    uint64_t one = 1, old;
    uint32_t one32 = 1;

    for (int i = 0; i < t_iters; i++) {
        if (i % 8 == 0)
            t_add(T_OFF_WORD, SHMI_AMO_FETCH_ADD, SHMI_DT_UINT64, &one, &old,
                  0);
        else
            t_add(T_OFF_WORD, SHMI_AMO_ADD, SHMI_DT_UINT64, &one, NULL, 1);
        t_add(T_OFF_WORD32, SHMI_AMO_INC, SHMI_DT_UINT32, &one32, NULL, 1);
        if (i % 256 == 255)
            T_CHECK(t_ops->order->quiet(t_ep, -1) == 0, "quiet");
    }
    T_CHECK(t_ops->order->quiet(t_ep, -1) == 0, "quiet");
    t_add(T_OFF_DONE, SHMI_AMO_ADD, SHMI_DT_UINT64, &one, NULL, 0);
    T_CHECK(t_ops->order->quiet(t_ep, -1) == 0, "quiet");
}

static void check_total(uint64_t fabric_pes)
{
    uint64_t cpu = *t_word(T_OFF_CPU);
    uint64_t expect = (uint64_t)t_iters * fabric_pes + cpu;
    uint64_t got = __atomic_load_n(t_word(T_OFF_WORD), __ATOMIC_SEQ_CST);
    uint32_t got32 = __atomic_load_n((uint32_t *)(t_heap + T_OFF_WORD32),
                                     __ATOMIC_SEQ_CST);

    T_CHECK(got == expect && got32 == (uint32_t)expect,
            "lost updates: 64-bit word %llu, 32-bit word %u, expected %llu "
            "(%llu by CPU atomics; provider %s)",
            (unsigned long long)got, got32, (unsigned long long)expect,
            (unsigned long long)cpu, shmt_ofi.prov);
    printf("provider %s: %d PEs, %llu CPU and %llu fabric atomics on one "
           "word: no update lost\n",
           shmt_ofi.prov, t_npes, (unsigned long long)cpu,
           (unsigned long long)((uint64_t)t_iters * fabric_pes));
}

int main(int argc, char **argv)
{
    int fabric_pes, ret = t_setup(1);
    char *heap0;

    if (ret)
        return ret;
    /* --emulate-amo: the fabric side adds with compare-swap loops. */
    if (argc > 1 && strcmp(argv[1], "--emulate-amo") == 0) {
        shmt_ofi_amo_only_cswap();
        t_iters = 300;
    }
    if (shmi_state.boot.n_nodes != 1 || t_npes < 2) {
        t_teardown();
        printf("needs 2 or more PEs on one node\n");
        return 77;
    }
    fabric_pes = (t_npes + 1) / 2; /* the even PEs */
    heap0 = t_me == 0 ? t_heap : t_map_peer_heap(0);
    T_CHECK(heap0, "cannot map PE 0's heap");
    t_barrier();
    t_heap_unlink();
    if (t_me % 2) {
        uint64_t n = hammer_cpu(heap0, fabric_pes);

        t_add(T_OFF_CPU, SHMI_AMO_ADD, SHMI_DT_UINT64, &n, NULL, 0);
    } else {
        hammer_fabric();
    }
    t_barrier();
    if (t_me == 0)
        check_total((uint64_t)fabric_pes);
    if (t_me != 0)
        munmap(heap0, T_HEAP_SIZE);
    t_teardown();
    return 0;
}
