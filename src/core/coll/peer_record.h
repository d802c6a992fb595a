/*
 * What a waiting PE can learn about its peers, so that a wait that can
 * never end becomes a message instead of a hang (src/core/coll/peer_record.c).
 *
 * Every PE keeps a small symmetric record in the heap, written by itself
 * and read by the other PEs of its node through their mapping of its heap
 * (over a fabric only from PEs known to be alive: one that has left cannot
 * answer a get):
 *
 *   finalized  set by shmem_finalize after its last synchronization and a
 *              quiet: the PE will never send anything again;
 *   gone       one byte per PE of the job, the one part that peers write:
 *              a PE that sets its finalized mark also sets its byte in
 *              the record of every peer it maps, by a store, and of every
 *              peer off its node, by a put over the fabric (peer_gone.c),
 *              so that a PE learns in its own memory that a peer has gone.
 *              Peers of its node that it does not map (they are mapped on
 *              first use, transports/local/local_map.c) learn it from the
 *              record of the node's first PE, which every PE of the node
 *              maps at start-up and so always tells;
 *   exit       written by the PE's own waits and its exit handler, read by
 *              a PE waiting at exit (shmi_watch_exit_wait), also over a
 *              fabric (the peers it reads are alive: they have not
 *              finalized): whether the PE waits at exit too, and how many
 *              blocking waits got past spinning and looked at their peers;
 *   calls      with SHMEM_DEBUG=1 only: for every team slot, the last
 *              collective calls made on it (call number and routine), which
 *              the other members compare with their own: through the
 *              mapping at the end of every call, and for members off the
 *              node with gets, from a blocked wait now and then and at the
 *              last call of shmem_finalize (the one after which a PE can no
 *              longer be asked).
 *
 * The collective entry points name the public routine they serve
 * (shmi_coll_enter), which the flag primitives of coll_state.c use in their
 * messages. Nothing here runs on a fast path: records are written once per
 * collective call with SHMEM_DEBUG=1 only, and peers are looked at from the
 * slow path of wait loops (shmi_watch_due: once every SHMI_WATCH_PERIOD_NS).
 */
#ifndef SHMI_COLL_PEER_RECORD_H
#define SHMI_COLL_PEER_RECORD_H

#include <stdint.h>

#include "services/backoff.h"

struct shmem_impl_team;

/* How often a waiting loop that has spun past SHMEM_WAIT_SPIN looks at
 * its peers: 10 ms (a few hundred loads at most, well below the noise of a
 * wait that long). */
#define SHMI_WATCH_PERIOD_NS 10000000ULL

/* Places this PE's record in the symmetric heap (shmem_init, at the same
 * point on every PE); 0 or SHMI_ENOMEM. The record is never freed: peers
 * may read it after this PE has finalized. */
int shmi_watch_init(void);

/* Marks this PE as finalized (shmem_finalize, after its last barrier and a
 * quiet): waiting for it from now on is an error. Then tells every peer so
 * (shmi_watch_tell, peer_gone.c), which takes at most
 * SHMI_WATCH_TELL_NS. */
void shmi_watch_set_finalized(void);

/* 1 when world PE wpe has finalized, as far as this PE knows: its mark in
 * this PE's record, or its own record read through the mapping. */
int shmi_watch_finalized(int wpe);

/* 1 when every other PE of the job has finalized: then nothing but this PE
 * can change its own memory. */
int shmi_watch_all_others_finalized(void);

/* A finalized PE that a wait may depend on, or -1: from when it is a world
 * PE, else any member of the calling thread's collective's team (every PE
 * outside a collective). */
int shmi_watch_gone(int from);

/* This PE's gone bytes ([n_pes], in its record), NULL before
 * shmi_watch_init. */
uint8_t *shmi_watch_marks(void);

/* ---- peer_gone.c: telling peers, the transports' question ---- */

/* The longest a finalizing PE spends telling its peers (puts and their
 * completion, then the peers' own marks): 1 s, far above what the puts
 * take among PEs that finalize together; a PE left waiting for a peer
 * that made other collective calls meanwhile reports it (the job ends
 * then). */
#define SHMI_WATCH_TELL_NS 1000000000ULL

/* Installs the transports' question (shmi_backoff_peer_gone,
 * services/backoff.h): from shmi_watch_init. */
void shmi_watch_gone_init(void);

