#!/bin/sh
# Adds to a GPU bundle (scripts/gpu-bundle.sh) what run-gpu-checks.sh needs
# of this machine on a GPU machine that may lack it: pytest and the pure-
# Python packages it imports, copied from this machine's interpreter into
# BUNDLE/python-site (run-gpu-checks.sh uses them only when the target's
# Python has no pytest of its own).
#
#   sh python/gpu/prepare-carry.sh BUNDLE [PYTHON]
#
# PYTHON (default /usr/bin/python3, Debian's, which has pytest) is where the
# packages are taken from.  They are pure Python and run on the target's
# newer interpreter too.  docs/python-gpu.md has the whole procedure.
set -u
bundle=${1:?usage: prepare-carry.sh BUNDLE [PYTHON]}
python=${2:-/usr/bin/python3}
[ -d "$bundle/lib" ] || { echo "prepare-carry: $bundle is not a GPU bundle" >&2; exit 1; }
site=$bundle/python-site
rm -rf "$site"
mkdir -p "$site" || exit 1
"$python" - "$site" <<'EOF' || exit 1
import importlib, os, shutil, sys

site = sys.argv[1]
# pytest and what it imports (pytest 7: attrs, pluggy, iniconfig,
# packaging, py; 8: the same without attrs and py)
for name in ("pytest", "_pytest", "pluggy", "iniconfig", "packaging",
             "attr", "attrs", "py", "exceptiongroup", "tomli"):
    try:
        mod = importlib.import_module(name)
    except ImportError:
        continue
    path = mod.__file__
    if os.path.basename(path) == "__init__.py":
        shutil.copytree(os.path.dirname(path), os.path.join(site, name),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        shutil.copy(path, site)
    print("prepare-carry:", name, getattr(mod, "__version__", ""))
EOF
du -sh "$bundle" | sed 's/^/prepare-carry: bundle size /'
