"""hello: every PE says which one it is.

    oshrun -n 4 python3 hello.py

Importing weft starts the library on every PE, and it is finalized when
the interpreter exits. Each PE prints one line; the lines of different
PEs come in any order.
"""
import weft

me = weft.my_pe()      # 0 .. npes-1
npes = weft.n_pes()
major, minor = weft.info_get_version()
print(f"Hello from PE {me} of {npes} ({weft.info_get_name()}, "
      f"OpenSHMEM {major}.{minor})")
