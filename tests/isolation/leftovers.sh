# What a finished job left behind, told apart from what others made since.
# Sourced by dead_pe_setup.sh and isolation.sh.
#
# The isolation tests name a /dev/shm entry after the job when the name
# holds the pid of one of its processes. On a busy machine pids wrap
# quickly (pid_max is often 32768): once the job's processes are gone, a
# process of another job may get one of their pids and make an entry named
# after it. Such an entry was made after the job ended, so it is not the
# job's: an entry counts as left by the job only if its inode changed last
# (it was made, written or resized) no later than the moment the job's
# processes were all seen gone.
#
#   made_by DIR/NAME T    true when DIR/NAME exists and its ctime is at or
#                         before T (seconds since the epoch, as
#                         $EPOCHREALTIME)
made_by() {
    local c
    c=$(stat -c '%.9Z' "$1" 2>/dev/null) || return 1
    awk -v c="$c" -v t="$2" 'BEGIN { exit !(c <= t) }'
}
