#!/usr/bin/env bash
# lanes.sh 'COMMAND' 'COMMAND'...: runs the commands at once, one lane
# each. It is for suites that wait on an editor's screen far more than
# they compute (make test-editors): side by side, two take little more
# than the longer alone.
#
# The first lane's output is printed as it comes. Each other lane's is
# kept in a file and printed whole when the first lane has ended and it
# has too, so no two suites' lines interleave. The last lines say each
# lane's status and time. Exits 0 when every lane did; a lane that fails
# does not stop the others.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: lanes.sh 'COMMAND' ['COMMAND'...]" >&2; exit 2; }

logs=$(mktemp -d)
pids=()
# Ended by a signal, the lanes end too: each lane's process and what it
# started (a make passes SIGTERM on to its recipes). Lane 1 runs in the
# background as well, since bash runs a trap only once a foreground
# command has ended.
trap 'for p in "${pids[@]}"; do pkill -TERM -P "$p"; kill "$p"; done 2>/dev/null; rm -rf "$logs"; exit 130' INT TERM HUP
trap 'rm -rf "$logs"' EXIT

start=$SECONDS
for ((i = 2; i <= $#; i++)); do
  echo "lanes: lane $i, '${!i}', runs beside lane 1; its output follows lane 1's"
  (
    s=$SECONDS
    bash -c "${!i}" >"$logs/$i.log" 2>&1
    echo "$? $((SECONDS - s))" >"$logs/$i.status"
  ) &
  pids+=($!)
done

echo "lanes: lane 1, '$1'"
bash -c "$1" &
pids+=($!)
wait "$!"
status1=$?
took1=$((SECONDS - start))

summary=("lanes: lane 1, '$1': exit status $status1, $took1 s")
failed=$((status1 != 0))
for ((i = 2; i <= $#; i++)); do
  wait "${pids[i - 2]}"
  read -r status took <"$logs/$i.status" || { status=unknown took=?; }
  echo
  echo "lanes: lane $i's output, '${!i}'"
  cat "$logs/$i.log"
  summary+=("lanes: lane $i, '${!i}': exit status $status, $took s")
  [ "$status" = 0 ] || failed=1
done
echo
printf '%s\n' "${summary[@]}"
echo "lanes: $# lanes in $((SECONDS - start)) s"
exit "$failed"
