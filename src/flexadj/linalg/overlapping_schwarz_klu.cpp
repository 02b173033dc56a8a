#include "flexadj/linalg/overlapping_schwarz_klu.hpp"

#include <mpi.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"

namespace flexadj::linalg {
namespace {

RCP<const Map> map_of(const std::vector<GlobalOrdinal>& ids, const RCP<const Comm>& comm) {
  const auto invalid = Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid();
  return rcp(new Map(invalid, Teuchos::ArrayView<const GlobalOrdinal>(ids.data(), ids.size()), 0, comm));
}

}  // namespace

OverlappingSchwarzKlu::OverlappingSchwarzKlu(RCP<const CrsMatrix> matrix, int first_multiplier_row, int overlap)
    : matrix_(std::move(matrix)) {
  const auto row_map = matrix_->getRowMap();
  const auto col_map = matrix_->getColMap();
  const auto comm = matrix_->getComm();
  owned_rows_ = static_cast<int>(row_map->getNodeNumElements());
  const auto local = matrix_->getLocalMatrixHost();
  int width = 0;
  for (int r = 0; r < owned_rows_; ++r)
    width = std::max(width, static_cast<int>(local.graph.row_map(r + 1) - local.graph.row_map(r)));
  MPI_Allreduce(&width, &row_width_, 1, MPI_INT, MPI_MAX, raw_mpi_comm(*comm));

  // Each owned row's column ids (as doubles; -1: padding) and, in the last column, whether it is a multiplier row.
  MultiVector structure(row_map, row_width_ + 1);
  {
    std::vector<Teuchos::ArrayRCP<double>> columns(row_width_ + 1);
    for (int j = 0; j <= row_width_; ++j) columns[j] = structure.getDataNonConst(j);
    for (int r = 0; r < owned_rows_; ++r) {
      const int first = static_cast<int>(local.graph.row_map(r)), count = static_cast<int>(local.graph.row_map(r + 1)) - first;
      for (int j = 0; j < row_width_; ++j)
        columns[j][r] = j < count ? static_cast<double>(col_map->getGlobalElement(local.graph.entries(first + j))) : -1.0;
      columns[row_width_][r] = r >= first_multiplier_row ? 1.0 : 0.0;
    }
  }

  // The overlap, level by level: the rows the rows of the last level couple to (collective at every level).
  std::vector<GlobalOrdinal> ids(owned_rows_);
  for (int r = 0; r < owned_rows_; ++r) ids[r] = row_map->getGlobalElement(r);
  std::unordered_set<GlobalOrdinal> in_block(ids.begin(), ids.end());
  MultiVector* rows_structure = &structure;
  std::unique_ptr<MultiVector> imported;
  for (int level = 1; level <= overlap; ++level) {
    std::vector<GlobalOrdinal> added;
    std::vector<Teuchos::ArrayRCP<const double>> level_ids(row_width_);
    for (int j = 0; j < row_width_; ++j) level_ids[j] = rows_structure->getData(j);
    for (std::size_t i = 0; i < ids.size(); ++i)
      for (int j = 0; j < row_width_; ++j) {
        const double id = level_ids[j][i];
        if (id >= 0.0 && in_block.insert(static_cast<GlobalOrdinal>(id)).second)
          added.push_back(static_cast<GlobalOrdinal>(id));
      }
    std::sort(added.begin(), added.end());
    ids.insert(ids.end(), added.begin(), added.end());
    const auto level_map = map_of(ids, comm);
    imported = std::make_unique<MultiVector>(level_map, row_width_ + 1);
    imported->doImport(structure, Import(row_map, level_map), Tpetra::INSERT);
    rows_structure = imported.get();
  }
  overlap_map_ = map_of(ids, comm);
  overlap_import_ = rcp(new Import(row_map, overlap_map_));
  MultiVector block_structure(overlap_map_, row_width_ + 1);
  block_structure.doImport(structure, *overlap_import_, Tpetra::INSERT);

  // Rows that reach outside the block are decoupled (the rows of the last level; with overlap 0 ... 1 the cut
  // constraints), and the multiplier rows that couple to them; then the block's rows, columns sorted.
  const int rows = static_cast<int>(ids.size());
  std::vector<Teuchos::ArrayRCP<const double>> block_ids(row_width_ + 1);
  for (int j = 0; j <= row_width_; ++j) block_ids[j] = block_structure.getData(j);
  std::vector<std::vector<int>> block_column(rows, std::vector<int>(row_width_, -1));
  std::vector<char> decoupled(rows, 0);
  const LocalOrdinal outside = Teuchos::OrdinalTraits<LocalOrdinal>::invalid();
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < row_width_; ++j) {
      if (block_ids[j][i] < 0.0) continue;
      const LocalOrdinal c = overlap_map_->getLocalElement(static_cast<GlobalOrdinal>(block_ids[j][i]));
      if (c != outside) block_column[i][j] = c;
      else decoupled[i] = 1;  // a row of the last level, or a multiplier row of block Jacobi's cut constraints
    }
  // A multiplier row that couples to a decoupled row would hold that row's body fixed: decouple it too, and so on.
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < rows; ++i) {
      if (decoupled[i] || block_ids[row_width_][i] == 0.0) continue;
      for (int j = 0; j < row_width_ && !decoupled[i]; ++j)
        if (block_column[i][j] >= 0 && decoupled[block_column[i][j]]) decoupled[i] = 1, changed = true;
    }
  }
  decoupled_rows_ = static_cast<int>(std::count(decoupled.begin(), decoupled.end(), 1));
  std::vector<int> row_offsets(1, 0), columns_out;
  std::vector<std::pair<int, std::pair<int, int>>> row;  // (block column, (row, slot))
  for (int i = 0; i < rows; ++i) {
    row.clear();
    if (decoupled[i]) {
      row.push_back({i, {-1, -1}});
    } else {
      for (int j = 0; j < row_width_; ++j)
        if (block_column[i][j] >= 0 && !decoupled[block_column[i][j]]) row.push_back({block_column[i][j], {i, j}});
    }
    std::sort(row.begin(), row.end());
    for (const auto& [column, source] : row) {
      columns_out.push_back(column);
      source_.push_back(source);
    }
    row_offsets.push_back(static_cast<int>(columns_out.size()));
  }
  klu_ = std::make_unique<KluFactorization>(std::move(row_offsets), std::move(columns_out));
  owned_values_ = rcp(new MultiVector(row_map, row_width_));
  overlap_values_ = rcp(new MultiVector(overlap_map_, row_width_));
  overlap_x_ = rcp(new MultiVector(overlap_map_, 1));
  work_.resize(rows);
}

