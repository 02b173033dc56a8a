// The adjoint gradients (discrete and continuous) on all ranks equal the single-rank gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "flexadj/adjoint/continuous_adjoint.hpp"
#include "flexadj/integrators/generalized_alpha.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/storage/trajectory.hpp"
#include "adjoint_checks.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

// One forward run recorded into two trajectories at once (memory and HDF5), so that their sweeps see the same run.
void record_into_both(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator, assembly::State& state,
                      storage::Trajectory& first, storage::Trajectory& second) {
  integrators::SimulationOptions options;
  options.progress = false;
  first.begin_recording();
  second.begin_recording();
  integrators::simulate(assembler, integrator, state, options,
                        {[&](long long n, double t, const assembly::State& s) {
                          first.record(n, t, s);
                          second.record(n, t, s);
                        }});
  first.end_recording();
  second.end_recording();
}

TEST(AdjointRanks, ChainGradientMatchesTheSingleRankGradient) {
  auto problem = rigid_chain(6, 0.2, 100);
  // The gradient depends on the multipliers; Newton stops once the increments are below its tolerance,
  // and a run on another rank count may stop one iteration earlier or later at some step. Converging to
  // round-off (1e-14) makes both runs solve the same discrete equations.
  problem.integrator.newton_tolerance = 1e-14;
  objectives::Objective objective = rigid_chain_objective();
  objectives::ObjectiveTerm relative;  // links 1 and 6 live on different ranks at np 2
  relative.kind = objectives::ObjectiveTerm::Kind::FinalSquare;
  relative.coordinate = 35;  // link6.x
  relative.relative_to = 0;  // link1.x
  relative.target = 1.0;
  objective.add(relative);
  const Evaluation distributed = evaluate(problem, objective, world(), true);
  const Evaluation serial = evaluate(problem, objective, self(), true);
  EXPECT_NEAR(distributed.value, serial.value, 1e-12 * std::abs(serial.value));
  EXPECT_LT(max_relative_difference(distributed.gradient.parameters, serial.gradient.parameters), 1e-10);
  EXPECT_LT(max_relative_difference(distributed.gradient.initial_velocities, serial.gradient.initial_velocities), 1e-10);
  // dJ/dq(0) also has components along directions that violate the joints; there the terms of the
  // acceleration-level multipliers nearly cancel, and round-off from the rank count shows at ~1e-10.
  EXPECT_LT(max_relative_difference(distributed.gradient.initial_coordinates, serial.gradient.initial_coordinates), 1e-9);
  // The continuous adjoint (BDF-2) too.
  const Evaluation distributed_continuous = evaluate(problem, objective, world(), true, nullptr, 2);
  const Evaluation serial_continuous = evaluate(problem, objective, self(), true, nullptr, 2);
  EXPECT_LT(max_relative_difference(distributed_continuous.gradient.parameters, serial_continuous.gradient.parameters),
            1e-10);
  EXPECT_LT(max_relative_difference(distributed_continuous.gradient.initial_velocities,
                                    serial_continuous.gradient.initial_velocities),
            1e-10);
  // A real gradient: the links' masses matter.
  const model::ParameterSpace space(*problem.model);
  EXPECT_GT(std::abs(serial.gradient.parameters[space.find("link3.mass")]), 1e-6);
}

// The discrete adjoint of the variational integrator (constrained chain of spatial rigid bodies, links 1 and 6 on
// different ranks at np 2): the gradient on all ranks equals the single-rank gradient, and reading the forward
// states from the HDF5 file (q and v only: the sweep recomputes p = T_v(q, v)) gives the same gradient (np 1).
TEST(AdjointRanks, VariationalChainGradientMatchesTheSingleRankGradient) {
  auto problem = rigid_chain(6, 0.2, 100);
  problem.integrator.scheme = "variational";
  problem.integrator.newton_tolerance = 1e-14;
  const objectives::Objective objective = rigid_chain_objective();
  const Evaluation serial = expect_gradient_independent_of_ranks(problem, objective);
  const model::ParameterSpace space(*problem.model);
  EXPECT_GT(std::abs(serial.gradient.parameters[space.find("link3.mass")]), 1e-6);

  // HDF5 against memory, on all ranks: this sequence (a gradient, a rank-0 report, an HDF5-recorded run in one
  // process) hung at np 2 while world() was collective (simulation_support.hpp).
  assembly::Assembler assembler(*problem.model, world());
  linalg::LinearSolverOptions options;
  options.kind = "direct";
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, options);
  auto state = assembler.make_state();
  assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
  const std::string path = "variational_adjoint_trajectory_np" + std::to_string(world()->getSize()) + ".h5";
  storage::MemoryTrajectory memory;
  storage::Hdf5Trajectory file(path, assembler, integrators::describe_run(problem.integrator));
  record_into_both(assembler, *integrator, state, memory, file);
  const auto from_memory = adjoint::discrete_adjoint_gradient(assembler, *integrator, memory, objective, space);
  const auto from_file = adjoint::discrete_adjoint_gradient(assembler, *integrator, file, objective, space);
  EXPECT_LT(max_relative_difference(from_file.parameters, from_memory.parameters), 1e-12);
}

