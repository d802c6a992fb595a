# The first programs a new user copies (examples/README.md): hello, a ring
# of puts and a stencil with put-with-signal, in C here and in Python in
# examples/python/. Built with the library; tests/examples/examples.cases
# runs them all (the C ones as oshcc builds them: examples.sh).
noinst_PROGRAMS += examples/hello examples/ring examples/stencil
examples_hello_SOURCES = examples/hello.c
examples_hello_LDADD = libweft.la
examples_ring_SOURCES = examples/ring.c
examples_ring_LDADD = libweft.la
examples_stencil_SOURCES = examples/stencil.c
examples_stencil_LDADD = libweft.la -lm
EXTRA_DIST += examples/README.md examples/python/hello.py \
	examples/python/ring.py examples/python/stencil.py \
	tests/examples/examples.cases tests/examples/examples.sh
