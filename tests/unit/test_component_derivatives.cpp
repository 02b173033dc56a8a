// Every component's Sacado derivatives against central finite differences (the finite differences live
// only in this test), the consistency of residuals with potential and kinetic energies, and closed-form
// checks of a spinning rigid body (torque-free steady spin, Euler's equations).
//
// Force elements: residual_jacobian (c.q dr/dq + c.v dr/dv + c.a dr/da) against central differences of
// residual(). Constraints: jacobian, multiplier_hessian and time_derivatives against central differences
// of value(). Each case is evaluated at a seeded random local state; spatial rigid bodies are checked both
// with unit Euler parameters and with |e| != 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "flexadj/constraints/constraints.hpp"
#include "flexadj/elements/beam_builder.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/functions/control_signal.hpp"
#include "flexadj/functions/expression.hpp"
#include "flexadj/model/model.hpp"
#include "fd_check.hpp"

namespace {

namespace fm = flexadj::model;
namespace fe = flexadj::elements;
namespace fc = flexadj::constraints;
namespace ff = flexadj::functions;
using fm::BodyKind;
using fm::kGround;
using Vector = std::vector<double>;

// ---- kinds, names, seeds ---------------------------------------------------------------------------

const char* kind_name(BodyKind kind) {
  switch (kind) {
    case BodyKind::Ground: return "Ground";
    case BodyKind::PointMass2D: return "PointMass2D";
    case BodyKind::PointMass3D: return "PointMass3D";
    case BodyKind::PlanarRigid: return "PlanarRigid";
    case BodyKind::SpatialRigid: return "SpatialRigid";
    case BodyKind::AncfPlanarNode: return "AncfPlanarNode";
    case BodyKind::AncfCableNode: return "AncfCableNode";
    case BodyKind::AncfFullNode: return "AncfFullNode";
  }
  return "Unknown";
}

std::string case_name(const std::string& component, const std::vector<BodyKind>& kinds) {
  std::string name = component;
  for (BodyKind kind : kinds) name += std::string("_") + kind_name(kind);
  return name;
}

// FNV-1a: a seed per case that does not depend on the standard library's std::hash.
unsigned seed_of(const std::string& text) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

constexpr BodyKind G = BodyKind::Ground, P2 = BodyKind::PointMass2D, PR = BodyKind::PlanarRigid,
                   P3 = BodyKind::PointMass3D, SR = BodyKind::SpatialRigid;

// Ordered pairs of distinct-or-equal kinds (no ground-ground) in the plane and in space.
const std::vector<std::array<BodyKind, 2>> kPlanarPairs = {{G, P2}, {G, PR}, {P2, G}, {PR, G},
                                                           {P2, P2}, {P2, PR}, {PR, P2}, {PR, PR}};
const std::vector<std::array<BodyKind, 2>> kSpatialPairs = {{G, P3}, {G, SR}, {P3, G}, {SR, G},
                                                            {P3, P3}, {P3, SR}, {SR, P3}, {SR, SR}};
std::vector<std::array<BodyKind, 2>> all_pairs() {
  auto pairs = kPlanarPairs;
  pairs.insert(pairs.end(), kSpatialPairs.begin(), kSpatialPairs.end());
  return pairs;
}

int body_index(BodyKind kind, int slot) { return kind == G ? kGround : slot; }

// ---- states ------------------------------------------------------------------------------------------

struct State {
  Vector q, v, a;
  double t = 0.0;
};

enum class Quaternions { Unit, Perturbed };
const char* quaternion_name(Quaternions variant) { return variant == Quaternions::Unit ? "|e| = 1" : "|e| != 1"; }

// Random-but-seeded local state. Body slot k is shifted by 2.5 k along x so that attachment points of
// different bodies stay apart (point-to-point elements are singular at zero length). Euler parameters
// are a random unit quaternion, optionally scaled and perturbed so that |e| != 1.
State random_state(const std::vector<BodyKind>& kinds, unsigned seed, Quaternions quaternions) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  State s;
  for (std::size_t slot = 0; slot < kinds.size(); ++slot) {
    const BodyKind kind = kinds[slot];
    const std::size_t first = s.q.size();
    for (int i = 0; i < fm::coordinate_count(kind); ++i) {
      s.q.push_back(0.5 * u(rng));
      s.v.push_back(u(rng));
      s.a.push_back(u(rng));
    }
    if (kind == G) continue;
    s.q[first] += 2.5 * double(slot);
    if (kind == PR) s.q[first + 2] = M_PI * u(rng);
    if (kind == SR) {
      double* e = s.q.data() + first + 3;
      double norm = 0.0;
      for (int i = 0; i < 4; ++i) {
        e[i] = u(rng);
        norm += e[i] * e[i];
      }
      norm = std::sqrt(norm);
      for (int i = 0; i < 4; ++i) e[i] /= norm;
      if (quaternions == Quaternions::Perturbed)
        for (int i = 0; i < 4; ++i) e[i] = 1.04 * e[i] + 0.03 * u(rng);
    }
  }
  s.t = 0.55 + 0.25 * u(rng);
  return s;
}

// ---- finite differences (test only) ---------------------------------------------------------------------

using VectorFunction = std::function<Vector(const Vector&)>;

// Central differences of f at x, m x n row-major, step h in every coordinate (coordinates are of order 1 here).
Vector central_difference_jacobian(const VectorFunction& f, const Vector& x, double h = 1e-6) {
  const std::size_t n = x.size(), m = f(x).size();
  Vector J(m * n, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    Vector xp = x, xm = x;
    xp[j] += h;
    xm[j] -= h;
    const Vector fp = f(xp), fm_ = f(xm);
    for (std::size_t i = 0; i < m; ++i) J[i * n + j] = (fp[i] - fm_[i]) / (xp[j] - xm[j]);
  }
  return J;
}

double max_abs(const Vector& x) {
  double m = 0.0;
  for (double value : x) m = std::max(m, std::abs(value));
  return m;
}

// A derivative (m x columns) against central differences D of f with step h: every entry within tolerance |D| plus the
// noise floor 1e-14 max|f(x)| / h times `scale` (tests/support/fd_check.hpp). Many derivatives here are zero by
// construction (a constant load's Jacobian, the Hessian of a linear constraint, a spring's dr/da): those are held to
// the floor, which is far below any entry that is not zero; `minimum_resolved` entries must stand above 10 x the floor.
::testing::AssertionResult fd_agree(const std::string& what, const Vector& D, const Vector& derivative,
                                    std::size_t columns, double h, const Vector& f_at_x, double tolerance,
                                    double scale = 1.0, std::size_t minimum_resolved = 0) {
  return flexadj::testing::jacobian_matches_central_differences(what, derivative, D, columns, h, max_abs(f_at_x),
                                                                flexadj::testing::kRoundOffAccuracy, tolerance, scale,
                                                                minimum_resolved);
}

// |got - expected| <= tolerance * max(1, max|got|) entrywise; a failure names the worst entry and lists
// the others that exceed the tolerance. For identities evaluated two ways (no differences); derivatives against
// central differences go through fd_agree.
::testing::AssertionResult agree(const std::string& what, const Vector& expected, const Vector& got, std::size_t columns,
                                 double tolerance, const char* expected_name = "FD", const char* got_name = "AD") {
  if (expected.size() != got.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " != " << expected.size();
  const double scale = std::max(1.0, max_abs(got));
  std::size_t worst = 0;
  double worst_error = -1.0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    const double error = std::abs(got[k] - expected[k]);
    if (error > worst_error || std::isnan(error)) {
      worst_error = std::isnan(error) ? INFINITY : error;
      worst = k;
    }
  }
  if (got.empty() || worst_error <= tolerance * scale) return ::testing::AssertionSuccess();
  std::ostringstream out;
  out.precision(15);
  out << what << ": worst entry (" << worst / columns << ", " << worst % columns << ") " << expected_name << " "
      << expected[worst] << " vs " << got_name << " " << got[worst] << ", relative error " << worst_error / scale
      << " > " << tolerance << " (scale " << scale << ")";
  int listed = 0;
  for (std::size_t k = 0; k < got.size() && listed < 24; ++k) {
    if (std::abs(got[k] - expected[k]) > tolerance * scale) {
      out << "\n    (" << k / columns << ", " << k % columns << ") " << expected_name << " " << expected[k] << "  "
          << got_name << " " << got[k];
      ++listed;
    }
  }
  return ::testing::AssertionFailure() << out.str();
}

// ---- component factories ------------------------------------------------------------------------------

using ForceFactory = std::function<std::unique_ptr<fm::ForceElement>(const State&)>;
using ConstraintFactory = std::function<std::unique_ptr<fm::Constraint>(const State&)>;

struct ForceCase {
  std::string name;
  std::vector<BodyKind> kinds;
  ForceFactory make;
};
struct ConstraintCase {
  std::string name;
  std::vector<BodyKind> kinds;
  ConstraintFactory make;
};
template <class Case> std::string param_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }
void PrintTo(const ForceCase& c, std::ostream* os) { *os << c.name; }
void PrintTo(const ConstraintCase& c, std::ostream* os) { *os << c.name; }

// Attachment points: on a body a small non-zero offset; on ground a global point away from the bodies.
fe::Point attachment(BodyKind kind, int slot) {
  if (kind == G) return slot == 0 ? fe::Point{-1.5, 0.3, 0.2} : fe::Point{2.0, -0.4, 0.3};
  return slot == 0 ? fe::Point{0.3, -0.2, 0.15} : fe::Point{-0.25, 0.35, -0.1};
}

// Non-diagonal, positive-definite inertia tensor (Ixx, Iyy, Izz, Ixy, Ixz, Iyz).
constexpr std::array<double, 6> kInertia{2.0, 3.0, 4.0, 0.3, -0.2, 0.4};

fm::Body make_body(BodyKind kind) {
  fm::Body body;
  body.name = std::string("body_") + kind_name(kind);
  body.kind = kind;
  body.mass = 1.7;
  body.inertia = kInertia;
  if (kind == PR) body.inertia = {0.0, 0.0, 0.45, 0.0, 0.0, 0.0};
  return body;
}

ForceCase body_inertia_case(BodyKind kind, const fe::Point& gravity, const std::string& prefix = "body_inertia") {
  return {case_name(prefix, {kind}), {kind},
          [kind, gravity](const State&) { return fe::make_body_inertia(make_body(kind), 0, gravity); }};
}

ForceCase spring_damper_case(std::array<BodyKind, 2> k, double damping, const std::string& prefix = "spring_damper") {
  return {case_name(prefix, {k[0], k[1]}), {k[0], k[1]}, [k, damping](const State&) {
            fe::SpringDamperData data;
            data.stiffness = 120.0;
            data.damping = damping;
            data.free_length = 0.8;
            data.point_a = attachment(k[0], 0);
            data.point_b = attachment(k[1], 1);
            return fe::make_spring_damper("spring", {body_index(k[0], 0), body_index(k[1], 1)}, k, data);
          }};
}

