#!/usr/bin/env bash
# The arrows between the tree's layers run one way (docs/architecture.md,
# "The layers"): public API -> core -> transports and GPU back ends ->
# services, with boot and topo beside the core. Checked from the #include
# lines, the core's strings and its calls:
#
#   services  src/services/ includes nothing of src/core, src/gpu, src/boot,
#             src/topo or transports/;
#   transport transports/ includes no header of src/core, src/gpu, src/boot,
#             src/topo or src/api, and no transport includes another
#             transport's header; src/ and tools/ include no transport's own
#             header, only transports/transport.h;
#   provider  no libfabric provider name appears in src/core (the core
#             chooses by the capabilities transports declare, not by name);
#   boot      src/boot/ includes only boot/ and services/ headers; only
#             src/boot, src/topo and src/core include boot/ headers;
#   topo      src/topo/ includes only topo/, boot/ and services/ headers;
#             only src/topo and src/core include topo/ headers;
#   gpu       the GPU back ends (src/gpu/) are leaves: they include only
#             gpu/ and services/ headers (and the public ones); outside
#             src/gpu only the core includes a gpu/ header, and only the
#             interface gpu/gpu.h; no string "mock", "cuda" or "hip" and no
#             shmi_gpu_{mock,cuda,hip}_* name in the code of src/core
#             (comments aside): a back end says what it is through its ops;
#   tools     tools/ includes only tools/, services/ and transports/
#             transport.h (and the public headers);
#   api       nothing outside src/api includes an api/ header: the
#             generated wrappers call the core, never the other way round
#             (the core's generated declarations are src/core/core_decl.h);
#   cycle     the include graph among src/core's parts has no cycle. A part
#             is a subfolder (coll/, engine/, heap/, kernel/, stream/,
#             team/: every file in it) or a top-level header of src/core
#             (each its own part). A top-level .c file is no part: nothing
#             includes it, so it closes no cycle (init.c and the entry
#             points may include any part). Each cycle found is printed;
#   engine    src/core/engine/ includes nothing of coll/, stream/, kernel/,
#             heap/ or lock: the engine is below them;
#   entry     no file in src/core/coll, src/core/stream, src/core/kernel,
#             src/core/heap or src/core/lock.c calls a routine-named entry
#             point (shmi_put, shmi_get, their _nbi forms, shmi_iput,
#             shmi_iget, shmi_amo, shmi_put_signal, shmi_*_runtime,
#             shmi_ctx_quiet, shmi_quiet): they call the engine, which
#             checks nothing again.
#
#   layering.sh SRCDIR        check the tree
#   layering.sh --self-test   check that the checker catches each rule
set -u

check_tree() {
    python3 - "$1" <<'PY'
import os, re, sys

root = sys.argv[1]
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A string that is a libfabric provider's name, as code that decides by
# name would compare it ("shm", "tcp;ofi_rxm", "cxi").
prov = re.compile(r'"((?:shm|tcp|udp|cxi|verbs|sockets|psm2|psm3|efa|opx|'
                  r'ofi_rxm|ofi_rxd)(?:;ofi_rx[md])?)"')
# A GPU back end named in code: its name as a string, or its own symbols.
gpu_name = re.compile(r'"(mock|cuda|hip)"|\b(shmi_gpu_(?:mock|cuda|hip)_\w*)')
# A call of a routine-named entry point (it checks its arguments).
entry = re.compile(r'\b(shmi_(?:put|get|put_nbi|get_nbi|iput|iget|amo|'
                   r'put_signal|ctx_quiet|quiet)|shmi_(?!dp_|gpu_)\w+_runtime)'
                   r'\s*\(')
bad = 0


def files(top):
    for dirpath, dirs, names in os.walk(os.path.join(root, top)):
        dirs[:] = [d for d in dirs if d not in (".libs", ".deps")]
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                p = os.path.join(dirpath, n)
                yield os.path.relpath(p, root), open(p, encoding="utf-8",
                                                     errors="replace").read()


def code_of(body):
    """body without its comments (their lines kept, for line numbers)."""
    body = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  body, flags=re.S)
    return re.sub(r"//[^\n]*", "", body)


def report(rel, what):
    global bad
    print(f"{rel}: {what}")
    bad += 1


def only(top, allowed, why):
    """Every project header included under top starts with one of
    allowed (config.h and the public headers, which name no layer, pass)."""
    layers = ("core/", "gpu/", "boot/", "topo/", "api/", "services/",
              "transports/", "tools/")
    for rel, body in files(top):
        for h in inc.findall(body):
            if h.startswith(layers) and not h.startswith(allowed):
                report(rel, f"includes {h} ({why})")


# services, transports, provider
for rel, body in files("src/services"):
    for h in inc.findall(body):
        if re.match(r"(core|gpu|boot|topo|transports)/", h):
            report(rel, f"a service includes {h} (services include only "
                        "services)")
