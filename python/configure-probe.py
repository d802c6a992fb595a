"""Asked by configure (python/configure.m4) of each candidate Python.

    PYTHON configure-probe.py PREFIX

prints one line: "ok VERSION NUMPY-VERSION SITE ON-PATH" when this
interpreter can build and run the weft package, where SITE is the
directory, relative to the installation prefix PREFIX, that `make install`
puts the package in and ON-PATH says whether this interpreter searches it
("yes" or "no"); else "bad REASON" (what is missing and the Debian package
that has it). The exit status is 0 either way.
"""
import os
import sys


def site_dir(prefix):
    """The package directory for PREFIX: the one of this interpreter's own
    site directories that lies right under PREFIX (Debian's python3 with
    /usr/local: lib/python3.X/dist-packages), else the standard layout
    (lib/python3.X/site-packages), which the user then adds to PYTHONPATH."""
    import site
    import sysconfig
    prefix = os.path.normpath(prefix)
    for d in site.getsitepackages():
        rel = os.path.relpath(os.path.normpath(d), prefix)
        if rel.startswith("lib"):
            return rel, True
    d = sysconfig.get_path("platlib", "posix_prefix",
                           {"base": prefix, "platbase": prefix})
    return os.path.relpath(d, prefix), False


def main():
    if sys.version_info < (3, 9):
        return "bad Python %d.%d is older than 3.9" % sys.version_info[:2]
    try:
        import numpy
    except ImportError:
        return "bad no NumPy (Debian: python3-numpy)"
    import importlib.util
    if importlib.util.find_spec("setuptools") is None:  # (python/setup.py)
        return "bad no setuptools (Debian: python3-setuptools)"
    import sysconfig
    inc = sysconfig.get_paths()["include"]
    if not os.path.isfile(os.path.join(inc, "Python.h")):
        return f"bad no {inc}/Python.h (Debian: python3-dev)"
    site, on_path = site_dir(sys.argv[1])
    if " " in site:
        return f"bad its package directory '{site}' has a space"
    version = "%d.%d.%d" % sys.version_info[:3]
    return (f"ok {version} {numpy.__version__} {site} "
            f"{'yes' if on_path else 'no'}")


print(main())
