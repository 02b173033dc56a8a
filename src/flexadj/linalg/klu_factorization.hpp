#pragma once
// A sparse LU factorization by SuiteSparse's KLU (Davis and Palamadai Natarajan 2010, ACM TOMS 37(3):36) of one
// square matrix whose structure is fixed: ordering (BTF + AMD) analysed once, then per value set either a
// factorization with partial pivoting or a refactorization with the pivot order of the last one.
//
// Amesos2's KLU2 adapter frees and factorizes afresh with pivoting on every numericFactorization and has no
// refactorization path, and Trilinos 13.2's own klu2_refactor.hpp does not compile (a template argument cannot be
// deduced from its NULL workspace argument). SuiteSparse's KLU, which KLU2 was ported from, has klu_refactor: the
// same elimination on new values, without a pivot search and without allocating.
//
// The matrix is given in compressed rows; KLU reads them as compressed columns, i.e. factorizes A^T, so solve()
// uses KLU's transposed solve for A x = b (as Amesos2's single-process path does).
//
// With a set of `last` unknowns, the ordering puts them at the end (CAMD, the constrained minimum degree ordering of
// the same package, without BTF), and solve_last() solves A x = b for a right-hand side that is zero outside them
// and returns x on them only. It runs through the trailing columns of the factors only, from the earliest position
// a `last` unknown was pivoted to: for a chain cut at one end, a few dozen columns instead of the whole matrix. KLU
// has no solve with a sparse right-hand side or a restricted solution; this reads its factors in place (the
// layout of klu.h's klu_numeric and of KLU's GET_POINTER, klu_internal.h).
#include <memory>
#include <vector>

namespace flexadj::linalg {

class KluFactorization {
 public:
  // Rows of an n x n matrix: row_offsets (n + 1), columns sorted within each row. Analyses the structure.
  KluFactorization(std::vector<int> row_offsets, std::vector<int> columns);
  // The same, with the unknowns `last` ordered last (see above).
  KluFactorization(std::vector<int> row_offsets, std::vector<int> columns, std::vector<int> last);
  ~KluFactorization();
  KluFactorization(const KluFactorization&) = delete;
  KluFactorization& operator=(const KluFactorization&) = delete;

  // The values in the order of `columns`; write them, then factorize.
  std::vector<double>& values() { return values_; }
  int size() const { return static_cast<int>(row_offsets_.size()) - 1; }

  // LU with partial pivoting. False if the matrix is singular.
  bool factorize();
  // The elimination of the last factorize() on the current values: no pivot search, no allocation. Falls back to
  // factorize() when there is none yet, when a pivot vanishes, or when the smallest pivot relative to the largest
  // fell below 1e-3 of what factorize() had (the old order no longer fits the values). False if singular.
  bool refactorize();
  // How the last factorization was made (for tests and counters).
  bool last_was_refactorization() const { return last_refactorized_; }
  long long factorizations() const { return factorizations_; }
  long long refactorizations() const { return refactorizations_; }

  // x := A^-1 x, or A^-T x with `transposed`; with count > 1, the `count` columns of x (each size() long) in one
  // pass through the factors (KLU takes four right-hand sides per pass).
  void solve(double* x, bool transposed = false, int count = 1);
  // x := (A^-1 b) restricted to the unknowns `last` (in their order), for a b that is zero outside them, given by
  // its entries on them in x; `count` such columns, each last().size() long. Needs the constructor with `last`.
  void solve_last(double* x, int count = 1);
  const std::vector<int>& last() const { return last_; }
  // One solve in two halves, for a block elimination whose second right-hand side differs from the first on the
  // `last` unknowns only. solve_begin(b, y_last) takes the forward half of b (U^T W = b(Q), in full) and returns
  // y = A^-1 b on the `last` unknowns (the backward half through the trailing columns only). solve_finish(c_last,
  // x) then gives x = A^-1 (b - c) for a c that is zero outside them (its entries on them in c_last): the forward
  // half of c through the trailing columns, subtracted, and the backward half in full. A^-1 b on `last` and
  // A^-1 (b - c) in full cost about one solve this way, two with solve().
  void solve_begin(const double* b, double* y_last);
  void solve_finish(const double* c_last, double* x);

  // The factors of the last factorization handed over, to solve with later while this object factorizes other
  // values (the spacetime adjoint keeps one per step); the next refactorize() then factorizes afresh. They use
  // this object's analysis, which must outlive them. nullptr if there is no factorization.
  class Factors {
   public:
    ~Factors();
    Factors(const Factors&) = delete;
    Factors& operator=(const Factors&) = delete;
    // As KluFactorization::solve, with these factors.
    void solve(double* x, bool transposed = false, int count = 1) const;
    std::size_t bytes() const { return bytes_; }

   private:
    friend class KluFactorization;
    Factors(KluFactorization& owner, void* numeric, std::size_t bytes)
        : owner_(owner), numeric_(numeric), bytes_(bytes) {}
    KluFactorization& owner_;
    void* numeric_;
    std::size_t bytes_;
  };
  std::unique_ptr<Factors> release_factors();

 private:
  double pivot_ratio();
  void analyse();

  struct Klu;
  std::vector<int> row_offsets_, columns_, last_;
  std::vector<int> q_position_;        // KLU's column position of each `last` unknown
  std::vector<double> trailing_work_;  // solve_last's work vector (size n, zero between calls)
  std::vector<double> forward_half_;   // solve_begin's W = U^-T b(Q) (or b itself where the factors are not walked)
  bool begun_ = false;
  std::vector<double> values_;
  std::unique_ptr<Klu> klu_;
  double fresh_pivot_ratio_ = 0.0;
  std::size_t numeric_bytes_ = 0;  // KLU's memory count of the current factors
  bool last_refactorized_ = false;
  long long factorizations_ = 0, refactorizations_ = 0;
};

}  // namespace flexadj::linalg
