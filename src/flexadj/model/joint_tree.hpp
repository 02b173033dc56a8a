#pragma once
// Joint coordinates of an open-loop (tree) model (Maciag, Malczyk and Fraczek 2022, sec. 2.2, "q = g(alpha)"):
// the absolute coordinates of every body from the joint coordinates alpha, recursively from the ground outwards
// (parents before children), and back, alpha = g^-1(q). The velocity transformation of [MMF22] eq. (7),
// v = H(alpha) beta with beta = d(alpha)/dt, is H = dg/dalpha (integrators/joint_space_equations.hpp).
//
// Planar links (a joint between a placed parent a and its child b, `bodies: [a, b]` in the model file):
//   revolute    theta_b = theta_a + rest + alpha;  P_b = P_a                      1 coordinate (0: point-mass child)
//   prismatic   P_b = P_a + alpha u, u = R(theta_a) perp(normal_1)/|normal_1|;  theta_b = theta_a + rest   1
//   distance    P_b = P_a + L (cos alpha_1, sin alpha_1);  theta_b = alpha_2      1 (point mass) or 2 (rigid body)
//   fixed       theta_b = theta_a + rest;  P_b = P_a                              0
//   free        q_b = alpha (a body that is the child of no joint)                2 or 3
// Spatial links, with E the Euler parameters (Hamilton products, scalar first), E_rest = conj(E_a) E_b at t = 0 (the
// joint's rest_rotation) and C(alpha) = q_x(alpha_1) q_y(alpha_2) q_z(alpha_3) the Cardan rotation about the child's
// axes (singular at alpha_2 = +-pi/2, where H^T M H loses rank: exactly singular, a SolverError; near it, lost digits):
//   spherical   E_b = E_a E_rest C(alpha);  P_b = P_a                               3 (0: point-mass child)
//   revolute    E_b = E_a q(n, alpha) E_rest, n the unit axis in a's axes;  P_b = P_a                  1
//   prismatic   P_b = P_a + alpha R(E_a) (n_1 x n_2)/|n_1 x n_2|;  E_b = E_a E_rest                     1
//   fixed       E_b = E_a E_rest;  P_b = P_a                                        0
//   free        r_b = (alpha_1..3), E_b = E_0 C(alpha_4..6) (E_0 its initial orientation)   6 (3: point mass)
// with P_a, P_b the joint points on a and b (global for ground) and r_b = P_b - R(theta_b) s_b: exactly the
// equations of the model's joint constraints (constraints/joints.cpp), so C(g(alpha)) = 0 for every alpha. The
// geometry is read from the constraints' own parameters (point_a, point_b, normal_1, rest_angle, length), so their
// design variables move g as they move C.
//
// Templated on the scalar so that Sacado differentiates g with respect to alpha and the parameters.
#include <array>
#include <cmath>
#include <vector>

#include "flexadj/model/model.hpp"
#include "flexadj/model/sin_cos.hpp"

namespace flexadj::model {

class JointTree {
 public:
  enum class LinkKind { Revolute, Prismatic, Distance, Fixed, Spherical, Free };
  struct Link {
    LinkKind kind = LinkKind::Free;
    int constraint = -1;  // index into Model::constraints(); -1 for a free body
    int parent = kGround, child = 0;
    BodyKind parent_kind = BodyKind::Ground, child_kind = BodyKind::PlanarRigid;
    int first_alpha = 0, alpha_count = 0;
    int first_parameter = 0;  // into parameters(): the constraint's parameters in its own order
    int parameter_count = 0;
  };

  // The tree of a model whose bodies are point masses and rigid bodies and whose constraints are revolute,
  // prismatic, fixed and (planar) distance or (spatial) spherical joints, each listed as [parent, child] (the parent
  // nearer to the ground), and the unit-quaternion constraints of spatial rigid bodies (g satisfies them).
  // `local_index[g]`: the rank-local index of global coordinate g. InputError (the model file and the joint's key)
  // for anything else: a closed loop, a body with two parents, another constraint type.
  JointTree(const Model& model, const std::vector<int>& local_index);

