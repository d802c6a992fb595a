/*
 * Calls one public routine outside the library's lifetime: before
 * shmem_init, or after shmem_finalize. tests/badinput/lifetime.sh runs it
 * once per routine of the table below and wants the job to end with
 * "ROUTINE: called before shmem_init" (or "... after shmem_finalize").
 *
 * The table holds every routine of scripts/routines.tsv that needs an
 * initialized library, and one typed routine per hand-written core entry
 * point of src/core/core_api.h (the typed wrappers hold no logic, so one
 * per entry point reaches every check). The routines the specification
 * allows at any time (shmem_query_initialized, shmem_info_get_version,
 * shmem_info_get_name, shmem_pcontrol, the deprecated cache no-ops) are
 * not in it: mode "allowed" calls them and must pass.
 *
 * Usage: lifetime before|after ROUTINE | lifetime allowed before|after |
 *        lifetime list   (one line per routine: its name, the name its
 *                         message gives)
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long sym[64];
static uint64_t sig;
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

typedef struct {
    const char *name;
    void (*call)(void);
} routine_t;

/* One call per line, so that the table reads as a list of routines. */
// clang-format off
static void r_query_thread(void) { int p; shmem_query_thread(&p); }
static void r_global_exit(void) { shmem_global_exit(3); }
static void r_my_pe(void) { printf("returned %d\n", shmem_my_pe()); }
static void r_n_pes(void) { printf("returned %d\n", shmem_n_pes()); }
static void r_pe_accessible(void) { printf("returned %d\n", shmem_pe_accessible(0)); }
static void r_addr_accessible(void) { printf("returned %d\n", shmem_addr_accessible(sym, 0)); }
static void r_ptr(void) { printf("returned %p\n", shmem_ptr(sym, 0)); }
static void r_team_ptr(void) { printf("returned %p\n", shmem_team_ptr(SHMEM_TEAM_WORLD, sym, 0)); }
static void r_my_pe_old(void) { printf("returned %d\n", _my_pe()); }
static void r_num_pes_old(void) { printf("returned %d\n", _num_pes()); }
static void r_malloc(void) { printf("returned %p\n", shmem_malloc(64)); }
static void r_calloc(void) { printf("returned %p\n", shmem_calloc(8, 8)); }
static void r_align(void) { printf("returned %p\n", shmem_align(64, 64)); }
static void r_realloc(void) { printf("returned %p\n", shmem_realloc(NULL, 64)); }
static void r_free(void) { shmem_free(sym); }
static void r_malloc_hints(void) { printf("returned %p\n", shmem_malloc_with_hints(64, 0)); }
static void r_ctx_create(void) { shmem_ctx_t c; printf("returned %d\n", shmem_ctx_create(0, &c)); }
static void r_ctx_destroy(void) { shmem_ctx_destroy(SHMEM_CTX_DEFAULT); }
static void r_ctx_get_team(void) { shmem_team_t t; printf("returned %d\n", shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t)); }
static void r_session_start(void) { shmem_ctx_session_start(SHMEM_CTX_DEFAULT, 0, NULL, 0); }
static void r_session_stop(void) { shmem_ctx_session_stop(SHMEM_CTX_DEFAULT); }
static void r_team_my_pe(void) { printf("returned %d\n", shmem_team_my_pe(SHMEM_TEAM_WORLD)); }
static void r_team_n_pes(void) { printf("returned %d\n", shmem_team_n_pes(SHMEM_TEAM_WORLD)); }
static void r_team_get_config(void) { shmem_team_config_t c; printf("returned %d\n", shmem_team_get_config(SHMEM_TEAM_WORLD, 0, &c)); }
static void r_team_translate_pe(void) { printf("returned %d\n", shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_SHARED)); }
static void r_team_split_strided(void) { shmem_team_t t; printf("returned %d\n", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &t)); }
static void r_team_split_2d(void) { shmem_team_t x, y; printf("returned %d\n", shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, &y)); }
static void r_team_destroy(void) { shmem_team_destroy(SHMEM_TEAM_WORLD); }
static void r_team_create_ctx(void) { shmem_ctx_t c; printf("returned %d\n", shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &c)); }
static void r_fence(void) { shmem_fence(); }
static void r_ctx_fence(void) { shmem_ctx_fence(SHMEM_CTX_DEFAULT); }
static void r_quiet(void) { shmem_quiet(); }
static void r_ctx_quiet(void) { shmem_ctx_quiet(SHMEM_CTX_DEFAULT); }
static void r_pe_quiet(void) { int pe = 0; shmem_pe_quiet(&pe, 1); }
static void r_ctx_pe_quiet(void) { int pe = 0; shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, &pe, 1); }
static void r_set_lock(void) { shmem_set_lock(sym); }
static void r_clear_lock(void) { shmem_clear_lock(sym); }
static void r_test_lock(void) { printf("returned %d\n", shmem_test_lock(sym)); }
static void r_signal_fetch(void) { printf("returned %lu\n", (unsigned long)shmem_signal_fetch(&sig)); }
static void r_signal_add(void) { shmem_signal_add(&sig, 1, 0); }
static void r_signal_set(void) { shmem_signal_set(&sig, 1, 0); }
static void r_signal_wait_until(void) { shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 0); }
/* In parentheses: the C11 generic macro of the same name would pick
 * shmem_long_wait_until. */
