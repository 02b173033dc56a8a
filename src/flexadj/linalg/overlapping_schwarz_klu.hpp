#pragma once
// The preconditioner of the iterative solver on several ranks: restricted additive Schwarz (Cai and Sarkis 1999)
// with `overlap` levels of overlap, each rank's overlapping block of the saddle-point matrix factorized by
// SuiteSparse KLU (klu_factorization.hpp). Level k adds the rows that the rows of level k - 1 couple to, so with
// two levels a joint cut by the partition has both of its bodies and its multipliers in both ranks' blocks.
//
// A row of the block with an entry in a column outside the block (a row of the last level) is replaced by the
// identity, and so is every multiplier row that couples to a replaced row: a constraint on a body the block does
// not hold whole would hold that body fixed, and the block could become singular (a link held at both ends may
// spin about its axis; a body of the position projection, whose own block is zero, with only some of its
// constraints). Block Jacobi does the same with every cut constraint (block_jacobi_klu.hpp). Coordinate rows
// lose their entries in replaced columns.
//
// apply(): the residual on the overlapping rows (one Tpetra Import), the block solve, and the rank's own rows of
// the result (restricted: no communication on the way back). update() imports the values of the other ranks'
// rows in the block (one Import of a multivector holding each row's values, padded to the longest row) and
// refactorizes with the pivot order of the last fresh factorization where allowed (linalg::Pivots).
//
// Ifpack2's AdditiveSchwarz does the same with Amesos2 subdomain solvers, but Trilinos 13.2's wrapper repeats the
// symbolic analysis at every update and KLU2 has no refactorization (docs/platform.md).
#include <memory>
#include <vector>

#include <Tpetra_Operator.hpp>

#include "flexadj/core/tpetra_types.hpp"
#include "flexadj/linalg/klu_factorization.hpp"
#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::linalg {

class OverlappingSchwarzKlu final : public Tpetra::Operator<double, LocalOrdinal, GlobalOrdinal, Node> {
 public:
  // Local rows from first_multiplier_row on are multiplier rows. Collective (builds the overlap).
  OverlappingSchwarzKlu(RCP<const CrsMatrix> matrix, int first_multiplier_row, int overlap);

  // Takes the matrix's current values and factorizes the block (collective). SolverError if it is singular.
  void update(Pivots pivots);
  int overlap_rows() const { return static_cast<int>(overlap_map_->getNodeNumElements()) - owned_rows_; }
  int decoupled_rows() const { return decoupled_rows_; }

  RCP<const Map> getDomainMap() const override { return matrix_->getRowMap(); }
  RCP<const Map> getRangeMap() const override { return matrix_->getRowMap(); }
  // Y = beta Y + alpha B^-1 X restricted to the owned rows (mode is ignored: GMRES uses NO_TRANS only).
  void apply(const MultiVector& X, MultiVector& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS, double alpha = 1.0,
             double beta = 0.0) const override;

 private:
  RCP<const CrsMatrix> matrix_;
  int owned_rows_ = 0, row_width_ = 0, decoupled_rows_ = 0;
  RCP<const Map> overlap_map_;  // the owned rows first, then the overlap's
  RCP<const Import> overlap_import_;
  RCP<MultiVector> owned_values_, overlap_values_;  // row r's values in columns 0 .. row_width_ - 1
  // Value k of the factorization is entry (row, slot) = source_[k] of overlap_values_ (-1: unit diagonal).
  std::vector<std::pair<int, int>> source_;
  std::unique_ptr<KluFactorization> klu_;
  RCP<MultiVector> overlap_x_;
  mutable std::vector<double> work_;
};

}  // namespace flexadj::linalg
