/*
 * Whether the PEs can reach each other, checked once at start-up, after
 * every peer's address is in the address vector (shmt_ofi_connect).
 *
 * A provider that addresses peers by IP (tcp, sockets) listens on the
 * interface that FI_TCP_IFACE / FI_SOCKETS_IFACE names. Exported into a
 * job that spans nodes (as a user copying single-node settings would), the
 * loopback interface gives every PE an address that no other node can
 * reach; nothing fails at once, and the first operation between nodes
 * used to wait forever. A loopback address on either side of a pair of PEs
 * on different nodes is therefore an error at start-up, naming the PEs,
 * the provider and the addresses. The provider's own connection errors
 * (refused, unreachable) are reported by the data path as they happen; a
 * connection that is never answered ends shmem_init after
 * SHMT_OFI_REACH_LIMIT_S (shmt_ofi_reach_gave_up).
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "transports/ofi/ofi_internal.h"

/* Room for one endpoint address (sockaddr_in6 needs 28 bytes). */
#define SHMT_OFI_REACH_NAME 256

/* How long shmem_init tries to reach a peer before it gives up on it, in
 * seconds: every PE has passed the start-up exchange by then, so a peer
 * that has not answered in this time is not merely slower to start. */
#define SHMT_OFI_REACH_LIMIT_S 30

int shmt_ofi_addr_loopback(uint32_t fmt, const void *name, size_t len)
{
    const struct sockaddr *sa = name;

    if (fmt != FI_SOCKADDR && fmt != FI_SOCKADDR_IN && fmt != FI_SOCKADDR_IN6)
        return 0;
    if (len >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = name;

        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (len >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = name;
        const uint8_t *b = in6->sin6_addr.s6_addr;

        if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
            return 1;
        /* ::ffff:127.x.y.z, an IPv4 loopback address in IPv6 form */
        return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && b[12] == 127;
    }
    return 0;
}

void shmt_ofi_addr_text(uint32_t fmt, const void *name, size_t len, char *buf,
                        size_t size)
{
    const struct sockaddr *sa = name;
    char ip[INET6_ADDRSTRLEN] = "?";

    if ((fmt == FI_SOCKADDR || fmt == FI_SOCKADDR_IN) &&
        len >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = name;

        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
        snprintf(buf, size, "%s:%u", ip, (unsigned)ntohs(in->sin_port));
    } else if ((fmt == FI_SOCKADDR || fmt == FI_SOCKADDR_IN6) &&
               len >= sizeof(struct sockaddr_in6) &&
               sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = name;

        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
        snprintf(buf, size, "[%s]:%u", ip, (unsigned)ntohs(in6->sin6_port));
    } else {
        snprintf(buf, size, "(address format %u, %zu bytes)", (unsigned)fmt,
                 len);
    }
}

int shmt_ofi_reach_find(uint32_t fmt, int me, int npes, const int *node_of_pe,
                        shmt_ofi_name_fn name_of, void *arg)
{
    char mine[SHMT_OFI_REACH_NAME], theirs[SHMT_OFI_REACH_NAME];
    size_t mlen = sizeof(mine), tlen;
    int mine_lo;

    if (name_of(me, mine, &mlen, arg) != 0)
        return -1; /* nothing to judge by: the data path will tell */
    mine_lo = shmt_ofi_addr_loopback(fmt, mine, mlen);
    for (int pe = 0; pe < npes; pe++) {
        if (node_of_pe[pe] == node_of_pe[me])
            continue;
        tlen = sizeof(theirs);
        if (name_of(pe, theirs, &tlen, arg) != 0)
            continue;
        if (mine_lo || shmt_ofi_addr_loopback(fmt, theirs, tlen))
            return pe;
    }
    return -1;
}

/* pe's address as the address vector holds it (a shmt_ofi_name_fn). */
static int shmt_ofi_av_name(int pe, void *name, size_t *len, void *arg)
{
    (void)arg;
    return fi_av_lookup(shmt_ofi.av, shmt_ofi.addr[pe], name, len) == 0
               ? 0
               : SHMI_EIO;
}

/* pe's address as text, for a message. */
static void shmt_ofi_pe_text(int pe, char *buf, size_t size)
{
    char name[SHMT_OFI_REACH_NAME];
    size_t len = sizeof(name);

    if (shmt_ofi_av_name(pe, name, &len, NULL) != 0) {
        snprintf(buf, size, "unknown");
        return;
    }
    shmt_ofi_addr_text(shmt_ofi.info->addr_format, name, len, buf, size);
}

int shmt_ofi_reach_check(void)
{
    const shmt_job_t *b = shmt_ofi.job;
    char mtext[80], ttext[80];
    int me = b->rank, pe;

    if (b->n_nodes < 2 || b->node_of_pe == NULL)
        return 0;
    pe = shmt_ofi_reach_find(shmt_ofi.info->addr_format, me, shmt_ofi.npes,
                             b->node_of_pe, shmt_ofi_av_name, NULL);
    if (pe < 0)
        return 0;
    shmt_ofi_pe_text(me, mtext, sizeof(mtext));
    shmt_ofi_pe_text(pe, ttext, sizeof(ttext));
    SHMI_LOG(SHMI_LOG_ERROR, "ofi",
             "PE %d (node %d, address %s) and PE %d (node %d, address %s) "
             "cannot reach each other with provider %s: a loopback address "
             "is reachable only on its own node; set FI_TCP_IFACE (tcp) or "
             "FI_SOCKETS_IFACE (sockets) to an interface that connects the "
             "%d nodes of the job, or unset it",
             me, b->node_id, mtext, pe, b->node_of_pe[pe], ttext, shmt_ofi.prov,
             b->n_nodes);
    return SHMI_EIO;
}

/*
 * A network that drops the traffic between two nodes (a firewall, a route
 * to nowhere) refuses nothing: the provider keeps answering -FI_EAGAIN
 * while it tries to connect. After start-up that may also be a peer busy
 * computing (progress is manual), so only shmem_init gives up: every PE is
 * inside it then, driving progress, right after the start-up exchange.
 */
int shmt_ofi_reach_gave_up(int pe, const char *call, double *since)
{
    const shmt_job_t *b = shmt_ofi.job;
    char mtext[80], ttext[80];
    struct timespec ts;
    double now;

    if (!shmt_ofi.starting || pe < 0 || pe >= shmt_ofi.npes)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (*since == 0)
        *since = now;
    if (now - *since < SHMT_OFI_REACH_LIMIT_S)
        return 0;
    shmt_ofi_pe_text(b->rank, mtext, sizeof(mtext));
    shmt_ofi_pe_text(pe, ttext, sizeof(ttext));
    SHMI_LOG(SHMI_LOG_ERROR, "ofi",
             "PE %d (node %d, address %s) cannot reach PE %d (node %d, "
             "address %s) with provider %s: %s found no connection for %d s "
             "during shmem_init; something between the nodes drops the "
             "traffic (a firewall, a route), or the interface in use "
             "(FI_TCP_IFACE, FI_SOCKETS_IFACE) is not one the other node "
             "can reach",
             b->rank, b->node_id, mtext, pe,
             b->node_of_pe ? b->node_of_pe[pe] : b->node_id, ttext,
             shmt_ofi.prov, call, SHMT_OFI_REACH_LIMIT_S);
    return 1;
}

void shmt_ofi_started(void)
{
    shmt_ofi.starting = 0;
}