for rel, body in files("transports"):
    own = rel.split(os.sep)[1] if rel.count(os.sep) >= 2 else None
    for h in inc.findall(body):
        if re.match(r"(core|gpu|boot|topo|api)/", h):
            report(rel, f"a transport includes {h} (it is handed what it "
                        "needs: transports/transport.h, shmt_job_t)")
        m = re.match(r"transports/([^/]+)/", h)
        if m and m.group(1) != own:
            report(rel, f"includes another transport's header {h}")
for top in ("src", "tools"):
    for rel, body in files(top):
        for h in inc.findall(body):
            if h.startswith("transports/") and h != "transports/transport.h":
                report(rel, f"includes {h}, a transport's own header (the "
                            "core and the tools know transports through "
                            "transports/transport.h)")
for rel, body in files("src/core"):
    for m in prov.finditer(code_of(body)):
        report(rel, f"names the provider {m.group(1)!r} in {m.group(0)} "
                    "(choose by the capabilities transports declare)")

# boot, topo, gpu, tools: what each may include
only("src/boot", ("boot/", "services/"),
     "boot includes only boot/ and services/: hand it what it needs")
only("src/topo", ("topo/", "boot/", "services/"),
     "topo includes only topo/, boot/ and services/: hand it what it needs")
only("src/gpu", ("gpu/", "services/"),
     "a GPU back end is a leaf: gpu/ and services/ only")
only("tools", ("tools/", "services/", "transports/transport.h"),
     "a tool includes tools/, services/ and transports/transport.h")

# who may include boot/, topo/, gpu/, api/
for top in ("src", "transports", "tools"):
    for rel, body in files(top):
        area = "/".join(rel.split(os.sep)[:2])
        for h in inc.findall(body):
            if h.startswith("boot/") and area not in ("src/boot", "src/topo",
                                                      "src/core"):
                report(rel, f"includes {h} (only boot, topo and the core "
                            "include boot/)")
            if h.startswith("topo/") and area not in ("src/topo", "src/core"):
                report(rel, f"includes {h} (only topo and the core include "
                            "topo/)")
            if (h.startswith("gpu/") and area != "src/gpu" and
                    not (area == "src/core" and h == "gpu/gpu.h")):
                report(rel, f"includes {h} (outside src/gpu only the core "
                            "includes a gpu/ header, and only gpu/gpu.h)")
            if h.startswith("api/") and area != "src/api":
                report(rel, f"includes {h} (the generated API calls the "
                            "core: the core's declarations are "
                            "core/core_decl.h)")

# the core names no GPU back end
for rel, body in files("src/core"):
    for m in gpu_name.finditer(code_of(body)):
        report(rel, f"names the GPU back end {m.group(0)} (a back end says "
                    "what it is through its ops, services/gpu_ops.h)")


# cycle: the include graph among src/core's parts
def part(rel):
    """The part of src/core a path (relative to src/core) belongs to, or
    None for a top-level .c file."""
    head, _, rest = rel.partition("/")
    if rest:
        return head + "/"
    return rel if rel.endswith(".h") else None


graph = {}
for rel, body in files("src/core"):
    a = part(os.path.relpath(os.path.join(root, rel),
                             os.path.join(root, "src/core")).replace(os.sep,
                                                                     "/"))
    if a is None:
        continue
    for h in inc.findall(body):
        if h.startswith("core/"):
            b = part(h[len("core/"):])
            if b and b != a:
                graph.setdefault(a, {}).setdefault(b, f"{rel} includes {h}")


