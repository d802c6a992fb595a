# The one-node test Slurm (tests/launch/slurm-single.sh) as the srun test
# scripts use it; sourced. The caller defines skip() (prints the reason,
# exits 77) and sets S (the source tree).
#
# slurm_up LOGDIR: starts the test Slurm unless one answers already (its
#   output goes to LOGDIR/slurm.log); sets started=1 when it started it.
# slurm_down: cancels what is left of this user's jobs, stops the daemons
#   slurm_up started and waits for them to go, so the next test can start
#   its own.
started=0

slurm_up() {
    export D=${WEFT_SLURM_DIR:-/tmp/weft-slurm1}
    export SLURM_CONF=$D/slurm.conf
    started=0
    command -v srun >/dev/null || [ "$(id -u)" = 0 ] ||
        skip "Slurm is not installed and installing it needs root"
    if [ -f "$SLURM_CONF" ] && command -v sinfo >/dev/null &&
        sinfo -h -o %T 2>/dev/null | grep -qx idle; then
        return 0
    fi
    [ "$(id -u)" = 0 ] || skip "starting a test Slurm needs root"
    if ! timeout 600 bash "$S/tests/launch/slurm-single.sh" start >"$1/slurm.log" 2>&1; then
        tail -n 5 "$1/slurm.log"
        skip "the one-node Slurm did not start (see above)"
    fi
    started=1
}

slurm_down() {
    local pids
    timeout 10 scancel -u "$(id -un)" >/dev/null 2>&1
    [ "$started" = 1 ] || return 0
    pids=$(cat "$D"/run/*.pid 2>/dev/null)
    bash "$S/tests/launch/slurm-single.sh" stop >/dev/null 2>&1
    for _ in $(seq 50); do
        # (zombies count as gone: nobody may be there to reap them)
        [ -n "$(ps -o stat= -p "$(echo $pids | tr ' ' ,)" 2>/dev/null | grep -v Z)" ] || break
        sleep 0.1
    done
    rm -rf "$D"
    return 0
}
