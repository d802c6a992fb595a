#!/usr/bin/env bash
# The arrows between the tree's layers run one way (docs/architecture.md,
# "The layers"): public API -> core -> transports and GPU back ends ->
# services. Checked from the #include lines and the core's strings:
#
#   - src/services/ includes nothing of src/core, src/gpu, src/boot,
#     src/topo or transports/;
#   - transports/ includes no header of src/core, src/gpu, src/boot or
#     src/topo, and no transport includes another transport's header;
#   - src/ includes no transport's own header, only transports/transport.h;
#   - no libfabric provider name appears in src/core (the core chooses by
#     the capabilities transports declare, not by name).
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
bad = 0


def files(top):
    for dirpath, dirs, names in os.walk(os.path.join(root, top)):
        dirs[:] = [d for d in dirs if d not in (".libs", ".deps")]
        for n in names:
            if n.endswith((".c", ".h")):
                p = os.path.join(dirpath, n)
                yield os.path.relpath(p, root), open(p, encoding="utf-8",
                                                     errors="replace").read()


def report(rel, what):
    global bad
    print(f"{rel}: {what}")
    bad += 1


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
for rel, body in files("src"):
    for h in inc.findall(body):
        if h.startswith("transports/") and h != "transports/transport.h":
            report(rel, f"includes {h}, a transport's own header (the core "
                        "knows transports through transports/transport.h)")
for rel, body in files("src/core"):
    code = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    for m in prov.finditer(code):
        report(rel, f"names the provider {m.group(1)!r} in {m.group(0)} "
                    "(choose by the capabilities transports declare)")
print(f"layering: {bad} violation(s)")
sys.exit(1 if bad else 0)
PY
}

self_test() {
    local t rc=0
    t=$(mktemp -d) || exit 1
    trap 'rm -rf "$t"' RETURN
    mkdir -p "$t/src/services" "$t/src/core" "$t/transports/a" "$t/transports/b"
    printf '#include "services/error.h"\n' >"$t/src/services/ok.c"
    printf '#include "transports/transport.h"\n' >"$t/src/core/ok.c"
    printf '#include "transports/a/a.h"\n' >"$t/transports/a/ok.c"
    printf 'static const char *s = "shm" /* "tcp" in a comment is fine */;\n' \
        >"$t/src/core/prov.c"
    check_tree "$t" >/dev/null && { echo "self-test: a provider name passed"; rc=1; }
    rm "$t/src/core/prov.c"
    check_tree "$t" >/dev/null || { echo "self-test: a clean tree failed"; rc=1; }
    for bad in 'src/services/x.c:#include "core/state.h"' \
               'transports/a/x.c:#include "core/state.h"' \
               'transports/a/y.c:#include "gpu/gpu.h"' \
               'transports/a/z.c:#include "transports/b/b.h"' \
               'src/core/x.c:#include "transports/a/a.h"'; do
        f=${bad%%:*}
        printf '%s\n' "${bad#*:}" >"$t/$f"
        if check_tree "$t" >/dev/null; then
            echo "self-test: not caught: $bad"
            rc=1
        fi
        rm "$t/$f"
    done
    [ $rc = 0 ] && echo "layering self-test: every rule caught"
    return $rc
}

case "${1:-}" in
--self-test) self_test ;;
"") echo "usage: layering.sh SRCDIR | --self-test" >&2; exit 2 ;;
*) check_tree "$1" ;;
esac
