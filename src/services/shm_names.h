/*
 * The names that POSIX shared-memory objects of SHMEM_HEAP_OBJECT=posix
 * hold in /dev/shm ("weft-<job>-<rank>-<pid>-<tag>", made by
 * src/core/heap/shm_object.c), and how none of them outlives its job. A
 * service, below the heap that makes the names and the bootstrap whose
 * abort path removes them (shmi_shm_names_abandon).
 *
 * A name exists from its creation until every PE of the node has opened
 * the object, i.e. during start-up only. A PE that dies in that window
 * cannot remove its own name, and the launcher that then ends the others
 * (srun, mpirun) knows nothing of /dev/shm. So, while this process holds a
 * name:
 *  - a termination signal (SIGTERM, SIGINT, SIGHUP, as launchers send
 *    before SIGKILL) or a fault (only where its action is the default one)
 *    removes this process's names and the names
 *    of this job whose creator no longer exists (a peer killed outright),
 *    then chains to the previous disposition;
 *  - exit() and the fatal path (shmi_abort_hook), after which the launcher
 *    kills every PE outright (srun sends SIGKILL after a PMIx_Abort),
 *    remove every name of this job on this node: no PE will need them.
 * The handlers exist only during that window and are removed afterwards
 * (unless the program replaced them meanwhile): no cost after start-up.
 * What no process of the node lives to see (every PE of the node killed
 * with SIGKILL at once: the OOM killer, scancel -s KILL, an abort from a PE
 * of another node; or a PE still in start-up that makes its name after the
 * PE ending the job has stopped sweeping, then gets srun's SIGKILL) is
 * swept at the next start that uses names there: names
 * of this user that Weft made, whose creator is gone, and older than any
 * start-up (so that a job in another pid namespace is never touched).
 */
#ifndef SHMI_SHM_NAMES_H
#define SHMI_SHM_NAMES_H

#include <stddef.h>

/* Room for the job part of a name, with its '\0'. */
#define SHMI_SHM_JOB_MAX 40

/* The job part of a name: jobid (the PMIx namespace) with only its
 * [A-Za-z0-9] characters, at most SHMI_SHM_JOB_MAX - 1 of them. */
void shmi_shm_name_job(const char *jobid, char job[SHMI_SHM_JOB_MAX]);

/* Starts guarding name (with its leading '/'), just created by this process
 * as fd, for the job whose name part is job (src/core/heap/shm_object.c). */
void shmi_shm_names_hold(const char *name, const char *job, int fd);

/* Stops guarding name (its owner unlinked it); the last one removes the
 * signal handlers. */
void shmi_shm_names_drop(const char *name);

/*
 * The job jobid (a PMIx namespace) ends now, by an abort: removes every
 * name of that job in /dev/shm of this user, whichever PE of this node made
 * it. For a PE that ends the job before it holds any name itself (an exit
 * before shmem_init, after the others' first fence). Async-signal-safe.
 */
void shmi_shm_names_abandon(const char *jobid);

/* Removes the names Weft left behind in /dev/shm: this user's, of a creator
 * that does not exist and that are older than start-up can last. */
void shmi_shm_names_sweep(void);

/*
 * Parses a name of the form "weft-<job>-<rank>-<pid>-<tag>" (without the
 * leading '/'): returns the pid and sets *job_len to the length of <job>,
 * or returns 0 when name is not of that form. Async-signal-safe.
 */
long shmi_shm_name_pid(const char *name, size_t *job_len);

#endif /* SHMI_SHM_NAMES_H */
