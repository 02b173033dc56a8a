"""Shared by the command-line verification scripts (test_joint_coordinates.py, test_null_space_variational.py):
their arguments FLEXADJ MPIEXEC WORKDIR SOURCE_DIR, a scratch folder as working directory, flexadj runs with their
exit codes checked, and the pass/fail tally."""
import os
import subprocess
import sys


class CliChecks:
    def __init__(self, argv):
        self.flexadj, self.mpiexec, work, self.source = argv[1:5]
        os.makedirs(work, exist_ok=True)
        os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        os.chdir(work)
        self.failures = []

    def check(self, label, ok, detail=""):
        print("%s %s %s" % ("ok  " if ok else "FAIL", label, detail))
        if not ok:
            self.failures.append(label)

    def run(self, *args, expect=0, ranks=1):
        """flexadj ARGS (on `ranks` ranks); checks the exit code, returns stdout + stderr."""
        command = ([self.mpiexec, "-n", str(ranks), "--oversubscribe"] if ranks > 1 else []) + [self.flexadj] + list(args)
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != expect:
            print(result.stdout[-3000:], result.stderr[-3000:])
        self.check("exit %d: %s" % (expect, " ".join(args[:2])), result.returncode == expect,
                   "(got %d)" % result.returncode)
        return result.stdout + result.stderr

    def finish(self):
        print("%d failure(s)" % len(self.failures))
        sys.exit(1 if self.failures else 0)
