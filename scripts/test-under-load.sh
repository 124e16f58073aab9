#!/usr/bin/env bash
# Runs `npm test` (or the command given) while a CPU hog keeps both cores busy: `yes > /dev/null`, one per core
# (two by default, HOGS=n for another count), started here and stopped here whatever the outcome. The suite must
# not depend on an idle machine; this is how that is shown. Prints the command's wall time and exits with its status.
set -uo pipefail
cd "$(dirname "$0")/.."

HOGS="${HOGS:-2}"
pids=()
stop_hogs() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}
trap stop_hogs EXIT INT TERM

for _ in $(seq "$HOGS"); do
  yes >/dev/null &
  pids+=("$!")
done
echo "test-under-load: ${HOGS} × 'yes > /dev/null' running (pids ${pids[*]}); load $(cut -d' ' -f1-3 /proc/loadavg)"

started=$(date +%s)
if [ "$#" -gt 0 ]; then "$@"; else npm test; fi
status=$?
elapsed=$(($(date +%s) - started))

stop_hogs
echo "test-under-load: exit ${status} after ${elapsed} s ($((elapsed / 60)) min $((elapsed % 60)) s) with ${HOGS} CPU hogs"
exit "$status"
