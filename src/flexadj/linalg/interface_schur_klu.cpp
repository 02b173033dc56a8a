#include "flexadj/linalg/interface_schur_klu.hpp"

#include <mpi.h>

#include <algorithm>

#include <map>
#include <utility>

#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"

namespace flexadj::linalg {
namespace {

// Allgatherv displacements of per-rank counts.
std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size() + 1, 0);
  for (std::size_t p = 0; p < counts.size(); ++p) offsets[p + 1] = offsets[p] + counts[p];
  return offsets;
}

}  // namespace

InterfaceSchurKlu::~InterfaceSchurKlu() = default;

InterfaceSchurKlu::InterfaceSchurKlu(RCP<const CrsMatrix> matrix, int first_multiplier_row)
    : matrix_(std::move(matrix)) {
  const auto row_map = matrix_->getRowMap(), col_map = matrix_->getColMap();
  const MPI_Comm comm = raw_mpi_comm(*matrix_->getComm());
  const int ranks = matrix_->getComm()->getSize();
  const auto local = matrix_->getLocalMatrixHost();
  const int rows = static_cast<int>(row_map->getNodeNumElements());
  const int columns = static_cast<int>(col_map->getNodeNumElements());
  const LocalOrdinal invalid = Teuchos::OrdinalTraits<LocalOrdinal>::invalid();
  std::vector<int> owned_row(columns);  // the owned row of each column, -1 for another rank's
  for (int c = 0; c < columns; ++c) {
    const LocalOrdinal r = row_map->getLocalElement(col_map->getGlobalElement(c));
    owned_row[c] = r == invalid ? -1 : static_cast<int>(r);
  }
  const auto row_begin = [&](int r) { return static_cast<std::size_t>(local.graph.row_map(r)); };
  const auto row_end = [&](int r) { return static_cast<std::size_t>(local.graph.row_map(r + 1)); };

  // The interface: rows with an entry in another rank's column, and rows another rank's rows have entries in.
  std::vector<char> interface(rows, 0);
  {
    Vector reached_columns(col_map), reached(row_map);
    auto data = reached_columns.getDataNonConst();
    for (int r = 0; r < rows; ++r)
      for (std::size_t k = row_begin(r); k < row_end(r); ++k)
        if (owned_row[local.graph.entries(k)] < 0) interface[r] = 1, data[local.graph.entries(k)] = 1.0;
    data = Teuchos::null;
    reached.doExport(reached_columns, Export(col_map, row_map), Tpetra::ADD);
    const auto by_others = reached.getData();
    for (int r = 0; r < rows; ++r)
      if (by_others[r] > 0.0) interface[r] = 1;
  }
  // Rows or columns with no entry in the interior join the interface (the interior block would be singular; a
  // multiplier's diagonal entry is a structural zero and does not count), and so do constraints on an interface
  // body: with them, a link between two interface links would be held at both ends by spherical joints and could
  // spin about its axis (a singular interior block); without them the interior's constraints are a subset of the
  // model's, of full rank.
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<char> column_used(rows, 0);
    for (int r = 0; r < rows; ++r) {
      if (interface[r]) continue;
      bool any = false, reaches_interface = false;
      for (std::size_t k = row_begin(r); k < row_end(r); ++k) {
        const int c = owned_row[local.graph.entries(k)];
        if (c >= 0 && !interface[c] && !(c == r && r >= first_multiplier_row)) any = true, column_used[c] = 1;
        if (c >= 0 && interface[c]) reaches_interface = true;
      }
      if (!any || (r >= first_multiplier_row && reaches_interface)) interface[r] = 1, changed = true;
    }
    for (int r = 0; r < rows; ++r)
      if (!interface[r] && !column_used[r]) interface[r] = 1, changed = true;
  }

  std::vector<int> number(rows, -1);  // interior number, or local interface number
  for (int r = 0; r < rows; ++r) {
    if (interface[r]) number[r] = static_cast<int>(interface_rows_.size()), interface_rows_.push_back(r);
    else number[r] = static_cast<int>(interior_rows_.size()), interior_rows_.push_back(r);
  }
  const int own_interface = static_cast<int>(interface_rows_.size());
  interface_counts_.assign(ranks, 0);
  MPI_Allgather(&own_interface, 1, MPI_INT, interface_counts_.data(), 1, MPI_INT, comm);
  interface_offsets_ = offsets_of(interface_counts_);
  interface_total_ = interface_offsets_[ranks];
  interface_first_ = interface_offsets_[matrix_->getComm()->getRank()];

  // Every column's global interface number (-1: interior), from its owner.
  std::vector<int> interface_number(columns, -1);
  {
    Vector owned_numbers(row_map), column_numbers(col_map);
    {
      auto data = owned_numbers.getDataNonConst();
      for (int r = 0; r < rows; ++r) data[r] = interface[r] ? static_cast<double>(interface_first_ + number[r]) : -1.0;
    }
    column_numbers.doImport(owned_numbers, Import(row_map, col_map), Tpetra::INSERT);
    const auto data = column_numbers.getData();
    for (int c = 0; c < columns; ++c) interface_number[c] = static_cast<int>(data[c]);
  }

  // The blocks' entries.
  std::vector<int> interior_offsets(1, 0), interior_columns;
  std::vector<std::pair<int, std::size_t>> row;
  for (int r = 0; r < rows; ++r) {
    row.clear();
    for (std::size_t k = row_begin(r); k < row_end(r); ++k) {
      const int c = owned_row[local.graph.entries(k)];
      const bool interior_column = c >= 0 && !interface[c];
      if (!interface[r] && interior_column) row.push_back({number[c], k});
      else if (!interface[r]) interior_interface_.push_back({number[r], number[c], k});  // c owned: see above
      else if (interior_column) interface_interior_.push_back({number[r], number[c], k});
      else interface_interface_.push_back({number[r], interface_number[local.graph.entries(k)], k});
    }
    if (interface[r]) continue;
    std::sort(row.begin(), row.end());
    for (const auto& [column, source] : row) interior_columns.push_back(column), interior_sources_.push_back(source);
    interior_offsets.push_back(static_cast<int>(interior_columns.size()));
  }
  // The interior unknowns S's term needs: rows of A_IΓ (its right-hand sides) and columns of A_ΓI (where its
  // solutions are read). Ordered last in the interior factorization, its solves run through their few columns.
  std::vector<int> last_position(interior_rows_.size(), -1), last;
  for (const Entry& e : interior_interface_) last_position[e.row] = 0;
  for (const Entry& e : interface_interior_) last_position[e.column] = 0;
  for (std::size_t a = 0; a < last_position.size(); ++a)
    if (last_position[a] == 0) last_position[a] = static_cast<int>(last.size()), last.push_back(static_cast<int>(a));
  const std::size_t last_count = last.size();
  if (!interior_rows_.empty())
    interior_klu_ = std::make_unique<KluFactorization>(std::move(interior_offsets), std::move(interior_columns),
                                                       std::move(last));
  std::stable_sort(interior_interface_.begin(), interior_interface_.end(),
                   [](const Entry& a, const Entry& b) { return a.column < b.column; });
  for (const Entry& e : interior_interface_) interior_interface_last_.push_back(last_position[e.row]);
  for (const Entry& e : interface_interior_) interface_interior_last_.push_back(last_position[e.column]);
  {
    std::vector<char> coupled_row(own_interface, 0), coupled_column(own_interface, 0);
    for (const Entry& e : interface_interior_) coupled_row[e.row] = 1;
    for (const Entry& e : interior_interface_) coupled_column[e.column] = 1;
    for (int i = 0; i < own_interface; ++i) {
      if (coupled_row[i]) coupled_rows_.push_back(i);
      if (coupled_column[i]) coupled_columns_.push_back(i);
    }
  }
  interior_interface_values_.resize(interior_interface_.size());
  interface_interior_values_.resize(interface_interior_.size());
  interior_work_.resize(interior_rows_.size());
  column_block_.resize(coupled_columns_.size() * last_count);
  interior_rhs_.resize(interior_rows_.size());
  last_work_.resize(last_count);
  interface_work_.resize(own_interface);
  schur_work_.resize(interface_total_);
  if (interface_total_ == 0) return;

  // S's pattern: every rank's term, gathered once (rows and columns in global interface numbers).
  std::vector<int> term_rows, term_columns;
  for (const Entry& e : interface_interface_)
    term_rows.push_back(static_cast<int>(interface_first_) + e.row), term_columns.push_back(e.column);
  for (int j : coupled_columns_)
    for (int i : coupled_rows_)
      term_rows.push_back(static_cast<int>(interface_first_) + i),
          term_columns.push_back(static_cast<int>(interface_first_) + j);
  const int own_terms = static_cast<int>(term_rows.size());
  term_values_.resize(own_terms);
  term_counts_.assign(ranks, 0);
  MPI_Allgather(&own_terms, 1, MPI_INT, term_counts_.data(), 1, MPI_INT, comm);
  term_offsets_ = offsets_of(term_counts_);
  const int all_terms = term_offsets_[ranks];
  std::vector<int> all_rows(all_terms), all_columns(all_terms);
  MPI_Allgatherv(term_rows.data(), own_terms, MPI_INT, all_rows.data(), term_counts_.data(), term_offsets_.data(),
                 MPI_INT, comm);
  MPI_Allgatherv(term_columns.data(), own_terms, MPI_INT, all_columns.data(), term_counts_.data(),
                 term_offsets_.data(), MPI_INT, comm);
  gathered_terms_.resize(all_terms);
  std::map<std::pair<int, int>, int> position;
  for (int k = 0; k < all_terms; ++k) position.emplace(std::make_pair(all_rows[k], all_columns[k]), 0);
  std::vector<int> schur_offsets(interface_total_ + 1, 0), schur_columns;
  int next = 0;
  for (auto& [entry, index] : position) {  // sorted by row, then column
    index = next++;
    schur_columns.push_back(entry.second);
    ++schur_offsets[entry.first + 1];
  }
  for (long long i = 0; i < interface_total_; ++i) schur_offsets[i + 1] += schur_offsets[i];
  schur_position_.resize(all_terms);
  for (int k = 0; k < all_terms; ++k) schur_position_[k] = position.at({all_rows[k], all_columns[k]});
  schur_klu_ = std::make_unique<KluFactorization>(std::move(schur_offsets), std::move(schur_columns));
}

