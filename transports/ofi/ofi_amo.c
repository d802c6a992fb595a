/*
 * Atomics: every shmi_amo_op_t on every AMO datatype, mapped onto
 * fi_atomicmsg (non-fetching), fi_fetch_atomicmsg and fi_compare_atomicmsg.
 *
 * Mapping. Integers use the FI_* type of their size and signedness; if the
 * provider lacks that (op, type) it is retried with the other signedness of
 * the same size (two's complement SUM, the bitwise ops, read, write and
 * compare-swap give the same bits). Floating point values only ever fetch,
 * set and swap (the specification has no float arithmetic AMOs), which are
 * bit copies: they use the unsigned type of their size. What the provider
 * still lacks is emulated with a compare-swap loop on the same word: that is
 * atomic with respect to the provider's other atomics on the word because
 * each step is one of them. Which (op, type) pairs exist is asked once at
 * init with fi_atomicvalid/fi_fetch_atomicvalid/fi_compare_atomicvalid.
 *
 * Fetching atomics never depend on FI_RMA_EVENT: the initiator's read
 * counter says when the result arrived. Non-fetching atomics return at once
 * (their operand is injected or copied to a slot) and complete at quiet;
 * where the provider mishandles them with FI_DELIVERY_COMPLETE (shm, see
 * shmt_ofi.amo_as_fetch) they are posted as fetching atomics whose result
 * is dropped: a fetch completes only once the target applied it.
 *
 * How the software providers of libfabric 1.17 apply an atomic at the target
 * (docs/design.md, decision 6 depends on it). shm (smr_do_atomic),
 * ofi_rxm over tcp (rxm_do_atomic) and sockets (sock_pe_do_atomic) all
 * apply a peer's atomic in the target process, during its progress,
 * through libfabric's common handler tables (ofi_atomic_write_handlers,
 * _readwrite_handlers, _swap_handlers). Built with HAVE_BUILTIN_MM_ATOMICS
 * (GCC/Clang __atomic builtins) each element is updated with a CPU atomic
 * instruction and no lock around the update: __atomic_fetch_or/and/xor for
 * the bitwise ops, __atomic_store/__atomic_load for write/read,
 * __atomic_exchange for swap, __atomic_compare_exchange for compare-swap and
 * a compare-exchange loop for SUM (and PROD/MIN/MAX). The providers' own
 * locks only serialise their progress. Such atomics are therefore coherent
 * with CPU atomics that other processes of the node apply to the same word
 * through a shared mapping. Debian's libfabric1 1.17.0 is built that way:
 * its library carries only the "Using built-in memory model atomics." log
 * text (FI_LOG_LEVEL=info prints it), not the "open-coded atomics" one of
 * the fallback, whose handlers are plain read-modify-write code, atomic
 * only among themselves. (Older sockets providers had such code of their
 * own; 1.17 uses the tables.) shm answers FI_ATOMIC_READ with a plain
 * memcpy of the word, a single aligned load for 1-8 byte types.
 * tests/ofi/ofi_amo_mixed checks the coherence on the installed library.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "transports/ofi/ofi_internal.h"

/* What kind of libfabric atomic call an operation is. */
typedef enum shmt_ofi_amo_kind {
    SHMT_OFI_WRITE,   /* fi_atomic: no result */
    SHMT_OFI_FETCH,   /* fi_fetch_atomic */
    SHMT_OFI_COMPARE, /* fi_compare_atomic */
    SHMT_OFI_KINDS
} shmt_ofi_amo_kind_t;

typedef struct shmt_ofi_amo_map {
    shmt_ofi_amo_kind_t kind;
    enum fi_op op;
    int inc; /* the operand is the constant 1 */
} shmt_ofi_amo_map_t;

