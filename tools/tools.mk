# Tools: the compiler wrappers, the launcher and shmem_info.
bin_SCRIPTS += tools/oshcc tools/oshc++
EXTRA_DIST += tools/oshcc.in tools/oshc++.in tools/weft.pc.in