void InterfaceSchurKlu::update(Pivots pivots) {
  const auto values = matrix_->getLocalMatrixHost().values;
  const MPI_Comm comm = raw_mpi_comm(*matrix_->getComm());
  int failed = 0;
  if (interior_klu_) {
    std::vector<double>& interior = interior_klu_->values();
    for (std::size_t k = 0; k < interior.size(); ++k) interior[k] = values(interior_sources_[k]);
    failed = (pivots == Pivots::Reuse ? interior_klu_->refactorize() : interior_klu_->factorize()) ? 0 : 1;
  }
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
  if (any_failed)
    throw SolverError("a rank's interior block of the interface Schur complement is singular (KLU); try "
                      "integrator.partition: graph, integrator.preconditioner: schwarz or "
                      "integrator.linear_solver: direct");
  for (std::size_t k = 0; k < interior_interface_.size(); ++k)
    interior_interface_values_[k] = values(interior_interface_[k].source);
  for (std::size_t k = 0; k < interface_interior_.size(); ++k)
    interface_interior_values_[k] = values(interface_interior_[k].source);
  if (!schur_klu_) return;

  // This rank's term of S: A_ΓΓ's entries, then -A_ΓI A_II^-1 A_IΓ, every interface column's interior solve
  // restricted to the interior unknowns A_IΓ and A_ΓI touch (KluFactorization::solve_last).
  std::size_t t = 0;
  for (const Entry& e : interface_interface_) term_values_[t++] = values(e.source);
  if (!coupled_columns_.empty()) {
    const std::size_t m = interior_klu_->last().size();
    std::fill(column_block_.begin(), column_block_.end(), 0.0);
    std::size_t k = 0;
    for (std::size_t b = 0; b < coupled_columns_.size(); ++b)
      for (; k < interior_interface_.size() && interior_interface_[k].column == coupled_columns_[b]; ++k)
        column_block_[b * m + interior_interface_last_[k]] = interior_interface_values_[k];
    interior_klu_->solve_last(column_block_.data(), static_cast<int>(coupled_columns_.size()));
    for (std::size_t b = 0; b < coupled_columns_.size(); ++b) {
      const double* z = column_block_.data() + b * m;
      std::fill(interface_work_.begin(), interface_work_.end(), 0.0);
      for (std::size_t e = 0; e < interface_interior_.size(); ++e)
        interface_work_[interface_interior_[e].row] += interface_interior_values_[e] * z[interface_interior_last_[e]];
      for (int i : coupled_rows_) term_values_[t++] = -interface_work_[i];
    }
  }
  MPI_Allgatherv(term_values_.data(), static_cast<int>(term_values_.size()), MPI_DOUBLE, gathered_terms_.data(),
                 term_counts_.data(), term_offsets_.data(), MPI_DOUBLE, comm);
  // The same sums in the same order on every rank: the same S, bit for bit.
  std::vector<double>& schur = schur_klu_->values();
  std::fill(schur.begin(), schur.end(), 0.0);
  for (std::size_t g = 0; g < gathered_terms_.size(); ++g) schur[schur_position_[g]] += gathered_terms_[g];
  if (!(pivots == Pivots::Reuse ? schur_klu_->refactorize() : schur_klu_->factorize()))
    throw SolverError("the interface Schur complement is singular (KLU); try integrator.partition: graph, "
                      "integrator.preconditioner: schwarz or integrator.linear_solver: direct");
}

