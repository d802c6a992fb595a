# The Python side of the comparison (issue 30): bench/python/compare runs
# Python and C on Weft and MPI side by side (ping-pong, the PRK kernels of
# prk/python/, the cost of a Python call). Nothing here is built by make:
# compare builds its C twins (call_cost, the MPI twins) into
# bench/python/ of the build tree when it runs. tests/python-bench holds
# the smoke cases of make check.
dist_noinst_SCRIPTS += bench/python/compare
EXTRA_DIST += bench/python/bench_opts.py bench/python/call_cost.c \
	bench/python/call_cost.py bench/python/pingpong_mpi.py \
	bench/python/pingpong_shmem.py \
	prk/python/prk_py.py prk/python/comm_shmem.py prk/python/comm_mpi.py \
	prk/python/stencil_core.py \
	prk/python/stencil_shmem.py prk/python/stencil_mpi.py \
	prk/python/transpose_core.py prk/python/transpose_shmem.py \
	prk/python/transpose_mpi.py prk/python/p2p_core.py \
	prk/python/p2p_shmem.py prk/python/p2p_mpi.py \
	tests/python-bench/python-bench.cases tests/python-bench/smoke.sh
