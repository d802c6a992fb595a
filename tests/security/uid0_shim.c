/*
 * LD_PRELOAD shim for tests/security: the process claims to be uid and gid
 * CLAIM_ID (0, root, unless the build says otherwise). libpmix's "native"
 * security module sends what getuid/geteuid and getgid/getegid return as
 * the client's credential over TCP, so with this shim an unprivileged
 * client presents itself as root to a server that believes it
 * (pmix_attack.sh), and a root client as uid 1, which the server refuses
 * (rejected_handshake.sh). The kernel's view of the process does not
 * change.
 */
#include <sys/types.h>
#include <unistd.h>

#ifndef CLAIM_ID
#define CLAIM_ID 0
#endif

uid_t getuid(void)
{
    return CLAIM_ID;
}

uid_t geteuid(void)
{
    return CLAIM_ID;
}

gid_t getgid(void)
{
    return CLAIM_ID;
}

gid_t getegid(void)
{
    return CLAIM_ID;
}