ForceCase rotational_case(std::array<BodyKind, 2> k, double stiffness, double damping,
                          const std::string& prefix = "rotational_spring_damper") {
  return {case_name(prefix, {k[0], k[1]}), {k[0], k[1]}, [k, stiffness, damping](const State&) {
            fe::RotationalSpringDamperData data;
            data.stiffness = stiffness;
            data.damping = damping;
            data.rest_angle = 0.35;
            const double norm = std::sqrt(0.3 * 0.3 + 0.5 * 0.5 + 0.8 * 0.8);
            data.axis = {0.3 / norm, -0.5 / norm, 0.8 / norm};
            return fe::make_rotational_spring_damper("rotational", {body_index(k[0], 0), body_index(k[1], 1)}, k, data);
          }};
}

// The rest angle is set 0.6 rad away from the direction of the line at the state, so that the angle
// stays clear of the +-pi branch cut of atan2.
ForceCase angle_case(std::array<BodyKind, 2> k, double damping, const std::string& prefix = "angle_spring_damper") {
  return {case_name(prefix, {k[0], k[1]}), {k[0], k[1]}, [k, damping](const State& s) {
            fe::AngleSpringDamperData data;
            data.stiffness = 35.0;
            data.damping = damping;
            data.point_a = attachment(k[0], 0);
            data.point_b = attachment(k[1], 1);
            const int offset_b = fm::coordinate_count(k[0]);
            const auto pa = fm::point_position(k[0], s.q.data(), data.point_a);
            const auto pb = fm::point_position(k[1], s.q.data() + offset_b, data.point_b);
            data.rest_angle = std::atan2(pb[1] - pa[1], pb[0] - pa[0]) - 0.6;
            return fe::make_angle_spring_damper("angle", {body_index(k[0], 0), body_index(k[1], 1)}, k, data);
          }};
}

ForceCase load_case(BodyKind kind, bool body_frame) {
  const std::string prefix = body_frame ? "load_body_frame" : "load_global_frame";
  return {case_name(prefix, {kind}), {kind}, [kind, body_frame](const State&) {
            fe::LoadData data;
            data.point = {0.3, -0.2, 0.25};
            data.force = {ff::Expression::parse("0.1*sin(2*t) + 1.5"), ff::Expression::parse("-0.7*cos(t)"),
                          ff::Expression::parse("0.4*t^2")};
            data.moment = {ff::Expression::parse("0.2*t"), ff::Expression::parse("-0.3"),
                           ff::Expression::parse("0.5*exp(-t)")};
            data.control = std::make_shared<ff::ControlSignal>("u", Vector{0.0, 0.5, 1.0, 2.0},
                                                               Vector{0.0, 1.2, -0.4, 0.8},
                                                               ff::Interpolation::PiecewiseLinear);
            data.control_force_direction = {0.6, -0.3, 0.2};
            data.control_moment_direction = {0.1, 0.2, -0.5};
            data.body_frame = body_frame;
            return fe::make_load("load", 0, kind, data);
          }};
}

std::vector<ForceCase> force_cases() {
  std::vector<ForceCase> cases;
  const fe::Point gravity{0.4, -9.81, -1.3};
  for (BodyKind kind : {P2, PR, P3, SR}) cases.push_back(body_inertia_case(kind, gravity));
  for (const auto& k : all_pairs()) cases.push_back(spring_damper_case(k, 3.5));
  // Rotational springs connect rigid bodies or ground, ground first (as the model reader orders them).
  for (const auto& k : std::vector<std::array<BodyKind, 2>>{{G, PR}, {PR, PR}}) cases.push_back(rotational_case(k, 40.0, 2.5));
  for (const auto& k : std::vector<std::array<BodyKind, 2>>{{G, SR}, {SR, SR}}) cases.push_back(rotational_case(k, 0.0, 2.5));
  for (const auto& k : kPlanarPairs) cases.push_back(angle_case(k, 1.5));
  for (BodyKind kind : {P2, PR, P3, SR})
    for (bool body_frame : {false, true}) cases.push_back(load_case(kind, body_frame));
  return cases;
}

// Conservative variants (no damping) for the energy checks.
std::vector<ForceCase> conservative_cases() {
  std::vector<ForceCase> cases;
  const fe::Point gravity{0.4, -9.81, -1.3};
  for (BodyKind kind : {P2, PR, P3, SR}) cases.push_back(body_inertia_case(kind, gravity, "body_weight"));
  for (const auto& k : all_pairs()) cases.push_back(spring_damper_case(k, 0.0, "spring"));
  for (const auto& k : std::vector<std::array<BodyKind, 2>>{{G, PR}, {PR, PR}})
    cases.push_back(rotational_case(k, 40.0, 0.0, "rotational_spring"));
  for (const auto& k : kPlanarPairs) cases.push_back(angle_case(k, 0.0, "angle_spring"));
  return cases;
}

const char* joint_name(fc::JointKind kind) {
  switch (kind) {
    case fc::JointKind::Spherical: return "spherical";
    case fc::JointKind::Revolute: return "revolute";
    case fc::JointKind::Prismatic: return "prismatic";
    case fc::JointKind::Fixed: return "fixed";
  }
  return "joint";
}

// Joint geometry from a global point and axis at a reference configuration (another seeded random state
// with unit Euler parameters), as the model builder does.
ConstraintCase joint_case(fc::JointKind joint, std::array<BodyKind, 2> k) {
  const std::string name = case_name(joint_name(joint), {k[0], k[1]});
  return {name, {k[0], k[1]}, [joint, k, name](const State&) {
            const bool planar = k[0] == P2 || k[0] == PR || k[1] == P2 || k[1] == PR;
            fm::Model model;
            model.dimension = planar ? 2 : 3;
            const State reference = random_state({k[0], k[1]}, seed_of(name) + 17u, Quaternions::Unit);
            int index[2] = {kGround, kGround};
            int offset = 0;
            for (int slot = 0; slot < 2; ++slot) {
              const int n = fm::coordinate_count(k[slot]);
              if (k[slot] != G) {
                fm::Body body = make_body(k[slot]);
                body.name += std::to_string(slot);
                body.initial_coordinates.assign(reference.q.begin() + offset, reference.q.begin() + offset + n);
                body.initial_velocities.assign(n, 0.0);
                index[slot] = model.add_body(body);
              }
              offset += n;
            }
            const fm::Point point{0.9, 0.2, planar ? 0.0 : -0.3};
            const fm::Point axis = planar ? fm::Point{0.6, 0.8, 0.0} : fm::Point{0.3, 0.5, 0.8};
            const auto geometry = model.joint_geometry(joint, index[0], index[1], point, axis);
            return fc::make_joint("joint", joint, {body_index(k[0], 0), body_index(k[1], 1)}, k, geometry);
          }};
}

ConstraintCase distance_case(std::array<BodyKind, 2> k) {
  return {case_name("distance", {k[0], k[1]}), {k[0], k[1]}, [k](const State&) {
            return fc::make_distance("rod", {body_index(k[0], 0), body_index(k[1], 1)}, k, attachment(k[0], 0),
                                     attachment(k[1], 1), 1.3);
          }};
}

ConstraintCase winch_case(std::array<BodyKind, 3> k) {
  return {case_name("winch", {k[0], k[1], k[2]}), {k[0], k[1], k[2]}, [k](const State&) {
            return fc::make_winch("winch", {body_index(k[0], 0), body_index(k[1], 1), 2}, k, attachment(k[0], 0),
                                  attachment(k[1], 1), 1.1, 0.25, 0.4);
          }};
}

ConstraintCase prescribed_motion_case(BodyKind kind, std::array<bool, 3> axes) {
  std::string name = "prescribed_motion_";
  for (int i = 0; i < 3; ++i)
    if (axes[i]) name += "xyz"[i];
  return {case_name(name, {kind}), {kind}, [kind, axes](const State&) {
            const std::array<ff::Expression, 3> path{ff::Expression::parse("0.1*sin(2*t)"),
                                                     ff::Expression::parse("0.3*t^2 - 0.2*cos(t)"),
                                                     ff::Expression::parse("0.5*exp(-t)")};
            return fc::make_prescribed_motion("driver", 0, kind, {0.3, -0.2, 0.25}, path, axes);
          }};
}

ConstraintCase prescribed_coordinate_case(BodyKind kind, int coordinate, const std::string& expression) {
  const std::string name = case_name("prescribed_coordinate" + std::to_string(coordinate), {kind}) +
                           (expression.find('t') == std::string::npos ? "_constant" : "");
  return {name, {kind}, [kind, coordinate, expression](const State&) {
            return fc::make_prescribed_coordinate("driver", 0, kind, coordinate, ff::Expression::parse(expression));
          }};
}

std::vector<ConstraintCase> constraint_cases() {
  std::vector<ConstraintCase> cases;
  cases.push_back({"unit_quaternion_SpatialRigid", {SR}, [](const State&) { return fc::make_unit_quaternion("body", 0); }});
  cases.push_back({"unit_dual_quaternion", {BodyKind::DualQuaternionNode},
                   [](const State&) { return fc::make_unit_dual_quaternion("node", 0); }});
  // Joint kinds as the model reader admits them: ground only as body a (b carries the rotation lock); a
  // prismatic joint between two bodies needs a rigid body a; a spatial revolute joint needs rigid bodies.
  const std::vector<std::array<BodyKind, 2>> planar = {{G, P2}, {G, PR}, {P2, PR}, {PR, P2}, {PR, PR}, {P2, P2}};
  const std::vector<std::array<BodyKind, 2>> spatial = {{G, P3}, {G, SR}, {P3, SR}, {SR, P3}, {SR, SR}, {P3, P3}};
  for (auto joint : {fc::JointKind::Spherical, fc::JointKind::Revolute, fc::JointKind::Prismatic, fc::JointKind::Fixed}) {
    for (const bool in_space : {false, true}) {
      for (const auto& k : in_space ? spatial : planar) {
        const bool point_mass_a = k[0] == P2 || k[0] == P3;
        if (joint == fc::JointKind::Prismatic && point_mass_a) continue;
        if (joint == fc::JointKind::Revolute && in_space && (point_mass_a || k[1] == P3)) continue;
        cases.push_back(joint_case(joint, k));
      }
    }
  }
  for (const auto& k : all_pairs()) cases.push_back(distance_case(k));
  for (const auto& k : std::vector<std::array<BodyKind, 3>>{{G, P2, PR}, {P2, G, PR}, {PR, P2, PR}, {P2, PR, PR}})
    cases.push_back(winch_case(k));
  cases.push_back(prescribed_motion_case(P2, {true, true, false}));
  cases.push_back(prescribed_motion_case(PR, {true, true, false}));
  cases.push_back(prescribed_motion_case(PR, {false, true, false}));
  cases.push_back(prescribed_motion_case(P3, {true, true, true}));
  cases.push_back(prescribed_motion_case(SR, {true, true, true}));
  cases.push_back(prescribed_motion_case(SR, {true, false, true}));
  cases.push_back(prescribed_coordinate_case(P2, 1, "0.2*sin(3*t) + 0.1*t"));
  cases.push_back(prescribed_coordinate_case(PR, 2, "0.2*sin(3*t) + 0.1*t"));
  cases.push_back(prescribed_coordinate_case(P3, 2, "0.3*cos(2*t)"));
  cases.push_back(prescribed_coordinate_case(SR, 5, "0.1*t^2"));
  cases.push_back(prescribed_coordinate_case(SR, 0, "0.75"));
  return cases;
}

