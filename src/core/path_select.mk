# SHMEM_TRANSPORT and the registry checks (src/core/path_select.c).
libweft_internal_la_SOURCES += src/core/path_select.c
