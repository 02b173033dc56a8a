#pragma once
// The dense QR null-space basis of Held and Seifried ([HS], docs/references.md), eq. (4): for the constraint
// Jacobian C (m x n, full row rank m < n)
//   C^T = Q R = [Q1 Q2] [R1; 0],    Q1: n x m, Q2: n x f (f = n - m), R1: m x m upper triangular,
// with C Q2 = 0 (eq. (6)) and the auxiliary matrix P = Q1 R1^-T (eq. (9); C P = I, eq. (27)), which is the
// pseudo-inverse C^T (C C^T)^-1 and so unique. The values come from LAPACK DGEQRF and DORGQR (as in the paper).
//
// Uniqueness and differentiability: Householder QR fixes the signs of R1's diagonal by its reflectors
// (beta = -sign(alpha) |x|, DLARFG); we flip columns of Q1 and rows of R1 so that diag(R1) > 0, which makes Q1 and
// R1 unique and differentiable wherever C has full rank. Q2 is not unique (Q2 G for any orthogonal G is a basis);
// here it is the one of the Householder reflectors, smooth as long as no reflector sign flips. The state equations
// (15) depend on Q2 only through Q2 Q2^T and Q2 (Q2^T M Q2)^-1 Q2^T, which do not depend on that choice.
//
// Derivatives ([HS] sec. 3.3 derives them by hand, eqs. (29) and (36)): differentiate() takes them by forward-mode
// AD (Sacado SFad) of the same Householder algorithm (DGEQR2 and DORG2R, unblocked), one pass per entry of C^T,
// so dQ2 is the derivative of this Q2 (eq. (29) gives the one without a rotation inside the null space: the two
// agree in Q1^T dQ2; dP agrees exactly). paper_derivatives() evaluates eqs. (29) and (36) for comparison.
// Cost O(n^3 m^2) per point: for small systems only (adjoint/state_space_continuous_adjoint.hpp limits n).
#include <cstddef>
#include <memory>
#include <vector>

namespace flexadj::linalg {

class QrBasis {
 public:
  QrBasis();
  ~QrBasis();
  // n coordinates, m constraints (m < n). Allocates everything factor() and differentiate() use.
  void resize(std::size_t n, std::size_t m);
  // c_transposed: C^T, n x m column-major (C row by row). SolverError if C is rank deficient (min |R1_jj| <=
  // 1e-12 max |R1_jj|).
  void factor(const std::vector<double>& c_transposed);
  // dQ2/dE and dP/dE for every entry E = (C^T)_ij, e = i + n j, at the last factor(); also the largest difference
  // between the AD pass's values and LAPACK's (value_mismatch()).
  void differentiate();

  std::size_t coordinates() const { return n_; }
  std::size_t constraints() const { return m_; }
  std::size_t free_directions() const { return n_ - m_; }
  // Column-major: Q (n x n; Q1 its first m columns, Q2 the rest), R1 (m x m), P = Q1 R1^-T (n x m).
  const std::vector<double>& q() const { return q_; }
  const double* q2() const { return q_.data() + n_ * m_; }
  const std::vector<double>& r1() const { return r1_; }
  const std::vector<double>& p() const { return p_; }
  // dQ2/dE (n x f) and dP/dE (n x m), column-major, for entry e of C^T.
  const double* dq2(std::size_t e) const { return dq2_.data() + e * n_ * (n_ - m_); }
  const double* dp(std::size_t e) const { return dp_.data() + e * n_ * m_; }
  double value_mismatch() const { return value_mismatch_; }

 private:
  std::size_t n_ = 0, m_ = 0;
  std::vector<double> c_, a_, tau_, work_, q_, r1_, p_, dq2_, dp_;
  struct FadWork;  // the AD pass's arrays (Sacado types stay in the .cpp)
  std::unique_ptr<FadWork> fad_;
  double value_mismatch_ = 0.0;
};

// [HS] eq. (29), dQ2 = -P dC Q2, and eq. (36), [C; Q2^T] dP = [-dC P; -dQ2^T P], for the direction dC^T (n x m,
// column-major) at the basis' point. dq2: n x f, dp: n x m (column-major; resized).
void paper_derivatives(const QrBasis& basis, const std::vector<double>& c_transposed,
                       const std::vector<double>& dc_transposed, std::vector<double>& dq2, std::vector<double>& dp);

}  // namespace flexadj::linalg
