/*
 * Internal error codes, logging and the one fatal path.
 *
 * Internal functions return int: 0, or a negative SHMI_E* code that
 * shmi_strerror() describes. Output parameters are set only on success.
 */
#ifndef SHMI_ERROR_H
#define SHMI_ERROR_H

#include <stdarg.h>

enum {
    SHMI_SUCCESS = 0,
    SHMI_EINVAL = -1,   /* invalid argument or environment value */
    SHMI_ENOMEM = -2,   /* out of memory (host or symmetric) */
    SHMI_ENOSYS = -3,   /* operation not provided by this transport */
    SHMI_EIO = -4,      /* a transport or bootstrap operation failed */
    SHMI_ERANGE = -5,   /* PE or address out of range */
    SHMI_EAGAIN = -6,   /* resource temporarily busy; retry after progress */
    SHMI_ENOTSUP = -7,  /* not supported in this configuration */
    SHMI_ESTATE = -8,   /* called in the wrong library state */
    SHMI_ENODEV = -9,   /* no device (GPU) or no usable provider */
    SHMI_ETIMEDOUT = -10,
    SHMI_ENOSPC = -11,  /* no room left where an object lives (/dev/shm) */
};

/* Text for a SHMI_E* code (static storage). */
const char *shmi_strerror(int code);

/* Log levels: a message is printed when its level <= shmi_log_level. */
typedef enum shmi_log_level {
    SHMI_LOG_ERROR = 0,
    SHMI_LOG_WARN = 1,
    SHMI_LOG_INFO = 2,
    SHMI_LOG_DEBUG = 3,
    SHMI_LOG_TRACE = 4
} shmi_log_level_t;

/* Current level; WARN by default, DEBUG with SHMEM_DEBUG=1 (set by env.c). */
extern int shmi_log_level;

/* This PE's number in message prefixes, set by shmem_init once the
 * bootstrap knows it (src/core/init.c); -1 before, when the launcher's
 * PMIX_RANK is printed if there is one. */
extern int shmi_log_pe;

/* Prints "weft[pe N] subsys: message" to stderr; use SHMI_LOG. */
void shmi_log_print(int level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks the level before the arguments are evaluated or formatted. */
#define SHMI_LOG(level, subsys, ...)                                           \
    do {                                                                       \
        if ((level) <= shmi_log_level)                                         \
            shmi_log_print((level), (subsys), __VA_ARGS__);                    \
    } while (0)

/*
 * The fatal path: prints "weft[pe N] file:line func: message" and ends the
 * whole job (every PE, not only this one) through the bootstrap's abort, with
 * a non-zero status.
 */
_Noreturn void shmi_fatal_at(const char *file, int line, const char *func,
                             const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define SHMI_FATAL(...) shmi_fatal_at(__FILE__, __LINE__, __func__, __VA_ARGS__)

/*
 * Hook the fatal path calls to end the job; the bootstrap installs one that
 * asks the launcher to kill every PE. Before that, the process exits.
 */
extern void (*shmi_abort_hook)(int status, const char *msg);

#endif /* SHMI_ERROR_H */
