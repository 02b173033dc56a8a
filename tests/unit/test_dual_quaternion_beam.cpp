// The dual-quaternion beam element (elements/dual_quaternion_beam.cpp) against independent references: its discrete
// momenta are D1/D2 of the trapezoidal discrete Lagrangian built from its own kinetic and potential energies
// (central differences), its Jacobians and adjoint products are those of the discrete momenta (central differences),
// the strain energy is objective (invariant under rigid motions) and zero in the reference, and the generalized
// force of a dual-quaternion node is the virtual work of a force and a moment at a node point.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "flexadj/elements/beam_builder.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/model/body.hpp"

namespace {

namespace fe = flexadj::elements;
namespace fm = flexadj::model;
using Vector = std::vector<double>;

constexpr int n = 16;

fe::BeamSectionData section(bool damped) {
  fe::BeamSectionData s;
  s.youngs_modulus = 2.1e3;
  s.shear_modulus = 8.0e2;
  s.density = 100.0;
  s.area = 0.1;
  s.I2 = 0.008;
  s.I3 = 0.012;
  s.J = 0.016;
  s.shear_factor_2 = s.shear_factor_3 = 5.0 / 6.0;
  s.shear_viscosity = damped ? 0.3 : 0.0;
  s.bulk_viscosity = damped ? 0.05 : 0.0;
  s.rotary = {s.I2 + s.I3, s.I2, s.I3};
  return s;
}

std::array<double, 4> unit_quaternion(double angle, fm::Vec3<double> axis) {
  const double norm = std::sqrt(fm::dot(axis, axis));
  return {std::cos(angle / 2), std::sin(angle / 2) * axis[0] / norm, std::sin(angle / 2) * axis[1] / norm,
          std::sin(angle / 2) * axis[2] / norm};
}

// A curved reference element of length about 0.5: node B along the section axis 1 of node A, turned a little.
Vector reference_coordinates() {
  const auto ea = unit_quaternion(0.7, {0.3, -0.5, 0.8});
  const auto turn = unit_quaternion(0.2, {0.1, 0.9, 0.3});
  const auto eb = fm::quaternion_product(ea, turn);
  const fm::Vec3<double> xa{0.1, 0.2, -0.3};
  const auto chord = fm::multiply(fm::rotation_from_euler_parameters(ea.data()), fm::Vec3<double>{0.5, 0.02, -0.01});
  const auto qa = fe::dual_quaternion_coordinates(xa, ea), qb = fe::dual_quaternion_coordinates(fm::add(xa, chord), eb);
  Vector q(qa.begin(), qa.end());
  q.insert(q.end(), qb.begin(), qb.end());
  return q;
}

std::unique_ptr<fm::ForceElement> make_element(bool damped, const fe::Point& gravity = {0.4, -9.81, -1.3}) {
  const Vector q = reference_coordinates();
  return fe::make_dual_quaternion_beam("beam", {0, 1}, section(damped), fe::dual_quaternion_beam_reference(q.data()),
                                       gravity);
}

// The reference moved off the unit conditions a little (the ambient space), with velocities.
struct Pair {
  Vector q_mid, v_mid;
};
Pair perturbed_state(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Pair s{reference_coordinates(), Vector(n)};
  for (double& x : s.q_mid) x += 0.05 * u(rng);
  for (double& x : s.v_mid) x = u(rng);
  return s;
}

using Function = std::function<Vector(const Vector&)>;
// Central differences, column j = d f / d x_j.
std::vector<Vector> central_jacobian(const Function& f, const Vector& x, double step) {
  std::vector<Vector> columns;
  for (std::size_t j = 0; j < x.size(); ++j) {
    Vector plus = x, minus = x;
    plus[j] += step;
    minus[j] -= step;
    const Vector fp = f(plus), fm_ = f(minus);
    Vector column(fp.size());
    for (std::size_t i = 0; i < fp.size(); ++i) column[i] = (fp[i] - fm_[i]) / (2 * step);
    columns.push_back(column);
  }
  return columns;
}

double max_abs(const Vector& x) {
  double m = 0.0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

TEST(DualQuaternionBeam, DiscreteMomentaAreTheDerivativesOfTheTrapezoidalDiscreteLagrangian) {
  const auto element = make_element(false);
  const Pair s = perturbed_state(3);
  const double h = 0.05;
  Vector q0(n), q1(n);
  for (int i = 0; i < n; ++i) {
    q0[i] = s.q_mid[i] - 0.5 * h * s.v_mid[i];
    q1[i] = s.q_mid[i] + 0.5 * h * s.v_mid[i];
  }
  // L_d(q0, q1) = h/2 (T(q0, v) - V(q0) + T(q1, v) - V(q1)), v = (q1 - q0)/h.
  auto discrete_lagrangian = [&](const Vector& a, const Vector& b) {
    Vector v(n);
    for (int i = 0; i < n; ++i) v[i] = (b[i] - a[i]) / h;
    return 0.5 * h *
           (element->kinetic_energy(a.data(), v.data()) - element->potential_energy(a.data(), 0.0) +
            element->kinetic_energy(b.data(), v.data()) - element->potential_energy(b.data(), 0.0));
  };
  const auto d1 = central_jacobian([&](const Vector& x) { return Vector{discrete_lagrangian(x, q1)}; }, q0, 1e-6);
  const auto d2 = central_jacobian([&](const Vector& x) { return Vector{discrete_lagrangian(q0, x)}; }, q1, 1e-6);
  Vector minus(n), plus(n);
  element->discrete_momenta(s.q_mid.data(), s.v_mid.data(), 0.0, h, minus.data(), plus.data(), nullptr, nullptr);
  const double scale = std::max(max_abs(minus), max_abs(plus));
  EXPECT_GT(scale, 1e-2) << "the check would be vacuous";
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(minus[i], d1[i][0], 1e-7 * (1.0 + scale)) << "D1 L_d, coordinate " << i;
    EXPECT_NEAR(plus[i], d2[i][0], 1e-7 * (1.0 + scale)) << "D2 L_d, coordinate " << i;
  }
}

// With damping: the Newton Jacobian d(minus)/dq_{n+1}, and the transposed products and parameter gradient of the
// pairing mu_minus . minus + mu_plus . plus, against central differences of discrete_momenta.
TEST(DualQuaternionBeam, JacobianAndAdjointProductsMatchCentralDifferences) {
  const auto element = make_element(true);
  const Pair s = perturbed_state(5);
  const double h = 0.05;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vector mu_minus(n), mu_plus(n);
  for (int i = 0; i < n; ++i) {
    mu_minus[i] = u(rng);
    mu_plus[i] = u(rng);
  }
  auto momenta = [&](const fm::ForceElement& e, const Vector& q_mid, const Vector& v_mid) {
    Vector minus(n), plus(n);
    e.discrete_momenta(q_mid.data(), v_mid.data(), 0.0, h, minus.data(), plus.data(), nullptr, nullptr);
    return std::pair{minus, plus};
  };
  // d(minus)/dq_{n+1} with q_n fixed.
  Vector q0(n);
  for (int i = 0; i < n; ++i) q0[i] = s.q_mid[i] - 0.5 * h * s.v_mid[i];
  Vector q1(n);
  for (int i = 0; i < n; ++i) q1[i] = s.q_mid[i] + 0.5 * h * s.v_mid[i];
  auto momenta_at = [&](const Vector& next) {
    Vector q_mid(n), v_mid(n);
    for (int i = 0; i < n; ++i) {
      q_mid[i] = 0.5 * (q0[i] + next[i]);
      v_mid[i] = (next[i] - q0[i]) / h;
    }
    return momenta(*element, q_mid, v_mid);
  };
  const auto columns = central_jacobian([&](const Vector& next) { return momenta_at(next).first; }, q1, 1e-6);
  const auto plus_columns = central_jacobian([&](const Vector& next) { return momenta_at(next).second; }, q1, 1e-6);
  Vector minus(n), plus(n), J(n * n), J_plus(n * n);
  element->discrete_momenta(s.q_mid.data(), s.v_mid.data(), 0.0, h, minus.data(), plus.data(), J.data(),
                            J_plus.data());
  double j_scale = 0.0;
  for (double x : J) j_scale = std::max(j_scale, std::abs(x));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) EXPECT_NEAR(J[i * n + j], columns[j][i], 1e-6 * j_scale) << "J(" << i << ", " << j << ")";
  // d(plus)/dq_{n+1} from the same pass (the adjoint sweep's product at q_{n+1}).
  double plus_scale = 0.0;
  for (double x : J_plus) plus_scale = std::max(plus_scale, std::abs(x));
  EXPECT_GT(plus_scale, 1e-2);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      EXPECT_NEAR(J_plus[i * n + j], plus_columns[j][i], 1e-6 * plus_scale) << "J_plus(" << i << ", " << j << ")";

