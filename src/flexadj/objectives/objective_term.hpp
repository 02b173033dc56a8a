#pragma once
// A term of an objective on the discrete trajectory: on one coordinate (or its rate), on a sensor of a body
// (position or velocity of a body point, angular velocity, a body-fixed direction), or on a control signal.
#include <array>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "flexadj/functions/control_signal.hpp"
#include "flexadj/functions/expression.hpp"

namespace flexadj::objectives {

struct ObjectiveTerm {
  enum class Kind {
    FinalValue,   // weight * x(t_N)
    FinalSquare,  // weight/2 * (x(t_N) - target)^2
    Tracking,     // weight/2 * integral of (x(t) - reference(t))^2 dt
    Penalty,      // weight/2 * integral of (max(0, x - upper)^2 + max(0, lower - x)^2) dt  (C1 exterior penalty)
    ControlEffort, // weight/2 * integral of u(t)^2 dt for the control signal `control`
    FinalTime,     // weight * t_N: the final time (implicit, integrator.end_condition, or free)
    StepSum        // sum_n step_weights[n] * x(t_n): a path constraint's values weighted by their multipliers
  };
  // Coordinates: Position (q) or Velocity (dq/dt). Sensors: Position / Velocity of the body point, the
  // AngularVelocity (global axes), the Direction: the body-fixed unit vector in global axes, or the body's
  // Momentum m v_c and AngularMomentum about its centre of mass, R J Omega (global axes): the end momentum of
  // Schubert et al. 2024, eq. (10e), with its dependence on the mass parameters. Acceleration: a coordinate's a_n
  // of the discrete state (generalized-alpha and HHT; Bestle and Eberhard 1992's terms in z-dot), coordinates only.
  enum class Quantity { Position, Velocity, AngularVelocity, Direction, Momentum, AngularMomentum, Acceleration };
  Kind kind = Kind::FinalValue;
  Quantity quantity = Quantity::Position;
  long long coordinate = 0;  // global coordinate id
  long long relative_to = -1;  // if >= 0, the term is on x = q[coordinate] - q[relative_to] (a joint angle)
  // A sensor instead of a coordinate if sensor_body >= 0: component sensor_component (0, 1, 2 = x, y, z, global
  // axes) of the quantity at body point sensor_point (body frame; Direction: the body-frame unit vector).
  int sensor_body = -1;
  std::array<double, 3> sensor_point{0.0, 0.0, 0.0};
  int sensor_component = 0;
  // Momentum sensors: the force element carrying the body's mass and inertia (BodyInertia), whose parameters
  // "mass", "inertia_xx" ... "inertia_yz" the quantity reads.
  int inertia_element = -1;
  bool on_momentum() const { return quantity == Quantity::Momentum || quantity == Quantity::AngularMomentum; }
  bool on_acceleration() const { return quantity == Quantity::Acceleration; }
  double weight = 1.0;
  double target = 0.0;
  functions::Expression reference;
  // Tracking of measured data: if set, the reference is this signal instead of `reference`.
  std::shared_ptr<const functions::ControlSignal> reference_signal;
  double reference_at(double t) const { return reference_signal ? reference_signal->value(t) : reference(t); }
  // The same for a forward-AD time (its derivative: the reference's rate).
  template <class S>
  S reference_at(const S& t) const {
    return reference_signal ? reference_signal->value(t) : reference.evaluate(t);
  }
  // Terms on the states (not on a control signal or the final time alone).
  bool on_states() const { return kind != Kind::ControlEffort && kind != Kind::FinalTime; }
  double lower = -std::numeric_limits<double>::infinity(), upper = std::numeric_limits<double>::infinity();
  std::string control;  // ControlEffort
  // StepSum: one weight per step n = 0 .. N (shared: copies of the term do not copy the weights).
  std::shared_ptr<const std::vector<double>> step_weights;
};

}  // namespace flexadj::objectives
