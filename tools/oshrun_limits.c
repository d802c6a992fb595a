/*
 * What the node lets a local job have, as the kernel says it: how many
 * processes (checked against -n before anything starts, and named when a
 * fork fails anyway), and whether its out-of-memory killer acted while the
 * job ran (named when a PE dies of SIGKILL).
 *
 * Everything here reads /proc and the cgroup files of oshrun's own cgroup
 * (the PEs inherit it): no privilege needed, and a file that cannot be read
 * only means that oshrun says less.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tools/oshrun.h"

/*
 * The most PEs oshrun starts on one node. Every PE of a node maps the
 * symmetric heap of every other one (docs/design.md, section 1) and is
 * sent the description of the whole job by oshrun's PMIx server, so
 * memory, mappings and start-up time grow as the square of the PEs per
 * node. Nodes have at most a few hundred cores: 4096 still allows ten PEs
 * a core and more (oversubscribed tests), while a slip such as -n 100000
 * is refused at once instead of forking for minutes until a limit stops
 * it. Larger jobs span nodes (--launcher srun or mpirun).
 */
#define OSHRUN_MAX_LOCAL_PES 4096

/* Tasks (processes and threads, which the kernel counts alike against
 * RLIMIT_NPROC, kernel.threads-max and a cgroup's pids.max) each PE takes
 * at the least: its process and the thread that serves its PMIx
 * connection. */
#define OSHRUN_TASKS_PER_PE 2

/* A number from a /proc or /sys file: the value after key (a line
 * "key value" or "key:\tvalue"), or the first number when key is NULL;
 * -1 when absent, -2 for "max" (no limit). */
static long long read_value(const char *path, const char *key)
{
    char line[512];
    long long v = -1;
    size_t kl = key ? strlen(key) : 0;
    FILE *f = fopen(path, "r");

    if (!f)
        return -1;
    while (v == -1 && fgets(line, sizeof(line), f)) {
        const char *p = line;

        if (key) {
            if (strncmp(line, key, kl) != 0 ||
                !strchr(" \t:", line[kl] ? line[kl] : 'x'))
                continue;
            p = line + kl + 1;
        }
        p += strspn(p, " \t:");
        if (strncmp(p, "max", 3) == 0)
            v = -2;
        else if (sscanf(p, "%lld", &v) != 1)
            v = -1;
    }
    fclose(f);
    return v;
}

/* Path of file in the cgroup of oshrun that has controller ctl ("memory",
 * "pids"), under cgroup v2 or v1, found through /proc/self/cgroup and
 * /proc/self/mountinfo; 0, or -1 when there is no such readable file. */
static int cgroup_file(const char *ctl, const char *file, char *out, size_t n)
{
    char line[4096], v1[1024] = "", v2[1024] = "";
    size_t cl = strlen(ctl);
    int found = -1;
    FILE *f = fopen("/proc/self/cgroup", "r");

    while (f && fgets(line, sizeof(line), f)) {
        char *ctls = strchr(line, ':'),
             *path = ctls ? strchr(ctls + 1, ':') : 0;

        if (!path)
            continue;
        *path++ = '\0';
        path[strcspn(path, "\n")] = '\0';
        ctls++;
        if (!*ctls)
            snprintf(v2, sizeof(v2), "%s", path);
        for (char *c = ctls; *c; c += strcspn(c, ","), c += *c == ',')
            if (strncmp(c, ctl, cl) == 0 && (c[cl] == ',' || !c[cl]))
                snprintf(v1, sizeof(v1), "%s", path);
    }
    if (f)
        fclose(f);
    f = fopen("/proc/self/mountinfo", "r");
    /* "id parent dev root mountpoint opts [tags] - fstype source super" */
    while (found && f && fgets(line, sizeof(line), f)) {
        char root[1024], mnt[1024], fstype[64], super[1024];
        const char *sep = strstr(line, " - "), *cg, *rel;
        size_t rl;

        if (!sep || sscanf(line, "%*s %*s %*s %1023s %1023s", root, mnt) != 2 ||
            sscanf(sep + 3, "%63s %*s %1023s", fstype, super) != 2)
            continue;
        if (strcmp(fstype, "cgroup2") == 0)
            cg = v2;
        else if (strcmp(fstype, "cgroup") == 0 && strstr(super, ctl))
            cg = v1;
        else
            continue;
        /* A mount of a subtree (a container's) shows the paths below its
         * root. */
        rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
        if (!*cg || strncmp(cg, root, rl) != 0)
            continue;
        rel = strcmp(cg + rl, "/") == 0 ? "" : cg + rl;
        snprintf(out, n, "%s%s%s/%s", mnt, *rel && *rel != '/' ? "/" : "", rel,
                 file);
        if (access(out, R_OK) == 0)
            found = 0;
    }
    if (f)
        fclose(f);
    return found;
}

