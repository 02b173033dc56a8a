#pragma once
// One facade for the linear solves of the saddle-point systems.
//   direct:       on one rank SuiteSparse KLU with refactorization (gathered_direct_solver.hpp); on several ranks
//                 MUMPS with the distributed input (mumps_direct_solver.hpp): nothing is gathered, the factor is
//                 spread over the ranks. Results at different rank counts agree to round-off. MUMPS's parallel
//                 factorization assembles contribution blocks in the order they arrive: two runs on several ranks
//                 can differ at round-off (seen under load), so a resumed run matches to round-off only.
//   klu_gathered: KLU on rank 0 of the matrix gathered from all ranks (gathered_direct_solver.hpp), for small
//                 systems; rank 0 holds the whole matrix and its factor.
//   iterative:    Belos GMRES preconditioned on several ranks by the exact Schur complement of the interface
//                 between the ranks (interface_schur_klu.hpp; exact, so applied once as a direct solve, GMRES running
//                 only where its residual misses round-off), or by restricted
//                 additive Schwarz with KLU on each rank's overlapping block (overlapping_schwarz_klu.hpp; block
//                 Jacobi with overlap 0); on one rank by KLU. The true residual is checked after every solve.
//   auto:         KLU on one rank; on several, klu_gathered up to kAutoGatheredRows global rows (fastest there),
//                 above it iterative with the interface Schur complement (rank 0 holds no more than the others;
//                 faster than MUMPS, a fraction of its messages; docs/performance.md). Both give the same bits in
//                 every run at a given rank count.
#include <cstddef>
#include <memory>
#include <string>

#include "flexadj/core/tpetra_types.hpp"

namespace flexadj::linalg {

// `auto` on several ranks gathers systems of at most this many global rows onto rank 0.
constexpr long long kAutoGatheredRows = 100000;

struct LinearSolverOptions {
  std::string kind = "auto";          // auto | direct | klu_gathered | iterative
  double tolerance = 1e-12;           // iterative: relative residual GMRES aims at
  double accepted_residual = 1e-8;    // iterative: backward error |r| / (|A| |x| + |b|) accepted after the solve
  int max_iterations = 500;
  std::string preconditioner = "interface_schur";  // iterative, several ranks: interface_schur | schwarz
  int overlap = 2;    // iterative, several ranks, schwarz: overlap levels (0: block Jacobi)
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

// The solver `kind` stands for on a system of `global_rows` over `ranks`: "klu" (one rank), "klu_gathered",
// "mumps" or "iterative" (`auto`: with the interface Schur complement). InputError for an unknown kind.
std::string chosen_linear_solver(const std::string& kind, long long global_rows, int ranks);

struct SolveCounts {
  long long solves = 0;
  long long iterations = 0;  // iterative solvers: the sum over the solves
  int max_iterations = 0;    // iterative solvers: the most one solve took
  bool iterative = false;
  double update_seconds = 0.0;  // wall time in update(): factorizations, preconditioner set-up, their messages
  double solve_seconds = 0.0;   // wall time in solve(): triangular solves, Krylov iterations, their messages
  double mean_iterations() const { return solves > 0 ? static_cast<double>(iterations) / solves : 0.0; }
};

// A factorization handed over by LinearSolver::release_factorization(): it solves with the values of the update()
// that made it while the solver goes on with others (the spacetime adjoint keeps one per step). It must not outlive
// the solver. Collective as the solver's solve().
class KeptFactorization {
 public:
  virtual ~KeptFactorization() = default;
  virtual void solve(const Vector& b, Vector& x) = 0;
  virtual std::size_t bytes() const = 0;  // memory it holds on this rank
};

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  // Takes the current values of the matrix (same graph as at creation) and factorizes/preconditions.
  void update(Pivots pivots = Pivots::Fresh);
  // Solves A x = b (b, x on the matrix's row map); A^T x = b for a solver made with `transposed`.
  void solve(const Vector& b, Vector& x);
  virtual std::string description() const = 0;
  // The last update()'s factorization, handed over; the next update() factorizes afresh. nullptr where the solver
  // cannot hand one over (MUMPS and the iterative solvers keep theirs inside): the caller updates again instead.
  virtual std::unique_ptr<KeptFactorization> release_factorization() { return nullptr; }
  // Solves so far, and for an iterative solver the Krylov iterations they took.
  const SolveCounts& counts() const { return counts_; }

 protected:
  virtual void take_values(Pivots pivots) = 0;
  virtual void solve_system(const Vector& b, Vector& x) = 0;
  SolveCounts counts_;
};

std::unique_ptr<LinearSolver> make_linear_solver(RCP<const CrsMatrix> matrix, const LinearSolverOptions& options);

}  // namespace flexadj::linalg
