#pragma once
// Named control inputs given by values on a time grid t_0 < t_1 < ... < t_{n-1}, interpolated piecewise
// linearly or held piecewise constant, and held at the end values outside the grid. The control values are
// the unknowns of optimal control problems: weights() gives dvalue(t)/dvalues[k] for gradients.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

namespace flexadj::functions {

enum class Interpolation {
  PiecewiseLinear,
  PiecewiseConstant,  // values[k] on [t_k, t_{k+1})
};

class ControlSignal {
 public:
  // value(t) = w0 * values[k0] + w1 * values[k1]; k0 and k1 are always valid indices.
  struct Weights {
    int k0;
    double w0;
    int k1;
    double w1;
  };

  // Throws flexadj::InputError (key: the name) unless there is at least one value, times and values have the
  // same length, all are finite and times increase strictly.
  ControlSignal(std::string name, std::vector<double> times, std::vector<double> values, Interpolation kind);

  // CSV with a header line naming the columns; the first column is "t" or "time", `column` names the values.
  // Blank lines and lines starting with '#' are skipped. Errors name the file, the column and the line.
  static ControlSignal from_csv(const std::string& name, const std::string& path, const std::string& column,
                                Interpolation kind);

  // 1-D numeric datasets for the times and the values, e.g. "/controls/t" and "/controls/torque".
  static ControlSignal from_hdf5(const std::string& name, const std::string& path, const std::string& times_dataset,
                                 const std::string& values_dataset, Interpolation kind);

  // S is double or a forward-AD type (e.g. Sacado::Fad::SFad) carrying time derivatives; the interval is
  // located by comparing values. At a grid time the interval to the right counts: derivatives there are the
  // right derivatives.
  template <class S>
  S value(const S& t) const;

  Weights weights(double t) const;

  const std::string& name() const { return name_; }
  Interpolation interpolation() const { return kind_; }
  std::size_t size() const { return times_.size(); }
  const std::vector<double>& times() const { return times_; }
  const std::vector<double>& values() const { return values_; }

  // Replaces the control values (e.g. in an optimisation loop); throws std::invalid_argument on a size mismatch.
  void set_values(const std::vector<double>& values);

 private:
  // Index of the first grid time greater than t (0 before the grid, size() at or after its end).
  template <class S>
  std::size_t upper_index(const S& t) const {
    return std::upper_bound(times_.begin(), times_.end(), t, [](const S& a, double b) { return a < b; }) -
           times_.begin();
  }

  std::string name_;
  std::vector<double> times_;
  std::vector<double> values_;
  Interpolation kind_;
};

template <class S>
S ControlSignal::value(const S& t) const {
  static_assert(!std::is_integral_v<S>, "evaluate a control signal with a floating-point or AD type");
  const std::size_t upper = upper_index(t);
  if (upper == 0) return S(values_.front());
  if (upper == times_.size()) return S(values_.back());
  const std::size_t k = upper - 1;
  if (kind_ == Interpolation::PiecewiseConstant) return S(values_[k]);
  const double slope = (values_[k + 1] - values_[k]) / (times_[k + 1] - times_[k]);
  return values_[k] + (t - times_[k]) * slope;
}

}  // namespace flexadj::functions
