#include "flexadj/linalg/qr_basis.hpp"

#include <Sacado_No_Kokkos.hpp>
#include <Teuchos_LAPACK.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "flexadj/core/error.hpp"

namespace flexadj::linalg {
namespace {

using Fad = Sacado::Fad::SFad<double, 1>;

double value_of(double x) { return x; }
double value_of(const Fad& x) { return x.val(); }

// c(i:n) = H c(i:n), H = I - tau u u^T with u = [1; v(i+1:n)] (DLARF).
template <class S>
void apply_reflector(std::size_t n, std::size_t i, const S* v, const S& tau, S* c) {
  S w = c[i];
  for (std::size_t k = i + 1; k < n; ++k) w += v[k] * c[k];
  w *= tau;
  c[i] -= w;
  for (std::size_t k = i + 1; k < n; ++k) c[k] -= w * v[k];
}

// Householder QR of a (n x m, column-major) as LAPACK's DGEQR2 (reflectors of DLARFG: beta = -sign(alpha) |x|,
// without its rescaling of tiny norms), then the full n x n Q = H(0) ... H(m-1) as DORG2R: the unblocked form of
// DGEQRF/DORGQR, the same factors to round-off. On exit a holds R in its upper triangle.
template <class S>
void householder_qr(std::size_t n, std::size_t m, S* a, S* tau, S* q) {
  for (std::size_t i = 0; i < m; ++i) {
    S* v = a + n * i;
    S norm2 = 0.0;
    for (std::size_t k = i + 1; k < n; ++k) norm2 += v[k] * v[k];
    if (value_of(norm2) == 0.0) {
      tau[i] = 0.0;
    } else {
      using std::sqrt;
      S beta = sqrt(v[i] * v[i] + norm2);
      if (value_of(v[i]) >= 0.0) beta = -beta;
      tau[i] = (beta - v[i]) / beta;
      const S scale = 1.0 / (v[i] - beta);
      for (std::size_t k = i + 1; k < n; ++k) v[k] *= scale;
      v[i] = beta;
    }
    for (std::size_t j = i + 1; j < m; ++j) apply_reflector(n, i, v, tau[i], a + n * j);
  }
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t k = 0; k < n; ++k) q[k + n * j] = j < m && k > j ? a[k + n * j] : S(j >= m && k == j ? 1.0 : 0.0);
  for (std::size_t i = m; i-- > 0;) {
    S* v = q + n * i;
    for (std::size_t j = i + 1; j < n; ++j) apply_reflector(n, i, v, tau[i], q + n * j);
    for (std::size_t k = i + 1; k < n; ++k) v[k] *= -tau[i];
    v[i] = 1.0 - tau[i];
    for (std::size_t k = 0; k < i; ++k) v[k] = 0.0;
  }
}

// diag(R1) > 0: flip row j of R1 (in a's upper triangle) and column j of Q where R_jj < 0.
template <class S>
void fix_signs(std::size_t n, std::size_t m, S* a, S* q) {
  for (std::size_t j = 0; j < m; ++j) {
    if (value_of(a[j + n * j]) >= 0.0) continue;
    for (std::size_t c = j; c < m; ++c) a[j + n * c] = -a[j + n * c];
    for (std::size_t k = 0; k < n; ++k) q[k + n * j] = -q[k + n * j];
  }
}

// P = Q1 R1^-T ([HS] eq. (9)): each row of P solves R1 x = (row of Q1)^T, R1 the upper triangle of a.
template <class S>
void pseudo_inverse(std::size_t n, std::size_t m, const S* a, const S* q, S* p) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = m; j-- > 0;) {
      S x = q[i + n * j];
      for (std::size_t c = j + 1; c < m; ++c) x -= a[j + n * c] * p[i + n * c];
      p[i + n * j] = x / a[j + n * j];
    }
}

}  // namespace

struct QrBasis::FadWork {
  std::vector<Fad> a, tau, q, p;
};

QrBasis::QrBasis() : fad_(std::make_unique<FadWork>()) {}
QrBasis::~QrBasis() = default;

void QrBasis::resize(std::size_t n, std::size_t m) {
  if (m >= n) throw std::invalid_argument("QrBasis: needs fewer constraints than coordinates");
  n_ = n;
  m_ = m;
  c_.assign(n * m, 0.0);
  a_.assign(n * m, 0.0);
  fad_->a.assign(n * m, Fad(0.0));
  fad_->tau.assign(m, Fad(0.0));
  fad_->q.assign(n * n, Fad(0.0));
  fad_->p.assign(n * m, Fad(0.0));
  tau_.assign(m, 0.0);
  q_.assign(n * n, 0.0);
  r1_.assign(m * m, 0.0);
  p_.assign(n * m, 0.0);
  dq2_.assign(n * m * n * (n - m), 0.0);
  dp_.assign(n * m * n * m, 0.0);
  // Workspace of DGEQRF and DORGQR (queries).
  Teuchos::LAPACK<int, double> lapack;
  double size[2] = {0.0, 0.0};
  int info = 0;
  const int ni = int(n), mi = int(m);
  lapack.GEQRF(ni, mi, a_.data(), ni, tau_.data(), &size[0], -1, &info);
  lapack.ORGQR(ni, ni, mi, q_.data(), ni, tau_.data(), &size[1], -1, &info);
  work_.assign(std::size_t(std::max({size[0], size[1], 1.0})), 0.0);
}

