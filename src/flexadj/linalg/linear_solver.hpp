#pragma once
// One facade for the linear solves of the saddle-point systems.
//   direct:    KLU2 on rank 0 (gathered_direct_solver.hpp). On several ranks the matrix values and
//              right-hand sides are gathered to rank 0 and the solution scattered back: Debian's Amesos2
//              KLU2 returns wrong solutions on a distributed matrix (docs/platform.md), and the gathered
//              system is the same for any rank count, so results agree across rank counts.
//   iterative: Belos GMRES preconditioned by block Jacobi with KLU on each rank's block (block_jacobi_klu.hpp), the
//              constraints cut by the partition decoupled, for systems too large to gather (true
//              residual checked after every solve).
#include <memory>
#include <string>

#include "flexadj/core/tpetra_types.hpp"

namespace flexadj::linalg {

struct LinearSolverOptions {
  std::string kind = "auto";          // auto | direct | iterative
  long long gather_limit = 2000000;   // auto: direct up to this many unknowns
  double tolerance = 1e-12;           // iterative: relative residual GMRES aims at
  double accepted_residual = 1e-8;    // iterative: backward error |r| / (|A| |x| + |b|) accepted after the solve
  int max_iterations = 500;
  int restart = 30;  // Krylov vectors before a restart (Belos allocates them at every solve)
  // Saddle-point layout of the local rows: this many coordinate rows first, then the multiplier rows
  // (the iterative solver decouples constraints cut by the rank partition); -1: no multipliers.
  int local_coordinate_rows = -1;
  bool transposed = false;  // factorize and solve with A^T (adjoint sweeps)
};

// How update() factorizes the new values: with a fresh pivot search, or reusing the pivot order of the last fresh
// factorization (KLU's refactorization; a solver without one factorizes afresh). Newton reuses pivots within one
// step only, so that a step's result does not depend on the steps before it (checkpointed recomputation and
// restarts repeat steps bit for bit); the generalized-alpha adjoint sweep reuses them from step to step, searching
// afresh every few steps and where a sweep can be resumed (TimeIntegrator::fresh_adjoint_pivots_at).
enum class Pivots { Fresh, Reuse };

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  // Takes the current values of the matrix (same graph as at creation) and factorizes/preconditions.
  virtual void update(Pivots pivots = Pivots::Fresh) = 0;
  // Solves A x = b (b, x on the matrix's row map); A^T x = b for a solver made with `transposed`.
  virtual void solve(const Vector& b, Vector& x) = 0;
  virtual std::string description() const = 0;
};

std::unique_ptr<LinearSolver> make_linear_solver(RCP<const CrsMatrix> matrix, const LinearSolverOptions& options);

}  // namespace flexadj::linalg