static void r_wait_until_old(void) { (shmem_wait_until)(sym, SHMEM_CMP_EQ, 0); }
static void r_barrier_all(void) { shmem_barrier_all(); }
static void r_sync_all(void) { shmem_sync_all(); }
static void r_team_sync(void) { printf("returned %d\n", shmem_team_sync(SHMEM_TEAM_WORLD)); }
static void r_barrier(void) { shmem_barrier(0, 0, 1, psync); }
static void r_sync(void) { shmem_sync(0, 0, 1, psync); }
static void r_put(void) { shmem_long_put(sym, sym + 8, 1, 0); }
static void r_ctx_put(void) { shmem_ctx_long_put(SHMEM_CTX_DEFAULT, sym, sym + 8, 1, 0); }
static void r_put_nbi(void) { shmem_long_put_nbi(sym, sym + 8, 1, 0); }
static void r_get(void) { shmem_long_get(sym + 8, sym, 1, 0); }
static void r_get_nbi(void) { shmem_long_get_nbi(sym + 8, sym, 1, 0); }
static void r_p(void) { shmem_long_p(sym, 1, 0); }
static void r_g(void) { printf("returned %ld\n", shmem_long_g(sym, 0)); }
static void r_iput(void) { shmem_long_iput(sym, sym + 8, 1, 1, 2, 0); }
static void r_iget(void) { shmem_long_iget(sym + 8, sym, 1, 1, 2, 0); }
static void r_ibput(void) { shmem_long_ibput(sym, sym + 8, 1, 1, 1, 2, 0); }
static void r_ibget(void) { shmem_long_ibget(sym + 8, sym, 1, 1, 1, 2, 0); }
static void r_atomic_add(void) { shmem_long_atomic_add(sym, 1, 0); }
static void r_atomic_fetch_add(void) { printf("returned %ld\n", shmem_long_atomic_fetch_add(sym, 1, 0)); }
static void r_atomic_fetch_nbi(void) { long v; shmem_long_atomic_fetch_nbi(&v, sym, 0); }
static void r_put_signal(void) { shmem_long_put_signal(sym, sym + 8, 1, &sig, 1, SHMEM_SIGNAL_SET, 0); }
static void r_put_signal_nbi(void) { shmem_long_put_signal_nbi(sym, sym + 8, 1, &sig, 1, SHMEM_SIGNAL_SET, 0); }
static void r_wait_until(void) { shmem_long_wait_until(sym, SHMEM_CMP_EQ, 0); }
static void r_wait_until_all(void) { shmem_long_wait_until_all(sym, 1, NULL, SHMEM_CMP_EQ, 0); }
static void r_test(void) { printf("returned %d\n", shmem_long_test(sym, SHMEM_CMP_EQ, 0)); }
static void r_test_any_vector(void) { long v = 0; printf("returned %zu\n", shmem_long_test_any_vector(sym, 1, NULL, SHMEM_CMP_EQ, &v)); }
static void r_sum_reduce(void) { printf("returned %d\n", shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sym, sym + 8, 1)); }
static void r_sum_scan(void) { printf("returned %d\n", shmem_long_sum_inscan(SHMEM_TEAM_WORLD, sym, sym + 8, 1)); }
static void r_broadcast(void) { printf("returned %d\n", shmem_long_broadcast(SHMEM_TEAM_WORLD, sym, sym + 8, 1, 0)); }
static void r_collect(void) { printf("returned %d\n", shmem_long_collect(SHMEM_TEAM_WORLD, sym, sym + 8, 1)); }
static void r_fcollect(void) { printf("returned %d\n", shmem_long_fcollect(SHMEM_TEAM_WORLD, sym, sym + 8, 1)); }
static void r_alltoall(void) { printf("returned %d\n", shmem_long_alltoall(SHMEM_TEAM_WORLD, sym, sym + 8, 1)); }
static void r_alltoalls(void) { printf("returned %d\n", shmem_long_alltoalls(SHMEM_TEAM_WORLD, sym, sym + 8, 1, 1, 1)); }
static void r_sum_to_all(void) { shmem_long_sum_to_all(sym, sym + 8, 1, 0, 0, 1, pwrk, psync); }
static void r_broadcast64(void) { shmem_broadcast64(sym, sym + 8, 1, 0, 0, 0, 1, psync); }
static void r_collect64(void) { shmem_collect64(sym, sym + 8, 1, 0, 0, 1, psync); }
static void r_fcollect64(void) { shmem_fcollect64(sym, sym + 8, 1, 0, 0, 1, psync); }
static void r_alltoall64(void) { shmem_alltoall64(sym, sym + 8, 1, 0, 0, 1, psync); }
static void r_alltoalls64(void) { shmem_alltoalls64(sym, sym + 8, 1, 1, 1, 0, 0, 1, psync); }
// clang-format on

