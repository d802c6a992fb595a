/*
 * The checks of every test program. CHECK(cond) and CHECK_MSG(cond, fmt,
 * ...) capture the place of a failed check and hand it to a function; a
 * failed check prints
 *
 *   FAIL [PE n[ (host)]: ]file:line: check failed: cond[: message]
 *
 * on stderr (scripts that run the programs look for "FAIL") and is
 * counted. The message carries the values a reader needs to see why. A
 * process prints its first CHECK_PRINT_MAX failures and counts them all, so
 * that a loop that fails on every element does not bury the first one.
 *
 * check_end() closes a program of one process with
 * "name: passed|FAILED (N failed checks)" and returns its exit status;
 * programs of several PEs close with check_pes_end() (check_pes.h).
 *
 * No library of the project is needed: unit tests of the internals, the
 * bootstrap alone and OpenSHMEM programs all use this header.
 */
#ifndef WEFT_TESTS_COMMON_CHECK_H
#define WEFT_TESTS_COMMON_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#define CHECK_PRINT_MAX 20 /* failures printed per process; all are counted */

typedef struct check_state {
    int failures;     /* failed checks of this process so far */
    int pe;           /* printed before the place when >= 0 */
    const char *host; /* printed after the PE when not NULL (not owned) */
} check_state_t;

/* One per program (each test program is one translation unit). */
static check_state_t check_state = {0, -1, NULL};

/* Names this process in the failures printed from now on; host may be
 * NULL, else must stay valid (tests/multinode passes its hostname). */
static inline void check_set_pe(int pe, const char *host)
{
    check_state.pe = pe;
    check_state.host = host;
}

/* The failed checks of this process so far. */
static inline int check_failures(void)
{
    return __atomic_load_n(&check_state.failures, __ATOMIC_RELAXED);
}

static inline void check_vfail(const char *file, int line, const char *expr,
                               const char *fmt, va_list *ap)
{
    /* Atomic: the threads of one PE may check at once (dp_threads). */
    int n = __atomic_fetch_add(&check_state.failures, 1, __ATOMIC_RELAXED);

    if (n >= CHECK_PRINT_MAX)
        return;
    fputs("FAIL ", stderr);
    if (check_state.pe >= 0 && check_state.host != NULL)
        fprintf(stderr, "PE %d (%s): ", check_state.pe, check_state.host);
    else if (check_state.pe >= 0)
        fprintf(stderr, "PE %d: ", check_state.pe);
    fprintf(stderr, "%s:%d: check failed: %s", file, line, expr);
    if (fmt != NULL) {
        fputs(": ", stderr);
        vfprintf(stderr, fmt, *ap);
    }
    fputc('\n', stderr);
    if (n == CHECK_PRINT_MAX - 1)
        fprintf(stderr, "FAIL (further failed checks are counted, not "
                        "printed)\n");
}

/* Counts and prints a failed check; returns 0 (the value of the check). */
static inline int check_fail_at(const char *file, int line, const char *expr)
{
    check_vfail(file, line, expr, NULL, NULL);
    return 0;
}

/* The same with a message (printf format and arguments). */
static inline int check_fail_msg_at(const char *file, int line,
                                    const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline int check_fail_msg_at(const char *file, int line,
                                    const char *expr, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    check_vfail(file, line, expr, fmt, &ap);
    va_end(ap);
    return 0;
}

/* 1 when cond holds, else 0 after the failure is counted and printed, so a
 * test can skip what depends on a failed check. cond is evaluated first and
 * once; the message's arguments only when it fails, so they may read what
 * cond computed (CHECK_MSG((d = diff(...)) == n, "byte %zu", d)). */
#define CHECK(cond) ((cond) ? 1 : check_fail_at(__FILE__, __LINE__, #cond))
#define CHECK_MSG(cond, ...)                                                   \
    ((cond) ? 1 : check_fail_msg_at(__FILE__, __LINE__, #cond, __VA_ARGS__))

/* Prints "name: passed|FAILED (N failed checks[, N PEs])" for failed
 * checks counted over npes PEs (npes < 0: one process) and returns the
 * exit status: 0 when none failed, else 1. */
static inline int check_summary(const char *name, int failed, int npes)
{
    if (npes >= 0)
        printf("%s: %s (%d failed checks, %d PEs)\n", name,
               failed ? "FAILED" : "passed", failed, npes);
    else
        printf("%s: %s (%d failed checks)\n", name,
               failed ? "FAILED" : "passed", failed);
    fflush(stdout);
    return failed ? 1 : 0;
}

/* The closing line and exit status of a program of one process. */
static inline int check_end(const char *name)
{
    return check_summary(name, check_failures(), -1);
}

#endif /* WEFT_TESTS_COMMON_CHECK_H */
