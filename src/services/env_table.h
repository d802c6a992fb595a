/*
 * THE table of environment variables. Every variable Weft reads is declared
 * here once; the parsed struct (shmi_env), the SHMEM_INFO=1 printout,
 * `shmem_info --env` and docs/env.md are all generated from it. Defaults
 * appear nowhere else.
 *
 * SHMI_ENV(NAME, TYPE, DEFAULT, CATEGORY, HELP)
 *   NAME     the variable is SHMEM_<NAME> (legacy SMA_<NAME> is also read,
 *            SHMEM_ taking precedence); the parsed value is shmi_env.NAME
 *   TYPE     BOOL (0/1/yes/no/true/false/on/off), INT (decimal long),
 *            SIZE (the specification's size form: 1.5g, 20kk, ...),
 *            STRING (free text), CHOICE ("a|b|c": one of the words listed
 *            first in HELP before the colon)
 *   DEFAULT  text parsed exactly as a user value would be
 *   CATEGORY "report", "heap", "transport", "placement", "collectives",
 *            "device", "launch"
 *   HELP     one line; for CHOICE it starts with "a|b|c:"
 *
 * SHMI_ENV_RANGE(NAME, MIN, MAX), on the line after an INT row: the
 * values accepted, MIN to MAX inclusive (LONG_MAX: no upper bound); the
 * error message and docs/env.md say it. An INT row without one accepts any
 * long. Includers that only want the rows leave SHMI_ENV_RANGE undefined.
 *
 * This file is included several times with different SHMI_ENV definitions;
 * it has no include guard on purpose.
 */
#ifndef SHMI_ENV_RANGE
#define SHMI_ENV_RANGE(NAME, MIN, MAX)
#define SHMI_ENV_RANGE_IGNORED
#endif
SHMI_ENV(VERSION, BOOL, "0", "report",
         "Print the library version at start-up (PE 0)")
SHMI_ENV(INFO, BOOL, "0", "report",
         "Print the library version and every variable with its value at start-up (PE 0)")
SHMI_ENV(DEBUG, BOOL, "0", "report",
         "Print debugging messages and enable the costlier checks (same arguments to shmem_malloc and friends, same sequence of collective calls per team among the PEs, those of other nodes asked with a get)")
SHMI_ENV(SYMMETRIC_SIZE, SIZE, "256m", "heap",
         "Bytes of symmetric heap per PE (k/m/g/t suffixes, powers of 2; reserved lazily)")
SHMI_ENV(HEAP_OBJECT, CHOICE, "auto", "heap",
         "auto|memfd|posix: shared-memory object behind the heap (auto: memfd, else POSIX shm in /dev/shm, whose pages are reserved at start-up)")
SHMI_ENV(MAP_PEERS, CHOICE, "first-use", "heap",
         "first-use|start: when a PE maps the heap and data segment of another PE of its node (first-use: at its first access to that PE, so that start-up time and memory per PE do not grow with the PEs of the node; start: all of them in shmem_init). Heaps in POSIX shm (SHMEM_HEAP_OBJECT=posix) are always mapped in shmem_init")
SHMI_ENV(DATA_REMAP, BOOL, "1", "heap",
         "Share the program's data and bss with the PEs of this node (remapped at start-up) so on-node access to globals is load/store")
SHMI_ENV(LOCAL, BOOL, "1", "transport",
         "Reach the memory of PEs on this node by load/store; 0 sends all traffic through libfabric")
SHMI_ENV(TRANSPORT, STRING, "", "transport",
         "Comma list of the transports this job may use, as shmem_info lists them (local, ofi, device); empty: all. Without local it is SHMEM_LOCAL=0; without a network transport it fails at start-up where a PE needs the fabric; without device, device memory is unreachable")
SHMI_ENV(OFI_PROVIDER, STRING, "", "transport",
         "libfabric provider to use (e.g. shm, tcp;ofi_rxm, sockets, cxi); empty: FI_PROVIDER, else by preference. One that libfabric lacks is an error, a warning where the job does not use libfabric")