void OverlappingSchwarzKlu::update(Pivots pivots) {
  const auto local = matrix_->getLocalMatrixHost();
  for (int j = 0; j < row_width_; ++j) {
    auto column = owned_values_->getDataNonConst(j);
    for (int r = 0; r < owned_rows_; ++r) {
      const auto first = local.graph.row_map(r), count = local.graph.row_map(r + 1) - first;
      column[r] = j < static_cast<int>(count) ? local.values(first + j) : 0.0;
    }
  }
  overlap_values_->doImport(*owned_values_, *overlap_import_, Tpetra::INSERT);
  std::vector<Teuchos::ArrayRCP<const double>> columns(row_width_);
  for (int j = 0; j < row_width_; ++j) columns[j] = overlap_values_->getData(j);
  std::vector<double>& values = klu_->values();
  for (std::size_t k = 0; k < values.size(); ++k)
    values[k] = source_[k].first < 0 ? 1.0 : columns[source_[k].second][source_[k].first];
  int failed = (pivots == Pivots::Reuse ? klu_->refactorize() : klu_->factorize()) ? 0 : 1, any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, raw_mpi_comm(*matrix_->getComm()));
  if (any_failed)
    throw SolverError("a rank's overlapping block of the preconditioner is singular (KLU); try "
                      "integrator.partition: graph, another integrator.schwarz_overlap or "
                      "integrator.linear_solver: direct");
}

void OverlappingSchwarzKlu::apply(const MultiVector& X, MultiVector& Y, Teuchos::ETransp, double alpha,
                                  double beta) const {
  for (std::size_t j = 0; j < X.getNumVectors(); ++j) {
    overlap_x_->doImport(*X.getVector(j), *overlap_import_, Tpetra::INSERT);
    const auto x = overlap_x_->getData(0);
    for (std::size_t i = 0; i < work_.size(); ++i) work_[i] = x[i];
    klu_->solve(work_.data());
    auto y = Y.getDataNonConst(j);
    for (int i = 0; i < owned_rows_; ++i) y[i] = (beta == 0.0 ? 0.0 : beta * y[i]) + alpha * work_[i];
  }
}

}  // namespace flexadj::linalg