  int size() const { return alpha_count_; }                     // k, the joint coordinates
  int dimension() const { return dimension_; }                  // 2 (planar) or 3 (spatial)
  int coordinate_count() const { return coordinate_count_; }   // n, the absolute coordinates
  const std::vector<Link>& links() const { return links_; }
  // The constraints' current parameter values (refresh() after a design change), flat in link order.
  const std::vector<double>& parameters() const { return parameters_; }
  void refresh(const Model& model);
  // Parameter k of constraint c: its index into parameters(), -1 if c is not one of the links' joints.
  int parameter_index(int constraint, int k) const;

  // q = g(alpha, parameters) (all n absolute coordinates; [MMF22] sec. 2.2).
  template <class S> void positions(const S* alpha, const S* parameters, S* q) const;
  // alpha = g^-1(q, parameters) for q on the constraints (angles by atan2 where the link has no angle to differ).
  template <class S> void joint_coordinates(const S* q, const S* parameters, S* alpha) const;

  // One link of positions() and of joint_coordinates(): the child's coordinates from the parent's, and the link's
  // joint coordinates from both. `parent` and `child` index the bodies' coordinates in q (parent nullptr: the
  // ground), a and pp are the link's joint coordinates and parameters: so that a link can also be evaluated on a
  // small local q (the recursive products of integrators/joint_space_equations.cpp).
  template <class S>
  void place_child(const Link& l, const int* parent, const int* child, const S* a, const S* pp, S* q) const;
  template <class S>
  void read_link(const Link& l, const int* parent, const int* child, const S* q, const S* pp, S* a) const;
  // Indices into q of the link's parent (nullptr: the ground) and child coordinates, and their numbers.
  const int* parent_index(const Link& l) const { return l.parent == kGround ? nullptr : body_index(l.parent); }
  const int* child_index(const Link& l) const { return body_index(l.child); }
  static int parent_coordinates(const Link& l) {
    return l.parent == kGround ? 0 : model::coordinate_count(l.parent_kind);
  }
  static int child_coordinates(const Link& l) { return model::coordinate_count(l.child_kind); }

 private:
  // Indices into q of body b's coordinates.
  const int* body_index(int body) const { return &body_local_[std::size_t(body_first_[std::size_t(body)])]; }
  // The joint point P = r + R(theta) s of a body of `kind` at coordinates c of q (nullptr: the ground, P = s).
  template <class S> static void joint_point(BodyKind kind, const int* c, const S* q, const S* s, S& x, S& y);
  template <class S>
  void place_spatial_child(const Link& l, const int* parent, const int* child, const S* a, const S* pp, S* q) const;
  template <class S>
  void read_spatial_link(const Link& l, const int* parent, const int* child, const S* q, const S* pp, S* a) const;
  // The parent's orientation and its joint point (global) of spatial link l at q.
  template <class S> static void spatial_parent(const Link& l, const int* parent, const S* q, const S* pp,
                                                std::array<S, 4>& e, Vec3<S>& point);