static const shmt_ofi_amo_map_t shmt_ofi_amo_map[SHMI_AMO_COUNT] = {
    [SHMI_AMO_FETCH] = {SHMT_OFI_FETCH, FI_ATOMIC_READ, 0},
    [SHMI_AMO_SET] = {SHMT_OFI_WRITE, FI_ATOMIC_WRITE, 0},
    [SHMI_AMO_CSWAP] = {SHMT_OFI_COMPARE, FI_CSWAP, 0},
    [SHMI_AMO_SWAP] = {SHMT_OFI_FETCH, FI_ATOMIC_WRITE, 0},
    [SHMI_AMO_FETCH_INC] = {SHMT_OFI_FETCH, FI_SUM, 1},
    [SHMI_AMO_INC] = {SHMT_OFI_WRITE, FI_SUM, 1},
    [SHMI_AMO_FETCH_ADD] = {SHMT_OFI_FETCH, FI_SUM, 0},
    [SHMI_AMO_ADD] = {SHMT_OFI_WRITE, FI_SUM, 0},
    [SHMI_AMO_FETCH_AND] = {SHMT_OFI_FETCH, FI_BAND, 0},
    [SHMI_AMO_AND] = {SHMT_OFI_WRITE, FI_BAND, 0},
    [SHMI_AMO_FETCH_OR] = {SHMT_OFI_FETCH, FI_BOR, 0},
    [SHMI_AMO_OR] = {SHMT_OFI_WRITE, FI_BOR, 0},
    [SHMI_AMO_FETCH_XOR] = {SHMT_OFI_FETCH, FI_BXOR, 0},
    [SHMI_AMO_XOR] = {SHMT_OFI_WRITE, FI_BXOR, 0},
};

/* The ops and integer types Weft uses; their validity is asked at init. */
static const enum fi_op shmt_ofi_ops_used[] = {
    FI_SUM, FI_BAND, FI_BOR, FI_BXOR, FI_ATOMIC_READ, FI_ATOMIC_WRITE, FI_CSWAP,
};
#define SHMT_OFI_NOPS (sizeof(shmt_ofi_ops_used) / sizeof(shmt_ofi_ops_used[0]))
static const enum fi_datatype shmt_ofi_ints[2][4] = {
    {FI_INT8, FI_INT16, FI_INT32, FI_INT64},
    {FI_UINT8, FI_UINT16, FI_UINT32, FI_UINT64},
};

/* valid[kind][op index][signed 0/unsigned 1][log2 size] */
static uint8_t shmt_ofi_valid[SHMT_OFI_KINDS][SHMT_OFI_NOPS][2][4];

static int shmt_ofi_op_index(enum fi_op op)
{
    for (size_t i = 0; i < SHMT_OFI_NOPS; i++)
        if (shmt_ofi_ops_used[i] == op)
            return (int)i;
    return -1;
}

/* Which ops each kind of call can carry. */
static int shmt_ofi_kind_has(shmt_ofi_amo_kind_t kind, enum fi_op op)
{
    if (kind == SHMT_OFI_COMPARE)
        return op == FI_CSWAP;
    if (kind == SHMT_OFI_WRITE)
        return op != FI_CSWAP && op != FI_ATOMIC_READ;
    return op != FI_CSWAP;
}

static int shmt_ofi_query(shmt_ofi_amo_kind_t kind, enum fi_datatype dt,
                          enum fi_op op)
{
    struct fid_ep *ep = shmt_ofi.target->ep;
    size_t count = 0;
    int ret;

    if (kind == SHMT_OFI_WRITE)
        ret = fi_atomicvalid(ep, dt, op, &count);
    else if (kind == SHMT_OFI_FETCH)
        ret = fi_fetch_atomicvalid(ep, dt, op, &count);
    else
        ret = fi_compare_atomicvalid(ep, dt, op, &count);
    return ret == 0 && count >= 1;
}

