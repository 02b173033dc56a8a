#pragma once
// The default preconditioner of the iterative solver on several ranks: the exact Schur complement of the interface
// (non-overlapping substructuring; Smith, Bjorstad and Gropp 1996, ch. 4). The interface Γ is the set of rows that
// couple across ranks: a row with an entry in another rank's column (the constraint rows of a joint cut by the
// partition) or a column of another rank's row (the coordinates of the body on the far side of the cut). Each
// rank's other rows are its interior I_p; the ordered matrix is
//     [ A_II  A_IΓ ]      A_II = diag(A_{I_p I_p}) (no coupling between ranks' interiors),
//     [ A_ΓI  A_ΓΓ ]      S = A_ΓΓ - Σ_p A_{Γ_p I_p} A_{I_p I_p}^-1 A_{I_p Γ_p}.
// Each rank factorizes its interior block by KLU (klu_factorization.hpp) and forms its term of S densely by one
// interior solve per interface column it holds, restricted to the interior unknowns next to the interface (ordered
// last in the interior factorization, so that these solves run through a few trailing columns of the factors); the
// terms are summed into a sparse S that every rank factorizes (replicated, the same values in the same order on
// every rank, so the same bits). apply() is then the exact inverse: the forward half of the interior solve and its
// solution next to the interface, one MPI_Allgatherv of the interface residual, the interface solve, and the
// interior solve finished from the kept forward half (KluFactorization::solve_begin/solve_finish: about one
// interior solve in all). GMRES preconditioned with it converges in one iteration whatever the rank count (the
// one-level Schwarz method's count grows with the ranks on chains and trees: a chain's slowest mode spans every
// rank).
//
// Its size: |Γ| grows with the cuts, not with the model. Chains, trees and beams cut by a graph partition have a
// few dozen interface rows per rank, so S stays small beside the interiors at any rank count a multibody model
// is run on. A partition that cuts many joints per rank (a mesh-like model) makes S large and dense-ish; use
// `linear_solver: direct` (MUMPS) there.
//
// Why not a library's two-level method: FROSch's GDSW and RGDSW coarse spaces (ShyLU_DD) and MueLu extend an
// elliptic operator's null space into the subdomains; the Newton matrices here are indefinite saddle-point
// systems (mass and stiffness bordered by the constraints) that have none, while the exact interface complement
// of a 1-D topology is small.
//
// Constraint rows on an interface body, and rows whose interior part is structurally empty, join the interface, so
// that the interior blocks are not singular.
#include <memory>
#include <vector>

#include <Tpetra_Operator.hpp>

#include "flexadj/core/tpetra_types.hpp"
#include "flexadj/linalg/klu_factorization.hpp"
#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::linalg {

class InterfaceSchurKlu final : public Tpetra::Operator<double, LocalOrdinal, GlobalOrdinal, Node> {
 public:
  // Local rows from first_multiplier_row on are multiplier rows. Collective: finds the interface and the
  // structures of the interior blocks and of S.
  InterfaceSchurKlu(RCP<const CrsMatrix> matrix, int first_multiplier_row);
  ~InterfaceSchurKlu() override;

  // Takes the matrix's current values, factorizes the interior block and S (collective). SolverError if either is
  // singular.
  void update(Pivots pivots);
  long long interface_rows() const { return interface_total_; }
  int coupled_columns() const { return static_cast<int>(coupled_columns_.size()); }
  int interior_rows() const { return static_cast<int>(interior_rows_.size()); }

  RCP<const Map> getDomainMap() const override { return matrix_->getRowMap(); }
  RCP<const Map> getRangeMap() const override { return matrix_->getRowMap(); }
  // Y = beta Y + alpha A^-1 X (mode is ignored: GMRES uses NO_TRANS only).
  void apply(const MultiVector& X, MultiVector& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS, double alpha = 1.0,
             double beta = 0.0) const override;

 private:
  struct Entry {  // one matrix entry: (row, column) in the block's numbering, its index in the local values
    int row, column;
    std::size_t source;
  };

  RCP<const CrsMatrix> matrix_;
  std::vector<int> interior_rows_;   // owned local rows of I_p
  std::vector<int> interface_rows_;  // owned local rows of Γ_p, in the order of their interface numbers
  long long interface_first_ = 0, interface_total_ = 0;
  std::vector<int> interface_counts_, interface_offsets_;  // per rank (MPI_Allgatherv)
  std::vector<std::size_t> interior_sources_;  // A_II's values in KLU's order
  std::unique_ptr<KluFactorization> interior_klu_;
  std::vector<Entry> interior_interface_;   // A_IΓ: interior row, local interface column (sorted by column)
  std::vector<Entry> interface_interior_;   // A_ΓI: local interface row, interior column
  // Their interior rows and columns among the interior factorization's `last` unknowns (solve_last's numbering).
  std::vector<int> interior_interface_last_, interface_interior_last_;
  std::vector<double> interior_interface_values_, interface_interior_values_;  // as of the last update()
  // S's term of this rank: A_ΓΓ's entries (global interface numbers), then C_p = A_ΓI A_II^-1 A_IΓ on the
  // interface rows and columns that reach the interior, dense.
  std::vector<Entry> interface_interface_;
  std::vector<int> coupled_rows_, coupled_columns_;  // local interface numbers
  std::vector<double> term_values_;                  // this rank's term, in the order of the gathered pattern
  std::vector<int> term_counts_, term_offsets_;
  std::vector<double> gathered_terms_;
  std::vector<int> schur_position_;  // gathered term k goes to S's value schur_position_[k]
  std::unique_ptr<KluFactorization> schur_klu_;
  std::vector<double> column_block_;  // the interior solves of every coupled column, on the `last` unknowns
  mutable std::vector<double> interior_work_, interior_rhs_, interface_work_, schur_work_;
  mutable std::vector<double> last_work_;  // on the interior factorization's `last` unknowns
};

}  // namespace flexadj::linalg
