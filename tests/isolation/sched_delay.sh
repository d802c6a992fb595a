# Scheduling delay on this machine, measured while a test runs, so that the
# 2 s limits of the isolation tests (dead_pe.sh, launcher_kill.sh) hold on a
# busy machine too without being loosened on a quiet one. Sourced by
# dead_pe_setup.sh.
#
# A probe (one bash loop, no forks) sleeps 10 ms at a time and logs when it
# woke up; how late it woke is the time a task that wanted a CPU waited for
# one. The reaction a test times (a launcher or a PE noticing a death and
# ending the job) is such a chain of wake-ups, so a limit L from event A to
# end B holds when B - A - late(A, B) < L, where late(A, B) is the probe's
# total lateness in [A, B], counted at most L (a reaction that needs more
# than twice the limit fails however busy the machine is).
#
#   sched_probe_start DIR   start the probe (log in DIR)
#   sched_probe_stop        stop it (it also stops when the script ends)
#   sched_late A B          the probe's lateness in [A, B], in seconds
#   sched_within A B L      true when the time from A to B, less the
#                           lateness (at most L), is under L seconds

sched_probe_pid=
sched_probe_log=

sched_probe_start() {
    sched_probe_log=$1/sched-probe.log
    mkfifo "$1/sched-probe.fifo" || return 0
    (
        # A FIFO opened for reading and writing never has data: each read
        # times out after exactly the asked time unless the probe is late.
        exec 3<>"$1/sched-probe.fifo"
        # Until the script that started it is gone ($$ is that script's
        # pid in this subshell), whichever way it ended.
        while kill -0 $$ 2>/dev/null; do
            t=$EPOCHREALTIME
            read -r -t 0.01 -u 3
            echo "$EPOCHREALTIME $t"
        done
    ) >"$sched_probe_log" 2>/dev/null &
    sched_probe_pid=$!
}

sched_probe_stop() {
    [ -z "$sched_probe_pid" ] || kill "$sched_probe_pid" 2>/dev/null
    sched_probe_pid=
}

sched_late() {
    [ -s "$sched_probe_log" ] || { echo 0; return; }
    awk -v a="$1" -v b="$2" '$1 > a && $1 <= b && $1 - $2 > 0.01 { s += $1 - $2 - 0.01 }
        END { printf "%.2f\n", s }' "$sched_probe_log"
}

sched_within() {
    local late
    late=$(sched_late "$1" "$2")
    awk -v a="$1" -v b="$2" -v z="$late" -v l="$3" \
        'BEGIN { if (z > l) z = l; exit !(b - a - z < l) }'
}
