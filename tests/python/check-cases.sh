#!/usr/bin/env bash
# Every pytest file tests/python/test_*.py has its cases in
# tests/python/python.cases: one per PE count, 1, 2 and 4, named
# py_<file without test_ and .py>_<N> and run by run-pytest.sh N FILE; the
# test_device_* files with SHMEM_DEVICE_BACKEND=mock. A file added without
# its lines would never run in `make check`: this prints the lines to add.
#
#   check-cases.sh SRCDIR
set -u
root=${1:?usage: check-cases.sh SRCDIR}
cases=$root/tests/python/python.cases
bad=0 n=0
for f in "$root"/tests/python/test_*.py; do
    [ -f "$f" ] || continue
    file=${f##*/}
    stem=${file#test_}; stem=${stem%.py}
    for pes in 1 2 4; do
        n=$((n + 1))
        name=py_${stem}_$pes
        line=$(awk -v name="$name" '$1 == name' "$cases")
        want="run-pytest.sh $pes $file"
        if [ -z "$line" ]; then
            echo "$file: no case $name in tests/python/python.cases; add:"
            case "$file" in
            test_device_*) echo "  $name 180:serial SHMEM_DEVICE_BACKEND=mock \$S/tests/python/$want" ;;
            *) echo "  $name 120 \$S/tests/python/$want" ;;
            esac
            bad=1
        elif [[ "$line" != *"$want"* ]]; then
            echo "$name: does not run '$want': $line"
            bad=1
        elif [[ "$file" == test_device_* && "$line" != *SHMEM_DEVICE_BACKEND=mock* ]]; then
            echo "$name: a device test without SHMEM_DEVICE_BACKEND=mock: $line"
            bad=1
        fi
    done
done
# And no case runs a file that is gone.
while read -r name _ cmd; do
    case "$name" in ''|'#'*) continue ;; esac
    for w in $cmd; do
        case "$w" in
        test_*.py) [ -f "$root/tests/python/$w" ] ||
            { echo "$name: runs $w, which does not exist"; bad=1; } ;;
        esac
    done
done <"$cases"
echo "$n cases of the pytest files checked"
exit $bad
