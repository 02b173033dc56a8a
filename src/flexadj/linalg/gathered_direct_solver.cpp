#include "flexadj/linalg/gathered_direct_solver.hpp"

#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/linalg/klu_factorization.hpp"

namespace flexadj::linalg {
namespace {

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

    // This rank's structure: row ids, entries per row, column ids (global), in the local matrix's value order.
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
    value_buffer_.resize(std::max(local_entries_, local_rows_));

    row_counts_ = gather_counts(rows);
    entry_counts_ = gather_counts(local_entries_);
    row_displacements_ = displacements(row_counts_);
    entry_displacements_ = displacements(entry_counts_);
    const int total_rows = rank_ == 0 ? std::accumulate(row_counts_.begin(), row_counts_.end(), 0) : 0;
    const int total_entries = rank_ == 0 ? std::accumulate(entry_counts_.begin(), entry_counts_.end(), 0) : 0;
    all_row_ids_.resize(total_rows);
    std::vector<int> all_row_lengths(total_rows);
    std::vector<long long> all_columns(total_entries);
    MPI_Gatherv(row_ids.data(), rows, MPI_LONG_LONG, all_row_ids_.data(), row_counts_.data(), row_displacements_.data(),
                MPI_LONG_LONG, 0, mpi_comm_);
    MPI_Gatherv(row_lengths.data(), rows, MPI_INT, all_row_lengths.data(), row_counts_.data(),
                row_displacements_.data(), MPI_INT, 0, mpi_comm_);
    MPI_Gatherv(column_ids.data(), local_entries_, MPI_LONG_LONG, all_columns.data(), entry_counts_.data(),
                entry_displacements_.data(), MPI_LONG_LONG, 0, mpi_comm_);
    if (rank_ != 0) return;