// ---- force elements: residual_jacobian against central differences ---------------------------------------

class ForceElementDerivatives : public ::testing::TestWithParam<ForceCase> {};

TEST_P(ForceElementDerivatives, ResidualJacobianMatchesCentralDifferences) {
  const ForceCase& c = GetParam();
  for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
    SCOPED_TRACE(quaternion_name(variant));
    const State s = random_state(c.kinds, seed_of(c.name), variant);
    const auto element = c.make(s);
    const std::size_t n = element->coordinate_count();
    ASSERT_EQ(n, s.q.size());
    auto residual_of = [&](int which) -> VectorFunction {
      return [&, which](const Vector& x) {
        Vector r(n);
        element->residual(which == 0 ? x.data() : s.q.data(), which == 1 ? x.data() : s.v.data(),
                          which == 2 ? x.data() : s.a.data(), s.t, r.data());
        return r;
      };
    };
    const Vector dq = central_difference_jacobian(residual_of(0), s.q);
    const Vector dv = central_difference_jacobian(residual_of(1), s.v);
    const Vector da = central_difference_jacobian(residual_of(2), s.a);
    Vector r_plain(n);
    element->residual(s.q.data(), s.v.data(), s.a.data(), s.t, r_plain.data());
    for (const fm::JacobianCoefficients coefficients :
         {fm::JacobianCoefficients{1.0, 0.0, 0.0}, fm::JacobianCoefficients{0.0, 1.0, 0.0},
          fm::JacobianCoefficients{0.0, 0.0, 1.0}, fm::JacobianCoefficients{0.7, 1.3, 2.1}}) {
      std::ostringstream label;
      label << c.name << " (" << quaternion_name(variant) << ") J = " << coefficients.q << " dr/dq + "
            << coefficients.v << " dr/dv + " << coefficients.a << " dr/da";
      Vector r(n), J(n * n);
      element->residual_jacobian(s.q.data(), s.v.data(), s.a.data(), s.t, coefficients, r.data(), J.data());
      Vector expected(n * n);
      for (std::size_t k = 0; k < n * n; ++k)
        expected[k] = coefficients.q * dq[k] + coefficients.v * dv[k] + coefficients.a * da[k];
      EXPECT_TRUE(fd_agree(label.str(), expected, J, n, 1e-6, r_plain, 1e-6,
                           coefficients.q + coefficients.v + coefficients.a));
      EXPECT_TRUE(agree(label.str() + ": residual output", r_plain, r, 1, 1e-14, "residual()", "residual_jacobian()"));
    }
  }
}

// T = 1/2 v^T M v with M = dr/da (zero for elements without inertia); M is symmetric.
TEST_P(ForceElementDerivatives, MassMatrixGivesKineticEnergy) {
  const ForceCase& c = GetParam();
  for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
    SCOPED_TRACE(quaternion_name(variant));
    const State s = random_state(c.kinds, seed_of(c.name), variant);
    const auto element = c.make(s);
    const std::size_t n = element->coordinate_count();
    Vector r(n), M(n * n), Mt(n * n);
    element->residual_jacobian(s.q.data(), s.v.data(), s.a.data(), s.t, {0.0, 0.0, 1.0}, r.data(), M.data());
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) Mt[j * n + i] = M[i * n + j];
    EXPECT_TRUE(agree(c.name + ": mass matrix symmetry", Mt, M, n, 1e-14, "M^T", "M"));
    double vMv = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) vMv += s.v[i] * M[i * n + j] * s.v[j];
    const double T = element->kinetic_energy(s.q.data(), s.v.data());
    EXPECT_NEAR(T, 0.5 * vMv, 1e-13 * std::max(1.0, std::abs(T))) << c.name;
  }
}

// The adjoint's products (dr/dq)^T mu, (dr/dv)^T mu, (dr/da)^T mu are the transposed Jacobians of
// residual_jacobian (a kernel without inertia skips its a slots: its (dr/da)^T mu must still come out zero).
TEST_P(ForceElementDerivatives, TransposedProductsAreTheTransposedJacobians) {
  const ForceCase& c = GetParam();
  const State s = random_state(c.kinds, seed_of(c.name), Quaternions::Perturbed);
  const auto element = c.make(s);
  const std::size_t n = element->coordinate_count();
  std::mt19937 rng(seed_of(c.name) + 5u);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vector mu(n);
  for (double& x : mu) x = u(rng);
  Vector out_q(n, 0.0), out_v(n, 0.0), out_a(n, 0.0);
  element->add_transposed_products(s.q.data(), s.v.data(), s.a.data(), s.t, mu.data(), out_q.data(), out_v.data(),
                                   out_a.data());
  const std::array<fm::JacobianCoefficients, 3> blocks{
      fm::JacobianCoefficients{1.0, 0.0, 0.0}, fm::JacobianCoefficients{0.0, 1.0, 0.0},
      fm::JacobianCoefficients{0.0, 0.0, 1.0}};
  const std::array<const Vector*, 3> products{&out_q, &out_v, &out_a};
  const char* names[3] = {"(dr/dq)^T mu", "(dr/dv)^T mu", "(dr/da)^T mu"};
  for (int b = 0; b < 3; ++b) {
    Vector r(n), J(n * n), expected(n, 0.0);
    element->residual_jacobian(s.q.data(), s.v.data(), s.a.data(), s.t, blocks[b], r.data(), J.data());
    double scale = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        expected[j] += J[i * n + j] * mu[i];
        scale = std::max(scale, std::abs(J[i * n + j]));
      }
    for (std::size_t j = 0; j < n; ++j)
      EXPECT_NEAR((*products[b])[j], expected[j], 1e-13 * (1.0 + scale * n)) << c.name << " " << names[b] << " " << j;
  }
  // residual_jacobians() (the adjoint step's kept Jacobians): the three blocks of residual_jacobian and its residual.
  Vector r_all(n), blocks_all[3] = {Vector(n * n), Vector(n * n), Vector(n * n)};
  element->residual_jacobians(s.q.data(), s.v.data(), s.a.data(), s.t, r_all.data(), blocks_all[0].data(),
                              blocks_all[1].data(), blocks_all[2].data());
  for (int b = 0; b < 3; ++b) {
    Vector r(n), J(n * n);
    element->residual_jacobian(s.q.data(), s.v.data(), s.a.data(), s.t, blocks[b], r.data(), J.data());
    double scale = 0.0;
    for (double x : J) scale = std::max(scale, std::abs(x));
    for (std::size_t k = 0; k < n * n; ++k)
      EXPECT_NEAR(blocks_all[b][k], J[k], 1e-13 * (1.0 + scale)) << c.name << " residual_jacobians block " << b;
    for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(r_all[i], r[i], 1e-13 * (1.0 + std::abs(r[i]))) << c.name;
  }
}

// The parameter partials of the wanted parameters only (the adjoint's ParameterMask): each parameter alone gives the
// entry of the full evaluation to round-off (Sacado takes other branches where an operand is constant, e.g. in a
// quotient), and the entries of the others are left alone.
TEST_P(ForceElementDerivatives, MaskedParameterGradientIsTheFullOnesEntry) {
  const ForceCase& c = GetParam();
  const State s = random_state(c.kinds, seed_of(c.name), Quaternions::Perturbed);
  const auto element = c.make(s);
  const std::size_t n = element->coordinate_count(), np = element->parameters().size();
  std::mt19937 rng(seed_of(c.name) + 9u);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vector mu(n);
  for (double& x : mu) x = u(rng);
  Vector full(np, 0.0);
  element->add_parameter_gradient(s.q.data(), s.v.data(), s.a.data(), s.t, mu.data(), full.data());
  for (std::size_t k = 0; k < np; ++k) {
    Vector alone(np, 0.0);
    element->add_parameter_gradient(s.q.data(), s.v.data(), s.a.data(), s.t, mu.data(), alone.data(),
                                    fm::ParameterMask(1) << k);
    for (std::size_t j = 0; j < np; ++j)
      if (j == k)
        EXPECT_NEAR(alone[j], full[j], 1e-13 * (1.0 + std::abs(full[j])))
            << c.name << " parameter " << element->parameter_names()[j];
      else
        EXPECT_EQ(alone[j], 0.0) << c.name << " parameter " << element->parameter_names()[j] << " not wanted";
  }
}

INSTANTIATE_TEST_SUITE_P(Components, ForceElementDerivatives, ::testing::ValuesIn(force_cases()),
                         param_name<ForceCase>);

// ---- constraints: jacobian, multiplier_hessian, time_derivatives against central differences --------------

class ConstraintDerivatives : public ::testing::TestWithParam<ConstraintCase> {};

TEST_P(ConstraintDerivatives, JacobianMatchesCentralDifferences) {
  const ConstraintCase& c = GetParam();
  for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
    SCOPED_TRACE(quaternion_name(variant));
    const State s = random_state(c.kinds, seed_of(c.name), variant);
    const auto constraint = c.make(s);
    const std::size_t n = constraint->coordinate_count(), m = constraint->equation_count();
    ASSERT_EQ(n, s.q.size());
    ASSERT_GT(m, 0u);
    const VectorFunction value = [&](const Vector& x) {
      Vector out(m);
      constraint->value(x.data(), s.t, out.data());
      return out;
    };
    Vector cv(m), Cq(m * n);
    constraint->jacobian(s.q.data(), s.t, cv.data(), Cq.data());
    const std::string label = c.name + " (" + quaternion_name(variant) + ")";
    EXPECT_TRUE(fd_agree(label + ": jacobian", central_difference_jacobian(value, s.q), Cq, n, 1e-6, value(s.q), 1e-6));
    EXPECT_TRUE(agree(label + ": value output of jacobian()", value(s.q), cv, 1, 1e-14, "value()", "jacobian()"));
  }
}

