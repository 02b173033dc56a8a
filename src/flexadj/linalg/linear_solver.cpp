#include "flexadj/linalg/linear_solver.hpp"

#include <Amesos2.hpp>
#include <BelosBlockGmresSolMgr.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <Teuchos_DefaultMpiComm.hpp>
#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/linalg/gathered_direct_solver.hpp"

namespace flexadj::linalg {
namespace {

// The matrix the preconditioner factorizes: the rank-local diagonal block of the saddle-point matrix
// with every "cut" constraint decoupled. A multiplier row with entries in another rank's columns is a
// cut constraint; restricted to this rank it would act as if the other body were fixed, which can make
// the local block singular (a link held at both ends may spin about its axis). Its row and column are
// replaced by the identity. What is left differs from the full matrix by a term of rank about twice the
// number of cut constraints, so GMRES needs few iterations.
class DecoupledBlockMatrix {
 public:
  // Local rows from first_multiplier_row on are multiplier rows.
  DecoupledBlockMatrix(const CrsMatrix& matrix, int first_multiplier_row)
      : matrix_(matrix), first_multiplier_row_(first_multiplier_row) {
    const auto row_map = matrix.getRowMap();
    const auto col_map = matrix.getColMap();
    const int rows = static_cast<int>(row_map->getNodeNumElements());
    // Local column of each matrix column, or -1 if another rank owns it.
    local_column_.resize(col_map->getNodeNumElements());
    for (std::size_t c = 0; c < local_column_.size(); ++c)
      local_column_[c] = row_map->getLocalElement(col_map->getGlobalElement(static_cast<LocalOrdinal>(c)));
    std::vector<char> cut(rows, 0);
    for (int r = 0; r < rows; ++r) {
      CrsMatrix::local_inds_host_view_type columns;
      CrsMatrix::values_host_view_type values;
      matrix.getLocalRowView(r, columns, values);
      bool remote = false;
      for (std::size_t k = 0; k < columns.extent(0); ++k) remote = remote || local_column_[columns(k)] < 0;
      cut[r] = remote && r >= first_multiplier_row_ ? 1 : 0;
    }
    // Entries kept per row: (position in the matrix row, local column).
    kept_.resize(rows);
    std::vector<std::size_t> lengths(rows);
    for (int r = 0; r < rows; ++r) {
      CrsMatrix::local_inds_host_view_type columns;
      CrsMatrix::values_host_view_type values;
      matrix.getLocalRowView(r, columns, values);
      if (cut[r]) {
        kept_[r].push_back({-1, r});  // unit diagonal
      } else {
        for (std::size_t k = 0; k < columns.extent(0); ++k) {
          const int local = local_column_[columns(k)];
          if (local >= 0 && !cut[local]) kept_[r].push_back({static_cast<int>(k), local});
        }
      }
      lengths[r] = kept_[r].size();
    }
    cut_count_ = static_cast<int>(std::count(cut.begin(), cut.end(), 1));
    block_ = rcp(new CrsMatrix(row_map, row_map, Teuchos::ArrayView<const std::size_t>(lengths.data(), rows)));
    for (int r = 0; r < rows; ++r) {
      std::vector<LocalOrdinal> columns;
      for (const auto& entry : kept_[r]) columns.push_back(entry.second);
      const std::vector<double> zeros(columns.size(), 0.0);
      block_->insertLocalValues(r, Teuchos::ArrayView<const LocalOrdinal>(columns.data(), columns.size()),
                                Teuchos::ArrayView<const double>(zeros.data(), zeros.size()));
    }
    block_->fillComplete(row_map, row_map);
  }

  // Copies the current values of the matrix into the block.
  void update() {
    block_->resumeFill();
    std::vector<LocalOrdinal> columns;
    std::vector<double> values;
    for (int r = 0; r < static_cast<int>(kept_.size()); ++r) {
      CrsMatrix::local_inds_host_view_type matrix_columns;
      CrsMatrix::values_host_view_type matrix_values;
      matrix_.getLocalRowView(r, matrix_columns, matrix_values);
      columns.clear();
      values.clear();
      for (const auto& [position, column] : kept_[r]) {
        columns.push_back(column);
        values.push_back(position < 0 ? 1.0 : matrix_values(position));
      }
      block_->replaceLocalValues(r, Teuchos::ArrayView<const LocalOrdinal>(columns.data(), columns.size()),
                                 Teuchos::ArrayView<const double>(values.data(), values.size()));
    }
    block_->fillComplete(matrix_.getRowMap(), matrix_.getRowMap());
  }

  RCP<const CrsMatrix> matrix() const { return block_; }
  int cut_count() const { return cut_count_; }

