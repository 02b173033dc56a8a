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

# Taylor test of order 3 along a random direction v: |J(p + h v) - J - h g.v - h^2/2 v.Hv| falls like h^3.
taylor3() {  # taylor3 MODEL [FIRST_STEP]: steps FIRST_STEP (default 0.1) and three halvings
  /usr/bin/python3 - "$FLEXADJ" "$1" "${2:-0.1}" <<'PY'
import csv, math, random, re, subprocess, sys
flexadj, model, first = sys.argv[1], sys.argv[2], float(sys.argv[3])
def J_of(*args):
    out = subprocess.run([flexadj, "gradient", model, *args], capture_output=True, text=True).stdout
    return float(re.search(r"^J = (\S+)", out, re.M).group(1))
J0 = J_of("-o", "taylor_g.csv")
rows = list(csv.DictReader(open("taylor_g.csv")))
random.seed(3)
v = [random.uniform(-1, 1) for _ in rows]
with open("taylor_v.csv", "w") as f:
    f.write("name,value\n" + "".join("%s,%r\n" % (r["name"], x) for r, x in zip(rows, v)))
subprocess.run([flexadj, "hessian", model, "--direction", "taylor_v.csv", "-o", "taylor_hv.csv"], capture_output=True)
Hv = [float(r["product"]) for r in csv.DictReader(open("taylor_hv.csv"))]
gv = sum(float(r["gradient"]) * x for r, x in zip(rows, v))
vHv = sum(a * b for a, b in zip(v, Hv))
remainders = []
for h in (first, first / 2, first / 4, first / 8):
    values = {}
    for r, x in zip(rows, v):
        control = re.match(r"(control:\w+)\[\d+\]$", r["name"])
        if control: values.setdefault(control.group(1), []).append(float(r["value"]) + h * x)
        else: values[r["name"]] = float(r["value"]) + h * x
    with open("taylor_p.yaml", "w") as f:
        f.write("design_values:\n" + "".join('  "%s": %r\n' % (k, w) for k, w in values.items()))
    J = J_of("--set", "optimization.start_from=taylor_p.yaml", "-o", "/dev/null")
    remainders.append(abs(J - J0 - h * gv - 0.5 * h * h * vHv))
orders = [math.log2(a / b) for a, b in zip(remainders, remainders[1:])]
print("     remainders " + " ".join("%.2e" % r for r in remainders) + ", orders " + " ".join("%.2f" % o for o in orders))
sys.exit(not all(o >= 2.8 for o in orders[1:]))
PY
}