SHMI_ENV(OFI_DOMAIN, STRING, "", "transport",
         "libfabric domain (NIC or interface, as fi_info names it) to use; empty: the one nearest to this PE. One that the provider lacks is an error, a warning where the job does not use libfabric")
SHMI_ENV(OFI_MAX_MSG_SIZE, SIZE, "0", "transport",
         "Largest libfabric RMA message; longer puts/gets are split (0: the provider's max_msg_size)")
SHMI_ENV(OFI_ORDERED, BOOL, "1", "transport",
         "Trust the provider's write/atomic ordering (msg_order WAW/RAW with data ordering): put-with-signal and fence then do not wait for delivery; 0 always waits")
SHMI_ENV(OFI_ATOMICS, CHOICE, "auto", "transport",
         "auto|cpu|nic: who applies the atomics that arrive through libfabric, as the ofi transport declares it (auto: the target's CPU for the software providers it knows, the NIC for any other, so every atomic then goes through libfabric); for tests, and for a provider Weft does not know")
SHMI_ENV(OFI_SIGNAL_MSG, BOOL, "1", "transport",
         "Collectives over a software provider send each small put-with-signal (a reduction's data, a counted arrival) as one message that the target applies, a barrier's arrival as one write that nothing acknowledges, and (over tcp) a round of a reduction of up to 1 KiB as one such write of its data and a tag, instead of a delivered write and atomic (two messages each, and a round trip before the signal); 0 uses the writes and atomics")
SHMI_ENV(OFI_BOUNCE, SIZE, "4k", "transport",
         "Blocking puts longer than the provider's inject size and up to this many bytes are copied to a registered buffer and return at once (completed by quiet); 0 disables")
SHMI_ENV(WAIT_SPIN, INT, "2000", "transport",
         "Polls of a waited-on word before a waiting PE starts to yield the core, on a node that is not crowded (on a crowded one it yields at once: SHMEM_WAIT_SLEEP)")
SHMI_ENV_RANGE(WAIT_SPIN, 0, LONG_MAX)
SHMI_ENV(WAIT_SLEEP, CHOICE, "auto", "transport",
         "auto|always|never: whether a waiting PE, after spinning and yielding, sleeps (auto: only while the node is crowded: more PEs of the job that may run on this PE's cores than it has cores, or more threads ready to run than the node's cores, looked at every 20 ms while waiting)")
SHMI_ENV(BIND, CHOICE, "none", "placement",
         "core|numa|none: bind each PE to a core or a NUMA domain near its NIC and GPU")
SHMI_ENV(AMO_ENGINE, CHOICE, "auto", "transport",
         "auto|cpu|fabric: who applies atomics on words mapped here when libfabric is in use (auto: CPU atomics unless the transport declares NIC atomics, see SHMEM_OFI_ATOMICS; cpu is refused then, as it would put two engines on one word)")
SHMI_ENV(LOCAL_OFF_PES, STRING, "", "transport",
         "For tests: comma list of PEs that reach all others through libfabric (as with SHMEM_LOCAL=0) while the rest keep load/store")
SHMI_ENV(WATCHDOG, INT, "300", "report",
         "Seconds a PE may stay blocked in one wait (a collective, shmem_wait_until and friends, a lock, a stream wait at shmem_finalize) before it prints, once per wait, the routine it is blocked in, its team, the collective's number and the PEs it waits for (0: off); the job goes on unless SHMEM_WATCHDOG_ABORT=1")
SHMI_ENV_RANGE(WATCHDOG, 0, LONG_MAX)
SHMI_ENV(WATCHDOG_ABORT, BOOL, "0", "report",
         "When the watchdog (SHMEM_WATCHDOG) reports a blocked PE, end the job (status 1) instead of going on waiting")
SHMI_ENV(BARRIER_ALGORITHM, CHOICE, "auto", "collectives",
         "auto|dissemination|flat|twolevel: barrier and sync algorithm (flat: all PEs signal team PE 0, which releases them; twolevel: a flat step in each node, dissemination among node leaders; auto: twolevel when the team spans several nodes or the job has more PEs than cores somewhere, else dissemination)")
