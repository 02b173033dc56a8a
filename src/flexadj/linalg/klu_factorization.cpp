#include "flexadj/linalg/klu_factorization.hpp"

#include <algorithm>
#include <stdexcept>

#include <camd.h>
#include <klu.h>

namespace flexadj::linalg {
namespace {

// KLU's packed column k of L or U (GET_POINTER of klu_internal.h): its row indices, then its values, from
// LU + start[k], the indices padded to whole doubles. Returns the column's length.
int packed_column(const double* LU, const int* start, const int* length, int k, const int*& rows,
                  const double*& values) {
  const double* p = LU + start[k];
  rows = reinterpret_cast<const int*>(p);
  values = p + (sizeof(int) * length[k] + sizeof(double) - 1) / sizeof(double);
  return length[k];
}

}  // namespace

struct KluFactorization::Klu {
  klu_common common;
  klu_symbolic* symbolic = nullptr;
  klu_numeric* numeric = nullptr;
};

KluFactorization::KluFactorization(std::vector<int> row_offsets, std::vector<int> columns)
    : KluFactorization(std::move(row_offsets), std::move(columns), {}) {}

KluFactorization::KluFactorization(std::vector<int> row_offsets, std::vector<int> columns, std::vector<int> last)
    : row_offsets_(std::move(row_offsets)), columns_(std::move(columns)), last_(std::move(last)),
      values_(columns_.size(), 0.0), klu_(std::make_unique<Klu>()) {
  if (row_offsets_.empty() || static_cast<std::size_t>(row_offsets_.back()) != columns_.size())
    throw std::invalid_argument("KluFactorization: row offsets do not match the column indices");
  klu_defaults(&klu_->common);
  analyse();
}

void KluFactorization::analyse() {
  const int n = size();
  if (last_.empty()) {
    klu_->symbolic = klu_analyze(n, row_offsets_.data(), columns_.data(), &klu_->common);
  } else {
    // CAMD on the pattern of A + A^T with the `last` unknowns in a later constraint set, then KLU with that
    // ordering for rows and columns and without BTF (one block, so that the trailing columns are the `last` ones).
    std::vector<int> constraint(n, 0), order(n);
    for (int i : last_) {
      if (i < 0 || i >= n) throw std::invalid_argument("KluFactorization: a `last` unknown is out of range");
      constraint[i] = 1;
    }
    double control[CAMD_CONTROL], info[CAMD_INFO];
    camd_defaults(control);
    const int status = camd_order(n, row_offsets_.data(), columns_.data(), order.data(), control, info,
                                  constraint.data());
    if (status != CAMD_OK && status != CAMD_OK_BUT_JUMBLED)
      throw std::runtime_error("KluFactorization: CAMD could not order the structure");
    klu_->common.btf = 0;
    klu_->symbolic = klu_analyze_given(n, row_offsets_.data(), columns_.data(), order.data(), order.data(),
                                       &klu_->common);
    trailing_work_.assign(n, 0.0);
  }
  if (klu_->symbolic == nullptr) throw std::runtime_error("KluFactorization: KLU could not analyse the structure");
  if (!last_.empty()) {  // where b(Q) puts each `last` unknown: first .. n-1 by CAMD's constraint sets
    std::vector<int> position(n);
    for (int k = 0; k < n; ++k) position[klu_->symbolic->Q[k]] = k;
    q_position_.resize(last_.size());
    for (std::size_t a = 0; a < last_.size(); ++a) {
      q_position_[a] = position[last_[a]];
      if (q_position_[a] < n - static_cast<int>(last_.size()))
        throw std::runtime_error("KluFactorization: the ordering did not put the `last` unknowns last");
    }
  }
}

KluFactorization::~KluFactorization() {
  if (klu_->numeric != nullptr) klu_free_numeric(&klu_->numeric, &klu_->common);
  if (klu_->symbolic != nullptr) klu_free_symbolic(&klu_->symbolic, &klu_->common);
}

double KluFactorization::pivot_ratio() {
  klu_rcond(klu_->symbolic, klu_->numeric, &klu_->common);
  return klu_->common.rcond;
}

bool KluFactorization::factorize() {
  if (klu_->numeric != nullptr) klu_free_numeric(&klu_->numeric, &klu_->common);
  const std::size_t before = klu_->common.memusage;
  klu_->numeric = klu_factor(row_offsets_.data(), columns_.data(), values_.data(), klu_->symbolic, &klu_->common);
  numeric_bytes_ = klu_->common.memusage - before;
  ++factorizations_;
  last_refactorized_ = false;
  if (klu_->numeric == nullptr) return false;
  fresh_pivot_ratio_ = pivot_ratio();
  return fresh_pivot_ratio_ > 0.0;
}

bool KluFactorization::refactorize() {
  if (klu_->numeric == nullptr || !(fresh_pivot_ratio_ > 0.0)) return factorize();
  const int ok =
      klu_refactor(row_offsets_.data(), columns_.data(), values_.data(), klu_->symbolic, klu_->numeric, &klu_->common);
  constexpr double kAcceptedDecay = 1e-3;
  if (!ok || klu_->common.status != KLU_OK || !(pivot_ratio() >= kAcceptedDecay * fresh_pivot_ratio_))
    return factorize();
  ++refactorizations_;
  last_refactorized_ = true;
  return true;
}

void KluFactorization::solve(double* x, bool transposed, int count) {
  // KLU holds the factors of the matrix read as columns, A^T: its transposed solve solves with A.
  if (transposed)
    klu_solve(klu_->symbolic, klu_->numeric, size(), count, x, &klu_->common);
  else
    klu_tsolve(klu_->symbolic, klu_->numeric, size(), count, x, &klu_->common);
}

void KluFactorization::solve_last(double* x, int count) {
  const int n = size(), m = static_cast<int>(last_.size());
  if (m == 0) throw std::logic_error("KluFactorization::solve_last needs the unknowns to order last");
  if (klu_->numeric == nullptr) throw std::logic_error("KluFactorization::solve_last before a factorization");
  const klu_symbolic& symbolic = *klu_->symbolic;
  const klu_numeric& numeric = *klu_->numeric;
  if (symbolic.nblocks != 1 || n < 2) {  // no factors in place to walk (a single singleton): solve in full
    for (int c = 0; c < count; ++c) {
      std::fill(trailing_work_.begin(), trailing_work_.end(), 0.0);
      for (int a = 0; a < m; ++a) trailing_work_[last_[a]] = x[c * m + a];
      solve(trailing_work_.data());
      for (int a = 0; a < m; ++a) x[c * m + a] = trailing_work_[last_[a]];
    }
    std::fill(trailing_work_.begin(), trailing_work_.end(), 0.0);
    return;
  }
  // As klu_tsolve (A = M^T for KLU's M): X = b(Q); U^T W = X; L^T V = W; x(Pnum[k]) = V[k] / Rs[k]. The `last`
  // unknowns are KLU's columns first (position) .. n-1, so b(Q) and W vanish before `first`; V is needed from the
  // earliest pivot position of a `last` unknown on.
  const int first = n - m;
  const int* pivot_position = numeric.Pinv;
  const double* LU = static_cast<const double*>(numeric.LUbx[0]);
  const double* u_diagonal = static_cast<const double*>(numeric.Udiag);
  const double* Rs = numeric.Rs;
  int earliest = first;
  for (int a = 0; a < m; ++a) earliest = std::min(earliest, pivot_position[last_[a]]);
  double* X = trailing_work_.data();
  for (int c = 0; c < count; ++c) {
    double* xc = x + static_cast<std::size_t>(c) * m;
    for (int a = 0; a < m; ++a) X[q_position_[a]] = xc[a];  // X is zero between calls
    const int *rows;
    const double* values;
    for (int k = first; k < n; ++k) {  // U^T W = X, forward
      double sum = X[k];
      const int len = packed_column(LU, numeric.Uip, numeric.Ulen, k, rows, values);
      for (int p = 0; p < len; ++p) sum -= values[p] * X[rows[p]];
      X[k] = sum / u_diagonal[k];
    }
    for (int k = n - 1; k >= earliest; --k) {  // L^T V = W, backward (L has a unit diagonal)
      double sum = X[k];
      const int len = packed_column(LU, numeric.Lip, numeric.Llen, k, rows, values);
      for (int p = 0; p < len; ++p) sum -= values[p] * X[rows[p]];
      X[k] = sum;
    }
    for (int a = 0; a < m; ++a) {
      const int k = pivot_position[last_[a]];
      xc[a] = Rs ? X[k] / Rs[k] : X[k];
    }
    for (int k = earliest; k < n; ++k) X[k] = 0.0;
  }
}

void KluFactorization::solve_begin(const double* b, double* y_last) {
  if (klu_->numeric == nullptr) throw std::logic_error("KluFactorization::solve_begin before a factorization");
  const int n = size(), m = static_cast<int>(last_.size());
  forward_half_.resize(n);
  begun_ = true;
  const klu_symbolic& symbolic = *klu_->symbolic;
  if (m == 0 || symbolic.nblocks != 1 || n < 2) {  // no factors in place to walk: keep b, solve in full
    std::copy(b, b + n, forward_half_.begin());
    if (m == 0) return;
    std::vector<double>& y = trailing_work_;
    std::copy(b, b + n, y.begin());
    solve(y.data());
    for (int a = 0; a < m; ++a) y_last[a] = y[last_[a]];
    std::fill(y.begin(), y.end(), 0.0);
    return;
  }
  // As klu_tsolve (see solve_last): W = U^-T b(Q) in full, kept; then L^T V = W from the last column back to the
  // earliest pivot position of a `last` unknown, on a copy.
  const klu_numeric& numeric = *klu_->numeric;
  const double* LU = static_cast<const double*>(numeric.LUbx[0]);
  const double* u_diagonal = static_cast<const double*>(numeric.Udiag);
  const int* Q = symbolic.Q;
  double* W = forward_half_.data();
  const int* rows;
  const double* values;
  for (int k = 0; k < n; ++k) W[k] = b[Q[k]];
  for (int k = 0; k < n; ++k) {
    double sum = W[k];
    const int len = packed_column(LU, numeric.Uip, numeric.Ulen, k, rows, values);
    for (int p = 0; p < len; ++p) sum -= values[p] * W[rows[p]];
    W[k] = sum / u_diagonal[k];
  }
  int earliest = n - m;
  for (int a = 0; a < m; ++a) earliest = std::min(earliest, numeric.Pinv[last_[a]]);
  double* V = trailing_work_.data();
  for (int k = earliest; k < n; ++k) V[k] = W[k];
  for (int k = n - 1; k >= earliest; --k) {
    double sum = V[k];
    const int len = packed_column(LU, numeric.Lip, numeric.Llen, k, rows, values);
    for (int p = 0; p < len; ++p) sum -= values[p] * V[rows[p]];
    V[k] = sum;
  }
  for (int a = 0; a < m; ++a) {
    const int k = numeric.Pinv[last_[a]];
    y_last[a] = numeric.Rs ? V[k] / numeric.Rs[k] : V[k];
  }
  for (int k = earliest; k < n; ++k) V[k] = 0.0;
}

void KluFactorization::solve_finish(const double* c_last, double* x) {
  if (!begun_) throw std::logic_error("KluFactorization::solve_finish without solve_begin");
  begun_ = false;
  const int n = size(), m = static_cast<int>(last_.size());
  const klu_symbolic& symbolic = *klu_->symbolic;
  if (m == 0 || symbolic.nblocks != 1 || n < 2) {
    std::copy(forward_half_.begin(), forward_half_.end(), x);
    for (int a = 0; a < m; ++a) x[last_[a]] -= c_last[a];
    solve(x);
    return;
  }
  const klu_numeric& numeric = *klu_->numeric;
  const double* LU = static_cast<const double*>(numeric.LUbx[0]);
  const double* u_diagonal = static_cast<const double*>(numeric.Udiag);
  double* W = forward_half_.data();
  double* C = trailing_work_.data();
  const int* rows;
  const double* values;
  // U^T D = c(Q): c(Q) vanishes before n - m, and so does D. W -= D.
  const int first = n - m;
  for (int a = 0; a < m; ++a) C[q_position_[a]] = c_last[a];
  for (int k = first; k < n; ++k) {
    double sum = C[k];
    const int len = packed_column(LU, numeric.Uip, numeric.Ulen, k, rows, values);
    for (int p = 0; p < len; ++p) sum -= values[p] * C[rows[p]];
    C[k] = sum / u_diagonal[k];
    W[k] -= C[k];
  }
  for (int k = first; k < n; ++k) C[k] = 0.0;
  // L^T V = W in full, then x(Pnum[k]) = V[k] / Rs[k].
  for (int k = n - 1; k >= 0; --k) {
    double sum = W[k];
    const int len = packed_column(LU, numeric.Lip, numeric.Llen, k, rows, values);
    for (int p = 0; p < len; ++p) sum -= values[p] * W[rows[p]];
    W[k] = sum;
  }
  for (int k = 0; k < n; ++k) x[numeric.Pnum[k]] = numeric.Rs ? W[k] / numeric.Rs[k] : W[k];
}

std::unique_ptr<KluFactorization::Factors> KluFactorization::release_factors() {
  if (klu_->numeric == nullptr) return nullptr;
  std::unique_ptr<Factors> factors(new Factors(*this, klu_->numeric, numeric_bytes_));
  klu_->numeric = nullptr;
  fresh_pivot_ratio_ = 0.0;
  return factors;
}

KluFactorization::Factors::~Factors() {
  auto* numeric = static_cast<klu_numeric*>(numeric_);
  klu_free_numeric(&numeric, &owner_.klu_->common);
}

void KluFactorization::Factors::solve(double* x, bool transposed, int count) const {
  auto* numeric = static_cast<klu_numeric*>(numeric_);
  auto& klu = *owner_.klu_;
  if (transposed)
    klu_solve(klu.symbolic, numeric, owner_.size(), count, x, &klu.common);
  else
    klu_tsolve(klu.symbolic, numeric, owner_.size(), count, x, &klu.common);
}

}  // namespace flexadj::linalg
