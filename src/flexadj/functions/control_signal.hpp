#pragma once
// Named control inputs given by values on a time grid t_0 < t_1 < ... < t_{n-1}, interpolated piecewise
// linearly or held piecewise constant, and held at the end values outside the grid. The control values are
// the unknowns of optimal control problems: weights() gives dvalue(t)/dvalues[k] for gradients.
// A normalized signal's grid is on tau = (t - t0)/(t1 - t0) in [0, 1] of the run's window [t0, t1]: u(t) = u^(tau),
// so that a free final time stretches the control with the run (Bestle and Eberhard 1992, section 4.3).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace flexadj::functions {

// True for AD types with a val() (Sacado's), whose value a normalized signal reads.
template <class S, class = void>
struct has_value_member : std::false_type {};
template <class S>
struct has_value_member<S, std::void_t<decltype(std::declval<const S&>().val())>> : std::true_type {};

enum class TimeBase {
  Absolute,    // the grid times are times t
  Normalized,  // the grid times are tau = (t - t0)/(t1 - t0) of the window set_time_window(t0, t1)
};

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
  // right derivatives. A normalized signal's value carries no time derivative: the AD time is that of a step
  // time t_n = t0 + tau_n (t1 - t0) under a change of the final time, at which u^(tau_n) does not change.
  template <class S>
  S value(const S& t) const;

  Weights weights(double t) const;

  // Normalized: throws flexadj::InputError (key: the name) unless all grid times are in [0, 1].
  void set_time_base(TimeBase base);
  TimeBase time_base() const { return time_base_; }
  bool normalized() const { return time_base_ == TimeBase::Normalized; }
  // The run's window [t0, t1] a normalized signal maps t with; throws std::invalid_argument unless t1 > t0.
  void set_time_window(double t0, double t1);
  // The time on the grid: tau = (t - t0)/(t1 - t0) if normalized, else t.
  double grid_time(double t) const { return normalized() ? (t - window_start_) / (window_end_ - window_start_) : t; }

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

  template <class S>
  S grid_value(const S& s) const;

  std::string name_;
  std::vector<double> times_;
  std::vector<double> values_;
  Interpolation kind_;
  TimeBase time_base_ = TimeBase::Absolute;
  double window_start_ = 0.0, window_end_ = 1.0;
};

template <class S>
S ControlSignal::value(const S& t) const {
  static_assert(!std::is_integral_v<S>, "evaluate a control signal with a floating-point or AD type");
  if (!normalized()) return grid_value(t);
  if constexpr (std::is_floating_point_v<S>) return grid_value(grid_time(t));
  else if constexpr (has_value_member<S>::value) return S(grid_value(grid_time(static_cast<double>(t.val()))));
  else throw std::logic_error("ControlSignal::value: a normalized signal takes a double or a Sacado time");
}

template <class S>
S ControlSignal::grid_value(const S& t) const {
  const std::size_t upper = upper_index(t);
  if (upper == 0) return S(values_.front());
  if (upper == times_.size()) return S(values_.back());
  const std::size_t k = upper - 1;
  if (kind_ == Interpolation::PiecewiseConstant) return S(values_[k]);
  const double slope = (values_[k + 1] - values_[k]) / (times_[k + 1] - times_[k]);
  return values_[k] + (t - times_[k]) * slope;
}

}  // namespace flexadj::functions
