// The planar joints' written-out derivatives (constraints/planar_joint_derivatives.hpp) against the AD passes of
// the same joint (make_joint_plain_ad): value (to the bit), C_q and lambda . C_qq (jacobian_and_hessian and
// jacobian), dc/ds and d2c/ds2 (time_derivatives), and the parameter partials d/dp [lambda . (C_q mu_r) + mu_c . c]
// at the position level (every parameter wanted, one, some; the velocity and acceleration levels keep the AD pass
// and must equal it), to 1e-12 of each block's largest entry. Spherical, revolute, prismatic and fixed joints between
// ground, point masses and planar rigid bodies, on random states and random geometry (joint points with z
// components, so that the prismatic row's constant z part is exercised).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "flexadj/constraints/constraints.hpp"
#include "hand_derivative_checks.hpp"

namespace flexadj::testing {
namespace {

using Vector = std::vector<double>;
using constraints::JointKind;
using model::BodyKind;

struct Random : RandomDraws {
  Random() : RandomDraws(4127) {}
  constraints::Point point(double scale) {
    const Vector x = vector(3, scale);
    return {x[0], x[1], x[2]};
  }
};

const char* name_of(JointKind kind) {
  switch (kind) {
    case JointKind::Spherical: return "spherical";
    case JointKind::Revolute: return "revolute";
    case JointKind::Prismatic: return "prismatic";
    case JointKind::Fixed: return "fixed";
  }
  return "joint";
}

const char* name_of(BodyKind kind) {
  return kind == BodyKind::Ground ? "ground" : kind == BodyKind::PointMass2D ? "point mass" : "rigid body";
}

// with_rigid_body: a body of the joint rotates, so that its point's parameters act at every level.
void compare(const model::Constraint& hand, const model::Constraint& ad, bool with_rigid_body, Random& random,
             const std::string& label) {
  const int n = hand.coordinate_count(), m = hand.equation_count();
  ASSERT_EQ(n, ad.coordinate_count());
  ASSERT_EQ(m, ad.equation_count());
  const Vector q = random.vector(n, 2.0), v = random.vector(n, 3.0), a = random.vector(n, 5.0);
  const Vector lambda = random.vector(m, 1.5), mu_r = random.vector(n, 1.0), mu_c = random.vector(m, 1.0);
  const model::Constraint* both[2] = {&hand, &ad};
  Vector c[2], Cq[2], H[2], c1[2], Cq1[2], c_dot[2], c_ddot[2], c2[2];
  for (int k = 0; k < 2; ++k) {
    c[k].assign(m, 0.0), Cq[k].assign(m * n, 0.0), H[k].assign(n * n, 0.0);
    both[k]->jacobian_and_hessian(q.data(), lambda.data(), 0.0, c[k].data(), Cq[k].data(), H[k].data());
    c1[k].assign(m, 0.0), Cq1[k].assign(m * n, 0.0);
    both[k]->jacobian(q.data(), 0.0, c1[k].data(), Cq1[k].data());
    c2[k].assign(m, 0.0), c_dot[k].assign(m, 0.0), c_ddot[k].assign(m, 0.0);
    both[k]->time_derivatives(q.data(), v.data(), a.data(), 0.0, c2[k].data(), c_dot[k].data(), c_ddot[k].data());
  }
  // The values come from the same arithmetic as the templated evaluate(): equal to the bit.
  for (int k = 0; k < m; ++k) {
    EXPECT_EQ(c[0][k], c[1][k]) << label << " value " << k;
    EXPECT_EQ(c1[0][k], c1[1][k]) << label << " jacobian() value " << k;
    EXPECT_EQ(c2[0][k], c2[1][k]) << label << " time_derivatives() value " << k;
  }
  expect_close(Cq[0], Cq[1], label + " C_q");
  expect_close(H[0], H[1], label + " lambda . C_qq");
  expect_close(Cq1[0], Cq1[1], label + " jacobian() C_q");
  expect_close(c_dot[0], c_dot[1], label + " dc/ds");
  expect_close(c_ddot[0], c_ddot[1], label + " d2c/ds2");
  EXPECT_GT(max_abs(Cq[1]), 0.0) << label;

  const std::size_t np = ad.parameters().size();
  for (int level = 0; level <= 2; ++level)
    for (const model::ParameterMask mask :
         {model::kAllParameters, model::ParameterMask(1u << 4), model::ParameterMask((1u << 1) | (1u << 9) | (1u << 15))}) {
      Vector g[2];
      for (int k = 0; k < 2; ++k) {
        g[k].assign(np, 0.0);
        both[k]->add_parameter_gradient(q.data(), v.data(), a.data(), 0.0, lambda.data(), mu_r.data(), mu_c.data(),
                                        level, g[k].data(), mask);
      }
      expect_close(g[0], g[1], label + " parameter partials, level " + std::to_string(level) + ", mask " +
                                   std::to_string(mask));
      if (mask == model::kAllParameters && with_rigid_body)
        EXPECT_GT(max_abs(g[1]), 0.0) << label << ", level " << level;
    }
}

TEST(PlanarJointHandDerivatives, MatchPlainAdOnRandomStates) {
  Random random;
  const BodyKind G = BodyKind::Ground, P = BodyKind::PointMass2D, R = BodyKind::PlanarRigid;
  const std::vector<std::array<BodyKind, 2>> pairs = {{G, P}, {G, R}, {P, R}, {R, P}, {R, R}, {P, P}};
  int cases = 0;
  for (const JointKind kind : {JointKind::Spherical, JointKind::Revolute, JointKind::Prismatic, JointKind::Fixed})
    for (const auto& kinds : pairs) {
      // As the model reader admits them: a prismatic joint's direction is carried by a rigid body a or by ground.
      if (kind == JointKind::Prismatic && kinds[0] == P) continue;
      for (int sample = 0; sample < 4; ++sample) {
        constraints::JointGeometry geometry;
        geometry.point_a = random.point(0.8);
        geometry.point_b = random.point(0.8);
        geometry.axis_a = random.point(1.0);
        geometry.normal_1 = random.point(1.0);
        geometry.normal_2 = random.point(1.0);
        geometry.rest_angle = random.uniform(random.generator);
        const std::array<int, 2> bodies = {kinds[0] == G ? model::kGround : 0, kinds[1] == G ? model::kGround : 1};
        const auto hand = constraints::make_joint("joint", kind, bodies, kinds, geometry);
        const auto ad = constraints::make_joint_plain_ad("joint", kind, bodies, kinds, geometry);
        compare(*hand, *ad, kinds[0] == R || kinds[1] == R, random,
                std::string(name_of(kind)) + " " + name_of(kinds[0]) + "-" + name_of(kinds[1]) + ", sample " +
                    std::to_string(sample));
        ++cases;
      }
    }
  EXPECT_EQ(cases, 4 * 22);
}

}  // namespace
}  // namespace flexadj::testing
