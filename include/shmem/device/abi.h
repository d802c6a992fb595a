/*
 * What device code and libweft share about device-initiated communication
 * (docs/gpu.md, "Device-initiated communication"): the state a kernel reads,
 * the requests it hands to its PE's proxy, the error it leaves for the
 * proxy to print, and, for device code compiled as host code, what a host
 * thread standing in for a GPU thread knows of its place in the grid.
 *
 * Every field is written by libweft at set-up (shmemx_kernel_state) and
 * only read by device code, except where a comment names another writer.
 * The layout is fixed: device code compiled against one version of this
 * header must only meet a libweft of the same SHMEMD_ABI_VERSION, which
 * shmemx_kernel_state checks.
 */
#ifndef SHMEM_DEVICE_ABI_H
#define SHMEM_DEVICE_ABI_H

#include <stddef.h>
#include <stdint.h>

#define SHMEMD_ABI_VERSION 1
/* shmemd_state_t.magic once shmemd_init() has filled it. */
#define SHMEMD_STATE_MAGIC 0x3176654474666557ull /* "WeftDev1" */
/* Rounds of the device barrier's dissemination: enough for 2^32 PEs. */
#define SHMEMD_SYNC_ROUNDS 32

/* What a request asks the proxy to do (shmemd_req_t.op). */
typedef enum shmemd_op {
    SHMEMD_OP_PUT = 1,    /* dest (symmetric) <- source (local), nbytes */
    SHMEMD_OP_GET,        /* dest (local) <- source (symmetric), nbytes */
    SHMEMD_OP_PUT_SIGNAL, /* PUT, then sig_addr op= value on the same PE */
    SHMEMD_OP_AMO,        /* one atomic of width bytes on dest */
    SHMEMD_OP_FENCE,      /* order what came before before what follows */
    SHMEMD_OP_P,          /* dest (symmetric) <- the nbytes of value */
    SHMEMD_OP_G           /* result <- nbytes at source (symmetric) */
} shmemd_op_t;

/* The atomic of an SHMEMD_OP_AMO (shmemd_req_t.amo). */
typedef enum shmemd_amo {
    SHMEMD_AMO_FETCH = 1,
    SHMEMD_AMO_SET,
    SHMEMD_AMO_SWAP,
    SHMEMD_AMO_CSWAP,
    SHMEMD_AMO_FETCH_ADD,
    SHMEMD_AMO_ADD
} shmemd_amo_t;

/*
 * One slot of the proxy ring, in host memory mapped into the device. The
 * kernel thread holding ticket t owns slot t % slots while turn == t.
 * Protocol (docs/gpu.md): fill the fields, fence, ready = t + 1; the proxy
 * serves tickets in order. A request whose caller waits (GET, PUT and
 * PUT_SIGNAL until the source may be reused, fetching atomics): the proxy
 * writes result, then done = t + 1; the caller reads result and hands the
 * slot on (turn = t + slots). Any other request: the proxy hands the slot
 * on itself once it has read it.
 */
typedef struct shmemd_req {
    volatile uint64_t ready; /* t + 1 once written (kernel) */
    volatile uint64_t done;  /* t + 1 once served, result valid (proxy) */
    volatile uint64_t turn;  /* ticket allowed to fill the slot (both) */
    uint32_t op;             /* shmemd_op_t */
    int32_t pe;              /* target PE */
    uint64_t dest;           /* address in this PE's view (see op) */
    uint64_t source;         /* address in this PE's view (see op) */
    uint64_t nbytes;         /* PUT, GET, PUT_SIGNAL */
    uint64_t value;          /* AMO operand, PUT_SIGNAL signal */
    uint64_t compare;        /* AMO CSWAP's compare */
    uint64_t sig_addr;       /* PUT_SIGNAL: the signal word (symmetric) */
    uint32_t amo;            /* AMO: shmemd_amo_t; PUT_SIGNAL: sig_op */
    uint32_t width;          /* AMO: 4 or 8 bytes */
    uint32_t routine;        /* shmemd_routine_t of the calling routine */
    uint32_t pad0;
    volatile uint64_t result; /* fetching AMO: the old value (proxy) */
    uint64_t pad1[2];
} shmemd_req_t;

/* The first error a kernel of this PE met (host memory mapped into the
 * device). The kernel writes the fields, then set = 1, then stops (a trap
 * on a GPU); the proxy prints it and ends the job. */
typedef struct shmemd_error {
    volatile uint32_t set; /* 0, 2 while a thread writes it, then 1 */
    uint32_t routine; /* shmemd_routine_t (include/shmem/device/routines.h) */
    int32_t pe;       /* the PE argument */
    uint32_t what;    /* 1: PE out of range, 2: address outside the device
                         heap, 3: bad argument (value) */
    uint64_t addr;    /* the address argument */
    uint64_t nbytes;  /* bytes from addr the call would touch */
} shmemd_error_t;

/*
 * The state a kernel reads (a copy in each translation unit's constant
 * memory: shmemd_init). Addresses are as device code uses them.
 */
typedef struct shmemd_state {
    uint64_t magic;       /* SHMEMD_STATE_MAGIC */
    uint32_t abi_version; /* SHMEMD_ABI_VERSION */
    int32_t my_pe, n_pes;
    int32_t n_proxied;  /* PEs whose peer_base is NULL */
    char *heap_base;    /* this PE's device heap */
    /* Bytes of it the program may address (the same on every PE): the
     * device routines refuse anything past them, where sync lies. */
    uint64_t heap_size;
    /* [n_pes]: where device code reaches each PE's device heap (loads,
     * stores, system-scope atomics on the IPC mapping; heap_base for this
     * PE), or NULL where requests go through the proxy. Device memory. */
    char *const *peer_base;
    shmemd_req_t *ring;  /* ring_slots requests (host memory, mapped) */
    uint64_t ring_slots; /* a power of two */
    uint64_t *ring_tail; /* tickets handed out (device memory) */
    /* Every ticket below *completed is served and remotely complete
     * (proxy; host memory, mapped). */
    volatile uint64_t *completed;
    shmemd_error_t *error; /* host memory, mapped */
    /* In the device heap right after its heap_size bytes, the same offset
     * on every PE: [0] this PE's barrier count, [1 + r] the flag round r
     * of the barrier sets (the proxy accepts requests for them only from
     * shmemd_sync_all). */
    uint64_t *sync;
} shmemd_state_t;

/*
 * Device code compiled as host code (the mock back end): what a host
 * thread that stands in for a GPU thread knows of its place, set by the
 * mock's launch (shmemx_collective_launch) and read through
 * shmemx_kernel_thread_info(). x, y, z as CUDA's dim3.
 */
typedef struct shmemd_host_thread {
    unsigned thread[3]; /* threadIdx */
    unsigned block[3];  /* blockIdx */
    unsigned bdim[3];   /* blockDim */
    unsigned gdim[3];   /* gridDim */
} shmemd_host_thread_t;

#endif /* SHMEM_DEVICE_ABI_H */
