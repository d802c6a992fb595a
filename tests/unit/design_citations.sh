#!/usr/bin/env bash
# Every design decision the tree cites ("docs/design.md, decision N" or
# "decisions N-M", also across a comment's line break) exists in
# docs/design.md as a heading "## N. ...", and no file cites a design
# document by another name.
#
#   design_citations.sh SRCDIR        check the tree
#   design_citations.sh --self-test   check that the checker catches a
#                                     missing decision and a stray name
set -u

# Prints "file: decision N" for each cited decision that $1/docs/design.md
# lacks, and "file: cites NAME" for each citation of another design file.
# Exit status 1 when it printed anything.
check_tree() {
    python3 - "$1" <<'EOF'
import os, re, subprocess, sys

root = sys.argv[1]
design = os.path.join(root, "docs", "design.md")
try:
    text = open(design, encoding="utf-8").read()
except OSError as e:
    print(f"docs/design.md: cannot read: {e}")
    sys.exit(1)
have = {int(n) for n in re.findall(r"^## (\d+)\. ", text, re.M)}
if not have:
    print("docs/design.md: no numbered decision ('## N. title') found")
    sys.exit(1)

exts = (".c", ".h", ".cc", ".md", ".sh", ".py", ".in", ".am", ".ac", ".mk",
        ".cases", ".tsv")
skip_dirs = {".git", "autom4te.cache", ".libs", ".deps", "logs",
             "check-cost-nochecks"}
# A comment's line break: newline, then the comment leader of the next line.
gap = r"[\s*#/]*"
cite = re.compile(r"design\.md\)?," + gap + r"decisions?" + gap +
                  r"(\d+)(?:" + gap + r"(?:-|to|and)" + gap + r"(\d+))?")
own = re.compile(r"\bdecisions?" + gap + r"(\d+)(?:" + gap +
                 r"(?:-|to|and)" + gap + r"(\d+))?")
stray = re.compile(r"\b(DESIGN\.md|design\.txt|DESIGN)\b")
bad = 0
checked = 0


def tree_files(root):
    """The project's files: in a git checkout those git tracks and the new
    ones it does not ignore (an in-tree build also holds a copy of the
    sources, bench/check-cost.sh's tree without checks, which is not the
    project's); elsewhere every file below root."""
    git = subprocess.run(["git", "-C", root, "ls-files", "--cached",
                          "--others", "--exclude-standard"],
                         capture_output=True, text=True)
    if git.returncode == 0 and git.stdout.strip():
        for rel in git.stdout.splitlines():
            yield rel
        return
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip_dirs]
        for name in files:
            yield os.path.relpath(os.path.join(dirpath, name), root)


for rel in tree_files(root):
    name = os.path.basename(rel)
    if not name.endswith(exts) or name == "Makefile.in":
        continue
    path = os.path.join(root, rel)
    try:
        body = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        continue
    if rel == os.path.join("tests", "unit", "design_citations.sh"):
        continue  # its self-test writes citations of its own
    # Inside docs/design.md a decision cites another as "decision N".
    pattern = own if rel == os.path.join("docs", "design.md") else cite
    for m in pattern.finditer(body):
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        for n in range(lo, hi + 1):
            checked += 1
            if n not in have:
                print(f"{rel}: cites decision {n}, which "
                      "docs/design.md does not have")
                bad = 1
    for m in stray.finditer(body):
        line = body.count("\n", 0, m.start()) + 1
        print(f"{rel}:{line}: cites {m.group(1)}; the design is "
              "docs/design.md")
        bad = 1
print(f"{checked} cited decisions checked against decisions "
      f"{sorted(have)} of docs/design.md")
sys.exit(bad)
EOF
}

self_test() {
    local rc
    t=$(mktemp -d "${TMPDIR:-/tmp}/weft-design-cite.XXXXXX") || exit 1
    trap 'rm -rf "$t"' EXIT
    mkdir -p "$t/docs" "$t/src"
    printf '# d\n\n## 1. One\n\nAs decision 2 says.\n\n## 2. Two\n' \
        >"$t/docs/design.md"
    printf '/* (docs/design.md, decision 2) and (docs/design.md,\n * decisions 1-2) */\n' >"$t/src/a.c"
    check_tree "$t" || { echo "self-test: a tree with valid citations failed"; exit 1; }
    printf '/* the rule (docs/design.md,\n * decision 3) */\n' >"$t/src/b.c"
    check_tree "$t" >"$t/out"; rc=$?
    if [ $rc = 0 ] || ! grep -q 'src/b.c: cites decision 3' "$t/out"; then
        echo "self-test: a citation of a missing decision was not caught"
        cat "$t/out"; exit 1
    fi
    rm "$t/src/b.c"
    # The old name is spelt in pieces so that a grep of the tree for it
    # finds only real citations.
    printf '# see %s decision 1\n' "DESIGN.""md" >"$t/src/c.mk"
    check_tree "$t" >"$t/out"; rc=$?
    if [ $rc = 0 ] || ! grep -q 'src/c.mk:1: cites DESIGN[.]md' "$t/out"; then
        echo "self-test: a citation of the old design file name was not caught"
        cat "$t/out"; exit 1
    fi
    rm "$t/src/c.mk"
    printf '/* (docs/design.md, decisions 1-4) */\n' >"$t/src/d.h"
    check_tree "$t" >"$t/out"; rc=$?
    if [ $rc = 0 ] || ! grep -q 'src/d.h: cites decision 4' "$t/out"; then
        echo "self-test: the end of a missing range was not caught"
        cat "$t/out"; exit 1
    fi
    rm "$t/src/d.h"
    printf '\n## 5. Five\n\nUnlike decision 4.\n' >>"$t/docs/design.md"
    check_tree "$t" >"$t/out"; rc=$?
    if [ $rc = 0 ] || ! grep -q 'docs/design.md: cites decision 4' "$t/out"; then
        echo "self-test: a cross-reference inside docs/design.md was not caught"
        cat "$t/out"; exit 1
    fi
    echo "self-test passed"
}

case "${1:-}" in
--self-test) self_test ;;
'') echo "usage: $0 SRCDIR | --self-test" >&2; exit 2 ;;
*) check_tree "$1" ;;
esac
