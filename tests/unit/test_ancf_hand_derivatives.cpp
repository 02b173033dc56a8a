// The ANCF elements' hand-written derivatives (ancf_cable_strain_derivatives.hpp, ancf_parameter_partials.hpp)
// against the plain AD pass over their templated residual kernels (make_ancf_gradient_deficient_plain_ad,
// make_ancf_full_beam_plain_ad), on random states. Gradient-deficient element: planar and spatial, simple and exact
// curvature, straight references (the spatial curvature vector) and curved ones (the scalar curvature, also at a
// straight state where it and its derivatives are zero), damping on and off; residual, applied residual, Newton
// matrix, the adjoint's three Jacobians, the transposed products and the parameter partials (every parameter
// wanted, one, some). Fully parameterised element: the parameter partials and the adjoint's kept Jacobians (with
// the residual, Newton matrix and transposed products), on straight and distorted references, damping on and off. All agree to 1e-12 relative to the largest entry of each.
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

struct RandomStates {
  std::mt19937 generator{2026};
  std::uniform_real_distribution<double> uniform{-1.0, 1.0};

  // Nodes (r_A, r'_A, r_B, r'_B) of an element of length L along the x axis (exactly straight: r'' = 0), bent by
  // `bend` (random slopes and offsets of that size) and moved rigidly by a random offset if `shift`.
  Vector nodes(int dim, double L, double bend, bool shift) {
    Vector q(4 * dim, 0.0);
    q[dim] = 1.0;
    q[2 * dim] = L;
    q[3 * dim] = 1.0;
    for (double& x : q) x += bend * uniform(generator);
    if (shift) {
      Vector offset(dim);
      for (double& x : offset) x = uniform(generator);
      for (int k : {0, 2})
        for (int i = 0; i < dim; ++i) q[k * dim + i] += offset[i];
    }
    return q;
  }
  Vector vector(int n, double scale) {
    Vector x(n);
    for (double& value : x) value = scale * uniform(generator);
    return x;
  }
};

// A section of order-one constants, or the flexible pendulum's (meshes/ancf_pendulum.yaml).
elements::AncfElementData element_data(const Vector& reference, double L, bool simple, bool damping, bool pendulum) {
  elements::AncfElementData data;
  data.section.youngs_modulus = pendulum ? 0.7e6 : 1.3;
  data.section.density = pendulum ? 5540.0 : 1.1;
  data.section.area = pendulum ? 0.0018 : 0.9;
  data.section.I3 = pendulum ? 1.215e-8 : 0.7;
  data.damping_time = damping ? (pendulum ? 0.01 : 0.4) : 0.0;
  data.length = L;
  data.reference.fill(0.0);
  for (std::size_t i = 0; i < reference.size(); ++i) data.reference[i] = reference[i];
  data.simple_curvature = simple;
  return data;
}

void compare_residuals_and_jacobians(const model::ForceElement& hand, const model::ForceElement& ad, const Vector& q,
                                     const Vector& v, const Vector& a, const Vector& mu, const std::string& label) {
  const int n = static_cast<int>(q.size());
  expect_same_residuals_and_jacobians(hand, ad, q.data(), v.data(), a.data(), n, label);

  expect_same_transposed_products(hand, ad, q.data(), v.data(), a.data(), mu.data(), n, label);
}

// Gradient-deficient: E, rho, A, I, damping_time, gravity x, y, z; fully parameterised: E, G, rho, A, I2, I3, J,
// k2, k3, damping_time, gravity x, y, z.
void compare_partials(const model::ForceElement& hand, const model::ForceElement& ad, const Vector& q, const Vector& v,
                      const Vector& a, const Vector& mu, const std::string& label) {
  const int np = static_cast<int>(ad.parameters().size());
  const bool full = np == 13;
  ASSERT_TRUE(np == 8 || full);
  const int damping = full ? 9 : 4, rho = full ? 2 : 1, gravity = full ? 10 : 5;
  ASSERT_EQ(ad.parameter_names()[damping], "damping_time");
  ASSERT_EQ(ad.parameter_names()[rho], "density");
  const model::ParameterMask one_stiffness = 1u << 3, one_damping = 1u << damping;
  const model::ParameterMask inertia_only = (1u << rho) | (1u << gravity);
  const model::ParameterMask some = full ? (1u << 1) | (1u << 5) | (1u << 7) | (1u << 12) : (1u << 0) | (1u << 2) | (1u << 6);
  expect_same_parameter_gradients(hand, ad, q.data(), v.data(), a.data(), mu.data(),
                                  {model::kAllParameters, one_stiffness, one_damping, inertia_only, some}, label);
}

