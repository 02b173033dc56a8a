#pragma once
// The forward states at the continuous adjoint's own times (Bestle and Eberhard 1992, sec. 4: the adjoint is
// integrated backwards on its own steps and the stored forward trajectory is interpolated, there by
// Aitken-Neville on the multistep polynomial). Here: the cubic through the four stored steps around t, for q, v,
// a and lambda alike, evaluated in Lagrange form (the polynomial Aitken-Neville's scheme builds, with the weights
// computed once per time for all components). Chosen over piecewise cubic Hermite because a and lambda have no
// stored derivative, so one rule serves all four fields; its error O(h^4) is below the forward scheme's O(h^2).
// The trajectory is read once, backwards; only a window of kWindowSteps stored steps is kept.
#include <array>
#include <functional>
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

class InterpolatedForwardStates {
 public:
  static constexpr int kNodes = 4;        // cubic
  static constexpr int kWindowSteps = 6;  // the kNodes nodes and two spare
  // visit(n, state) is called once for every stored step, n decreasing, as the step enters the window (the sweep
  // sums J there). shape: a state of the right sizes.
  InterpolatedForwardStates(storage::Trajectory& trajectory, const assembly::State& shape,
                            std::function<void(std::size_t, const assembly::State&)> visit);
  // The state (q, v, a, lambda) at t in [t_0, t_N]; at a stored time the stored state itself. Times must not
  // rise (or only within the window's spare steps): a stored step that has left the window is a std::logic_error.
  // The reference is valid until the next call.
  const assembly::State& at(double t);
  // Reads the steps not read yet (down to step 0), so that visit() has seen every step.
  void read_remaining();

 private:
  const assembly::State& slot(std::size_t step) const { return window_[step % kWindowSteps]; }
  void load_down_to(std::size_t step);

  storage::Trajectory& trajectory_;
  std::function<void(std::size_t, const assembly::State&)> visit_;
  std::array<assembly::State, kWindowSteps> window_;
  std::size_t lowest_loaded_;  // the window holds lowest_loaded_ .. lowest_loaded_ + kWindowSteps - 1 (at most N)
  std::size_t interval_;       // the last interval [t_i, t_i+1] found (searched downwards from it)
  assembly::State interpolated_;
};

}  // namespace flexadj::adjoint