  auto pairing = [&](const fm::ForceElement& e, const Vector& q_mid, const Vector& v_mid) {
    const auto [m, p] = momenta(e, q_mid, v_mid);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += mu_minus[i] * m[i] + mu_plus[i] * p[i];
    return sum;
  };
  Vector out_q(n, 0.0), out_v(n, 0.0);
  element->add_discrete_momenta_transposed_products(s.q_mid.data(), s.v_mid.data(), 0.0, h, mu_minus.data(),
                                                    mu_plus.data(), out_q.data(), out_v.data());
  const auto dq = central_jacobian([&](const Vector& x) { return Vector{pairing(*element, x, s.v_mid)}; }, s.q_mid, 1e-6);
  const auto dv = central_jacobian([&](const Vector& x) { return Vector{pairing(*element, s.q_mid, x)}; }, s.v_mid, 1e-6);
  const double scale = std::max(max_abs(out_q), max_abs(out_v));
  EXPECT_GT(scale, 1e-2);
  for (int j = 0; j < n; ++j) {
    EXPECT_NEAR(out_q[j], dq[j][0], 1e-6 * scale) << "d/dq_mid, coordinate " << j;
    EXPECT_NEAR(out_v[j], dv[j][0], 1e-6 * scale) << "d/dv_mid, coordinate " << j;
  }
  // The products at one end of the step: d/dq_n = 1/2 d/dq_mid - 1/h d/dv_mid, d/dq_{n+1} with + 1/h.
  for (const bool second : {false, true}) {
    Vector end(n, 0.0);
    element->add_discrete_momenta_transposed_product_at_end(s.q_mid.data(), s.v_mid.data(), 0.0, h, mu_minus.data(),
                                                            mu_plus.data(), second, end.data());
    for (int j = 0; j < n; ++j)
      EXPECT_NEAR(end[j], 0.5 * out_q[j] + (second ? 1.0 : -1.0) * out_v[j] / h, 1e-13 * scale / h)
          << (second ? "d/dq_{n+1}" : "d/dq_n") << ", coordinate " << j;
  }
  // h = 0 at the state (q, v) = (q_mid, v_mid): the derivative in q alone, the q part of the full products.
  {
    Vector full_q(n, 0.0), full_v(n, 0.0), alone(n, 0.0);
    element->add_discrete_momenta_transposed_products(s.q_mid.data(), s.v_mid.data(), 0.0, 0.0, mu_minus.data(),
                                                      mu_plus.data(), full_q.data(), full_v.data());
    element->add_discrete_momenta_transposed_product_at_end(s.q_mid.data(), s.v_mid.data(), 0.0, 0.0, mu_minus.data(),
                                                            mu_plus.data(), false, alone.data());
    EXPECT_GT(max_abs(full_q), 1e-3);
    for (int j = 0; j < n; ++j) EXPECT_NEAR(alone[j], full_q[j], 1e-13 * max_abs(full_q)) << "h = 0, coordinate " << j;
    // Both against central differences of the pairing with the momentum T_v at h = 0 (written out, not AD).
    auto pairing_at_rest = [&](const Vector& q, const Vector& v) {
      Vector minus(n), plus(n);
      element->discrete_momenta(q.data(), v.data(), 0.0, 0.0, minus.data(), plus.data(), nullptr, nullptr);
      double sum = 0.0;
      for (int i = 0; i < n; ++i) sum += mu_minus[i] * minus[i] + mu_plus[i] * plus[i];
      return Vector{sum};
    };
    const auto dq0 = central_jacobian([&](const Vector& x) { return pairing_at_rest(x, s.v_mid); }, s.q_mid, 1e-6);
    const auto dv0 = central_jacobian([&](const Vector& x) { return pairing_at_rest(s.q_mid, x); }, s.v_mid, 1e-6);
    const double scale0 = std::max(max_abs(full_q), max_abs(full_v));
    for (int j = 0; j < n; ++j) {
      EXPECT_NEAR(full_q[j], dq0[j][0], 1e-7 * scale0) << "h = 0, d/dq, coordinate " << j;
      EXPECT_NEAR(full_v[j], dv0[j][0], 1e-7 * scale0) << "h = 0, d/dv, coordinate " << j;
    }
  }