/* The real uid's tasks (processes and their threads), as RLIMIT_NPROC
 * counts them; -1 when /proc cannot be read. */
static long user_tasks(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    long n = 0;
    unsigned uid = (unsigned)getuid();

    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        char path[300];

        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
        if (read_value(path, "Uid") == (long long)uid) {
            long long t = read_value(path, "Threads");

            n += t > 0 ? (long)t : 1;
        }
    }
    closedir(d);
    return n;
}

/* RLIMIT_NPROC as the kernel applies it to oshrun's forks: -1 when it does
 * not (no limit, or root, or CAP_SYS_ADMIN or CAP_SYS_RESOURCE, which the
 * kernel exempts). */
static long nproc_limit(void)
{
    struct rlimit rl;
    char line[256];
    unsigned long long caps = 0;
    FILE *f;

    if (getrlimit(RLIMIT_NPROC, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        getuid() == 0)
        return -1;
    f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "CapEff: %llx", &caps) == 1)
            break;
    if (f)
        fclose(f);
    if (caps & ((1ULL << 21) | (1ULL << 24))) /* CAP_SYS_ADMIN, _RESOURCE */
        return -1;
    return (long)rl.rlim_cur;
}

/* One limit on tasks: its name, what it allows and how many are in use. */
typedef struct task_limit {
    const char *what;
    long long limit, used;
} task_limit_t;

/* The limits on tasks that apply to oshrun's forks, tightest first
 * (fewest left); returns how many were found. */
static int task_limits(task_limit_t *l)
{
    char path[2048];
    long long pid_max = read_value("/proc/sys/kernel/pid_max", NULL);
    long long thr_max = read_value("/proc/sys/kernel/threads-max", NULL);
    long long all = -1, lim;
    int n = 0;
    FILE *f = fopen("/proc/loadavg", "r");

    /* "0.00 0.01 0.05 1/345 6789": 345 tasks on the node */
    if (f && fscanf(f, "%*s %*s %*s %*d/%lld", &all) != 1)
        all = -1;
    if (f)
        fclose(f);
    lim = nproc_limit();
    if (lim >= 0)
        l[n++] = (task_limit_t){"this user's limit on processes and threads, "
                                "ulimit -u,",
                                lim, user_tasks()};
    if (cgroup_file("pids", "pids.max", path, sizeof(path)) == 0 &&
        (lim = read_value(path, NULL)) >= 0) {
        char cur[2048];

        snprintf(cur, sizeof(cur), "%.*s/pids.current",
                 (int)(strrchr(path, '/') - path), path);
        l[n++] = (task_limit_t){"the pids.max of oshrun's cgroup", lim,
                                read_value(cur, NULL)};
    }
    if (thr_max > 0 && all >= 0)
        l[n++] = (task_limit_t){"the node's kernel.threads-max", thr_max, all};
    if (pid_max > 0 && all >= 0)
        l[n++] = (task_limit_t){"the node's kernel.pid_max", pid_max, all};
    for (int i = 1; i < n; i++) /* a few entries: insertion sort */
        for (int j = i;
             j > 0 && l[j].limit - l[j].used < l[j - 1].limit - l[j - 1].used;
             j--) {
            task_limit_t t = l[j];

            l[j] = l[j - 1];
            l[j - 1] = t;
        }
    return n;
}

