#include "flexadj/model/planar_link_inverse.hpp"

#include <cmath>

namespace flexadj::model {
namespace {
using namespace joint_tree_layout;
struct Vec2 {
  double x = 0.0, y = 0.0;
};
double dot(const Vec2& a, const Vec2& b) { return a.x * b.x + a.y * b.y; }
Vec2 rotate(double c, double s, Vec2 v) { return {c * v.x - s * v.y, s * v.x + c * v.y}; }
Vec2 rotate_back(double c, double s, Vec2 v) { return {c * v.x + s * v.y, -s * v.x + c * v.y}; }  // R^T v
Vec2 quarter(Vec2 v) { return {-v.y, v.x}; }                                                         // J v
}  // namespace

void planar_link_inverse_jacobian(const JointTree::Link& l, const double* parent, const double* child,
                                  const double* pp, double (*dq)[6], double (*dp)[16]) {
  for (int j = 0; j < l.alpha_count; ++j) {
    for (int i = 0; i < 6; ++i) dq[j][i] = 0.0;
    for (int k = 0; k < l.parameter_count; ++k) dp[j][k] = 0.0;
  }
  if (l.kind == JointTree::LinkKind::Free) {
    for (int j = 0; j < l.alpha_count; ++j) dq[j][j] = 1.0;
    return;
  }
  if (l.alpha_count == 0) return;
  const int np = JointTree::parent_coordinates(l);
  const bool parent_turns = parent && l.parent_kind == BodyKind::PlanarRigid;
  const bool rigid = l.child_kind == BodyKind::PlanarRigid;
  if (l.kind == JointTree::LinkKind::Revolute) {  // alpha = theta_b - theta_a - rest
    dq[0][np + 2] = 1.0;
    if (parent_turns) dq[0][2] = -1.0;
    dp[0][kRest] = -1.0;
    return;
  }
  // The joint points P_a = r_a + R(theta_a) s_a (the ground: s_a) and P_b = r_b + R(theta_b) s_b, and their
  // offsets R s (whose derivatives in the angles are J R s).
  const double ca = parent_turns ? std::cos(parent[2]) : 1.0, sa = parent_turns ? std::sin(parent[2]) : 0.0;
  const double cb = rigid ? std::cos(child[2]) : 1.0, sb = rigid ? std::sin(child[2]) : 0.0;
  const Vec2 offset_a = parent_turns ? rotate(ca, sa, {pp[kPointA], pp[kPointA + 1]}) : Vec2{};
  const Vec2 offset_b = rigid ? rotate(cb, sb, {pp[kPointB], pp[kPointB + 1]}) : Vec2{};
  const Vec2 pa = parent ? Vec2{parent[0] + offset_a.x, parent[1] + offset_a.y} : Vec2{pp[kPointA], pp[kPointA + 1]};
  const Vec2 delta{child[0] + offset_b.x - pa.x, child[1] + offset_b.y - pa.y};
  // e = d alpha_1 / d delta; the terms of alpha_1 other than through delta in theta_a (extra) and the parameters.
  Vec2 e;
  double extra = 0.0;
  if (l.kind == JointTree::LinkKind::Prismatic) {  // alpha = delta . R(theta_a) u
    const double nx = pp[kNormal1], ny = pp[kNormal1 + 1], norm = std::sqrt(nx * nx + ny * ny);
    const Vec2 u{ny / norm, -nx / norm};
    e = rotate(ca, sa, u);
    extra = dot(delta, quarter(e));
    const Vec2 g = rotate_back(ca, sa, delta);  // d alpha / d u; u(n) as in planar_link_map.cpp
    const double along = (g.x * ny - g.y * nx) / (norm * norm * norm);
    dp[0][kNormal1] = -g.y / norm - along * nx;
    dp[0][kNormal1 + 1] = g.x / norm - along * ny;
  } else {  // distance: alpha_1 = atan2(delta_y, delta_x)
    const double squared = dot(delta, delta);
    e = {-delta.y / squared, delta.x / squared};
    if (l.alpha_count > 1) dq[1][np + 2] = 1.0;  // alpha_2 = theta_b
  }
  dq[0][np] = e.x;
  dq[0][np + 1] = e.y;
  if (rigid) {
    dq[0][np + 2] = dot(e, quarter(offset_b));
    const Vec2 sb_bar = rotate_back(cb, sb, e);
    dp[0][kPointB] = sb_bar.x;
    dp[0][kPointB + 1] = sb_bar.y;
  }
  if (!parent) {
    dp[0][kPointA] = -e.x;
    dp[0][kPointA + 1] = -e.y;
    return;
  }
  dq[0][0] = -e.x;
  dq[0][1] = -e.y;
  if (parent_turns) {
    dq[0][2] = -dot(e, quarter(offset_a)) + extra;
    const Vec2 sa_bar = rotate_back(ca, sa, e);
    dp[0][kPointA] = -sa_bar.x;
    dp[0][kPointA + 1] = -sa_bar.y;
  }
}

}  // namespace flexadj::model