  int dimension_ = 2;
  std::vector<Link> links_;
  std::vector<double> parameters_;
  std::vector<std::array<double, 4>> initial_orientation_;  // E_0 of each body (free spatial bodies)
  std::vector<int> body_first_, body_local_;  // body_local_[body_first_[b] + j]: local index of coordinate j of b
  int alpha_count_ = 0, coordinate_count_ = 0;
};

// ---- templates ------------------------------------------------------------------------------------------------

// Parameter layout of the joint constraints (constraints/joints.cpp): point_a 0..2, point_b 3..5, axis 6..8,
// normal_1 9..11, normal_2 12..14, rest_angle 15 (planar); distance: point_a 0..2, point_b 3..5, length 6.
namespace joint_tree_layout {
constexpr int kPointA = 0, kPointB = 3, kNormal1 = 9, kRest = 15, kLength = 6;
}

template <class S>
void JointTree::joint_point(BodyKind kind, const int* c, const S* q, const S* s, S& x, S& y) {
  if (!c) {
    x = s[0];
    y = s[1];
    return;
  }
  x = q[c[0]];
  y = q[c[1]];
  if (kind == BodyKind::PlanarRigid) {
    S si, co;
    sin_cos(q[c[2]], si, co);
    x += co * s[0] - si * s[1];
    y += si * s[0] + co * s[1];
  }
}

template <class S> void JointTree::positions(const S* alpha, const S* p, S* q) const {
  for (const Link& l : links_)
    place_child(l, parent_index(l), child_index(l), alpha + l.first_alpha, p + l.first_parameter, q);
}

template <class S> void JointTree::joint_coordinates(const S* q, const S* p, S* alpha) const {
  for (const Link& l : links_)
    read_link(l, parent_index(l), child_index(l), q, p + l.first_parameter, alpha + l.first_alpha);
}

template <class S>
void JointTree::place_child(const Link& l, const int* pc, const int* c, const S* a, const S* pp, S* q) const {
  using namespace joint_tree_layout;
  using std::cos;
  using std::sin;
  using std::sqrt;
  if (dimension_ == 3) return place_spatial_child(l, pc, c, a, pp, q);
  if (l.kind == LinkKind::Free) {
    for (int j = 0; j < l.alpha_count; ++j) q[c[j]] = a[j];
    return;
  }
  const bool parent_turns = pc && l.parent_kind == BodyKind::PlanarRigid;
  const S theta_a = parent_turns ? q[pc[2]] : S(0.0);
  S px, py;
  joint_point(l.parent_kind, pc, q, pp + kPointA, px, py);
  // rest_angle: joints only (a distance constraint has 7 parameters).
  S theta_b = l.kind == LinkKind::Distance ? theta_a : theta_a + pp[kRest];
  switch (l.kind) {
    case LinkKind::Revolute:
      if (l.alpha_count > 0) theta_b += a[0];
      break;
    case LinkKind::Prismatic: {
      // u = R(theta_a) (n_y, -n_x)/|n|, n = normal_1 in a's axes: the direction the constraint n . d = 0 leaves.
      const S nx = pp[kNormal1], ny = pp[kNormal1 + 1];
      const S norm = sqrt(nx * nx + ny * ny);
      const S ux = ny / norm, uy = -nx / norm;
      S si, co;
      sin_cos(theta_a, si, co);
      px += a[0] * (co * ux - si * uy);
      py += a[0] * (si * ux + co * uy);
      break;
    }
    case LinkKind::Distance: {
      S si, co;
      sin_cos(a[0], si, co);
      px += pp[kLength] * co;
      py += pp[kLength] * si;
      if (l.alpha_count > 1) theta_b = a[1];
      break;
    }
    case LinkKind::Fixed:
    case LinkKind::Spherical:
    case LinkKind::Free: break;
  }
  if (l.child_kind == BodyKind::PlanarRigid) {
    const S* s = pp + kPointB;
    S si, co;
    sin_cos(theta_b, si, co);
    q[c[0]] = px - (co * s[0] - si * s[1]);
    q[c[1]] = py - (si * s[0] + co * s[1]);
    q[c[2]] = theta_b;
  } else {
    q[c[0]] = px;
    q[c[1]] = py;
  }
}

template <class S>
void JointTree::read_link(const Link& l, const int* pc, const int* c, const S* q, const S* pp, S* a) const {
  using namespace joint_tree_layout;
  using std::atan2;
  using std::cos;
  using std::sin;
  using std::sqrt;
  if (dimension_ == 3) return read_spatial_link(l, pc, c, q, pp, a);
  if (l.kind == LinkKind::Free) {
    for (int j = 0; j < l.alpha_count; ++j) a[j] = q[c[j]];
    return;
  }
  if (l.alpha_count == 0) return;
  const bool parent_turns = pc && l.parent_kind == BodyKind::PlanarRigid;
  const S theta_a = parent_turns ? q[pc[2]] : S(0.0);
  S pax, pay, pbx, pby;
  joint_point(l.parent_kind, pc, q, pp + kPointA, pax, pay);
  joint_point(l.child_kind, c, q, pp + kPointB, pbx, pby);
  switch (l.kind) {
    case LinkKind::Revolute: a[0] = q[c[2]] - theta_a - pp[kRest]; break;
    case LinkKind::Prismatic: {
      const S nx = pp[kNormal1], ny = pp[kNormal1 + 1];
      const S norm = sqrt(nx * nx + ny * ny);
      const S ux = ny / norm, uy = -nx / norm;
      S si, co;
      sin_cos(theta_a, si, co);
      a[0] = (pbx - pax) * (co * ux - si * uy) + (pby - pay) * (si * ux + co * uy);
      break;
    }
    case LinkKind::Distance:
      a[0] = atan2(pby - pay, pbx - pax);
      if (l.alpha_count > 1) a[1] = q[c[2]];
      break;
    case LinkKind::Fixed:
    case LinkKind::Spherical:
    case LinkKind::Free: break;
  }
}

// ---- spatial links ----------------------------------------------------------------------------------------------

namespace joint_tree_layout {
constexpr int kAxis = 6, kNormal2 = 12, kRestRotation = 15;
template <class S> std::array<S, 4> axis_rotation(const Vec3<S>& n, const S& angle) {
  S s, c;
  sin_cos(S(0.5 * angle), s, c);
  return {c, s * n[0], s * n[1], s * n[2]};
}
// q_x(a_1) q_y(a_2) q_z(a_3): R = R_x R_y R_z.
template <class S> std::array<S, 4> cardan(const S* a) {
  const S zero(0.0), one(1.0);
  const auto x = axis_rotation<S>({one, zero, zero}, a[0]), y = axis_rotation<S>({zero, one, zero}, a[1]),
             z = axis_rotation<S>({zero, zero, one}, a[2]);
  return quaternion_product(quaternion_product(x, y), z);
}
// The Cardan angles of unit quaternion c with cardan(a) = c exactly (not -c: a_3 moved by 2 pi where needed).
template <class S> void cardan_angles(const std::array<S, 4>& c, S* a) {
  using std::asin;
  using std::atan2;
  const auto R = rotation_from_euler_parameters(c.data());
  S s = R[2];
  if (s > 1.0) s = S(1.0);
  if (s < -1.0) s = S(-1.0);
  a[1] = asin(s);
  a[0] = atan2(-R[5], R[8]);
  a[2] = atan2(-R[1], R[0]);
  const auto back = cardan(a);
  if (back[0] * c[0] + back[1] * c[1] + back[2] * c[2] + back[3] * c[3] < 0.0) a[2] += 2.0 * M_PI;
}
template <class S> Vec3<S> unit(const Vec3<S>& v) {
  using std::sqrt;
  const S norm = sqrt(dot(v, v));
  return {v[0] / norm, v[1] / norm, v[2] / norm};
}
}  // namespace joint_tree_layout

template <class S>
void JointTree::spatial_parent(const Link& l, const int* pc, const S* q, const S* pp, std::array<S, 4>& e,
                               Vec3<S>& point) {
  using namespace joint_tree_layout;
  const S* s = pp + kPointA;
  e = {S(1.0), S(0.0), S(0.0), S(0.0)};
  if (!pc) {
    point = {s[0], s[1], s[2]};
    return;
  }
  point = {q[pc[0]], q[pc[1]], q[pc[2]]};
  if (l.parent_kind == BodyKind::SpatialRigid) {
    e = {q[pc[3]], q[pc[4]], q[pc[5]], q[pc[6]]};
    point = add(point, multiply(rotation_from_euler_parameters(e.data()), Vec3<S>{s[0], s[1], s[2]}));
  }
}

template <class S>
void JointTree::place_spatial_child(const Link& l, const int* pc, const int* c, const S* a, const S* pp, S* q) const {
  using namespace joint_tree_layout;
  const bool rigid = l.child_kind == BodyKind::SpatialRigid;
  if (l.kind == LinkKind::Free) {
    for (int j = 0; j < 3; ++j) q[c[j]] = a[j];
    if (rigid) {
      const auto& e0 = initial_orientation_[std::size_t(l.child)];
      const auto e = quaternion_product(std::array<S, 4>{S(e0[0]), S(e0[1]), S(e0[2]), S(e0[3])}, cardan(a + 3));
      for (int j = 0; j < 4; ++j) q[c[3 + j]] = e[std::size_t(j)];
    }
    return;
  }
  std::array<S, 4> ea, eb;
  Vec3<S> point;
  spatial_parent(l, pc, q, pp, ea, point);
  const std::array<S, 4> rest{pp[kRestRotation], pp[kRestRotation + 1], pp[kRestRotation + 2], pp[kRestRotation + 3]};
  eb = quaternion_product(ea, rest);
  switch (l.kind) {
    case LinkKind::Spherical:
      if (l.alpha_count > 0) eb = quaternion_product(eb, cardan(a));
      break;
    case LinkKind::Revolute:
      eb = quaternion_product(
          quaternion_product(ea, axis_rotation(unit(Vec3<S>{pp[kAxis], pp[kAxis + 1], pp[kAxis + 2]}), a[0])), rest);
      break;
    case LinkKind::Prismatic: {
      const Vec3<S> u = unit(cross(Vec3<S>{pp[kNormal1], pp[kNormal1 + 1], pp[kNormal1 + 2]},
                                   Vec3<S>{pp[kNormal2], pp[kNormal2 + 1], pp[kNormal2 + 2]}));
      point = add(point, scaled(multiply(rotation_from_euler_parameters(ea.data()), u), a[0]));
      break;
    }
    case LinkKind::Fixed:
    case LinkKind::Distance:
    case LinkKind::Free: break;
  }
  if (rigid) {
    const Vec3<S> sb{pp[kPointB], pp[kPointB + 1], pp[kPointB + 2]};
    const Vec3<S> r = subtract(point, multiply(rotation_from_euler_parameters(eb.data()), sb));
    for (int j = 0; j < 3; ++j) q[c[j]] = r[std::size_t(j)];
    for (int j = 0; j < 4; ++j) q[c[3 + j]] = eb[std::size_t(j)];
  } else {
    for (int j = 0; j < 3; ++j) q[c[j]] = point[std::size_t(j)];
  }
}

template <class S>
void JointTree::read_spatial_link(const Link& l, const int* pc, const int* c, const S* q, const S* pp, S* a) const {
  using namespace joint_tree_layout;
  using std::atan2;
  const bool rigid = l.child_kind == BodyKind::SpatialRigid;
  const std::array<S, 4> eb = rigid ? std::array<S, 4>{q[c[3]], q[c[4]], q[c[5]], q[c[6]]}
                                    : std::array<S, 4>{S(1.0), S(0.0), S(0.0), S(0.0)};
  if (l.kind == LinkKind::Free) {
    for (int j = 0; j < 3; ++j) a[j] = q[c[j]];
    if (rigid) {
      const auto& e0 = initial_orientation_[std::size_t(l.child)];
      cardan_angles(quaternion_product(std::array<S, 4>{S(e0[0]), S(-e0[1]), S(-e0[2]), S(-e0[3])}, eb), a + 3);
    }
    return;
  }
  if (l.alpha_count == 0) return;
  std::array<S, 4> ea;
  Vec3<S> point;
  spatial_parent(l, pc, q, pp, ea, point);
  const std::array<S, 4> rest{pp[kRestRotation], pp[kRestRotation + 1], pp[kRestRotation + 2], pp[kRestRotation + 3]};
  switch (l.kind) {
    case LinkKind::Spherical:  // C = conj(E_rest) conj(E_a) E_b
      cardan_angles(quaternion_product(quaternion_conjugate(quaternion_product(ea, rest)), eb), a);
      break;
    case LinkKind::Revolute: {  // q(n, alpha) = conj(E_a) E_b conj(E_rest)
      const auto r = quaternion_product(quaternion_product(quaternion_conjugate(ea), eb), quaternion_conjugate(rest));
      const Vec3<S> n = unit(Vec3<S>{pp[kAxis], pp[kAxis + 1], pp[kAxis + 2]});
      a[0] = 2.0 * atan2(r[1] * n[0] + r[2] * n[1] + r[3] * n[2], r[0]);
      break;
    }
    case LinkKind::Prismatic: {
      const Vec3<S> u = unit(cross(Vec3<S>{pp[kNormal1], pp[kNormal1 + 1], pp[kNormal1 + 2]},
                                   Vec3<S>{pp[kNormal2], pp[kNormal2 + 1], pp[kNormal2 + 2]}));
      const Vec3<S> pb = rigid ? add(Vec3<S>{q[c[0]], q[c[1]], q[c[2]]},
                                     multiply(rotation_from_euler_parameters(eb.data()),
                                              Vec3<S>{pp[kPointB], pp[kPointB + 1], pp[kPointB + 2]}))
                               : Vec3<S>{q[c[0]], q[c[1]], q[c[2]]};
      a[0] = dot(subtract(pb, point), multiply(rotation_from_euler_parameters(ea.data()), u));
      break;
    }
    case LinkKind::Fixed:
    case LinkKind::Distance:
    case LinkKind::Free: break;
  }
}

}  // namespace flexadj::model
