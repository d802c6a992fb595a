/*
 * Code shared by every Parallel Research Kernel of prk/, in both versions
 * (OpenSHMEM and MPI): argument parsing, block decomposition, the clock,
 * the agreed error exit and the output lines that parsers rely on.
 *
 * Nothing here calls OpenSHMEM or MPI directly; the few collective
 * operations the kernels need outside their main loop go through
 * prk/common/prk_comm.h, which each version implements once.
 */
#ifndef PRK_H
#define PRK_H

#include <stddef.h>

/* First line of every kernel's output (parsers key on it). */
#define PRK_VERSION "2.17"

/* Longest message a kernel passes to prk_agree_error(). */
#define PRK_MSG_MAX 256

/* Seconds from a monotonic clock. */
double prk_wtime(void);

/*
 * Parses a decimal integer that must fill the whole string.
 * Returns 0 and sets *out, or -1 on an empty, non-numeric or out-of-range
 * string (*out untouched).
 */
int prk_parse_long(const char *text, long *out);

/*
 * Block decomposition of n points over parts: the first (n mod parts) parts
 * get floor(n/parts)+1 points, the others floor(n/parts), contiguous.
 * Sets *start to the first point of part k and returns its point count.
 */
long prk_block(long n, int parts, int k, long *start);

/* Largest block size of prk_block(n, parts, ...): ceil(n/parts). */
long prk_block_max(long n, int parts);

/*
 * Agrees on an error among all PEs: returns nonzero on every PE if any PE
 * passed local_err != 0. PE 0 then prints one line "ERROR: <msg>" (its own
 * msg, or a generic one when only another PE failed).
 */
int prk_agree_error(int local_err, const char *msg);

/* Prints (on PE 0 only) the banner and the kernel's title line. */
void prk_banner(const char *title);

/*
 * Reduces a PE's elapsed time of the timed sweeps to the job's maximum and
 * returns the average time per iteration (the rule shared by all kernels).
 */
double prk_avgtime(double local_elapsed, long iterations);

/*
 * The timing rule of every kernel: runs sweep(ctx, iter) for iter = 0 ..
 * iterations (sweep 0 warms up), with a barrier and the start of the clock
 * at the top of sweep 1. Returns this PE's elapsed seconds of the timed
 * sweeps (for prk_avgtime).
 */
double prk_timed_sweeps(long iterations, void (*sweep)(void *ctx, long iter),
                        void *ctx);

/* Allocates count elements of size bytes (NULL on overflow or failure);
 * large arrays get 2 MiB alignment and transparent huge pages where the
 * system offers them. Both versions of every kernel allocate through it. */
void *prk_alloc(size_t count, size_t size);

#endif /* PRK_H */
