"""The module's Problem: gradient against a central difference, errors as Python exceptions, simulate()."""
import h5py
import numpy as np
import pytest

import flexadj
from conftest import model

PENDULUM = model("tests/cli/data/pendulum_cart.yaml")
SHORT = {"integrator.end_time": 0.25}


@pytest.fixture(scope="module")
def problem():
    return flexadj.Problem(PENDULUM, overrides=SHORT)


def test_design(problem):
    names = problem.design_names
    assert names[:2] == ["spring.stiffness", "pendulum.mass"]
    assert names[2:] == [f"control:F[{k}]" for k in range(7)]
    x = problem.design_values()
    assert x.shape == (9,) and x[0] == 20 and x[1] == 0.5 and np.all(x[2:] == 0.5)
    lower, upper = problem.bounds()
    assert np.all(lower == -np.inf) and np.all(upper == np.inf)


@pytest.mark.parametrize("component", [0, 1, 3])
def test_central_difference(problem, component):
    x = problem.design_values()
    J, g = problem.gradient(x)
    h = 1e-4 * max(1.0, abs(x[component]))
    plus, minus = x.copy(), x.copy()
    plus[component] += h
    minus[component] -= h
    difference = (problem.objective(plus) - problem.objective(minus)) / (2 * h)
    assert difference == pytest.approx(g[component], rel=1e-6, abs=1e-9 * abs(J))
    # The problem returns to x: the same J again.
    assert problem.objective(x) == J


def test_bad_path():
    with pytest.raises(ValueError, match="no/such/model.yaml"):
        flexadj.Problem("no/such/model.yaml")


def test_bad_override_key():
    with pytest.raises(ValueError, match="end_tim"):
        flexadj.Problem(PENDULUM, overrides={"integrator.end_tim": 1.0})


def test_bad_override_value():
    with pytest.raises(ValueError, match="step_size"):
        flexadj.Problem(PENDULUM, overrides={"integrator.step_size": "fast"})


def test_wrong_design_size(problem):
    with pytest.raises(ValueError, match="expected 9 design values"):
        problem.objective(np.zeros(3))


def test_solver_error(problem):
    x = problem.design_values()
    x[2] = np.nan  # a control value: the equations of motion are not finite
    with pytest.raises(flexadj.SolverError, match="not finite"):
        problem.objective(x)
    assert issubclass(flexadj.SolverError, RuntimeError)
    assert np.isfinite(problem.objective())  # usable afterwards


def test_simulate(problem, shared_tmp):
    run = problem.simulate()
    steps = round(0.25 / 1e-3)
    coordinates = len(run.coordinate_names)
    assert run.coordinate_names[:2] == ["cart.x", "cart.y"]
    assert run.time.shape == (steps + 1,) and run.time[0] == 0 and run.time[-1] == pytest.approx(0.25)
    assert run.q.shape == (steps + 1, coordinates) and run.v.shape == (steps + 1, coordinates)
    assert run.q[0, run.coordinate_names.index("pendulum.theta")] == -1.37
    assert np.all(np.isfinite(run.q)) and np.ptp(run.q[:, 0]) > 0  # the cart moves
    # Another design, another run; the file's run is the Trajectory's, whatever ran in between.
    x = problem.design_values()
    x[2:] = 5.0
    pushed = problem.simulate(x)
    assert not np.array_equal(pushed.q, run.q)
    path = shared_tmp / "run.h5"
    run.write(str(path))
    with h5py.File(path, "r") as f:
        assert np.array_equal(f["time"][:], run.time)
        assert np.array_equal(f["state/q"][:], run.q)
        assert np.array_equal(f["state/v"][:], run.v)
    assert path.with_suffix(".xmf").exists()


def test_override_values():
    """Numbers, numpy values, lists and YAML text are the same overrides."""
    as_text = flexadj.Problem(PENDULUM, overrides={"integrator.end_time": "0.25", "gravity": "[0, -1.62]",
                                                   "integrator.step_size": "2e-3"})
    as_values = flexadj.Problem(PENDULUM, overrides={"integrator.end_time": np.float64(0.25),
                                                     "gravity": np.array([0, -1.62]), "integrator.step_size": 2e-3})
    assert as_text.objective() == as_values.objective()
    # The gravity and the step size took effect.
    assert as_text.objective() != flexadj.Problem(PENDULUM, overrides=SHORT).objective()
    assert as_text.simulate().time.shape == (126,)
    with pytest.raises(ValueError, match="gravity"):
        flexadj.Problem(PENDULUM, overrides={"gravity": {1, 2}})


def test_simulate_with_checkpoints(problem):
    """A checkpointed trajectory keeps a few states only: simulate() runs the model again, to the same bits."""
    checkpointed = flexadj.Problem(PENDULUM, overrides={**SHORT, "trajectory.storage": "checkpoints",
                                                        "trajectory.checkpoints": 4})
    run, again = problem.simulate(), checkpointed.simulate()
    assert np.array_equal(run.time, again.time) and np.array_equal(run.q, again.q) and np.array_equal(run.v, again.v)
    assert checkpointed.gradient()[1].tolist() == problem.gradient()[1].tolist()
