// The dual-quaternion beam's hand-written derivatives (dual_quaternion_derivatives.hpp,
// dual_quaternion_parameter_partials.hpp) against forward AD over its templated momenta and residual
// (make_dual_quaternion_beam_plain_ad), on random states: unit and non-unit dual quaternions, random velocities,
// accelerations and multipliers, damping on and off, a realistic section and one of order-one stiffnesses, a curved
// reference (nonzero k0), steps h > 0 and h = 0 (the Legendre transform). Residual, applied residual, Newton matrix
// and kept Jacobians of the semi-discrete equations, the discrete momenta with their Jacobians at q^{n+1}, the
// transposed products (in (q_mid, v_mid) and at either end) and the parameter partials (of the residual: all wanted,
// one, several; of the momenta) agree to 1e-12 relative to the largest entry of each.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "flexadj/elements/beam_builder.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/model/body.hpp"
#include "hand_derivative_checks.hpp"

namespace flexadj::testing {
namespace {

using Vector = std::vector<double>;
constexpr int n = 16;

// A section of the very flexible beam's kind (docs/results.md), or (balanced) one of order-one weights throughout.
elements::BeamSectionData section(bool damping, bool balanced) {
  elements::BeamSectionData s;
  s.youngs_modulus = balanced ? 1.3 : 5.0e7;
  s.shear_modulus = balanced ? 0.9 : 1.85e7;
  s.density = balanced ? 1.1 : 1000.0;
  s.area = balanced ? 1.2 : 0.0025;
  s.I2 = balanced ? 0.8 : 5.2e-7;
  s.I3 = balanced ? 1.4 : 6.1e-7;
  s.J = balanced ? 1.1 : 9.0e-7;
  s.shear_factor_2 = 0.85;
  s.shear_factor_3 = 0.8;
  s.shear_viscosity = damping ? (balanced ? 0.7 : 0.1) : 0.0;
  s.bulk_viscosity = damping ? (balanced ? 0.3 : 0.01) : 0.0;
  s.rotary = {s.I2 + s.I3, s.I2, 1.1 * s.I3};
  return s;
}

struct RandomStates {
  std::mt19937 generator{2026};
  std::uniform_real_distribution<double> uniform{-1.0, 1.0};

  std::array<double, 4> unit_quaternion() {
    std::array<double, 4> e;
    double norm = 0.0;
    for (double& x : e) {
      x = uniform(generator);
      norm += x * x;
    }
    for (double& x : e) x /= std::sqrt(norm);
    return e;
  }
  // Two nodes on the unit conditions about `length` apart, node B turned a little from node A; perturbed off them
  // by `off` (the ambient space).
  Vector nodes(double length, double off) {
    const auto ea = unit_quaternion();
    auto eb = ea;
    for (double& x : eb) x += 0.2 * uniform(generator);
    double norm = 0.0;
    for (double x : eb) norm += x * x;
    for (double& x : eb) x /= std::sqrt(norm);
    const model::Vec3<double> xa{uniform(generator), uniform(generator), uniform(generator)};
    const auto chord = model::multiply(model::rotation_from_euler_parameters(ea.data()),
                                       model::Vec3<double>{length, 0.1 * length * uniform(generator),
                                                           0.1 * length * uniform(generator)});
    const auto qa = elements::dual_quaternion_coordinates(xa, ea),
               qb = elements::dual_quaternion_coordinates(model::add(xa, chord), eb);
    Vector q(qa.begin(), qa.end());
    q.insert(q.end(), qb.begin(), qb.end());
    for (double& x : q) x += off * uniform(generator);
    return q;
  }
  Vector vector(double scale) {
    Vector x(n);
    for (double& value : x) value = scale * uniform(generator);
    return x;
  }
};

// The semi-discrete equations (residual, Newton matrix, kept Jacobians, transposed products, parameter partials).
void compare_semi_discrete(const model::ForceElement& hand, const model::ForceElement& ad, const Vector& q,
                           const Vector& v, const Vector& a, const Vector& mu, const std::string& label) {
  Vector r_hand(n), r_ad(n);
  expect_same_residuals_and_jacobians(hand, ad, q.data(), v.data(), a.data(), n, label);
  // The mass matrix alone (the variational integrator's velocity system).
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.7};
  Vector J_hand(n * n), J_ad(n * n);
  hand.residual_jacobian(q.data(), v.data(), a.data(), 0.0, mass_only, r_hand.data(), J_hand.data());
  ad.residual_jacobian(q.data(), v.data(), a.data(), 0.0, mass_only, r_ad.data(), J_ad.data());
  expect_close(r_hand, r_ad, label + " mass matrix r");
  expect_close(J_hand, J_ad, label + " mass matrix");