def cycles(g):
    """One cycle per strongly connected component of more than one part
    (Tarjan), as the list of its parts, first part repeated at the end."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append((path_in(g, comp, min(comp)), sorted(comp)))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def path_in(g, comp, start):
    """A cycle through start inside comp (breadth-first back to start)."""
    prev, todo = {start: None}, [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(g.get(v, {})):
            if w == start:
                cyc = [v]
                while prev[cyc[-1]] is not None:
                    cyc.append(prev[cyc[-1]])
                return cyc[::-1] + [start]
            if w in comp and w not in prev:
                prev[w] = v
                todo.append(w)
    return [start]


for cyc, comp in cycles(graph):
    why = "; ".join(graph[a][b] for a, b in zip(cyc, cyc[1:]))
    report("src/core", "include cycle " + " -> ".join(cyc) + f" ({why}); "
           "every part on a cycle with it: " + " ".join(comp))

# engine: below coll, stream, kernel, heap and lock
for rel, body in files("src/core/engine"):
    for h in inc.findall(body):
        if re.match(r"core/(coll|stream|kernel|heap)/|core/lock[._]", h):
            report(rel, f"the engine includes {h} (the engine is below "
                        "coll, stream, kernel, heap and lock)")

# entry: the layers above the engine call the engine
for top in ("src/core/coll", "src/core/stream", "src/core/kernel",
            "src/core/heap", "src/core/lock.c"):
    if top.endswith(".c"):
        p = os.path.join(root, top)
        found = [(top, open(p, encoding="utf-8").read())] \
            if os.path.exists(p) else []
    else:
        found = files(top)
    for rel, body in found:
        code = code_of(body)
        for m in entry.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            report(f"{rel}:{line}", f"calls the entry point {m.group(1)} "
                        "(call the engine, src/core/engine)")

print(f"layering: {bad} violation(s)")
sys.exit(1 if bad else 0)
PY
}

self_test() {
    local t rc=0
    t=$(mktemp -d) || exit 1
    trap 'rm -rf "$t"' RETURN
    mkdir -p "$t/src/services" "$t/src/core/engine" "$t/src/core/coll" \
        "$t/src/core/heap" "$t/src/boot" "$t/src/topo" "$t/src/gpu" \
        "$t/tools" "$t/transports/a" "$t/transports/b"
    printf '#include "services/error.h"\n' >"$t/src/services/ok.c"
    printf '#include "transports/transport.h"\n#include "gpu/gpu.h"\n' \
        >"$t/src/core/ok.c"
    printf '#include "core/engine/engine.h"\n#include "core/heap/heap.h"\n' \
        >"$t/src/core/coll/ok.c"
    printf '#include "core/state.h"\nint f(void) { return shmi_eng_put(); }\n' \
        >"$t/src/core/engine/ok.c"
    printf '#include "boot/boot.h"\n' >"$t/src/topo/ok.c"
    printf '#include "services/error.h"\n' >"$t/src/boot/ok.c"
    printf '#include "gpu/gpu.h"\n#include "shmem/device/abi.h"\n' \
        >"$t/src/gpu/ok.c"
    printf '#include "tools/oshrun.h"\n#include "transports/transport.h"\n' \
        >"$t/tools/ok.c"
    printf '#include "transports/a/a.h"\n' >"$t/transports/a/ok.c"
    printf '/* shmi_put( in a comment */ int g(void) { return shmi_eng_get(); }\n' \
        >"$t/src/core/heap/ok.c"
    printf 'static const char *s = "shm" /* "tcp" in a comment is fine */;\n' \
        >"$t/src/core/prov.c"
    check_tree "$t" >/dev/null && { echo "self-test: a provider name passed"; rc=1; }
    rm "$t/src/core/prov.c"
    if ! check_tree "$t" >/dev/null; then
        echo "self-test: a clean tree failed:"
        check_tree "$t"
        rc=1
    fi
    # One planted violation per rule: FILE:LINE.
    for bad in 'src/services/x.c:#include "core/state.h"' \
               'transports/a/x.c:#include "core/state.h"' \
               'transports/a/y.c:#include "gpu/gpu.h"' \
               'transports/a/z.c:#include "transports/b/b.h"' \
               'src/core/x.c:#include "transports/a/a.h"' \
               'src/boot/x.c:#include "core/heap/heap.h"' \
               'src/boot/y.c:#include "topo/placement.h"' \
               'src/topo/x.c:#include "core/state.h"' \
               'src/services/y.c:#include "boot/boot.h"' \
               'src/gpu/x.c:#include "topo/placement.h"' \
               'src/gpu/y.c:#include "core/state.h"' \
               'src/core/y.c:#include "gpu/gpu_mock.h"' \
               'src/core/z.c:static const char *b = "cuda";' \
               'src/core/w.c:int n(void) { return shmi_gpu_mock_thread() != 0; }' \
               'tools/x.c:#include "transports/a/a_caps.h"' \
               'tools/y.c:#include "core/state.h"' \
               'src/core/v.c:#include "api/gen/core_decl.h"' \
               'src/core/heap/x.c:#include "core/coll/coll.h"' \
               'src/core/engine/x.c:#include "core/coll/coll.h"' \
               'src/core/engine/y.c:#include "core/lock.h"' \
               'src/core/coll/x.c:void f(void) { shmi_put(0, 0, 0, 0, 0); }' \
               'src/core/heap/y.c:void f(void) { shmi_get_runtime(0, 0, 0); }' \
               'src/core/lock.c:void f(void) { shmi_quiet(); }'; do
        f=${bad%%:*}
        printf '%s\n' "${bad#*:}" >"$t/$f"
        if check_tree "$t" >/dev/null; then
            echo "self-test: not caught: $bad"
            rc=1
        fi
        rm "$t/$f"
    done
    # A cycle between two parts is printed with the include that closes it.
    printf '#include "core/coll/coll.h"\n' >"$t/src/core/heap/x.h"
    if ! check_tree "$t" | grep -q 'include cycle coll/ -> heap/ -> coll/'; then
        echo "self-test: a cycle not caught"
        rc=1
    fi
    rm "$t/src/core/heap/x.h"
    printf '#include "core/coll/coll.h"\n' >"$t/src/core/base.h"
    printf '#include "core/base.h"\n' >"$t/src/core/engine/x.h"
    if ! check_tree "$t" | grep -q 'include cycle.*base.h'; then
        echo "self-test: a cycle through a top-level header not caught"
        rc=1
    fi
    [ $rc = 0 ] && echo "layering self-test: every rule caught"
    return $rc
}

case "${1:-}" in
--self-test) self_test ;;
"") echo "usage: layering.sh SRCDIR | --self-test" >&2; exit 2 ;;
*) check_tree "$1" ;;
esac