SHMI_ENV(BCAST_ALGORITHM, CHOICE, "auto", "collectives",
         "auto|tree|pull|twolevel: broadcast algorithm (tree: binomial push; pull: every PE reads the root's source; twolevel: tree among node leaders, then within nodes; auto: pull from SHMEM_COLL_LARGE bytes, else twolevel when the team spans several nodes, else tree)")
SHMI_ENV(REDUCE_ALGORITHM, CHOICE, "auto", "collectives",
         "auto|doubling|slices|twolevel: reduction algorithm (doubling: recursive doubling; slices: each PE reduces one slice from every source and writes it to all; twolevel: tree inside each node, doubling among node leaders; auto: slices from SHMEM_COLL_LARGE bytes, else twolevel when the team spans several nodes or the job has more PEs than cores somewhere, else doubling)")
SHMI_ENV(COLL_LARGE, SIZE, "16k", "collectives",
         "Bytes per PE from which auto uses the bandwidth algorithms (pull broadcast, sliced reduction)")
SHMI_ENV(COLL_NODE_PES, INT, "0", "collectives",
         "For tests: when > 0, the two-level collectives treat each block of this many consecutive PEs as one node")
SHMI_ENV_RANGE(COLL_NODE_PES, 0, LONG_MAX)
SHMI_ENV(SYMMETRIC_DEVICE_SIZE, SIZE, "64m", "device",
         "Bytes of device (GPU) symmetric heap per PE, created when SHMEM_DEVICE_BACKEND selects a back end (0: no device heap)")
SHMI_ENV(DEVICE_BACKEND, CHOICE, "none", "device",
         "none|auto|cuda|hip|mock: device back end of the device heap (none: no device heap, and no GPU runtime is loaded; auto: the first of cuda, hip that finds a device; mock: a simulated device for tests)")
SHMI_ENV(DEVICE_ID, INT, "-1", "device",
         "Device ordinal this PE uses (-1: the GPU nearest to the PE by hwloc, else the local rank modulo the device count)")
SHMI_ENV_RANGE(DEVICE_ID, -1, LONG_MAX)
SHMI_ENV(DEVICE_SERVICE, CHOICE, "auto", "device",
         "auto|all: the device service of each PE (a thread that applies requests from PEs the fabric cannot bring to its device heap; started when a device heap and libfabric are both in use); all: every access to another PE's device heap goes through it, atomics as read-modify-write under its lock (tests of the path real GPUs without device atomics take)")
SHMI_ENV(DEVICE_REDUCE, CHOICE, "gpu", "device",
         "gpu|host: reductions whose source and dest are both in the device heap (gpu: each PE reads the others' sources into device memory and combines them with the back end's reduction kernel; host: through host buffers and the host's arithmetic, as for any other memory; gpu falls back to host where the back end has no kernel for the type, e.g. long double on cuda and hip)")
SHMI_ENV(KERNEL_PATH, CHOICE, "auto", "device",
         "auto|proxy: how device routines called from kernels reach another PE's device heap (auto: loads, stores and atomics of the kernel on the IPC mapping where the PE's host heap is mapped here too, else the PE's proxy thread; proxy: every other PE through the proxy, for tests)")
SHMI_ENV(KERNEL_RING, INT, "256", "device",
         "Slots of the ring through which a PE's kernels hand requests to its proxy thread (a power of two, 2 to 65536); a full ring makes the kernel wait, never drops a request")
SHMI_ENV_RANGE(KERNEL_RING, 2, 65536)
SHMI_ENV(DEVICE_MOCK_DMA, CHOICE, "off", "device",
         "off|host|cuda: for tests, whether the mock device lets libfabric register a read-write view of its memory, as a NIC reaching GPU memory (FI_HMEM) would (off: the fabric cannot reach mock device memory; host: the view is registered as host memory; cuda: it is offered as CUDA memory, which a libfabric without CUDA refuses, exercising the fallback)")
#ifdef SHMI_ENV_RANGE_IGNORED
#undef SHMI_ENV_RANGE
#undef SHMI_ENV_RANGE_IGNORED
#endif
