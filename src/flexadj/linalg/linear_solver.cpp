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

namespace flexadj::linalg {
namespace {

// KLU2 on rank 0 of a matrix gathered from all ranks (the same code path at any rank count).
class GatheredDirectSolver final : public LinearSolver {
 public:
  GatheredDirectSolver(RCP<const CrsMatrix> matrix, bool transposed)
      : matrix_(std::move(matrix)), transposed_(transposed) {
    const auto& comm = *matrix_->getComm();
    mpi_comm_ = raw_mpi_comm(comm);
    rank_ = comm.getRank();
    ranks_ = comm.getSize();
    const auto row_map = matrix_->getRowMap();
    const auto col_map = matrix_->getColMap();
    const int rows = static_cast<int>(row_map->getNodeNumElements());

    // This rank's structure: row ids, entries per row, column ids (global).
    std::vector<long long> row_ids(rows), column_ids;
    std::vector<int> row_lengths(rows);
    for (int r = 0; r < rows; ++r) {
      row_ids[r] = row_map->getGlobalElement(r);
      CrsMatrix::local_inds_host_view_type columns;
      CrsMatrix::values_host_view_type values;
      matrix_->getLocalRowView(r, columns, values);
      row_lengths[r] = static_cast<int>(columns.extent(0));
      for (std::size_t k = 0; k < columns.extent(0); ++k) column_ids.push_back(col_map->getGlobalElement(columns(k)));
    }
    local_entries_ = static_cast<int>(column_ids.size());
    local_rows_ = rows;
    value_buffer_.resize(local_entries_);

    row_counts_ = gather_counts(rows);
    entry_counts_ = gather_counts(local_entries_);
    row_displacements_ = displacements(row_counts_);
    entry_displacements_ = displacements(entry_counts_);
    const int total_rows = rank_ == 0 ? std::accumulate(row_counts_.begin(), row_counts_.end(), 0) : 0;
    const int total_entries = rank_ == 0 ? std::accumulate(entry_counts_.begin(), entry_counts_.end(), 0) : 0;
    all_row_ids_.resize(total_rows);
    all_row_lengths_.resize(total_rows);
    std::vector<long long> all_columns(total_entries);
    MPI_Gatherv(row_ids.data(), rows, MPI_LONG_LONG, all_row_ids_.data(), row_counts_.data(), row_displacements_.data(),
                MPI_LONG_LONG, 0, mpi_comm_);
    MPI_Gatherv(row_lengths.data(), rows, MPI_INT, all_row_lengths_.data(), row_counts_.data(),
                row_displacements_.data(), MPI_INT, 0, mpi_comm_);
    MPI_Gatherv(column_ids.data(), local_entries_, MPI_LONG_LONG, all_columns.data(), entry_counts_.data(),
                entry_displacements_.data(), MPI_LONG_LONG, 0, mpi_comm_);
    if (rank_ != 0) return;

    // Rank 0: a serial matrix with global ids as local ids (of A, or of A^T with rows and columns swapped).
    serial_comm_ = rcp(new Teuchos::MpiComm<int>(MPI_COMM_SELF));
    serial_map_ = rcp(new Map(static_cast<Tpetra::global_size_t>(total_rows), 0, serial_comm_));
    all_values_.resize(total_entries);
    serial_rows_.assign(total_rows, {});
    for (int r = 0, entry = 0; r < total_rows; ++r)
      for (int k = 0; k < all_row_lengths_[r]; ++k, ++entry) {
        const auto row = static_cast<LocalOrdinal>(all_row_ids_[r]), column = static_cast<LocalOrdinal>(all_columns[entry]);
        serial_rows_[transposed_ ? column : row].push_back({transposed_ ? row : column, entry});
      }
    std::vector<std::size_t> lengths(total_rows);
    for (int r = 0; r < total_rows; ++r) lengths[r] = serial_rows_[r].size();
    serial_matrix_ =
        rcp(new CrsMatrix(serial_map_, serial_map_, Teuchos::ArrayView<const std::size_t>(lengths.data(), total_rows)));
    for (int r = 0; r < total_rows; ++r) {
      std::vector<LocalOrdinal> columns;
      for (const auto& entry : serial_rows_[r]) columns.push_back(entry.first);
      const std::vector<double> zeros(columns.size(), 0.0);
      serial_matrix_->insertLocalValues(r, Teuchos::ArrayView<const LocalOrdinal>(columns.data(), columns.size()),
                                        Teuchos::ArrayView<const double>(zeros.data(), zeros.size()));
    }
    serial_matrix_->fillComplete();
    serial_x_ = rcp(new MultiVector(serial_map_, 1));
    serial_b_ = rcp(new MultiVector(serial_map_, 1));
    solver_ = Amesos2::create<CrsMatrix, MultiVector>("KLU2", serial_matrix_, serial_x_, serial_b_);
    solver_->symbolicFactorization();
  }

