#include "flexadj/linalg/linear_solver.hpp"

#include <BelosBlockGmresSolMgr.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Teuchos_DefaultMpiComm.hpp>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/linalg/block_jacobi_klu.hpp"
#include "flexadj/linalg/gathered_direct_solver.hpp"
#include "flexadj/linalg/interface_schur_klu.hpp"
#include "flexadj/linalg/mumps_direct_solver.hpp"
#include "flexadj/linalg/overlapping_schwarz_klu.hpp"

namespace flexadj::linalg {
namespace {

// Belos GMRES, right-preconditioned on several ranks by the exact Schur complement of the interface between the
// ranks (interface_schur_klu.hpp), by restricted additive Schwarz with KLU on each rank's overlapping block
// (overlapping_schwarz_klu.hpp), or with overlap 0 by block Jacobi with the cut constraints decoupled
// (block_jacobi_klu.hpp); on one rank by KLU. The true residual is checked after every solve.
class IterativeSolver final : public LinearSolver {
 public:
  // The normwise backward error of a direct solve at round-off (about 10^2 machine epsilons).
  static constexpr double kDirectBackwardError = 1e-14;

  using Operator = Tpetra::Operator<double, LocalOrdinal, GlobalOrdinal, Node>;

  IterativeSolver(RCP<const CrsMatrix> matrix, const LinearSolverOptions& options)
      : matrix_(std::move(matrix)), options_(options) {
    const int rows = static_cast<int>(matrix_->getRowMap()->getNodeNumElements());
    const int first_multiplier_row = options.local_coordinate_rows >= 0 ? options.local_coordinate_rows : rows;
    RCP<Operator> preconditioner;
    const bool several = matrix_->getComm()->getSize() > 1;
    if (several && options.preconditioner == "interface_schur") {
      schur_ = rcp(new InterfaceSchurKlu(matrix_, first_multiplier_row));
      preconditioner = schur_;
    } else if (several && options.overlap > 0) {
      schwarz_ = rcp(new OverlappingSchwarzKlu(matrix_, first_multiplier_row, options.overlap));
      preconditioner = schwarz_;
    } else {
      block_jacobi_ = rcp(new BlockJacobiKlu(matrix_, first_multiplier_row));
      preconditioner = block_jacobi_;
    }
    auto belos = Teuchos::rcp(new Teuchos::ParameterList);
    belos->set("Convergence Tolerance", options.tolerance);
    belos->set("Maximum Iterations", options.max_iterations);
    belos->set("Num Blocks", options.restart);
    belos->set("Implicit Residual Scaling", "Norm of RHS");
    belos->set("Explicit Residual Scaling", "Norm of RHS");
    problem_ = rcp(new Belos::LinearProblem<double, MultiVector, Operator>());
    problem_->setOperator(matrix_);
    problem_->setRightPrec(preconditioner);
    solver_ = rcp(new Belos::BlockGmresSolMgr<double, MultiVector, Operator>(problem_, belos));
    residual_ = rcp(new Vector(matrix_->getRowMap()));
  }

  void take_values(Pivots pivots) override {
    matrix_norm_ = matrix_->getFrobeniusNorm();
    if (schur_) schur_->update(pivots);
    else if (schwarz_) schwarz_->update(pivots);
    else block_jacobi_->update(pivots);
  }

