/*
 * Scaffolding shared by the tests of the libfabric transport: they drive
 * shmt_ofi_ops directly (no shmem_init), with a heap of their own, the real
 * bootstrap, and a barrier over the fabric that keeps progressing (a PE
 * blocked in a bootstrap fence would not serve its peers' emulated
 * operations).
 */
#ifndef SHMT_OFI_TEST_H
#define SHMT_OFI_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "transports/transport.h"

/* Heap layout (offsets from the heap base, the same on every PE). */
#define T_OFF_BAR_COUNT 0      /* barrier arrivals, on PE 0 */
#define T_OFF_BAR_FLAG 8       /* barrier release round */
#define T_OFF_SIG 64           /* put-with-signal word */
#define T_OFF_SIG2 72
#define T_OFF_FLAG 80          /* fence test flag */
#define T_OFF_AMO 256          /* atomics words, 16 bytes apart */
#define T_OFF_SMALL 8192       /* 64 KiB area */
#define T_OFF_BIG (1u << 20)   /* 4 MiB area */
#define T_OFF_GETSRC (6u << 20) /* 4 MiB area */
#define T_HEAP_SIZE (12u << 20)
#define T_BIG (4u << 20)

/* The registered stand-in for the data segment (a global array). */
#define T_DATA_WORDS 1024
extern uint64_t t_data[T_DATA_WORDS];

extern int t_me, t_npes;
extern char *t_heap;
extern shmt_ep_t *t_ep;
extern const shmt_ops_t *t_ops;
/* What t_setup hands the transport's init (the job from the bootstrap,
 * the test's heap and data segment, the bootstrap exchange). */
extern shmt_job_t t_job;

/* Fills t_job from shmi_state.boot and the segments given (NULL/0: none):
 * what the core's start-up does for a transport, without the core. */
void t_job_fill(char *heap, size_t heap_size, char *data, size_t data_size);

/* Ends the test as failed, naming the PE and the place. */
_Noreturn void t_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define T_CHECK(cond, ...)                                                     \
    do {                                                                       \
        if (!(cond))                                                           \
            t_fail(__FILE__, __LINE__, __VA_ARGS__);                           \
    } while (0)

/* Boots, sets up the heap (a POSIX shared-memory object when shared != 0,
 * else private memory) and data segments, inits and connects the transport
 * and creates the default endpoint. Returns 77 to skip, 0 on success. */
int t_setup(int shared);
/* Barriers twice (so trailing acknowledgements complete), tears down. */
void t_teardown(void);

/* Barrier over the fabric; progresses while waiting. */
void t_barrier(void);
/* Waits (progressing, with a time limit) until the local heap word at off
 * is >= value. */
void t_wait_ge(size_t off, uint64_t value);
static inline volatile uint64_t *t_word(size_t off)
{
    return (volatile uint64_t *)(t_heap + off);
}

/* Maps PE pe's heap object into this process (shared heaps, same node);
 * NULL when it cannot. */
char *t_map_peer_heap(int pe);
/* Removes this PE's heap object name (once the peers mapped it), so that
 * a failed run leaves nothing behind in /dev/shm. */
void t_heap_unlink(void);

#endif /* SHMT_OFI_TEST_H */
