# <mpp/shmem.h> and <mpp/shmemx.h>: the paths older OpenSHMEM programs
# include, installed in $(includedir)/mpp (tests/compat/compat.sh).
mppdir = $(includedir)/mpp
mpp_HEADERS = include/mpp/shmem.h include/mpp/shmemx.h
