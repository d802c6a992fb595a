/* Error codes, logging and the fatal path (see error.h). */
#include "config.h"

#include "services/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


int shmi_log_level = SHMI_LOG_WARN;
int shmi_log_pe = -1;
void (*shmi_abort_hook)(int status, const char *msg);

const char *shmi_strerror(int code)
{
    switch (code) {
    case SHMI_SUCCESS: return "success";
    case SHMI_EINVAL: return "invalid argument";
    case SHMI_ENOMEM: return "out of memory";
    case SHMI_ENOSYS: return "operation not provided by this transport";
    case SHMI_EIO: return "transport or bootstrap failure";
    case SHMI_ERANGE: return "PE or address out of range";
    case SHMI_EAGAIN: return "resource busy, try again";
    case SHMI_ENOTSUP: return "not supported in this configuration";
    case SHMI_ESTATE: return "called in the wrong library state";
    case SHMI_ENODEV: return "no such device or provider";
    case SHMI_ETIMEDOUT: return "timed out";
    case SHMI_ENOSPC: return "no space left";
    default: return "unknown error";
    }
}

/* The PE number for message prefixes: the bootstrap's rank, else the rank
 * the launcher put in the environment, else -1 (no launcher known yet). */
static int log_pe(void)
{
    const char *r;

    if (shmi_log_pe >= 0)
        return shmi_log_pe;
    r = getenv("PMIX_RANK");
    return r && *r ? atoi(r) : -1;
}

static const char *const level_names[] = {"error", "warning", "info",
                                          "debug", "trace"};

void shmi_log_print(int level, const char *subsys, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (level < 0 || level > SHMI_LOG_TRACE)
        level = SHMI_LOG_TRACE;
    /* One write per message so that lines of different PEs do not mix. */
    fprintf(stderr, "weft[pe %d] %s %s: %s\n", log_pe(), subsys,
            level_names[level], msg);
}

_Noreturn void shmi_fatal_at(const char *file, int line, const char *func,
                             const char *fmt, ...)
{
    char msg[1024], full[1280];
    const char *base = strrchr(file, '/');
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(full, sizeof(full), "weft[pe %d] %s:%d %s: %s", log_pe(),
             base ? base + 1 : file, line, func, msg);
    fprintf(stderr, "%s\n", full);
    fflush(NULL);
    if (shmi_abort_hook)
        shmi_abort_hook(1, full);
    _exit(1);
}
