#!/usr/bin/env bash
# The documentation stays true: runs every command block marked runnable in README.md and docs/*.md and fails when
# one fails.
#
# The marking: a fenced code block whose info string is `sh runnable`, i.e. opened by the line
#     ```sh runnable
# and closed by a line ``` (GitHub shows it as an ordinary shell block). Mark only commands that take a few seconds
# (each under about 20 s at 1-2 ranks: shorten runs with --set integrator.end_time=...), need nothing beyond the
# build and Debian's python3-h5py, and install nothing: the README's set-up line stays an ordinary ```sh block.
#
# How they run: each file's blocks run in order, each as a `bash -e` script, in one scratch folder per file that
# holds a copy of meshes/, benchmarks/ and scripts/ of the source tree, so paths relative to the top of the
# repository work and a block may use the files an earlier block of the same file wrote. In that copy
# scripts/flexadj is replaced by a wrapper that runs the flexadj under test (this script's argument) under mpirun
# with the `-np N` it is given (default 1), as the real scripts/flexadj runs build/apps/flexadj; build/python there
# is the Python module built beside it, for scripts/python. A block fails on
# its first failing command; the test fails if any block failed or if no runnable block was found. It also checks
# that the README shows the set-up line that CI runs (.ci/run) word for word.
#
# Usage: test_doc_commands.sh PATH/TO/flexadj [SOURCE_DIR]   (SOURCE_DIR: the repository, default ../.. from here)
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FLEXADJ="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
ROOT="$(cd "${2:-$HERE/../..}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

passed=0
failed=0
blocks_total=0

# extract FILE OUTDIR: writes the runnable blocks of FILE as OUTDIR/NNN.sh (with the line where each starts as a
# comment) and prints their number.
extract() {
  awk -v out="$2" '
    /^```sh runnable[[:space:]]*$/ { inside = 1; n++; file = sprintf("%s/%03d.sh", out, n);
                                     printf "# line %d\n", NR + 1 > file; next }
    inside && /^```[[:space:]]*$/   { inside = 0; close(file); next }
    inside                          { print > file }
    END { if (inside) { print "unterminated runnable block" > "/dev/stderr"; exit 1 } print n + 0 }
  ' "$1"
}

# scratch DIR: a copy of the parts of the repository the documented commands use, with scripts/flexadj running
# the flexadj under test.
scratch() {
  mkdir -p "$1"
  cp -r "$ROOT/meshes" "$ROOT/scripts" "$1/"
  [ -d "$ROOT/benchmarks" ] && cp -r "$ROOT/benchmarks" "$1/"
  mkdir -p "$1/build"
  # scripts/python imports the module built beside the flexadj under test.
  if [ -d "$(dirname "$FLEXADJ")/../python" ]; then ln -s "$(cd "$(dirname "$FLEXADJ")/../python" && pwd)" "$1/build/python"; fi
  cat >"$1/scripts/flexadj" <<EOF
#!/usr/bin/env bash
# scripts/flexadj of the documentation test: [-np N] COMMAND ... on $FLEXADJ
set -euo pipefail
ranks=1
if [ "\${1:-}" = "-np" ]; then ranks="\$2"; shift 2; fi
exec mpirun --oversubscribe -np "\$ranks" "$FLEXADJ" "\$@"
EOF
  chmod +x "$1/scripts/flexadj"
}

for doc in "$ROOT/README.md" "$ROOT"/docs/*.md; do
  name="${doc#"$ROOT"/}"
  dir="$WORK/$(echo "$name" | tr '/.' '__')"
  mkdir -p "$dir.blocks"
  count="$(extract "$doc" "$dir.blocks")" || { failed=$((failed + 1)); echo "FAIL $name: cannot read its blocks"; continue; }
  [ "$count" -eq 0 ] && continue
  scratch "$dir"
  for block in "$dir.blocks"/*.sh; do
    blocks_total=$((blocks_total + 1))
    where="$name:$(head -n 1 "$block" | sed 's/# line //')"
    start=$(date +%s)
    (cd "$dir" && bash -e "$block") >"$block.log" 2>&1
    code=$?
    seconds=$(( $(date +%s) - start ))
    if [ $code -eq 0 ]; then
      passed=$((passed + 1))
      echo "ok   $where (${seconds} s)"
    else
      failed=$((failed + 1))
      echo "FAIL $where: exit code $code after ${seconds} s"
      sed 's/^/     > /' "$block" | tail -n +2
      tail -n 20 "$block.log" | sed 's/^/     | /'
    fi
  done
done

# The set-up line CI runs on a fresh machine (.ci/run) stands in the README verbatim (not runnable: it installs).
if [ -f "$ROOT/.ci/run" ]; then
  setup_line="$(grep -m 1 '^scripts/setup.sh' "$ROOT/.ci/run")"
  if [ -n "$setup_line" ] && grep -qxF -- "$setup_line" "$ROOT/README.md"; then
    passed=$((passed + 1)); echo "ok   README.md shows the set-up line of .ci/run"
  else
    failed=$((failed + 1)); echo "FAIL README.md lacks the set-up line of .ci/run: $setup_line"
  fi
fi

echo "$passed passed, $failed failed ($blocks_total runnable blocks)"
if [ "$blocks_total" -eq 0 ]; then echo "FAIL no runnable block found in README.md and docs/*.md"; exit 1; fi
[ "$failed" -eq 0 ]
