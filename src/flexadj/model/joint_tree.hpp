#pragma once
// Joint coordinates of an open-loop (tree) planar model (Maciag, Malczyk and Fraczek 2022, sec. 2.2, "q = g(alpha)"):
// the absolute coordinates of every body from the joint coordinates alpha, recursively from the ground outwards
// (parents before children), and back, alpha = g^-1(q). The velocity transformation of [MMF22] eq. (7),
// v = H(alpha) beta with beta = d(alpha)/dt, is H = dg/dalpha (integrators/joint_space_equations.hpp).
//
// Links (a joint between a placed parent a and its child b, `bodies: [a, b]` in the model file):
//   revolute    theta_b = theta_a + rest + alpha;  P_b = P_a                      1 coordinate (0: point-mass child)
//   prismatic   P_b = P_a + alpha u, u = R(theta_a) perp(normal_1)/|normal_1|;  theta_b = theta_a + rest   1
//   distance    P_b = P_a + L (cos alpha_1, sin alpha_1);  theta_b = alpha_2      1 (point mass) or 2 (rigid body)
//   fixed       theta_b = theta_a + rest;  P_b = P_a                              0
//   free        q_b = alpha (a body that is the child of no joint)                2 or 3
// with P_a, P_b the joint points on a and b (global for ground) and r_b = P_b - R(theta_b) s_b: exactly the
// equations of the model's joint constraints (constraints/joints.cpp), so C(g(alpha)) = 0 for every alpha. The
// geometry is read from the constraints' own parameters (point_a, point_b, normal_1, rest_angle, length), so their
// design variables move g as they move C.
//
// Templated on the scalar so that Sacado differentiates g with respect to alpha and the parameters.
#include <cmath>
#include <vector>

#include "flexadj/model/model.hpp"

namespace flexadj::model {

class JointTree {
 public:
  enum class LinkKind { Revolute, Prismatic, Distance, Fixed, Free };
  struct Link {
    LinkKind kind = LinkKind::Free;
    int constraint = -1;  // index into Model::constraints(); -1 for a free body
    int parent = kGround, child = 0;
    BodyKind parent_kind = BodyKind::Ground, child_kind = BodyKind::PlanarRigid;
    int first_alpha = 0, alpha_count = 0;
    int first_parameter = 0;  // into parameters(): the constraint's parameters in its own order
  };

  // The tree of a planar model whose bodies are point masses and rigid bodies and whose constraints are revolute,
  // prismatic, fixed and distance joints, each listed as [parent, child] (the parent nearer to the ground).
  // `local_index[g]`: the rank-local index of global coordinate g. InputError (the model file and the joint's key)
  // for anything else: a closed loop, a body with two parents, another constraint type, a spatial model.
  JointTree(const Model& model, const std::vector<int>& local_index);

  int size() const { return alpha_count_; }                     // k, the joint coordinates
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

 private:
  // Indices into q of body b's coordinates (kGround: none).
  const int* body_index(int body) const { return &body_local_[std::size_t(body_first_[std::size_t(body)])]; }
  template <class S> void joint_point(const Link& l, const S* q, const S* p, bool child, S& x, S& y) const;