  const int np = static_cast<int>(element->parameters().size());
  Vector gradient(np, 0.0);
  element->add_discrete_momenta_parameter_gradient(s.q_mid.data(), s.v_mid.data(), 0.0, h, mu_minus.data(),
                                                   mu_plus.data(), gradient.data());
  for (int k = 0; k < np; ++k) {
    const double value = element->parameters()[k], step = 1e-6 * std::max(1.0, std::abs(value));
    auto copy = make_element(true);
    copy->set_parameter(k, value + step);
    const double up = pairing(*copy, s.q_mid, s.v_mid);
    copy->set_parameter(k, value - step);
    const double down = pairing(*copy, s.q_mid, s.v_mid);
    const double fd = (up - down) / (2 * step);
    EXPECT_NEAR(gradient[k], fd, 1e-6 * (std::abs(fd) + 1.0)) << element->parameter_names()[k];
  }
}

// The parameter gradient of the momenta's pairing (the weights' coefficients in doubles, the length in one AD
// direction) against central differences of the pairing in every parameter: with and without damping (the damping
// parameters' derivatives do not vanish with them), within a step and at h = 0 (the momentum T_v alone).
TEST(DualQuaternionBeam, ParameterGradientMatchesCentralDifferences) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vector mu_minus(n), mu_plus(n);
  for (int i = 0; i < n; ++i) {
    mu_minus[i] = u(rng);
    mu_plus[i] = u(rng);
  }
  const Pair s = perturbed_state(23);
  for (const bool damped : {true, false})
    for (const double h : {0.05, 0.0}) {
      SCOPED_TRACE(std::string(damped ? "damped" : "undamped") + ", h = " + std::to_string(h));
      const auto element = make_element(damped);
      auto pairing = [&](const fm::ForceElement& e) {
        Vector minus(n), plus(n);
        e.discrete_momenta(s.q_mid.data(), s.v_mid.data(), 0.0, h, minus.data(), plus.data(), nullptr, nullptr);
        double sum = 0.0;
        for (int i = 0; i < n; ++i) sum += mu_minus[i] * minus[i] + mu_plus[i] * plus[i];
        return sum;
      };
      const int np = static_cast<int>(element->parameters().size());
      Vector gradient(np, 0.0);
      element->add_discrete_momenta_parameter_gradient(s.q_mid.data(), s.v_mid.data(), 0.0, h, mu_minus.data(),
                                                       mu_plus.data(), gradient.data());
      int nonzero = 0;
      for (int k = 0; k < np; ++k) {
        const double value = element->parameters()[k], step = 1e-6 * std::max(1.0, std::abs(value));
        auto copy = make_element(damped);
        copy->set_parameter(k, value + step);
        const double up = pairing(*copy);
        copy->set_parameter(k, value - step);
        const double down = pairing(*copy);
        const double fd = (up - down) / (2 * step);
        if (std::abs(fd) > 1e-8) ++nonzero;
        EXPECT_NEAR(gradient[k], fd, 1e-6 * (std::abs(fd) + 1.0)) << element->parameter_names()[k];
      }
      // Within a step every parameter acts (eta and zeta also where they are zero); at h = 0 only rho, A, the three
      // rotary inertias and the length (T_v).
      EXPECT_EQ(nonzero, h > 0.0 ? 18 : 6);
    }
}