  expect_same_transposed_products(hand, ad, q.data(), v.data(), a.data(), mu.data(), n, label);
  const model::ParameterMask one = 1u << 0, several = (1u << 2) | (1u << 9) | (1u << 14) | (1u << 16);
  expect_same_parameter_gradients(hand, ad, q.data(), v.data(), a.data(), mu.data(),
                                  {model::kAllParameters, one, several}, label);
}

// A direction of the same length as x: its entries reversed and scaled (deterministic, not parallel to x).
Vector random_like(const Vector& x, double scale) {
  Vector y(x.rbegin(), x.rend());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = scale * (y[i] + 0.1 * static_cast<double>(i % 3));
  return y;
}

// The trapezoidal discrete momenta with their Jacobians at q^{n+1}, the transposed products and parameter partials
// (expect_same_discrete_momenta), and their second-order products.
void compare_momenta(const model::ForceElement& hand, const model::ForceElement& ad, const Vector& q_mid,
                     const Vector& v_mid, double h, const Vector& mu_minus, const Vector& mu_plus,
                     const std::string& label) {
  expect_same_discrete_momenta(hand, ad, q_mid, v_mid, h, mu_minus, mu_plus, label);
  const int np = static_cast<int>(ad.parameters().size());
  // Their derivatives along a direction of (q_mid, v_mid) and of every parameter (the second-order products; the
  // reference's nested pass over the state and the wanted parameters).
  const Vector q_dot = random_like(mu_minus, 0.7), v_dot = random_like(mu_plus, -1.3);
  Vector p_dot(np);
  for (int k = 0; k < np; ++k) p_dot[k] = (0.3 + 0.05 * k) * (ad.parameters()[k] == 0.0 ? 1.0 : ad.parameters()[k]);
  for (const model::ParameterMask mask : {model::kAllParameters, model::ParameterMask(1u << 3), model::ParameterMask(0)}) {
    Vector second[2][3];
    for (int which = 0; which < 2; ++which) {
      second[which][0].assign(n, 0.0);
      second[which][1].assign(n, 0.0);
      second[which][2].assign(np, 0.0);
      (which == 0 ? hand : ad)
          .add_discrete_momenta_second_order_products(q_mid.data(), v_mid.data(), 0.0, h, q_dot.data(), v_dot.data(),
                                                      p_dot.data(), 0.0, mu_minus.data(), mu_plus.data(),
                                                      second[which][0].data(), second[which][1].data(),
                                                      second[which][2].data(), mask);
    }
    const std::string what = label + " second-order, mask " + std::to_string(mask);
    expect_close(second[0][0], second[1][0], what + " q_mid");
    expect_close(second[0][1], second[1][1], what + " v_mid");
    expect_close(second[0][2], second[1][2], what + " parameters");
  }
}

TEST(DualQuaternionHandDerivatives, MatchPlainADOnRandomStates) {
  RandomStates random;
  int compared = 0;
  for (const int variant : {0, 1, 2, 3}) {
    const bool damping = variant % 2 == 1, balanced = variant >= 2;
    const double length = balanced ? 0.7 : 0.1;
    // A curved stress-free reference of its own (nonzero k0), then states off it.
    const Vector reference_q = random.nodes(length, 0.0);
    const auto reference = elements::dual_quaternion_beam_reference(reference_q.data());
    const elements::Point gravity{0.3, -9.81, 1.0};
    const auto hand = elements::make_dual_quaternion_beam("beam", {0, 1}, section(damping, balanced), reference,
                                                          gravity);
    const auto ad = elements::make_dual_quaternion_beam_plain_ad("beam", {0, 1}, section(damping, balanced),
                                                                 reference, gravity);
    for (const bool unit : {true, false})
      for (int trial = 0; trial < 3; ++trial) {
        const std::string label = std::string(balanced ? "balanced" : "realistic") +
                                  (damping ? " damped" : " undamped") + (unit ? " unit" : " non-unit") + " trial " +
                                  std::to_string(trial);
        const Vector q = random.nodes(length, unit ? 0.0 : 0.05);
        const Vector v = random.vector(1.0), a = random.vector(10.0), mu = random.vector(1.0);
        compare_semi_discrete(*hand, *ad, q, v, a, mu, label);
        const Vector mu_plus = random.vector(1.0);
        for (const double h : {1e-4, 0.01, 0.0})
          compare_momenta(*hand, *ad, q, v, h, mu, mu_plus, label + " h " + std::to_string(h));
        ++compared;
      }
  }
  EXPECT_EQ(compared, 24);
}

// The second-order pieces of the variational integrator's second-order adjoint (forward over forward AD of the
// trapezoidal momenta) against central differences of the first-order ones written out by hand, along a random
// direction e of (q_mid, v_mid) and of every parameter: the momenta's tangent against the differences of
// discrete_momenta; the derivatives of the transposed products and of the parameter partials (all parameters
// wanted, and one) against the differences of add_discrete_momenta_transposed_products and
// add_discrete_momenta_parameter_gradient. Relative step 1e-5; agreement to 1e-7 of each block's largest entry.
void expect_difference(const Vector& derivative, const Vector& plus, const Vector& minus, double step,
                       const std::string& what) {
  Vector difference(derivative.size());
  for (std::size_t i = 0; i < derivative.size(); ++i) difference[i] = (plus[i] - minus[i]) / (2.0 * step);
  const double tolerance = 1e-7 * max_abs(difference);
  for (std::size_t i = 0; i < derivative.size(); ++i)
    EXPECT_LE(std::abs(derivative[i] - difference[i]), tolerance)
        << what << " [" << i << "]: " << derivative[i] << " vs " << difference[i];
}

TEST(DualQuaternionHandDerivatives, SecondOrderMomentaMatchDifferencesOfFirstOrder) {
  RandomStates random;
  int compared = 0;
  for (const int variant : {0, 1, 2, 3}) {
    const bool damping = variant % 2 == 1, balanced = variant >= 2;
    const double length = balanced ? 0.7 : 0.1;
    const auto reference = elements::dual_quaternion_beam_reference(random.nodes(length, 0.0).data());
    const auto beam = elements::make_dual_quaternion_beam("beam", {0, 1}, section(damping, balanced), reference,
                                                          {0.3, -9.81, 1.0});
    const Vector p0 = beam->parameters();
    const int np = static_cast<int>(p0.size());
    const Vector q = random.nodes(length, 0.02), v = random.vector(1.0);
    const Vector mu_minus = random.vector(1.0), mu_plus = random.vector(1.0);
    const Vector q_dot = random.vector(1.0), v_dot = random.vector(1.0);
    Vector p_dot(np);
    for (int k = 0; k < np; ++k) p_dot[k] = (p0[k] == 0.0 ? 1.0 : std::abs(p0[k])) * random.uniform(random.generator);
    for (const double h : {1e-2, 1e-4, 0.0}) {
      const std::string label = std::string(balanced ? "balanced" : "realistic") +
                                (damping ? " damped" : " undamped") + " h " + std::to_string(h);
      // First-order pieces at x + s e.
      struct FirstOrder {
        Vector minus, plus, out_q, out_v, gradient;
      };
      auto first_order = [&](double s) {
        FirstOrder f{Vector(n), Vector(n), Vector(n, 0.0), Vector(n, 0.0), Vector(np, 0.0)};
        Vector qs(n), vs(n);
        for (int i = 0; i < n; ++i) {
          qs[i] = q[i] + s * q_dot[i];
          vs[i] = v[i] + s * v_dot[i];
        }
        for (int k = 0; k < np; ++k) beam->set_parameter(k, p0[k] + s * p_dot[k]);
        beam->discrete_momenta(qs.data(), vs.data(), 0.0, h, f.minus.data(), f.plus.data(), nullptr, nullptr);
        beam->add_discrete_momenta_transposed_products(qs.data(), vs.data(), 0.0, h, mu_minus.data(),
                                                       mu_plus.data(), f.out_q.data(), f.out_v.data());
        beam->add_discrete_momenta_parameter_gradient(qs.data(), vs.data(), 0.0, h, mu_minus.data(), mu_plus.data(),
                                                      f.gradient.data());
        for (int k = 0; k < np; ++k) beam->set_parameter(k, p0[k]);
        return f;
      };
      const double step = 1e-5;
      const FirstOrder up = first_order(step), down = first_order(-step);
      Vector minus_dot(n), plus_dot(n);
      beam->discrete_momenta_tangent(q.data(), v.data(), 0.0, h, q_dot.data(), v_dot.data(), p_dot.data(), 0.0,
                                     minus_dot.data(), plus_dot.data());
      expect_difference(minus_dot, up.minus, down.minus, step, label + " minus tangent");
      expect_difference(plus_dot, up.plus, down.plus, step, label + " plus tangent");
      for (const model::ParameterMask mask : {model::kAllParameters, model::ParameterMask(1u << 2)}) {
        Vector out_q(n, 0.0), out_v(n, 0.0), gradient(np, 0.0);
        beam->add_discrete_momenta_second_order_products(q.data(), v.data(), 0.0, h, q_dot.data(), v_dot.data(),
                                                         p_dot.data(), 0.0, mu_minus.data(), mu_plus.data(),
                                                         out_q.data(), out_v.data(), gradient.data(), mask);
        expect_difference(out_q, up.out_q, down.out_q, step, label + " second-order q_mid");
        expect_difference(out_v, up.out_v, down.out_v, step, label + " second-order v_mid");
        Vector wanted_up(np, 0.0), wanted_down(np, 0.0);
        for (int k = 0; k < np; ++k)
          if ((mask >> k) & 1u) {
            wanted_up[k] = up.gradient[k];
            wanted_down[k] = down.gradient[k];
          }
        expect_difference(gradient, wanted_up, wanted_down, step, label + " second-order parameters");
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 12);
}

}  // namespace
}  // namespace flexadj::testing
