/*
 * PE output: bytes from each PE's pipe are held until a line is complete and
 * then written with one write(), so lines of different PEs never mix even
 * when a PE's stdio flushes mid-line.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/oshrun.h"

/* A line longer than this is written in pieces rather than held forever. */
#define LINE_MAX_HELD 65536

void oshrun_stream_init(oshrun_stream_t *s, int fd, int out)
{
    memset(s, 0, sizeof(*s));
    s->fd = fd;
    s->out = out;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* our own output is gone: nothing better to do */
        p += w;
        n -= (size_t)w;
    }
}

/* Writes the first n bytes of the buffer (whole lines unless forced),
 * prefixing each line when tagging. */
static void emit(oshrun_stream_t *s, size_t n, int rank, int tag)
{
    char prefix[32];
    size_t plen, lines = 0, at = 0;
    char *out;

    if (!tag) {
        write_all(s->out, s->buf, n);
        return;
    }
    plen = (size_t)snprintf(prefix, sizeof(prefix), "[pe %d] ", rank);
    for (size_t i = 0; i < n; i++)
        lines += s->buf[i] == '\n';
    out = malloc(n + (lines + 1) * plen);
    if (!out) {
        write_all(s->out, s->buf, n);
        return;
    }
    for (size_t i = 0; i < n;) {
        size_t end = i;

        while (end < n && s->buf[end] != '\n')
            end++;
        end += end < n; /* include the newline */
        memcpy(out + at, prefix, plen);
        memcpy(out + at + plen, s->buf + i, end - i);
        at += plen + end - i;
        i = end;
    }
    write_all(s->out, out, at);
    free(out);
}

static void consume(oshrun_stream_t *s, size_t n)
{
    memmove(s->buf, s->buf + n, s->len - n);
    s->len -= n;
}

/* Reads what is available; returns 1 at end of stream, -1 when nothing was
 * there, else 0. */
int oshrun_stream_read(oshrun_stream_t *s, int rank, int tag)
{
    ssize_t r;
    size_t last = 0;

    if (s->cap - s->len < 4096) {
        size_t cap = s->cap ? s->cap * 2 : 8192;
        char *b = realloc(s->buf, cap);

        if (!b)
            return -1; /* retried on the next poll */
        s->buf = b;
        s->cap = cap;
    }
    r = read(s->fd, s->buf + s->len, s->cap - s->len);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return -1;
    if (r <= 0) {
        oshrun_stream_flush(s, rank, tag);
        close(s->fd);
        s->fd = -1;
        return 1;
    }
    s->len += (size_t)r;
    for (size_t i = 0; i < s->len; i++)
        if (s->buf[i] == '\n')
            last = i + 1;
    if (last == 0 && s->len >= LINE_MAX_HELD)
        last = s->len;
    if (last) {
        emit(s, last, rank, tag);
        consume(s, last);
    }
    return 0;
}

/* Writes whatever partial line is left (at end of stream). */
void oshrun_stream_flush(oshrun_stream_t *s, int rank, int tag)
{
    if (s->len) {
        emit(s, s->len, rank, tag);
        s->len = 0;
    }
    free(s->buf);
    s->buf = NULL;
    s->cap = 0;
}

void oshrun_stream_drain(oshrun_stream_t *s, int rank, int tag, int max_reads)
{
    for (int i = 0; i < max_reads && s->fd >= 0; i++)
        if (oshrun_stream_read(s, rank, tag) != 0)
            break;
}

void oshrun_stream_close(oshrun_stream_t *s, int rank, int tag)
{
    oshrun_stream_flush(s, rank, tag);
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}
