/*
 * The handful of job-wide operations that prk/common and the kernels' setup
 * and validation need, implemented once per programming model:
 * prk/common/comm_shmem.c (OpenSHMEM) and prk/common/comm_mpi.c (MPI).
 * The kernels' data movement is not here: it is what each version is about
 * and lives in the kernel's own file.
 */
#ifndef PRK_COMM_H
#define PRK_COMM_H

/* Starts the programming model (shmem_init / MPI_Init). Returns 0, or
 * nonzero if it could not start (the caller exits non-zero). */
int prk_comm_init(int *argc, char ***argv);
void prk_comm_finalize(void);

int prk_comm_rank(void);
int prk_comm_size(void);
void prk_comm_barrier(void);

/* Values contributed by every PE, combined, returned to every PE. */
int prk_comm_max_int(int value);
double prk_comm_max_double(double value);
double prk_comm_sum_double(double value);

/* Short name of the model for the title line: "OpenSHMEM" or "MPI". */
const char *prk_comm_model(void);

#endif /* PRK_COMM_H */