  void update() override {
    // The local matrix's values are its rows' entries in row order, as the constructor gathered the structure:
    // one copy instead of a row view per row (each view counts references).
    {
      const auto local = matrix_->getLocalMatrixHost();
      if (static_cast<int>(local.values.extent(0)) != local_entries_)
        throw std::logic_error("GatheredDirectSolver: the matrix's structure changed since the solver was made");
      std::copy(local.values.data(), local.values.data() + local_entries_, value_buffer_.begin());
    }
    MPI_Gatherv(value_buffer_.data(), local_entries_, MPI_DOUBLE, all_values_.data(), entry_counts_.data(),
                entry_displacements_.data(), MPI_DOUBLE, 0, mpi_comm_);
    int failed = 0;
    if (rank_ == 0) {
      serial_matrix_->resumeFill();
      std::vector<LocalOrdinal>& columns = column_buffer_;
      std::vector<double>& values = row_buffer_;
      for (std::size_t r = 0; r < serial_rows_.size(); ++r) {
        columns.clear();
        values.clear();
        for (const auto& [column, entry] : serial_rows_[r]) {
          columns.push_back(column);
          values.push_back(all_values_[entry]);
        }
        serial_matrix_->replaceLocalValues(static_cast<LocalOrdinal>(r),
                                           Teuchos::ArrayView<const LocalOrdinal>(columns.data(), columns.size()),
                                           Teuchos::ArrayView<const double>(values.data(), values.size()));
      }
      serial_matrix_->fillComplete();
      try {
        solver_->numericFactorization();
      } catch (const std::exception&) {
        failed = 1;
      }
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, mpi_comm_);
    if (failed) throw SolverError("the saddle-point matrix is singular (KLU2 factorization failed)");
  }

  void solve(const Vector& b, Vector& x) override {
    const auto local_b = b.getData(0);
    std::vector<double>& send = value_buffer_;
    for (int r = 0; r < local_rows_; ++r) send[r] = local_b[r];
    if (rank_ == 0) rhs_.resize(all_row_ids_.size());
    MPI_Gatherv(send.data(), local_rows_, MPI_DOUBLE, rhs_.data(), row_counts_.data(), row_displacements_.data(),
                MPI_DOUBLE, 0, mpi_comm_);
    if (rank_ == 0) {
      {
        auto serial_b = serial_b_->getDataNonConst(0);
        for (std::size_t r = 0; r < all_row_ids_.size(); ++r) serial_b[all_row_ids_[r]] = rhs_[r];
      }
      solver_->solve(serial_x_.ptr(), serial_b_.ptr());
      const auto serial_x = serial_x_->getData(0);
      for (std::size_t r = 0; r < all_row_ids_.size(); ++r) rhs_[r] = serial_x[all_row_ids_[r]];
    }
    MPI_Scatterv(rhs_.data(), row_counts_.data(), row_displacements_.data(), MPI_DOUBLE, send.data(), local_rows_,
                 MPI_DOUBLE, 0, mpi_comm_);
    auto local_x = x.getDataNonConst(0);
    for (int r = 0; r < local_rows_; ++r) local_x[r] = send[r];
  }

  std::string description() const override {
    return std::string(ranks_ == 1 ? "direct (Amesos2 KLU2)" : "direct (Amesos2 KLU2 on rank 0, gathered)") +
           (transposed_ ? ", transposed" : "");
  }

 private:
  std::vector<int> gather_counts(int local) const {
    std::vector<int> counts(ranks_);
    MPI_Gather(&local, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, mpi_comm_);
    return counts;
  }
  static std::vector<int> displacements(const std::vector<int>& counts) {
    std::vector<int> d(counts.size(), 0);
    for (std::size_t k = 1; k < counts.size(); ++k) d[k] = d[k - 1] + counts[k - 1];
    return d;
  }

  RCP<const CrsMatrix> matrix_;
  MPI_Comm mpi_comm_;
  int rank_ = 0, ranks_ = 1, local_rows_ = 0, local_entries_ = 0;
  std::vector<int> row_counts_, entry_counts_, row_displacements_, entry_displacements_;
  std::vector<double> value_buffer_, all_values_, rhs_;
  std::vector<long long> all_row_ids_;
  std::vector<int> all_row_lengths_;
  std::vector<std::vector<std::pair<LocalOrdinal, int>>> serial_rows_;  // (column, gathered entry) per row
  std::vector<LocalOrdinal> column_buffer_;
  std::vector<double> row_buffer_;
  RCP<const Comm> serial_comm_;
  RCP<const Map> serial_map_;
  RCP<CrsMatrix> serial_matrix_;
  RCP<MultiVector> serial_x_, serial_b_;
  RCP<Amesos2::Solver<CrsMatrix, MultiVector>> solver_;
  bool transposed_;
};

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

  void update() override {
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
  if (direct) return std::make_unique<GatheredDirectSolver>(std::move(matrix), options.transposed);
  if (options.transposed)
    throw SolverError("the iterative solver has no transposed mode yet: use integrator.linear_solver = direct "
                      "for gradients");
  if (options.kind == "iterative" || options.kind == "auto") {
    return std::make_unique<IterativeSolver>(std::move(matrix), options);
  }
  throw InputError("", "integrator.linear_solver", "expected auto, direct or iterative, got '" + options.kind + "'");
}

}  // namespace flexadj::linalg