/*
 * Sets this PE's byte in every peer's record, then waits until those writes
 * completed and every peer's byte is set here, at most SHMI_WATCH_TELL_NS.
 * Waiting for the peers' bytes keeps each PE driving progress until every
 * peer has told it, and so has completed its own writes to it: a PE leaves
 * only once the puts it is owed have landed, or after the bound (a peer
 * that made other collective calls, or is itself gone). Failures are
 * ignored and nothing is retried beyond the bound (the transports ask
 * shmi_backoff_peer_gone).
 */
void shmi_watch_tell(void);

/* 1 when a loop that has waited past spinning should look at its peers
 * now (time-throttled through b->watch_ns). Also counts, in this PE's
 * record, the blocking waits (at the first call) and their looks (at each
 * 1), which shmi_watch_exit_wait reads. */
int shmi_watch_due(shmi_backoff_t *b);

/*
 * Called by a PE that returns from main without shmem_finalize (the exit
 * handler of src/core/init.c), after its own traffic completed: marks it at
 * exit and waits until every PE is at exit, then returns 0 (the caller
 * finalizes: every PE will reach the same barrier). Returns SHMI_ESTATE
 * when instead every PE that is not at exit stays blocked in one wait
 * (SHMI_EXIT_STUCK_NS, peer_record.c): they wait for something only a PE at exit
 * could do, so the caller leaves without finalizing and the launcher ends
 * the job as for any PE that exits early. A PE that is not at exit and not
 * blocked (it computes) is waited for, however long; so is one whose
 * thread level is SHMEM_THREAD_MULTIPLE (another thread may go on). The
 * wait drives progress and never touches the collectives' state, so it
 * matches no barrier of the program.
 */
int shmi_watch_exit_wait(void);

/* Forgets the call records of team slot (when the slot is handed out). */
void shmi_watch_slot_reset(int slot);

/*
 * Starts a call of the public collective routine on team t (NULL for an
 * active set): routine names the messages of the flag primitives; with
 * SHMEM_DEBUG=1 the call is numbered and recorded for the other members.
 * Collectives nested in another (the barriers of shmem_malloc, the
 * reduction of a team split) keep the outer routine and are not counted.
 * Every shmi_coll_enter is paired with one shmi_coll_leave, which with
 * SHMEM_DEBUG=1 compares the call with every member's call of that number
 * (all of them have entered it: every collective completes only once each
 * member has arrived).
 */
void shmi_coll_enter(const char *routine, struct shmem_impl_team *t);
void shmi_coll_leave(void);

/* With SHMEM_DEBUG=1, compares the current call with every member's call
 * of that number now, the members off this node too (a get each): for
 * callers that know that every member has entered it (after a barrier
 * inside the call): so that a different routine is named before any check
 * of the call's arguments (shmem_malloc), and at the last collective call
 * of shmem_finalize, after which a PE can no longer be asked. */
void shmi_coll_compare_now(void);

/* 1 when the calling thread is inside a collective call. */
int shmi_coll_in_call(void);

/* The public routine the calling thread's collective serves. */
const char *shmi_coll_routine(void);

/*
 * Called by a collective wait that has not been satisfied: ends the job
 * when it can never be. from is the world PE whose signal is awaited, or -1
 * when any member may send it; then any finalized PE means the program's
 * PEs made different collective calls (a finalized PE passed a barrier of
 * shmem_finalize that every PE had reached). satisfied() is tested again
 * after the peers were looked at, so that a signal sent just before the
 * sender finalized is not mistaken for a missing one.
 */
void shmi_coll_watch(int from, int (*satisfied)(const void *), const void *arg);

/* Ends the job: the calling thread's collective waits for PE gone, which has
 * finalized (the message of shmi_coll_watch). */
_Noreturn void shmi_coll_gone_fatal(int gone);

/* The calling thread's current collective, for the watchdog's report
 * (src/core/watchdog.c): its team (NULL for an active set or outside a
 * collective), the team's name as messages give it ("SHMEM_TEAM_WORLD", or
 * NULL), and the call's number on the team, counted with or without
 * SHMEM_DEBUG (0 when not numbered). */
const struct shmem_impl_team *shmi_coll_cur_team(void);
const char *shmi_coll_team_name(void);
uint64_t shmi_coll_call(void);

#endif /* SHMI_COLL_PEER_RECORD_H */
