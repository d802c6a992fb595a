/*
 * Unit test of src/services/shm_names.c, without any PE: a process that
 * holds a POSIX heap object name and ends by a signal, by exit() or by the
 * fatal path leaves no name in /dev/shm; a signal first removes the name,
 * then does what it did before (default action, the program's handler, or
 * nothing when ignored); a dead peer's name of the same job goes, a live
 * one's, another job's and a malformed one stay; once the name is released
 * the signal actions and the abort hook are the program's again.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "services/shm_names.h"
#include "core/heap/shm_object.h"
#include "core/state.h"
#include "services/error.h"
#include "tests/common/check.h"

static char job[40];
static volatile sig_atomic_t got_signal;

static int exists(const char *name) /* name with its leading '/' */
{
    char path[160];

    snprintf(path, sizeof(path), "/dev/shm%s", name);
    return access(path, F_OK) == 0;
}

/* A name as another PE of this job (or another job) would have made it. */
static void fake_name(char *out, size_t len, const char *j, const char *rank,
                      long pid)
{
    int fd;

    snprintf(out, len, "/weft-%s-%s-%ld-heap", j, rank, pid);
    fd = shm_open(out, O_RDWR | O_CREAT | O_EXCL, 0600);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
}

static long dead_pid(void)
{
    pid_t pid = fork();

    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return (long)pid;
}

static void on_user_signal(int sig)
{
    (void)sig;
    got_signal = 1;
}

/* How the child ends while it holds its heap object's name. */
enum ending { BY_TERM, BY_USER_HANDLER, BY_IGNORED, BY_EXIT, BY_FATAL };

static void child(enum ending how, int report)
{
    shmi_shm_t obj;

    if (how == BY_USER_HANDLER)
        signal(SIGTERM, on_user_signal);
    if (how == BY_IGNORED)
        signal(SIGTERM, SIG_IGN);
    if (shmi_shm_create("posix", "heap", 1 << 20, &obj) != 0)
        _exit(90);
    if (write(report, obj.desc.name, sizeof(obj.desc.name)) < 0)
        _exit(91);
    if (how == BY_EXIT)
        exit(0);
    if (how == BY_FATAL)
        SHMI_FATAL("unit test: fatal while the name exists");
    raise(SIGTERM);
    /* Still here: a program's handler ran, or SIGTERM is ignored. */
    if (how == BY_USER_HANDLER && !got_signal)
        _exit(92);
    if (how == BY_IGNORED && !exists(obj.desc.name))
        _exit(93); /* an ignored signal must not take the name */
    shmi_shm_release(&obj);
    _exit(0);
}

/* Runs child(how); returns its wait status and the name it held. */
static int run_child(enum ending how, char *name, size_t len)
{
    int fds[2], status = -1;
    pid_t pid;

    name[0] = '\0';
    if (pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child(how, fds[1]);
    }
    close(fds[1]);
    if (read(fds[0], name, len) <= 0)
        name[0] = '\0';
    close(fds[0]);
    waitpid(pid, &status, 0);
    return status;
}

static void test_endings(void)
{
    char name[96], dead[128], live[128], other[128], bad[128];
    int st;

    fake_name(dead, sizeof(dead), job, "5", dead_pid());
    fake_name(live, sizeof(live), job, "6", (long)getpid());
    fake_name(other, sizeof(other), "someotherjob", "5", dead_pid());
    fake_name(bad, sizeof(bad), job, "x", dead_pid());

    st = run_child(BY_TERM, name, sizeof(name));
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    CHECK(name[0] && !exists(name));
    CHECK(!exists(dead)); /* a dead peer of the job: its name goes */
    CHECK(exists(live) && exists(other) && exists(bad));

    st = run_child(BY_USER_HANDLER, name, sizeof(name));
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(name[0] && !exists(name));

    st = run_child(BY_IGNORED, name, sizeof(name));
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(name[0] && !exists(name));

    /* exit() and the fatal path end the job: the whole job's names go. */
    st = run_child(BY_EXIT, name, sizeof(name));
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(name[0] && !exists(name));
    CHECK(!exists(live) && exists(other) && exists(bad));

    fake_name(live, sizeof(live), job, "6", (long)getpid());
    st = run_child(BY_FATAL, name, sizeof(name));
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0);
    CHECK(name[0] && !exists(name));
    CHECK(!exists(live));

    shm_unlink(other);
    shm_unlink(bad);
}

static void test_abort_hook(int status, const char *msg)
{
    (void)status;
    (void)msg;
}

/* After the release, nothing of the guard is left in the process. */
static void test_restored(void)
{
    struct sigaction before, during, after;
    shmi_shm_t obj;
    char dead[128];

    signal(SIGTERM, SIG_DFL);
    sigaction(SIGTERM, NULL, &before);
    shmi_abort_hook = test_abort_hook;
    CHECK(shmi_shm_create("posix", "heap", 1 << 20, &obj) == 0);
    sigaction(SIGTERM, NULL, &during);
    CHECK(during.sa_flags & SA_SIGINFO);
    CHECK(shmi_abort_hook != test_abort_hook);
    /* The chained hook: the job's names go, then the previous hook. */
    fake_name(dead, sizeof(dead), job, "7", (long)getppid());
    shmi_abort_hook(1, "unit");
    CHECK(!exists(dead) && !exists(obj.desc.name));
    shmi_shm_release(&obj);
    sigaction(SIGTERM, NULL, &after);
    CHECK(!(after.sa_flags & SA_SIGINFO) && after.sa_handler == SIG_DFL);
    CHECK(shmi_abort_hook == test_abort_hook);
    shmi_abort_hook = NULL;
}

static void test_parse(void)
{
    size_t len = 0;

    CHECK(shmi_shm_name_pid("weft-abc1-3-4567-heap", &len) == 4567 && len == 4);
    CHECK(shmi_shm_name_pid("weft--0-12-data", &len) == 12 && len == 0);
    CHECK(shmi_shm_name_pid("weft-abc-3-4567-", &len) == 0);
    CHECK(shmi_shm_name_pid("weft-abc-3-x-heap", &len) == 0);
    CHECK(shmi_shm_name_pid("weft-a.c-3-45-heap", &len) == 0);
    CHECK(shmi_shm_name_pid("weft-abc-3-99999999999-heap", &len) == 0);
    CHECK(shmi_shm_name_pid("wef", &len) == 0);
    CHECK(shmi_shm_name_pid("1234:0:1", &len) == 0);
}

/* What a failed check may have left of this test's job. */
static void cleanup(void)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    char prefix[64];

    snprintf(prefix, sizeof(prefix), "weft-%s-", job);
    while (d && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            unlinkat(dirfd(d), e->d_name, 0);
    if (d)
        closedir(d);
}

int main(void)
{
    if (access("/dev/shm", W_OK) != 0) {
        printf("skipped: no writable /dev/shm\n");
        return 77;
    }
    snprintf(job, sizeof(job), "shmnamesunit%ld", (long)getpid());
    snprintf(shmi_state.boot.jobid, sizeof(shmi_state.boot.jobid),
             "shm.names.unit.%ld", (long)getpid());
    test_parse();
    test_endings();
    test_restored();
    cleanup();
    return check_end("shm_names_unit");
}