    // Rank 0: compressed rows of A (or of A^T: rows and columns swapped) with global ids, columns sorted within a
    // row, and the place of every gathered entry in them.
    struct Entry {
      int row, column, gathered;
    };
    std::vector<Entry> entries;
    entries.reserve(total_entries);
    for (int r = 0, e = 0; r < total_rows; ++r)
      for (int k = 0; k < all_row_lengths[r]; ++k, ++e) {
        const int row = static_cast<int>(all_row_ids_[r]), column = static_cast<int>(all_columns[e]);
        entries.push_back(transposed_ ? Entry{column, row, e} : Entry{row, column, e});
      }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.row != b.row ? a.row < b.row : a.column < b.column; });
    std::vector<int> row_offsets(total_rows + 1, 0), columns(total_entries);
    slot_of_gathered_.resize(total_entries);
    for (int k = 0; k < total_entries; ++k) {
      ++row_offsets[entries[k].row + 1];
      columns[k] = entries[k].column;
      slot_of_gathered_[entries[k].gathered] = k;
    }
    std::partial_sum(row_offsets.begin(), row_offsets.end(), row_offsets.begin());
    all_values_.resize(total_entries);
    rhs_.resize(total_rows);
    solution_.resize(total_rows);
    factorization_ = std::make_unique<KluFactorization>(std::move(row_offsets), std::move(columns));
  }

  void take_values(Pivots pivots) override {
    // The local matrix's values are its rows' entries in row order, as the constructor gathered the structure.
    const auto local = matrix_->getLocalMatrixHost();
    if (static_cast<int>(local.values.extent(0)) != local_entries_)
      throw std::logic_error("GatheredDirectSolver: the matrix's structure changed since the solver was made");
    int failed = 0;
    if (ranks_ == 1) {
      scatter_values(local.values.data());
      failed = factorize(pivots) ? 0 : 1;
    } else {
      std::copy(local.values.data(), local.values.data() + local_entries_, value_buffer_.begin());
      MPI_Gatherv(value_buffer_.data(), local_entries_, MPI_DOUBLE, all_values_.data(), entry_counts_.data(),
                  entry_displacements_.data(), MPI_DOUBLE, 0, mpi_comm_);
      if (rank_ == 0) {
        scatter_values(all_values_.data());
        failed = factorize(pivots) ? 0 : 1;
      }
      MPI_Bcast(&failed, 1, MPI_INT, 0, mpi_comm_);
    }
    if (failed) throw SolverError("the saddle-point matrix is singular (KLU2 factorization failed)");
  }

  void solve_system(const Vector& b, Vector& x) override {
    ++counts_.solves;
    solve_with(nullptr, b, x);
  }

  // The factors on rank 0 are handed over; every rank's kept object gathers and scatters as solve_system() does.
  std::unique_ptr<KeptFactorization> release_factorization() override {
    std::unique_ptr<KluFactorization::Factors> factors;
    if (rank_ == 0) {
      factors = factorization_->release_factors();
      if (!factors) throw std::logic_error("GatheredDirectSolver: no factorization to hand over");
    }
    return std::make_unique<Kept>(*this, std::move(factors));
  }

  std::string description() const override {
    return std::string(ranks_ == 1 ? "direct (KLU2)" : "direct (KLU2 on rank 0, gathered)") +
           (transposed_ ? ", transposed" : "");
  }

 private:
  class Kept final : public KeptFactorization {
   public:
    Kept(GatheredDirectSolver& solver, std::unique_ptr<KluFactorization::Factors> factors)
        : solver_(solver), factors_(std::move(factors)) {}
    void solve(const Vector& b, Vector& x) override { solver_.solve_with(factors_.get(), b, x); }
    std::size_t bytes() const override { return factors_ ? factors_->bytes() : 0; }

   private:
    GatheredDirectSolver& solver_;
    std::unique_ptr<KluFactorization::Factors> factors_;
  };

  // x = A^-1 b with the given factors (rank 0; nullptr: the solver's own).
  void solve_with(const KluFactorization::Factors* factors, const Vector& b, Vector& x) {
    const auto local_b = b.getData(0);
    std::copy(local_b.begin(), local_b.begin() + local_rows_, value_buffer_.begin());
    MPI_Gatherv(value_buffer_.data(), local_rows_, MPI_DOUBLE, rhs_.data(), row_counts_.data(),
                row_displacements_.data(), MPI_DOUBLE, 0, mpi_comm_);
    if (rank_ == 0) {
      for (std::size_t r = 0; r < all_row_ids_.size(); ++r) solution_[all_row_ids_[r]] = rhs_[r];
      if (factors) factors->solve(solution_.data());
      else factorization_->solve(solution_.data());
      for (std::size_t r = 0; r < all_row_ids_.size(); ++r) rhs_[r] = solution_[all_row_ids_[r]];
    }
    MPI_Scatterv(rhs_.data(), row_counts_.data(), row_displacements_.data(), MPI_DOUBLE, value_buffer_.data(),
                 local_rows_, MPI_DOUBLE, 0, mpi_comm_);
    auto local_x = x.getDataNonConst(0);
    std::copy(value_buffer_.begin(), value_buffer_.begin() + local_rows_, local_x.begin());
  }

  void scatter_values(const double* gathered) {
    std::vector<double>& values = factorization_->values();
    for (std::size_t e = 0; e < slot_of_gathered_.size(); ++e) values[slot_of_gathered_[e]] = gathered[e];
  }
  bool factorize(Pivots pivots) {
    return pivots == Pivots::Reuse ? factorization_->refactorize() : factorization_->factorize();
  }
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
  bool transposed_;
  MPI_Comm mpi_comm_;
  int rank_ = 0, ranks_ = 1, local_rows_ = 0, local_entries_ = 0;
  std::vector<int> row_counts_, entry_counts_, row_displacements_, entry_displacements_;
  std::vector<double> value_buffer_, all_values_, rhs_, solution_;
  std::vector<long long> all_row_ids_;
  std::vector<int> slot_of_gathered_;  // rank 0: gathered entry -> place in the factorization's values
  std::unique_ptr<KluFactorization> factorization_;
};

}  // namespace

std::unique_ptr<LinearSolver> make_gathered_direct_solver(RCP<const CrsMatrix> matrix, bool transposed) {
  return std::make_unique<GatheredDirectSolver>(std::move(matrix), transposed);
}

}  // namespace flexadj::linalg