TEST_P(ConstraintDerivatives, MultiplierHessianMatchesCentralDifferences) {
  const ConstraintCase& c = GetParam();
  for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
    SCOPED_TRACE(quaternion_name(variant));
    const State s = random_state(c.kinds, seed_of(c.name), variant);
    const auto constraint = c.make(s);
    const std::size_t n = constraint->coordinate_count(), m = constraint->equation_count();
    std::mt19937 rng(seed_of(c.name) + 3u);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    Vector lambda(m);
    for (double& l : lambda) l = u(rng);
    // g(q) = Cq(q)^T lambda; H = dg/dq.
    const VectorFunction g = [&](const Vector& x) {
      Vector cv(m), Cq(m * n), out(n, 0.0);
      constraint->jacobian(x.data(), s.t, cv.data(), Cq.data());
      for (std::size_t k = 0; k < m; ++k)
        for (std::size_t i = 0; i < n; ++i) out[i] += Cq[k * n + i] * lambda[k];
      return out;
    };
    Vector H(n * n);
    constraint->multiplier_hessian(s.q.data(), lambda.data(), s.t, H.data());
    const std::string label = c.name + " (" + quaternion_name(variant) + "): multiplier_hessian";
    EXPECT_TRUE(fd_agree(label, central_difference_jacobian(g, s.q), H, n, 1e-6, g(s.q), 1e-6));
  }
}

// jacobian_and_hessian (which may exploit structure: joints are affine in the bodies' translations; the spatial
// joints' derivatives are written out by hand) equals the plain nested AD over all coordinates to round-off, on
// five random states of each kind.
TEST_P(ConstraintDerivatives, HessianEqualsThePlainNestedAD) {
  const ConstraintCase& c = GetParam();
  for (int draw = 0; draw < 5; ++draw) {
    for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
      const State s = random_state(c.kinds, seed_of(c.name) + 1009u * static_cast<unsigned>(draw), variant);
      const auto constraint = c.make(s);
      const std::size_t n = constraint->coordinate_count(), m = constraint->equation_count();
      std::mt19937 rng(seed_of(c.name) + 17u + 1009u * static_cast<unsigned>(draw));
      std::uniform_real_distribution<double> u(-2.0, 2.0);
      Vector lambda(m);
      for (double& l : lambda) l = u(rng);
      Vector c1(m), Cq1(m * n), H1(n * n), c2(m), Cq2(m * n), H2(n * n);
      constraint->jacobian_and_hessian(s.q.data(), lambda.data(), s.t, c1.data(), Cq1.data(), H1.data());
      constraint->jacobian_and_hessian_reference(s.q.data(), lambda.data(), s.t, c2.data(), Cq2.data(), H2.data());
      const std::string label = c.name + " (" + quaternion_name(variant) + ", draw " + std::to_string(draw) + ")";
      EXPECT_TRUE(agree(label + ": value", c2, c1, 1, 1e-15, "plain", "structured"));
      EXPECT_TRUE(agree(label + ": Cq", Cq2, Cq1, n, 1e-14, "plain", "structured"));
      EXPECT_TRUE(agree(label + ": Hessian", H2, H1, n, 1e-14, "plain", "structured"));
      Vector c3(m), Cq3(m * n);  // the first-order path
      constraint->jacobian(s.q.data(), s.t, c3.data(), Cq3.data());
      EXPECT_TRUE(agree(label + ": jacobian() value", c2, c3, 1, 1e-15, "plain", "structured"));
      EXPECT_TRUE(agree(label + ": jacobian() Cq", Cq2, Cq3, n, 1e-14, "plain", "structured"));
    }
  }
}

// The unit dual quaternion's hand-written derivatives (value, C_q, lambda . C_qq, dc/ds, d2c/ds2 and the levels'
// Jacobians in q and v) against its plain Sacado passes, on random states with |q_r| != 1 and q_r.q_d != 0.
TEST(UnitDualQuaternion, HandDerivativesEqualThePlainAD) {
  const auto hand = fc::make_unit_dual_quaternion("node", 0);
  const auto ad = fc::make_unit_dual_quaternion_plain_ad("node", 0);
  const std::size_t n = 8, m = 2;
  for (int draw = 0; draw < 20; ++draw) {
    const State s = random_state({BodyKind::DualQuaternionNode}, 4001u + 13u * static_cast<unsigned>(draw),
                                 Quaternions::Perturbed);
    const Vector lambda = {0.3 - 0.05 * draw, -1.1 + 0.1 * draw};
    const std::string label = "draw " + std::to_string(draw);
    Vector c[2], Cq[2], H[2], c_dot[2], c_ddot[2];
    const fm::Constraint* constraint[2] = {ad.get(), hand.get()};
    for (int k = 0; k < 2; ++k) {
      c[k].resize(m), Cq[k].resize(m * n), H[k].resize(n * n), c_dot[k].resize(m), c_ddot[k].resize(m);
      constraint[k]->jacobian_and_hessian(s.q.data(), lambda.data(), s.t, c[k].data(), Cq[k].data(), H[k].data());
    }
    EXPECT_TRUE(agree(label + ": value", c[0], c[1], 1, 1e-15, "AD", "hand"));
    EXPECT_TRUE(agree(label + ": Cq", Cq[0], Cq[1], n, 1e-15, "AD", "hand"));
    EXPECT_TRUE(agree(label + ": Hessian", H[0], H[1], n, 1e-15, "AD", "hand"));
    for (int k = 0; k < 2; ++k) constraint[k]->jacobian(s.q.data(), s.t, c[k].data(), Cq[k].data());
    EXPECT_TRUE(agree(label + ": jacobian()", Cq[0], Cq[1], n, 1e-15, "AD", "hand"));
    for (int k = 0; k < 2; ++k)
      constraint[k]->time_derivatives(s.q.data(), s.v.data(), s.a.data(), s.t, c[k].data(), c_dot[k].data(),
                                      c_ddot[k].data());
    EXPECT_TRUE(agree(label + ": dc/ds", c_dot[0], c_dot[1], 1, 1e-15, "AD", "hand"));
    EXPECT_TRUE(agree(label + ": d2c/ds2", c_ddot[0], c_ddot[1], 1, 1e-15, "AD", "hand"));
    EXPECT_GT(max_abs(c_ddot[0]), 0.1) << label;
    for (int level : {1, 2}) {
      Vector d_dq[2], d_dv[2];
      for (int k = 0; k < 2; ++k) {
        d_dq[k].assign(m * n, 7.0), d_dv[k].assign(m * n, 7.0);
        constraint[k]->level_jacobians(s.q.data(), s.v.data(), s.a.data(), s.t, level, d_dq[k].data(),
                                       d_dv[k].data());
      }
      const std::string what = label + ": level_jacobians, level " + std::to_string(level);
      EXPECT_TRUE(agree(what + " d/dq", d_dq[0], d_dq[1], n, 1e-15, "AD", "hand"));
      EXPECT_TRUE(agree(what + " d/dv", d_dv[0], d_dv[1], n, 1e-15, "AD", "hand"));
    }
  }
}

// As for force elements: the wanted parameters' partials alone, at each constraint level.
TEST_P(ConstraintDerivatives, MaskedParameterGradientIsTheFullOnesEntry) {
  const ConstraintCase& c = GetParam();
  const State s = random_state(c.kinds, seed_of(c.name), Quaternions::Perturbed);
  const auto constraint = c.make(s);
  const std::size_t n = constraint->coordinate_count(), m = constraint->equation_count();
  const std::size_t np = constraint->parameters().size();
  std::mt19937 rng(seed_of(c.name) + 13u);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vector lambda(m), mu_r(n), mu_c(m);
  for (auto* v : {&lambda, &mu_r, &mu_c})
    for (double& x : *v) x = u(rng);
  for (int level = 0; level <= 2; ++level) {
    Vector full(np, 0.0);
    constraint->add_parameter_gradient(s.q.data(), s.v.data(), s.a.data(), s.t, lambda.data(), mu_r.data(),
                                       mu_c.data(), level, full.data());
    for (std::size_t k = 0; k < np; ++k) {
      Vector alone(np, 0.0);
      constraint->add_parameter_gradient(s.q.data(), s.v.data(), s.a.data(), s.t, lambda.data(), mu_r.data(),
                                         mu_c.data(), level, alone.data(), fm::ParameterMask(1) << k);
      for (std::size_t j = 0; j < np; ++j)
        if (j == k)
          EXPECT_NEAR(alone[j], full[j], 1e-13 * (1.0 + std::abs(full[j])))
              << c.name << " level " << level << " parameter " << j;
        else
          EXPECT_EQ(alone[j], 0.0) << c.name << " level " << level << " parameter " << j << " not wanted";
    }
  }
}

TEST_P(ConstraintDerivatives, TimeDerivativesMatchCentralDifferences) {
  const ConstraintCase& c = GetParam();
  for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
    SCOPED_TRACE(quaternion_name(variant));
    const State s = random_state(c.kinds, seed_of(c.name), variant);
    const auto constraint = c.make(s);
    const std::size_t n = constraint->coordinate_count(), m = constraint->equation_count();
    // C along q(s) = q + v s + (a s^2/2 if `second`), t + s.
    auto along = [&](double step, bool second) {
      Vector x(n), out(m);
      for (std::size_t i = 0; i < n; ++i) x[i] = s.q[i] + s.v[i] * step + (second ? 0.5 * s.a[i] * step * step : 0.0);
      constraint->value(x.data(), s.t + step, out.data());
      return out;
    };
    const double h = 1e-4;
    Vector c0(m), c_dot(m), c_ddot(m), c_plain(m), dot_fd(m), ddot_fd(m);
    constraint->time_derivatives(s.q.data(), s.v.data(), s.a.data(), s.t, c0.data(), c_dot.data(), c_ddot.data());
    constraint->value(s.q.data(), s.t, c_plain.data());
    const Vector p1 = along(h, false), m1 = along(-h, false), p2 = along(h, true), m2 = along(-h, true);
    for (std::size_t k = 0; k < m; ++k) {
      dot_fd[k] = (p1[k] - m1[k]) / (2.0 * h);
      ddot_fd[k] = (p2[k] - 2.0 * c_plain[k] + m2[k]) / (h * h);
    }
    const std::string label = c.name + " (" + quaternion_name(variant) + "): time_derivatives ";
    EXPECT_TRUE(agree(label + "c", c_plain, c0, 1, 1e-14, "value()", "time_derivatives()"));
    // The second difference has noise 4 eps |c| / h^2: the floor of a first difference times 4 / h.
    EXPECT_TRUE(fd_agree(label + "c_dot", dot_fd, c_dot, 1, h, c_plain, 1e-5));
    EXPECT_TRUE(fd_agree(label + "c_ddot", ddot_fd, c_ddot, 1, h, c_plain, 1e-5, 4.0 / h));
  }
}

