/*
 * The other end of an accepted loopback TCP connection, as the kernel knows
 * it: the uid that owns that socket and its inode (which names it in the
 * owner's /proc/<pid>/fd). oshrun_peer.c decides from them whether the
 * connection comes from the job.
 *
 * The kernel is asked for that one socket through sock_diag (netlink), as
 * ss(8) does; where netlink is not available, the table /proc/net/tcp (or
 * tcp6) is read instead, which costs a scan of every TCP socket of the node.
 */
#define _GNU_SOURCE
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "tools/oshrun.h"

/* One end of a connection: family, address bytes (4 or 16), port. */
typedef struct sock_end {
    int family;
    unsigned char addr[16];
    size_t len;
    unsigned port;
} sock_end_t;

static int end_of(const struct sockaddr_storage *ss, sock_end_t *e)
{
    e->family = ss->ss_family;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)ss;
        e->len = 4;
        memcpy(e->addr, &in->sin_addr, 4);
        e->port = ntohs(in->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const void *)ss;
        e->len = 16;
        memcpy(e->addr, &in6->sin6_addr, 16);
        e->port = ntohs(in6->sin6_port);
    } else {
        return -1;
    }
    return 0;
}

/* The socket whose own end is `own` and whose other end is `other`,
 * looked up by the kernel (sock_diag, exact match): 0, -ENOENT when the
 * kernel has no such socket, -1 when it could not be asked. */
static int diag_lookup(const sock_end_t *own, const sock_end_t *other,
                       unsigned *uid, unsigned long *inode)
{
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 req;
    } msg;
    union {
        struct nlmsghdr nlh;
        char bytes[4096];
    } reply;
    struct timeval limit = {1, 0}; /* the kernel answers at once */
    const struct inet_diag_msg *m;
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    ssize_t n = -1;

    if (fd < 0)
        return -1;
    memset(&msg, 0, sizeof(msg));
    msg.nlh.nlmsg_len = sizeof(msg);
    msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    msg.nlh.nlmsg_flags = NLM_F_REQUEST;
    msg.req.sdiag_family = (unsigned char)own->family;
    msg.req.sdiag_protocol = IPPROTO_TCP;
    msg.req.idiag_states = ~0U;
    msg.req.id.idiag_sport = htons((unsigned short)own->port);
    msg.req.id.idiag_dport = htons((unsigned short)other->port);
    memcpy(msg.req.id.idiag_src, own->addr, own->len);
    memcpy(msg.req.id.idiag_dst, other->addr, other->len);
    msg.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    msg.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit)) == 0 &&
        send(fd, &msg, sizeof(msg), 0) == (ssize_t)sizeof(msg))
        n = recv(fd, &reply, sizeof(reply), 0);
    close(fd);
    if (n < 0 || !NLMSG_OK(&reply.nlh, (size_t)n))
        return -1;
    if (reply.nlh.nlmsg_type == NLMSG_ERROR &&
        reply.nlh.nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
        ((const struct nlmsgerr *)NLMSG_DATA(&reply.nlh))->error == -ENOENT)
        return -ENOENT; /* the client has closed it already */
    if (reply.nlh.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
        reply.nlh.nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
        return -1;
    m = NLMSG_DATA(&reply.nlh);
    *uid = m->idiag_uid;
    *inode = m->idiag_inode;
    return 0;
}

/* An address as /proc/net/tcp{,6} prints it: each 32-bit word as the host
 * reads it (little-endian on the machines Weft supports: 127.0.0.1 is
 * 0100007F). */
static void proc_hex(const sock_end_t *e, char hex[33])
{
    size_t off = 0;

    for (size_t w = 0; w < e->len; w += 4)
        for (int i = 3; i >= 0; i--)
            off += (size_t)sprintf(hex + off, "%02X", e->addr[w + (size_t)i]);
}

/* diag_lookup() from the table in /proc/net/tcp (or tcp6). */
static int proc_lookup(const sock_end_t *own, const sock_end_t *other,
                       unsigned *uid, unsigned long *inode)
{
    FILE *f =
        fopen(own->family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6", "r");
    char line[512], la[40], ra[40], own_hex[33], other_hex[33];
    unsigned lp, rp, u;
    unsigned long ino;
    int ret = -1;

    if (!f)
        return -1;
    proc_hex(own, own_hex);
    proc_hex(other, other_hex);
    while (ret && fgets(line, sizeof(line), f))
        if (sscanf(line,
                   " %*d: %39[0-9A-F]:%x %39[0-9A-F]:%x %*x %*x:%*x "
                   "%*x:%*x %*x %u %*d %lu",
                   la, &lp, ra, &rp, &u, &ino) == 6 &&
            lp == own->port && rp == other->port && strcmp(la, own_hex) == 0 &&
            strcmp(ra, other_hex) == 0) {
            *uid = u;
            *inode = ino;
            ret = 0;
        }
    fclose(f);
    return ret;
}

int oshrun_sock_peer(int sd, unsigned *uid, unsigned long *inode)
{
    struct sockaddr_storage me, peer;
    socklen_t ml = sizeof(me), pl = sizeof(peer);
    sock_end_t mine, theirs;
    int ret;

    if (getsockname(sd, (struct sockaddr *)&me, &ml) != 0 ||
        getpeername(sd, (struct sockaddr *)&peer, &pl) != 0 ||
        end_of(&me, &mine) != 0 || end_of(&peer, &theirs) != 0 ||
        mine.family != theirs.family)
        return -1;
    /* The client's socket: its own end is our peer, its other end us. The
     * table is read only where the kernel could not be asked, so that a
     * client that connects and closes at once cannot make every refusal
     * cost a scan of it. */
    ret = diag_lookup(&theirs, &mine, uid, inode);
    if (ret == -1)
        ret = proc_lookup(&theirs, &mine, uid, inode);
    return ret == 0 ? 0 : -1;
}
