// ANCF elements on their own: a rigid motion of the stress-free reference gives zero strain energy and zero elastic
// forces (to round-off), the forces are the gradient of the strain energy, and the AD Jacobian
// c_q dr/dq + c_v dr/dv + c_a dr/da agrees with central differences of the residual.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

#include "flexadj/elements/elements.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/body.hpp"
#include "flexadj/model/model.hpp"
#include "fd_check.hpp"

namespace flexadj::testing {
namespace {

using elements::AncfElementData;
using Point = std::array<double, 3>;
using model::BodyKind;

enum class Type { Planar, Cable, Full };
int node_size(Type t) { return t == Type::Planar ? 4 : t == Type::Cable ? 6 : 12; }

// Section with E = 2e4, G = 8e3, rho = 3, A = 0.5, I2 = 0.02, I3 = 0.03 (the cable: 0.03), J = 0.04, damping off.
AncfElementData section_data(Type type) {
  AncfElementData d;
  d.section.youngs_modulus = 2e4;
  d.section.shear_modulus = 8e3;
  d.section.density = 3.0;
  d.section.area = 0.5;
  d.section.I2 = type == Type::Full ? 0.02 : 0.03;
  d.section.I3 = 0.03;
  d.section.J = 0.04;
  d.section.shear_factor_2 = d.section.shear_factor_3 = 5.0 / 6.0;
  return d;
}

// Node coordinates from a position and an orthonormal triad (columns t, n2, n3).
std::vector<double> node(Type type, const Point& x, const Point& t, const Point& n2, const Point& n3) {
  if (type == Type::Planar) return {x[0], x[1], t[0], t[1]};
  std::vector<double> q{x[0], x[1], x[2], t[0], t[1], t[2]};
  if (type == Type::Full) q.insert(q.end(), {n2[0], n2[1], n2[2], n3[0], n3[1], n3[2]});
  return q;
}

// Reference of one element: a straight segment of length 0.7 from (0.1, 0.2, 0) along x, or (curved) an arc of
// radius 1 through 0.5 rad about z; both in the plane z = 0. Fills data.length and data.reference.
std::vector<double> reference(Type type, bool curved, AncfElementData& data) {
  std::vector<double> q;
  for (int k = 0; k < 2; ++k) {
    const double phi = curved ? 0.5 * k : 0.0;
    const Point x = curved ? Point{std::sin(phi), 1.0 - std::cos(phi), 0.0} : Point{0.1 + 0.7 * k, 0.2, 0.0};
    const Point t{std::cos(phi), std::sin(phi), 0.0}, n2{-std::sin(phi), std::cos(phi), 0.0}, n3{0.0, 0.0, 1.0};
    const auto n = node(type, x, t, n2, n3);
    q.insert(q.end(), n.begin(), n.end());
  }
  data.length = curved ? 0.5 : 0.7;
  std::copy(q.begin(), q.end(), data.reference.begin());
  return q;
}

std::unique_ptr<model::ForceElement> make(Type type, const AncfElementData& data) {
  const Point no_gravity{0.0, 0.0, 0.0};
  if (type == Type::Full) return elements::make_ancf_full_beam("e", {0, 1}, data, no_gravity);
  return elements::make_ancf_gradient_deficient("e", type == Type::Planar ? 2 : 3, {0, 1}, data, no_gravity);
}

// Rotation (row-major) by Rodrigues' formula about a unit axis.
std::array<double, 9> rotation(Point axis, double angle) {
  const double n = std::sqrt(model::dot(axis, axis));
  for (double& a : axis) a /= n;
  const double c = std::cos(angle), s = std::sin(angle), C = 1.0 - c;
  const double x = axis[0], y = axis[1], z = axis[2];
  return {c + x * x * C, x * y * C - z * s, x * z * C + y * s, y * x * C + z * s, c + y * y * C,
          y * z * C - x * s, z * x * C - y * s, z * y * C + x * s, c + z * z * C};
}

// q moved rigidly: positions R x + shift, gradients R g.
std::vector<double> rigidly_moved(Type type, const std::vector<double>& q, const std::array<double, 9>& R,
                                  const Point& shift) {
  const int dim = type == Type::Planar ? 2 : 3, per_node = node_size(type);
  std::vector<double> out(q.size());
  for (int k = 0; k < 2; ++k)
    for (int v = 0; v < per_node / dim; ++v) {
      const int o = k * per_node + v * dim;
      Point x{q[o], q[o + 1], dim == 3 ? q[o + 2] : 0.0};
      Point y = model::multiply(R, x);
      if (v == 0) y = model::add(y, shift);
      for (int i = 0; i < dim; ++i) out[o + i] = y[i];
    }
  return out;
}

struct Case {
  Type type;
  bool curved;
  const char* name;
};
const Case kCases[] = {{Type::Planar, false, "planar straight"}, {Type::Planar, true, "planar arc"},
                       {Type::Cable, false, "cable straight"},   {Type::Cable, true, "cable arc"},
                       {Type::Full, false, "full straight"},     {Type::Full, true, "full arc"}};

TEST(AncfElement, RigidMotionGivesZeroStrainEnergyAndForces) {
  for (const Case& c : kCases) {
    AncfElementData data = section_data(c.type);
    const auto q0 = reference(c.type, c.curved, data);
    const auto element = make(c.type, data);
    const int n = element->coordinate_count();
    ASSERT_EQ(n, static_cast<int>(q0.size()));
    // Planar: rotation about z; spatial: a general rotation (the straight cable and beam turned out of the plane).
    const auto R = c.type == Type::Planar ? rotation({0.0, 0.0, 1.0}, 2.1) : rotation({0.3, -0.8, 0.5}, 2.1);
    const auto q = rigidly_moved(c.type, q0, R, {0.4, -1.3, c.type == Type::Planar ? 0.0 : 0.9});
    const std::vector<double> zero(n, 0.0);
    std::vector<double> r(n);
    element->residual(q.data(), zero.data(), zero.data(), 0.0, r.data());
    const double EA = data.section.youngs_modulus * data.section.area;
    double largest = 0.0;
    for (double x : r) largest = std::max(largest, std::abs(x));
    // Round-off: forces are sums of stiffness (EA ~ 1e4) times strains of order 1e-16.
    std::printf("%-16s rigid motion: largest force %.2e, strain energy %.2e (EA = %.0e)\n", c.name, largest,
                element->potential_energy(q.data(), 0.0), EA);
    EXPECT_LT(largest, 1e-10 * EA) << c.name;
    EXPECT_LT(std::abs(element->potential_energy(q.data(), 0.0)), 1e-12 * EA) << c.name;
    // The measure can fail: a stretch of 1e-3 gives energy EA/2 eps^2 L > 0 and forces of order EA eps.
    std::vector<double> stretched = q;
    for (int i = 0; i < n; ++i) stretched[i] *= 1.001;
    element->residual(stretched.data(), zero.data(), zero.data(), 0.0, r.data());
    largest = 0.0;
    for (double x : r) largest = std::max(largest, std::abs(x));
    EXPECT_GT(largest, 1e-4 * EA) << c.name;
    EXPECT_GT(element->potential_energy(stretched.data(), 0.0), 1e-8 * EA) << c.name;
  }
}

// A deformed state: the reference plus random perturbations of size 0.05, random v and a.
std::vector<double> perturbed(const std::vector<double>& q, std::mt19937& rng, double size) {
  std::uniform_real_distribution<double> u(-size, size);
  std::vector<double> out(q);
  for (double& x : out) x += u(rng);
  return out;
}

TEST(AncfElement, ForcesAreTheGradientOfTheStrainEnergy) {
  std::mt19937 rng(7);
  for (const Case& c : kCases) {
    AncfElementData data = section_data(c.type);
    const auto q = perturbed(reference(c.type, c.curved, data), rng, 0.05);
    const auto element = make(c.type, data);
    const int n = element->coordinate_count();
    const std::vector<double> zero(n, 0.0);
    std::vector<double> r(n);
    element->residual(q.data(), zero.data(), zero.data(), 0.0, r.data());
    const double energy = element->potential_energy(q.data(), 0.0);
    for (int j = 0; j < n; ++j) {
      const double h = 1e-6;
      auto qp = q, qm = q;
      qp[j] += h;
      qm[j] -= h;
      const double fd = (element->potential_energy(qp.data(), 0.0) - element->potential_energy(qm.data(), 0.0)) / (2 * h);
      EXPECT_TRUE(matches_central_difference(std::string(c.name) + " coordinate " + std::to_string(j), r[j], fd, h,
                                             energy, kRoundOffAccuracy));
    }
  }
}

TEST(AncfElement, JacobianMatchesCentralDifferences) {
  std::mt19937 rng(11);
  for (const Case& c : kCases) {
    AncfElementData data = section_data(c.type);
    data.damping_time = 0.01;  // the velocity Jacobian too
    const auto q = perturbed(reference(c.type, c.curved, data), rng, 0.05);
    const auto element = make(c.type, data);
    const int n = element->coordinate_count();
    const auto v = perturbed(std::vector<double>(n, 0.0), rng, 1.0), a = perturbed(std::vector<double>(n, 0.0), rng, 1.0);
    const model::JacobianCoefficients coefficients{1.0, 0.3, 0.2};
    std::vector<double> r(n), J(n * n), D(n * n, 0.0), rp(n), rm(n);
    element->residual_jacobian(q.data(), v.data(), a.data(), 0.0, coefficients, r.data(), J.data());
    const double h = 1e-6;
    for (int j = 0; j < n; ++j) {
      for (int level = 0; level < 3; ++level) {
        auto qp = q, qm = q, vp = v, vm = v, ap = a, am = a;
        auto& xp = level == 0 ? qp : level == 1 ? vp : ap;
        auto& xm = level == 0 ? qm : level == 1 ? vm : am;
        xp[j] += h;
        xm[j] -= h;
        element->residual(qp.data(), vp.data(), ap.data(), 0.0, rp.data());
        element->residual(qm.data(), vm.data(), am.data(), 0.0, rm.data());
        const double weight = level == 0 ? coefficients.q : level == 1 ? coefficients.v : coefficients.a;
        for (int i = 0; i < n; ++i) D[i * n + j] += weight * (rp[i] - rm[i]) / (2 * h);
      }
    }
    // fd_check.hpp: the noise floor from the largest residual entry, times the sum of the coefficients.
    double magnitude = 0.0;
    for (double x : r) magnitude = std::max(magnitude, std::abs(x));
    EXPECT_TRUE(jacobian_matches_central_differences(c.name, J, D, n, h, magnitude, kRoundOffAccuracy, 1e-6,
                                                     coefficients.q + coefficients.v + coefficients.a, n));
  }
}

// Columns of a frame (row-major, columns the axes).
Point column(const std::array<double, 9>& R, int axis) { return {R[axis], R[3 + axis], R[6 + axis]}; }

// Largest entry of |R^T R - I| and det R - 1.
std::array<double, 2> orthonormality_errors(const std::array<double, 9>& R) {
  double largest = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      largest = std::max(largest, std::abs(model::dot(column(R, i), column(R, j)) - (i == j ? 1.0 : 0.0)));
  return {largest, model::dot(column(R, 0), model::cross(column(R, 1), column(R, 2))) - 1.0};
}

// Section frames of ANCF nodes (model::section_frame) along arcs read from model files, in the reference and with
// the gradients stretched and sheared: axis_x is the unit tangent, the frame orthonormal and right-handed (to
// 1e-12; measured largest errors printed); full nodes in the reference give the section axes of the input
// (arc: axis 3 along the arc axis, axis 2 towards the centre). The cable arc (about (0, 0.6, 0.8), 3 pi/2 in 12
// elements) passes through the tangent -e_x at node 4; its frame is the smallest rotation from the global axes:
// rotation angle = angle(e_x, t), i.e. (trace R - 1)/2 = t_x.
TEST(AncfElement, SectionFramesOfNodesFollowTheCentreline) {
  const std::string section = "section: {E: 1.0e4, G: 5.0e3, rho: 1, A: 1, I: 0.01, J: 0.02}";
  struct ArcCase {
    const char* name;
    int dimension;
    std::string beam;
    Point centre, axis;
  };
  const Point tilted{0.0, 0.6, 0.8};
  const ArcCase cases[] = {
      {"planar", 2, "{name: b, type: planar, " + section + ", elements: 8, arc: {centre: [0, 1], start: [0, 0], angle: 4}}",
       {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}},
      {"cable", 3, "{name: b, type: cable, " + section +
                       ", elements: 12, arc: {centre: [0, 0, 0], start: [1, 0, 0], angle: 4.71238898038469, axis: [0, 0.6, 0.8]}}",
       {0.0, 0.0, 0.0}, tilted},
      {"full", 3, "{name: b, type: full, " + section +
                      ", elements: 8, arc: {centre: [0, 0, 0], start: [1, 0, 0], angle: 5, axis: [0, 0.6, 0.8]}}",
       {0.0, 0.0, 0.0}, tilted}};
  for (const ArcCase& arc : cases) {
    const auto problem =
        io::read_problem_string("dimension: " + std::to_string(arc.dimension) +
                                    "\nintegrator: {end_time: 1, step_size: 0.1}\nancf:\n  - " + arc.beam + "\n",
                                "frames.yaml");
    double worst_tangent = 0.0, worst_orthonormality = 0.0, worst_determinant = 0.0, worst_input_axes = 0.0;
    for (const auto& body : problem.model->bodies()) {
      std::vector<double> q = body.initial_coordinates;
      const int dim = arc.dimension;
      const Point x{q[0], q[1], dim == 3 ? q[2] : 0.0};
      const Point radial = model::subtract(x, arc.centre);
      const Point tangent = model::scaled(model::cross(arc.axis, radial), 1.0 / std::sqrt(model::dot(radial, radial)));
      const Point towards_centre = model::cross(arc.axis, tangent);
      // The reference, then the slope stretched by 1.7 and (full) r_y sheared by 0.3 r_x and shortened by 0.8.
      for (int deformed = 0; deformed < 2; ++deformed) {
        if (deformed == 1) {
          for (int i = 0; i < dim; ++i) q[dim + i] *= 1.7;
          if (body.kind == BodyKind::AncfFullNode)
            for (int i = 0; i < 3; ++i) q[6 + i] = 0.8 * q[6 + i] + 0.3 * q[3 + i];
        }
        const auto R = model::section_frame(body.kind, q.data());
        const auto errors = orthonormality_errors(R);
        worst_orthonormality = std::max(worst_orthonormality, errors[0]);
        worst_determinant = std::max(worst_determinant, std::abs(errors[1]));
        const Point axis_x = column(R, 0);
        worst_tangent = std::max(worst_tangent, std::sqrt(model::dot(model::subtract(axis_x, tangent),
                                                                     model::subtract(axis_x, tangent))));
        if (body.kind == BodyKind::AncfCableNode) {
          EXPECT_NEAR((R[0] + R[4] + R[8] - 1.0) / 2.0, axis_x[0], 1e-12) << body.name;
        }
        if (body.kind == BodyKind::AncfFullNode && deformed == 0)
          for (int i = 0; i < 3; ++i) {
            worst_input_axes = std::max(worst_input_axes, std::abs(column(R, 1)[i] - towards_centre[i]));
            worst_input_axes = std::max(worst_input_axes, std::abs(column(R, 2)[i] - arc.axis[i]));
          }
        if (body.kind == BodyKind::AncfFullNode && deformed == 1)  // axis_y in the plane of r_x and r_y
          EXPECT_NEAR(model::dot(column(R, 2), Point{q[6], q[7], q[8]}), 0.0, 1e-12) << body.name;
      }
    }
    std::printf("%-6s arc frames: |axis_x - t| %.1e, |R^T R - I| %.1e, |det R - 1| %.1e, full: |axes - input| %.1e\n",
                arc.name, worst_tangent, worst_orthonormality, worst_determinant, worst_input_axes);
    EXPECT_LT(worst_tangent, 1e-12) << arc.name;
    EXPECT_LT(worst_orthonormality, 1e-12) << arc.name;
    EXPECT_LT(worst_determinant, 1e-12) << arc.name;
    EXPECT_LT(worst_input_axes, 1e-12) << arc.name;
  }
  // The cable's frame at and next to the tangent -e_x: the half turn about e_z, and continuous next to it along
  // the direction u of approach (the smallest rotation about an axis normal to e_x and to u).
  const double exactly_back[6] = {0.0, 0.0, 0.0, -2.0, 0.0, 0.0};
  const auto R = model::section_frame(BodyKind::AncfCableNode, exactly_back);
  const std::array<double, 9> half_turn{-1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(R[i], half_turn[i]);
  const double nearly_back[6] = {0.0, 0.0, 0.0, -1.0, 1e-9, 0.0};
  const auto near = model::section_frame(BodyKind::AncfCableNode, nearly_back);
  const auto errors = orthonormality_errors(near);
  EXPECT_LT(errors[0], 1e-15);
  EXPECT_LT(std::abs(errors[1]), 1e-15);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(near[i], half_turn[i], 2e-9);
}

// The resultants refer to the midpoint of the centreline: of a straight element its middle, of the arc (radius R,
// angle theta) its cubic Hermite interpolation (r_A + r_B)/2 + L/8 (r'_A - r'_B), L = R theta, which lies
// R (1 - cos(theta/2) - theta/4 sin(theta/2)) = 1.62e-4 inside the arc's midpoint for theta = 0.5. They vanish in
// the stress-free reference and after a rigid motion of it; of a deformed state they are unchanged by a rigid
// motion: planar and full, all six (the section frame turns with the element); cable, N and the bending moment
// |(M2, M3)| (its frame is a convention, model::section_frame, and does not turn with a general rotation).
TEST(AncfElement, ResultantsAtTheMidpointAreObjective) {
  std::mt19937 rng(5);
  for (const Case& c : kCases) {
    AncfElementData data = section_data(c.type);
    data.damping_time = 0.01;
    const auto q0 = reference(c.type, c.curved, data);
    const auto element = make(c.type, data);
    const int n = element->coordinate_count();
    ASSERT_EQ(element->resultant_count(), 6);
    Point x{};
    element->section_point(q0.data(), x.data());
    const double inside = c.curved ? 1.0 - std::cos(0.25) - 0.125 * std::sin(0.25) : 0.0;
    const Point midpoint = c.curved ? Point{(1.0 - inside) * std::sin(0.25), 1.0 - (1.0 - inside) * std::cos(0.25), 0.0}
                                    : Point{0.45, 0.2, 0.0};
    const double offset = std::sqrt(model::dot(model::subtract(x, midpoint), model::subtract(x, midpoint)));
    std::printf("%-16s section point %.2e from the interpolated midpoint (%.3e inside the arc)\n", c.name, offset, inside);
    EXPECT_LT(offset, 1e-15) << c.name;

    const auto R = c.type == Type::Planar ? rotation({0.0, 0.0, 1.0}, 2.1) : rotation({0.3, -0.8, 0.5}, 2.1);
    const Point shift{0.4, -1.3, c.type == Type::Planar ? 0.0 : 0.9};
    const std::vector<double> at_rest(n, 0.0);
    const double EA = data.section.youngs_modulus * data.section.area;
    std::array<double, 6> r{};
    for (const auto& q : {q0, rigidly_moved(c.type, q0, R, shift)}) {
      element->resultants(q.data(), at_rest.data(), r.data());
      for (int k = 0; k < 6; ++k) EXPECT_LT(std::abs(r[k]), 1e-10 * EA) << c.name << " " << k;
    }

    const auto q = perturbed(q0, rng, 0.05);
    const auto v = perturbed(at_rest, rng, 1.0);
    std::array<double, 6> moved{};
    element->resultants(q.data(), v.data(), r.data());
    // Velocities of a rigid motion turn with it (no translation rate).
    element->resultants(rigidly_moved(c.type, q, R, shift).data(), rigidly_moved(c.type, v, R, {0.0, 0.0, 0.0}).data(),
                        moved.data());
    double scale = 0.0;
    for (double value : r) scale = std::max(scale, std::abs(value));
    if (c.type == Type::Cable) {
      EXPECT_NEAR(moved[0], r[0], 1e-12 * scale) << c.name;
      EXPECT_NEAR(std::hypot(moved[4], moved[5]), std::hypot(r[4], r[5]), 1e-12 * scale) << c.name;
      for (int k = 1; k < 4; ++k) EXPECT_EQ(moved[k], 0.0) << c.name << " " << k;
    } else {
      for (int k = 0; k < 6; ++k) EXPECT_NEAR(moved[k], r[k], 1e-12 * scale) << c.name << " " << k;
    }
  }
}

}  // namespace
}  // namespace flexadj::testing
