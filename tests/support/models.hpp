#pragma once
// Small models built in code, for tests that must not depend on the model-file reader: each a problem::Problem,
// the model with its integrator settings.
#include <cmath>
#include <memory>

#include "flexadj/constraints/constraints.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/problem/problem.hpp"

namespace flexadj::testing {

using model::BodyKind;
using model::kGround;

inline model::Body point_mass_2d(const std::string& name, double mass, double x, double y, double vx = 0.0,
                                 double vy = 0.0) {
  model::Body body;
  body.name = name;
  body.kind = BodyKind::PointMass2D;
  body.mass = mass;
  body.initial_coordinates = {x, y};
  body.initial_velocities = {vx, vy};
  return body;
}

// Mass m on a line (prismatic joint to ground along x), spring k to a ground point at (-1, 0) with
// free length 1: m x'' = -k x, x(0) = x0, x'(0) = v0.
inline problem::Problem oscillator(double mass, double stiffness, double x0, double v0, double end_time,
                                   long long steps, double rho = 0.9) {
  problem::Problem problem;
  model::Model* m = problem.model.get();
  m->dimension = 2;
  problem.integrator.end_time = end_time;
  problem.integrator.step_size = end_time / double(steps);
  problem.integrator.spectral_radius = rho;
  const int b = m->add_body(point_mass_2d("mass", mass, x0, 0.0, v0, 0.0));
  elements::SpringDamperData spring;
  spring.stiffness = stiffness;
  spring.free_length = 1.0;
  spring.point_a = {-1.0, 0.0, 0.0};
  m->add_force_element(elements::make_spring_damper("spring", {kGround, b}, {BodyKind::Ground, BodyKind::PointMass2D}, spring));
  m->add_constraint(constraints::make_joint("slider", constraints::JointKind::Prismatic, {kGround, b},
                                            {BodyKind::Ground, BodyKind::PointMass2D},
                                            m->joint_geometry(constraints::JointKind::Prismatic, kGround, b,
                                                              {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0})));
  return problem;
}

// Held and Seifried's torsional spring pendulum: point mass on a massless rod of length l pinned at
// the origin (distance constraint), torsional spring c_r at the pivot, no gravity, start at angle
// alpha0 at rest: alpha(t) = alpha0 cos(w t), w = sqrt(c_r / (m l^2)).
inline problem::Problem torsional_pendulum(double mass, double length, double c_r, double alpha0, double end_time,
                                           long long steps, double rho = 0.9) {
  problem::Problem problem;
  model::Model* m = problem.model.get();
  m->dimension = 2;
  problem.integrator.end_time = end_time;
  problem.integrator.step_size = end_time / double(steps);
  problem.integrator.spectral_radius = rho;
  const int b = m->add_body(point_mass_2d("mass", mass, length * std::cos(alpha0), length * std::sin(alpha0)));
  elements::AngleSpringDamperData spring;
  spring.stiffness = c_r;
  m->add_force_element(elements::make_angle_spring_damper("torsion", {kGround, b}, {BodyKind::Ground, BodyKind::PointMass2D}, spring));
  m->add_constraint(constraints::make_distance("rod", {kGround, b}, {BodyKind::Ground, BodyKind::PointMass2D},
                                               {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, length));
  return problem;
}

// Planar mathematical pendulum under gravity, released at rest at angle alpha0 from the downward vertical.
inline problem::Problem planar_pendulum(double mass, double length, double alpha0, double end_time, long long steps,
                                        double rho) {
  problem::Problem problem;
  model::Model* m = problem.model.get();
  m->dimension = 2;
  m->gravity = {0.0, -9.81, 0.0};
  problem.integrator.end_time = end_time;
  problem.integrator.step_size = end_time / double(steps);
  problem.integrator.spectral_radius = rho;
  const int b = m->add_body(point_mass_2d("bob", mass, length * std::sin(alpha0), -length * std::cos(alpha0)));
  m->add_constraint(constraints::make_distance("rod", {kGround, b}, {BodyKind::Ground, BodyKind::PointMass2D},
                                               {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, length));
  return problem;
}

// The planar pendulum above (m = 1.5, l = 1.2, alpha0 = 0.6, T = 1.5) with a damped torsion spring at the pivot
// (stiffness 4, damping 0.3) and the initial velocity (0.8, 0.55), nearly along the tangent, slightly off it (the
// velocity projection acts).
inline problem::Problem spring_pendulum(long long steps) {
  auto problem = planar_pendulum(1.5, 1.2, 0.6, 1.5, steps, 0.9);
  const int bob = problem.model->find_body("bob");
  elements::AngleSpringDamperData spring;
  spring.stiffness = 4.0;
  spring.damping = 0.3;
  problem.model->add_force_element(elements::make_angle_spring_damper(
      "torsion", {model::kGround, bob}, {BodyKind::Ground, BodyKind::PointMass2D}, spring));
  problem.model->set_initial_value(bob, 0, true, 0.8);
  problem.model->set_initial_value(bob, 1, true, 0.55);
  return problem;
}

// Spatial rigid body (homogeneous box a x b x c) hanging from a spherical joint at the origin, its
// centre of mass below the joint, tilted, spinning about an axis that is not a principal axis.
inline problem::Problem spinning_top_pendulum(double end_time, long long steps, double rho) {
  problem::Problem problem;
  model::Model* m = problem.model.get();
  m->dimension = 3;
  m->gravity = {0.0, 0.0, -9.81};
  problem.integrator.end_time = end_time;
  problem.integrator.step_size = end_time / double(steps);
  problem.integrator.spectral_radius = rho;
  model::Body body;
  body.name = "box";
  body.kind = BodyKind::SpatialRigid;
  const double a = 0.2, bb = 0.3, c = 1.0, mass = 2.0;
  body.mass = mass;
  body.inertia = {mass * (bb * bb + c * c) / 12, mass * (a * a + c * c) / 12, mass * (a * a + bb * bb) / 12, 0.0, 0.0, 0.0};
  // Rotated by 0.3 rad about the axis (1, 1, 0)/sqrt(2); the joint is at body point (0, 0, c/2).
  const double half = 0.15, s = std::sin(half) / std::sqrt(2.0);
  const double e[4] = {std::cos(half), s, s, 0.0};
  const auto R = model::rotation_from_euler_parameters(e);
  const model::Vec3<double> arm = model::multiply(R, model::Vec3<double>{0.0, 0.0, c / 2});
  body.initial_coordinates = {-arm[0], -arm[1], -arm[2], e[0], e[1], e[2], e[3]};
  // Angular velocity w (global), off the principal axes; centre-of-mass velocity w x (r_cm - r_joint).
  const model::Vec3<double> w{1.0, -2.0, 5.0};
  const model::Vec3<double> r{-arm[0], -arm[1], -arm[2]};
  const auto v = model::cross(w, r);
  // Euler-parameter rates e_dot = 1/2 E^T w (Nikravesh 1988, eq. (6.104)).
  const double E[3][4] = {{-e[1], e[0], -e[3], e[2]}, {-e[2], e[3], e[0], -e[1]}, {-e[3], -e[2], e[1], e[0]}};
  std::vector<double> e_dot(4, 0.0);
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 3; ++k) e_dot[i] += 0.5 * E[k][i] * w[k];
  body.initial_velocities = {v[0], v[1], v[2], e_dot[0], e_dot[1], e_dot[2], e_dot[3]};
  const int b = m->add_body(body);
  m->add_constraint(constraints::make_joint("pivot", constraints::JointKind::Spherical, {kGround, b},
                                            {BodyKind::Ground, BodyKind::SpatialRigid},
                                            m->joint_geometry(constraints::JointKind::Spherical, kGround, b,
                                                              {0.0, 0.0, 0.0}, {0.0, 0.0, 1.0})));
  return problem;
}

// Chain of n spatial rigid links (length 0.5, hanging at 45 degrees in the x-z plane) joined by
// spherical joints, the first one to ground: a model that spreads over ranks.
inline problem::Problem rigid_chain(int n, double end_time, long long steps, double rho = 0.9) {
  problem::Problem problem;
  model::Model* m = problem.model.get();
  m->dimension = 3;
  m->gravity = {0.0, 0.0, -9.81};
  problem.integrator.end_time = end_time;
  problem.integrator.step_size = end_time / double(steps);
  problem.integrator.spectral_radius = rho;
  const double length = 0.5, mass = 1.0, side = 0.05;
  const model::Vec3<double> direction{std::sqrt(0.5), 0.0, -std::sqrt(0.5)};
  int previous = kGround;
  for (int k = 0; k < n; ++k) {
    model::Body body;
    body.name = "link" + std::to_string(k + 1);
    body.kind = BodyKind::SpatialRigid;
    body.mass = mass;
    const double axial = mass * side * side / 6, transverse = mass * (side * side + length * length) / 12;
    body.inertia = {transverse, transverse, axial, 0.0, 0.0, 0.0};
    // Body z axis along the link: rotate the global z onto `direction` (about y by -135 degrees... use
    // a rotation of pi/4 + pi/2 about y: z -> (sin, 0, cos) of 135 degrees).
    const double half = 0.5 * (3.0 * M_PI / 4.0);
    body.initial_coordinates = {(k + 0.5) * length * direction[0], 0.0, (k + 0.5) * length * direction[2],
                                std::cos(half), 0.0, std::sin(half), 0.0};
    body.initial_velocities = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    const int b = m->add_body(body);
    const model::Vec3<double> joint{k * length * direction[0], 0.0, k * length * direction[2]};
    m->add_constraint(constraints::make_joint("joint" + std::to_string(k + 1), constraints::JointKind::Spherical,
                                              {previous, b}, {m->body_kind(previous), BodyKind::SpatialRigid},
                                              m->joint_geometry(constraints::JointKind::Spherical, previous, b, joint,
                                                                {0.0, 0.0, 1.0})));
    previous = b;
  }
  return problem;
}

}  // namespace flexadj::testing
