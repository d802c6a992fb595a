"""Options and output of the Python micro-benchmarks, the same as the C
ones' (bench/bench_util.h), so that bench/python/compare reads both alike.

Every program takes --min, --max, --iters, --warmup and --csv; with --csv
it prints "benchmark,size,value,unit" lines, else "# benchmark (unit)" and
one "size value" line per message size.
"""
import argparse


def parse(prog, default_max, extra=None):
    """The common options (and the program's own, added by extra(parser))."""
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("--min", type=int, default=1, help="first size, bytes")
    p.add_argument("--max", type=int, default=default_max,
                   help="last size, bytes (doubling from --min)")
    p.add_argument("--iters", type=int, default=10000,
                   help="timed iterations for messages up to 8 KiB")
    p.add_argument("--warmup", type=int, default=1000,
                   help="untimed iterations before timing")
    p.add_argument("--csv", action="store_true",
                   help="benchmark,size,value,unit lines")
    if extra is not None:
        extra(p)
    o = p.parse_args()
    if o.min < 1 or o.max < o.min or o.iters < 1 or o.warmup < 0:
        p.error("need 1 <= --min <= --max, --iters >= 1, --warmup >= 0")
    return o


def sizes(o):
    """The message sizes, doubling from o.min up to o.max."""
    s = o.min
    while s <= o.max:
        yield s
        s *= 2


def iters_for(o, size):
    """Fewer iterations for large messages, as bench_iters_for() in C."""
    n = o.iters
    if size > 8192:
        n = int(o.iters * 8192.0 / size)
    return max(n, 20)


def header(o, name, unit):
    if not o.csv:
        print("# %s (%s)\n# %-10s %14s" % (name, unit, "size", unit), flush=True)


def row(o, name, unit, size, value):
    if o.csv:
        print("%s,%d,%.4f,%s" % (name, size, value, unit), flush=True)
    else:
        print("  %-10d %14.3f" % (size, value), flush=True)
