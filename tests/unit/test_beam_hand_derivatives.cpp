// The geometrically exact beam's hand-written derivatives (beam_strain_derivatives.hpp) against the plain AD pass
// over its templated residual kernel (make_geometrically_exact_beam_plain_ad), on random states: random positions,
// unit-norm and non-unit Euler parameters, e_B on either side of e_A (the sign choice of the relative rotation),
// near-zero relative rotations (the series branch of the log map), random velocities and accelerations, damping on
// and off, nonzero reference strains. Residual, Newton matrix, the adjoint's three Jacobians, the transposed
// products, the parameter partials and the second-order products along random directions (of the state and of
// every parameter) agree to 1e-12 relative to the largest entry of each.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "flexadj/elements/elements.hpp"
#include "hand_derivative_checks.hpp"

namespace flexadj::testing {
namespace {

using Vector = std::vector<double>;

// A steel-like section, or (balanced) one whose six stiffnesses are all of order one, so that the curvatures'
// derivatives are not hidden under the 1e-12 of the axial and shear terms.
elements::BeamSectionData section(bool damping, bool balanced = false) {
  elements::BeamSectionData s;
  if (balanced) {
    s.youngs_modulus = 1.3;
    s.shear_modulus = 0.9;
    s.density = 1.1;
    s.area = 1.2;
    s.I2 = 0.8;
    s.I3 = 1.4;
    s.J = 1.1;
    s.shear_factor_2 = 0.85;
    s.shear_factor_3 = 0.8;
    s.shear_viscosity = damping ? 0.7 : 0.0;
    s.bulk_viscosity = damping ? 0.3 : 0.0;
    s.rotary = {s.I2 + s.I3, s.I2, 1.1 * s.I3};
    return s;
  }
  s.youngs_modulus = 2.1e5;
  s.shear_modulus = 8.0e4;
  s.density = 7.85;
  s.area = 0.01;
  s.I2 = 8.3e-6;
  s.I3 = 1.2e-5;
  s.J = 1.6e-5;
  s.shear_factor_2 = 0.85;
  s.shear_factor_3 = 0.8;
  s.shear_viscosity = damping ? 50.0 : 0.0;
  s.bulk_viscosity = damping ? 5.0 : 0.0;
  s.rotary = {s.I2 + s.I3, s.I2, 1.1 * s.I3};
  return s;
}

struct RandomStates {
  std::mt19937 generator{2026};
  std::uniform_real_distribution<double> uniform{-1.0, 1.0};