void QrBasis::factor(const std::vector<double>& c_transposed) {
  const std::size_t n = n_, m = m_;
  const int ni = int(n), mi = int(m), lwork = int(work_.size());
  std::copy(c_transposed.begin(), c_transposed.begin() + long(n * m), c_.begin());
  a_ = c_;
  Teuchos::LAPACK<int, double> lapack;
  int info = 0;
  lapack.GEQRF(ni, mi, a_.data(), ni, tau_.data(), work_.data(), lwork, &info);
  if (info != 0) throw std::runtime_error("QrBasis: DGEQRF failed, info " + std::to_string(info));
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t k = 0; k < n; ++k) q_[k + n * j] = a_[k + n * j];
  lapack.ORGQR(ni, ni, mi, q_.data(), ni, tau_.data(), work_.data(), lwork, &info);
  if (info != 0) throw std::runtime_error("QrBasis: DORGQR failed, info " + std::to_string(info));
  fix_signs(n, m, a_.data(), q_.data());
  double largest = 0.0, smallest = INFINITY;
  for (std::size_t j = 0; j < m; ++j) {
    largest = std::max(largest, a_[j + n * j]);
    smallest = std::min(smallest, a_[j + n * j]);
    for (std::size_t i = 0; i < m; ++i) r1_[i + m * j] = i <= j ? a_[i + n * j] : 0.0;
  }
  if (!(smallest > 1e-12 * largest))
    throw SolverError("QR of the constraint Jacobian: C_q is rank deficient (smallest |R1_jj| " +
                      std::to_string(smallest) + ", largest " + std::to_string(largest) +
                      "): redundant constraints have no state-space form");
  pseudo_inverse(n, m, a_.data(), q_.data(), p_.data());
}

void QrBasis::differentiate() {
  const std::size_t n = n_, m = m_, f = n - m;
  std::vector<Fad>& a = fad_->a, &tau = fad_->tau, &q = fad_->q, &p = fad_->p;
  value_mismatch_ = 0.0;
  for (std::size_t e = 0; e < n * m; ++e) {
    for (std::size_t k = 0; k < n * m; ++k) {  // C^T with the seed on entry e
      a[k].val() = c_[k];
      a[k].fastAccessDx(0) = k == e ? 1.0 : 0.0;
    }
    householder_qr(n, m, a.data(), tau.data(), q.data());
    fix_signs(n, m, a.data(), q.data());
    pseudo_inverse(n, m, a.data(), q.data(), p.data());
    double* dq2 = dq2_.data() + e * n * f;
    double* dp = dp_.data() + e * n * m;
    for (std::size_t k = 0; k < n * f; ++k) {
      dq2[k] = q[n * m + k].dx(0);
      value_mismatch_ = std::max(value_mismatch_, std::abs(q[n * m + k].val() - q_[n * m + k]));
    }
    for (std::size_t k = 0; k < n * m; ++k) {
      dp[k] = p[k].dx(0);
      value_mismatch_ = std::max(value_mismatch_, std::abs(p[k].val() - p_[k]));
    }
  }
}

void paper_derivatives(const QrBasis& basis, const std::vector<double>& c_transposed,
                       const std::vector<double>& dc_transposed, std::vector<double>& dq2, std::vector<double>& dp) {
  const std::size_t n = basis.coordinates(), m = basis.constraints(), f = n - m;
  const double* q2 = basis.q2();
  const std::vector<double>& p = basis.p();
  // dC Q2 (m x f) and dC P (m x m); dC = (dC^T)^T.
  std::vector<double> dcq2(m * f, 0.0), dcp(m * m, 0.0);
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t i = 0; i < n; ++i) {
      const double d = dc_transposed[i + n * r];
      for (std::size_t c = 0; c < f; ++c) dcq2[r + m * c] += d * q2[i + n * c];
      for (std::size_t c = 0; c < m; ++c) dcp[r + m * c] += d * p[i + n * c];
    }
  dq2.assign(n * f, 0.0);  // eq. (29)
  for (std::size_t c = 0; c < f; ++c)
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t i = 0; i < n; ++i) dq2[i + n * c] -= p[i + n * r] * dcq2[r + m * c];
  // Eq. (36): the n x n matrix [C; Q2^T] and the right-hand side [-dC P; -dQ2^T P].
  std::vector<double> a(n * n, 0.0);
  dp.assign(n * m, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t r = 0; r < m; ++r) a[r + n * i] = c_transposed[i + n * r];
    for (std::size_t c = 0; c < f; ++c) a[m + c + n * i] = q2[i + n * c];
  }
  for (std::size_t col = 0; col < m; ++col) {
    for (std::size_t r = 0; r < m; ++r) dp[r + n * col] = -dcp[r + m * col];
    for (std::size_t c = 0; c < f; ++c) {
      double x = 0.0;
      for (std::size_t i = 0; i < n; ++i) x += dq2[i + n * c] * p[i + n * col];
      dp[m + c + n * col] = -x;
    }
  }
  std::vector<int> pivots(n);
  int info = 0;
  Teuchos::LAPACK<int, double>().GESV(int(n), int(m), a.data(), int(n), pivots.data(), dp.data(), int(n), &info);
  if (info != 0) throw std::runtime_error("paper_derivatives: [C; Q2^T] singular");
}

}  // namespace flexadj::linalg