int shmt_ofi_amo_init(void)
{
    unsigned missing = 0;

    memset(shmt_ofi_valid, 0, sizeof(shmt_ofi_valid));
    for (int k = 0; k < SHMT_OFI_KINDS; k++)
        for (size_t o = 0; o < SHMT_OFI_NOPS; o++)
            for (int u = 0; u < 2; u++)
                for (int l = 0; l < 4; l++) {
                    enum fi_op op = shmt_ofi_ops_used[o];
                    uint8_t v;

                    if (!shmt_ofi_kind_has((shmt_ofi_amo_kind_t)k, op))
                        continue;
                    v = (uint8_t)shmt_ofi_query((shmt_ofi_amo_kind_t)k,
                                                shmt_ofi_ints[u][l], op);
                    shmt_ofi_valid[k][o][u][l] = v;
                    missing += !v;
                }
    if (missing)
        SHMI_LOG(SHMI_LOG_DEBUG, "ofi",
                 "%u (call, op, integer type) atomics missing in %s: "
                 "emulated with compare-swap where possible",
                 missing, shmt_ofi.prov);
    return 0;
}

void shmt_ofi_amo_only_cswap(void)
{
    for (int k = 0; k < SHMT_OFI_KINDS; k++)
        if (k != SHMT_OFI_COMPARE)
            memset(shmt_ofi_valid[k], 0, sizeof(shmt_ofi_valid[k]));
}

/* The FI_* type for (kind, op) on a word of `size` bytes, preferring the
 * given signedness; -1 when the provider has neither. */
static int shmt_ofi_pick_type(shmt_ofi_amo_kind_t kind, enum fi_op op,
                              size_t size, int is_unsigned)
{
    int o = shmt_ofi_op_index(op), l = shmi_width_index(size);

    if (o < 0 || l < 0)
        return -1;
    if (shmt_ofi_valid[kind][o][is_unsigned][l])
        return shmt_ofi_ints[is_unsigned][l];
    if (shmt_ofi_valid[kind][o][!is_unsigned][l])
        return shmt_ofi_ints[!is_unsigned][l];
    return -1;
}

static uint64_t shmt_ofi_load(const void *p, size_t size)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64 = 0;

    switch (size) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

static void shmt_ofi_store(void *p, uint64_t v, size_t size)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;

    switch (size) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* One atomic call as posted. */
typedef struct shmt_ofi_amo_req {
    shmt_ofi_amo_kind_t kind;
    enum fi_op op;
    enum fi_datatype dt;
    int pe;
    uint64_t raddr, key;
    void *operand, *compare, *result; /* local buffers (one element) */
    void *desc;                       /* of the slot array (FI_MR_LOCAL) */
    uint64_t flags;
} shmt_ofi_amo_req_t;

static ssize_t shmt_ofi_post_amo(shmt_ep_t *ep, void *arg)
{
    shmt_ofi_amo_req_t *r = arg;
    struct fi_ioc ioc = {r->operand, 1};
    struct fi_ioc cmpv = {r->compare, 1};
    struct fi_ioc resv = {r->result, 1};
    struct fi_rma_ioc rioc = {r->raddr, 1, r->key};
    void *desc = r->desc;
    struct fi_msg_atomic msg = {
        .msg_iov = &ioc,
        .desc = &desc,
        .iov_count = 1,
        .addr = shmt_ofi.addr[r->pe],
        .rma_iov = &rioc,
        .rma_iov_count = 1,
        .datatype = r->dt,
        .op = r->op,
        .context = &shmt_ofi_write_ctx,
    };

    if (r->kind == SHMT_OFI_WRITE)
        return fi_atomicmsg(ep->ep, &msg, r->flags);
    if (r->kind == SHMT_OFI_FETCH)
        return fi_fetch_atomicmsg(ep->ep, &msg, &resv, &desc, 1, r->flags);
    return fi_compare_atomicmsg(ep->ep, &msg, &cmpv, &desc, 1, &resv, &desc, 1,
                                r->flags);
}

