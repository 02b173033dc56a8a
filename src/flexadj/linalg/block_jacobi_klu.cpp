#include "flexadj/linalg/block_jacobi_klu.hpp"

#include <algorithm>
#include <utility>

#include "flexadj/core/error.hpp"

namespace flexadj::linalg {

BlockJacobiKlu::BlockJacobiKlu(RCP<const CrsMatrix> matrix, int first_multiplier_row) : matrix_(std::move(matrix)) {
  const auto row_map = matrix_->getRowMap();
  const auto col_map = matrix_->getColMap();
  const int rows = static_cast<int>(row_map->getNodeNumElements());
  // Local row of each matrix column, or -1 if another rank owns it.
  std::vector<int> local_row(col_map->getNodeNumElements());
  for (std::size_t c = 0; c < local_row.size(); ++c)
    local_row[c] = row_map->getLocalElement(col_map->getGlobalElement(static_cast<LocalOrdinal>(c)));
  std::vector<char> cut(rows, 0);
  for (int r = first_multiplier_row; r < rows; ++r) {
    CrsMatrix::local_inds_host_view_type columns;
    CrsMatrix::values_host_view_type values;
    matrix_->getLocalRowView(r, columns, values);
    for (std::size_t k = 0; k < columns.extent(0); ++k)
      if (local_row[columns(k)] < 0) cut[r] = 1;
  }
  cut_count_ = static_cast<int>(std::count(cut.begin(), cut.end(), 1));
  // The block's rows, columns sorted (KLU's input), each value's source in the matrix's local values.
  const auto row_starts = matrix_->getLocalMatrixHost().graph.row_map;
  row_offsets_.assign(1, 0);
  std::vector<int> columns_out;
  std::vector<std::pair<int, int>> row;  // (block column, source)
  for (int r = 0; r < rows; ++r) {
    row.clear();
    if (cut[r]) {
      row.push_back({r, -1});
    } else {
      CrsMatrix::local_inds_host_view_type columns;
      CrsMatrix::values_host_view_type values;
      matrix_->getLocalRowView(r, columns, values);
      const int first = static_cast<int>(row_starts(r));
      for (std::size_t k = 0; k < columns.extent(0); ++k) {
        const int column = local_row[columns(k)];
        if (column >= 0 && !cut[column]) row.push_back({column, first + static_cast<int>(k)});
      }
    }
    std::sort(row.begin(), row.end());
    for (const auto& [column, source] : row) {
      columns_out.push_back(column);
      source_.push_back(source);
    }
    row_offsets_.push_back(static_cast<int>(columns_out.size()));
  }
  klu_ = std::make_unique<KluFactorization>(row_offsets_, std::move(columns_out));
  work_.resize(rows);
}

void BlockJacobiKlu::update(Pivots pivots) {
  std::vector<double>& values = klu_->values();
  const auto matrix_values = matrix_->getLocalMatrixHost().values;
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = source_[k] < 0 ? 1.0 : matrix_values(source_[k]);
  const bool ok = pivots == Pivots::Reuse ? klu_->refactorize() : klu_->factorize();
  if (!ok)
    throw SolverError("the preconditioner's block of this rank is singular (KLU); with several ranks, try "
                      "integrator.partition: graph or integrator.linear_solver: direct");
}

void BlockJacobiKlu::apply(const MultiVector& X, MultiVector& Y, Teuchos::ETransp, double alpha, double beta) const {
  const std::size_t rows = work_.size();
  for (std::size_t j = 0; j < X.getNumVectors(); ++j) {
    const auto x = X.getData(j);
    auto y = Y.getDataNonConst(j);
    for (std::size_t i = 0; i < rows; ++i) work_[i] = x[i];
    klu_->solve(work_.data());
    for (std::size_t i = 0; i < rows; ++i) y[i] = (beta == 0.0 ? 0.0 : beta * y[i]) + alpha * work_[i];
  }
}

}  // namespace flexadj::linalg
