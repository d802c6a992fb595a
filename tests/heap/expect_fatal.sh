#!/usr/bin/env bash
# Runs a job that must end with a fatal error: passes when the command exits
# non-zero (without hanging: the runner's timeout) and its output names
# PATTERN. Usage: expect_fatal.sh PATTERN COMMAND [ARGS...]
set -u
pattern=$1; shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out" | tail -n 20
if [ $rc = 0 ]; then
    echo "FAIL: the job succeeded; a fatal error naming '$pattern' was expected"
    exit 1
fi
if ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
    echo "FAIL: exit status $rc, but no message naming '$pattern'"
    exit 1
fi
echo "ok: status $rc with a message naming '$pattern'"