  std::vector<Link> links_;
  std::vector<double> parameters_;
  std::vector<int> body_first_, body_local_;  // body_local_[body_first_[b] + j]: local index of coordinate j of b
  int alpha_count_ = 0, coordinate_count_ = 0;
};

// ---- templates ------------------------------------------------------------------------------------------------

// Parameter layout of the joint constraints (constraints/joints.cpp): point_a 0..2, point_b 3..5, axis 6..8,
// normal_1 9..11, normal_2 12..14, rest_angle 15 (planar); distance: point_a 0..2, point_b 3..5, length 6.
namespace joint_tree_layout {
constexpr int kPointA = 0, kPointB = 3, kNormal1 = 9, kRest = 15, kLength = 6;
}

// The joint point of link l on its parent (child = false) or child (child = true) at q: P = r + R(theta) s.
template <class S>
void JointTree::joint_point(const Link& l, const S* q, const S* p, bool child, S& x, S& y) const {
  using namespace joint_tree_layout;
  const int body = child ? l.child : l.parent;
  const BodyKind kind = child ? l.child_kind : l.parent_kind;
  const S* s = p + l.first_parameter + (child ? kPointB : kPointA);
  if (body == kGround) {
    x = s[0];
    y = s[1];
    return;
  }
  const int* c = body_index(body);
  x = q[c[0]];
  y = q[c[1]];
  if (kind == BodyKind::PlanarRigid) {
    using std::cos;
    using std::sin;
    const S co = cos(q[c[2]]), si = sin(q[c[2]]);
    x += co * s[0] - si * s[1];
    y += si * s[0] + co * s[1];
  }
}

template <class S> void JointTree::positions(const S* alpha, const S* p, S* q) const {
  using namespace joint_tree_layout;
  using std::cos;
  using std::sin;
  using std::sqrt;
  for (const Link& l : links_) {
    const S* a = alpha + l.first_alpha;
    const int* c = body_index(l.child);
    if (l.kind == LinkKind::Free) {
      for (int j = 0; j < l.alpha_count; ++j) q[c[j]] = a[j];
      continue;
    }
    const S* pp = p + l.first_parameter;
    const S theta_a = l.parent != kGround && l.parent_kind == BodyKind::PlanarRigid ? q[body_index(l.parent)[2]] : S(0.0);
    S px, py;
    joint_point(l, q, p, false, px, py);
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
        const S co = cos(theta_a), si = sin(theta_a);
        px += a[0] * (co * ux - si * uy);
        py += a[0] * (si * ux + co * uy);
        break;
      }
      case LinkKind::Distance:
        px += pp[kLength] * cos(a[0]);
        py += pp[kLength] * sin(a[0]);
        if (l.alpha_count > 1) theta_b = a[1];
        break;
      case LinkKind::Fixed:
      case LinkKind::Free: break;
    }
    if (l.child_kind == BodyKind::PlanarRigid) {
      const S* s = pp + kPointB;
      const S co = cos(theta_b), si = sin(theta_b);
      q[c[0]] = px - (co * s[0] - si * s[1]);
      q[c[1]] = py - (si * s[0] + co * s[1]);
      q[c[2]] = theta_b;
    } else {
      q[c[0]] = px;
      q[c[1]] = py;
    }
  }
}

template <class S> void JointTree::joint_coordinates(const S* q, const S* p, S* alpha) const {
  using namespace joint_tree_layout;
  using std::atan2;
  using std::cos;
  using std::sin;
  using std::sqrt;
  for (const Link& l : links_) {
    S* a = alpha + l.first_alpha;
    const int* c = body_index(l.child);
    if (l.kind == LinkKind::Free) {
      for (int j = 0; j < l.alpha_count; ++j) a[j] = q[c[j]];
      continue;
    }
    if (l.alpha_count == 0) continue;
    const S* pp = p + l.first_parameter;
    const S theta_a = l.parent != kGround && l.parent_kind == BodyKind::PlanarRigid ? q[body_index(l.parent)[2]] : S(0.0);
    S pax, pay, pbx, pby;
    joint_point(l, q, p, false, pax, pay);
    joint_point(l, q, p, true, pbx, pby);
    switch (l.kind) {
      case LinkKind::Revolute: a[0] = q[c[2]] - theta_a - pp[kRest]; break;
      case LinkKind::Prismatic: {
        const S nx = pp[kNormal1], ny = pp[kNormal1 + 1];
        const S norm = sqrt(nx * nx + ny * ny);
        const S ux = ny / norm, uy = -nx / norm;
        const S co = cos(theta_a), si = sin(theta_a);
        a[0] = (pbx - pax) * (co * ux - si * uy) + (pby - pay) * (si * ux + co * uy);
        break;
      }
      case LinkKind::Distance:
        a[0] = atan2(pby - pay, pbx - pax);
        if (l.alpha_count > 1) a[1] = q[c[2]];
        break;
      case LinkKind::Fixed:
      case LinkKind::Free: break;
    }
  }
}

}  // namespace flexadj::model
