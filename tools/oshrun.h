/*
 * oshrun: start a Weft job. On one node oshrun is itself the PMIx server
 * that hosts the PEs; inside Slurm or on request it hands the job to srun
 * or Open MPI's mpirun.
 */
#ifndef OSHRUN_H
#define OSHRUN_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

/* Exit status for usage errors (bad options, nothing to run). */
#define OSHRUN_EUSAGE 2

/* Given to every PE unless set: keeps libinfinipath (a dependency of
 * Debian's libfabric) from installing handlers for SIGTERM, SIGINT,
 * SIGSEGV and other signals when it is loaded. */
#define OSHRUN_NO_IPATH_HANDLERS "IPATH_NO_BACKTRACE=1"

typedef struct oshrun_opts {
    int npes;   /* -n/-np: number of PEs */
    char **env; /* -x entries, "VAR" or "VAR=VAL" */
    int n_env;
    int tag_output;       /* --tag-output: "[pe N] " before every line */
    const char *bind;     /* --bind core|numa|none, NULL when not given */
    const char *launcher; /* --launcher=local|srun|mpirun, NULL: choose */
    char **argv;          /* program and its arguments (NULL-terminated) */
} oshrun_opts_t;

/* Output of one PE stream, assembled into whole lines before it is written
 * so that lines of different PEs never mix. */
typedef struct oshrun_stream {
    int fd;    /* read end of the PE's pipe; -1 once closed */
    int out;   /* 1 (stdout) or 2 (stderr) of oshrun */
    char *buf; /* pending partial line */
    size_t len, cap;
} oshrun_stream_t;

typedef struct oshrun_pe {
    pid_t pid; /* 0 before fork, or after it was reaped */
    oshrun_stream_t out, err;
    int connected; /* PMIx client connected (set by server thread) */
    int finalized; /* PMIx client finalized (set by server thread) */
    int reaped;    /* waitpid returned its status */
    int wstatus;   /* that status */
    int lifeline;  /* write end of the PE's lifeline (oshrun_spawn.c), -1
                      when none: while oshrun holds it open, the PE's
                      process group lives */
} oshrun_pe_t;

typedef struct oshrun_job {
    const oshrun_opts_t *opts;
    oshrun_pe_t *pes;
    char nspace[256];     /* PMIx namespace (pmix_nspace_t size) */
    char tmpdir[256];     /* private directory, removed at exit */
    pthread_mutex_t lock; /* guards the fields set by PMIx callbacks */
    int wake[2];          /* self-pipe: callbacks wake the main loop */
    int stdin_fd;         /* write end of PE 0's stdin, -1 when closed */
    int aborted;          /* a PE called PMIx_Abort */
    int abort_rank, abort_status;
    int ending;     /* the job is being stopped */
    double kill_at; /* when to escalate to SIGKILL (monotonic s) */
    int status;     /* exit status of oshrun */
} oshrun_job_t;

/* oshrun_opts.c */
int oshrun_parse(int argc, char **argv, oshrun_opts_t *opts);
void oshrun_usage(FILE *out);
void oshrun_opts_free(oshrun_opts_t *opts);

/* oshrun_delegate.c: replaces oshrun with srun/mpirun; returns on error. */
int oshrun_delegate(const oshrun_opts_t *opts, const char *launcher);

/* oshrun_server.c */
int oshrun_server_start(oshrun_job_t *job);
/* Registers PE rank and adds what it needs to reach oshrun to *env: 0, 1
 * when a signal asked oshrun to stop first, or -1 with why filled in. */
int oshrun_server_setup_pe(oshrun_job_t *job, int rank, char ***env, char *why,
                           size_t why_len);
/* Seconds oshrun waits for libpmix's server to finalize after a job that
 * ended normally (it takes milliseconds unless libpmix is stuck). */
#define OSHRUN_FINALIZE_WAIT 2
/* Finalizes the PMIx server: 0, or -1 when it did not return within
 * OSHRUN_FINALIZE_WAIT seconds and oshrun must leave by _exit (libpmix's
 * state is locked; nothing may run its exit-time code). */
int oshrun_server_stop(oshrun_job_t *job);