// The strain energy is zero in the reference and unchanged by a rigid motion of the element (objectivity), and the
// weight's potential is rho A ds/2 g . (x_A + x_B).
// The mass matrix alone (coefficients {0, 0, c_a}, a path of its own in the element) is c_a dr/da: against central
// differences of the residual in a (linear in a), and against the general path, J(1, 0, c_a) - J(1, 0, 0).
TEST(DualQuaternionBeam, MassMatrixIsTheAccelerationDerivativeOfTheResidual) {
  const auto element = make_element(true);
  const Pair s = perturbed_state(7);
  Vector a(n);
  for (int i = 0; i < n; ++i) a[i] = std::sin(1.0 + 2.0 * i);
  const double c_a = 2.5;
  Vector r(n), J(n * n), r_plain(n);
  element->residual_jacobian(s.q_mid.data(), s.v_mid.data(), a.data(), 0.0, fm::JacobianCoefficients{0.0, 0.0, c_a},
                             r.data(), J.data());
  element->residual(s.q_mid.data(), s.v_mid.data(), a.data(), 0.0, r_plain.data());
  for (int i = 0; i < n; ++i) EXPECT_NEAR(r[i], r_plain[i], 1e-13 * max_abs(r_plain)) << "r, coordinate " << i;

  const auto columns = central_jacobian(
      [&](const Vector& x) {
        Vector out(n);
        element->residual(s.q_mid.data(), s.v_mid.data(), x.data(), 0.0, out.data());
        return out;
      },
      a, 1e-3);
  Vector with_a(n * n), without_a(n * n), scratch(n);
  element->residual_jacobian(s.q_mid.data(), s.v_mid.data(), a.data(), 0.0, fm::JacobianCoefficients{1.0, 0.0, c_a},
                             scratch.data(), with_a.data());
  element->residual_jacobian(s.q_mid.data(), s.v_mid.data(), a.data(), 0.0, fm::JacobianCoefficients{1.0, 0.0, 0.0},
                             scratch.data(), without_a.data());
  const double scale = max_abs(J);
  EXPECT_GT(scale, 1e-2);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      EXPECT_NEAR(J[i * n + j], c_a * columns[j][i], 1e-8 * scale) << "differences, M(" << i << ", " << j << ")";
      EXPECT_NEAR(J[i * n + j], with_a[i * n + j] - without_a[i * n + j], 1e-11 * max_abs(with_a))
          << "general path, M(" << i << ", " << j << ")";
    }
}

