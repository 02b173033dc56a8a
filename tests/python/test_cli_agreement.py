"""The module's gradient is the command line's, bit for bit, at the rank count the test runs with."""
import numpy as np
import pytest

import flexadj
from conftest import cli_gradient, model

CASES = [
    ("tests/cli/data/pendulum_cart.yaml", {"integrator.end_time": 0.25}),
    ("meshes/overhead_crane.yaml", {"integrator.end_time": 0.75}),
]


@pytest.mark.parametrize("path, overrides", CASES)
def test_gradient_equals_cli(path, overrides, shared_tmp, comm):
    cli_J, names, values, cli_g = cli_gradient(model(path), overrides, shared_tmp, comm)
    problem = flexadj.Problem(model(path), overrides=overrides)
    assert problem.design_names == names
    # The CSV holds 17 significant digits: the values read back are the doubles written.
    assert list(problem.design_values()) == values
    J, g = problem.gradient(problem.design_values())
    assert isinstance(g, np.ndarray) and g.shape == (len(names),)
    assert J == cli_J, f"J {J!r}, the command line's {cli_J!r}"
    assert g.tolist() == cli_g, f"max |g_py - g_cli| = {np.max(np.abs(g - np.array(cli_g)))}"
    # J alone (a forward run) is the J of the gradient run.
    assert problem.objective(problem.design_values()) == J
    # Every rank holds the same J and g.
    assert comm.allgather((J, g.tolist())) == [(J, g.tolist())] * comm.size
