#!/usr/bin/env bash
# ctest fuzz_short: every libFuzzer harness of tests/fuzz for SECONDS each (scripts/fuzz.sh, into BUILD/fuzz, the
# harnesses that need the library linked against BUILD's), if clang and its fuzzer runtime are installed; skipped
# otherwise (exit 77, the reason printed). On one core (the test's PROCESSORS 1): builds and runs one at a time, so
# that ctest runs another test on the other core instead of holding it idle while a harness fuzzes; FUZZ_JOBS
# overrides. Compiled at -O0 with line tables (FUZZ_OPTIMIZATION of scripts/fuzz.sh): the build is most of the
# test's time. Usage: fuzz_short.sh SOURCE_DIR BUILD_DIR [SECONDS]
set -u
SOURCE="$1" BUILD="$2" SECONDS_EACH="${3:-12}"
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
if ! command -v clang++ > /dev/null; then
  echo "fuzz_short skipped: clang++ is not installed (Debian: apt-get install clang libclang-rt-14-dev)"
  exit 77
fi
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe/p.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" 2> "$probe/err"; then
  echo "fuzz_short skipped: clang++ cannot link libFuzzer with the sanitizers (Debian: apt-get install" \
       "libclang-rt-14-dev): $(head -1 "$probe/err")"
  exit 77
fi
cd "$SOURCE" || exit 1
started=$(date +%s)
FUZZ_OUT="$BUILD/fuzz" FUZZ_CMAKE_BUILD="$BUILD" JOBS="${FUZZ_JOBS:-1}" \
  FUZZ_OPTIMIZATION="${FUZZ_OPTIMIZATION:--O0 -gline-tables-only}" scripts/fuzz.sh "$SECONDS_EACH"
status=$?
echo "fuzz_short: $(($(date +%s) - started)) s in all (builds and runs)"
exit $status
