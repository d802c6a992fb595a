# The weft Python package (python/; docs/python.md): the C extension
# weft._core over libweft and the modules around it, built by
# python/setup.py for the Python that configure chose (PYTHON; the end of
# configure's output names it, or says why the package is not built).
#
# make          builds python/build/tree/lib in the build directory (never
#               in the source tree), linked to this build's libweft, again
#               whenever a source of the package or a public header
#               changes; python/build/python names the interpreter, for
#               the tests (tests/python/run-pytest.sh).
# make install  builds it once more with its run path set to $(libdir)
#               (python/build/install) and copies it to
#               $(pythonsitedir)/weft, where that interpreter looks for
#               packages of this prefix (DESTDIR honoured; make install
#               pythonsitedir=DIR puts it elsewhere).
# make uninstall removes $(pythonsitedir)/weft.
weft_py_sources = $(srcdir)/python/setup.py \
	$(wildcard $(srcdir)/python/weft/*.py $(srcdir)/python/weft/*/*.py \
	  $(srcdir)/python/weft/_core/*.c $(srcdir)/python/weft/_core/*.h)
EXTRA_DIST += $(weft_py_sources) python/configure.m4 python/configure-probe.py \
	tests/python/python.cases tests/python/run-pytest.sh \
	tests/python/check-cases.sh \
	$(wildcard $(srcdir)/tests/python/*.py $(srcdir)/tests/python/*/*.py \
	  $(srcdir)/tests/python/*/*.md)

all-local: python-all
install-exec-local: python-install
uninstall-local: python-uninstall
clean-local: python-clean
.PHONY: python-all python-install python-uninstall python-clean

if WEFT_PYTHON
weft_py_build = $(abs_top_builddir)/python/build
# $(call weft_py_setup,BASE), with WEFT_LIB_DIR (the run path) set:
# builds the package into python/build/BASE/lib (setup.py reads its
# sources relative to python/), with the warning flags of the C library
# (--enable-werror: warnings are errors here too).
weft_py_setup = cd $(srcdir)/python && WEFT_INCLUDE_DIR=$(abs_top_srcdir)/include \
	CFLAGS='$(WEFT_CFLAGS)' $(PYTHON) setup.py -q build --force --build-base $(weft_py_build)/$(1) \
	--build-lib $(weft_py_build)/$(1)/lib --build-temp $(weft_py_build)/$(1)/temp

python-all: python/build/python

python/build/python: $(weft_py_sources) \
		$(wildcard $(top_srcdir)/include/*.h $(top_srcdir)/include/*/*.h) \
		| libweft.la
	$(AM_V_GEN)rm -rf $(weft_py_build)/tree && \
	  export WEFT_LIB_DIR=$(abs_top_builddir)/.libs && $(call weft_py_setup,tree)
	@# A symbol that nothing defines shows here, not in a test.
	$(AM_V_at)WEFT_INIT=0 PYTHONPATH=$(weft_py_build)/tree/lib $(PYTHON) -c 'import weft'
	$(AM_V_at)echo '$(PYTHON)' >$@

# The run path is $(libdir); the library linked is this build's (LDFLAGS),
# which need not be installed there yet (DESTDIR, make -j install).
python-install:
	rm -rf $(weft_py_build)/install
	export WEFT_LIB_DIR='$(libdir)' LDFLAGS='-L$(abs_top_builddir)/.libs' && \
	  $(call weft_py_setup,install)
	rm -rf "$(DESTDIR)$(pythonsitedir)/weft"
	$(MKDIR_P) "$(DESTDIR)$(pythonsitedir)"
	cp -R $(weft_py_build)/install/lib/weft "$(DESTDIR)$(pythonsitedir)/weft"
	$(PYTHON) -m compileall -q -d "$(pythonsitedir)/weft" \
	  "$(DESTDIR)$(pythonsitedir)/weft" >/dev/null

python-uninstall:
	rm -rf "$(DESTDIR)$(pythonsitedir)/weft"
else
python-all python-install python-uninstall:
	@:
endif

python-clean:
	-rm -rf python/build