static int shmt_ofi_amo_slots(shmt_ep_t *ep)
{
    size_t bytes = SHMT_OFI_AMO_SLOTS * sizeof(shmt_ofi_amo_slot_t);

    if (ep->amo_slots)
        return 0;
    ep->amo_slots = calloc(1, bytes);
    if (!ep->amo_slots)
        return SHMI_ENOMEM;
    if ((shmt_ofi.mr_mode & FI_MR_LOCAL) &&
        shmt_ofi_mr_one(ep, ep->amo_slots, bytes, &ep->amo_mr)) {
        free(ep->amo_slots);
        ep->amo_slots = NULL;
        return SHMI_EIO;
    }
    return 0;
}

/* A slot for one more atomic; waits for the earlier ones when all are taken
 * (after the read counter caught up no slot is in use). */
static int shmt_ofi_slot_take(shmt_ep_t *ep, shmt_ofi_amo_slot_t **slot)
{
    int ret = shmt_ofi_amo_slots(ep);

    if (ret)
        return ret;
    if (ep->amo_next == SHMT_OFI_AMO_SLOTS) {
        ret = shmt_ofi_wait_reads(ep);
        if (ret == 0)
            ret = shmt_ofi_wait_writes(ep);
        if (ret)
            return ret;
        ep->amo_next = 0;
    }
    *slot = &ep->amo_slots[ep->amo_next++];
    return 0;
}

/*
 * Posts one atomic of `size` bytes; operand/compare/result are held in a
 * slot. blocking: waits for it (and frees every slot).
 * For a fetching op, *result receives the old value when blocking.
 */
static int shmt_ofi_amo_post(shmt_ep_t *ep, shmt_ofi_amo_req_t *r,
                             size_t size, uint64_t operand, uint64_t compare,
                             void *fetched, int blocking)
{
    shmt_ofi_amo_slot_t *s;
    int ret = shmt_ofi_slot_take(ep, &s);
    int local = (shmt_ofi.mr_mode & FI_MR_LOCAL) != 0;

    if (ret)
        return ret;
    shmt_ofi_store(&s->operand, operand, size);
    shmt_ofi_store(&s->compare, compare, size);
    r->operand = &s->operand;
    r->compare = &s->compare;
    r->result = (local || !fetched) ? (void *)&s->result : fetched;
    r->desc = ep->amo_mr.desc;
    if (r->kind == SHMT_OFI_WRITE) {
        /* Complete at quiet: the operand was injected or sits in a slot. */
        blocking = 0;
        r->flags = FI_DELIVERY_COMPLETE | shmt_ofi_count_flags(ep);
        /* ofi_rxm reports no completion of an injected atomic, so one
         * that is counted on the CQ keeps its operand in the slot. */
        if (size <= shmt_ofi.inject_size && !ep->writes_on_cq)
            r->flags |= FI_INJECT;
        ret = shmt_ofi_post(ep, r->pe, "fi_atomicmsg", shmt_ofi_post_amo, r);
        ep->w_issued += ret == 0;
    } else {
        r->flags = 0;
        ret = shmt_ofi_post(ep, r->pe,
                            r->kind == SHMT_OFI_FETCH ? "fi_fetch_atomicmsg"
                                                      : "fi_compare_atomicmsg",
                            shmt_ofi_post_amo, r);
        ep->r_issued += ret == 0;
    }
    if (ret || !blocking)
        return ret;
    ret = r->kind == SHMT_OFI_WRITE ? shmt_ofi_wait_writes(ep)
                                    : shmt_ofi_wait_reads(ep);
    if (ret == 0 && fetched && r->result != fetched)
        memcpy(fetched, r->result, size);
    return ret;
}

/* The new value an emulated op writes, given the old one. */
static uint64_t shmt_ofi_apply(enum fi_op op, uint64_t old, uint64_t operand)
{
    switch (op) {
    case FI_SUM: return old + operand;
    case FI_BAND: return old & operand;
    case FI_BOR: return old | operand;
    case FI_BXOR: return old ^ operand;
    default: return operand; /* FI_ATOMIC_WRITE */
    }
}

/* Emulates (op, operand) on a word with compare-swaps: each step is one of
 * the provider's atomics on that word. *old_out gets the value replaced. */
