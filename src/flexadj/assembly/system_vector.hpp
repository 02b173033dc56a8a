#pragma once
// A system vector of this rank (Assembler::system_map(): the owned coordinates, then the owned multipliers) seen
// as its two blocks [coordinates; multipliers]. The one place that knows this layout: integrators, adjoints and
// the initial projection pack and unpack through it.
#include <cstddef>
#include <vector>

#include "flexadj/core/tpetra_types.hpp"

namespace flexadj::assembly {

// Read access to the blocks of x (x must outlive the view).
class ConstSystemVectorView {
 public:
  ConstSystemVectorView(const Vector& x, std::size_t coordinate_count)
      : data_(x.getData(0)), coordinate_count_(coordinate_count) {}
  std::size_t coordinate_count() const { return coordinate_count_; }
  std::size_t multiplier_count() const { return static_cast<std::size_t>(data_.size()) - coordinate_count_; }
  const double* coordinates() const { return data_.getRawPtr(); }
  const double* multipliers() const { return data_.getRawPtr() + coordinate_count_; }
  // coordinates = x_q and multipliers = x_lambda (either may be nullptr: not read out).
  void extract(std::vector<double>* coordinates, std::vector<double>* multipliers) const {
    if (coordinates) coordinates->assign(this->coordinates(), this->coordinates() + coordinate_count_);
    if (multipliers) multipliers->assign(this->multipliers(), this->multipliers() + multiplier_count());
  }

 private:
  Teuchos::ArrayRCP<const double> data_;
  std::size_t coordinate_count_;
};

// Write access to the blocks of x (x must outlive the view; no other view of x may write meanwhile).
class SystemVectorView {
 public:
  SystemVectorView(Vector& x, std::size_t coordinate_count)
      : data_(x.getDataNonConst(0)), coordinate_count_(coordinate_count) {}
  std::size_t multiplier_count() const { return static_cast<std::size_t>(data_.size()) - coordinate_count_; }
  double* coordinates() { return data_.getRawPtr(); }
  double* multipliers() { return data_.getRawPtr() + coordinate_count_; }
  // x = [coordinate_factor * coordinates; multiplier_factor * multipliers]; without multipliers (nullptr) zeros.
  void assign(const std::vector<double>& coordinates, double coordinate_factor = 1.0,
              const std::vector<double>* multipliers = nullptr, double multiplier_factor = 1.0) {
    double* x = this->coordinates();
    for (std::size_t i = 0; i < coordinate_count_; ++i) x[i] = coordinate_factor * coordinates[i];
    double* y = this->multipliers();
    for (std::size_t k = 0; k < multiplier_count(); ++k) y[k] = multipliers ? multiplier_factor * (*multipliers)[k] : 0.0;
  }

 private:
  Teuchos::ArrayRCP<double> data_;
  std::size_t coordinate_count_;
};

}  // namespace flexadj::assembly
