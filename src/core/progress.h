/*
 * Progress of the transports (wait.c): what drives the fabric's target
 * side and frees its resources. The engine retries through it, the waits
 * and the runtime's helper threads drive it.
 */
#ifndef SHMI_PROGRESS_H
#define SHMI_PROGRESS_H

/* Drives the fabric's progress (target side of emulated operations); safe
 * from several threads (a thread that finds another progressing skips).
 * No-op without a fabric. wait.c. */
void shmi_progress(void);

/* 1 when another thread of this process may drive progress while the
 * caller does: SHMEM_THREAD_MULTIPLE, or a helper thread (the device
 * service, the kernel proxy, a stream lane: services/helper_thread.h)
 * started. wait.c. */
int shmi_progress_shared(void);

/* One progress pass of every transport, never skipped (shmi_progress
 * skips while another thread progresses): the transports serialise their
 * progress with locks of their own, so a copy into this PE's memory that
 * another thread's pass made is visible here on return
 * (shmt_coll_ops_t.put_tagged). wait.c. */
void shmi_progress_pass(void);

#endif /* SHMI_PROGRESS_H */
