#include "flexadj/model/planar_link_map.hpp"

#include <cmath>

namespace flexadj::model {
namespace {
using namespace joint_tree_layout;
// A planar vector of parts.
struct Vector2 {
  Parts x{}, y{};
};

Turn turn_of(double angle) { return {std::cos(angle), std::sin(angle)}; }

// f(phi) = R(phi) s with phi's parts and s held (module comment): out += sign f.
void add_rotated(const Parts& phi, const Turn& t, double s0, double s1, double sign, Vector2& out) {
  const double fx = sign * (t.c * s0 - t.s * s1), fy = sign * (t.s * s0 + t.c * s1);
  const double dx = -fy, dy = fx;  // f' = J f
  const double yz = phi[1] * phi[2];
  out.x[0] += fx;
  out.y[0] += fy;
  out.x[1] += phi[1] * dx;
  out.y[1] += phi[1] * dy;
  out.x[2] += phi[2] * dx;
  out.y[2] += phi[2] * dy;
  out.x[3] += phi[3] * dx - yz * fx;
  out.y[3] += phi[3] * dy - yz * fy;
}

// The transpose of add_rotated(phi, t, s, sign) for the weights w on out: phi_bar += (all parts), s_bar += (values).
void add_rotated_transposed(const Parts& phi, const Turn& t, double s0, double s1, double sign, const Vector2& w,
                            Parts& phi_bar, double* s_bar) {
  const double fx = sign * (t.c * s0 - t.s * s1), fy = sign * (t.s * s0 + t.c * s1);
  const double dx = -fy, dy = fx;
  const double yz = phi[1] * phi[2];
  auto dot = [](const Parts& a, const Parts& b, int c, double u, double v) { return a[c] * u + b[c] * v; };
  // b = phi_y w_y + phi_z w_z + phi_yz w_yz, the weight on f' in the e-parts; f'' = -f, f''' = -f'.
  const double bx = phi[1] * w.x[1] + phi[2] * w.x[2] + phi[3] * w.x[3];
  const double by = phi[1] * w.y[1] + phi[2] * w.y[2] + phi[3] * w.y[3];
  phi_bar[0] += dot(w.x, w.y, 0, dx, dy) - (bx * fx + by * fy) - yz * dot(w.x, w.y, 3, dx, dy);
  phi_bar[1] += dot(w.x, w.y, 1, dx, dy) - phi[2] * dot(w.x, w.y, 3, fx, fy);
  phi_bar[2] += dot(w.x, w.y, 2, dx, dy) - phi[1] * dot(w.x, w.y, 3, fx, fy);
  phi_bar[3] += dot(w.x, w.y, 3, dx, dy);
  if (!s_bar) return;
  // f = sign R s, f' = sign R J s: s_bar = sign (R^T a + (R J)^T b), a = w_0 - phi_y phi_z w_yz.
  const double ax = w.x[0] - yz * w.x[3], ay = w.y[0] - yz * w.y[3];
  const double tx = t.c * bx + t.s * by, ty = -t.s * bx + t.c * by;  // R^T b; (R J)^T b = J^T R^T b = (ty, -tx)
  s_bar[0] += sign * (t.c * ax + t.s * ay + ty);
  s_bar[1] += sign * (-t.s * ax + t.c * ay - tx);
}

// out += a v (products of parts: e_i e_j = e_(i|j) for disjoint i, j, else 0).
void add_product(const Parts& a, const Vector2& v, Vector2& out) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (!(i & j)) {
        out.x[i | j] += a[i] * v.x[j];
        out.y[i | j] += a[i] * v.y[j];
      }
}
void add_product_transposed(const Parts& a, const Vector2& v, const Vector2& w, Parts& a_bar, Vector2& v_bar) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (!(i & j)) {
        a_bar[i] += w.x[i | j] * v.x[j] + w.y[i | j] * v.y[j];
        v_bar.x[j] += a[i] * w.x[i | j];
        v_bar.y[j] += a[i] * w.y[i | j];
      }
}