TEST(DualQuaternionBeam, StrainEnergyIsObjectiveAndZeroInTheReference) {
  const auto element = make_element(false, {0.0, 0.0, 0.0});
  const Vector reference = reference_coordinates();
  EXPECT_NEAR(element->potential_energy(reference.data(), 0.0), 0.0, 1e-14);
  Vector r(n);
  const Vector zero(n, 0.0);
  element->applied_residual(reference.data(), zero.data(), 0.0, r.data());
  EXPECT_LT(max_abs(r), 1e-11) << "the reference must be stress-free";

  // A deformed state (on the unit conditions) and the same state moved rigidly by (R, d).
  const auto ea = unit_quaternion(0.9, {0.2, 0.4, -0.6}), eb = unit_quaternion(1.3, {0.5, 0.1, 0.7});
  const fm::Vec3<double> xa{0.3, -0.1, 0.2}, xb{0.75, 0.15, 0.05};
  const auto motion = unit_quaternion(2.1, {-0.3, 0.8, 0.4});
  const fm::Vec3<double> shift{1.5, -2.0, 0.7};
  const auto R = fm::rotation_from_euler_parameters(motion.data());
  auto coordinates = [&](const fm::Vec3<double>& a, const std::array<double, 4>& qa, const fm::Vec3<double>& b,
                         const std::array<double, 4>& qb) {
    const auto ca = fe::dual_quaternion_coordinates(a, qa), cb = fe::dual_quaternion_coordinates(b, qb);
    Vector q(ca.begin(), ca.end());
    q.insert(q.end(), cb.begin(), cb.end());
    return q;
  };
  const Vector deformed = coordinates(xa, ea, xb, eb);
  const Vector moved = coordinates(fm::add(fm::multiply(R, xa), shift), fm::quaternion_product(motion, ea),
                                   fm::add(fm::multiply(R, xb), shift), fm::quaternion_product(motion, eb));
  const double energy = element->potential_energy(deformed.data(), 0.0);
  EXPECT_GT(energy, 1.0);
  EXPECT_NEAR(element->potential_energy(moved.data(), 0.0), energy, 1e-12 * energy);

  const fe::Point g{0.4, -9.81, -1.3};
  const auto weighted = make_element(false, g);
  const auto pa = fm::dual_quaternion_position(deformed.data()), pb = fm::dual_quaternion_position(deformed.data() + 8);
  const double node_weight = 0.5 * 100.0 * 0.1 * weighted->parameters()[14];
  const double gravity_potential = -node_weight * (fm::dot(g, pa) + fm::dot(g, pb));
  EXPECT_NEAR(weighted->potential_energy(deformed.data(), 0.0), energy + gravity_potential, 1e-12 * energy);
}