 private:
  const CrsMatrix& matrix_;
  int first_multiplier_row_;
  std::vector<int> local_column_;
  std::vector<std::vector<std::pair<int, int>>> kept_;
  RCP<CrsMatrix> block_;
  int cut_count_ = 0;
};

// Belos GMRES, right-preconditioned by Ifpack2 (additive Schwarz without overlap, KLU2 on each rank's
// block: single-rank solves, safe with Debian's KLU2, see docs/platform.md) applied to the
// decoupled block matrix above. The true residual is checked after every solve.
class IterativeSolver final : public LinearSolver {
 public:
  using Operator = Tpetra::Operator<double, LocalOrdinal, GlobalOrdinal, Node>;
  using RowMatrix = Tpetra::RowMatrix<double, LocalOrdinal, GlobalOrdinal, Node>;

  IterativeSolver(RCP<const CrsMatrix> matrix, const LinearSolverOptions& options)
      : matrix_(std::move(matrix)), options_(options) {
    const int rows = static_cast<int>(matrix_->getRowMap()->getNodeNumElements());
    block_ = std::make_unique<DecoupledBlockMatrix>(
        *matrix_, options.local_coordinate_rows >= 0 ? options.local_coordinate_rows : rows);
    Teuchos::ParameterList schwarz;
    schwarz.set("schwarz: overlap level", 0);
    schwarz.set("schwarz: inner preconditioner name", "AMESOS2");
    Teuchos::ParameterList inner;
    inner.set("Amesos2 solver name", "klu2");
    inner.sublist("Amesos2");
    schwarz.set("schwarz: inner preconditioner parameters", inner);
    preconditioner_ = Ifpack2::Factory::create<RowMatrix>("SCHWARZ", block_->matrix());
    preconditioner_->setParameters(schwarz);
    auto belos = Teuchos::rcp(new Teuchos::ParameterList);
    belos->set("Convergence Tolerance", options.tolerance);
    belos->set("Maximum Iterations", options.max_iterations);
    belos->set("Num Blocks", options.restart);
    belos->set("Implicit Residual Scaling", "Norm of RHS");
    belos->set("Explicit Residual Scaling", "Norm of RHS");
    problem_ = rcp(new Belos::LinearProblem<double, MultiVector, Operator>());
    problem_->setOperator(matrix_);
    problem_->setRightPrec(preconditioner_);
    solver_ = rcp(new Belos::BlockGmresSolMgr<double, MultiVector, Operator>(problem_, belos));
    residual_ = rcp(new Vector(matrix_->getRowMap()));
  }

  void update(Pivots) override {
    block_->update();
    matrix_norm_ = matrix_->getFrobeniusNorm();
    try {
      // Ifpack2 13.2's Amesos2 wrapper copies a LocalFilter's values into its own CrsMatrix in
      // initialize() (Ifpack2_Details_Amesos2Wrapper_def.hpp): new values need a new initialize().
      preconditioner_->initialize();
      preconditioner_->compute();
    } catch (const std::exception& error) {
      throw SolverError(std::string("the subdomain factorization of the preconditioner failed: ") + error.what());
    }
  }

  void solve(const Vector& b, Vector& x) override {
    x.putScalar(0.0);
    problem_->setProblem(Teuchos::rcpFromRef<MultiVector>(x), Teuchos::rcpFromRef<const MultiVector>(b));
    solver_->solve();
    iterations_ = solver_->getNumIters();
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
    return "iterative (Belos GMRES + Ifpack2 block Jacobi/KLU2, cut constraints decoupled)";
  }

 private:
  RCP<const CrsMatrix> matrix_;
  LinearSolverOptions options_;
  std::unique_ptr<DecoupledBlockMatrix> block_;
  RCP<Ifpack2::Preconditioner<double, LocalOrdinal, GlobalOrdinal, Node>> preconditioner_;
  RCP<Belos::LinearProblem<double, MultiVector, Operator>> problem_;
  RCP<Belos::SolverManager<double, MultiVector, Operator>> solver_;
  RCP<Vector> residual_;
  double matrix_norm_ = 0.0;
  int iterations_ = 0;
};

}  // namespace

std::unique_ptr<LinearSolver> make_linear_solver(RCP<const CrsMatrix> matrix, const LinearSolverOptions& options) {
  const long long size = static_cast<long long>(matrix->getGlobalNumRows());
  const bool direct = options.kind == "direct" || (options.kind == "auto" && size <= options.gather_limit);
  if (direct) return make_gathered_direct_solver(std::move(matrix), options.transposed);
  if (options.transposed)
    throw SolverError("the iterative solver has no transposed mode yet: use integrator.linear_solver = direct "
                      "for gradients");
  if (options.kind == "iterative" || options.kind == "auto") {
    return std::make_unique<IterativeSolver>(std::move(matrix), options);
  }
  throw InputError("", "integrator.linear_solver", "expected auto, direct or iterative, got '" + options.kind + "'");
}

}  // namespace flexadj::linalg