// The backward sweeps with the iterative solver (Belos GMRES + Ifpack2 on the transposed matrices the
// assembler fills) give the direct solver's gradients to the iterative solver's accuracy (true residual 1e-8).
TEST(AdjointRanks, IterativeSolverGivesTheDirectGradient) {
  auto problem = rigid_chain(6, 0.2, 100);
  problem.integrator.newton_tolerance = 1e-12;
  objectives::Objective objective;
  objectives::ObjectiveTerm term;
  term.kind = objectives::ObjectiveTerm::Kind::FinalSquare;
  term.coordinate = 35;
  term.target = 0.5;
  objective.add(term);
  objectives::ObjectiveTerm velocity;
  velocity.kind = objectives::ObjectiveTerm::Kind::Tracking;
  velocity.quantity = objectives::ObjectiveTerm::Quantity::Velocity;
  velocity.coordinate = 23;
  objective.add(velocity);
  const model::ParameterSpace space(*problem.model);
  auto gradients = [&](const std::string& kind) {
    assembly::Assembler assembler(*problem.model, world());
    linalg::LinearSolverOptions options;
    options.kind = kind;
    options.tolerance = 1e-13;
    integrators::GeneralizedAlpha integrator(assembler, problem.integrator, options);
    auto state = assembler.make_state();
    assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
    storage::MemoryTrajectory trajectory;
    integrators::record_forward_run(assembler, integrator, state, trajectory);
    return std::make_pair(adjoint::discrete_adjoint_gradient(assembler, integrator, trajectory, objective, space),
                          adjoint::continuous_adjoint_gradient(assembler, integrator, trajectory, objective, space));
  };
  const auto direct = gradients("direct");
  const auto iterative = gradients("iterative");
  EXPECT_LT(max_relative_difference(iterative.first.parameters, direct.first.parameters), 1e-7);
  EXPECT_LT(max_relative_difference(iterative.first.initial_velocities, direct.first.initial_velocities), 1e-7);
  EXPECT_LT(max_relative_difference(iterative.second.parameters, direct.second.parameters), 1e-7);
  EXPECT_GT(std::abs(direct.first.parameters[space.find("link3.mass")]), 1e-6);
}

// The backward sweep reading the forward states from the HDF5 result file gives the gradient of the
// sweep that keeps them in memory, bit for bit.
TEST(AdjointRanks, Hdf5TrajectoryGivesTheMemoryGradient) {
  auto problem = rigid_chain(4, 0.1, 50);
  objectives::Objective objective;
  objectives::ObjectiveTerm term;
  term.kind = objectives::ObjectiveTerm::Kind::FinalSquare;
  term.coordinate = 21;
  objective.add(term);
  auto comm = world();
  assembly::Assembler assembler(*problem.model, comm);
  integrators::GeneralizedAlpha integrator(assembler, problem.integrator, {});
  auto state = assembler.make_state();
  assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
  const std::string path = "adjoint_trajectory_np" + std::to_string(comm->getSize()) + ".h5";
  storage::MemoryTrajectory memory;
  storage::Hdf5Trajectory file(path, assembler, integrators::describe_run(problem.integrator));
  record_into_both(assembler, integrator, state, memory, file);
  const model::ParameterSpace space(*problem.model);
  const auto from_memory =
      adjoint::discrete_adjoint_gradient(assembler, integrator, memory, objective, space);
  const auto from_file = adjoint::discrete_adjoint_gradient(assembler, integrator, file, objective, space);
  EXPECT_EQ(from_file.objective, from_memory.objective);
  EXPECT_EQ(from_file.parameters, from_memory.parameters);
  EXPECT_EQ(from_file.initial_velocities, from_memory.initial_velocities);
  // The continuous adjoint revisits steps near the end (differences, multiplier extrapolation).
  const auto continuous_memory = adjoint::continuous_adjoint_gradient(assembler, integrator, memory, objective, space);
  const auto continuous_file = adjoint::continuous_adjoint_gradient(assembler, integrator, file, objective, space);
  EXPECT_EQ(continuous_file.parameters, continuous_memory.parameters);
  EXPECT_EQ(continuous_file.initial_velocities, continuous_memory.initial_velocities);
}

}  // namespace
}  // namespace flexadj::testing
