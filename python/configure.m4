# The weft Python package's part of configure (included by configure.ac).
#
# The package (python/) is built for one Python 3 that has NumPy,
# setuptools and its C headers: PYTHON=... when given (an error when that
# one cannot), else the first that can of /usr/bin/python3 and each
# python3 on the PATH. On Debian the PATH may start with another CPython
# (pyenv, conda) that sees none of Debian's python3-* packages; it is
# passed over with its reason. --without-python leaves the package out.
#
# Sets PYTHON, pythonsitedir (where `make install` puts the package:
# ${prefix}/ and the interpreter's own site directory for that prefix,
# python/configure-probe.py) and the conditional WEFT_PYTHON; the summary
# line says which Python, or why the package is not built.
AC_ARG_VAR([PYTHON], [the Python 3 (with NumPy) that the weft package is built for])
AC_ARG_WITH([python],
  [AS_HELP_STRING([--without-python],
    [do not build the weft Python package (default: built when a Python 3 with NumPy and its headers is found)])],
  [], [with_python=check])
weft_python=no
weft_python_why=
weft_python_site=
AS_CASE([$with_python],
  [no], [weft_python_why="--without-python"],
  [check|yes], [],
  [PYTHON=$with_python])
AS_IF([test "x$with_python" != xno], [
  weft_py_prefix=$prefix
  AS_IF([test "x$weft_py_prefix" = xNONE], [weft_py_prefix=$ac_default_prefix])
  AS_IF([test -n "$PYTHON"], [weft_py_cands=$PYTHON], [
    weft_py_cands=/usr/bin/python3
    weft_save_IFS=$IFS; IFS=:
    for d in $PATH; do
      IFS=$weft_save_IFS
      AS_IF([test -n "$d" && test -x "$d/python3" && test "$d/python3" != /usr/bin/python3],
        [weft_py_cands="$weft_py_cands $d/python3"])
    done
    IFS=$weft_save_IFS
  ])
  for weft_py in $weft_py_cands; do
    AC_MSG_CHECKING([whether $weft_py can build the weft Python package])
    AS_IF([test -x "$weft_py" || command -v "$weft_py" >/dev/null 2>&1],
      [weft_py_out=`"$weft_py" "$srcdir/python/configure-probe.py" "$weft_py_prefix" 2>&AS_MESSAGE_LOG_FD`],
      [weft_py_out="bad not found"])
    AS_CASE([$weft_py_out],
      [ok\ *], [
        AC_MSG_RESULT([yes])
        set dummy $weft_py_out
        weft_python=$weft_py weft_py_version=$[3] weft_py_numpy=$[4]
        weft_python_site=$[5] weft_py_onpath=$[6]
        break],
      [bad\ *], [weft_py_out=`echo "$weft_py_out" | sed 's/^bad //'`],
      [weft_py_out="not a working Python 3"])
    AC_MSG_RESULT([no: $weft_py_out])
    weft_python_why="$weft_python_why${weft_python_why:+; }$weft_py: $weft_py_out"
  done
  AS_IF([test $weft_python = no], [
    weft_python_why="no Python 3 with NumPy and its headers ($weft_python_why): apt-get install python3-dev python3-numpy python3-setuptools, or give PYTHON=/path/to/python3"
    AS_IF([test -n "$PYTHON" || test "x$with_python" = xyes],
      [AC_MSG_ERROR([the weft Python package cannot be built: $weft_python_why])])])
])
AS_IF([test $weft_python != no], [
  PYTHON=$weft_python
  pythonsitedir="\${prefix}/$weft_python_site"
  weft_python_summary="$PYTHON (Python $weft_py_version, NumPy $weft_py_numpy); installs into $weft_py_prefix/$weft_python_site"
  AS_IF([test "x$weft_py_onpath" = xno],
    [weft_python_summary="$weft_python_summary, which $PYTHON does not search: add it to PYTHONPATH"])
], [
  pythonsitedir=
  weft_python_summary="not built: $weft_python_why"
])
AC_SUBST([pythonsitedir])
AM_CONDITIONAL([WEFT_PYTHON], [test $weft_python != no])
