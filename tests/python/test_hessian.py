"""Problem.hessian_vector: the exact H v of the discrete J (second-order adjoint) against central differences of
the module's own exact gradients, its symmetry, and the errors for a wrong direction and a design the second-order
adjoint does not cover."""
import numpy as np
import pytest

import flexadj
from conftest import model

OSCILLATOR = model("meshes/oscillator.yaml")
DESIGN = {"design_variables": "[spring.stiffness, mass.mass]"}  # J = z(t1) in the stiffness and the mass


# A rod's length (a joint's own parameter) with the control values on the pendulum of the swing-up over its first
# half second, with its variational integrator and with generalized-alpha.
SWING_UP = model("meshes/pendulum_swing_up_variational.yaml")
ROD = {"integrator.end_time": "0.5", "design_variables": "[rod.length, {control: u}]"}


@pytest.mark.parametrize("path, design", [(OSCILLATOR, DESIGN),
                                          (OSCILLATOR, {"design_variables": "[spring.stiffness, initial_velocity: mass.x]"}),
                                          (SWING_UP, ROD),
                                          (SWING_UP, {**ROD, "integrator.type": "generalized_alpha"})],
                         ids=["parameters", "initial velocity on the rail", "rod length, variational",
                              "rod length, generalized-alpha"])
def test_hessian_vector_matches_differences_of_gradients(path, design):
    problem = flexadj.Problem(path, overrides=design)
    x = problem.design_values()
    rng = np.random.default_rng(3)
    v, u = rng.uniform(-1, 1, x.size), rng.uniform(-1, 1, x.size)
    Hv = problem.hessian_vector(x, v)
    h = 1e-4
    difference = (problem.gradient(x + h * v)[1] - problem.gradient(x - h * v)[1]) / (2 * h)
    assert np.max(np.abs(Hv - difference)) <= 1e-6 * np.max(np.abs(Hv))
    Hu = problem.hessian_vector(x, u)
    assert abs(u @ Hv - v @ Hu) <= 1e-10 * (np.linalg.norm(u) * np.linalg.norm(Hv) + np.linalg.norm(v) * np.linalg.norm(Hu))


def test_hessian_vector_bad_inputs():
    problem = flexadj.Problem(OSCILLATOR, overrides=DESIGN)
    with pytest.raises(ValueError, match="one per design scalar"):
        problem.hessian_vector(None, np.ones(5))
    # The joint-coordinate form of the variational integrator has no second-order adjoint yet.
    joint_coordinates = flexadj.Problem(model("meshes/pendulum_swing_up_null_space.yaml"))
    with pytest.raises(ValueError, match="needs the second-order adjoint"):
        joint_coordinates.hessian_vector(None, np.ones(joint_coordinates.design_values().size))
