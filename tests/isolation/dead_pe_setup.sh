# What the scripts that run tests/isolation/dead_pe under a launcher share
# (dead_pe.sh, early_exit.sh); sourced after B and S are set.
#
#   dead_pe_setup NAME: a work directory $work (removed at exit, with the
#   test Slurm if one was started), errs/bad/skip, the Slurm helpers of
#   tests/launch/slurm-test.sh, and $real, the program a launcher must start
#   (the real binary, not libtool's wrapper script).
dead_pe_setup() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/weft-$1.XXXXXX")
    trap dead_pe_cleanup EXIT
    trap 'exit 130' INT TERM
    errs=0
    . "$S/tests/launch/slurm-test.sh"
    . "$S/tests/isolation/sched_delay.sh"
    . "$S/tests/isolation/leftovers.sh"
    sched_probe_start "$work"
    real=$B/tests/isolation/dead_pe
    if [ -x "$B/tests/isolation/.libs/dead_pe" ]; then
        real=$B/tests/isolation/.libs/dead_pe
        export LD_LIBRARY_PATH=$B/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
}

dead_pe_cleanup() {
    sched_probe_stop
    [ -z "${SLURM_CONF:-}" ] || slurm_down
    rm -rf "$work"
}

bad() { echo "FAIL: $*"; errs=$((errs + 1)); }
skip() { echo "skipped: $*"; exit 77; }
