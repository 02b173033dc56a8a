#pragma once
// Holonomic constraints C(q, t) = 0 and non-holonomic ones A(q) v + b(q, t) = 0, each enforced with Lagrange
// multipliers.
#include <array>
#include <memory>
#include <string>

#include "flexadj/functions/expression.hpp"
#include "flexadj/model/component.hpp"

namespace flexadj::constraints {

using model::BodyKind;
using Point = std::array<double, 3>;
using Quaternion = std::array<double, 4>;

// (e.e - 1)/2 = 0 for the Euler parameters of a spatial rigid body.
std::unique_ptr<model::Constraint> make_unit_quaternion(const std::string& body_name, int body);
// q_r.q_r = 1 and q_r.q_d = 0 of a dual-quaternion beam node.
std::unique_ptr<model::Constraint> make_unit_dual_quaternion(const std::string& body_name, int body);
// The same with every derivative by Sacado (ConstraintAD), the reference of the hand-written ones.
std::unique_ptr<model::Constraint> make_unit_dual_quaternion_plain_ad(const std::string& body_name, int body);

enum class JointKind { Spherical, Revolute, Prismatic, Fixed };

// Geometry of a joint between body a and body b, all vectors in the frames of the bodies that carry
// them (global for ground); the builder derives them from the global joint data at t = 0.
struct JointGeometry {
  Point point_a{}, point_b{};   // the joint point on a and on b
  Point axis_a{};               // revolute axis / prismatic direction, carried by a
  Point normal_1{}, normal_2{}; // revolute: two unit vectors normal to the axis carried by b;
                                // prismatic: two unit vectors normal to the direction carried by a
  double rest_angle = 0.0;      // planar: theta_b - theta_a at t = 0
  Quaternion rest_rotation{1.0, 0.0, 0.0, 0.0};  // spatial: conj(e_a) e_b at t = 0
};
// Equations: spherical 2 (planar) / 3; revolute 2 / 5; prismatic 1 or 2 (planar, the second locks the
// rotation) / 2 or 5 (spatial); fixed 2 or 3 / 3 or 6. Rotations are locked only when b has one.
int joint_equation_count(JointKind kind, BodyKind a, BodyKind b);
std::unique_ptr<model::Constraint> make_joint(const std::string& name, JointKind kind, std::array<int, 2> bodies,
                                              std::array<BodyKind, 2> kinds, const JointGeometry& geometry);
// The same with every derivative by Sacado (ConstraintAD), the reference of the hand-written ones.
std::unique_ptr<model::Constraint> make_joint_plain_ad(const std::string& name, JointKind kind,
                                                       std::array<int, 2> bodies, std::array<BodyKind, 2> kinds,
                                                       const JointGeometry& geometry);

// (|p_b - p_a|^2 - L^2) / (2 L) = 0: a massless rod of length L.
std::unique_ptr<model::Constraint> make_distance(const std::string& name, std::array<int, 2> bodies,
                                                 std::array<BodyKind, 2> kinds, const Point& point_a,
                                                 const Point& point_b, double length);

// A cable wound on a drum (planar rigid body c): |p_b - p_a| = L0 + r (theta_c - theta_c0).
std::unique_ptr<model::Constraint> make_winch(const std::string& name, std::array<int, 3> bodies,
                                              std::array<BodyKind, 3> kinds, const Point& point_a,
                                              const Point& point_b, double initial_length, double radius,
                                              double initial_drum_angle);

// Rheonomic: the body point follows s(t) along the selected global axes.
std::unique_ptr<model::Constraint> make_prescribed_motion(const std::string& name, int body, BodyKind kind,
                                                          const Point& point,
                                                          const std::array<functions::Expression, 3>& path,
                                                          const std::array<bool, 3>& axes);

// Rheonomic: one coordinate of a body follows f(t).
std::unique_ptr<model::Constraint> make_prescribed_coordinate(const std::string& name, int body, BodyKind kind,
                                                              int coordinate, const functions::Expression& value);

// Non-holonomic: the point (body axes) of planar rigid body `body` moves only along `direction` (body axes, unit,
// in the plane): the planar knife edge or Chaplygin sleigh (knife_edge.cpp).
std::unique_ptr<model::Constraint> make_knife_edge(const std::string& name, int body, const Point& point,
                                                   const Point& direction);

}  // namespace flexadj::constraints
