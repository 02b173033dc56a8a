#pragma once
// The dual-quaternion beam's second derivatives written out (Schubert et al. 2024, sec. 4; the Lagrangian in
// dual_quaternion_lagrangian.hpp): the Jacobians of its trapezoidal discrete momenta with respect to the two ends of
// a step, from which the beam takes the Newton matrix and the adjoint's transposed products.
//
// Everything is built from the bilinear product conj(a) b of dual quaternions, written as matrices:
//   conj(a) b = left(a) b = right(b) a,   y . conj(a) b = a^T pairing(y) b,
// so that the gradients of y . conj(a) b are right(b)^T y (in a) and left(a)^T y (in b), and its Hessian in (a, b)
// is the constant [[0, pairing(y)], [pairing(y)^T, 0]]. Per node b and end q of the step, with w = conj(q_b) v_b and
// y = 2 ds M~ w (T_v = left(q_b)^T y, T_q = right(v_b)^T y):
//   T_vv = 2 ds left^T M~ left,   T_vq = pairing(y)^T + 2 ds left^T M~ right,   T_qq = 2 ds right^T M~ right.
// The strains k_b = conj(q_b) s, s = (q_B - q_A)/ds, have dk_b = right(s) dq_b + left(q_b) (dq_B - dq_A)/ds, and
// y_k . k_b the Hessian in (q_b, q_B - q_A) above (the stresses y_k = 2 ds (C~ (k - k0) + D~ k_dot)). The weight's
// generalized force (2 F q_d, -2 F q_r) has the constant Jacobian [[0, 2 F], [-2 F, 0]] (F a pure quaternion).
#include <array>

#include "flexadj/elements/dual_quaternion_lagrangian.hpp"

namespace flexadj::elements::dual_quaternion {

using Matrix4 = std::array<double, 16>;                            // row-major
using Matrix8 = std::array<double, kNode * kNode>;                 // row-major, blocks (real, dual)
using Matrix16 = std::array<double, kCoordinates * kCoordinates>;  // row-major, blocks (node A, node B)

// Quaternions (scalar first): b -> conj(a) b, a -> conj(a) b, the pairing matrix X(y) with y . conj(a) b = a^T X b,
// and b -> a b.
inline Matrix4 conjugate_times_left(const double* a) {
  return {a[0], a[1], a[2], a[3], -a[1], a[0], a[3], -a[2], -a[2], -a[3], a[0], a[1], -a[3], a[2], -a[1], a[0]};
}
inline Matrix4 conjugate_times_right(const double* b) {
  return {b[0], b[1], b[2], b[3], b[1], -b[0], -b[3], b[2], b[2], b[3], -b[0], -b[1], b[3], -b[2], b[1], -b[0]};
}
inline Matrix4 conjugate_times_pairing(const double* y) {
  return {y[0], y[1], y[2], y[3], -y[1], y[0], -y[3], y[2], -y[2], y[3], y[0], -y[1], -y[3], -y[2], y[1], y[0]};
}
inline Matrix4 product_left(const double* a) {
  return {a[0], -a[1], -a[2], -a[3], a[1], a[0], -a[3], a[2], a[2], a[3], a[0], -a[1], a[3], -a[2], a[1], a[0]};
}

// The dual matrix [[real, upper], [lower, diagonal]] of 4x4 blocks (a zero block: null).
inline Matrix8 dual_blocks(const Matrix4* real, const Matrix4* upper, const Matrix4* lower, const Matrix4* diagonal) {
  Matrix8 m{};
  const Matrix4* blocks[4] = {real, upper, lower, diagonal};
  for (int block = 0; block < 4; ++block) {
    if (!blocks[block]) continue;
    const int row = 4 * (block / 2), column = 4 * (block % 2);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) m[(row + i) * kNode + column + j] = (*blocks[block])[4 * i + j];
  }
  return m;
}
// Dual quaternions: conj(a) b = (conj(a_r) b_r, conj(a_r) b_d + conj(a_d) b_r) as left(a) b and right(b) a, and
// y . conj(a) b = a^T pairing(y) b.
inline Matrix8 dual_conjugate_times_left(const double* a) {
  const Matrix4 r = conjugate_times_left(a), d = conjugate_times_left(a + 4);
  return dual_blocks(&r, nullptr, &d, &r);
}
inline Matrix8 dual_conjugate_times_right(const double* b) {
  const Matrix4 r = conjugate_times_right(b), d = conjugate_times_right(b + 4);
  return dual_blocks(&r, nullptr, &d, &r);
}
inline Matrix8 dual_conjugate_times_pairing(const double* y) {
  const Matrix4 r = conjugate_times_pairing(y), d = conjugate_times_pairing(y + 4);
  return dual_blocks(&r, &d, &d, nullptr);
}