// Q = (d point_position / dq)^T F + (d theta / dq)^T m on the unit conditions, by central differences of the virtual
// work along node motions q(s) = coordinates(x + s dx, exp(s dtheta) e).
TEST(DualQuaternionBeam, NodeGeneralizedForceIsTheVirtualWorkOfForceAndMoment) {
  const auto e = unit_quaternion(0.8, {0.4, -0.2, 0.6});
  const fm::Vec3<double> x{0.3, -0.7, 1.1}, s{0.2, -0.1, 0.35}, F{1.3, -0.4, 2.2}, m{-0.6, 0.9, 0.25};
  const auto q = fe::dual_quaternion_coordinates(x, e);
  std::array<double, 8> Q{};
  fm::add_generalized_force(fm::BodyKind::DualQuaternionNode, q.data(), s, F, m, Q.data());
  // Directions: 3 translations and 3 global rotations.
  for (int k = 0; k < 6; ++k) {
    auto moved = [&](double t) {
      fm::Vec3<double> dx{0.0, 0.0, 0.0}, axis{0.0, 0.0, 0.0};
      (k < 3 ? dx : axis)[k % 3] = 1.0;
      const auto turn = unit_quaternion(k < 3 ? 0.0 : t, k < 3 ? fm::Vec3<double>{1.0, 0.0, 0.0} : axis);
      return fe::dual_quaternion_coordinates(fm::add(x, fm::scaled(dx, t)), fm::quaternion_product(turn, e));
    };
    const double step = 1e-6;
    const auto plus = moved(step), minus = moved(-step);
    double virtual_work = 0.0, generalized = 0.0;
    const auto p_plus = fm::point_position(fm::BodyKind::DualQuaternionNode, plus.data(), s);
    const auto p_minus = fm::point_position(fm::BodyKind::DualQuaternionNode, minus.data(), s);
    for (int i = 0; i < 3; ++i) virtual_work += F[i] * (p_plus[i] - p_minus[i]) / (2 * step);
    if (k >= 3) virtual_work += m[k - 3];
    for (int i = 0; i < 8; ++i) generalized += Q[i] * (plus[i] - minus[i]) / (2 * step);
    EXPECT_NEAR(generalized, virtual_work, 1e-8) << "direction " << k;
  }
}

}  // namespace
