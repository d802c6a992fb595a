"""hello: every PE says which one it is.

    oshrun -n 4 /usr/bin/python3 hello.py

(with a Python that has NumPy and the weft package: on Debian, Debian's
own /usr/bin/python3; the end of ./configure's output names it)

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