// The prismatic direction u = (n_y, -n_x)/|n| in the parent's axes (n = normal_1), and n_bar += (du/dn)^T u_bar.
void prismatic_direction(const double* pp, double& ux, double& uy) {
  const double nx = pp[kNormal1], ny = pp[kNormal1 + 1], norm = std::sqrt(nx * nx + ny * ny);
  ux = ny / norm;
  uy = -nx / norm;
}
void prismatic_direction_transposed(const double* pp, double ux_bar, double uy_bar, double* pp_bar) {
  const double nx = pp[kNormal1], ny = pp[kNormal1 + 1], norm = std::sqrt(nx * nx + ny * ny);
  const double along = (ux_bar * ny - uy_bar * nx) / (norm * norm * norm);  // u_bar . (n_y, -n_x) / |n|^3
  pp_bar[kNormal1] += -uy_bar / norm - along * nx;
  pp_bar[kNormal1 + 1] += ux_bar / norm - along * ny;
}

bool turns_parent(const JointTree::Link& l, const Parts* parent) {
  return parent && l.parent_kind == BodyKind::PlanarRigid;
}
}  // namespace

void place_planar_child(const JointTree::Link& l, const Parts* parent, const Turn& parent_turn, const Parts* alpha,
                        const double* pp, Parts* child, LinkTurns& turns) {
  const bool rigid = l.child_kind == BodyKind::PlanarRigid;
  if (l.kind == JointTree::LinkKind::Free) {
    for (int j = 0; j < l.alpha_count; ++j) child[j] = alpha[j];
    if (rigid) turns.child = turn_of(alpha[2][0]);
    return;
  }
  const bool parent_turns = turns_parent(l, parent);
  turns.parent = parent_turns ? parent_turn : Turn{};
  const Parts theta_a = parent_turns ? parent[2] : Parts{};
  // The parent's joint point P_a = r_a + R(theta_a) s_a (the ground: s_a).
  Vector2 point;
  if (!parent) {
    point.x[0] = pp[kPointA];
    point.y[0] = pp[kPointA + 1];
  } else {
    point.x = parent[0];
    point.y = parent[1];
    if (parent_turns) add_rotated(theta_a, turns.parent, pp[kPointA], pp[kPointA + 1], 1.0, point);
  }
  Parts theta_b = theta_a;
  if (l.kind != JointTree::LinkKind::Distance) theta_b[0] += pp[kRest];
  switch (l.kind) {
    case JointTree::LinkKind::Revolute:
      if (l.alpha_count > 0)
        for (int c = 0; c < 4; ++c) theta_b[c] += alpha[0][c];
      break;
    case JointTree::LinkKind::Prismatic: {  // P_b = P_a + alpha R(theta_a) u
      double ux, uy;
      prismatic_direction(pp, ux, uy);
      Vector2 u;
      add_rotated(theta_a, turns.parent, ux, uy, 1.0, u);
      add_product(alpha[0], u, point);
      break;
    }
    case JointTree::LinkKind::Distance:  // P_b = P_a + L (cos alpha_1, sin alpha_1)
      turns.distance = turn_of(alpha[0][0]);
      add_rotated(alpha[0], turns.distance, pp[kLength], 0.0, 1.0, point);
      if (l.alpha_count > 1) theta_b = alpha[1];
      break;
    case JointTree::LinkKind::Fixed:
    case JointTree::LinkKind::Spherical:
    case JointTree::LinkKind::Free: break;
  }
  if (rigid) {  // r_b = P_b - R(theta_b) s_b
    turns.child = turn_of(theta_b[0]);
    add_rotated(theta_b, turns.child, pp[kPointB], pp[kPointB + 1], -1.0, point);
    child[2] = theta_b;
  }
  child[0] = point.x;
  child[1] = point.y;
}

