#include "flexadj/linalg/mumps_direct_solver.hpp"

#include <dmumps_c.h>
#include <mpi.h>

#include <Tpetra_Import.hpp>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"

namespace flexadj::linalg {
namespace {

// MUMPS's control and information arrays are 1-based in its documentation (ICNTL(k) is icntl[k - 1]).
constexpr int kInitialize = -1, kTerminate = -2, kAnalyse = 1, kFactorize = 2, kSolve = 3;
constexpr int kMaxMemoryRelaxation = 640;  // percent; ICNTL(14) is doubled from its default up to this

class MumpsDirectSolver final : public LinearSolver {
 public:
  MumpsDirectSolver(RCP<const CrsMatrix> matrix, bool transposed)
      : matrix_(std::move(matrix)), transposed_(transposed) {
    const auto row_map = matrix_->getRowMap();
    const auto col_map = matrix_->getColMap();
    const long long size = static_cast<long long>(matrix_->getGlobalNumRows());
    if (size >= std::numeric_limits<MUMPS_INT>::max())
      throw InputError("", "integrator.linear_solver",
                       "the system has " + std::to_string(size) + " unknowns, more than MUMPS's 32-bit indices hold");
    // 1-based global row and column of every local entry, in the order of the local matrix's values.
    const int rows = static_cast<int>(row_map->getNodeNumElements());
    owned_rows_ = rows;
    for (int r = 0; r < rows; ++r) {
      CrsMatrix::local_inds_host_view_type columns;
      CrsMatrix::values_host_view_type values;
      matrix_->getLocalRowView(r, columns, values);
      const auto row = static_cast<MUMPS_INT>(row_map->getGlobalElement(r) + 1);
      for (std::size_t k = 0; k < columns.extent(0); ++k) {
        row_ids_.push_back(row);
        column_ids_.push_back(static_cast<MUMPS_INT>(col_map->getGlobalElement(columns(k)) + 1));
      }
    }
    const std::size_t entries = row_ids_.size();
    values_.resize(std::max<std::size_t>(entries, 1));
    // A rank may own no rows: MUMPS still reads its arrays, so none is empty (no null pointer).
    row_ids_.resize(values_.size(), 1);
    column_ids_.resize(values_.size(), 1);
    rhs_rows_.resize(std::max(rows, 1), 1);
    for (int r = 0; r < rows; ++r) rhs_rows_[r] = static_cast<MUMPS_INT>(row_map->getGlobalElement(r) + 1);
    rhs_.resize(std::max(rows, 1));

    id_.comm_fortran = static_cast<MUMPS_INT>(MPI_Comm_c2f(raw_mpi_comm(*matrix_->getComm())));
    id_.par = 1;  // rank 0 takes part in the factorization
    id_.sym = 0;  // general unsymmetric (the saddle-point matrices of generalized-alpha are not symmetric)
    id_.job = kInitialize;
    dmumps_c(&id_);
    check("initialization");
    initialized_ = true;
    // No messages: errors are reported through INFOG (units <= 0 make the parallel analysis of MUMPS 5.5 abort).
    icntl(1) = 6;
    icntl(2) = 0;
    icntl(3) = 0;
    icntl(4) = 0;
    icntl(18) = 3;   // distributed assembled matrix
    icntl(20) = 10;  // distributed dense right-hand side
    icntl(21) = 1;   // distributed solution
    // Sequential analysis: the graph (not the values) goes to rank 0 once per solver, for MUMPS's own choice of
    // ordering (ICNTL(7) = 7). The parallel analysis with PT-Scotch (libmumps-ptscotch-dev) crashed or hung in
    // about half the runs at 8 ranks on a 110-unknown tree (docs/platform.md).
    icntl(28) = 1;
    icntl(7) = 7;
    icntl(9) = transposed_ ? 0 : 1;
    id_.n = static_cast<MUMPS_INT>(size);
    id_.nnz_loc = static_cast<MUMPS_INT8>(entries);
    id_.irn_loc = row_ids_.data();
    id_.jcn_loc = column_ids_.data();
    id_.a_loc = values_.data();
  }

  ~MumpsDirectSolver() override {
    if (!initialized_) return;
    id_.job = kTerminate;
    dmumps_c(&id_);
  }

  void take_values(Pivots) override {
    // MUMPS has no refactorization with the pivot order of an earlier one: every update() is a numerical
    // factorization (job 2) on the analysis of the first; Pivots::Reuse only saves work with KLU.
    const auto local = matrix_->getLocalMatrixHost();
    if (static_cast<MUMPS_INT8>(local.values.extent(0)) != id_.nnz_loc)
      throw std::logic_error("MumpsDirectSolver: the matrix's structure changed since the solver was made");
    std::copy(local.values.data(), local.values.data() + local.values.extent(0), values_.begin());
    if (!analysed_) {
      id_.job = kAnalyse;
      dmumps_c(&id_);
      check("analysis");
      analysed_ = true;
    }
    for (;;) {
      id_.job = kFactorize;
      dmumps_c(&id_);
      const int code = id_.infog[0];
      const bool workspace = code == -8 || code == -9 || code == -17 || code == -20;
      if (!workspace || icntl(14) >= kMaxMemoryRelaxation) break;
      icntl(14) *= 2;  // estimated workspace too small (delayed pivots): relax and factorize again
    }
    check("factorization");
    solution_size_ = id_.info[22];  // INFO(23): the solution entries this rank receives
    solution_.resize(std::max(solution_size_, 1));
    solution_rows_.resize(std::max(solution_size_, 1));
    solution_rows_checked_ = false;
  }