  void solve_system(const Vector& b, Vector& x) override {
    // The interface Schur complement is the exact inverse (to round-off): applied once it is a direct solve,
    // accepted where its true residual meets GMRES's tolerance or its backward error is at round-off, as a direct
    // LU solve's is (kDirectBackwardError); GMRES, from that start, runs otherwise.
    if (schur_) {
      schur_->apply(b, x);
      matrix_->apply(x, *residual_);
      residual_->update(1.0, b, -1.0);
      const double r_norm = residual_->norm2(), b_norm = b.norm2();
      if (r_norm <= options_.tolerance * b_norm ||
          r_norm <= kDirectBackwardError * (matrix_norm_ * x.norm2() + b_norm)) {
        iterations_ = 0;
        counts_.iterative = true;
        ++counts_.solves;
        return;
      }
    } else {
      x.putScalar(0.0);
    }
    problem_->setProblem(Teuchos::rcpFromRef<MultiVector>(x), Teuchos::rcpFromRef<const MultiVector>(b));
    solver_->solve();
    iterations_ = solver_->getNumIters();
    counts_.iterative = true;
    ++counts_.solves;
    counts_.iterations += iterations_;
    counts_.max_iterations = std::max(counts_.max_iterations, iterations_);
    // Belos decides convergence on implicit residuals: check the true one.
    matrix_->apply(x, *residual_);
    residual_->update(1.0, b, -1.0);
    // Round-off in the preconditioned Arnoldi process leaves the true residual above the implicit one;
    // accept what a Newton iteration can use, judged by the normwise backward error
    // |r| / (|A|_F |x| + |b|) (Rigal and Gaches 1967): an ill-conditioned system (a stiff beam) solved to
    // round-off has a small backward error but a relative residual |r|/|b| of cond(A) eps.
    const double b_norm = b.norm2(), r_norm = residual_->norm2();
    const double backward_error = r_norm / std::max(matrix_norm_ * x.norm2() + b_norm, 1e-300);
    if (!(backward_error <= options_.accepted_residual)) {
      std::ostringstream message;
      message << "GMRES did not converge: backward error " << std::scientific << backward_error
              << " (relative residual " << r_norm / std::max(b_norm, 1e-300) << ") after " << iterations_
              << " iterations (accepted " << options_.accepted_residual << ")";
      throw SolverError(message.str());
    }
  }

  std::string description() const override {
    if (schur_)
      return "iterative (Belos GMRES + interface Schur complement/KLU, " + std::to_string(schur_->interface_rows()) +
             " interface rows)";
    if (schwarz_)
      return "iterative (Belos GMRES + restricted additive Schwarz/KLU, overlap " + std::to_string(options_.overlap) +
             ")";
    return "iterative (Belos GMRES + block Jacobi/KLU, cut constraints decoupled)";
  }

 private:
  RCP<const CrsMatrix> matrix_;
  LinearSolverOptions options_;
  RCP<BlockJacobiKlu> block_jacobi_;
  RCP<OverlappingSchwarzKlu> schwarz_;
  RCP<InterfaceSchurKlu> schur_;
  RCP<Belos::LinearProblem<double, MultiVector, Operator>> problem_;
  RCP<Belos::SolverManager<double, MultiVector, Operator>> solver_;
  RCP<Vector> residual_;
  double matrix_norm_ = 0.0;
  int iterations_ = 0;
};

}  // namespace

void LinearSolver::update(Pivots pivots) {
  const auto start = std::chrono::steady_clock::now();
  take_values(pivots);
  counts_.update_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void LinearSolver::solve(const Vector& b, Vector& x) {
  const auto start = std::chrono::steady_clock::now();
  solve_system(b, x);
  counts_.solve_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string chosen_linear_solver(const std::string& kind, long long global_rows, int ranks) {
  if (kind == "iterative") return kind;
  if (kind != "auto" && kind != "direct" && kind != "klu_gathered")
    throw InputError("", "integrator.linear_solver",
                     "expected auto, direct, klu_gathered or iterative, got '" + kind + "'");
  if (ranks == 1) return "klu";
  if (kind == "klu_gathered" || (kind == "auto" && global_rows <= kAutoGatheredRows)) return "klu_gathered";
  return kind == "auto" ? "iterative" : "mumps";
}

std::unique_ptr<LinearSolver> make_linear_solver(RCP<const CrsMatrix> matrix, const LinearSolverOptions& options) {
  const std::string chosen = chosen_linear_solver(
      options.kind, static_cast<long long>(matrix->getGlobalNumRows()), matrix->getComm()->getSize());
  if (chosen == "mumps") return make_mumps_direct_solver(std::move(matrix), options.transposed);
  if (chosen != "iterative") return make_gathered_direct_solver(std::move(matrix), options.transposed);
  if (options.transposed)
    throw SolverError("the iterative solver has no transposed mode yet: use integrator.linear_solver = direct "
                      "for gradients");
  if (options.kind != "auto") return std::make_unique<IterativeSolver>(std::move(matrix), options);
  LinearSolverOptions with_schur = options;
  with_schur.preconditioner = "interface_schur";
  return std::make_unique<IterativeSolver>(std::move(matrix), with_schur);
}

}  // namespace flexadj::linalg