void place_planar_child_transposed(const JointTree::Link& l, const Parts* parent, const Parts* alpha,
                                   const double* pp, const LinkTurns& turns, const Parts* w_child, Parts* parent_bar,
                                   Parts* alpha_bar, double* pp_bar) {
  const bool rigid = l.child_kind == BodyKind::PlanarRigid;
  if (l.kind == JointTree::LinkKind::Free) {
    for (int j = 0; j < l.alpha_count; ++j)
      for (int c = 0; c < 4; ++c) alpha_bar[j][c] += w_child[j][c];
    return;
  }
  const bool parent_turns = turns_parent(l, parent);
  const Parts theta_a = parent_turns ? parent[2] : Parts{};
  Parts theta_b = theta_a;  // (its value enters only through turns.child)
  if (l.kind == JointTree::LinkKind::Revolute && l.alpha_count > 0)
    for (int c = 0; c < 4; ++c) theta_b[c] += alpha[0][c];
  if (l.kind == JointTree::LinkKind::Distance && l.alpha_count > 1) theta_b = alpha[1];
  const Vector2 point_bar{w_child[0], w_child[1]};
  Parts theta_a_bar{}, theta_b_bar{};
  if (rigid) {
    theta_b_bar = w_child[2];
    add_rotated_transposed(theta_b, turns.child, pp[kPointB], pp[kPointB + 1], -1.0, point_bar, theta_b_bar,
                           pp_bar + kPointB);
  }
  const auto rest_bar = [&] {
    for (int c = 0; c < 4; ++c) theta_a_bar[c] += theta_b_bar[c];
    pp_bar[kRest] += theta_b_bar[0];
  };
  switch (l.kind) {
    case JointTree::LinkKind::Revolute:
      if (l.alpha_count > 0)
        for (int c = 0; c < 4; ++c) alpha_bar[0][c] += theta_b_bar[c];
      rest_bar();
      break;
    case JointTree::LinkKind::Prismatic: {
      rest_bar();
      double ux, uy;
      prismatic_direction(pp, ux, uy);
      Vector2 u, u_bar;
      add_rotated(theta_a, turns.parent, ux, uy, 1.0, u);
      add_product_transposed(alpha[0], u, point_bar, alpha_bar[0], u_bar);
      double direction_bar[2] = {0.0, 0.0};
      add_rotated_transposed(theta_a, turns.parent, ux, uy, 1.0, u_bar, theta_a_bar, direction_bar);
      prismatic_direction_transposed(pp, direction_bar[0], direction_bar[1], pp_bar);
      break;
    }
    case JointTree::LinkKind::Distance: {
      double length_bar[2] = {0.0, 0.0};
      add_rotated_transposed(alpha[0], turns.distance, pp[kLength], 0.0, 1.0, point_bar, alpha_bar[0], length_bar);
      pp_bar[kLength] += length_bar[0];
      if (l.alpha_count > 1)
        for (int c = 0; c < 4; ++c) alpha_bar[1][c] += theta_b_bar[c];
      else
        for (int c = 0; c < 4; ++c) theta_a_bar[c] += theta_b_bar[c];
      break;
    }
    case JointTree::LinkKind::Fixed: rest_bar(); break;
    case JointTree::LinkKind::Spherical:
    case JointTree::LinkKind::Free: break;
  }
  if (!parent) {
    pp_bar[kPointA] += point_bar.x[0];
    pp_bar[kPointA + 1] += point_bar.y[0];
    return;
  }
  for (int c = 0; c < 4; ++c) {
    parent_bar[0][c] += point_bar.x[c];
    parent_bar[1][c] += point_bar.y[c];
  }
  if (!parent_turns) return;
  add_rotated_transposed(theta_a, turns.parent, pp[kPointA], pp[kPointA + 1], 1.0, point_bar, theta_a_bar,
                         pp_bar + kPointA);
  for (int c = 0; c < 4; ++c) parent_bar[2][c] += theta_a_bar[c];
}

}  // namespace flexadj::model
