# Across simulated nodes: Weft's put latency and bandwidth next to a raw
# libfabric loop on the same provider and next to MPI send/recv
# (bench/fabric/compare-nodes.sh runs them side by side under srun); on one
# node through the fabric, put latency next to the raw loop and barrier and
# allreduce next to Open MPI over TCP (bench/fabric/compare-local.sh).
noinst_PROGRAMS += bench/fabric/raw_rma_bw
bench_fabric_raw_rma_bw_SOURCES = bench/fabric/raw_rma_bw.c
bench_fabric_raw_rma_bw_CPPFLAGS = $(AM_CPPFLAGS) $(OFI_CFLAGS) $(PMIX_CFLAGS)
bench_fabric_raw_rma_bw_LDADD = $(OFI_LIBS) $(PMIX_LIBS)
dist_noinst_SCRIPTS += bench/fabric/compare-nodes.sh bench/fabric/compare-local.sh
