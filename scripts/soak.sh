#!/usr/bin/env bash
# The whole test suite N times in a row (default 5), in a fresh clone of the current commit, while
# two other CPU-bound processes run: the check that no test depends on timing (issue 14).
#
#   scripts/soak.sh            # 5 runs
#   scripts/soak.sh 2          # 2 runs
#   PYTHON=.venv/bin/python scripts/soak.sh
#
# Uses the Python environment it is given (PYTHON, default: python on PATH) with PYTHONPATH set to
# the clone, so the clone's code is what runs. Prints one line per run and a summary; the exit
# status is the number of failed runs (0: all passed). Each run's output is kept in the clone's
# soak-logs/ folder, which the script names at the end.
set -uo pipefail

runs=${1:-5}
python=${PYTHON:-python}
per_run_timeout=${SOAK_RUN_TIMEOUT:-5400}
src=$(git rev-parse --show-toplevel)
branch=$(git -C "$src" rev-parse --abbrev-ref HEAD)
commit=$(git -C "$src" rev-parse --short HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/advisor-soak.XXXXXX")
git clone -q --branch "$branch" "$src" "$work/clone" || exit 100
cd "$work/clone" || exit 100
mkdir -p soak-logs

burners=()
stop_burners() {
  for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${burners[@]}"; do wait "$pid" 2>/dev/null; done
}
trap stop_burners EXIT
for _ in 1 2; do
  "$python" -c 'while True: pass' &
  burners+=("$!")
done

echo "soak: commit $commit ($branch), $runs run(s) of the whole suite in $work/clone with 2 CPU burners (pids ${burners[*]})"
echo "soak: $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
failed=0
for n in $(seq 1 "$runs"); do
  start=$(date +%s)
  PYTHONPATH="$work/clone" timeout "$per_run_timeout" "$python" -m pytest -q -p no:cacheprovider \
    >"soak-logs/run-$n.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  summary=$(grep -E "^(=+ )?[0-9]+ (passed|failed)|(passed|failed|error).* in [0-9.]+s" "soak-logs/run-$n.log" | tail -1)
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    echo "run $n: FAILED (exit $rc) in ${secs}s: $summary"
    grep -E "^(FAILED|ERROR) " "soak-logs/run-$n.log" | sed 's/^/    /'
  else
    echo "run $n: passed in ${secs}s: $summary (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
  fi
done
echo "soak: $((runs - failed)) of $runs run(s) passed; logs in $work/clone/soak-logs"
exit "$failed"