// out += scale A^T diag(w) B (A, B n x n, the rows of zero weight skipped).
template <int N>
void add_weighted_product(const std::array<double, N * N>& A, const double* w, const std::array<double, N * N>& B,
                          double scale, std::array<double, N * N>& out) {
  for (int k = 0; k < N; ++k) {
    if (w[k] == 0.0) continue;
    const double wk = scale * w[k];
    for (int i = 0; i < N; ++i) {
      const double a = wk * A[k * N + i];
      for (int j = 0; j < N; ++j) out[i * N + j] += a * B[k * N + j];
    }
  }
}
// out(block row, block column) += scale m (or m^T), an 8x8 block of a 16x16 matrix.
inline void add_block(const Matrix8& m, int row, int column, double scale, bool transposed, Matrix16& out) {
  for (int i = 0; i < kNode; ++i)
    for (int j = 0; j < kNode; ++j)
      out[(kNode * row + i) * kCoordinates + kNode * column + j] +=
          scale * (transposed ? m[j * kNode + i] : m[i * kNode + j]);
}

// The kinetic energy's second derivatives at one end q of the step, per node (see the top of this file).
struct KineticHessian {
  Matrix8 vv[2], vq[2], qq[2];
};
// The strains' Jacobian dk/dq at one end of the step (16 x 16: the strains at node A, then B) and the Hessian of
// y_k . k + U (the stresses y_k given; U the weight's potential).
struct StrainDerivatives {
  Matrix16 jacobian;
  std::array<double, 2 * kNode> strains;
};

// The second derivatives of the dual-quaternion beam's discrete momenta (dual_quaternion_beam.cpp), given the
// element's Lagrangian and parameters.
class DualQuaternionMomentaDerivatives {
 public:
  DualQuaternionMomentaDerivatives(const DualQuaternionLagrangian& lagrangian, const double* p, bool damped)
      : lagrangian_(lagrangian), p_(p), damped_(damped), length_(p[DualQuaternionLagrangian::kLength]),
        mass_(lagrangian.mass_weights(p)) {
    const auto C = lagrangian.stiffness_weights(p), D = lagrangian.damping_weights(p);
    for (int j = 0; j < 2 * kNode; ++j) {
      stiffness_[j] = 2.0 * length_ * C[j % kNode];
      damping_[j] = damped ? 2.0 * length_ * D[j % kNode] : 0.0;
    }
  }

  // T_vv, T_vq, T_qq at (q, v), per node.
  KineticHessian kinetic_hessian(const double* q, const double* v) const {
    KineticHessian k;
    for (int b = 0; b < 2; ++b) {
      const double *qb = q + kNode * b, *vb = v + kNode * b;
      const Matrix8 left = dual_conjugate_times_left(qb), right = dual_conjugate_times_right(vb);
      const auto w = dual_conjugate_times(qb, vb);
      std::array<double, kNode> weight, y;
      for (int i = 0; i < kNode; ++i) {
        weight[i] = 2.0 * length_ * mass_[i];
        y[i] = weight[i] * w[i];
      }
      k.vv[b] = k.vq[b] = k.qq[b] = Matrix8{};
      add_weighted_product<kNode>(left, weight.data(), left, 1.0, k.vv[b]);
      add_weighted_product<kNode>(left, weight.data(), right, 1.0, k.vq[b]);
      add_weighted_product<kNode>(right, weight.data(), right, 1.0, k.qq[b]);
      const Matrix8 pairing = dual_conjugate_times_pairing(y.data());
      for (int i = 0; i < kNode; ++i)
        for (int j = 0; j < kNode; ++j) k.vq[b][i * kNode + j] += pairing[j * kNode + i];
    }
    return k;
  }

