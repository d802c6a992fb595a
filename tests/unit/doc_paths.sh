#!/usr/bin/env bash
# Every file that a comment or a document names exists in the tree.
#
# Reads the comments of C sources and headers, the '#' comments of shell,
# Python, make and case files, and the whole text of Markdown files, takes
# each word that looks like a file of the project (one that ends in .c, .h,
# .md, .sh, .py, .mk or .cases), and looks for it:
#   - from the top of the tree (src/core/rma.c),
#   - from the citing file's folder (rma.c next to it),
#   - as the end of a tracked path (core/dataplane.h, heap/alloc.h),
#   - a bare name (amo.c) anywhere in the tree.
# Names that are not files of the project (system headers, examples) are
# listed in ALLOWED below, each with the reason.
#
#   doc_paths.sh SRCDIR        check the tracked files of the git checkout
#                              SRCDIR (77 when SRCDIR is not one: a release
#                              tarball leaves out files that comments name)
#   doc_paths.sh --self-test   check that the checker catches a dangling name
set -u

check_tree() {
    python3 - "$1" <<'EOF'
import os, re, subprocess, sys

root = sys.argv[1]
# Names that are not files of this tree, and why.
ALLOWED = {
    "config.h": "written by configure",
    "stdio.h": "system header", "stdint.h": "system header",
    "stddef.h": "system header", "unistd.h": "system header",
    "math.h": "system header",
    "app.c": "the user's program in examples",
    "prog.py": "the user's Python program in docs/python.md",
    "Python.h": "CPython's header, which the Python package compiles against",
    "job.sh": "the user's job script in examples",
    "parent.h": "a header a test writes into its temporary folder",
    "weft-a.c": "a shared-memory name a test makes up, not a file",
    "ucx.mk": "the example transport of docs/adding-a-transport.md",
    "ucx_internal.h": "the example transport of docs/adding-a-transport.md",
    "ucx_ops.c": "the example transport of docs/adding-a-transport.md",
    "transports/ucx/ucx_ops.c": "the same example",
    "transports/ucx/ucx_internal.h": "the same example",
    "transports/ucx/ucx.mk": "the same example",
}
SCAN = ("src/", "transports/", "tools/", "docs/", "scripts/", "bench/",
        "prk/", "tests/", "include/", "README.md", "Makefile.am",
        "configure.ac")

# Tracked files and new ones not yet added (but not ignored build outputs).
files = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                        "--exclude-standard"], capture_output=True,
                       text=True, check=True).stdout.split()
tracked = set(files)
basenames = {os.path.basename(f) for f in files}

# A name starts after none of the characters of a path, a variable or a
# glob (prk/<kernel>/*_core.c is a pattern), and ends where a word does
# (a.b.c.d is an address, not a file).
ref = re.compile(r"(?<![\w/$.{}@*-])([A-Za-z0-9_][A-Za-z0-9_./-]*"
                 r"\.(?:c|h|md|sh|py|mk|cases))\b(?!\.?[\w/(-])")
c_comment = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
hash_comment = re.compile(r"(?:^|\s)#[^\n]*")


def comments(path, body):
    """The text of the comments of body, with line breaks kept."""
    if path.endswith((".c", ".h", ".cc")):
        return "\n".join(m.group(0) if m.group(0).startswith("/")
                         else "" for m in c_comment.finditer(body)), True
    if path.endswith(".md"):
        return body, False
    return "\n".join(m.group(0) for m in hash_comment.finditer(body)), True


def found(citer, name):
    if name in ALLOWED:
        return True
    name = name[2:] if name.startswith("./") else name
    here = os.path.normpath(os.path.join(os.path.dirname(citer), name))
    if name in tracked or here in tracked:
        return True
    if "/" not in name:
        return name in basenames
    return any(f.endswith("/" + name) for f in files)


bad = 0
seen = 0
for path in files:
    if not path.startswith(SCAN) or "/gen/" in path:
        continue
    if not path.endswith((".c", ".h", ".cc", ".md", ".sh", ".py", ".mk",
                          ".am", ".ac", ".in", ".cases")):
        continue
    try:
        body = open(os.path.join(root, path), encoding="utf-8",
                    errors="replace").read()
    except OSError:
        continue
    text, _ = comments(path, body)
    for m in ref.finditer(text):
        seen += 1
        if not found(path, m.group(1)):
            print(f"{path}: names {m.group(1)}, which is not in the tree")
            bad = 1
print(f"{seen} file names in comments and documents checked")
sys.exit(bad)
EOF
}

self_test() {
    local rc
    t=$(mktemp -d "${TMPDIR:-/tmp}/weft-doc-paths.XXXXXX") || exit 1
    trap 'rm -rf "$t"' EXIT
    git -C "$t" init -q || { echo "self-test: git init failed"; exit 1; }
    mkdir -p "$t/src/core" "$t/docs"
    printf '/* see path.c, core/amo.c and docs/x.md */\nint a;\n' \
        >"$t/src/core/amo.c"
    printf 'int b; /* x */\n' >"$t/src/core/path.c"
    printf '# x\n\nCode: `src/core/amo.c`.\n' >"$t/docs/x.md"
    git -C "$t" add -A
    check_tree "$t" || { echo "self-test: a tree without dangling names failed"; exit 1; }
    printf '/* tests/dataplane/amo_mixed.c checks it */\n' >"$t/src/core/c.h"
    printf 'See `src/core/coll_state.h`.\n' >>"$t/docs/x.md"
    git -C "$t" add -A
    check_tree "$t" >"$t/out"; rc=$?
    if [ $rc = 0 ] || ! grep -q 'src/core/c.h: names tests/dataplane/amo_mixed.c' "$t/out" ||
        ! grep -q 'docs/x.md: names src/core/coll_state.h' "$t/out"; then
        echo "self-test: a dangling name was not caught"
        cat "$t/out"; exit 1
    fi
    echo "self-test passed"
}

case "${1:-}" in
--self-test) self_test ;;
'') echo "usage: $0 SRCDIR | --self-test" >&2; exit 2 ;;
*)
    if ! git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        echo "skipped: $1 is not a git checkout"
        exit 77
    fi
    check_tree "$1" ;;
esac
