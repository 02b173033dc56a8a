#pragma once
// The preconditioner of the iterative solver: block Jacobi over the ranks, each rank's diagonal block of the
// saddle-point matrix factorized by SuiteSparse KLU (klu_factorization.hpp), with the constraints cut by the
// partition decoupled.
//
// A multiplier row with entries in another rank's columns is a cut constraint; restricted to this rank it would act
// as if the other body were fixed, which can make the block singular (a link held at both ends may spin about its
// axis). Its row and column are replaced by the identity. What is left differs from the full matrix by a term of
// rank about twice the number of cut constraints, so GMRES needs few iterations; on one rank the block is the
// whole matrix and GMRES converges in one.
//
// Ifpack2's additive Schwarz with an Amesos2 KLU2 subdomain solver does the same, but Trilinos 13.2's wrapper
// copies the values into its own matrix in initialize() and so repeats the symbolic analysis at every update, and
// KLU2 has no refactorization: this operator analyses the block's structure once and refactorizes with the pivot
// order of the last factorization where the Newton iteration or the adjoint sweep allows it (linalg::Pivots).
#include <memory>
#include <vector>

#include <Tpetra_Operator.hpp>

#include "flexadj/core/tpetra_types.hpp"
#include "flexadj/linalg/klu_factorization.hpp"
#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj::linalg {

class BlockJacobiKlu final : public Tpetra::Operator<double, LocalOrdinal, GlobalOrdinal, Node> {
 public:
  // Local rows from first_multiplier_row on are multiplier rows. Analyses the block's structure (collective: no).
  BlockJacobiKlu(RCP<const CrsMatrix> matrix, int first_multiplier_row);

  // Takes the matrix's current values and factorizes the block (Pivots::Reuse: KLU's refactorization). Throws
  // SolverError if the block is singular.
  void update(Pivots pivots);
  int cut_count() const { return cut_count_; }

  RCP<const Map> getDomainMap() const override { return matrix_->getRowMap(); }
  RCP<const Map> getRangeMap() const override { return matrix_->getRowMap(); }
  // Y = beta Y + alpha B^-1 X with B the decoupled block (mode is ignored: only NO_TRANS is used by GMRES).
  void apply(const MultiVector& X, MultiVector& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS, double alpha = 1.0,
             double beta = 0.0) const override;

 private:
  RCP<const CrsMatrix> matrix_;
  // Value k of the factorization is entry source_[k] of the matrix's local values (-1: the unit diagonal of a cut
  // row).
  std::vector<int> source_;
  std::vector<int> row_offsets_;
  std::unique_ptr<KluFactorization> klu_;
  mutable std::vector<double> work_;
  int cut_count_ = 0;
};

}  // namespace flexadj::linalg
