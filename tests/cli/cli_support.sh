# Shared by the command-line tests (sourced): a scratch folder, pass/fail counters and two checks.
# The sourcing script is called as SCRIPT PATH/TO/flexadj.
set -u
FLEXADJ="$1"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
passed=0
failed=0

# expect NAME EXIT_CODE "TEXT1" "TEXT2" ... -- ARGS...: runs flexadj ARGS, checks the exit code and that each
# text appears in its output.
expect() {
  local name="$1" code="$2"; shift 2
  local texts=()
  while [ "$1" != "--" ]; do texts+=("$1"); shift; done
  shift
  "$FLEXADJ" "$@" >stdout.txt 2>stderr.txt
  local actual=$?
  local ok=1
  if [ "$actual" -ne "$code" ]; then ok=0; echo "FAIL $name: exit code $actual, expected $code"; fi
  for text in "${texts[@]}"; do
    if ! grep -qF -- "$text" stderr.txt stdout.txt; then ok=0; echo "FAIL $name: output lacks '$text'"; fi
  done
  if [ $ok -eq 1 ]; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); sed 's/^/     | /' stderr.txt; fi
}

# pass_if NAME COMMAND...: counts COMMAND's success.
pass_if() {
  local name="$1"; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}

# The summary line and the script's exit status.
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
