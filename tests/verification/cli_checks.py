"""Shared by the command-line verification scripts (test_joint_coordinates.py, test_null_space_variational.py):
their arguments FLEXADJ MPIEXEC WORKDIR SOURCE_DIR, a scratch folder as working directory, flexadj runs with their
exit codes checked, and the pass/fail tally."""
import os
import re
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

    def gradient(self, model, *options):
        """J (from the output), the gradient column of the CSV file, and the output of `flexadj gradient`."""
        out = self.run("gradient", model, "-o", "gradient.csv", *options)
        value = float(re.search(r"^J = (\S+)", out, re.M).group(1))
        with open("gradient.csv") as f:
            rows = [line.strip().split(",") for line in f][1:]
        return value, [float(row[2]) for row in rows], out

    def joint_models(self):
        """The models of the joint-coordinate variational tests, written to the working folder: the torsional
        pendulum, the double pendulum on a cart swinging (controls 2 N), the spinning spherical pendulum without its
        spectral radius, and the options that make the latter's design variables mass, inertia, joint geometry and
        an initial velocity."""
        torsional = self.source + "/meshes/torsional_pendulum_state_space.yaml"
        swinging = open(self.source + "/meshes/double_pendulum_cart_hamiltonian.yaml").read()
        with open("swinging.yaml", "w") as f:
            f.write(swinging.replace("value: 0}", "value: 2}"))
        with open("spatial.yaml", "w") as f:
            f.write("".join(line for line in open(self.source + "/meshes/spherical_pendulum_spin.yaml")
                            if not line.strip().startswith("spectral_radius")))
        spatial_options = ["--set", "integrator.end_time=0.5",
                           "--set", "design_variables=[box.mass, box.inertia_xz, pivot.point_b_z, pivot.point_a_x, "
                                    "{initial_velocity: box.x}]"]
        return torsional, "swinging.yaml", "spatial.yaml", spatial_options

    def finish(self):
        print("%d failure(s)" % len(self.failures))
        sys.exit(1 if self.failures else 0)
