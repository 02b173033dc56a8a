#include "flexadj/adjoint/forward_interpolation.hpp"

#include <algorithm>
#include <stdexcept>

namespace flexadj::adjoint {
namespace {

// A stored step is not taken as an outer node if it lies closer than this fraction of the interval's length to
// its neighbour (the located last step of an implicit final time may be tiny): such a pair makes the cubic a
// Hermite interpolant with a slope from a difference over the tiny step.
constexpr double kCloseNodes = 0.05;

void copy_fields(const assembly::State& from, assembly::State& to) {
  std::copy(from.q.begin(), from.q.end(), to.q.begin());
  std::copy(from.v.begin(), from.v.end(), to.v.begin());
  std::copy(from.a.begin(), from.a.end(), to.a.begin());
  std::copy(from.lambda.begin(), from.lambda.end(), to.lambda.begin());
  if (from.aux.size() == to.aux.size()) std::copy(from.aux.begin(), from.aux.end(), to.aux.begin());
}

}  // namespace

InterpolatedForwardStates::InterpolatedForwardStates(storage::Trajectory& trajectory, const assembly::State& shape,
                                                     std::function<void(std::size_t, const assembly::State&)> visit)
    : trajectory_(trajectory), visit_(std::move(visit)) {
  const std::size_t steps = trajectory.step_count();
  if (steps == 0) throw std::logic_error("InterpolatedForwardStates: an empty trajectory");
  for (auto& state : window_) {
    state.q.assign(shape.q.size(), 0.0);
    state.v.assign(shape.v.size(), 0.0);
    state.a.assign(shape.a.size(), 0.0);
    state.lambda.assign(shape.lambda.size(), 0.0);
    state.aux.assign(shape.aux.size(), 0.0);  // copied where stored (memory), else zero: no adjoint reads it
  }
  interpolated_ = window_[0];
  lowest_loaded_ = steps;  // nothing loaded yet
  interval_ = steps >= 2 ? steps - 2 : 0;
}

void InterpolatedForwardStates::load_down_to(std::size_t step) {
  while (lowest_loaded_ > step) {
    --lowest_loaded_;
    const assembly::State& stored = trajectory_.step(lowest_loaded_);
    copy_fields(stored, window_[lowest_loaded_ % kWindowSteps]);
    visit_(lowest_loaded_, stored);
  }
}

void InterpolatedForwardStates::read_remaining() { load_down_to(0); }

const assembly::State& InterpolatedForwardStates::at(double t) {
  const std::vector<double>& times = trajectory_.step_times();
  const std::size_t last = times.size() - 1;
  auto check_in_window = [&](std::size_t top) {
    if (top >= lowest_loaded_ + kWindowSteps && lowest_loaded_ <= last)
      throw std::logic_error("InterpolatedForwardStates: t rose above the window");
  };
  if (last == 0 || t >= times[last]) {
    check_in_window(last);
    load_down_to(last);
    return slot(last);
  }
  if (t <= times[0]) {
    load_down_to(0);
    return slot(0);
  }
  // The interval [t_i, t_i+1] holding t, searched from the last one (downwards in the sweep, upwards rarely).
  while (interval_ > 0 && times[interval_] > t) --interval_;
  while (interval_ + 1 < last && times[interval_ + 1] <= t) ++interval_;
  const std::size_t i = interval_;
  if (t == times[i]) {
    check_in_window(i);
    load_down_to(i);
    return slot(i);
  }
  // The four nodes: i - 1 .. i + 2 clamped to the run, moved down by one if the top node is an outer node too
  // close to its neighbour.
  const std::size_t count = std::min<std::size_t>(kNodes, last + 1);
  std::size_t first = std::min<std::size_t>(i > 0 ? i - 1 : 0, last + 1 - count);
  const std::size_t top = first + count - 1;
  if (count == kNodes && first > 0 && top > i + 1 &&
      times[top] - times[top - 1] < kCloseNodes * (times[i + 1] - times[i]))
    --first;
  check_in_window(first + count - 1);
  load_down_to(first);
  std::array<double, kNodes> weight{};
  for (std::size_t j = 0; j < count; ++j) {
    double w = 1.0;
    for (std::size_t k = 0; k < count; ++k)
      if (k != j) w *= (t - times[first + k]) / (times[first + j] - times[first + k]);
    weight[j] = w;
  }
  auto combine = [&](std::vector<double> assembly::State::*field) {
    std::vector<double>& out = interpolated_.*field;
    std::fill(out.begin(), out.end(), 0.0);
    for (std::size_t j = 0; j < count; ++j) {
      const std::vector<double>& node = slot(first + j).*field;
      for (std::size_t c = 0; c < out.size(); ++c) out[c] += weight[j] * node[c];
    }
  };
  combine(&assembly::State::q);
  combine(&assembly::State::v);
  combine(&assembly::State::a);
  combine(&assembly::State::lambda);
  return interpolated_;
}

}  // namespace flexadj::adjoint