static const routine_t routines[] = {
    {"shmem_query_thread", r_query_thread},
    {"shmem_global_exit", r_global_exit},
    {"shmem_my_pe", r_my_pe},
    {"shmem_n_pes", r_n_pes},
    {"shmem_pe_accessible", r_pe_accessible},
    {"shmem_addr_accessible", r_addr_accessible},
    {"shmem_ptr", r_ptr},
    {"shmem_team_ptr", r_team_ptr},
    {"_my_pe", r_my_pe_old},
    {"_num_pes", r_num_pes_old},
    {"shmem_malloc", r_malloc},
    {"shmem_calloc", r_calloc},
    {"shmem_align", r_align},
    {"shmem_realloc", r_realloc},
    {"shmem_free", r_free},
    {"shmem_malloc_with_hints", r_malloc_hints},
    {"shmem_ctx_create", r_ctx_create},
    {"shmem_ctx_destroy", r_ctx_destroy},
    {"shmem_ctx_get_team", r_ctx_get_team},
    {"shmem_ctx_session_start", r_session_start},
    {"shmem_ctx_session_stop", r_session_stop},
    {"shmem_team_my_pe", r_team_my_pe},
    {"shmem_team_n_pes", r_team_n_pes},
    {"shmem_team_get_config", r_team_get_config},
    {"shmem_team_translate_pe", r_team_translate_pe},
    {"shmem_team_split_strided", r_team_split_strided},
    {"shmem_team_split_2d", r_team_split_2d},
    {"shmem_team_destroy", r_team_destroy},
    {"shmem_team_create_ctx", r_team_create_ctx},
    {"shmem_fence", r_fence},
    {"shmem_ctx_fence", r_ctx_fence},
    {"shmem_quiet", r_quiet},
    {"shmem_ctx_quiet", r_ctx_quiet},
    {"shmem_pe_quiet", r_pe_quiet},
    {"shmem_ctx_pe_quiet", r_ctx_pe_quiet},
    {"shmem_set_lock", r_set_lock},
    {"shmem_clear_lock", r_clear_lock},
    {"shmem_test_lock", r_test_lock},
    {"shmem_signal_fetch", r_signal_fetch},
    {"shmem_signal_add", r_signal_add},
    {"shmem_signal_set", r_signal_set},
    {"shmem_signal_wait_until", r_signal_wait_until},
    {"shmem_wait_until", r_wait_until_old},
    {"shmem_barrier_all", r_barrier_all},
    {"shmem_sync_all", r_sync_all},
    {"shmem_team_sync", r_team_sync},
    {"shmem_barrier", r_barrier},
    {"shmem_sync", r_sync},
    {"shmem_long_put", r_put},
    {"shmem_ctx_long_put", r_ctx_put},
    {"shmem_long_put_nbi", r_put_nbi},
    {"shmem_long_get", r_get},
    {"shmem_long_get_nbi", r_get_nbi},
    {"shmem_long_p", r_p},
    {"shmem_long_g", r_g},
    {"shmem_long_iput", r_iput},
    {"shmem_long_iget", r_iget},
    {"shmem_long_ibput", r_ibput},
    {"shmem_long_ibget", r_ibget},
    {"shmem_long_atomic_add", r_atomic_add},
    {"shmem_long_atomic_fetch_add", r_atomic_fetch_add},
    {"shmem_long_atomic_fetch_nbi", r_atomic_fetch_nbi},
    {"shmem_long_put_signal", r_put_signal},
    {"shmem_long_put_signal_nbi", r_put_signal_nbi},
    {"shmem_long_wait_until", r_wait_until},
    {"shmem_long_wait_until_all", r_wait_until_all},
    {"shmem_long_test", r_test},
    {"shmem_long_test_any_vector", r_test_any_vector},
    {"shmem_long_sum_reduce", r_sum_reduce},
    {"shmem_long_sum_inscan", r_sum_scan},
    {"shmem_long_broadcast", r_broadcast},
    {"shmem_long_collect", r_collect},
    {"shmem_long_fcollect", r_fcollect},
    {"shmem_long_alltoall", r_alltoall},
    {"shmem_long_alltoalls", r_alltoalls},
    {"shmem_long_sum_to_all", r_sum_to_all},
    {"shmem_broadcast64", r_broadcast64},
    {"shmem_collect64", r_collect64},
    {"shmem_fcollect64", r_fcollect64},
    {"shmem_alltoall64", r_alltoall64},
    {"shmem_alltoalls64", r_alltoalls64},
};

