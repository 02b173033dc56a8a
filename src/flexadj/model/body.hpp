#pragma once
// Bodies and their kinematics, templated on the scalar type so that Sacado can differentiate them.
//
// Coordinates per kind (Nikravesh 1988, ch. 6 and 11; Shabana, Dynamics of Multibody Systems, ch. 7):
//   PointMass2D   (x, y)
//   PointMass3D   (x, y, z)
//   PlanarRigid   (x, y, theta)            centre of mass and rotation angle about z
//   SpatialRigid  (x, y, z, e0, e1, e2, e3) centre of mass and Euler parameters, with e.e = 1 enforced
//                                           by a UnitQuaternion constraint
//   Ground        no coordinates; its "points" are fixed global positions
//   AncfPlanarNode (x, y, rx_x, rx_y)      node of the planar ANCF beam: position r and slope r_x
//   AncfCableNode  (x, y, z, rs_x, rs_y, rs_z)  node of the ANCF cable: position r and slope r_s
//   AncfFullNode   (x, y, z, r_x, r_y, r_z)     node of the fully parameterised ANCF beam: position and the
//                                               three position gradients (12 coordinates)
//   DualQuaternionNode (r0..r3, d0..d3)    node of the dual-quaternion beam: q = q_r + eps q_d with q_r the Euler
//                                           parameters of the section and q_d = x q_r / 2 (x the position as a pure
//                                           quaternion); q_r.q_r = 1 and q_r.q_d = 0 enforced by a
//                                           UnitDualQuaternion constraint (Schubert et al. 2024, eqs. (31a)-(31b))
// ANCF nodes have no rotation coordinates (identity frame): forces act at the node position r; moments act
// on the gradients (add_generalized_force). Their inertia is carried by the ANCF elements.
#include <array>
#include <string>
#include <vector>

#include "flexadj/model/sin_cos.hpp"

