"""Shared set-up of the Python module's tests: the repository, the command-line program, MPI (mpi4py), and a
scratch folder that all ranks share. Run by ctest (python_np1, python_np2) or by hand:
    scripts/python -m pytest tests/python            scripts/python -np 2 -m pytest tests/python
"""
import csv
import io
import os
import pathlib
import subprocess

import h5py
import pytest
from mpi4py import MPI

import flexadj

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("FLEXADJ_CLI", str(ROOT / "build" / "apps" / "flexadj"))


@pytest.fixture(scope="session")
def comm():
    return MPI.COMM_WORLD


@pytest.fixture
def shared_tmp(tmp_path, comm):
    """Rank 0's tmp_path, on every rank (collective file writes need one name)."""
    return pathlib.Path(comm.bcast(str(tmp_path), root=0))


def model(name):
    return str(ROOT / name)


def run_cli(arguments, comm):
    """Runs `mpirun -np <ranks of comm> flexadj ARGUMENTS` on rank 0 (outside this MPI job) and gives its
    (exit code, stdout + stderr) on every rank."""
    result = None
    if comm.rank == 0:
        # A fresh mpirun: none of this job's Open MPI / PMIx variables.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PRTE_", "OPAL_"))}
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        done = subprocess.run(["mpirun", "--oversubscribe", "-np", str(comm.size), CLI] + arguments, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        result = (done.returncode, done.stdout)
    return comm.bcast(result, root=0)


def cli_gradient(path, overrides, folder, comm):
    """`flexadj gradient PATH --set ... -o gradient.csv --h5 gradient.h5` in `folder` at the ranks of comm: J (the
    HDF5 file's /objective, a double) and the CSV's columns name, value, gradient, on every rank."""
    csv_path, h5_path = pathlib.Path(folder) / "gradient.csv", pathlib.Path(folder) / "gradient.h5"
    arguments = ["gradient", path, "-q", "-o", str(csv_path), "--h5", str(h5_path)]
    for key, value in overrides.items():
        arguments += ["--set", f"{key}={value}"]
    code, output = run_cli(arguments, comm)
    assert code == 0, output
    result = None
    if comm.rank == 0:
        with h5py.File(h5_path, "r") as f:
            J = float(f["objective"][0])
        rows = list(csv.DictReader(io.StringIO(csv_path.read_text())))
        result = (J, [r["name"] for r in rows], [float(r["value"]) for r in rows], [float(r["gradient"]) for r in rows])
    return comm.bcast(result, root=0)