int oshrun_limits_check(int npes)
{
    task_limit_t l[4];
    long long need = (long long)npes * OSHRUN_TASKS_PER_PE;

    if (npes > OSHRUN_MAX_LOCAL_PES) {
        oshrun_msg("-n %d is more PEs than oshrun starts on one node (at most "
                   "%d, as every PE maps the heap of every other one); a job "
                   "that large spans nodes (--launcher srun or mpirun)",
                   npes, OSHRUN_MAX_LOCAL_PES);
        return OSHRUN_EUSAGE;
    }
    if (task_limits(l) > 0 && l[0].used >= 0 && need > l[0].limit - l[0].used) {
        long long room = (l[0].limit - l[0].used) / OSHRUN_TASKS_PER_PE;

        oshrun_msg("-n %d needs at least %lld processes and threads (%d a "
                   "PE), more than %s allows: the limit is %lld and %lld are "
                   "in use, which leaves room for %lld PEs",
                   npes, need, OSHRUN_TASKS_PER_PE, l[0].what, l[0].limit,
                   l[0].used, room < 0 ? 0 : room);
        return OSHRUN_EUSAGE;
    }
    return 0;
}

void oshrun_limits_fork_hint(char *buf, size_t n)
{
    task_limit_t l[4];

    buf[0] = '\0';
    if (errno != EAGAIN || task_limits(l) == 0)
        return;
    if (l[0].used >= 0)
        snprintf(buf, n, " (%s is %lld; %lld in use)", l[0].what, l[0].limit,
                 l[0].used);
    else
        snprintf(buf, n, " (%s is %lld)", l[0].what, l[0].limit);
}

/* Out-of-memory kills counted by the kernel when the job started: in
 * oshrun's memory cgroup (v2 memory.events, v1 memory.oom_control; v2
 * counts those of the cgroups below it too) and on the whole node. */
static char oom_cg_file[2048];
static long long oom_cg_start = -1, oom_node_start = -1;

void oshrun_oom_baseline(void)
{
    if (cgroup_file("memory", "memory.events", oom_cg_file,
                    sizeof(oom_cg_file)) != 0 &&
        cgroup_file("memory", "memory.oom_control", oom_cg_file,
                    sizeof(oom_cg_file)) != 0)
        oom_cg_file[0] = '\0';
    if (oom_cg_file[0])
        oom_cg_start = read_value(oom_cg_file, "oom_kill");
    oom_node_start = read_value("/proc/vmstat", "oom_kill");
}

/* The memory limit of the cgroup of file, as text ("" when none). */
static void cg_limit(const char *file, char *buf, size_t n)
{
    char path[2200];
    int dir = (int)(strrchr(file, '/') - file);
    long long v;

    snprintf(path, sizeof(path), "%.*s/memory.max", dir, file);
    v = read_value(path, NULL);
    if (v == -1) {
        snprintf(path, sizeof(path), "%.*s/memory.limit_in_bytes", dir, file);
        v = read_value(path, NULL);
    }
    buf[0] = '\0';
    /* v1 says "no limit" with a number near 2^63 */
    if (v > 0 && v < (1LL << 60))
        snprintf(buf, n, "; the cgroup's memory limit is %lld MiB", v >> 20);
}

const char *oshrun_oom_note(void)
{
    static char note[2600];
    long long cg = oom_cg_start >= 0 ? read_value(oom_cg_file, "oom_kill") : -1;
    long long node =
        oom_node_start >= 0 ? read_value("/proc/vmstat", "oom_kill") : -1;
    char lim[96];

    if (cg > oom_cg_start) {
        cg_limit(oom_cg_file, lim, sizeof(lim));
        snprintf(note, sizeof(note),
                 ": the kernel's out-of-memory killer ended %lld process%s "
                 "of the job's cgroup while it ran (%s counts them%s), so the "
                 "PE most likely ran out of memory",
                 cg - oom_cg_start, cg - oom_cg_start > 1 ? "es" : "",
                 oom_cg_file, lim);
    } else if (node > oom_node_start) {
        snprintf(note, sizeof(note),
                 ": the kernel's out-of-memory killer ended %lld process%s on "
                 "this node while the job ran (/proc/vmstat oom_kill), so "
                 "memory may be why",
                 node - oom_node_start, node - oom_node_start > 1 ? "es" : "");
    } else {
        note[0] = '\0';
    }
    return note;
}