  std::array<double, 4> euler_parameters(bool unit) {
    std::array<double, 4> e;
    double n = 0.0;
    for (double& x : e) {
      x = uniform(generator);
      n += x * x;
    }
    const double scale = (unit ? 1.0 : 0.6 + 0.4 * (1.0 + uniform(generator))) / std::sqrt(n);
    for (double& x : e) x *= scale;
    return e;
  }
  // kind 0: generic; 1: e_B = -(e_A + small) (near-zero relative rotation, opposite sign); 2: e_B near e_A.
  std::array<double, 14> state(bool unit, int kind) {
    std::array<double, 14> q;
    const auto ea = euler_parameters(unit);
    auto eb = euler_parameters(unit);
    if (kind > 0)
      for (int i = 0; i < 4; ++i) eb[i] = (kind == 1 ? -1.0 : 1.0) * (ea[i] + 1e-3 * uniform(generator));
    for (int i = 0; i < 3; ++i) {
      q[i] = uniform(generator);
      q[7 + i] = q[i] + (i == 0 ? 0.5 : 0.0) + 0.3 * uniform(generator);
    }
    for (int i = 0; i < 4; ++i) {
      q[3 + i] = ea[i];
      q[10 + i] = eb[i];
    }
    return q;
  }
  Vector vector(double scale) {
    Vector x(14);
    for (double& value : x) value = scale * uniform(generator);
    return x;
  }
};

// A direction of the state and of the parameters (the second-order products).
struct Direction {
  Vector q, v, a, p;
};

void compare(const model::ForceElement& hand, const model::ForceElement& ad, const double* q, const Vector& v,
             const Vector& a, const Vector& mu, const Direction& e, const std::string& label) {
  constexpr int n = 14;
  expect_same_residuals_and_jacobians(hand, ad, q, v.data(), a.data(), n, label);

  expect_same_transposed_products(hand, ad, q, v.data(), a.data(), mu.data(), n, label);

  const int np = static_cast<int>(ad.parameters().size());
  const model::ParameterMask one = 1u << 4, three = (1u << 14) | (1u << 19) | (1u << 22);
  for (const model::ParameterMask mask : {model::kAllParameters, one, three}) {
    Vector g_hand(np, 0.0), g_ad(np, 0.0);
    hand.add_parameter_gradient(q, v.data(), a.data(), 0.0, mu.data(), g_hand.data(), mask);
    ad.add_parameter_gradient(q, v.data(), a.data(), 0.0, mu.data(), g_ad.data(), mask);
    expect_close(g_hand, g_ad, label + " parameter partials, mask " + std::to_string(mask));
    expect_same_second_order_products(hand, ad, q, v.data(), a.data(), e.q.data(), e.v.data(), e.a.data(),
                                      e.p.data(), mu.data(), n, mask, label);
  }
}

TEST(BeamHandDerivatives, MatchPlainADOnRandomStates) {
  RandomStates random;
  int compared = 0;
  for (const int variant : {0, 1, 2}) {
    const bool damping = variant > 0, balanced = variant == 2;
    for (const bool unit : {true, false}) {
      // A stress-free reference of its own (nonzero reference stretch and curvature), then perturbed further.
      const auto reference_q = random.state(true, 0);
      const elements::BeamReference reference = elements::beam_reference(reference_q.data());
      const auto hand = elements::make_geometrically_exact_beam("beam", {0, 1}, section(damping, balanced), reference,
                                                                {0.3, -9.81, 1.0});
      const auto ad = elements::make_geometrically_exact_beam_plain_ad("beam", {0, 1}, section(damping, balanced), reference,
                                                                       {0.3, -9.81, 1.0});
      for (int k = 15; k < 21; ++k) {  // stretch0_1..3, curvature0_1..3
        const double value = hand->parameters()[k] + 0.05 * random.uniform(random.generator);
        hand->set_parameter(k, value);
        ad->set_parameter(k, value);
      }
      ASSERT_EQ(hand->parameter_names()[15], "stretch0_1");
      ASSERT_EQ(hand->parameter_names()[20], "curvature0_3");
      for (int kind = 0; kind < 3; ++kind)
        for (int trial = 0; trial < 4; ++trial) {
          const auto q = random.state(unit, kind);
          const Vector v = random.vector(1.0), a = random.vector(10.0), mu = random.vector(1.0);
          Direction e{random.vector(1.0), random.vector(1.0), random.vector(10.0), {}};
          for (const double p : hand->parameters())
            e.p.push_back((p == 0.0 ? 1.0 : std::abs(p)) * random.uniform(random.generator));
          compare(*hand, *ad, q.data(), v, a, mu, e,
                  std::string(balanced ? "balanced" : damping ? "damped" : "undamped") + (unit ? " unit" : " non-unit") + " kind " +
                      std::to_string(kind) + " trial " + std::to_string(trial));
          ++compared;
        }
    }
  }
  EXPECT_EQ(compared, 72);
}

// Strains and resultants of the hand path against the templated strains() (beam_strains) at random states.
TEST(BeamHandDerivatives, ResultantsMatchStrains) {
  RandomStates random;
  const auto reference_q = random.state(true, 0);
  const elements::BeamReference reference = elements::beam_reference(reference_q.data());
  const auto beam =
      elements::make_geometrically_exact_beam("beam", {0, 1}, section(false), reference, {0.0, 0.0, 0.0});
  const elements::BeamSectionData s = section(false);
  const std::array<double, 6> stiffness{s.youngs_modulus * s.area, s.shear_factor_2 * s.shear_modulus * s.area,
                                        s.shear_factor_3 * s.shear_modulus * s.area, s.shear_modulus * s.J,
                                        s.youngs_modulus * s.I2, s.youngs_modulus * s.I3};
  for (int trial = 0; trial < 8; ++trial) {
    const auto q = random.state(trial % 2 == 0, trial % 3);
    const Vector v(14, 0.0);
    std::array<double, 6> out;
    beam->resultants(q.data(), v.data(), out.data());
    const auto eps = elements::beam_strains(q.data(), reference);
    for (int k = 0; k < 6; ++k) EXPECT_NEAR(out[k], stiffness[k] * eps[k], 1e-12 * std::abs(stiffness[k])) << k;
  }
}

}  // namespace
}  // namespace flexadj::testing
