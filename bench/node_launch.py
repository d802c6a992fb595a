"""How the benchmark drivers start a job on this node (bench/coll/nbc-overlap,
bench/coll/nbc-usecases): each library's compiler wrapper and launcher, and
the pinning rule they share, so that Weft and the MPIs run alike.
(Across simulated nodes: bench/simnodes.py.)"""

import os

# lib: None for Weft (tools/oshrun of the build tree), else (compiler
# wrapper, launcher up to its process count).
LIBS = {
    "weft": None,
    "mpich": ("mpicc.mpich", ["mpiexec.hydra", "-bind-to", "core", "-n"]),
    "ompi": ("mpicc.openmpi", ["mpirun.openmpi", "--bind-to", "core",
                                "--oversubscribe", "-n"]),
}


def launcher(lib, n, oshrun):
    """The command that starts n processes of lib, each pinned to a core
    while they fit the node's cores, unpinned beyond (Open MPI refuses to
    bind two to one core)."""
    pin = n <= (os.cpu_count() or 1)
    if lib == "weft":
        return [oshrun, "-n", str(n)] + (["--bind", "core"] if pin else [])
    cmd = list(LIBS[lib][1])
    if not pin:
        cmd[cmd.index("core")] = "none"
    return cmd + [str(n)]