enum { N_ROUTINES = sizeof routines / sizeof routines[0] };

/* The name the message gives: the pre-1.2 names share the implementation
 * (and so the message) of their successors. */
static const char *says(const char *name)
{
    if (!strcmp(name, "_my_pe"))
        return "shmem_my_pe";
    if (!strcmp(name, "_num_pes"))
        return "shmem_n_pes";
    return name;
}

/* The routines callable at any time: each must return normally, and the
 * query must say the library is not initialized. */
static int allowed(const char *when)
{
    char name[SHMEM_MAX_NAME_LEN];
    int major = 0, minor = 0, init = -1;

    if (!strcmp(when, "after")) {
        shmem_init();
        shmem_finalize();
    }
    shmem_query_initialized(&init);
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    shmem_pcontrol(1);
    shmem_udcflush();
    if (init != 0 || major != SHMEM_MAJOR_VERSION ||
        minor != SHMEM_MINOR_VERSION) {
        fprintf(stderr, "lifetime: initialized %d, version %d.%d\n", init,
                major, minor);
        return 1;
    }
    printf("lifetime: the any-time routines returned %s (%s)\n", when, name);
    return 0;
}

int main(int argc, char **argv)
{
    const char *when = argc > 1 ? argv[1] : "";
    const char *name = argc > 2 ? argv[2] : "";

    if (!strcmp(when, "allowed"))
        return allowed(name);
    if (!strcmp(when, "list")) {
        for (int i = 0; i < N_ROUTINES; i++)
            printf("%s %s\n", routines[i].name, says(routines[i].name));
        return 0;
    }
    for (int i = 0; i < N_ROUTINES; i++) {
        if (strcmp(routines[i].name, name) != 0)
            continue;
        if (!strcmp(when, "after")) {
            shmem_init();
            shmem_finalize();
        } else if (strcmp(when, "before") != 0) {
            break;
        }
        routines[i].call();
        printf("lifetime: %s %s returned\n", name, when);
        return 0;
    }
    fprintf(
        stderr,
        "usage: lifetime before|after ROUTINE | allowed before|after | list\n");
    return 2;
}
