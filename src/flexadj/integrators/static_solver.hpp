#pragma once
// Static equilibrium by Newton's method with load stepping: for load factors k/n, k = 1..n, solve
//   K-level residual  R(q) = -Q(q; factor) + C_q^T lambda = 0,  C(q, t) = 0
// with the matrix [dR/dq + d(C_q^T lambda)/dq, C_q^T; C_q, 0] (the assembler at c = (1, 0, 0), no inertia:
// velocities and accelerations are zero). Each load step starts from the previous equilibrium.
#include <functional>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/integrators/integrator_settings.hpp"
#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::integrators {

struct StaticSummary {
  int load_steps = 0;
  int newton_iterations = 0, max_newton_iterations = 0;
  double residual = 0.0;             // max-norm of the force residual at the end
  double constraint_residual = 0.0;  // max-norm of C at the end
  double wall_seconds = 0.0;
};

// Called after each converged load step: (step k, load factor, state); step 0 is the initial state.
using LoadStepObserver = std::function<void(int, double, const assembly::State&)>;

// Solves from the state given (its q; v, a set to zero). Throws SolverError naming the load step on failure.
StaticSummary solve_static(assembly::Assembler& assembler, assembly::State& state,
                           const integrators::StaticSettings& settings,
                           const linalg::LinearSolverOptions& solver_options, bool progress,
                           const std::vector<LoadStepObserver>& observers);

}  // namespace flexadj::integrators
