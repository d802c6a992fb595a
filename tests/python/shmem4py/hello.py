import weft as shmem

mype = shmem.my_pe()
npes = shmem.n_pes()
major, minor = shmem.info_get_version()
assert (major, minor) >= (1, 5)
name = shmem.info_get_name()
assert name == shmem.VENDOR_STRING
print(f"Hello from PE {mype} of {npes} ({name} {major}.{minor})")
