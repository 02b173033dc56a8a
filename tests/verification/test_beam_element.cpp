// The geometrically exact beam element alone: objectivity (Crisfield and Jelenic 1999: a rigid motion
// gives zero strain and zero internal forces; strain energy invariant under superposed rigid motions) and
// its Sacado Jacobians against central finite differences of its residual.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "flexadj/elements/elements.hpp"
#include "flexadj/model/body.hpp"
#include "fd_check.hpp"

namespace flexadj::testing {
namespace {

using Quaternion = std::array<double, 4>;
using State14 = std::array<double, 14>;

Quaternion normalized(Quaternion e) {
  const double n = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
  for (double& x : e) x /= n;
  return e;
}
Quaternion axis_angle(const std::array<double, 3>& axis, double angle) {
  const double n = std::sqrt(model::dot(axis, axis));
  const double s = std::sin(0.5 * angle) / n;
  return {std::cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s};
}

// Rigid motion x -> c + Q x, e -> e_Q e of both nodes.
State14 moved(const State14& q, const Quaternion& eq, const std::array<double, 3>& c) {
  const auto R = model::rotation_from_euler_parameters(eq.data());
  State14 out;
  for (int node = 0; node < 2; ++node) {
    const int o = 7 * node;
    const auto x = model::multiply(R, std::array<double, 3>{q[o], q[o + 1], q[o + 2]});
    const auto e = model::quaternion_product(eq, Quaternion{q[o + 3], q[o + 4], q[o + 5], q[o + 6]});
    for (int i = 0; i < 3; ++i) out[o + i] = c[i] + x[i];
    for (int i = 0; i < 4; ++i) out[o + 3 + i] = e[i];
  }
  return out;
}

elements::BeamSectionData section(double eta = 0.0, double zeta = 0.0) {
  elements::BeamSectionData s;
  s.youngs_modulus = 2.1e5;
  s.shear_modulus = 8.0e4;
  s.density = 7.85;
  s.area = 0.01;
  s.I2 = 8.3e-6;
  s.I3 = 1.2e-5;
  s.J = 1.6e-5;
  s.shear_factor_2 = s.shear_factor_3 = 5.0 / 6.0;
  s.shear_viscosity = eta;
  s.bulk_viscosity = zeta;
  s.rotary = {s.I2 + s.I3, s.I2, s.I3};
  return s;
}

// A curved reference element (node frames rotated against each other) of length about 0.5.
State14 reference_state() {
  const Quaternion ea = normalized(axis_angle({0.2, -0.4, 1.0}, 0.3));
  const Quaternion eb = model::quaternion_product(ea, axis_angle({0.3, 1.0, 0.1}, 0.15));
  const auto R = model::rotation_from_euler_parameters(ea.data());
  const auto d = model::multiply(R, std::array<double, 3>{0.5, 0.02, -0.01});
  return {0.1, -0.2, 0.3, ea[0], ea[1], ea[2], ea[3], 0.1 + d[0], -0.2 + d[1], 0.3 + d[2], eb[0], eb[1], eb[2], eb[3]};
}

// The reference state deformed: nodes displaced and rotated by finite amounts.
State14 deformed_state() {
  State14 q = reference_state();
  q[7] += 0.03;
  q[8] -= 0.05;
  q[9] += 0.02;
  const Quaternion eb = model::quaternion_product(Quaternion{q[10], q[11], q[12], q[13]},
                                                  axis_angle({1.0, 0.5, -0.3}, 0.4));
  for (int i = 0; i < 4; ++i) q[10 + i] = eb[i];
  return q;
}

std::unique_ptr<model::ForceElement> element(const elements::BeamSectionData& s) {
  const State14 q0 = reference_state();
  return elements::make_geometrically_exact_beam("beam", {0, 1}, s, elements::beam_reference(q0.data()),
                                                 {0.0, 0.0, 0.0});
}

double max_abs(const std::vector<double>& x) {
  double m = 0.0;
  for (double value : x) m = std::max(m, std::abs(value));
  return m;
}

TEST(BeamElement, RigidMotionsGiveZeroStrainAndForce) {
  const auto beam = element(section());
  const State14 q0 = reference_state();
  const std::vector<double> zero(14, 0.0);
  const double force_scale = 2.1e5 * 0.01;  // EA: internal forces are EA times strains
  // Large rotations about several axes, up to 170 degrees, with translations.
  const std::vector<std::pair<Quaternion, std::array<double, 3>>> motions = {
      {axis_angle({0.0, 0.0, 1.0}, 0.5 * M_PI), {1.0, 2.0, 3.0}},
      {axis_angle({1.0, 1.0, 0.0}, 2.9), {-4.0, 0.5, 0.0}},
      {axis_angle({0.3, -0.7, 0.2}, 1.3), {0.0, 0.0, 0.0}},
      {Quaternion{1.0, 0.0, 0.0, 0.0}, {10.0, -20.0, 5.0}}};
  for (const auto& [eq, c] : motions) {
    const State14 q = moved(q0, eq, c);
    std::vector<double> r(14);
    beam->residual(q.data(), zero.data(), zero.data(), 0.0, r.data());
    EXPECT_LT(max_abs(r), 1e-12 * force_scale);
    EXPECT_LT(std::abs(beam->potential_energy(q.data(), 0.0)), 1e-24 * force_scale);
    const auto strains = elements::beam_strains(q.data(), elements::beam_reference(q0.data()));
    for (double e : strains) EXPECT_LT(std::abs(e), 1e-14);
  }
  // The reference state with each node's Euler parameters negated (the same rotations).
  State14 flipped = q0;
  for (int i = 10; i < 14; ++i) flipped[i] = -flipped[i];
  std::vector<double> r(14);
  beam->residual(flipped.data(), zero.data(), zero.data(), 0.0, r.data());
  EXPECT_LT(max_abs(r), 1e-12 * force_scale);
}

TEST(BeamElement, StrainEnergyIsInvariantUnderRigidMotion) {
  const auto beam = element(section());
  const State14 q = deformed_state();
  const double energy = beam->potential_energy(q.data(), 0.0);
  ASSERT_GT(energy, 1e-3);  // the deformed state is strained
  const auto eq = axis_angle({-0.4, 0.8, 0.3}, 2.2);
  const State14 rotated = moved(q, eq, {3.0, -1.0, 2.0});
  EXPECT_NEAR(beam->potential_energy(rotated.data(), 0.0), energy, 1e-12 * energy);
  // Nodal forces rotate with the element: f' = Q f at both nodes.
  const std::vector<double> zero(14, 0.0);
  std::vector<double> r(14), r_rotated(14);
  beam->residual(q.data(), zero.data(), zero.data(), 0.0, r.data());
  beam->residual(rotated.data(), zero.data(), zero.data(), 0.0, r_rotated.data());
  const auto R = model::rotation_from_euler_parameters(eq.data());
  for (int node = 0; node < 2; ++node) {
    const auto f = model::multiply(R, std::array<double, 3>{r[7 * node], r[7 * node + 1], r[7 * node + 2]});
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(r_rotated[7 * node + i], f[i], 1e-10 * max_abs(r));
  }
}

TEST(BeamElement, JacobiansMatchCentralDifferences) {
  // Viscosities large enough that dR/dv stands well above the round-off of the differences.
  const auto beam = element(section(50.0, 5.0));
  ASSERT_FALSE(beam->conservative());
  const State14 q = deformed_state();
  std::mt19937 generator(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> v(14), a(14);
  for (int i = 0; i < 14; ++i) {
    v[i] = uniform(generator);
    a[i] = 10.0 * uniform(generator);
  }
  const std::vector<double> qv(q.begin(), q.end());
  // Each of dR/dq, dR/dv, dR/da against central differences (fd_check.hpp; the noise floor from the largest
  // residual entry). Step 1e-6; for dR/da a step of 1: R is affine in a (M(q) a), so the difference is exact but for
  // round-off, and the rotary entries of M (1e-5) stand above the floor of the elastic forces (1e2).
  for (int which = 0; which < 3; ++which) {
    model::JacobianCoefficients c{which == 0 ? 1.0 : 0.0, which == 1 ? 1.0 : 0.0, which == 2 ? 1.0 : 0.0};
    std::vector<double> r(14), J(14 * 14), D(14 * 14);
    beam->residual_jacobian(qv.data(), v.data(), a.data(), 0.0, c, r.data(), J.data());
    const double h = which == 2 ? 1.0 : 1e-6;
    for (int j = 0; j < 14; ++j) {
      std::vector<double> x[2] = {which == 0 ? qv : which == 1 ? v : a, which == 0 ? qv : which == 1 ? v : a};
      x[0][j] += h;
      x[1][j] -= h;
      std::vector<double> rp(14), rm(14);
      auto eval = [&](const std::vector<double>& xs, std::vector<double>& out) {
        beam->residual(which == 0 ? xs.data() : qv.data(), which == 1 ? xs.data() : v.data(),
                       which == 2 ? xs.data() : a.data(), 0.0, out.data());
      };
      eval(x[0], rp);
      eval(x[1], rm);
      for (int i = 0; i < 14; ++i) D[i * 14 + j] = (rp[i] - rm[i]) / (2.0 * h);
    }
    EXPECT_TRUE(jacobian_matches_central_differences(std::string("dR/d") + "qva"[which], J, D, 14, h, max_abs(r),
                                                     kRoundOffAccuracy, 1e-6, 1.0, 14));
  }
}

// The element's Newton matrix and adjoint products (from the strains' first and second derivatives) against the
// plain AD pass over its residual kernel, to round-off: states with rotations near zero (the series branch of
// the relative rotation), finite ones and with one node's Euler parameters negated (the same rotation).
TEST(BeamElement, FastDerivativesMatchPlainAD) {
  const elements::BeamSectionData s = section(50.0, 5.0);
  const State14 q0 = reference_state();
  const auto fast = elements::make_geometrically_exact_beam("beam", {0, 1}, s, elements::beam_reference(q0.data()),
                                                            {0.0, -9.81, 1.0});
  const auto plain = elements::make_geometrically_exact_beam_plain_ad(
      "beam", {0, 1}, s, elements::beam_reference(q0.data()), {0.0, -9.81, 1.0});
  std::mt19937 generator(11);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  State14 flipped = deformed_state();
  for (int i = 10; i < 14; ++i) flipped[i] = -flipped[i];
  State14 straight = q0;  // both node frames equal: zero relative rotation
  for (int i = 0; i < 4; ++i) straight[10 + i] = straight[3 + i];
  for (const State14& q : {q0, deformed_state(), flipped, straight}) {
    std::vector<double> v(14), a(14), mu(14);
    for (int i = 0; i < 14; ++i) {
      v[i] = uniform(generator);
      a[i] = 10.0 * uniform(generator);
      mu[i] = uniform(generator);
    }
    const model::JacobianCoefficients c{1.0, 0.37, 2.5e3};
    std::vector<double> r_fast(14), J_fast(196), r_plain(14), J_plain(196);
    fast->residual_jacobian(q.data(), v.data(), a.data(), 0.0, c, r_fast.data(), J_fast.data());
    plain->residual_jacobian(q.data(), v.data(), a.data(), 0.0, c, r_plain.data(), J_plain.data());
    const double r_scale = max_abs(r_plain), J_scale = max_abs(J_plain);
    ASSERT_GT(J_scale, 1.0);
    for (int i = 0; i < 14; ++i) EXPECT_NEAR(r_fast[i], r_plain[i], 1e-12 * r_scale) << "r[" << i << "]";
    for (int i = 0; i < 196; ++i) EXPECT_NEAR(J_fast[i], J_plain[i], 1e-12 * J_scale) << "J[" << i << "]";
    std::vector<double> products[2][3];
    for (int which = 0; which < 2; ++which) {
      for (auto& out : products[which]) out.assign(14, 0.0);
      (which == 0 ? fast : plain)
          ->add_transposed_products(q.data(), v.data(), a.data(), 0.0, mu.data(), products[which][0].data(),
                                    products[which][1].data(), products[which][2].data());
    }
    // The kept Jacobians of the adjoint step (residual_jacobians), fast against plain.
    std::vector<double> kept[2][4];
    for (int which = 0; which < 2; ++which) {
      kept[which][0].assign(14, 0.0);
      for (int b = 1; b < 4; ++b) kept[which][b].assign(196, 0.0);
      (which == 0 ? fast : plain)
          ->residual_jacobians(q.data(), v.data(), a.data(), 0.0, kept[which][0].data(), kept[which][1].data(),
                               kept[which][2].data(), kept[which][3].data());
    }
    for (int b = 0; b < 4; ++b) {
      const double scale = max_abs(kept[1][b]);
      ASSERT_GT(scale, 0.0) << "block " << b;
      for (std::size_t k = 0; k < kept[1][b].size(); ++k)
        EXPECT_NEAR(kept[0][b][k], kept[1][b][k], 1e-12 * scale) << "residual_jacobians block " << b << " " << k;
    }
    for (int block = 0; block < 3; ++block) {
      const double scale = max_abs(products[1][block]);
      ASSERT_GT(scale, 0.0);
      for (int j = 0; j < 14; ++j)
        EXPECT_NEAR(products[0][block][j], products[1][block][j], 1e-12 * scale) << "qva"[block] << " " << j;
    }
    // mu . dr/dp for all parameters, and for a mask of three (length, a reference curvature, gravity y).
    const int np = static_cast<int>(fast->parameters().size());
    const model::ParameterMask three = (1u << 14) | (1u << 19) | (1u << 22);
    for (const model::ParameterMask mask : {model::kAllParameters, three}) {
      std::vector<double> g_fast(np, 0.0), g_plain(np, 0.0);
      fast->add_parameter_gradient(q.data(), v.data(), a.data(), 0.0, mu.data(), g_fast.data(), mask);
      plain->add_parameter_gradient(q.data(), v.data(), a.data(), 0.0, mu.data(), g_plain.data(), mask);
      const double scale = max_abs(g_plain);
      ASSERT_GT(scale, 0.0);
      for (int k = 0; k < np; ++k) EXPECT_NEAR(g_fast[k], g_plain[k], 1e-12 * scale) << "parameter " << k;
    }
  }
}

// The parameter derivatives (adjoint) against central differences of mu . r.
TEST(BeamElement, ParameterDerivativesMatchCentralDifferences) {
  // Viscosities as in the Jacobian test and velocities that strain the element: with a uniform v and the section's
  // 0.1 and 0.01 the bulk viscosity's term stands below the noise floor of the differences.
  auto beam = element(section(50.0, 5.0));
  const State14 q = deformed_state();
  std::vector<double> v(14), a(14, -2.0), mu(14);
  for (int i = 0; i < 14; ++i) {
    v[i] = std::cos(0.7 + 1.3 * i);
    mu[i] = std::sin(1.0 + i);
  }
  const int np = static_cast<int>(beam->parameters().size());
  std::vector<double> gradient(np, 0.0);
  beam->add_parameter_gradient(q.data(), v.data(), a.data(), 0.0, mu.data(), gradient.data());
  // Size of mu . r for the noise floor: the sum of |mu_i r_i| (its terms, before they cancel).
  std::vector<double> r(14);
  beam->residual(q.data(), v.data(), a.data(), 0.0, r.data());
  double magnitude = 0.0;
  for (int i = 0; i < 14; ++i) magnitude += std::abs(mu[i] * r[i]);
  for (int k = 0; k < np; ++k) {
    // Richardson at relative steps 2e-2 and 4e-2: the rotary inertias (about 1e-5) act weakly against the elastic
    // terms of mu . r (at 1e-4 rotary_2's difference was 120 x its noise floor); the truncation is O(h^4).
    const double p = beam->parameters()[k], h = relative_step(p, 2e-2);
    auto objective = [&](double value) {
      beam->set_parameter(k, value);
      std::vector<double> r(14);
      beam->residual(q.data(), v.data(), a.data(), 0.0, r.data());
      double s = 0.0;
      for (int i = 0; i < 14; ++i) s += mu[i] * r[i];
      return s;
    };
    auto central = [&](double step) {
      return CentralDifference{(objective(p + step) - objective(p - step)) / (2.0 * step), step};
    };
    const CentralDifference fd = richardson_difference(central(h), central(2.0 * h));
    beam->set_parameter(k, p);
    EXPECT_TRUE(matches_central_difference(beam->parameter_names()[k], gradient[k], fd, magnitude, kRoundOffAccuracy));
  }
}

}  // namespace
}  // namespace flexadj::testing