namespace flexadj::model {

enum class BodyKind { Ground, PointMass2D, PointMass3D, PlanarRigid, SpatialRigid, AncfPlanarNode, AncfCableNode,
                      AncfFullNode, DualQuaternionNode };

constexpr int coordinate_count(BodyKind kind) {
  switch (kind) {
    case BodyKind::Ground: return 0;
    case BodyKind::PointMass2D: return 2;
    case BodyKind::PointMass3D: return 3;
    case BodyKind::PlanarRigid: return 3;
    case BodyKind::SpatialRigid: return 7;
    case BodyKind::AncfPlanarNode: return 4;
    case BodyKind::AncfCableNode: return 6;
    case BodyKind::AncfFullNode: return 12;
    case BodyKind::DualQuaternionNode: return 8;
  }
  return 0;
}
constexpr int translation_count(BodyKind kind) {
  return (kind == BodyKind::PointMass2D || kind == BodyKind::PlanarRigid || kind == BodyKind::AncfPlanarNode) ? 2
         : kind == BodyKind::Ground                                                                            ? 0
                                                                                                               : 3;
}
constexpr bool has_orientation(BodyKind kind) {
  return kind == BodyKind::PlanarRigid || kind == BodyKind::SpatialRigid || kind == BodyKind::DualQuaternionNode;
}
constexpr bool is_ancf_node(BodyKind kind) {
  return kind == BodyKind::AncfPlanarNode || kind == BodyKind::AncfCableNode || kind == BodyKind::AncfFullNode;
}
// Bodies on which an applied moment does work: rigid bodies and ANCF nodes (through their gradients).
constexpr bool takes_moment(BodyKind kind) { return has_orientation(kind) || is_ancf_node(kind); }
const char* to_string(BodyKind kind);

struct Body {
  std::string name;
  BodyKind kind = BodyKind::PointMass3D;
  double mass = 0.0;
  // Inertia tensor about the centre of mass in body axes: Ixx, Iyy, Izz, Ixy, Ixz, Iyz (tensor entries,
  // so Ixy = -integral of x y dm). Planar bodies use Izz only.
  std::array<double, 6> inertia{};
  std::vector<double> initial_coordinates;  // coordinate_count(kind) values
  std::vector<double> initial_velocities;   // time derivatives of the coordinates
};

// ---- small fixed-size vector algebra ------------------------------------------------------------
template <class S> using Vec3 = std::array<S, 3>;

// Returns S, never auto: a Sacado expression must not outlive its operands.
template <class S> S dot(const Vec3<S>& a, const Vec3<S>& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
template <class S> Vec3<S> cross(const Vec3<S>& a, const Vec3<S>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
template <class S> Vec3<S> add(const Vec3<S>& a, const Vec3<S>& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
template <class S> Vec3<S> subtract(const Vec3<S>& a, const Vec3<S>& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
template <class S, class F> Vec3<S> scaled(const Vec3<S>& a, const F& f) { return {a[0] * f, a[1] * f, a[2] * f}; }
template <class S, class P> Vec3<S> lift(const Vec3<P>& p) { return {S(p[0]), S(p[1]), S(p[2])}; }

// Rotation matrix (row-major) of Euler parameters e = (e0, e1, e2, e3); Nikravesh 1988, eq. (6.19).
template <class S> std::array<S, 9> rotation_from_euler_parameters(const S* e) {
  const S &e0 = e[0], &e1 = e[1], &e2 = e[2], &e3 = e[3];
  return {e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2.0 * (e1 * e2 - e0 * e3), 2.0 * (e1 * e3 + e0 * e2),
          2.0 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2.0 * (e2 * e3 - e0 * e1),
          2.0 * (e1 * e3 - e0 * e2), 2.0 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3};
}
template <class S, class V> Vec3<S> multiply(const std::array<S, 9>& R, const Vec3<V>& x) {
  return {R[0] * x[0] + R[1] * x[1] + R[2] * x[2], R[3] * x[0] + R[4] * x[1] + R[5] * x[2],
          R[6] * x[0] + R[7] * x[1] + R[8] * x[2]};
}
template <class S, class V> Vec3<S> multiply_transposed(const std::array<S, 9>& R, const Vec3<V>& x) {
  return {R[0] * x[0] + R[3] * x[1] + R[6] * x[2], R[1] * x[0] + R[4] * x[1] + R[7] * x[2],
          R[2] * x[0] + R[5] * x[1] + R[8] * x[2]};
}
// Body angular velocity w' = 2 G(e) de/dt; Nikravesh 1988, eqs. (6.97), (6.104).
template <class S> Vec3<S> body_angular_velocity(const S* e, const S* de) {
  return {2.0 * (-e[1] * de[0] + e[0] * de[1] + e[3] * de[2] - e[2] * de[3]),
          2.0 * (-e[2] * de[0] - e[3] * de[1] + e[0] * de[2] + e[1] * de[3]),
          2.0 * (-e[3] * de[0] + e[2] * de[1] - e[1] * de[2] + e[0] * de[3])};
}
// G(e)^T y, the map of body-frame moments onto Euler-parameter coordinates.
template <class S, class Y> std::array<S, 4> euler_parameter_map_transposed(const S* e, const Vec3<Y>& y) {
  return {-e[1] * y[0] - e[2] * y[1] - e[3] * y[2], e[0] * y[0] - e[3] * y[1] + e[2] * y[2],
          e[3] * y[0] + e[0] * y[1] - e[1] * y[2], -e[2] * y[0] + e[1] * y[1] + e[0] * y[2]};
}
// Hamilton product of quaternions (scalar first).
template <class S> std::array<S, 4> quaternion_product(const std::array<S, 4>& a, const std::array<S, 4>& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3], a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1], a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}
template <class S> std::array<S, 4> quaternion_conjugate(const std::array<S, 4>& a) { return {a[0], -a[1], -a[2], -a[3]}; }

// Position x = 2 vec(q_d conj(q_r)) of a unit dual quaternion (q_r, q_d) (Schubert et al. 2024, sec. 4.2).
template <class S> Vec3<S> dual_quaternion_position(const S* q) {
  const std::array<S, 4> x = quaternion_product(std::array<S, 4>{q[4], q[5], q[6], q[7]},
                                                quaternion_conjugate(std::array<S, 4>{q[0], q[1], q[2], q[3]}));
  return {2.0 * x[1], 2.0 * x[2], 2.0 * x[3]};
}
// Its rate 2 vec(dq_d conj(q_r) + q_d conj(dq_r)).
template <class S> Vec3<S> dual_quaternion_velocity(const S* q, const S* v) {
  const std::array<S, 4> a = quaternion_product(std::array<S, 4>{v[4], v[5], v[6], v[7]},
                                                quaternion_conjugate(std::array<S, 4>{q[0], q[1], q[2], q[3]}));
  const std::array<S, 4> b = quaternion_product(std::array<S, 4>{q[4], q[5], q[6], q[7]},
                                                quaternion_conjugate(std::array<S, 4>{v[0], v[1], v[2], v[3]}));
  return {2.0 * (a[1] + b[1]), 2.0 * (a[2] + b[2]), 2.0 * (a[3] + b[3])};
}

// ---- body kinematics ---------------------------------------------------------------------------
// Rotation of the body frame (identity for points and ground).
template <class S> std::array<S, 9> body_rotation(BodyKind kind, const S* q) {
  if (kind == BodyKind::SpatialRigid) return rotation_from_euler_parameters(q + 3);
  if (kind == BodyKind::DualQuaternionNode) return rotation_from_euler_parameters(q);
  if (kind == BodyKind::PlanarRigid) {
    S s, c;
    sin_cos(q[2], s, c);
    return {c, -s, S(0.0), s, c, S(0.0), S(0.0), S(0.0), S(1.0)};
  }
  return {S(1.0), S(0.0), S(0.0), S(0.0), S(1.0), S(0.0), S(0.0), S(0.0), S(1.0)};
}

// Global position of the body point with body-frame coordinates s: r + R s. For ground, s itself.
template <class S, class P> Vec3<S> point_position(BodyKind kind, const S* q, const Vec3<P>& s) {
  switch (kind) {
    case BodyKind::Ground: return lift<S>(s);
    case BodyKind::PointMass2D: return {q[0], q[1], S(0.0)};
    case BodyKind::PointMass3D: return {q[0], q[1], q[2]};
    case BodyKind::AncfPlanarNode: return {q[0], q[1], S(0.0)};
    case BodyKind::AncfCableNode:
    case BodyKind::AncfFullNode: return {q[0], q[1], q[2]};
    case BodyKind::PlanarRigid: {
      const auto rs = multiply(body_rotation(kind, q), s);
      return {q[0] + rs[0], q[1] + rs[1], S(0.0)};
    }
    case BodyKind::SpatialRigid: {
      const auto rs = multiply(body_rotation(kind, q), s);
      return {q[0] + rs[0], q[1] + rs[1], q[2] + rs[2]};
    }
    case BodyKind::DualQuaternionNode: {
      const auto rs = multiply(body_rotation(kind, q), s);
      const Vec3<S> x = dual_quaternion_position(q);
      return {x[0] + rs[0], x[1] + rs[1], x[2] + rs[2]};
    }
  }
  return {S(0.0), S(0.0), S(0.0)};
}

// Global angular velocity.
template <class S> Vec3<S> angular_velocity(BodyKind kind, const S* q, const S* v) {
  if (kind == BodyKind::PlanarRigid) return {S(0.0), S(0.0), v[2]};
  if (kind == BodyKind::SpatialRigid) return multiply(body_rotation(kind, q), body_angular_velocity(q + 3, v + 3));
  if (kind == BodyKind::DualQuaternionNode) return multiply(body_rotation(kind, q), body_angular_velocity(q, v));
  return {S(0.0), S(0.0), S(0.0)};
}

// Global velocity of a body point: dr/dt + w x (R s).
template <class S, class P> Vec3<S> point_velocity(BodyKind kind, const S* q, const S* v, const Vec3<P>& s) {
  switch (kind) {
    case BodyKind::Ground: return {S(0.0), S(0.0), S(0.0)};
    case BodyKind::PointMass2D: return {v[0], v[1], S(0.0)};
    case BodyKind::PointMass3D: return {v[0], v[1], v[2]};
    case BodyKind::AncfPlanarNode: return {v[0], v[1], S(0.0)};
    case BodyKind::AncfCableNode:
    case BodyKind::AncfFullNode: return {v[0], v[1], v[2]};
    case BodyKind::PlanarRigid:
    case BodyKind::SpatialRigid: {
      const auto arm = multiply(body_rotation(kind, q), s);
      const auto w = cross(angular_velocity(kind, q, v), arm);
      return {v[0] + w[0], v[1] + w[1], kind == BodyKind::SpatialRigid ? v[2] + w[2] : S(0.0)};
    }
    case BodyKind::DualQuaternionNode: {
      const auto arm = multiply(body_rotation(kind, q), s);
      const auto w = cross(angular_velocity(kind, q, v), arm);
      const Vec3<S> x_dot = dual_quaternion_velocity(q, v);
      return {x_dot[0] + w[0], x_dot[1] + w[1], x_dot[2] + w[2]};
    }
  }
  return {S(0.0), S(0.0), S(0.0)};
}

// Adds the generalized force of a global force F at body point s and a global moment n to Q.
// Spatial: Q_e = 2 G^T (s x F' + n'), primes in body axes; Nikravesh 1988, eq. (11.23).
// ANCF nodes: the force acts at r (s is not used, as for point masses); the moment n does the virtual work
// n . dtheta with dtheta = (r_s x dr_s)/|r_s|^2 for a slope (the twist about r_s does no work on a cable), and
// dtheta = d2 x dd2 + d3 x dd3 - 1/2 (d3.dd2 - d2.dd3) d1 for the cross-section gradients d2 = r_y, d3 = r_z of a
// full node, d1 = d2 x d3 (the variation of the rotation of an orthonormal triad; the moment acts on the section,
// not on the centreline slope r_x).
template <class S, class P, class F> void add_generalized_force(BodyKind kind, const S* q, const Vec3<P>& s,
                                                                const Vec3<F>& force, const Vec3<F>& moment, S* Q) {
  switch (kind) {
    case BodyKind::Ground: return;
    case BodyKind::PointMass2D: Q[0] += force[0]; Q[1] += force[1]; return;
    case BodyKind::PointMass3D: Q[0] += force[0]; Q[1] += force[1]; Q[2] += force[2]; return;
    case BodyKind::AncfPlanarNode: {
      const S norm2 = q[2] * q[2] + q[3] * q[3];
      Q[0] += force[0];
      Q[1] += force[1];
      Q[2] -= moment[2] * q[3] / norm2;
      Q[3] += moment[2] * q[2] / norm2;
      return;
    }
    case BodyKind::AncfCableNode: {
      const Vec3<S> slope{q[3], q[4], q[5]};
      const S norm2 = dot(slope, slope);
      const Vec3<S> moment_s = lift<S>(moment);
      const Vec3<S> generalized = cross(moment_s, slope);
      for (int i = 0; i < 3; ++i) {
        Q[i] += force[i];
        Q[3 + i] += generalized[i] / norm2;
      }
      return;
    }
    case BodyKind::AncfFullNode: {
      const Vec3<S> moment_s = lift<S>(moment);
      const Vec3<S> d2{q[6], q[7], q[8]}, d3{q[9], q[10], q[11]};
      const S twist = 0.5 * dot(moment_s, cross(d2, d3));
      const Vec3<S> on_d2 = subtract(cross(moment_s, d2), scaled(d3, twist));
      const Vec3<S> on_d3 = add(cross(moment_s, d3), scaled(d2, twist));
      for (int i = 0; i < 3; ++i) {
        Q[i] += force[i];
        Q[6 + i] += on_d2[i];
        Q[9 + i] += on_d3[i];
      }
      return;
    }
    case BodyKind::PlanarRigid: {
      const auto arm = multiply(body_rotation(kind, q), s);
      Q[0] += force[0];
      Q[1] += force[1];
      Q[2] += arm[0] * force[1] - arm[1] * force[0] + moment[2];
      return;
    }
    case BodyKind::SpatialRigid: {
      const auto R = body_rotation(kind, q);
      const Vec3<S> force_body = multiply_transposed(R, force);
      const Vec3<S> moment_body = add(cross(lift<S>(s), force_body), multiply_transposed(R, moment));
      const auto Qe = euler_parameter_map_transposed(q + 3, moment_body);
      for (int i = 0; i < 3; ++i) Q[i] += force[i];
      for (int i = 0; i < 4; ++i) Q[3 + i] += 2.0 * Qe[i];
      return;
    }
    case BodyKind::DualQuaternionNode: {
      // Virtual work F . dx + m . dtheta with dx = 2 vec(dq_d conj(q_r) + q_d conj(dq_r)) and the global
      // dtheta = 2 vec(dq_r conj(q_r)), m = moment + (R s) x F: Q_d = 2 F q_r, Q_r = 2 (m q_r - F q_d) with F and m
      // as pure quaternions (<a, b conj(c)> = <a c, b> for quaternions).
      const Vec3<S> arm = multiply(body_rotation(kind, q), s);
      const Vec3<S> force_s = lift<S>(force);
      const Vec3<S> m = add(lift<S>(moment), cross(arm, force_s));
      const std::array<S, 4> qr{q[0], q[1], q[2], q[3]}, qd{q[4], q[5], q[6], q[7]};
      const std::array<S, 4> f_hat{S(0.0), force_s[0], force_s[1], force_s[2]}, m_hat{S(0.0), m[0], m[1], m[2]};
      const std::array<S, 4> on_d = quaternion_product(f_hat, qr), m_r = quaternion_product(m_hat, qr),
                             f_d = quaternion_product(f_hat, qd);
      for (int i = 0; i < 4; ++i) {
        Q[i] += 2.0 * (m_r[i] - f_d[i]);
        Q[4 + i] += 2.0 * on_d[i];
      }
      return;
    }
  }
}

// ---- section frames for output -----------------------------------------------------------------
// The frame (row-major, columns axis_x, axis_y, axis_z) the output shows for a body: body_rotation for rigid
// bodies and beam nodes; for ANCF nodes, which carry gradients instead of a rotation, a frame built from them
// (section_frame.cpp) with axis_x along the centreline slope. Output only: joints, loads and sensors use
// body_rotation.
std::array<double, 9> section_frame(BodyKind kind, const double* q);

}  // namespace flexadj::model