// level_jacobians (the adjoint's d(dc/ds)/d(q, v) and d(d2c/ds2)/d(q, v)) against central differences of
// time_derivatives, which the test above checks against differences of value().
TEST_P(ConstraintDerivatives, LevelJacobiansMatchCentralDifferences) {
  const ConstraintCase& c = GetParam();
  for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
    SCOPED_TRACE(quaternion_name(variant));
    const State s = random_state(c.kinds, seed_of(c.name), variant);
    const auto constraint = c.make(s);
    const std::size_t n = constraint->coordinate_count(), m = constraint->equation_count();
    for (int level = 1; level <= 2; ++level) {
      // The level's constraint as a function of q (by_velocity false) or of v (true).
      auto level_value = [&](bool by_velocity) -> VectorFunction {
        return [&, by_velocity](const Vector& x) {
          Vector c0(m), c_dot(m), c_ddot(m);
          const Vector& q = by_velocity ? s.q : x;
          const Vector& v = by_velocity ? x : s.v;
          constraint->time_derivatives(q.data(), v.data(), s.a.data(), s.t, c0.data(), c_dot.data(), c_ddot.data());
          return level == 1 ? c_dot : c_ddot;
        };
      };
      Vector d_dq(m * n), d_dv(m * n);
      constraint->level_jacobians(s.q.data(), s.v.data(), s.a.data(), s.t, level, d_dq.data(), d_dv.data());
      const std::string label =
          c.name + " (" + quaternion_name(variant) + "): level_jacobians, level " + std::to_string(level);
      const VectorFunction by_q = level_value(false), by_v = level_value(true);
      EXPECT_TRUE(fd_agree(label + ", d/dq", central_difference_jacobian(by_q, s.q), d_dq, n, 1e-6, by_q(s.q), 1e-6));
      EXPECT_TRUE(fd_agree(label + ", d/dv", central_difference_jacobian(by_v, s.v), d_dv, n, 1e-6, by_v(s.v), 1e-6));
    }
  }
}

// The second-order adjoint's level_tangent (d/de of C, dc/ds, d2c/ds2) and add_level_transposed_tangent (d/de of
// level_jacobians^T mu_c) along a random direction (q_dot, v_dot, a_dot), against central differences of
// time_derivatives and level_jacobians along it.
TEST_P(ConstraintDerivatives, LevelTangentsMatchCentralDifferences) {
  const ConstraintCase& c = GetParam();
  for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
    SCOPED_TRACE(quaternion_name(variant));
    const State s = random_state(c.kinds, seed_of(c.name), variant);
    const State e = random_state(c.kinds, seed_of(c.name) + 5u, Quaternions::Perturbed);  // the direction: e.q, e.v, e.a
    const auto constraint = c.make(s);
    const std::size_t n = constraint->coordinate_count(), m = constraint->equation_count();
    Vector mu(m);
    for (std::size_t k = 0; k < m; ++k) mu[k] = 0.7 - 0.45 * static_cast<double>(k);
    // The levels' c and (d_dq^T mu, d_dv^T mu) at the state moved by `step` along e.
    auto moved = [&](double step, int level, bool transposed) {
      Vector q(n), v(n), a(n);
      for (std::size_t i = 0; i < n; ++i) {
        q[i] = s.q[i] + step * e.q[i];
        v[i] = s.v[i] + step * e.v[i];
        a[i] = s.a[i] + step * e.a[i];
      }
      if (!transposed) {
        Vector c0(m), c_dot(m), c_ddot(m);
        constraint->time_derivatives(q.data(), v.data(), a.data(), s.t, c0.data(), c_dot.data(), c_ddot.data());
        return level == 0 ? c0 : level == 1 ? c_dot : c_ddot;
      }
      Vector d_dq(m * n), d_dv(m * n), c0(m), out(2 * n, 0.0);
      if (level == 0)
        constraint->jacobian(q.data(), s.t, c0.data(), d_dq.data());
      else
        constraint->level_jacobians(q.data(), v.data(), a.data(), s.t, level, d_dq.data(), d_dv.data());
      for (std::size_t k = 0; k < m; ++k)
        for (std::size_t i = 0; i < n; ++i) {
          out[i] += d_dq[k * n + i] * mu[k];
          out[n + i] += level == 0 ? 0.0 : d_dv[k * n + i] * mu[k];
        }
      return out;
    };
    const double h = 1e-5;
    for (int level = 0; level <= 2; ++level) {
      const std::string label = c.name + " (" + quaternion_name(variant) + "), level " + std::to_string(level);
      Vector c_dot(m), out(2 * n, 0.0), fd(m), fd_out(2 * n);
      constraint->level_tangent(s.q.data(), s.v.data(), s.a.data(), s.t, e.q.data(), e.v.data(), e.a.data(), nullptr,
                                level, c_dot.data());
      constraint->add_level_transposed_tangent(s.q.data(), s.v.data(), s.a.data(), s.t, e.q.data(), e.v.data(),
                                               e.a.data(), nullptr, level, mu.data(), out.data(), out.data() + n);
      const Vector cp = moved(h, level, false), cm = moved(-h, level, false);
      for (std::size_t k = 0; k < m; ++k) fd[k] = (cp[k] - cm[k]) / (2.0 * h);
      const Vector op = moved(h, level, true), om = moved(-h, level, true);
      for (std::size_t i = 0; i < 2 * n; ++i) fd_out[i] = (op[i] - om[i]) / (2.0 * h);
      EXPECT_TRUE(fd_agree(label + ": level_tangent", fd, c_dot, 1, h, moved(0.0, level, false), 1e-6));
      EXPECT_TRUE(fd_agree(label + ": add_level_transposed_tangent", fd_out, out, 1, h, moved(0.0, level, true), 1e-6));
    }
  }
}

// The second-order kernels along a direction that moves the constraint's own parameters as well (p_dot, with q_dot,
// v_dot, a_dot, lambda_dot): each against central differences of its first-order counterpart with every input moved
// (constraint_tangent: value() and jacobian(); add_second_order_products: add_transposed_products() and C_q mu_r;
// the level kernels: time_derivatives() and level_jacobians(); add_parameter_second_order: add_parameter_gradient()).
TEST_P(ConstraintDerivatives, ParameterDirectionsMatchCentralDifferences) {
  const ConstraintCase& c = GetParam();
  const State s = random_state(c.kinds, seed_of(c.name), Quaternions::Perturbed);
  const State e = random_state(c.kinds, seed_of(c.name) + 5u, Quaternions::Perturbed);
  const auto constraint = c.make(s);
  const std::size_t n = constraint->coordinate_count(), m = constraint->equation_count();
  const std::size_t np = constraint->parameters().size();
  if (np == 0) GTEST_SKIP() << c.name << " has no parameters";
  const Vector p0 = constraint->parameters();
  std::mt19937 rng(seed_of(c.name) + 29u);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vector lambda(m), lambda_dot(m), mu_r(n), mu_c(m), p_dot(np);
  for (auto* v : {&lambda, &lambda_dot, &mu_r, &mu_c, &p_dot})
    for (double& x : *v) x = u(rng);
  // Everything moved by `step` along e: state, multipliers, parameters (restored by the caller's next move).
  struct Moved {
    Vector q, v, a, lambda;
  };
  auto move = [&](double step) {
    Moved x{Vector(n), Vector(n), Vector(n), Vector(m)};
    for (std::size_t i = 0; i < n; ++i) {
      x.q[i] = s.q[i] + step * e.q[i];
      x.v[i] = s.v[i] + step * e.v[i];
      x.a[i] = s.a[i] + step * e.a[i];
    }
    for (std::size_t k = 0; k < m; ++k) x.lambda[k] = lambda[k] + step * lambda_dot[k];
    for (std::size_t k = 0; k < np; ++k) constraint->set_parameter(static_cast<int>(k), p0[k] + step * p_dot[k]);
    return x;
  };
  // The first-order quantities at the moved point, concatenated.
  auto first_order = [&](double step, int level) {
    const Moved x = move(step);
    Vector out;
    Vector c0(m), Cq(m * n), c_dot(m), c_ddot(m), d_dq(m * n), d_dv(m * n), transposed(n, 0.0), gradient(np, 0.0);
    constraint->jacobian(x.q.data(), s.t, c0.data(), Cq.data());
    Vector force(n, 0.0), c_mu(m, 0.0);  // C_q^T lambda and C_q mu_r
    for (std::size_t k = 0; k < m; ++k)
      for (std::size_t i = 0; i < n; ++i) {
        force[i] += Cq[k * n + i] * x.lambda[k];
        c_mu[k] += Cq[k * n + i] * mu_r[i];
      }
    constraint->add_transposed_products(x.q.data(), s.t, x.lambda.data(), mu_r.data(), mu_c.data(), transposed.data());
    constraint->time_derivatives(x.q.data(), x.v.data(), x.a.data(), s.t, c0.data(), c_dot.data(), c_ddot.data());
    Vector level_q(n, 0.0), level_v(n, 0.0);
    if (level == 0) {
      d_dq = Cq;
      std::fill(d_dv.begin(), d_dv.end(), 0.0);
    } else {
      constraint->level_jacobians(x.q.data(), x.v.data(), x.a.data(), s.t, level, d_dq.data(), d_dv.data());
    }
    for (std::size_t k = 0; k < m; ++k)
      for (std::size_t i = 0; i < n; ++i) {
        level_q[i] += d_dq[k * n + i] * mu_c[k];
        level_v[i] += d_dv[k * n + i] * mu_c[k];
      }
    constraint->add_parameter_gradient(x.q.data(), x.v.data(), x.a.data(), s.t, x.lambda.data(), mu_r.data(),
                                       mu_c.data(), level, gradient.data());
    const Vector& level_c = level == 0 ? c0 : level == 1 ? c_dot : c_ddot;
    for (const Vector* part : std::initializer_list<const Vector*>{&c0, &force, &transposed, &c_mu, &level_c, &level_q,
                                                                   &level_v, &gradient})
      out.insert(out.end(), part->begin(), part->end());
    return out;
  };
  const double h = 1e-5;
  for (int level = 0; level <= 2; ++level) {
    const Vector plus = first_order(h, level), minus = first_order(-h, level), at = first_order(0.0, level);
    Vector fd(at.size());
    for (std::size_t i = 0; i < at.size(); ++i) fd[i] = (plus[i] - minus[i]) / (2.0 * h);
    Vector c_dot(m), r_dot(n), out(n, 0.0), m_dot(m), level_c(m), level_q(n, 0.0), level_v(n, 0.0), gradient(np, 0.0);
    constraint->constraint_tangent(s.q.data(), s.t, lambda.data(), e.q.data(), lambda_dot.data(), p_dot.data(),
                                   c_dot.data(), r_dot.data());
    constraint->add_second_order_products(s.q.data(), s.t, lambda.data(), e.q.data(), lambda_dot.data(), p_dot.data(),
                                          mu_r.data(), mu_c.data(), out.data(), m_dot.data());
    constraint->level_tangent(s.q.data(), s.v.data(), s.a.data(), s.t, e.q.data(), e.v.data(), e.a.data(),
                              p_dot.data(), level, level_c.data());
    constraint->add_level_transposed_tangent(s.q.data(), s.v.data(), s.a.data(), s.t, e.q.data(), e.v.data(),
                                             e.a.data(), p_dot.data(), level, mu_c.data(), level_q.data(),
                                             level_v.data());
    constraint->add_parameter_second_order(s.q.data(), s.v.data(), s.a.data(), s.t, lambda.data(), e.q.data(),
                                           e.v.data(), e.a.data(), lambda_dot.data(), p_dot.data(), mu_r.data(),
                                           mu_c.data(), level, gradient.data());
    Vector analytic;
    for (const Vector* part : {&c_dot, &r_dot, &out, &m_dot, &level_c, &level_q, &level_v, &gradient})
      analytic.insert(analytic.end(), part->begin(), part->end());
    const std::string label = c.name + ", level " + std::to_string(level) +
                              ": [c, C_q^T lambda, transposed products, C_q mu_r, level c, level rows q, v, "
                              "parameter gradient] along (q, v, a, lambda, p)";
    EXPECT_TRUE(fd_agree(label, fd, analytic, 1, h, at, 1e-6));
  }
}

