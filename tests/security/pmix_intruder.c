/*
 * A process that oshrun did not start, trying to take part in an oshrun job
 * through its PMIx server with libpmix's own client API, as any local user
 * could with the old design (tests/security/pmix_attack.sh runs it as
 * another user, with or without tests/security/uid0_shim.c, and as the
 * job's own user).
 *
 * Usage: pmix_intruder OSHRUN_PID PORT RANK
 *   Everything it needs is public: the namespace is oshrun.<pid> (ps), the
 *   server's name pmix-server.<pid>, the port is a loopback listener in
 *   /proc/net/tcp. It claims to be rank RANK, then tries PMIx_Init, a
 *   PMIx_Get of what PE 0 published (its heap descriptor), PMIx_Abort(99)
 *   and a PMIx_Fence with the job. One line per attempt:
 *   "intruder: <call>: refused (<why>)" or "intruder: <call>: succeeded".
 * Exit status: 0 when every attempt was refused, 1 when one succeeded,
 * 2 on a usage error.
 */
#define _GNU_SOURCE
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Seconds after which the intruder is ended, whatever it waits for. */
#define RUN_LIMIT 60

static int joined_any;

static void say(const char *call, pmix_status_t rc)
{
    if (rc == PMIX_SUCCESS) {
        joined_any = 1;
        printf("intruder: %s: succeeded\n", call);
    } else {
        printf("intruder: %s: refused (%s)\n", call, PMIx_Error_string(rc));
    }
    fflush(stdout);
}

/* What a PE of the job finds in its environment, rebuilt from the pid and
 * the port. */
static void pose_as_pe(const char *pid, const char *port, const char *rank)
{
    static const char *uris[] = {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4",
                                 "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
                                 "PMIX_SERVER_URI2"};
    char ns[256], uri[512], version[64] = "4.2.2";
    const char *v = strchr(PMIx_Get_version(), ' '); /* "OpenPMIx 4.2.2, ..." */

    if (v)
        snprintf(version, sizeof(version), "%.*s", (int)strcspn(v + 1, ", "),
                 v + 1);

    snprintf(ns, sizeof(ns), "oshrun.%s", pid);
    snprintf(uri, sizeof(uri), "pmix-server.%s;tcp4://127.0.0.1:%s", pid, port);
    setenv("PMIX_NAMESPACE", ns, 1);
    setenv("PMIX_RANK", rank, 1);
    for (size_t i = 0; i < sizeof(uris) / sizeof(uris[0]); i++)
        setenv(uris[i], uri, 1);
    setenv("PMIX_SECURITY_MODE", "native", 1);
    setenv("PMIX_MCA_psec", "native", 1);
    setenv("PMIX_GDS_MODULE", "hash", 1);
    setenv("PMIX_MCA_gds", "hash", 1);
    setenv("PMIX_BFROP_BUFFER_TYPE", "PMIX_BFROP_BUFFER_NON_DESC", 1);
    setenv("PMIX_VERSION", version, 1);
}

static void try_get(const pmix_proc_t *me)
{
    pmix_proc_t pe0;
    pmix_value_t *val = NULL;
    pmix_info_t info;
    int limit = 5;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&pe0, me->nspace, 0);
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &limit, PMIX_INT);
    rc = PMIx_Get(&pe0, "weft.weft.seg.heap", &info, 1, &val);
    say("PMIx_Get(PE 0, weft.weft.seg.heap)", rc);
    if (rc == PMIX_SUCCESS && val && val->type == PMIX_BYTE_OBJECT)
        printf("intruder: read %zu bytes of PE 0's heap descriptor\n",
               val->data.bo.size);
    if (val)
        PMIX_VALUE_RELEASE(val);
    PMIX_INFO_DESTRUCT(&info);
}

static void try_fence(void)
{
    pmix_info_t info;
    int limit = 3;

    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &limit, PMIX_INT);
    say("PMIx_Fence", PMIx_Fence(NULL, 0, &info, 1));
    PMIX_INFO_DESTRUCT(&info);
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_status_t rc;

    if (argc != 4) {
        fprintf(stderr, "usage: pmix_intruder OSHRUN_PID PORT RANK\n");
        return 2;
    }
    alarm(RUN_LIMIT); /* never outlive the test */
    /* What the kernel knows, then what libpmix will be told. */
    printf("intruder: uid %ld, claims uid %ld\n", (long)syscall(SYS_getuid),
           (long)geteuid());
    pose_as_pe(argv[1], argv[2], argv[3]);
    rc = PMIx_Init(&me, NULL, 0);
    say("PMIx_Init", rc);
    if (rc != PMIX_SUCCESS)
        return 0; /* nothing else can be tried without a connection */
    try_get(&me);
    /* The abort before the fence: a fence that times out (the PEs are not
     * in one) leaves libpmix 4.2 unable to deliver a later abort. */
    say("PMIx_Abort(99)", PMIx_Abort(99, "intruder", NULL, 0));
    try_fence();
    PMIx_Finalize(NULL, 0);
    return joined_any;
}
