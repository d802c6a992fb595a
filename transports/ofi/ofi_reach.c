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
 * (refused, unreachable) are reported by the data path as they happen.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "core/state.h"
#include "transports/ofi/ofi_internal.h"

/* Room for one endpoint address (sockaddr_in6 needs 28 bytes). */
#define SHMT_OFI_REACH_NAME 256

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

int shmt_ofi_reach_check(void)
{
    const shmi_boot_info_t *b = &shmi_state.boot;
    uint32_t fmt = shmt_ofi.info->addr_format;
    char name[SHMT_OFI_REACH_NAME], mtext[80], ttext[80];
    size_t len;
    int me = b->rank, pe;

    if (b->n_nodes < 2 || b->node_of_pe == NULL)
        return 0;
    pe = shmt_ofi_reach_find(fmt, me, shmt_ofi.npes, b->node_of_pe,
                             shmt_ofi_av_name, NULL);
    if (pe < 0)
        return 0;
    len = sizeof(name);
    shmt_ofi_av_name(me, name, &len, NULL);
    shmt_ofi_addr_text(fmt, name, len, mtext, sizeof(mtext));
    len = sizeof(name);
    shmt_ofi_av_name(pe, name, &len, NULL);
    shmt_ofi_addr_text(fmt, name, len, ttext, sizeof(ttext));
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