void InterfaceSchurKlu::apply(const MultiVector& X, MultiVector& Y, Teuchos::ETransp, double alpha,
                              double beta) const {
  const MPI_Comm comm = raw_mpi_comm(*matrix_->getComm());
  for (std::size_t v = 0; v < X.getNumVectors(); ++v) {
    const auto x = X.getData(v);
    // y_I = A_II^-1 b_I on the interior unknowns next to the interface (the forward half of the solve kept); the
    // interface residual b_Γ - A_ΓI y_I.
    for (std::size_t a = 0; a < interior_rows_.size(); ++a) interior_work_[a] = x[interior_rows_[a]];
    if (interior_klu_) interior_klu_->solve_begin(interior_work_.data(), last_work_.data());
    for (std::size_t i = 0; i < interface_rows_.size(); ++i) interface_work_[i] = x[interface_rows_[i]];
    for (std::size_t e = 0; e < interface_interior_.size(); ++e)
      interface_work_[interface_interior_[e].row] -=
          interface_interior_values_[e] * last_work_[interface_interior_last_[e]];
    // x_Γ = S^-1 (b_Γ - A_ΓI y_I), the same on every rank.
    if (schur_klu_) {
      MPI_Allgatherv(interface_work_.data(), static_cast<int>(interface_work_.size()), MPI_DOUBLE,
                     schur_work_.data(), interface_counts_.data(), interface_offsets_.data(), MPI_DOUBLE, comm);
      schur_klu_->solve(schur_work_.data());
    }
    // x_I = A_II^-1 (b_I - A_IΓ x_Γ): A_IΓ x_Γ lives on the same unknowns, so the solve ends from the kept half.
    std::fill(last_work_.begin(), last_work_.end(), 0.0);
    for (std::size_t e = 0; e < interior_interface_.size(); ++e)
      last_work_[interior_interface_last_[e]] +=
          interior_interface_values_[e] * schur_work_[interface_first_ + interior_interface_[e].column];
    if (interior_klu_) interior_klu_->solve_finish(last_work_.data(), interior_rhs_.data());
    auto y = Y.getDataNonConst(v);
    for (std::size_t a = 0; a < interior_rows_.size(); ++a) {
      const int r = interior_rows_[a];
      y[r] = (beta == 0.0 ? 0.0 : beta * y[r]) + alpha * interior_rhs_[a];
    }
    for (std::size_t i = 0; i < interface_rows_.size(); ++i) {
      const int r = interface_rows_[i];
      y[r] = (beta == 0.0 ? 0.0 : beta * y[r]) + alpha * schur_work_[interface_first_ + i];
    }
  }
}

}  // namespace flexadj::linalg