INSTANTIATE_TEST_SUITE_P(Components, ConstraintDerivatives, ::testing::ValuesIn(constraint_cases()),
                         param_name<ConstraintCase>);

// ---- conservative elements: r(q, 0, 0) = -Q = grad V ----------------------------------------------------
// For spatial rigid bodies the gradient is compared in the tangent space of |e| = 1.

class ConservativeForces : public ::testing::TestWithParam<ForceCase> {};

// Removes from the gradient its component along e for each spatial rigid body: the generalized force
// 2 G^T n' of Euler parameters has none (G e = 0); that direction belongs to the unit-quaternion constraint.
void project_out_euler_parameter_normal(const std::vector<BodyKind>& kinds, const Vector& q, Vector& gradient) {
  std::size_t offset = 0;
  for (BodyKind kind : kinds) {
    if (kind == SR) {
      const double* e = q.data() + offset + 3;
      double* g = gradient.data() + offset + 3;
      const double ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3];
      const double ge = (g[0] * e[0] + g[1] * e[1] + g[2] * e[2] + g[3] * e[3]) / ee;
      for (int i = 0; i < 4; ++i) g[i] -= ge * e[i];
    }
    offset += fm::coordinate_count(kind);
  }
}

TEST_P(ConservativeForces, ResidualAtRestIsPotentialGradient) {
  const ForceCase& c = GetParam();
  const bool spatial_rigid = std::find(c.kinds.begin(), c.kinds.end(), SR) != c.kinds.end();
  for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
    // Off |e| = 1 the Euler-parameter moment 2 G(e)^T n' is |e|^2 times the projected gradient (R(e) is
    // |e|^2 times a rotation): only the unit sphere, where the constraint holds, is checked.
    if (spatial_rigid && variant == Quaternions::Perturbed) continue;
    SCOPED_TRACE(quaternion_name(variant));
    const State s = random_state(c.kinds, seed_of(c.name), variant);
    const auto element = c.make(s);
    EXPECT_TRUE(element->conservative()) << c.name;
    const std::size_t n = element->coordinate_count();
    const Vector zero(n, 0.0);
    Vector r(n);
    element->residual(s.q.data(), zero.data(), zero.data(), s.t, r.data());
    const VectorFunction potential = [&](const Vector& x) { return Vector{element->potential_energy(x.data(), s.t)}; };
    Vector gradient = central_difference_jacobian(potential, s.q);
    project_out_euler_parameter_normal(c.kinds, s.q, gradient);
    EXPECT_GT(max_abs(r), 1e-3) << c.name << ": the check would be vacuous";
    EXPECT_TRUE(fd_agree(c.name + " (" + quaternion_name(variant) + "): r(q, 0, 0) vs dV/dq", gradient, r, 1, 1e-6,
                         potential(s.q), 1e-6));
  }
}

INSTANTIATE_TEST_SUITE_P(Components, ConservativeForces, ::testing::ValuesIn(conservative_cases()),
                         param_name<ForceCase>);

// ---- inertia: kinetic-energy kernels and the discrete momenta of the variational integrator --------------
// For every element with inertia: dr/da = T_vv, r(q, v, a) - applied(q, v) = d/dt T_v - T_q (the Euler-Lagrange
// form of T), T and its derivatives by central differences of kinetic_energy(); and for every element the
// Jacobian of discrete_momenta's `minus` against central differences.

struct InertiaCase {
  std::string name;
  std::vector<BodyKind> kinds;
  std::function<std::unique_ptr<fm::ForceElement>()> make;
  std::function<State()> state;
};
void PrintTo(const InertiaCase& c, std::ostream* os) { *os << c.name; }

// Spatial rigid bodies and beam nodes: unit Euler parameters with e.e_dot = 0 (on the constraint manifold, where
// the Newton-Euler form of the inertia terms and Lagrange's differ only along e).
State on_euler_parameter_manifold(const std::vector<BodyKind>& kinds, State s) {
  std::size_t offset = 0;
  for (BodyKind kind : kinds) {
    if (kind == SR) {
      double* e = s.q.data() + offset + 3;
      double* e_dot = s.v.data() + offset + 3;
      const double norm = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
      for (int i = 0; i < 4; ++i) e[i] /= norm;
      const double along = e[0] * e_dot[0] + e[1] * e_dot[1] + e[2] * e_dot[2] + e[3] * e_dot[3];
      for (int i = 0; i < 4; ++i) e_dot[i] -= along * e[i];
    }
    offset += fm::coordinate_count(kind);
  }
  return s;
}

InertiaCase body_case(BodyKind kind) {
  const std::string name = case_name("body_inertia", {kind});
  return {name, {kind}, [kind] { return fe::make_body_inertia(make_body(kind), 0, {0.4, -9.81, -1.3}); },
          [kind, name] { return on_euler_parameter_manifold({kind}, random_state({kind}, seed_of(name), Quaternions::Unit)); }};
}

// Geometrically exact beam with damping and weight; the reference is a curved element of length about 0.5, the
// state the reference with its nodes moved and turned.
InertiaCase beam_case() {
  auto reference = [] {
    State s = random_state({SR, SR}, seed_of("beam reference"), Quaternions::Unit);
    const auto R = fm::rotation_from_euler_parameters(s.q.data() + 3);
    const auto chord = fm::multiply(R, fm::Vec3<double>{0.5, 0.02, -0.01});
    for (int i = 0; i < 3; ++i) s.q[7 + i] = s.q[i] + chord[i];
    for (int i = 0; i < 4; ++i) s.q[10 + i] = s.q[3 + i] + 0.1 * (i == 1 ? 1.0 : 0.0);
    return s;
  };
  return {"geometrically_exact_beam",
          {SR, SR},
          [reference] {
            fe::BeamSectionData section;
            section.youngs_modulus = 2.1e3;
            section.shear_modulus = 8.0e2;
            section.density = 100.0;  // node mass 2.5, rotary inertia 0.2 to 0.5: inertia terms of order 1
            section.area = 0.1;
            section.I2 = 0.008;
            section.I3 = 0.012;
            section.J = 0.016;
            section.shear_viscosity = 0.3;
            section.bulk_viscosity = 0.05;
            section.rotary = {section.I2 + section.I3, section.I2, section.I3};
            const State r = on_euler_parameter_manifold({SR, SR}, reference());
            return fe::make_geometrically_exact_beam("beam", {0, 1}, section, fe::beam_reference(r.q.data()),
                                                     {0.4, -9.81, -1.3});
          },
          [reference] {
            State s = reference();
            std::mt19937 rng(seed_of("beam state"));
            std::uniform_real_distribution<double> u(-1.0, 1.0);
            for (double& x : s.q) x += 0.05 * u(rng);
            return on_euler_parameter_manifold({SR, SR}, s);
          }};
}

// The reference coordinates moved by up to 0.05 each, with random velocities and accelerations, at t = 0.6.
State perturbed_reference(const Vector& reference, unsigned seed) {
  State s;
  s.q = reference;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& x : s.q) x += 0.05 * u(rng);
  for (std::size_t i = 0; i < s.q.size(); ++i) {
    s.v.push_back(u(rng));
    s.a.push_back(u(rng));
  }
  s.t = 0.6;
  return s;
}

// ANCF element (planar, cable or full) with damping and weight on a straight reference of length 0.7 along x;
// the state is the reference perturbed by 0.05.
InertiaCase ancf_case(BodyKind node) {
  const int dimension = node == BodyKind::AncfPlanarNode ? 2 : 3;
  auto reference = [node, dimension] {
    Vector q;
    for (int k = 0; k < 2; ++k) {
      Vector x{0.1 + 0.7 * k, 0.2, 0.0}, t{1.0, 0.0, 0.0};
      q.insert(q.end(), x.begin(), x.begin() + dimension);
      q.insert(q.end(), t.begin(), t.begin() + dimension);
      if (node == BodyKind::AncfFullNode) q.insert(q.end(), {0.0, 1.0, 0.0, 0.0, 0.0, 1.0});
    }
    return q;
  };
  const std::string name = case_name("ancf", {node, node});
  return {name,
          {node, node},
          [node, dimension, reference] {
            fe::AncfElementData data;
            data.section.youngs_modulus = 2e4;
            data.section.shear_modulus = 8e3;
            data.section.density = 3.0;
            data.section.area = 0.5;
            data.section.I2 = data.section.I3 = 0.03;
            data.section.J = 0.04;
            data.section.shear_factor_2 = data.section.shear_factor_3 = 5.0 / 6.0;
            data.damping_time = 0.01;
            data.length = 0.7;
            const Vector q = reference();
            std::copy(q.begin(), q.end(), data.reference.begin());
            const fe::Point gravity{0.4, -9.81, -1.3};
            if (node == BodyKind::AncfFullNode) return fe::make_ancf_full_beam("ancf", {0, 1}, data, gravity);
            return fe::make_ancf_gradient_deficient("ancf", dimension, {0, 1}, data, gravity);
          },
          [reference, name] { return perturbed_reference(reference(), seed_of(name)); }};
}