TEST(AncfHandDerivatives, GradientDeficientMatchesPlainAD) {
  RandomStates random;
  int compared = 0;
  for (const int dim : {2, 3})
    for (const bool simple : {true, false})
      for (const bool curved_reference : {false, true})
        for (const bool damping : {false, true})
          for (const bool pendulum : {false, true}) {
            const double L = 0.4 + 0.5 * (1.0 + random.uniform(random.generator));
            const Vector reference = random.nodes(dim, L, curved_reference ? 0.2 : 0.0, true);
            const auto data = element_data(reference, L, simple, damping, pendulum);
            const elements::Point gravity{0.3, -9.81, 1.2};
            const auto hand = elements::make_ancf_gradient_deficient("element", dim, {0, 1}, data, gravity);
            const auto ad = elements::make_ancf_gradient_deficient_plain_ad("element", dim, {0, 1}, data, gravity);
            const int n = 4 * dim;
            for (int trial = 0; trial < 5; ++trial) {
              // Trial 0: the straight state along x (zero curvature; on a curved spatial reference the scalar
              // curvature's derivative is zero there).
              const Vector q = trial == 0 ? random.nodes(dim, L, 0.0, false) : random.nodes(dim, L, 0.3, true);
              const Vector v = random.vector(n, 1.0), a = random.vector(n, 10.0), mu = random.vector(n, 1.0);
              const std::string label = std::string(dim == 2 ? "planar" : "spatial") + (simple ? " simple" : " exact") +
                                        (curved_reference ? " curved" : " straight") + (damping ? " damped" : "") +
                                        (pendulum ? " pendulum" : " balanced") + " trial " + std::to_string(trial);
              compare_residuals_and_jacobians(*hand, *ad, q, v, a, mu, label);
              compare_partials(*hand, *ad, q, v, a, mu, label);
              ++compared;
            }
          }
  EXPECT_EQ(compared, 160);
}

// Nodes (r, r_x, r_y, r_z) of a fully parameterised element of length L along x with the unit triad, each entry
// moved by `distortion` at random.
Vector full_nodes(RandomStates& random, double L, double distortion) {
  Vector q(24, 0.0);
  for (int node = 0; node < 2; ++node) {
    q[12 * node] = node * L;
    for (int j = 0; j < 3; ++j) q[12 * node + 3 + 3 * j + j] = 1.0;
  }
  for (double& x : q) x += distortion * random.uniform(random.generator);
  return q;
}

TEST(AncfHandDerivatives, FullBeamMatchesPlainAD) {
  RandomStates random;
  int compared = 0;
  for (const bool distorted_reference : {false, true})
    for (const bool damping : {false, true})
      for (const bool steel : {false, true}) {
        const double L = 0.4 + 0.5 * (1.0 + random.uniform(random.generator));
        const Vector reference = full_nodes(random, L, distorted_reference ? 0.1 : 0.0);
        elements::AncfElementData data;
        auto& s = data.section;
        s.youngs_modulus = steel ? 2.1e11 : 1.3;
        s.shear_modulus = steel ? 8.1e10 : 0.9;
        s.density = steel ? 7850.0 : 1.1;
        s.area = steel ? 1e-4 : 0.8;
        s.I2 = steel ? 8.3e-10 : 0.6;
        s.I3 = steel ? 1.2e-9 : 0.7;
        s.J = steel ? 1.6e-9 : 0.5;
        s.shear_factor_2 = 0.85;
        s.shear_factor_3 = 0.8;
        data.damping_time = damping ? 0.02 : 0.0;
        data.length = L;
        for (int i = 0; i < 24; ++i) data.reference[i] = reference[i];
        const elements::Point gravity{0.3, -9.81, 1.2};
        const auto hand = elements::make_ancf_full_beam("element", {0, 1}, data, gravity);
        const auto ad = elements::make_ancf_full_beam_plain_ad("element", {0, 1}, data, gravity);
        for (int trial = 0; trial < 5; ++trial) {
          Vector q = full_nodes(random, L, trial == 0 ? 0.0 : 0.2);
          for (int node = 0; node < 2; ++node)
            for (int i = 0; i < 3; ++i) q[12 * node + i] += trial;  // a rigid shift
          const Vector v = random.vector(24, 1.0), a = random.vector(24, 10.0), mu = random.vector(24, 1.0);
          const std::string label = std::string("full") + (distorted_reference ? " distorted" : " straight") +
                                    (damping ? " damped" : "") + (steel ? " steel" : " balanced") + " trial " +
                                    std::to_string(trial);
          compare_residuals_and_jacobians(*hand, *ad, q, v, a, mu, label);
          compare_partials(*hand, *ad, q, v, a, mu, label);
          ++compared;
        }
      }
  EXPECT_EQ(compared, 40);
}

}  // namespace
}  // namespace flexadj::testing