static int shmt_ofi_amo_emulate(shmt_ep_t *ep, shmt_ofi_amo_req_t *base,
                                size_t size, enum fi_op op, uint64_t operand,
                                uint64_t *old_out)
{
    int cas = shmt_ofi_pick_type(SHMT_OFI_COMPARE, FI_CSWAP, size, 1);
    uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
    uint64_t old = 0;
    uint8_t got[8];
    shmt_ofi_amo_req_t r = *base;
    int ret;

    if (cas < 0)
        return SHMI_ENOTSUP;
    r.kind = SHMT_OFI_COMPARE;
    r.op = FI_CSWAP;
    r.dt = (enum fi_datatype)cas;
    /* A compare-swap of 0 with 0 reads the word without changing it. */
    ret = shmt_ofi_amo_post(ep, &r, size, 0, 0, got, 1);
    old = shmt_ofi_load(got, size);
    while (ret == 0 && op != FI_ATOMIC_READ) {
        uint64_t want = shmt_ofi_apply(op, old, operand) & mask;

        ret = shmt_ofi_amo_post(ep, &r, size, want, old, got, 1);
        if (ret || shmt_ofi_load(got, size) == old)
            break;
        old = shmt_ofi_load(got, size);
    }
    if (ret == 0)
        *old_out = old;
    return ret;
}

int shmt_ofi_amo(shmt_ep_t *ep, int pe, shmi_seg_id_t seg, size_t off,
                 shmi_amo_op_t op, shmi_dtype_t dt, const void *operand,
                 const void *compare, void *fetched, int nbi)
{
    const shmt_ofi_amo_map_t *m;
    size_t size = shmi_dtype_size(dt);
    shmi_dkind_t dk = shmi_dtype_kind(dt);
    uint64_t opnd = 0, cmp = 0, old = 0;
    shmt_ofi_amo_req_t r = {0};
    int type, ret;

    if ((unsigned)op >= SHMI_AMO_COUNT || shmi_width_index(size) < 0 ||
        dk == SHMI_DK_COMPLEX)
        return SHMI_ENOTSUP;
    m = &shmt_ofi_amo_map[op];
    if (dk == SHMI_DK_FLOAT && m->op != FI_ATOMIC_READ &&
        m->op != FI_ATOMIC_WRITE)
        return SHMI_ENOTSUP; /* no float arithmetic AMOs in OpenSHMEM */
    if (m->inc)
        opnd = 1;
    else if (operand)
        opnd = shmt_ofi_load(operand, size);
    if (compare)
        cmp = shmt_ofi_load(compare, size);
    /* The completion of a fetching atomic proves it was applied, so it
     * serves as a non-fetching one where those are broken; its result goes
     * to a slot and is dropped. */
    r.kind = m->kind == SHMT_OFI_WRITE && shmt_ofi.amo_as_fetch ? SHMT_OFI_FETCH
                                                                : m->kind;
    r.op = m->op;
    r.pe = pe;
    r.raddr = shmt_ofi_raddr(pe, seg, off);
    r.key = shmt_ofi.rkey[seg][pe];
    type = shmt_ofi_pick_type(r.kind, m->op, size, dk != SHMI_DK_SIGNED);
    if (type >= 0) {
        r.dt = (enum fi_datatype)type;
        /* Results need a descriptor with FI_MR_LOCAL: then they land in a
         * slot and the call waits. */
        return shmt_ofi_amo_post(ep, &r, size, opnd, cmp, fetched,
                                 fetched && (!nbi || (shmt_ofi.mr_mode &
                                                      FI_MR_LOCAL)));
    }
    if (r.kind == SHMT_OFI_COMPARE)
        return SHMI_ENOTSUP;
    ret = shmt_ofi_amo_emulate(ep, &r, size, m->op, opnd, &old);
    if (ret == 0 && fetched)
        shmt_ofi_store(fetched, old, size);
    return ret;
}