// Dual-quaternion beam with damping and weight: a straight reference of length 0.6 along x, the state the reference
// perturbed by 0.05 in the ambient coordinates (off the unit conditions: the element is an ambient Lagrangian).
InertiaCase dual_quaternion_beam_case() {
  auto reference = [] {
    Vector q;
    for (int k = 0; k < 2; ++k) {
      const auto c = fe::dual_quaternion_coordinates({0.1 + 0.6 * k, 0.2, -0.1}, {1.0, 0.0, 0.0, 0.0});
      q.insert(q.end(), c.begin(), c.end());
    }
    return q;
  };
  const BodyKind node = BodyKind::DualQuaternionNode;
  return {"dual_quaternion_beam",
          {node, node},
          [reference] {
            fe::BeamSectionData section;
            section.youngs_modulus = 2.1e3;
            section.shear_modulus = 8.0e2;
            section.density = 100.0;
            section.area = 0.1;
            section.I2 = 0.008;
            section.I3 = 0.012;
            section.J = 0.016;
            section.shear_viscosity = 0.3;
            section.bulk_viscosity = 0.05;
            section.rotary = {section.I2 + section.I3, section.I2, section.I3};
            const Vector q = reference();
            return fe::make_dual_quaternion_beam("beam", {0, 1}, section, fe::dual_quaternion_beam_reference(q.data()),
                                                 {0.4, -9.81, -1.3});
          },
          [reference] { return perturbed_reference(reference(), seed_of("dual quaternion beam state")); }};
}

std::vector<InertiaCase> inertia_cases() {
  std::vector<InertiaCase> cases;
  for (BodyKind kind : {P2, PR, P3, SR}) cases.push_back(body_case(kind));
  cases.push_back(beam_case());
  for (BodyKind node : {BodyKind::AncfPlanarNode, BodyKind::AncfCableNode, BodyKind::AncfFullNode})
    cases.push_back(ancf_case(node));
  cases.push_back(dual_quaternion_beam_case());
  return cases;
}

// Central differences of the kinetic energy: exact (to round-off) for the first derivatives and for T_vv, T being
// quadratic in v and, for every element here, at most quadratic in q.
Vector kinetic_gradient(const fm::ForceElement& element, const Vector& q, const Vector& v, bool along_v) {
  const VectorFunction T = [&](const Vector& x) {
    return Vector{along_v ? element.kinetic_energy(q.data(), x.data()) : element.kinetic_energy(x.data(), v.data())};
  };
  return central_difference_jacobian(T, along_v ? v : q, 1e-3);
}

class InertiaKernels : public ::testing::TestWithParam<InertiaCase> {};

TEST_P(InertiaKernels, MassMatrixIsTheKineticEnergyHessian) {
  const InertiaCase& c = GetParam();
  const auto element = c.make();
  const State s = c.state();
  const std::size_t n = element->coordinate_count();
  ASSERT_EQ(n, s.q.size());
  Vector r(n), M(n * n);
  element->residual_jacobian(s.q.data(), s.v.data(), s.a.data(), s.t, {0.0, 0.0, 1.0}, r.data(), M.data());
  const VectorFunction T_v = [&](const Vector& x) { return kinetic_gradient(*element, s.q, x, true); };
  const Vector T_vv = central_difference_jacobian(T_v, s.v, 1e-2);
  EXPECT_GT(max_abs(M), 1e-3) << "the check would be vacuous";
  // Differences of differences: the floor of T over the steps 1e-2 and 1e-3.
  EXPECT_TRUE(fd_agree(c.name + ": dr/da vs T_vv", T_vv, M, n, 1e-2, {element->kinetic_energy(s.q.data(), s.v.data())},
                       1e-9, 1.0 / 1e-3));
}

TEST_P(InertiaKernels, InertiaTermsAreTheEulerLagrangeFormOfTheKineticEnergy) {
  const InertiaCase& c = GetParam();
  const auto element = c.make();
  const State s = c.state();
  const std::size_t n = element->coordinate_count();
  Vector r(n), applied(n);
  element->residual(s.q.data(), s.v.data(), s.a.data(), s.t, r.data());
  element->applied_residual(s.q.data(), s.v.data(), s.t, applied.data());
  // d/dt T_v along q + v s + a s^2/2, v + a s (fourth-order central differences in s), minus T_q.
  auto T_v_along = [&](double step) {
    Vector q(n), v(n);
    for (std::size_t i = 0; i < n; ++i) {
      q[i] = s.q[i] + s.v[i] * step + 0.5 * s.a[i] * step * step;
      v[i] = s.v[i] + s.a[i] * step;
    }
    return kinetic_gradient(*element, q, v, true);
  };
  const double d = 1e-3;
  const Vector p2 = T_v_along(2 * d), p1 = T_v_along(d), m1 = T_v_along(-d), m2 = T_v_along(-2 * d);
  const Vector T_q = kinetic_gradient(*element, s.q, s.v, false);
  Vector euler_lagrange(n), inertia(n);
  for (std::size_t i = 0; i < n; ++i) {
    euler_lagrange[i] = (-p2[i] + 8.0 * p1[i] - 8.0 * m1[i] + m2[i]) / (12.0 * d) - T_q[i];
    inertia[i] = r[i] - applied[i];
  }
  project_out_euler_parameter_normal(c.kinds, s.q, euler_lagrange);
  project_out_euler_parameter_normal(c.kinds, s.q, inertia);
  EXPECT_GT(max_abs(inertia), 1e-3) << "the check would be vacuous";
  EXPECT_GT(max_abs(applied), 1e-3) << c.name << ": the element should have applied forces here";
  // The floor of the fourth-order stencil (weights 18/12 over d) on first differences of T with step 1e-3.
  EXPECT_TRUE(fd_agree(c.name + ": r - applied vs d/dt T_v - T_q", euler_lagrange, inertia, 1, d,
                       {element->kinetic_energy(s.q.data(), s.v.data())}, 1e-7, 1.5 / 1e-3));
}

// With h = 0 the discrete momenta are the Legendre transform: plus = -minus = T_v = M v.
TEST_P(InertiaKernels, DiscreteMomentaAtZeroStepAreTheLegendreTransform) {
  const InertiaCase& c = GetParam();
  const auto element = c.make();
  const State s = c.state();
  const std::size_t n = element->coordinate_count();
  Vector r(n), M(n * n), minus(n), plus(n), Mv(n, 0.0);
  element->residual_jacobian(s.q.data(), s.v.data(), s.a.data(), s.t, {0.0, 0.0, 1.0}, r.data(), M.data());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) Mv[i] += M[i * n + j] * s.v[j];
  element->discrete_momenta(s.q.data(), s.v.data(), s.t, 0.0, minus.data(), plus.data(), nullptr, nullptr);
  EXPECT_TRUE(agree(c.name + ": plus(h = 0) vs M v", Mv, plus, 1, 1e-13, "M v", "plus"));
  for (double& x : minus) x = -x;
  EXPECT_TRUE(agree(c.name + ": -minus(h = 0) vs M v", Mv, minus, 1, 1e-13, "M v", "-minus"));
}

// d(minus)/dq_{n+1} = 1/2 d/dq_mid + 1/h d/dv_mid against central differences in q_{n+1}.
void expect_discrete_momenta_jacobian(const std::string& name, const fm::ForceElement& element, const State& s) {
  const std::size_t n = element.coordinate_count();
  const double h = 0.1;
  Vector q_next(n);
  for (std::size_t i = 0; i < n; ++i) q_next[i] = s.q[i] + h * s.v[i];
  auto midpoint = [&](const Vector& next, Vector& q_mid, Vector& v_mid) {
    for (std::size_t i = 0; i < n; ++i) {
      q_mid[i] = 0.5 * (s.q[i] + next[i]);
      v_mid[i] = (next[i] - s.q[i]) / h;
    }
  };
  auto momenta_of = [&](const Vector& next, bool want_plus) {
    Vector q_mid(n), v_mid(n), minus(n), plus(n);
    midpoint(next, q_mid, v_mid);
    element.discrete_momenta(q_mid.data(), v_mid.data(), s.t, h, minus.data(), plus.data(), nullptr, nullptr);
    return want_plus ? plus : minus;
  };
  const VectorFunction minus_of = [&](const Vector& next) { return momenta_of(next, false); };
  const VectorFunction plus_of = [&](const Vector& next) { return momenta_of(next, true); };
  Vector q_mid(n), v_mid(n), minus(n), plus(n), J(n * n), J_plus(n * n), minus_plain(n), plus_plain(n);
  midpoint(q_next, q_mid, v_mid);
  element.discrete_momenta(q_mid.data(), v_mid.data(), s.t, h, minus.data(), plus.data(), J.data(), J_plus.data());
  element.discrete_momenta(q_mid.data(), v_mid.data(), s.t, h, minus_plain.data(), plus_plain.data(), nullptr, nullptr);
  EXPECT_TRUE(fd_agree(name + ": discrete_momenta jacobian", central_difference_jacobian(minus_of, q_next, 1e-6), J, n,
                       1e-6, minus_plain, 1e-7));
  EXPECT_TRUE(fd_agree(name + ": discrete_momenta plus jacobian", central_difference_jacobian(plus_of, q_next, 1e-6),
                       J_plus, n, 1e-6, plus_plain, 1e-7));
  EXPECT_TRUE(agree(name + ": minus with and without jacobian", minus_plain, minus, 1, 1e-14, "plain", "with J"));
  EXPECT_TRUE(agree(name + ": plus with and without jacobian", plus_plain, plus, 1, 1e-14, "plain", "with J"));
  // The transposed products at one end of the step against the full ones: d/dq_n = 1/2 d/dq_mid - 1/h d/dv_mid,
  // d/dq_{n+1} with + 1/h (the full products are checked against differences by the adjoint tests).
  Vector mu_minus(n), mu_plus(n), out_q(n, 0.0), out_v(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    mu_minus[i] = std::sin(1.0 + 3.0 * i);
    mu_plus[i] = std::cos(2.0 + 5.0 * i);
  }
  element.add_discrete_momenta_transposed_products(q_mid.data(), v_mid.data(), s.t, h, mu_minus.data(), mu_plus.data(),
                                                   out_q.data(), out_v.data());
  for (const bool second : {false, true}) {
    Vector end(n, 0.0), expected(n);
    element.add_discrete_momenta_transposed_product_at_end(q_mid.data(), v_mid.data(), s.t, h, mu_minus.data(),
                                                           mu_plus.data(), second, end.data());
    for (std::size_t i = 0; i < n; ++i) expected[i] = 0.5 * out_q[i] + (second ? 1.0 : -1.0) * out_v[i] / h;
    EXPECT_TRUE(agree(name + (second ? ": products at q_{n+1}" : ": products at q_n"), expected, end, 1, 1e-12,
                      "from both", "one end"));
  }
  // h = 0, at the state (q, v): the derivative in q alone equals the q part of the full products.
  {
    Vector full_q(n, 0.0), full_v(n, 0.0), alone(n, 0.0);
    element.add_discrete_momenta_transposed_products(s.q.data(), s.v.data(), s.t, 0.0, mu_minus.data(),
                                                     mu_plus.data(), full_q.data(), full_v.data());
    element.add_discrete_momenta_transposed_product_at_end(s.q.data(), s.v.data(), s.t, 0.0, mu_minus.data(),
                                                           mu_plus.data(), false, alone.data());
    EXPECT_TRUE(agree(name + ": h = 0 product in q", full_q, alone, 1, 1e-12, "from both", "q alone"));
  }
  // Without inertia minus = plus = (h/2) f = -(h/2) r(q_mid, v_mid, 0).
  if (element.kinetic_energy(q_mid.data(), v_mid.data()) != 0.0) return;
  Vector r(n);
  element.applied_residual(q_mid.data(), v_mid.data(), s.t, r.data());
  for (double& x : r) x *= -0.5 * h;
  EXPECT_TRUE(agree(name + ": minus of an element without inertia", r, minus, 1, 1e-14, "-(h/2) r", "minus"));
}

