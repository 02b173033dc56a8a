#pragma once
// The objective terms as templated kernels of their local inputs, differentiated by Sacado like every other
// component (docs/design.md): the measured quantity x of a term from its inputs (a coordinate, the difference of
// two coordinates, or a sensor of a body from the body's q and v), and the term's integrand h(x, t) and terminal
// value S(x), so that J = sum_n w_n h(x_n, t_n) + S(x_N) with the trapezoidal weights w_n. No derivative is
// written by hand: Objective::add_partials evaluates the same kernels with forward-AD scalars.
#include <Sacado_No_Kokkos.hpp>

#include <array>
#include <stdexcept>

#include "flexadj/model/body.hpp"
#include "flexadj/objectives/objective_term.hpp"

namespace flexadj::objectives::kernels {

// The inertia parameters a momentum sensor reads after the body's q and v, in BodyInertia's order.
constexpr int kInertiaInputs = 7;  // mass, then the inertia tensor xx, yy, zz, xy, xz, yz about the centre of mass
inline const char* const kInertiaParameterNames[kInertiaInputs] = {"mass",       "inertia_xx", "inertia_yy",
                                                                   "inertia_zz", "inertia_xy", "inertia_xz",
                                                                   "inertia_yz"};

// The most coordinates of a body kind (model/body.hpp: a full ANCF node has 12, a dual-quaternion node 8).
constexpr int kMaxBodyCoordinates = 12;
static_assert(model::coordinate_count(model::BodyKind::AncfFullNode) == kMaxBodyCoordinates &&
                  model::coordinate_count(model::BodyKind::DualQuaternionNode) <= kMaxBodyCoordinates,
              "a sensor's body must fit the term's AD type");

// x from the term's inputs: for a coordinate term one input (q_i, v_i or a_i), for a relative term two (its coordinate
// and the one it is relative to), for a sensor the body's q (first nb inputs) and v (next nb), for a momentum
// sensor then the kInertiaInputs parameters, for an acceleration sensor the body's a (nb more).
template <class S>
S measured_quantity(const ObjectiveTerm& term, model::BodyKind body_kind, const S* inputs) {
  if (term.sensor_body < 0) return term.relative_to < 0 ? inputs[0] : inputs[0] - inputs[1];
  const S* q = inputs;
  const S* v = inputs + model::coordinate_count(body_kind);
  const S* inertia = v + model::coordinate_count(body_kind);
  model::Vec3<S> x;
  switch (term.quantity) {
    case ObjectiveTerm::Quantity::Momentum: {  // m v_c (the body's coordinates are those of its centre of mass)
      const model::Vec3<S> vc = model::point_velocity(body_kind, q, v, model::Vec3<double>{0.0, 0.0, 0.0});
      x = {inertia[0] * vc[0], inertia[0] * vc[1], inertia[0] * vc[2]};
      break;
    }
    case ObjectiveTerm::Quantity::AngularMomentum: {  // R J Omega (body-frame J and Omega = R^T omega)
      const auto R = model::body_rotation(body_kind, q);
      const model::Vec3<S> omega = model::multiply_transposed(R, model::angular_velocity(body_kind, q, v));
      const S* J = inertia + 1;
      const model::Vec3<S> L{J[0] * omega[0] + J[3] * omega[1] + J[4] * omega[2],
                             J[3] * omega[0] + J[1] * omega[1] + J[5] * omega[2],
                             J[4] * omega[0] + J[5] * omega[1] + J[2] * omega[2]};
      x = model::multiply(R, L);
      break;
    }
    case ObjectiveTerm::Quantity::Position: x = model::point_position(body_kind, q, term.sensor_point); break;
    case ObjectiveTerm::Quantity::Velocity: x = model::point_velocity(body_kind, q, v, term.sensor_point); break;
    case ObjectiveTerm::Quantity::AngularVelocity: x = model::angular_velocity(body_kind, q, v); break;
    case ObjectiveTerm::Quantity::Direction:
      x = model::multiply(model::body_rotation(body_kind, q), term.sensor_point);
      break;
    case ObjectiveTerm::Quantity::Acceleration: {
      // The time derivative of the point's velocity: d/dtau of point_velocity(q + tau v, v + tau a) at tau = 0, as
      // v and a are the rates of q and v (for rotations too: their coordinates' rates).
      using Rate = Sacado::Fad::SFad<S, 1>;
      const int nb = model::coordinate_count(body_kind);
      const S* a = v + nb;
      std::array<Rate, kMaxBodyCoordinates> q_tau, v_tau;
      for (int k = 0; k < nb; ++k) {
        q_tau[k] = Rate(1, q[k]);
        q_tau[k].fastAccessDx(0) = v[k];
        v_tau[k] = Rate(1, v[k]);
        v_tau[k].fastAccessDx(0) = a[k];
      }
      const model::Vec3<Rate> velocity =
          model::point_velocity(body_kind, q_tau.data(), v_tau.data(), term.sensor_point);
      x = {velocity[0].dx(0), velocity[1].dx(0), velocity[2].dx(0)};
      break;
    }
  }
  return x[term.sensor_component];
}

// max(0, x - upper) or min(0, x - lower): the excess of the C1 exterior penalty (0 inside the bounds).
template <class S>
S excess(const ObjectiveTerm& term, const S& x) {
  const double value = Sacado::ScalarValue<S>::eval(x);
  if (value > term.upper) return x - term.upper;
  if (value < term.lower) return x - term.lower;
  return S(0.0);
}

// The residual r of a term that is a weighted square w/2 r^2 (kernels::least_squares): tracking x - reference(t),
// penalty excess(x), control effort u, final_square x - target (its t is not read).
template <class S, class T = double>
S residual(const ObjectiveTerm& term, const S& x, const T& t) {
  switch (term.kind) {
    case ObjectiveTerm::Kind::Tracking: return x - term.reference_at(t);
    case ObjectiveTerm::Kind::Penalty: return excess(term, x);
    case ObjectiveTerm::Kind::FinalSquare: return x - term.target;
    default: return x;  // ControlEffort
  }
}

// The term is w/2 r^2 (its integrand or its terminal value): the terms the Gauss-Newton product treats.
inline bool least_squares(const ObjectiveTerm& term) {
  return term.kind == ObjectiveTerm::Kind::Tracking || term.kind == ObjectiveTerm::Kind::Penalty ||
         term.kind == ObjectiveTerm::Kind::ControlEffort || term.kind == ObjectiveTerm::Kind::FinalSquare;
}

// The integrand h(x, t) (u: the control value for control effort). T: double, or a forward-AD time for dh/dt.
template <class S, class T = double>
S integrand(const ObjectiveTerm& term, const S& x, const T& t) {
  switch (term.kind) {
    case ObjectiveTerm::Kind::Tracking:
    case ObjectiveTerm::Kind::Penalty:
    case ObjectiveTerm::Kind::ControlEffort: {
      const S e = residual(term, x, t);
      return 0.5 * term.weight * e * e;
    }
    default: return S(0.0);
  }
}

// The terminal value S(x) at the last step.
template <class S>
S terminal(const ObjectiveTerm& term, const S& x) {
  switch (term.kind) {
    case ObjectiveTerm::Kind::FinalValue: return term.weight * x;
    case ObjectiveTerm::Kind::FinalSquare: {
      const S e = residual(term, x, 0.0);
      return 0.5 * term.weight * e * e;
    }
    default: return S(0.0);
  }
}

// The value of a StepSum term at step n, w_n x (0 for the other kinds): no quadrature weight, no time.
template <class S>
S step_term(const ObjectiveTerm& term, const S& x, std::size_t n) {
  return term.kind == ObjectiveTerm::Kind::StepSum ? (*term.step_weights)[n] * x : S(0.0);
}

}  // namespace flexadj::objectives::kernels
