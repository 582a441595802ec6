# Sourced by the tests/cli_*.sh scripts after `set -u`: a temporary folder
# removed on exit ($tmp), and check CMD... counting passes and failures; the
# script ends with `echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else echo "FAIL: $*"; fail=$((fail + 1)); fi; }
# check_empty MESSAGE LIST: a pass if LIST is empty, else a failure printing MESSAGE and LIST.
check_empty() { if [ -z "$2" ]; then pass=$((pass + 1)); else echo "FAIL: $1"; echo "$2"; fail=$((fail + 1)); fi; }
