/*
 * Unit test of the start-up reachability check (transports/ofi/ofi_reach.c)
 * on made-up jobs: which endpoint addresses are loopback ones, how they are
 * printed, and which pair of PEs on different nodes the check names. No
 * fabric is opened: the addresses come from a table.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "transports/ofi/ofi_internal.h"
#include "tests/common/check.h"

static struct sockaddr_in v4(const char *ip, unsigned port)
{
    struct sockaddr_in a = {0};

    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

static struct sockaddr_in6 v6(const char *ip, unsigned port)
{
    struct sockaddr_in6 a = {0};

    a.sin6_family = AF_INET6;
    a.sin6_port = htons((uint16_t)port);
    inet_pton(AF_INET6, ip, &a.sin6_addr);
    return a;
}

/* A made-up job: one IPv4 address per PE. */
typedef struct job {
    struct sockaddr_in addr[8];
} job_t;

static int job_name(int pe, void *name, size_t *len, void *arg)
{
    job_t *j = arg;

    if (*len < sizeof(j->addr[pe]))
        return -1;
    memcpy(name, &j->addr[pe], sizeof(j->addr[pe]));
    *len = sizeof(j->addr[pe]);
    return 0;
}

static void test_loopback(void)
{
    struct sockaddr_in a = v4("127.0.0.1", 1), b = v4("127.5.6.7", 1),
                       c = v4("10.78.0.11", 1);
    struct sockaddr_in6 d = v6("::1", 1), e = v6("::ffff:127.0.0.1", 1),
                        f = v6("fe80::1", 1);

    CHECK(shmt_ofi_addr_loopback(FI_SOCKADDR_IN, &a, sizeof(a)));
    CHECK(shmt_ofi_addr_loopback(FI_SOCKADDR_IN, &b, sizeof(b)));
    CHECK(!shmt_ofi_addr_loopback(FI_SOCKADDR_IN, &c, sizeof(c)));
    CHECK(shmt_ofi_addr_loopback(FI_SOCKADDR_IN6, &d, sizeof(d)));
    CHECK(shmt_ofi_addr_loopback(FI_SOCKADDR, &e, sizeof(e)));
    CHECK(!shmt_ofi_addr_loopback(FI_SOCKADDR_IN6, &f, sizeof(f)));
    /* not an IP address format (shm names, cxi): never judged */
    CHECK(!shmt_ofi_addr_loopback(FI_ADDR_STR, &a, sizeof(a)));
    /* too short to be what it claims */
    CHECK(!shmt_ofi_addr_loopback(FI_SOCKADDR_IN, &a, 4));
}

static void test_text(void)
{
    struct sockaddr_in a = v4("127.0.0.1", 4242);
    struct sockaddr_in6 d = v6("::1", 99);
    char buf[80];

    shmt_ofi_addr_text(FI_SOCKADDR_IN, &a, sizeof(a), buf, sizeof(buf));
    CHECK(strcmp(buf, "127.0.0.1:4242") == 0);
    shmt_ofi_addr_text(FI_SOCKADDR_IN6, &d, sizeof(d), buf, sizeof(buf));
    CHECK(strcmp(buf, "[::1]:99") == 0);
    shmt_ofi_addr_text(FI_ADDR_STR, "fi_shm://1", 11, buf, sizeof(buf));
    CHECK(strstr(buf, "address format") != NULL);
}

static void test_find(void)
{
    /* 4 PEs, 2 per node */
    int nodes2[4] = {0, 0, 1, 1}, nodes1[4] = {0, 0, 0, 0};
    job_t lo = {{v4("127.0.0.1", 1), v4("127.0.0.1", 2), v4("127.0.0.1", 3),
                 v4("127.0.0.1", 4)}};
    job_t ok = {{v4("10.78.0.11", 1), v4("10.78.0.11", 2), v4("10.78.0.12", 3),
                 v4("10.78.0.12", 4)}};
    job_t half = ok;

    /* loopback everywhere, 2 nodes: PE 0 names the first PE of node 1 */
    CHECK(shmt_ofi_reach_find(FI_SOCKADDR_IN, 0, 4, nodes2, job_name, &lo) ==
          2);
    CHECK(shmt_ofi_reach_find(FI_SOCKADDR_IN, 3, 4, nodes2, job_name, &lo) ==
          0);
    /* loopback on one node only is fine */
    CHECK(shmt_ofi_reach_find(FI_SOCKADDR_IN, 1, 4, nodes1, job_name, &lo) ==
          -1);
    /* routable addresses: nothing to report */
    for (int me = 0; me < 4; me++)
        CHECK(shmt_ofi_reach_find(FI_SOCKADDR_IN, me, 4, nodes2, job_name,
                                  &ok) == -1);
    /* one PE of node 1 listens on loopback: PEs of node 0 see it, and it
     * sees node 0, but its neighbour on node 1 is not concerned */
    half.addr[3] = v4("127.0.0.1", 4);
    CHECK(shmt_ofi_reach_find(FI_SOCKADDR_IN, 0, 4, nodes2, job_name, &half) ==
          3);
    CHECK(shmt_ofi_reach_find(FI_SOCKADDR_IN, 3, 4, nodes2, job_name, &half) ==
          0);
    CHECK(shmt_ofi_reach_find(FI_SOCKADDR_IN, 2, 4, nodes2, job_name, &half) ==
          -1);
}

int main(void)
{
    test_loopback();
    test_text();
    test_find();
    return check_end("ofi_reach_test");
}
