"""Simulated nodes for the benchmark drivers (bench/scale/scale and
bench/coll/nbc-overlap with --nodes N).

tests/multinode/cluster.sh starts N Slurm nodes, each a network namespace
with its own address on a private bridge, its own hostname and its own
/tmp. This module starts and stops such a cluster, stages what the nodes
must see, and says how each library launches a job across it and with
what environment, so that every driver runs Weft and the MPIs the same
way (bench/scale/README.md, "Simulated nodes").

    work = work_dir("weft-x-")
    exe, libdir = stage_weft(build, build + "/bench/.libs/prog", work)
    cl = Cluster(nodes=2, cpus=2, work=work, pfx="x1", net="10.90.0")
    cl.start()
    try:
        subprocess.run(cl.command("weft", 4, exe, ["--iters", "20"], libdir),
                       env=cl.env(os.environ))
    finally:
        cl.stop()
"""

import glob
import os
import re
import shutil
import subprocess
import tempfile

SRCDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(SRCDIR, "tests", "multinode", "cluster.sh")

# Settings that keep single-node runs on loopback or force a provider:
# across the nodes each library must find the bridge by itself.
PINNING = ("FI_TCP_IFACE", "FI_SOCKETS_IFACE", "FI_PROVIDER", "SHMEM_OFI_PROVIDER")


class Error(Exception):
    """The cluster cannot be used here; the message says why."""


def work_dir(prefix):
    """A new directory the nodes see: each node has a private /tmp, so the
    programs a job runs and the cluster's state live under /var/tmp."""
    return tempfile.mkdtemp(prefix=prefix, dir="/var/tmp")


def stage_weft(builddir, exe, work):
    """Copies exe (a real binary, not a libtool wrapper) and the build's
    libweft into work, where the nodes can load them; returns (staged exe,
    directory for LD_LIBRARY_PATH)."""
    libdir = os.path.join(work, "weft")
    os.makedirs(libdir, exist_ok=True)
    for lib in glob.glob(os.path.join(builddir, ".libs", "libweft.so*")):
        shutil.copy(lib, libdir)
    shutil.copy(exe, work)
    return os.path.join(work, os.path.basename(exe)), libdir


class Cluster:
    """N simulated Slurm nodes of `cpus` CPUs each, state under work/slurm,
    namespaces named pfx*, bridge subnet net (two clusters with different
    pfx and net can run side by side)."""

    def __init__(self, nodes, cpus, work, pfx, net):
        self.nodes, self.work = nodes, work
        d = os.path.join(work, "slurm")
        self.vars = {"D": d, "SLURM_CONF": os.path.join(d, "slurm.conf"),
                     "NODES": str(nodes), "CPUS": str(cpus), "PFX": pfx, "NET": net}
        self.started = False

    def _script(self, args, timeout):
        env = dict(os.environ)
        env.update(self.vars)
        return subprocess.run(["bash", CLUSTER] + args, env=env, timeout=timeout, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def start(self, timeout=300):
        """Starts the nodes; raises Error (nothing left running) when it cannot."""
        if os.geteuid() != 0:
            raise Error("--nodes needs root (network namespaces)")
        pfx = self.vars["PFX"]
        ns = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True).stdout.split()
        if any(re.fullmatch(re.escape(pfx) + "(ctl|n[0-9]+|sw)", n) for n in ns):
            # Another cluster's: stopping ours after a failed start would end it.
            raise Error("namespaces %s* exist already (set PFX to another prefix)" % pfx)
        self.started = True
        r = self._script(["start"], timeout)
        if r.returncode:
            self.stop()
            raise Error("cluster.sh start failed:\n" + r.stdout[-2000:])

    def cancel(self):
        """Cancels every job of this user, such as the steps of a launcher
        that was killed: they would hold the nodes' CPUs."""
        if self.started:
            try:
                self._script(["run", "scancel", "-u", str(os.geteuid())], 10)
            except subprocess.TimeoutExpired:
                pass

    def stop(self):
        """Cancels the jobs, ends every process in the nodes and deletes them."""
        if self.started:
            try:
                self.cancel()
            finally:
                self._script(["stop"], 120)
                self.started = False

    def env(self, base):
        """The environment of a command run on the nodes: base, the cluster's
        variables, and nothing that pins traffic to loopback."""
        env = dict(base)
        env.update(self.vars)
        for k in PINNING:
            env.pop(k, None)
        return env

    def command(self, lib, pes, exe, args, libdir=None):
        """The command line that runs exe with args as pes processes spread
        evenly over the nodes (pes a multiple of the nodes), for lib among
        weft (libdir: its libweft), ompi and mpich. The processes are not
        pinned: the nodes' Slurm has no task plugin."""
        per = ["-N", str(self.nodes), "--ntasks-per-node=%d" % (pes // self.nodes)]
        if lib == "weft":
            cmd = ["LD_LIBRARY_PATH=" + libdir, "srun", "--mpi=pmix", "-K"] + per + [exe]
        elif lib == "ompi":
            # TCP across the bridge, shared memory within a node, as on a cluster.
            cmd = ["OMPI_MCA_pml=ob1", "OMPI_MCA_btl=self,vader,tcp",
                   "OMPI_MCA_btl_tcp_if_include=simeth0", "srun", "--mpi=pmix", "-K"] + per + [exe]
        elif lib == "mpich":
            # Debian's MPICH has its own launcher: Hydra starts its proxies through Slurm.
            cmd = ["salloc", "-Q"] + per + ["mpiexec.hydra", "-n", str(pes), exe]
        else:
            raise ValueError("unknown library %r" % lib)
        # From the work dir: the processes start in the launcher's directory,
        # and one under /tmp is not there on the nodes (Hydra's proxies exit).
        return ["bash", CLUSTER, "run", "env", "-C", self.work] + cmd + list(args)
