// The spring-damper's and the body inertia's written-out derivatives (spring_damper.cpp, body_inertia.cpp) against
// the AD pass over their kernels (make_spring_damper_plain_ad, make_body_inertia_plain_ad), on random states:
// residual, applied residual, Newton matrix, the adjoint's three Jacobians, the transposed products and the
// parameter partials (every parameter wanted, one, some), and the bodies' discrete momenta of the variational
// integrators with their Jacobians, transposed products and parameter partials, to 1e-12 relative to the largest
// entry of each.
// Springs between planar and spatial point masses, ANCF nodes and ground points (with the ground on either side),
// damping on and off; point masses and planar rigid bodies, in and out of gravity. Springs on rigid bodies and
// spatial rigid bodies keep the AD pass: they are checked to be the plain AD element's results exactly.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "flexadj/elements/elements.hpp"
#include "hand_derivative_checks.hpp"

namespace flexadj::testing {
namespace {

using Vector = std::vector<double>;
using model::BodyKind;

struct Random : RandomDraws {
  Random() : RandomDraws(2611) {}
};

const char* kind_name(BodyKind kind) {
  switch (kind) {
    case BodyKind::Ground: return "ground";
    case BodyKind::PointMass2D: return "point mass 2D";
    case BodyKind::PointMass3D: return "point mass 3D";
    case BodyKind::PlanarRigid: return "planar rigid";
    case BodyKind::SpatialRigid: return "spatial rigid";
    case BodyKind::AncfPlanarNode: return "ANCF planar node";
    case BodyKind::AncfCableNode: return "ANCF cable node";
    default: return "other";
  }
}

// Coordinates of a body of `kind` near `position`, perturbed (ANCF slopes near the x axis; unit Euler parameters).
Vector coordinates(BodyKind kind, const Vector& position, Random& random) {
  const int n = model::coordinate_count(kind);
  Vector q = random.vector(n, 0.1);
  for (int i = 0; i < model::translation_count(kind); ++i) q[i] += position[i];
  if (kind == BodyKind::AncfPlanarNode) q[2] += 1.0;
  if (kind == BodyKind::AncfCableNode) q[3] += 1.0;
  if (kind == BodyKind::SpatialRigid) {
    q[3] += 1.0;
    double norm = 0.0;
    for (int i = 3; i < 7; ++i) norm += q[i] * q[i];
    for (int i = 3; i < 7; ++i) q[i] /= std::sqrt(norm);
  }
  return q;
}

void compare(const model::ForceElement& hand, const model::ForceElement& ad, const Vector& q, const Vector& v,
             const Vector& a, const Vector& mu, const std::string& label) {
  const std::size_t n = q.size();
  ASSERT_EQ(static_cast<std::size_t>(hand.coordinate_count()), n) << label;
  expect_same_residuals_and_jacobians(hand, ad, q.data(), v.data(), a.data(), n, label);
  expect_same_transposed_products(hand, ad, q.data(), v.data(), a.data(), mu.data(), n, label);
  expect_same_parameter_gradients(hand, ad, q.data(), v.data(), a.data(), mu.data(),
                                  {model::kAllParameters, model::ParameterMask(1u), model::ParameterMask(1u << 2),
                                   model::ParameterMask((1u << 1) | (1u << 4) | (1u << 8))},
                                  label);
}

TEST(SpringMassHandDerivatives, SpringDamperMatchesPlainAd) {
  Random random;
  const std::vector<std::array<BodyKind, 2>> pairs = {
      {BodyKind::PointMass2D, BodyKind::PointMass2D}, {BodyKind::Ground, BodyKind::PointMass2D},
      {BodyKind::PointMass2D, BodyKind::Ground},      {BodyKind::PointMass3D, BodyKind::PointMass3D},
      {BodyKind::Ground, BodyKind::PointMass3D},      {BodyKind::AncfPlanarNode, BodyKind::PointMass2D},
      {BodyKind::AncfCableNode, BodyKind::Ground},    {BodyKind::AncfCableNode, BodyKind::PointMass3D},
      {BodyKind::PlanarRigid, BodyKind::PointMass2D}, {BodyKind::SpatialRigid, BodyKind::Ground}};
  int cases = 0;
  for (const auto& kinds : pairs)
    for (const double damping : {0.0, 3.7})
      for (int sample = 0; sample < 3; ++sample) {
        const bool planar = kinds[0] == BodyKind::PointMass2D || kinds[1] == BodyKind::PointMass2D ||
                            kinds[0] == BodyKind::PlanarRigid || kinds[0] == BodyKind::AncfPlanarNode;
        elements::SpringDamperData data;
        data.stiffness = 1.0e3 * (1.0 + 0.5 * random.uniform(random.generator));
        data.damping = damping;
        data.free_length = 0.8 + 0.1 * random.uniform(random.generator);
        for (int i = 0; i < (planar ? 2 : 3); ++i) {
          data.point_a[i] = 0.3 * random.uniform(random.generator);
          data.point_b[i] = 0.3 * random.uniform(random.generator);
        }
        const Vector position_a{0.0, 0.0, 0.0}, position_b{0.9, 0.4, planar ? 0.0 : -0.3};
        Vector q = coordinates(kinds[0], position_a, random);
        const Vector qb = coordinates(kinds[1], position_b, random);
        q.insert(q.end(), qb.begin(), qb.end());
        const int n = static_cast<int>(q.size());
        const Vector v = random.vector(n, 2.0), a = random.vector(n, 5.0), mu = random.vector(n, 1.0);
        const auto hand = elements::make_spring_damper("s", {0, 1}, kinds, data);
        const auto ad = elements::make_spring_damper_plain_ad("s", {0, 1}, kinds, data);
        compare(*hand, *ad, q, v, a, mu,
                std::string(kind_name(kinds[0])) + " - " + kind_name(kinds[1]) + ", damping " +
                    std::to_string(damping) + ", sample " + std::to_string(sample));
        ++cases;
      }
  EXPECT_EQ(cases, 60);
}

TEST(SpringMassHandDerivatives, BodyInertiaMatchesPlainAd) {
  Random random;
  int cases = 0;
  for (const BodyKind kind :
       {BodyKind::PointMass2D, BodyKind::PointMass3D, BodyKind::PlanarRigid, BodyKind::SpatialRigid})
    for (const bool gravity : {false, true})
      for (int sample = 0; sample < 3; ++sample) {
        model::Body body;
        body.name = "b";
        body.kind = kind;
        body.mass = 2.0 + random.uniform(random.generator);
        body.inertia = {0.4, 0.5, 0.7 + 0.1 * random.uniform(random.generator), 0.01, -0.02, 0.03};
        const elements::Point g = gravity ? elements::Point{0.3, -9.81, kind == BodyKind::PointMass3D ? 1.2 : 0.0}
                                          : elements::Point{0.0, 0.0, 0.0};
        const Vector q = coordinates(kind, {0.2, -0.1, 0.4}, random);
        const int n = static_cast<int>(q.size());
        const Vector v = random.vector(n, 2.0), a = random.vector(n, 5.0), mu = random.vector(n, 1.0);
        const auto hand = elements::make_body_inertia(body, 0, g);
        const auto ad = elements::make_body_inertia_plain_ad(body, 0, g);
        const std::string label =
            std::string(kind_name(kind)) + (gravity ? ", gravity" : "") + ", sample " + std::to_string(sample);
        compare(*hand, *ad, q, v, a, mu, label);
        // The discrete momenta at a step's midpoint (h > 0) and the Legendre transform (h = 0).
        const Vector mu_plus = random.vector(n, 1.5);
        for (const double h : {1.0e-3, 0.37, 0.0})
          expect_same_discrete_momenta(*hand, *ad, q, v, h, mu, mu_plus, label + ", h " + std::to_string(h),
                                       h > 0.0);
        ++cases;
      }
  EXPECT_EQ(cases, 24);
}

}  // namespace
}  // namespace flexadj::testing