/* oshrun_sock.c: for a connection accepted on a loopback TCP listener,
 * the owner (uid) and inode of the client's socket, as the kernel knows
 * them; 0 or -1 when it is gone or cannot be found. */
int oshrun_sock_peer(int sd, unsigned *uid, unsigned long *inode);

/* oshrun_peer.c: from now on only job's PEs may connect to its PMIx
 * server (called before the server starts listening). */
void oshrun_peer_watch(oshrun_job_t *job);
/* Connections the check let through so far: 0 once a PE has connected
 * means that libpmix reached it without calling accept(), unchecked. */
int oshrun_peer_admitted(void);

/* oshrun_spawn.c: forks the PEs. -1 when none could be (the program is
 * not found). A PE that cannot be started ("cannot start PE N: why") stops
 * the job: those started are killed by the loop, and oshrun exits with
 * status 1. A signal that asks oshrun to stop ends the spawning; the loop
 * then handles it as for a running job. */
int oshrun_spawn(oshrun_job_t *job);

/* oshrun_limits.c */
/* 0 when npes PEs fit this node's limits on processes and threads and
 * oshrun's maximum per node; otherwise says which one -n exceeds and
 * returns OSHRUN_EUSAGE. */
int oshrun_limits_check(int npes);
/* After a fork that failed with EAGAIN: " (the limit that stopped it)"
 * into buf, or "". */
void oshrun_limits_fork_hint(char *buf, size_t n);
/* Reads the kernel's out-of-memory kill counters as the job starts. */
void oshrun_oom_baseline(void);
/* For a PE killed by SIGKILL: ": the kernel's out-of-memory killer ..."
 * when those counters rose since, else "". */
const char *oshrun_oom_note(void);

/* oshrun_loop.c: runs until every PE ended; returns oshrun's status. */
int oshrun_loop(oshrun_job_t *job, int sigfd);
void oshrun_wake(oshrun_job_t *job);
double oshrun_now(void);
/* A signal (other than SIGCHLD) that waits for the loop, blocked, or 0:
 * it asks oshrun to stop, and what runs before the loop stops early. */
int oshrun_stop_pending(void);

/* oshrun_output.c */
void oshrun_stream_init(oshrun_stream_t *s, int fd, int out);
int oshrun_stream_read(oshrun_stream_t *s, int rank, int tag);
void oshrun_stream_flush(oshrun_stream_t *s, int rank, int tag);
/* Reads until the stream is empty for now (its fd is non-blocking), at most
 * max_reads times so that a PE that keeps writing cannot hold the loop. */
void oshrun_stream_drain(oshrun_stream_t *s, int rank, int tag, int max_reads);
/* Writes what is held and closes the stream. */
void oshrun_stream_close(oshrun_stream_t *s, int rank, int tag);

/* oshrun_tmp.c */
int oshrun_tmp_create(oshrun_job_t *job);
void oshrun_tmp_remove(oshrun_job_t *job);
/* Removes the directory tree at path (a job's directory). */
void oshrun_remove_tree(const char *path);

/* oshrun_sweep.c */
/* Removes /dev/shm entries that libfabric's shm provider or Weft named
 * after the PEs' pids and that a killed PE could not remove itself. */
void oshrun_shm_cleanup(oshrun_job_t *job);
/* Removes what dead jobs of this user left: oshrun directories in TMPDIR
 * and /dev/shm entries whose creator is gone. Before the job starts. */
void oshrun_sweep_stale(oshrun_job_t *job);

/* Messages from oshrun itself. */
void oshrun_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* oshrun.c: "TERM" for SIGTERM ("?" when unknown). */
const char *oshrun_sig_name(int sig);

/* oshrun.c: the directory oshrun_tmp_create makes the job's directory in:
 * TMPDIR, or /tmp (with a warning, once) when TMPDIR is longer than
 * OSHRUN_TMPDIR_MAX. */
#define OSHRUN_TMPDIR_TAIL "/oshrun.4194304.XXXXXX/srv" /* longest pid */
#define OSHRUN_TMPDIR_MAX                                                      \
    (sizeof(((oshrun_job_t *)0)->tmpdir) - sizeof(OSHRUN_TMPDIR_TAIL))
const char *oshrun_tmp_base(void);

#endif /* OSHRUN_H */
