/*
 * The few core symbols the bootstrap uses (logging, the heap objects'
 * names), for test programs that link src/boot alone and not the whole
 * library.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/heap/shm_names.h"
#include "services/error.h"

int shmi_log_level = SHMI_LOG_WARN;

void shmi_log_print(int level, const char *subsys, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "weft %s %s: %s\n", subsys,
            level == SHMI_LOG_ERROR ? "error" : "message", msg);
}

/* The heap's names in /dev/shm: a program without a heap has none. */
void shmi_shm_names_abandon(const char *jobid)
{
    (void)jobid;
}