  // The strains k_b = conj(q_b) s at one end q and their Jacobian.
  StrainDerivatives strain_derivatives(const double* q) const {
    StrainDerivatives d;
    std::array<double, kNode> slope;
    for (int i = 0; i < kNode; ++i) slope[i] = (q[kNode + i] - q[i]) / length_;
    const Matrix8 right = dual_conjugate_times_right(slope.data());
    d.jacobian.fill(0.0);
    for (int b = 0; b < 2; ++b) {
      const Matrix8 left = dual_conjugate_times_left(q + kNode * b);
      add_block(right, b, b, 1.0, false, d.jacobian);
      add_block(left, b, 0, -1.0 / length_, false, d.jacobian);
      add_block(left, b, 1, 1.0 / length_, false, d.jacobian);
      const auto k = dual_conjugate_times(q + kNode * b, slope.data());
      for (int i = 0; i < kNode; ++i) d.strains[kNode * b + i] = k[i];
    }
    return d;
  }

  // out += scale (the Hessian of y . k(q) + U(q)): per node b, y_b . conj(q_b) s with s = (q_B - q_A)/ds.
  void add_stress_hessian(const std::array<double, 2 * kNode>& y, double scale, Matrix16& out) const {
    for (int b = 0; b < 2; ++b) {
      const Matrix8 X = dual_conjugate_times_pairing(y.data() + kNode * b);
      const double sign = b == 0 ? -1.0 : 1.0, c = scale / length_;
      // d2/dq_b2 = sign (X + X^T)/ds; d2/dq_b dq_o = -sign X/ds (o the other node), its transpose.
      add_block(X, b, b, sign * c, false, out);
      add_block(X, b, b, sign * c, true, out);
      add_block(X, b, 1 - b, -sign * c, false, out);
      add_block(X, 1 - b, b, -sign * c, true, out);
    }
    const double node_weight = 0.5 * p_[DualQuaternionLagrangian::kRho] * p_[DualQuaternionLagrangian::kArea] *
                               length_;
    const double F[4] = {0.0, node_weight * p_[DualQuaternionLagrangian::kGravity],
                         node_weight * p_[DualQuaternionLagrangian::kGravity + 1],
                         node_weight * p_[DualQuaternionLagrangian::kGravity + 2]};
    const Matrix4 product = product_left(F);
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          out[(kNode * b + i) * kCoordinates + kNode * b + 4 + j] += 2.0 * scale * product[4 * i + j];
          out[(kNode * b + 4 + i) * kCoordinates + kNode * b + j] -= 2.0 * scale * product[4 * i + j];
        }
  }

  // The Jacobians of minus and plus (dual_quaternion_beam.cpp, trapezoidal_momenta) with respect to the ends q^n
  // (first) and q^{n+1} (second) of the step, v = (q^{n+1} - q^n)/h, but for their mass terms, which are -+ of
  // (vv_0 + vv_1)/(2h) (mass_mean/h; they cancel in d/dq_mid). With q0 = q^n, q1 = q^{n+1}, the kinetic
  // blocks K_a at q_a, the strain Jacobians B_a, the internal force F_a = B_a^T y_a + U_q(q_a) whose stresses y_a
  // hold the rate (k1 - k0)/h, and H_a the Hessian of y_a . k + U at q_a (W_C = 2 ds C~, W_D = 2 ds D~):
  //   d minus/dq1 = -(vv_0 + vv_1)/(2h) - vq_1/2 + vq_0^T/2 - B_0^T W_D B_1/2
  //   d plus/dq1  =  (vv_0 + vv_1)/(2h) + vq_1/2 + vq_1^T/2 + h/2 qq_1 - h/2 (H_1 + B_1^T W_C B_1) - B_1^T W_D B_1/2
  //   d minus/dq0 =  (vv_0 + vv_1)/(2h) - vq_0/2 - vq_0^T/2 + h/2 qq_0 - h/2 (H_0 + B_0^T W_C B_0) + B_0^T W_D B_0/2
  //   d plus/dq0  = -(vv_0 + vv_1)/(2h) + vq_0/2 - vq_1^T/2 + B_1^T W_D B_0/2
  // h = 0 (q, v the state): minus = -T_v, plus = T_v, and their derivatives in q, -T_vq and T_vq, as the seconds.
  struct EndJacobians {
    Matrix16 minus_second, plus_second, minus_first, plus_first, mass_mean;
  };
  void end_jacobians(const double* q_mid, const double* v_mid, double h, bool with_first, EndJacobians& J) const {
    J.minus_second.fill(0.0);
    J.plus_second.fill(0.0);
    J.mass_mean.fill(0.0);
    if (with_first) {
      J.minus_first.fill(0.0);
      J.plus_first.fill(0.0);
    }
    if (h == 0.0) {
      const KineticHessian k = kinetic_hessian(q_mid, v_mid);
      for (int b = 0; b < 2; ++b) {
        add_block(k.vq[b], b, b, -1.0, false, J.minus_second);
        add_block(k.vq[b], b, b, 1.0, false, J.plus_second);
      }
      return;
    }
    std::array<double, kCoordinates> q[2];
    for (int i = 0; i < kCoordinates; ++i) {
      q[0][i] = q_mid[i] - 0.5 * h * v_mid[i];
      q[1][i] = q_mid[i] + 0.5 * h * v_mid[i];
    }
    const KineticHessian kinetic[2] = {kinetic_hessian(q[0].data(), v_mid), kinetic_hessian(q[1].data(), v_mid)};
    for (int b = 0; b < 2; ++b) {
      for (int a = 0; a < 2; ++a) add_block(kinetic[a].vv[b], b, b, 0.5, false, J.mass_mean);
      add_block(kinetic[1].vq[b], b, b, -0.5, false, J.minus_second);
      add_block(kinetic[0].vq[b], b, b, 0.5, true, J.minus_second);
      add_block(kinetic[1].vq[b], b, b, 0.5, false, J.plus_second);
      add_block(kinetic[1].vq[b], b, b, 0.5, true, J.plus_second);
      add_block(kinetic[1].qq[b], b, b, 0.5 * h, false, J.plus_second);
      if (with_first) {
        add_block(kinetic[0].vq[b], b, b, -0.5, false, J.minus_first);
        add_block(kinetic[0].vq[b], b, b, -0.5, true, J.minus_first);
        add_block(kinetic[0].qq[b], b, b, 0.5 * h, false, J.minus_first);
        add_block(kinetic[0].vq[b], b, b, 0.5, false, J.plus_first);
        add_block(kinetic[1].vq[b], b, b, -0.5, true, J.plus_first);
      }
    }
    const StrainDerivatives strain[2] = {strain_derivatives(q[0].data()), strain_derivatives(q[1].data())};
    const auto& reference = lagrangian_.reference_strains();
    for (int a = 0; a < 2; ++a) {
      if (a == 0 && !with_first) continue;
      std::array<double, 2 * kNode> y;
      for (int j = 0; j < 2 * kNode; ++j)
        y[j] = stiffness_[j] * (strain[a].strains[j] - reference[j]) +
               damping_[j] * (strain[1].strains[j] - strain[0].strains[j]) / h;
      Matrix16& out = a == 0 ? J.minus_first : J.plus_second;
      add_stress_hessian(y, -0.5 * h, out);
      add_weighted_product<kCoordinates>(strain[a].jacobian, stiffness_.data(), strain[a].jacobian, -0.5 * h, out);
      if (damped_)
        add_weighted_product<kCoordinates>(strain[a].jacobian, damping_.data(), strain[a].jacobian,
                                           a == 0 ? 0.5 : -0.5, out);
    }
    if (!damped_) return;
    add_weighted_product<kCoordinates>(strain[0].jacobian, damping_.data(), strain[1].jacobian, -0.5,
                                       J.minus_second);
    if (with_first)
      add_weighted_product<kCoordinates>(strain[1].jacobian, damping_.data(), strain[0].jacobian, 0.5,
                                         J.plus_first);
  }

 private:
  const DualQuaternionLagrangian& lagrangian_;
  const double* p_;
  bool damped_;
  double length_;
  std::array<double, kNode> mass_;
  std::array<double, 2 * kNode> stiffness_, damping_;  // W_C = 2 ds C~, W_D = 2 ds D~ per strain (zero undamped)
};

}  // namespace flexadj::elements::dual_quaternion
