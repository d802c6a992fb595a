"""What every Python Parallel Research Kernel shares, in both versions
(OpenSHMEM through the weft package, MPI through mpi4py): argument checks,
block decomposition, the timing rule, the agreed error exit and the output
lines, all as in the C kernels (prk/common/prk.c, /prk-spec), so that
prk/compare's and bench/python/compare's parsers read both alike.

Nothing here calls OpenSHMEM or MPI: each version hands in a Comm, an
object with rank, size, model (the line after the banner names it) and
the collectives barrier(), max_int(v), max_double(v), sum_double(v).
"""
import sys
import time

PRK_VERSION = "2.17"


class PrkError(Exception):
    """An argument or size check failed on this PE (the message, without
    the "ERROR: " prefix)."""


def wtime():
    return time.perf_counter()


def parse_long(text):
    """A decimal integer filling the whole string, else None."""
    t = text.lstrip() if isinstance(text, str) else ""
    if not t:
        return None
    body = t[1:] if t[0] in "+-" else t
    if not body.isdigit():
        return None
    return int(t)


def block(n, parts, k):
    """(start, count) of part k of n points: the first n mod parts parts
    get floor(n/parts)+1 points, the others floor(n/parts), contiguous."""
    base, extra = divmod(n, parts)
    if k < extra:
        return k * (base + 1), base + 1
    return extra * (base + 1) + (k - extra) * base, base


def block_max(n, parts):
    return n // parts + (n % parts != 0)


def banner(comm, title):
    if comm.rank == 0:
        print("Parallel Research Kernels version %s" % PRK_VERSION)
        print("%s %s" % (comm.model, title), flush=True)


def agree_error(comm, msg):
    """Agrees on an error: True on every PE if any PE has msg (not None);
    PE 0 then prints one ERROR line."""
    bad = comm.max_int(1 if msg is not None else 0)
    if bad and comm.rank == 0:
        print("ERROR: %s" % (msg if msg is not None else
                             "a check failed on another PE"), flush=True)
    if bad:
        comm.barrier()
    return bool(bad)


def setup_or_exit(comm, setup):
    """Runs setup() (which raises PrkError on a bad argument) and agrees on
    the outcome; exits with status 1 on every PE when any PE failed."""
    msg, result = None, None
    try:
        result = setup()
    except PrkError as e:
        msg = str(e)
    except MemoryError:
        msg = "out of memory"
    if agree_error(comm, msg):
        sys.exit(1)
    return result


def timed_sweeps(comm, iterations, sweep):
    """The timing rule of every kernel: sweep(it) for it = 0 .. iterations
    (sweep 0 warms up); a barrier, then the clock starts at sweep 1.
    Returns this PE's elapsed seconds of the timed sweeps."""
    t0 = 0.0
    for it in range(iterations + 1):
        if it == 1:
            comm.barrier()
            t0 = wtime()
        sweep(it)
    return wtime() - t0


def avgtime(comm, local_elapsed, iterations):
    return comm.max_double(local_elapsed) / iterations


def parse_iterations(text):
    it = parse_long(text)
    if it is None or it < 1:
        raise PrkError("iterations must be a positive integer: %s" % text)
    return it
