#include "flexadj/objectives/constraint_set.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace flexadj::objectives {

ConstraintSet::ConstraintSet(std::vector<ConstraintTerm> terms, long long steps)
    : terms_(std::move(terms)), steps_(static_cast<std::size_t>(steps)) {
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    offsets_.push_back(size_);
    size_ += count(i);
    ObjectiveTerm measured = terms_[i].measured;
    measured.weight = 1.0;
    // A path constraint's value at one step is its quantity there, read as a terminal value of weight 1.
    if (terms_[i].path()) measured.kind = ObjectiveTerm::Kind::FinalValue;
    measured_.emplace_back(std::vector<ObjectiveTerm>{measured});
  }
  local_.assign(size_, 0.0);
  values_.assign(size_, 0.0);
}

std::vector<double> ConstraintSet::lower() const {
  std::vector<double> b(size_);
  for (std::size_t i = 0; i < terms_.size(); ++i)
    std::fill_n(b.begin() + offsets_[i], count(i), terms_[i].lower);
  return b;
}

std::vector<double> ConstraintSet::upper() const {
  std::vector<double> b(size_);
  for (std::size_t i = 0; i < terms_.size(); ++i)
    std::fill_n(b.begin() + offsets_[i], count(i), terms_[i].upper);
  return b;
}

void ConstraintSet::begin() { std::fill(local_.begin(), local_.end(), 0.0); }

void ConstraintSet::observe(const assembly::Assembler& assembler, std::size_t n, const assembly::State& state) {
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    if (!terms_[i].path()) continue;
    if (n > steps_)
      throw std::logic_error("ConstraintSet: the forward run took more steps than the path constraints have values");
    local_[offsets_[i] + n] = measured_[i].local_terminal_value(assembler, state);
  }
}

void ConstraintSet::finish(const assembly::Assembler& assembler, const std::vector<double>& times,
                           const assembly::State& last) {
  if (times.size() != steps_ + 1 && std::any_of(terms_.begin(), terms_.end(), [](const auto& t) { return t.path(); }))
    throw std::logic_error("ConstraintSet: the forward run's step count differs from the path constraints'");
  using Kind = ObjectiveTerm::Kind;
  for (std::size_t i = 0; i < terms_.size(); ++i)
    if (terms_[i].measured.kind == Kind::FinalValue)
      local_[offsets_[i]] = measured_[i].local_terminal_value(assembler, last);
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_SUM, static_cast<int>(size_), local_.data(), values_.data());
  // Quantities every rank knows (collective: total() reduces).
  const std::vector<double> none;
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    if (terms_[i].measured.kind == Kind::FinalTime) values_[offsets_[i]] = times.back();
    if (terms_[i].measured.kind == Kind::ControlEffort)
      values_[offsets_[i]] = measured_[i].total(assembler, times, none);
  }
}

Objective ConstraintSet::weighted(const std::vector<double>& lambda) const {
  if (lambda.size() != size_) throw std::invalid_argument("ConstraintSet::weighted: one multiplier per value");
  Objective objective;
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    ObjectiveTerm term = terms_[i].measured;
    if (terms_[i].path()) {
      term.weight = 1.0;
      term.step_weights = std::make_shared<const std::vector<double>>(lambda.begin() + offsets_[i],
                                                                     lambda.begin() + offsets_[i] + count(i));
    } else {
      term.weight = lambda[offsets_[i]];
    }
    objective.add(term);
  }
  return objective;
}

double ConstraintSet::violation(const std::vector<double>& c) const {
  double worst = 0.0;
  for (std::size_t i = 0; i < terms_.size(); ++i)
    for (std::size_t k = offsets_[i]; k < offsets_[i] + count(i); ++k)
      worst = std::max({worst, c[k] - terms_[i].upper, terms_[i].lower - c[k]});
  return worst;
}

}  // namespace flexadj::objectives