TEST_P(InertiaKernels, DiscreteMomentaJacobianMatchesCentralDifferences) {
  const InertiaCase& c = GetParam();
  expect_discrete_momenta_jacobian(c.name, *c.make(), c.state());
}

INSTANTIATE_TEST_SUITE_P(Components, InertiaKernels, ::testing::ValuesIn(inertia_cases()), param_name<InertiaCase>);

// Elements without inertia (springs, dampers, loads with a control signal): minus = plus = (h/2) f at the midpoint.
TEST_P(ForceElementDerivatives, DiscreteMomentaJacobianMatchesCentralDifferences) {
  const ForceCase& c = GetParam();
  const State s = random_state(c.kinds, seed_of(c.name), Quaternions::Unit);
  expect_discrete_momenta_jacobian(c.name, *c.make(s), s);
}

// ---- body inertia: power identity v . r(q, v, a) = dT/dt (no gravity) ------------------------------------

class KineticEnergyRate : public ::testing::TestWithParam<BodyKind> {};

TEST_P(KineticEnergyRate, PowerOfInertiaResidualIsRateOfKineticEnergy) {
  const BodyKind kind = GetParam();
  const auto element = fe::make_body_inertia(make_body(kind), 0, {0.0, 0.0, 0.0});
  for (Quaternions variant : {Quaternions::Unit, Quaternions::Perturbed}) {
    SCOPED_TRACE(quaternion_name(variant));
    State s = random_state({kind}, seed_of(std::string("kinetic_") + kind_name(kind)), variant);
    if (kind == SR && variant == Quaternions::Unit) {
      // Stay on |e| = 1 to second order: e.e_dot = 0 and e.e_ddot = -|e_dot|^2.
      const double* e = s.q.data() + 3;
      double* e_dot = s.v.data() + 3;
      double* e_ddot = s.a.data() + 3;
      auto dot4 = [](const double* x, const double* y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3]; };
      const double along_dot = dot4(e, e_dot);
      for (int i = 0; i < 4; ++i) e_dot[i] -= along_dot * e[i];
      const double along_ddot = dot4(e, e_ddot) + dot4(e_dot, e_dot);
      for (int i = 0; i < 4; ++i) e_ddot[i] -= along_ddot * e[i];
      ASSERT_NEAR(dot4(e, e), 1.0, 1e-15);
      ASSERT_NEAR(dot4(e, e_dot), 0.0, 1e-15);
      ASSERT_NEAR(dot4(e, e_ddot) + dot4(e_dot, e_dot), 0.0, 1e-14);
    }
    // (|e| != 1 is covered too: with G(x) x = 0 the identity holds for any e.)
    const std::size_t n = s.q.size();
    Vector r(n);
    element->residual(s.q.data(), s.v.data(), s.a.data(), s.t, r.data());
    double power = 0.0;
    for (std::size_t i = 0; i < n; ++i) power += s.v[i] * r[i];
    auto T = [&](double step) {
      Vector q(n), v(n);
      for (std::size_t i = 0; i < n; ++i) {
        q[i] = s.q[i] + s.v[i] * step + 0.5 * s.a[i] * step * step;
        v[i] = s.v[i] + s.a[i] * step;
      }
      return element->kinetic_energy(q.data(), v.data());
    };
    const double h = 1e-5;
    const double rate = (T(h) - T(-h)) / (2.0 * h);
    EXPECT_GT(std::abs(power), 1e-3) << "the check would be vacuous";
    EXPECT_TRUE(flexadj::testing::matches_central_difference(kind_name(kind), power, rate, h, T(0.0),
                                                             flexadj::testing::kRoundOffAccuracy));
  }
}

INSTANTIATE_TEST_SUITE_P(BodyInertia, KineticEnergyRate, ::testing::Values(P2, PR, P3, SR),
                         [](const ::testing::TestParamInfo<BodyKind>& info) { return std::string(kind_name(info.param)); });

// ---- spinning rigid body: closed forms ------------------------------------------------------------------

// G(e) of Nikravesh 1988, eq. (6.97), written out by hand: w' = 2 G e_dot.
std::array<std::array<double, 4>, 3> G_matrix(const double* e) {
  return {{{-e[1], e[0], e[3], -e[2]}, {-e[2], -e[3], e[0], e[1]}, {-e[3], e[2], -e[1], e[0]}}};
}

// Euler-parameter state spinning at constant body angular velocity w': e_dot = 1/2 G^T w' and
// e_ddot = -|e_dot|^2 e, so that alpha' = 2 G e_ddot = 0 and the path stays on |e| = 1.
State spin_state(const std::array<double, 4>& e_raw, const std::array<double, 3>& w_body) {
  double norm = 0.0;
  for (double x : e_raw) norm += x * x;
  norm = std::sqrt(norm);
  State s;
  s.q = {0.3, -0.2, 0.7, e_raw[0] / norm, e_raw[1] / norm, e_raw[2] / norm, e_raw[3] / norm};
  s.v = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  s.a = s.v;
  s.t = 0.4;
  const auto Gm = G_matrix(s.q.data() + 3);
  double speed2 = 0.0;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) s.v[3 + i] += 0.5 * Gm[k][i] * w_body[k];
    speed2 += s.v[3 + i] * s.v[3 + i];
  }
  for (int i = 0; i < 4; ++i) s.a[3 + i] = -speed2 * s.q[3 + i];
  return s;
}

TEST(RigidBodySpin, SteadySpinAboutAPrincipalAxisHasZeroResidual) {
  // J = P diag(2, 3, 4.5) P^T with P a rotation: non-diagonal, principal axes the columns of P.
  const double pe_raw[4] = {0.9, 0.2, -0.3, 0.25};
  const double pn = std::sqrt(0.81 + 0.04 + 0.09 + 0.0625);
  const double pe[4] = {pe_raw[0] / pn, pe_raw[1] / pn, pe_raw[2] / pn, pe_raw[3] / pn};
  const auto P = fm::rotation_from_euler_parameters(pe);
  const double principal[3] = {2.0, 3.0, 4.5};
  double J[3][3] = {};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) J[i][j] += P[i * 3 + k] * principal[k] * P[j * 3 + k];
  ASSERT_GT(std::abs(J[0][1]) + std::abs(J[0][2]) + std::abs(J[1][2]), 0.1);
  fm::Body body = make_body(SR);
  body.inertia = {J[0][0], J[1][1], J[2][2], J[0][1], J[0][2], J[1][2]};
  const auto element = fe::make_body_inertia(body, 0, {0.0, 0.0, 0.0});
  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE("principal axis " + std::to_string(axis));
    const double rate = 1.7;
    const std::array<double, 3> w{rate * P[0 * 3 + axis], rate * P[1 * 3 + axis], rate * P[2 * 3 + axis]};
    const State s = spin_state({0.8, -0.3, 0.4, 0.2}, w);
    const auto w_check = fm::body_angular_velocity(s.q.data() + 3, s.v.data() + 3);
    const auto alpha_check = fm::body_angular_velocity(s.q.data() + 3, s.a.data() + 3);
    for (int k = 0; k < 3; ++k) {
      ASSERT_NEAR(w_check[k], w[k], 1e-14);
      ASSERT_NEAR(alpha_check[k], 0.0, 1e-14);
    }
    Vector r(7);
    element->residual(s.q.data(), s.v.data(), s.a.data(), s.t, r.data());
    for (int i = 0; i < 7; ++i) EXPECT_NEAR(r[i], 0.0, 1e-12) << "residual entry " << i;
  }
}

TEST(RigidBodySpin, SpinAboutANonPrincipalAxisGivesTheEulerTorque) {
  // J = [[2, 0.3, -0.2], [0.3, 3, 0.4], [-0.2, 0.4, 4]], w' = (1, -2, 0.5):
  // J w' = (1.3, -5.5, 1.0) and w' x J w' = (-2*1.0 - 0.5*(-5.5), 0.5*1.3 - 1*1.0, 1*(-5.5) - (-2)*1.3)
  //                                        = (0.75, -0.35, -2.9), by hand.
  fm::Body body = make_body(SR);
  body.inertia = {2.0, 3.0, 4.0, 0.3, -0.2, 0.4};
  const auto element = fe::make_body_inertia(body, 0, {0.0, 0.0, 0.0});
  const std::array<double, 3> w{1.0, -2.0, 0.5};
  const double torque[3] = {0.75, -0.35, -2.9};
  const State s = spin_state({0.8, -0.3, 0.4, 0.2}, w);
  Vector r(7);
  element->residual(s.q.data(), s.v.data(), s.a.data(), s.t, r.data());
  const auto Gm = G_matrix(s.q.data() + 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(r[i], 0.0, 1e-14) << "translational residual " << i;
  for (int i = 0; i < 4; ++i) {
    double expected = 0.0;
    for (int k = 0; k < 3; ++k) expected += 2.0 * Gm[k][i] * torque[k];
    EXPECT_NEAR(r[3 + i], expected, 1e-12) << "Euler-parameter residual " << i;
  }
  // Back to body axes: G G^T = I for |e| = 1, so 1/2 G r_e recovers the torque.
  for (int k = 0; k < 3; ++k) {
    double recovered = 0.0;
    for (int i = 0; i < 4; ++i) recovered += 0.5 * Gm[k][i] * r[3 + i];
    EXPECT_NEAR(recovered, torque[k], 1e-12) << "body torque " << k;
  }
  // And the residual is orthogonal to e (no work along the constrained direction).
  double along_e = 0.0;
  for (int i = 0; i < 4; ++i) along_e += s.q[3 + i] * r[3 + i];
  EXPECT_NEAR(along_e, 0.0, 1e-12);
}

}  // namespace
