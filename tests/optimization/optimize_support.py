"""Helpers of the optimisation tests: run `flexadj optimize` (under mpiexec) and read its output files."""
import csv
import os
import subprocess
import sys


class Runner:
    def __init__(self, flexadj, mpiexec, work):
        self.flexadj, self.mpiexec, self.work = flexadj, mpiexec, work
        os.makedirs(work, exist_ok=True)

    def run(self, *arguments, ranks=1, check=True):
        command = [self.mpiexec, "-np", str(ranks), self.flexadj] + [str(a) for a in arguments]
        result = subprocess.run(command, cwd=self.work, capture_output=True, text=True)
        if check and result.returncode != 0:
            sys.stdout.write(result.stdout + result.stderr)
            raise AssertionError("%s exited with %d" % (" ".join(command), result.returncode))
        return result

    def path(self, name):
        return os.path.join(self.work, name)

    def write(self, name, text):
        with open(self.path(name), "w") as out:
            out.write(text)
        return self.path(name)

    def history(self, prefix):
        with open(self.path(prefix + "_history.csv")) as f:
            return list(csv.DictReader(f))

    def design(self, prefix):
        """The design values of PREFIX_design.yaml: name -> list of floats."""
        values = {}
        with open(self.path(prefix + "_design.yaml")) as f:
            for line in f:
                line = line.strip()
                if not line.startswith('"'):
                    continue
                name, text = line.split('": ', 1)
                text = text.strip("[]")
                values[name.strip('"')] = [float(v) for v in text.split(",")]
        return values


class Checks:
    """Collects named assertions and reports them all."""

    def __init__(self):
        self.failed = 0

    def check(self, name, condition, detail=""):
        print(("ok   " if condition else "FAIL ") + name + ("  (" + detail + ")" if detail else ""))
        sys.stdout.flush()
        if not condition:
            self.failed += 1

    def close(self, name, actual, expected, tolerance):
        self.check(name, abs(actual - expected) <= tolerance,
                   "%.12g vs %.12g, difference %.3g, tolerance %.3g" % (actual, expected, abs(actual - expected), tolerance))

    def finish(self):
        print("%d failed" % self.failed)
        sys.exit(1 if self.failed else 0)


def rk4_pendulum(acceleration, controls, end_time, substeps):
    """phi'' = acceleration(phi, u) by the classical Runge-Kutta method from rest at phi = 0, one control value per
    control step of end_time/len(controls), each in `substeps` steps: the exact motion of the pendulum swing-up
    tests. Returns (phi, phi')."""
    f = lambda y, u: (y[1], acceleration(y[0], u))  # noqa: E731
    y, h = (0.0, 0.0), end_time / len(controls) / substeps
    for u in controls:
        for _ in range(substeps):
            k1 = f(y, u)
            k2 = f((y[0] + h / 2 * k1[0], y[1] + h / 2 * k1[1]), u)
            k3 = f((y[0] + h / 2 * k2[0], y[1] + h / 2 * k2[1]), u)
            k4 = f((y[0] + h * k3[0], y[1] + h * k3[1]), u)
            y = (y[0] + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]),
                 y[1] + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]))
    return y
