/*
 * The few core symbols the bootstrap uses (logging), for test programs that
 * link src/boot alone and not the whole library.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/error.h"

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
