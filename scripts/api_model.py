"""The model of Weft's OpenSHMEM 1.6 C API, read by scripts/gen_api.py.

The specification's types (scripts/types.tsv), the routines that do not
differ by type (scripts/routines.tsv), the FAMILIES of routines that differ
only by type or size, the library constants and handles, and the AREAS the
routines are grouped in (one generated C file and one header part each).

Python 3 standard library only.  Templates are string.Template: $T is the C
type, $DT its SHMI_DT_ tag, $NAME the public routine name, $CTX the context
expression, $ES the element size in bytes and $NB the byte count of nelems
elements.  The device routines (DEVICE_FAMILIES) use $T, $NAME and $RID, the
routine's id (SHMEMD_R_$NAME).
"""

import os
import re
import sys
from string import Template

from api_model_nb import nb_families

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------


def read_tsv(name, ncols):
    rows = []
    with open(os.path.join(TOP, "scripts", name), encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != ncols:
                sys.exit(f"scripts/{name}:{lineno}: expected {ncols} "
                         f"tab-separated columns, found {len(cols)}")
            rows.append(cols)
    return rows


class CType:
    def __init__(self, row):
        self.c, self.name, self.dt, aliases, classes = row
        self.aliases = [] if aliases == "-" else aliases.split(",")
        self.classes = set(classes.split(","))
        self.complex = "_Complex" in self.c


TYPES = [CType(r) for r in read_tsv("types.tsv", 5)]


def types_of(classes):
    """Types belonging to any of `classes`, in table order."""
    if isinstance(classes, str):
        classes = [classes]
    return [t for t in TYPES if t.classes & set(classes)]


def _width(t):
    m = re.fullmatch(r"u?int(\d+)", t.name)
    return int(m.group(1)) if m else None


def generic_types(types):
    """The types a C11 _Generic may list without two compatible associations:
    every standard type, and a typedef only when no listed type may be it
    (two fixed-width typedefs of different widths are never the same type)."""
    std = {t.c for t in types if not t.aliases}
    out = []
    for t in types:
        if not t.aliases:
            out.append(t)
            continue
        if std & set(t.aliases):
            continue
        clash = [u for u in out if u.aliases
                 and set(u.aliases) & set(t.aliases)
                 and (_width(u) is None or _width(t) is None
                      or _width(u) == _width(t))]
        if not clash:
            out.append(t)
    return out


class Routine:
    """One public routine: its prototype and the body of its wrapper."""

    def __init__(self, name, ret, params, body, file, status="current",
                 complex_=False):
        self.name, self.ret, self.params = name, ret, params
        self.body, self.file, self.status = body, file, status
        self.complex = complex_

    def proto(self, name=None):
        sep = "" if self.ret.endswith("*") else " "
        return f"{self.ret}{sep}{name or self.name}({self.params})"

    @property
    def pname(self):
        return "p" + self.name


# ---------------------------------------------------------------------------
# Typed, sized and mem families
# ---------------------------------------------------------------------------

RMA_SIZES = [8, 16, 32, 64, 128]

# The C types of the tables that may be wider than 8 bytes (x86-64: 16):
# no uint64_t holds their value (Family's wide_body).
WIDE_TYPES = {"long double"}


class Family:
    """Routines that differ only by TYPE, SIZE or "mem".

    Names: typed  shmem_[ctx_]TYPENAME_<stem><suffix>
           sized  shmem_[ctx_]<stem>SIZE<suffix>
           mem    shmem_[ctx_]<stem>mem<suffix>
    `generic` is the index (without ctx) of the argument a C11 _Generic
    selection dispatches on, or None when the specification has none.
    """

    def __init__(self, stem, suffix, classes, ret, params, body, file,
                 ctx=False, sizes=(), mem=False, generic=None,
                 status="current", wide_body=None, prefix="shmem_"):
        self.stem, self.suffix, self.classes = stem, suffix, classes
        self.ret, self.params, self.body, self.file = ret, params, body, file
        self.wide_body = wide_body or body  # for the C types of WIDE_TYPES
        self.ctx, self.sizes, self.mem = ctx, list(sizes), mem
        self.generic, self.status = generic, status
        self.prefix = prefix  # shmemx_ for the extensions (shmemx.h)

    @property
    def generic_name(self):
        return f"{self.prefix}{self.stem}{self.suffix}"

    def _make(self, name, ctype, dt, es, use_ctx, complex_=False):
        nb = "nelems" if es == "1" else f"shmi_nbytes(nelems, {es})"
        sub = dict(T=ctype, DT=dt, NAME=name, ES=es, NB=nb,
                   CTX="ctx" if use_ctx else "SHMEM_CTX_DEFAULT")
        params = Template(self.params).substitute(sub)
        if use_ctx:
            params = "shmem_ctx_t ctx, " + params
        body = self.wide_body if ctype in WIDE_TYPES else self.body
        return Routine(name, Template(self.ret).substitute(sub), params,
                       Template(body).substitute(sub), self.file,
                       self.status, complex_)

    def routines(self):
        ctxs = [False, True] if self.ctx else [False]
        out = []
        for use_ctx in ctxs:
            pre = self.prefix + ("ctx_" if use_ctx else "")
            if self.classes:
                for t in types_of(self.classes):
                    name = f"{pre}{t.name}_{self.stem}{self.suffix}"
                    out.append(self._make(name, t.c, t.dt, f"sizeof({t.c})",
                                          use_ctx, t.complex))
            for s in self.sizes:
                name = f"{pre}{self.stem}{s}{self.suffix}"
                out.append(self._make(name, "void", "-", str(s // 8), use_ctx))
            if self.mem:
                name = f"{pre}{self.stem}mem{self.suffix}"
                out.append(self._make(name, "void", "-", "1", use_ctx))
        return out


F = Family
RMA_PUT = "$T *dest, const $T *source, size_t nelems, int pe"
RMA_STRIDED = ("$T *dest, const $T *source, ptrdiff_t dst, ptrdiff_t sst, "
               "size_t nelems, int pe")
RMA_BLOCKED = ("$T *dest, const $T *source, ptrdiff_t dst, ptrdiff_t sst, "
               "size_t bsize, size_t nblocks, int pe")
SIGNAL = ("$T *dest, const $T *source, size_t nelems, uint64_t *sig_addr, "
          "uint64_t signal, int sig_op, int pe")
RMA_KW = dict(ctx=True, sizes=RMA_SIZES, generic=0)

FAMILIES = [
    # ---- RMA (rma.c; the strided and blocked forms in rma_strided.c) ----
    F("put", "", "RMA", "void", RMA_PUT,
      'shmi_put("$NAME", $CTX, dest, source, $NB, pe);', "rma", mem=True,
      **RMA_KW),
    F("get", "", "RMA", "void", RMA_PUT,
      'shmi_get("$NAME", $CTX, dest, source, $NB, pe);', "rma", mem=True,
      **RMA_KW),
    # p and g pass the value in a register (shmi_p/shmi_g), except for the
    # types wider than 8 bytes (WIDE_TYPES), which take put and get.
    F("p", "", "RMA", "void", "$T *dest, $T value, int pe",
      'uint64_t bits = 0; __builtin_memcpy(&bits, &value, sizeof($T)); '
      'shmi_p("$NAME", $CTX, dest, bits, sizeof($T), pe);', "rma",
      ctx=True, generic=0,
      wide_body='shmi_put("$NAME", $CTX, dest, &value, sizeof($T), pe);'),
    F("g", "", "RMA", "$T", "const $T *source, int pe",
      '$T value; uint64_t bits = shmi_g("$NAME", $CTX, source, sizeof($T), '
      'pe); __builtin_memcpy(&value, &bits, sizeof($T)); return value;',
      "rma", ctx=True, generic=0,
      wide_body='$T value; shmi_get("$NAME", $CTX, &value, source, '
                'sizeof($T), pe); return value;'),
    F("iput", "", "RMA", "void", RMA_STRIDED,
      'shmi_iput("$NAME", $CTX, dest, source, dst, sst, nelems, $ES, pe);',
      "rma_strided", **RMA_KW),
    F("iget", "", "RMA", "void", RMA_STRIDED,
      'shmi_iget("$NAME", $CTX, dest, source, dst, sst, nelems, $ES, pe);',
      "rma_strided", **RMA_KW),
    F("ibput", "", "RMA", "void", RMA_BLOCKED,
      'shmi_ibput("$NAME", $CTX, dest, source, dst, sst, bsize, nblocks, '
      '$ES, pe);', "rma_strided", **RMA_KW),
    F("ibget", "", "RMA", "void", RMA_BLOCKED,
      'shmi_ibget("$NAME", $CTX, dest, source, dst, sst, bsize, nblocks, '
      '$ES, pe);', "rma_strided", **RMA_KW),
    F("put", "_nbi", "RMA", "void", RMA_PUT,
      'shmi_put_nbi("$NAME", $CTX, dest, source, $NB, pe);', "rma",
      mem=True, **RMA_KW),
    F("get", "_nbi", "RMA", "void", RMA_PUT,
      'shmi_get_nbi("$NAME", $CTX, dest, source, $NB, pe);', "rma",
      mem=True, **RMA_KW),
    # ---- put-with-signal (signal.c) ----
    F("put", "_signal", "RMA", "void", SIGNAL,
      'shmi_put_signal("$NAME", $CTX, dest, source, $NB, sig_addr, signal, '
      'sig_op, pe, 0);', "signal", mem=True, **RMA_KW),
    F("put", "_signal_nbi", "RMA", "void", SIGNAL,
      'shmi_put_signal("$NAME", $CTX, dest, source, $NB, sig_addr, signal, '
      'sig_op, pe, 1);', "signal", mem=True, **RMA_KW),
]


def amo(stem, cls, ret, params, op, operand="NULL", compare="NULL",
        fetch=None, nbi=False, dest="dest", ctx=True, status="current",
        file="amo"):
    """An atomic family: one shmi_amo (or shmi_amo_nbi) call."""
    fn = "shmi_amo_nbi" if nbi else "shmi_amo"
    if fetch is None and ret != "void":
        call = (f'$T old; {fn}("$NAME", $CTX, {op}, $DT, {dest}, {operand}, '
                f'{compare}, &old, pe); return old;')
    else:
        call = (f'{fn}("$NAME", $CTX, {op}, $DT, {dest}, {operand}, '
                f'{compare}, {fetch or "NULL"}, pe);')
    return F(stem, "", cls, ret, params, call, file, ctx=ctx, generic=0,
             status=status)


SRC = "(void *)source"
FAMILIES += [
    # ---- atomics (amo.c); order of the specification's AMO section ----
    amo("atomic_fetch", "AMO_EXT", "$T", "const $T *source, int pe",
        "SHMI_AMO_FETCH", dest=SRC),
    amo("atomic_set", "AMO_EXT", "void", "$T *dest, $T value, int pe",
        "SHMI_AMO_SET", operand="&value"),
    amo("atomic_compare_swap", "AMO_STD", "$T",
        "$T *dest, $T cond, $T value, int pe", "SHMI_AMO_CSWAP",
        operand="&value", compare="&cond"),
    amo("atomic_swap", "AMO_EXT", "$T", "$T *dest, $T value, int pe",
        "SHMI_AMO_SWAP", operand="&value"),
    amo("atomic_fetch_inc", "AMO_STD", "$T", "$T *dest, int pe",
        "SHMI_AMO_FETCH_INC"),
    amo("atomic_inc", "AMO_STD", "void", "$T *dest, int pe", "SHMI_AMO_INC"),
    amo("atomic_fetch_add", "AMO_STD", "$T", "$T *dest, $T value, int pe",
        "SHMI_AMO_FETCH_ADD", operand="&value"),
    amo("atomic_add", "AMO_STD", "void", "$T *dest, $T value, int pe",
        "SHMI_AMO_ADD", operand="&value"),
]
for _op in ("and", "or", "xor"):
    FAMILIES += [
        amo(f"atomic_fetch_{_op}", "AMO_BIT", "$T",
            "$T *dest, $T value, int pe", f"SHMI_AMO_FETCH_{_op.upper()}",
            operand="&value"),
        amo(f"atomic_{_op}", "AMO_BIT", "void", "$T *dest, $T value, int pe",
            f"SHMI_AMO_{_op.upper()}", operand="&value"),
    ]
# The non-blocking fetching forms (1.5), in a file of their own.
_NBI = dict(nbi=True, file="amo_nbi")
FAMILIES += [
    amo("atomic_fetch_nbi", "AMO_EXT", "void",
        "$T *fetch, const $T *source, int pe", "SHMI_AMO_FETCH", dest=SRC,
        fetch="fetch", **_NBI),
    amo("atomic_compare_swap_nbi", "AMO_STD", "void",
        "$T *fetch, $T *dest, $T cond, $T value, int pe", "SHMI_AMO_CSWAP",
        operand="&value", compare="&cond", fetch="fetch", **_NBI),
    amo("atomic_swap_nbi", "AMO_EXT", "void",
        "$T *fetch, $T *dest, $T value, int pe", "SHMI_AMO_SWAP",
        operand="&value", fetch="fetch", **_NBI),
    amo("atomic_fetch_inc_nbi", "AMO_STD", "void",
        "$T *fetch, $T *dest, int pe", "SHMI_AMO_FETCH_INC", fetch="fetch",
        **_NBI),
    amo("atomic_fetch_add_nbi", "AMO_STD", "void",
        "$T *fetch, $T *dest, $T value, int pe", "SHMI_AMO_FETCH_ADD",
        operand="&value", fetch="fetch", **_NBI),
]
for _op in ("and", "or", "xor"):
    FAMILIES.append(
        amo(f"atomic_fetch_{_op}_nbi", "AMO_BIT", "void",
            "$T *fetch, $T *dest, $T value, int pe",
            f"SHMI_AMO_FETCH_{_op.upper()}", operand="&value", fetch="fetch",
            **_NBI))
# Deprecated in 1.4, still in 1.6 (no context forms).
_DEP = dict(ctx=False, status="deprecated", file="amo_deprecated")
FAMILIES += [
    amo("fetch", "AMO_DEP_EXT", "$T", "const $T *source, int pe",
        "SHMI_AMO_FETCH", dest=SRC, **_DEP),
    amo("set", "AMO_DEP_EXT", "void", "$T *dest, $T value, int pe",
        "SHMI_AMO_SET", operand="&value", **_DEP),
    amo("cswap", "AMO_DEP_STD", "$T", "$T *dest, $T cond, $T value, int pe",
        "SHMI_AMO_CSWAP", operand="&value", compare="&cond", **_DEP),
    amo("swap", "AMO_DEP_EXT", "$T", "$T *dest, $T value, int pe",
        "SHMI_AMO_SWAP", operand="&value", **_DEP),
    amo("finc", "AMO_DEP_STD", "$T", "$T *dest, int pe",
        "SHMI_AMO_FETCH_INC", **_DEP),
    amo("inc", "AMO_DEP_STD", "void", "$T *dest, int pe", "SHMI_AMO_INC",
        **_DEP),
    amo("fadd", "AMO_DEP_STD", "$T", "$T *dest, $T value, int pe",
        "SHMI_AMO_FETCH_ADD", operand="&value", **_DEP),
    amo("add", "AMO_DEP_STD", "void", "$T *dest, $T value, int pe",
        "SHMI_AMO_ADD", operand="&value", **_DEP),
]


def wait(stem, classes, ret, params, kind, blocking, vector=False,
         indices=False, status="current", generic=0):
    n = "nelems" if kind != "SHMI_WAIT_ONE" else "1"
    st = "status" if kind != "SHMI_WAIT_ONE" else "NULL"
    iv = "ivar" if kind == "SHMI_WAIT_ONE" else "ivars"
    vals = "cmp_values" if vector else "&cmp_value"
    call = (f'shmi_wait("$NAME", {kind}, $DT, {iv}, {n}, {st}, cmp, {vals}, '
            f'{int(vector)}, {"indices" if indices else "NULL"}, {blocking})')
    if ret == "void":
        body = f"(void){call};"
    elif ret == "int":
        body = f"return (int){call};"
    else:
        body = f"return {call};"
    return F(stem, "", classes, ret, params, body, "sync", generic=generic,
             status=status)


_MULTI = "$T *ivars, size_t nelems, const int *status, int cmp, "
_SOME = "$T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, "
FAMILIES += [
    # ---- point-to-point synchronization (sync.c) ----
    wait("wait_until", ["SYNC", "SYNC_DEP"], "void",
         "$T *ivar, int cmp, $T cmp_value", "SHMI_WAIT_ONE", 1),
    wait("wait_until_all", "SYNC", "void", _MULTI + "$T cmp_value",
         "SHMI_WAIT_ALL", 1),
    wait("wait_until_any", "SYNC", "size_t", _MULTI + "$T cmp_value",
         "SHMI_WAIT_ANY", 1),
    wait("wait_until_some", "SYNC", "size_t", _SOME + "$T cmp_value",
         "SHMI_WAIT_SOME", 1, indices=True),
    wait("wait_until_all_vector", "SYNC", "void",
         _MULTI + "const $T *cmp_values", "SHMI_WAIT_ALL", 1, vector=True),
    wait("wait_until_any_vector", "SYNC", "size_t",
         _MULTI + "const $T *cmp_values", "SHMI_WAIT_ANY", 1, vector=True),
    wait("wait_until_some_vector", "SYNC", "size_t",
         _SOME + "const $T *cmp_values", "SHMI_WAIT_SOME", 1, vector=True,
         indices=True),
    wait("test", ["SYNC", "SYNC_DEP"], "int",
         "$T *ivar, int cmp, $T cmp_value", "SHMI_WAIT_ONE", 0),
    wait("test_all", "SYNC", "int", _MULTI + "$T cmp_value",
         "SHMI_WAIT_ALL", 0),
    wait("test_any", "SYNC", "size_t", _MULTI + "$T cmp_value",
         "SHMI_WAIT_ANY", 0),
    wait("test_some", "SYNC", "size_t", _SOME + "$T cmp_value",
         "SHMI_WAIT_SOME", 0, indices=True),
    wait("test_all_vector", "SYNC", "int", _MULTI + "const $T *cmp_values",
         "SHMI_WAIT_ALL", 0, vector=True),
    wait("test_any_vector", "SYNC", "size_t",
         _MULTI + "const $T *cmp_values", "SHMI_WAIT_ANY", 0, vector=True),
    wait("test_some_vector", "SYNC", "size_t",
         _SOME + "const $T *cmp_values", "SHMI_WAIT_SOME", 0, vector=True,
         indices=True),
    # Deprecated in 1.4: shmem_TYPENAME_wait is wait_until with SHMEM_CMP_NE.
    F("wait", "", "WAIT_DEP", "void", "$T *ivar, $T cmp_value",
      '(void)shmi_wait("$NAME", SHMI_WAIT_ONE, $DT, ivar, 1, NULL, '
      'SHMEM_CMP_NE, &cmp_value, 0, NULL, 1);', "sync", status="deprecated"),
]

TEAM_PUT = "shmem_team_t team, $T *dest, const $T *source, size_t nelems"
FAMILIES += [
    # ---- team-based collectives (coll.c) ----
    F("broadcast", "", "RMA", "int", TEAM_PUT + ", int PE_root",
      'return shmi_team_broadcast("$NAME", team, dest, source, $NB, PE_root);',
      "coll", mem=True, generic=1),
    F("collect", "", "RMA", "int", TEAM_PUT,
      'return shmi_team_collect("$NAME", team, dest, source, $NB);', "coll",
      mem=True, generic=1),
    F("fcollect", "", "RMA", "int", TEAM_PUT,
      'return shmi_team_fcollect("$NAME", team, dest, source, $NB);', "coll",
      mem=True, generic=1),
    F("alltoall", "", "RMA", "int", TEAM_PUT,
      'return shmi_team_alltoall("$NAME", team, dest, source, $NB);', "coll",
      mem=True, generic=1),
    F("alltoalls", "", "RMA", "int",
      "shmem_team_t team, $T *dest, const $T *source, ptrdiff_t dst, "
      "ptrdiff_t sst, size_t nelems",
      'return shmi_team_alltoalls("$NAME", team, dest, source, dst, sst, '
      'nelems, $ES);', "coll", mem=True, generic=1),
]
REDUCE_OPS = [("and", "REDUCE_BIT"), ("or", "REDUCE_BIT"),
              ("xor", "REDUCE_BIT"), ("max", "REDUCE_MINMAX"),
              ("min", "REDUCE_MINMAX"), ("sum", "REDUCE_ARITH"),
              ("prod", "REDUCE_ARITH")]
for _op, _cls in REDUCE_OPS:
    FAMILIES.append(F(
        f"{_op}_reduce", "", _cls, "int",
        "shmem_team_t team, $T *dest, const $T *source, size_t nreduce",
        f'return shmi_team_reduce("$NAME", team, dest, source, nreduce, $DT, '
        f'SHMI_OP_{_op.upper()});', "coll", generic=1))
# Stream-ordered reductions on device buffers (src/core/stream).
for _op, _cls in REDUCE_OPS:
    FAMILIES.append(F(
        f"{_op}_reduce", "_on_stream", _cls, "int",
        "shmem_team_t team, $T *dest, const $T *source, size_t nreduce, "
        "void *stream",
        f'return shmi_stream_reduce("$NAME", team, dest, source, nreduce, '
        f'$DT, SHMI_OP_{_op.upper()}, stream);', "stream",
        status="extension", prefix="shmemx_"))
for _scan, _excl in (("sum_inscan", 0), ("sum_exscan", 1)):
    FAMILIES.append(F(
        _scan, "", "REDUCE_ARITH", "int",
        "shmem_team_t team, $T *dest, const $T *source, size_t nelems",
        f'return shmi_team_scan("$NAME", team, dest, source, nelems, $DT, '
        f'SHMI_OP_SUM, {_excl});', "coll", generic=1))
# Deprecated in 1.5: active-set collectives (coll_deprecated.c).
for _op, _cls in REDUCE_OPS:
    FAMILIES.append(F(
        f"{_op}_to_all", "", _cls.replace("REDUCE", "TO_ALL"), "void",
        "$T *dest, const $T *source, int nreduce, int PE_start, "
        "int logPE_stride, int PE_size, $T *pWrk, long *pSync",
        f'shmi_as_reduce("$NAME", dest, source, nreduce, PE_start, '
        f'logPE_stride, PE_size, pWrk, pSync, $DT, SHMI_OP_{_op.upper()});',
        "coll_deprecated", status="deprecated"))
FAMILIES += nb_families(F, TEAM_PUT, REDUCE_OPS)  # scripts/api_model_nb.py
AS_TAIL = "int PE_start, int logPE_stride, int PE_size, long *pSync"
AS_ARGS = "PE_start, logPE_stride, PE_size, pSync"
_ASK = dict(sizes=[32, 64], status="deprecated")
FAMILIES += [
    F("broadcast", "", None, "void",
      f"void *dest, const void *source, size_t nelems, int PE_root, {AS_TAIL}",
      f'shmi_as_broadcast("$NAME", dest, source, $NB, PE_root, {AS_ARGS});',
      "coll_deprecated", **_ASK),
    F("collect", "", None, "void",
      f"void *dest, const void *source, size_t nelems, {AS_TAIL}",
      f'shmi_as_collect("$NAME", dest, source, $NB, {AS_ARGS});',
      "coll_deprecated", **_ASK),
    F("fcollect", "", None, "void",
      f"void *dest, const void *source, size_t nelems, {AS_TAIL}",
      f'shmi_as_fcollect("$NAME", dest, source, $NB, {AS_ARGS});',
      "coll_deprecated", **_ASK),
    F("alltoall", "", None, "void",
      f"void *dest, const void *source, size_t nelems, {AS_TAIL}",
      f'shmi_as_alltoall("$NAME", dest, source, $NB, {AS_ARGS});',
      "coll_deprecated", **_ASK),
    F("alltoalls", "", None, "void",
      "void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, "
      f"size_t nelems, {AS_TAIL}",
      f'shmi_as_alltoalls("$NAME", dest, source, dst, sst, nelems, $ES, '
      f'{AS_ARGS});', "coll_deprecated", **_ASK),
]

# ---------------------------------------------------------------------------
# Device routines: shmemd_X, static inline in include/shmem/device/typed.h
# ---------------------------------------------------------------------------

# The untyped device routines, written by hand in include/shmem/device/*.h;
# they take the first routine ids (include/shmem/device/routines.h).
DEVICE_HANDWRITTEN = [
    "shmemd_putmem", "shmemd_getmem", "shmemd_putmem_block",
    "shmemd_putmem_warp", "shmemd_getmem_block", "shmemd_getmem_warp",
    "shmemd_putmem_signal", "shmemd_signal_wait_until", "shmemd_signal_fetch",
    "shmemd_fence", "shmemd_quiet", "shmemd_barrier_all", "shmemd_sync_all",
    "shmemd_barrier_all_block", "shmemd_sync_all_block", "shmemd_ptr"]

# Bytes of the C types of scripts/types.tsv on LP64 Linux, where CUDA and
# HIP device code shares the host's type sizes.  Device atomics exist only
# for 4 and 8 bytes, so these decide which types get atomics; typed.h
# asserts each size that the type's name does not fix (DEVICE_ASSUMED).
LP64_SIZES = {
    "float": 4, "double": 8, "long double": 16, "char": 1, "signed char": 1,
    "short": 2, "int": 4, "long": 8, "long long": 8, "unsigned char": 1,
    "unsigned short": 2, "unsigned int": 4, "unsigned long": 8,
    "unsigned long long": 8, "int8_t": 1, "int16_t": 2, "int32_t": 4,
    "int64_t": 8, "uint8_t": 1, "uint16_t": 2, "uint32_t": 4, "uint64_t": 8,
    "size_t": 8, "ptrdiff_t": 8, "double _Complex": 16, "float _Complex": 8}
DEVICE_AMO_SIZES = (4, 8)


class DeviceFamily:
    """Device routines shmemd_TYPENAME_<stem> for the types of `classes`
    (of DEVICE_AMO_SIZES bytes only when `atomic`): one line each, calling
    a hand-written shmemd_i_ function.  With `by_value`, the routines of
    WIDE_TYPES exist in host code only (Routine.host_only): CUDA device code
    holds a long double value as a double in a 16-byte slot, so its bytes
    are not the host's; arrays of them, moved as bytes, are fine."""

    def __init__(self, stem, classes, ret, params, body, atomic=False,
                 by_value=False):
        self.stem, self.classes, self.atomic = stem, classes, atomic
        self.ret, self.params, self.body = ret, params, body
        self.by_value = by_value

    def types(self):
        return [t for t in types_of(self.classes) if not self.atomic
                or LP64_SIZES[t.c] in DEVICE_AMO_SIZES]

    def routines(self):
        out = []
        for t in self.types():
            name = f"shmemd_{t.name}_{self.stem}"
            sub = dict(T=t.c, NAME=name, RID=f"SHMEMD_R_{name}")
            r = Routine(name, Template(self.ret).substitute(sub),
                        Template(self.params).substitute(sub),
                        Template(self.body).substitute(sub),
                        "device", "extension")
            r.host_only = self.by_value and t.c in WIDE_TYPES
            out.append(r)
        return out


def _dev_rma(stem, fn):
    return DeviceFamily(stem, "RMA", "void", RMA_PUT,
                        f"{fn}($RID, dest, source, nelems * sizeof($T), pe);")


def _dev_amo(stem, cls, ret, params, op, value="NULL", compare="NULL",
             dest="dest", one=False):
    """An atomic: one shmemd_i_amo call; `one` passes a local 1 as value."""
    pre = "$T one = 1; " if one else ""
    if ret == "void":
        body = (f"{pre}shmemd_i_amo($RID, {op}, {dest}, {value}, {compare}, "
                "NULL, sizeof($T), pe);")
    else:
        body = (f"{pre}$T old = 0; shmemd_i_amo($RID, {op}, {dest}, {value}, "
                f"{compare}, &old, sizeof($T), pe); return old;")
    return DeviceFamily(stem, cls, ret, params, body, atomic=True)


DEVICE_FAMILIES = [
    _dev_rma("put", "shmemd_i_put"),
    _dev_rma("get", "shmemd_i_get"),
    _dev_rma("put_block", "shmemd_i_put_block"),
    _dev_rma("put_warp", "shmemd_i_put_warp"),
    _dev_rma("get_block", "shmemd_i_get_block"),
    _dev_rma("get_warp", "shmemd_i_get_warp"),
    DeviceFamily("p", "RMA", "void", "$T *dest, $T value, int pe",
                 "shmemd_i_p($RID, dest, &value, sizeof($T), pe);",
                 by_value=True),
    DeviceFamily("g", "RMA", "$T", "const $T *source, int pe",
                 "$T value = 0; shmemd_i_g($RID, &value, source, sizeof($T), "
                 "pe); return value;", by_value=True),
    _dev_amo("atomic_fetch", "AMO_EXT", "$T", "const $T *source, int pe",
             "SHMEMD_AMO_FETCH", dest=SRC),
    _dev_amo("atomic_set", "AMO_EXT", "void", "$T *dest, $T value, int pe",
             "SHMEMD_AMO_SET", value="&value"),
    _dev_amo("atomic_swap", "AMO_EXT", "$T", "$T *dest, $T value, int pe",
             "SHMEMD_AMO_SWAP", value="&value"),
    _dev_amo("atomic_compare_swap", "AMO_STD", "$T",
             "$T *dest, $T cond, $T value, int pe", "SHMEMD_AMO_CSWAP",
             value="&value", compare="&cond"),
    _dev_amo("atomic_fetch_add", "AMO_STD", "$T", "$T *dest, $T value, int pe",
             "SHMEMD_AMO_FETCH_ADD", value="&value"),
    _dev_amo("atomic_add", "AMO_STD", "void", "$T *dest, $T value, int pe",
             "SHMEMD_AMO_ADD", value="&value"),
    _dev_amo("atomic_fetch_inc", "AMO_STD", "$T", "$T *dest, int pe",
             "SHMEMD_AMO_FETCH_ADD", value="&one", one=True),
    _dev_amo("atomic_inc", "AMO_STD", "void", "$T *dest, int pe",
             "SHMEMD_AMO_ADD", value="&one", one=True),
]


def device_routines():
    """Every generated device routine, family by family."""
    return [r for fam in DEVICE_FAMILIES for r in fam.routines()]


def device_assumed_sizes():
    """[(CType, bytes)]: the types given atomics whose size LP64_SIZES
    assumed (every one but the exact-width intN_t and uintN_t)."""
    seen, out = set(), []
    for fam in DEVICE_FAMILIES:
        for t in fam.types() if fam.atomic else []:
            if t.c not in seen and not re.fullmatch(r"u?int\d+_t", t.c):
                seen.add(t.c)
                out.append((t, LP64_SIZES[t.c]))
    return out


def device_routine_ids():
    """The names with a routine id, in id order (id 0 is SHMEMD_R_NONE)."""
    names = DEVICE_HANDWRITTEN + [r.name for r in device_routines()]
    if len(set(names)) != len(names):
        sys.exit("gen_api.py: a device routine is named twice")
    return names


# ---------------------------------------------------------------------------
# Routines from routines.tsv
# ---------------------------------------------------------------------------


def arg_names(params):
    if params.strip() == "void":
        return []
    names = []
    for p in params.split(","):
        p = p.strip()
        if p == "...":
            continue
        names.append(re.findall(r"[A-Za-z_]\w*", p)[-1])
    return names


def core_name(name):
    if name.startswith("shmemx_"):
        return "shmix_" + name[len("shmemx_"):]
    if name.startswith("shmem_"):
        return "shmi_" + name[len("shmem_"):]
    sys.exit(f"scripts/routines.tsv: {name}: give an explicit CALL")


ROUTINES = []   # (Routine, core declaration or None)
for name, ret, params, file, status, call in read_tsv("routines.tsv", 6):
    args = arg_names(params)
    decl = None
    if call == "noop":
        body = " ".join(f"(void){a};" for a in args) or "/* nothing */"
    else:
        if call == "-":
            call = f"{core_name(name)}({', '.join(args)})"
            sep = "" if ret.endswith("*") else " "
            decl = f"{ret}{sep}{core_name(name)}({params})"
        body = f"{call};" if ret == "void" else f"return {call};"
    ROUTINES.append((Routine(name, ret, params, body, file, status), decl))

# Core functions named by an explicit CALL that no other row declares.
EXTRA_CORE = {
    "setup": ["void shmi_pcontrol(int level)", "void shmi_start_pes(int npes)"],
}

# ---------------------------------------------------------------------------
# Constants and handles
# ---------------------------------------------------------------------------



def weft_version():
    """(major, minor, patch) of Weft, from AC_INIT in configure.ac."""
    with open(os.path.join(TOP, "configure.ac"), encoding="utf-8") as f:
        m = re.search(r"AC_INIT\(\[weft\],\s*\[(\d+)\.(\d+)\.(\d+)\]",
                      f.read())
    if not m:
        sys.exit("configure.ac: no AC_INIT([weft], [MAJOR.MINOR.PATCH])")
    return tuple(int(x) for x in m.groups())


WEFT_VERSION = weft_version()

# (name, value, comment); Weft's choices where the specification leaves the
# value to the implementation.
CONSTANTS = [
    ("SHMEM_MAJOR_VERSION", "1", "specification version implemented"),
    ("SHMEM_MINOR_VERSION", "6", None),
    ("SHMEM_MAX_NAME_LEN", "256", "bytes of SHMEM_VENDOR_STRING, with NUL"),
    ("SHMEM_VENDOR_STRING", '"Weft"', None),
    # The library's own version (configure.ac), as Open MPI has
    # OSHMEM_MAJOR_VERSION and OSHMPI OSHMPI_NUMVERSION: bindings and
    # programs that adapt to each OpenSHMEM test for WEFT_NUMVERSION.
    ("WEFT_MAJOR_VERSION", str(WEFT_VERSION[0]),
     "this library: Weft, and its version"),
    ("WEFT_MINOR_VERSION", str(WEFT_VERSION[1]), None),
    ("WEFT_PATCH_VERSION", str(WEFT_VERSION[2]), None),
    ("WEFT_VERSION", '"%d.%d.%d"' % WEFT_VERSION, None),
    ("WEFT_NUMVERSION",
     str(WEFT_VERSION[0] * 10000 + WEFT_VERSION[1] * 100 + WEFT_VERSION[2]),
     "MAJOR * 10000 + MINOR * 100 + PATCH"),
    ("SHMEM_THREAD_SINGLE", "0", "thread levels, in increasing order"),
    ("SHMEM_THREAD_FUNNELED", "1", None),
    ("SHMEM_THREAD_SERIALIZED", "2", None),
    ("SHMEM_THREAD_MULTIPLE", "3", None),
    ("SHMEM_CTX_SERIALIZED", "(1L << 0)", "shmem_ctx_create options"),
    ("SHMEM_CTX_PRIVATE", "(1L << 1)", None),
    ("SHMEM_CTX_NOSTORE", "(1L << 2)", None),
    ("SHMEM_CTX_SESSION_BATCH", "(1L << 0)", "shmem_ctx_session_start options"),
    ("SHMEM_CTX_SESSION_TOTAL_OPS", "(1L << 0)",
     "shmem_ctx_session_config_t mask bits"),
    ("SHMEM_TEAM_NUM_CONTEXTS", "(1L << 0)", "shmem_team_config_t mask bits"),
    ("SHMEM_MALLOC_ATOMICS_REMOTE", "(1L << 0)", "shmem_malloc_with_hints"),
    ("SHMEM_MALLOC_SIGNAL_REMOTE", "(1L << 1)", None),
    ("SHMEM_SIGNAL_SET", "0", "put-with-signal sig_op"),
    ("SHMEM_SIGNAL_ADD", "1", None),
    ("SHMEM_CMP_EQ", "1", "point-to-point comparisons"),
    ("SHMEM_CMP_NE", "2", None),
    ("SHMEM_CMP_GT", "3", None),
    ("SHMEM_CMP_GE", "4", None),
    ("SHMEM_CMP_LT", "5", None),
    ("SHMEM_CMP_LE", "6", None),
    # Deprecated in 1.5 with the active-set collectives.  Every pSync array
    # has room for SHMEM_SYNC_SIZE longs, so any size works for any routine.
    ("SHMEM_SYNC_VALUE", "0L", "deprecated: active-set pSync init value"),
    ("SHMEM_SYNC_SIZE", "64", "deprecated: longs in any pSync array"),
    ("SHMEM_BCAST_SYNC_SIZE", "SHMEM_SYNC_SIZE", None),
    ("SHMEM_REDUCE_SYNC_SIZE", "SHMEM_SYNC_SIZE", None),
    ("SHMEM_BARRIER_SYNC_SIZE", "SHMEM_SYNC_SIZE", None),
    ("SHMEM_COLLECT_SYNC_SIZE", "SHMEM_SYNC_SIZE", None),
    ("SHMEM_ALLTOALL_SYNC_SIZE", "SHMEM_SYNC_SIZE", None),
    ("SHMEM_ALLTOALLS_SYNC_SIZE", "SHMEM_SYNC_SIZE", None),
    ("SHMEM_REDUCE_MIN_WRKDATA_SIZE", "16",
     "deprecated: minimum pWrk elements"),
]
LEGACY_ALIASES = [   # deprecated since 1.3, still listed in 1.6
    "SYNC_VALUE", "BARRIER_SYNC_SIZE", "BCAST_SYNC_SIZE", "COLLECT_SYNC_SIZE",
    "REDUCE_SYNC_SIZE", "REDUCE_MIN_WRKDATA_SIZE", "MAJOR_VERSION",
    "MINOR_VERSION", "MAX_NAME_LEN", "VENDOR_STRING", "CMP_EQ", "CMP_NE",
    "CMP_LT", "CMP_LE", "CMP_GT", "CMP_GE"]

HANDLES = """\
/* ---- Library handles ---------------------------------------------------- */

/*
 * The library's predefined handles are exported as constant pointers, never
 * as the objects themselves: a program that referenced a library object
 * directly would get a copy of it (a copy relocation) whose size is frozen
 * when the program is linked, and a later library with a larger object
 * would overrun it. A pointer's size never changes.
 */

/* A context: an independent stream of RMA, AMO and ordering operations.
 * The struct is private to the library (src/core/ctx.h). */
typedef struct shmem_impl_ctx *shmem_ctx_t;
extern shmem_ctx_t const shmem_impl_ctx_default_handle;
#define SHMEM_CTX_DEFAULT (shmem_impl_ctx_default_handle)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* A team: an ordered set of PEs (src/core/team/team.h). */
typedef struct shmem_impl_team *shmem_team_t;
extern shmem_team_t const shmem_impl_team_world_handle;
extern shmem_team_t const shmem_impl_team_shared_handle;
#define SHMEM_TEAM_WORLD (shmem_impl_team_world_handle)
#define SHMEM_TEAM_SHARED (shmem_impl_team_shared_handle)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* Team creation parameters; the mask says which members are set. */
typedef struct {
    int num_contexts; /* contexts the team should be able to create */
} shmem_team_config_t;

/* Session hints for shmem_ctx_session_start. */
typedef struct {
    size_t total_ops; /* expected RMA calls in the session (SIZE_MAX: unknown) */
} shmem_ctx_session_config_t;
"""

# ---------------------------------------------------------------------------
# Areas: one generated C file and one header part each
# ---------------------------------------------------------------------------

AREAS = [  # (file, heading) in header order
    ("setup", "Library setup, exit and query; accessibility"),
    ("mem", "Memory management"),
    ("ctx_team", "Contexts and teams"),
    ("rma", "Remote memory access"),
    ("rma_strided", "Remote memory access, strided and blocked"),
    ("signal", "Put-with-signal and signals"),
    ("amo", "Atomic memory operations"),
    ("amo_nbi", "Atomic memory operations, non-blocking fetching forms"),
    ("amo_deprecated", "Atomic memory operations, deprecated names (1.4)"),
    ("sync", "Point-to-point synchronization"),
    ("coll", "Collectives: team-based, barrier and sync"),
    ("coll_deprecated", "Active-set collectives (deprecated in 1.5)"),
    ("order", "Memory ordering, locks, cache (legacy)"),
    ("coll_nb", "Nonblocking collectives (draft of OpenSHMEM's)"),
    ("stream", "Stream-ordered communication on device streams"),
    ("kernel", "Device-initiated communication: host side of kernels"),
]


def all_routines():
    """Every public routine, grouped by file, in a stable order."""
    by_file = {f: [] for f, _ in AREAS}
    for r, _ in ROUTINES:
        by_file[r.file].append(r)
    for fam in FAMILIES:
        by_file[fam.file].extend(fam.routines())
    names = set()
    for rs in by_file.values():
        for r in rs:
            if r.name in names:
                sys.exit(f"gen_api.py: {r.name} generated twice")
            names.add(r.name)
    return by_file
