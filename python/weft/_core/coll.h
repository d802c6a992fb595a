/* What the collectives of coll.c and coll_nb.c share: one call's
 * buffers, team and stream, resolved and checked. */
#ifndef WPY_COLL_H
#define WPY_COLL_H

#include "args.h"

/* One collective's buffers, team and stream, resolved and checked. */
typedef struct wpy_coll_call {
    wpy_buf_t target, source;
    shmem_team_t team;
    int npes;         /* PEs of the team */
    void *stream;     /* the stream of the *_on_stream form */
    int on_stream;    /* stream= given: the *_on_stream form (a NULL stream
                       * is the default stream, not the host path) */
    size_t size;      /* the size argument, or (size_t)-1 when not given */
} wpy_coll_call_t;

/* Resolves target, source (both symmetric, one dtype), size, team and
 * stream (stream_obj NULL: the routine has no stream form). 0, or -1 with
 * the exception set. */
int wpy_coll_prepare(const char *routine, PyObject *target, PyObject *source,
                     PyObject *size, PyObject *team, PyObject *stream_obj,
                     wpy_coll_call_t *c);
void wpy_coll_release(wpy_coll_call_t *c);
/* ValueError: size elements (times `times`) do not fit argument `arg`. */
int wpy_coll_size_error(const char *routine, size_t size, size_t times,
                        const char *arg, size_t count);
/* The reduction operators' names, in the order of WPY_REDUCE_AND ...
 * WPY_REDUCE_PROD, NULL-terminated. */
extern const char *const wpy_reduce_op_names[];

#endif /* WPY_COLL_H */