  void solve_system(const Vector& b, Vector& x) override {
    ++counts_.solves;
    const auto local_b = b.getData(0);
    std::copy(local_b.begin(), local_b.begin() + owned_rows_, rhs_.begin());
    id_.nloc_rhs = static_cast<MUMPS_INT>(owned_rows_);
    id_.lrhs_loc = std::max<MUMPS_INT>(id_.nloc_rhs, 1);
    id_.irhs_loc = rhs_rows_.data();
    id_.rhs_loc = rhs_.data();
    id_.nrhs = 1;
    id_.lsol_loc = static_cast<MUMPS_INT>(std::max(solution_size_, 1));
    id_.sol_loc = solution_.data();
    id_.isol_loc = solution_rows_.data();
    id_.job = kSolve;
    dmumps_c(&id_);
    check("solve");
    if (!solution_rows_checked_) prepare_import();
    // The solution as MUMPS distributes it (rows ISOL_loc), moved to the matrix's row map.
    auto mumps_x = mumps_solution_->getDataNonConst(0);
    std::copy(solution_.begin(), solution_.begin() + solution_size_, mumps_x.begin());
    mumps_x = Teuchos::null;
    x.doImport(*mumps_solution_, *import_, Tpetra::INSERT);
  }

  std::string description() const override {
    return std::string("direct (MUMPS, distributed)") + (transposed_ ? ", transposed" : "");
  }

 private:
  MUMPS_INT& icntl(int k) { return id_.icntl[k - 1]; }

  // The rows of the solution each rank holds depend on the factorization's mapping of the pivots: after every
  // factorization, the first solve compares them with those of the import in use and rebuilds it if any rank's
  // changed (collective).
  void prepare_import() {
    const std::vector<MUMPS_INT> rows(solution_rows_.begin(), solution_rows_.begin() + solution_size_);
    int changed = rows != import_rows_ ? 1 : 0, any_changed = 0;
    MPI_Allreduce(&changed, &any_changed, 1, MPI_INT, MPI_MAX, raw_mpi_comm(*matrix_->getComm()));
    solution_rows_checked_ = true;
    if (!any_changed && import_) return;
    import_rows_ = rows;
    std::vector<GlobalOrdinal> ids(rows.begin(), rows.end());
    for (auto& id : ids) id -= 1;
    const auto invalid = Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid();
    auto map = rcp(new Map(invalid, Teuchos::ArrayView<const GlobalOrdinal>(ids.data(), ids.size()), 0,
                           matrix_->getComm()));
    mumps_solution_ = rcp(new Vector(map));
    import_ = rcp(new Tpetra::Import<LocalOrdinal, GlobalOrdinal, Node>(map, matrix_->getRowMap()));
  }

  // INFOG(1) < 0: SolverError with MUMPS's code in words (INFOG is the same on every rank: no rank hangs).
  void check(const char* phase) const {
    if (id_.infog[0] >= 0) return;
    std::ostringstream message;
    message << "MUMPS " << phase << " failed: " << mumps_error_text(id_.infog[0], id_.infog[1]);
    throw SolverError(message.str());
  }

  RCP<const CrsMatrix> matrix_;
  bool transposed_;
  DMUMPS_STRUC_C id_{};
  bool initialized_ = false, analysed_ = false, solution_rows_checked_ = false;
  std::vector<MUMPS_INT> row_ids_, column_ids_, rhs_rows_, solution_rows_, import_rows_;
  std::vector<double> values_, rhs_, solution_;
  int solution_size_ = 0, owned_rows_ = 0;
  RCP<Vector> mumps_solution_;
  RCP<const Tpetra::Import<LocalOrdinal, GlobalOrdinal, Node>> import_;
};

}  // namespace

std::string mumps_error_text(int infog1, int infog2) {
  std::ostringstream text;
  switch (infog1) {
    case -6:
    case -10:
      text << "the saddle-point matrix is singular" << (infog1 == -6 ? " in its structure" : "")
           << " (MUMPS code " << infog1 << ", " << infog2 << " pivots found)";
      return text.str();
    case -5:
    case -7:
    case -13:
      text << "out of memory allocating MUMPS's workspace (MUMPS code " << infog1 << ", "
           << (infog2 < 0 ? -static_cast<long long>(infog2) * 1000000LL : infog2) << " entries asked)";
      return text.str();
    case -8:
    case -9:
    case -11:
    case -14:
    case -17:
    case -20:
      text << "MUMPS's workspace is too small even with " << kMaxMemoryRelaxation
           << " % relaxation (MUMPS code " << infog1 << ")";
      return text.str();
    case -19:
      text << "the memory limit ICNTL(23) is too small (MUMPS code " << infog1 << ")";
      return text.str();
    case -38:
      text << "the parallel ordering failed (MUMPS code -38: PT-Scotch not available in this MUMPS build)";
      return text.str();
    default:
      text << "MUMPS error code " << infog1 << " (INFOG(2) = " << infog2 << ")";
      return text.str();
  }
}

std::unique_ptr<LinearSolver> make_mumps_direct_solver(RCP<const CrsMatrix> matrix, bool transposed) {
  return std::make_unique<MumpsDirectSolver>(std::move(matrix), transposed);
}

}  // namespace flexadj::linalg
