"""Build of the weft Python package: the C extension weft._core over libweft.

Where libweft is found, first match wins:
  WEFT_INCLUDE_DIR / WEFT_LIB_DIR   (the build tree sets these: Makefile)
  pkg-config weft                   (an installed Weft, PKG_CONFIG_PATH)
The extension records the library directory as its run path, so
`import weft` finds libweft without LD_LIBRARY_PATH.
"""
import glob
import os
import shlex
import subprocess

from setuptools import Extension, setup


def weft_flags():
    inc = os.environ.get("WEFT_INCLUDE_DIR")
    lib = os.environ.get("WEFT_LIB_DIR")
    if inc and lib:
        return [inc], [lib]
    try:
        cflags = subprocess.run(["pkg-config", "--cflags-only-I", "weft"],
                                check=True, capture_output=True,
                                text=True).stdout
        libs = subprocess.run(["pkg-config", "--libs-only-L", "weft"],
                              check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(
            "weft: libweft not found: set WEFT_INCLUDE_DIR and WEFT_LIB_DIR, "
            "or install Weft and let pkg-config find weft.pc "
            f"(PKG_CONFIG_PATH): {exc}")
    incs = [f[2:] for f in shlex.split(cflags) if f.startswith("-I")]
    libdirs = [f[2:] for f in shlex.split(libs) if f.startswith("-L")]
    return incs, libdirs


here = os.path.dirname(os.path.abspath(__file__))
include_dirs, library_dirs = weft_flags()
core = Extension(
    "weft._core",
    sources=sorted(glob.glob(os.path.join("weft", "_core", "*.c"))),
    depends=sorted(glob.glob(os.path.join("weft", "_core", "*.h"))),
    include_dirs=include_dirs,
    library_dirs=library_dirs,
    runtime_library_dirs=library_dirs,
    libraries=["weft"],
    extra_compile_args=["-std=gnu11", "-Wall", "-Wextra",
                        "-Wno-missing-field-initializers",
                        "-Wno-cast-function-type"],
)

setup(
    name="weft",
    version="0.1.0",
    description="Weft's OpenSHMEM 1.6 for Python: symmetric NumPy and "
                "device arrays, RMA, atomics, signals, collectives, streams",
    license="BSD-3-Clause",
    packages=["weft"],
    ext_modules=[core],
    python_requires=">=3.9",
    install_requires=["numpy"],
)
