#pragma once
// Helpers for tests: run a model in memory and collect the global trajectory on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include <Teuchos_DefaultMpiComm.hpp>
#include <memory>
#include <vector>

#include "flexadj/integrators/simulation.hpp"
#include "flexadj/problem/problem.hpp"

namespace flexadj::testing {

struct Trajectory {
  std::vector<double> times;
  std::vector<std::vector<double>> q, v, lambda;  // global numbering, one entry per step
  integrators::SimulationSummary summary;
};

// One communicator object each, made at the first call. The Teuchos::MpiComm constructor is collective (it
// broadcasts its message tag over the communicator), so a world() that made a new one on every call was collective
// too: called inside a rank-0-only branch (a printf of world()->getSize()) it put the ranks' collectives out of
// step, and the next collective of the run (a KLU2 gather, an HDF5 file creation) never returned.
inline RCP<const Comm> world() {
  static const RCP<const Comm> comm = rcp(new Teuchos::MpiComm<int>(MPI_COMM_WORLD));
  return comm;
}
inline RCP<const Comm> self() {
  static const RCP<const Comm> comm = rcp(new Teuchos::MpiComm<int>(MPI_COMM_SELF));
  return comm;
}

// Gathers owned values with their global ids into a global vector on every rank.
inline std::vector<double> gather_global(const std::vector<double>& values, const std::vector<long long>& ids,
                                         long long size, const Comm& comm) {
  std::vector<double> local(size, 0.0), global(size, 0.0);
  for (std::size_t i = 0; i < ids.size(); ++i) local[ids[i]] = values[i];
  const MPI_Comm raw = (*dynamic_cast<const Teuchos::MpiComm<int>&>(comm).getRawMpiComm())();
  MPI_Allreduce(local.data(), global.data(), static_cast<int>(size), MPI_DOUBLE, MPI_SUM, raw);
  return global;
}

// A bare simulation that records every step's states: no objective and no sweep, so not a GradientProblem.
inline Trajectory run(const problem::Problem& problem, RCP<const Comm> comm, bool record = true,
                      const std::string& solver = "direct") {
  const model::Model& model = *problem.model;
  assembly::Assembler assembler(model, comm, assembly::partition_from_name(problem.integrator.partition));
  linalg::LinearSolverOptions options;
  options.kind = solver;
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, options);
  assembly::State state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
  Trajectory trajectory;
  const auto& dofs = assembler.dofs();
  std::vector<long long> multiplier_ids;
  for (long long id : dofs.owned_multipliers()) multiplier_ids.push_back(id - dofs.coordinate_count());
  integrators::StepObserver observer = [&](long long, double t, const assembly::State& s) {
    trajectory.times.push_back(t);
    if (!record) return;
    trajectory.q.push_back(gather_global(s.q, dofs.owned_coordinates(), dofs.coordinate_count(), *comm));
    trajectory.v.push_back(gather_global(s.v, dofs.owned_coordinates(), dofs.coordinate_count(), *comm));
    trajectory.lambda.push_back(gather_global(s.lambda, multiplier_ids, dofs.multiplier_count(), *comm));
  };
  integrators::SimulationOptions simulation_options;
  simulation_options.progress = false;
  trajectory.summary = integrators::simulate(assembler, *integrator, state, simulation_options, {observer});
  return trajectory;
}

// Observed orders log2(e(N/2)/e(N)) over successive doublings of the step counts `steps`, each expected within
// [1.9, 2.1] (printed); returns the error at the finest step.
inline double expect_observed_second_order(const char* what, const std::function<double(long long)>& error,
                                           const std::vector<long long>& steps) {
  double previous = error(steps.front());
  for (std::size_t k = 1; k < steps.size(); ++k) {
    const double current = error(steps[k]);
    const double order = std::log2(previous / current);
    std::printf("%s: %lld steps, error %.3e, order %.3f\n", what, steps[k], current, order);
    EXPECT_GT(order, 1.9) << what;
    EXPECT_LT(order, 2.1) << what;
    previous = current;
  }
  return previous;
}

}  // namespace flexadj::testing
