/*
 * Programs started with start_pes that end without shmem_finalize. The
 * specification of start_pes: the library is finalized implicitly when the
 * program exits; implicit finalization is collective and includes a global
 * synchronization that completes all pending communication. Run by
 * tests/launch/start_pes.sh, which judges the exit status and the output.
 *
 *   start_pes_exit lines [exit]   every PE prints LINES lines after its last
 *                                 synchronization, PE 0 only after a pause;
 *                                 then returns from main (or calls exit(0))
 *   start_pes_exit collective F   each PE puts a block into its right
 *                                 neighbour's symmetric array (non-blocking,
 *                                 no quiet, PE 0 after a pause) and returns
 *                                 at once; a handler registered before
 *                                 start_pes (so it runs after the implicit
 *                                 finalize) checks the block that arrived
 *                                 and appends to file F, as main's end does
 *   start_pes_exit status N       every PE calls exit(N)
 *   start_pes_exit fail N         PE 2 calls exit(N) while the others wait
 *                                 in a barrier, which must not let them by
 *   start_pes_exit finalize       start_pes, then shmem_finalize explicitly
 *   start_pes_exit global_exit N  PE 1 calls shmem_global_exit(N) while the
 *                                 others wait in a barrier
 *   start_pes_exit fork           every PE forks a child that calls exit(0)
 *                                 (it is not a PE: no finalize there)
 *   start_pes_exit init           shmem_init, then returns without
 *                                 shmem_finalize (finalized at exit too,
 *                                 with a warning)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

#define LINES      5
#define PAUSE_MS   400
#define BLOCK_SIZE (256 * 1024)

static char inbox[BLOCK_SIZE];  /* symmetric: written by the left neighbour */
static char outbox[BLOCK_SIZE]; /* what this PE sends */
static const char *order_file;
static int me = -1, npes = -1;

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

static char pattern(int pe, size_t i)
{
    return (char)(pe * 31 + (int)(i % 251) + 1);
}

/* One line appended with one write: lines of all PEs keep their order. */
static void append(const char *what)
{
    char line[128];
    int fd = open(order_file, O_WRONLY | O_APPEND);
    int len;

    if (fd < 0) {
        perror(order_file);
        _exit(4);
    }
    len = snprintf(line, sizeof(line), "%s %d\n", what, me);
    if (write(fd, line, (size_t)len) != len)
        _exit(4);
    close(fd);
}

/* Registered before start_pes: runs after the implicit finalize, when
 * every PE has reached it and the traffic into this PE has completed. */
static void after_finalize(void)
{
    int left = (me + npes - 1) % npes;

    for (size_t i = 0; i < BLOCK_SIZE; i++) {
        if (inbox[i] != pattern(left, i)) {
            fprintf(stderr, "FAIL: PE %d: byte %zu from PE %d is %d, not %d\n",
                    me, i, left, inbox[i], pattern(left, i));
            append("incomplete");
            return;
        }
    }
    append("finalized");
}

static int run_collective(void)
{
    if (atexit(after_finalize) != 0)
        return 3;
    start_pes(0);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (size_t i = 0; i < BLOCK_SIZE; i++)
        outbox[i] = pattern(me, i);
    shmem_barrier_all(); /* the last synchronization of the program */
    if (me == 0)
        pause_ms(PAUSE_MS);
    shmem_putmem_nbi(inbox, outbox, BLOCK_SIZE, (me + 1) % npes);
    append("exiting");
    return 0;
}

static int run_lines(int call_exit)
{
    start_pes(0);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_barrier_all(); /* the last synchronization of the program */
    if (me == 0)
        pause_ms(PAUSE_MS); /* a PE killed now would lose every line */
    for (int i = 0; i < LINES; i++)
        printf("PE %d of %d line %d\n", me, npes, i);
    if (call_exit)
        exit(0);
    return 0;
}

static int run_fork(void)
{
    int st = -1;
    pid_t child;

    start_pes(0);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    fflush(stdout);
    child = fork();
    if (child == 0)
        exit(0); /* runs the exit handlers it inherited */
    if (child < 0 || waitpid(child, &st, 0) != child || st != 0) {
        fprintf(stderr, "FAIL: PE %d: child status %d\n", me, st);
        return 1;
    }
    shmem_barrier_all();
    printf("PE %d of %d line 0\n", me, npes);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *arg = argc > 2 ? argv[2] : "";

    setvbuf(stdout, NULL, _IOFBF, 4096); /* lines stay buffered until exit */
    if (strcmp(mode, "lines") == 0)
        return run_lines(strcmp(arg, "exit") == 0);
    if (strcmp(mode, "collective") == 0 && *arg) {
        order_file = arg;
        return run_collective();
    }
    if (strcmp(mode, "fork") == 0)
        return run_fork();
    if (strcmp(mode, "status") == 0) {
        start_pes(0);
        shmem_barrier_all();
        exit(atoi(arg));
    }
    if (strcmp(mode, "fail") == 0) {
        start_pes(0);
        shmem_barrier_all();
        if (shmem_my_pe() == 2)
            exit(atoi(arg));
        shmem_barrier_all(); /* ended by PE 2's exit */
        printf("PE %d passed the barrier\n", shmem_my_pe());
        return 0;
    }
    if (strcmp(mode, "finalize") == 0) {
        start_pes(0);
        me = shmem_my_pe();
        shmem_finalize();
        printf("PE %d finalized\n", me);
        return 0;
    }
    if (strcmp(mode, "global_exit") == 0) {
        start_pes(0);
        if (shmem_my_pe() == 1)
            shmem_global_exit(atoi(arg));
        shmem_barrier_all(); /* ended by PE 1 */
        return 0;
    }
    if (strcmp(mode, "init") == 0) {
        shmem_init();
        shmem_barrier_all();
        return 0;
    }
    fprintf(stderr,
            "usage: start_pes_exit lines [exit] | collective FILE | "
            "status N | fail N | finalize | global_exit N | fork | init\n");
    return 2;
}
