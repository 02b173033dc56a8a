#include "flexadj/linalg/klu_factorization.hpp"

#include <stdexcept>

#include <klu.h>

namespace flexadj::linalg {

struct KluFactorization::Klu {
  klu_common common;
  klu_symbolic* symbolic = nullptr;
  klu_numeric* numeric = nullptr;
};

KluFactorization::KluFactorization(std::vector<int> row_offsets, std::vector<int> columns)
    : row_offsets_(std::move(row_offsets)), columns_(std::move(columns)), values_(columns_.size(), 0.0),
      klu_(std::make_unique<Klu>()) {
  if (row_offsets_.empty() || static_cast<std::size_t>(row_offsets_.back()) != columns_.size())
    throw std::invalid_argument("KluFactorization: row offsets do not match the column indices");
  klu_defaults(&klu_->common);
  klu_->symbolic = klu_analyze(size(), row_offsets_.data(), columns_.data(), &klu_->common);
  if (klu_->symbolic == nullptr) throw std::runtime_error("KluFactorization: KLU could not analyse the structure");
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
