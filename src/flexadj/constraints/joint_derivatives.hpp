#pragma once
// The spatial lower-pair joints of joints.cpp with their constraint Jacobian C_q and multiplier Hessian
// lambda . C_qq written out by hand, for bodies that are ground, point masses or spatial rigid bodies in Euler
// parameters (Nikravesh 1988, ch. 7 and 11). The equations (Joint::evaluate) are built from
//   d = x_b - x_a, x = r + R(e) s (point positions), R(e) x and the relative quaternion conj(e_a) e_b conj(e_rest),
// with R(e) x = (e_0^2 - |e_v|^2) x + 2 (e_v . x) e_v + 2 e_0 e_v x x (Nikravesh 1988, eq. (6.19)), quadratic in e:
//   d(R x)/de_0 = 2 e_0 x + 2 e_v x x,   d(R x)/de_j = -2 e_j x + 2 x_j e_v + 2 (e_v . x) u_j + 2 e_0 u_j x x,
//   w . d2(R x)/de_0^2 = 2 w . x,   w . d2(R x)/de_0 de_j = 2 (x x w)_j,
//   w . d2(R x)/de_j de_k = 2 (-delta_jk w . x + x_j w_k + x_k w_j).
// A dot product f . g of two such fields has the Hessian J_f^T J_g + J_g^T J_f + f . g_qq + g . f_qq; the relative
// quaternion is bilinear in (e_a, e_b) (Hamilton product, Nikravesh 1988, eq. (6.36)), its Hessian constant.
#include <array>

namespace flexadj::constraints::joint_derivatives {

constexpr int kMaxCoordinates = 14;

// A body of the joint in the joint's local coordinates: r at offset (if it has a position), e at offset + 3 (if it
// rotates).
struct BodySlots {
  bool position = false, rotation = false;
  int offset = 0;
};

// d(R(e) x)/de (3 x 4).
inline void rotated_jacobian(const double* e, const double* x, double out[3][4]) {
  const double ev_x = e[1] * x[0] + e[2] * x[1] + e[3] * x[2];
  const double cross[3] = {e[2] * x[2] - e[3] * x[1], e[3] * x[0] - e[1] * x[2], e[1] * x[1] - e[2] * x[0]};
  const double uj_x_x[3][3] = {{0.0, -x[2], x[1]}, {x[2], 0.0, -x[0]}, {-x[1], x[0], 0.0}};  // row j: u_j x x
  for (int i = 0; i < 3; ++i) {
    out[i][0] = 2.0 * (e[0] * x[i] + cross[i]);
    for (int j = 0; j < 3; ++j)
      out[i][1 + j] = 2.0 * (-e[1 + j] * x[i] + x[j] * e[1 + i] + (i == j ? ev_x : 0.0) + e[0] * uj_x_x[j][i]);
  }
}

// out += scale * w . d2(R(e) x)/de2 (4 x 4; independent of e).
inline void add_rotated_hessian(const double* w, const double* x, double scale, double out[4][4]) {
  const double wx = w[0] * x[0] + w[1] * x[1] + w[2] * x[2];
  const double x_cross_w[3] = {x[1] * w[2] - x[2] * w[1], x[2] * w[0] - x[0] * w[2], x[0] * w[1] - x[1] * w[0]};
  out[0][0] += 2.0 * scale * wx;
  for (int j = 0; j < 3; ++j) {
    out[0][1 + j] += 2.0 * scale * x_cross_w[j];
    out[1 + j][0] += 2.0 * scale * x_cross_w[j];
    for (int k = 0; k < 3; ++k) out[1 + j][1 + k] += 2.0 * scale * ((j == k ? -wx : 0.0) + x[j] * w[k] + x[k] * w[j]);
  }
}

// A vector field of the coordinates: value, Jacobian (3 x n) and the rotated vectors R(e) x whose second
// derivatives it carries (at most one per body, with a sign).
struct Field {
  std::array<double, 3> value{};
  double J[3][kMaxCoordinates] = {};
  struct Rotated {
    const BodySlots* body = nullptr;
    std::array<double, 3> x{};
    double sign = 0.0;
  };
  std::array<Rotated, 2> rotated{};
};

inline void rotate(const double* e, const double* x, double* out) {
  const double e0 = e[0], e1 = e[1], e2 = e[2], e3 = e[3];
  out[0] = (e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3) * x[0] + 2.0 * (e1 * e2 - e0 * e3) * x[1] + 2.0 * (e1 * e3 + e0 * e2) * x[2];
  out[1] = 2.0 * (e1 * e2 + e0 * e3) * x[0] + (e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3) * x[1] + 2.0 * (e2 * e3 - e0 * e1) * x[2];
  out[2] = 2.0 * (e1 * e3 - e0 * e2) * x[0] + 2.0 * (e2 * e3 + e0 * e1) * x[1] + (e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3) * x[2];
}

// sign * R(e_body) x (x itself, constant, for a body without rotation); slot: which of field.rotated to use.
inline void add_rotated(Field& field, const BodySlots& body, const double* q, const double* x, double sign, int slot) {
  if (!body.rotation) {
    for (int i = 0; i < 3; ++i) field.value[i] += sign * x[i];
    return;
  }
  const double* e = q + body.offset + 3;
  double Rx[3], J[3][4];
  rotate(e, x, Rx);
  rotated_jacobian(e, x, J);
  for (int i = 0; i < 3; ++i) {
    field.value[i] += sign * Rx[i];
    for (int a = 0; a < 4; ++a) field.J[i][body.offset + 3 + a] += sign * J[i][a];
  }
  field.rotated[slot] = {&body, {x[0], x[1], x[2]}, sign};
}

// sign * (position of the body point s, model::point_position): r + R(e) s, r for a point mass, s for ground.
inline void add_point(Field& field, const BodySlots& body, const double* q, const double* s, double sign, int slot) {
  if (body.position)
    for (int i = 0; i < 3; ++i) {
      field.value[i] += sign * q[body.offset + i];
      field.J[i][body.offset + i] += sign;
    }
  if (body.rotation || !body.position) add_rotated(field, body, q, s, sign, slot);
}

// H += scale * w . field_qq.
inline void add_weighted_hessian(const Field& field, const double* w, double scale, int n, double* H) {
  for (const auto& r : field.rotated) {
    if (r.body == nullptr) continue;
    double block[4][4] = {};
    add_rotated_hessian(w, r.x.data(), scale * r.sign, block);
    const int o = r.body->offset + 3;
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) H[(o + a) * n + o + b] += block[a][b];
  }
}

// Row Cq of c = f . g, and H += lambda * (its Hessian) unless H is null.
inline void add_dot(const Field& f, const Field& g, double lambda, int n, double* Cq, double* H) {
  for (int j = 0; j < n; ++j)
    Cq[j] = f.value[0] * g.J[0][j] + f.value[1] * g.J[1][j] + f.value[2] * g.J[2][j] + g.value[0] * f.J[0][j] +
            g.value[1] * f.J[1][j] + g.value[2] * f.J[2][j];
  if (H == nullptr || lambda == 0.0) return;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      H[i * n + j] += lambda * (f.J[0][i] * g.J[0][j] + f.J[1][i] * g.J[1][j] + f.J[2][i] * g.J[2][j] +
                                g.J[0][i] * f.J[0][j] + g.J[1][i] * f.J[1][j] + g.J[2][i] * f.J[2][j]);
  add_weighted_hessian(g, f.value.data(), lambda, n, H);
  add_weighted_hessian(f, g.value.data(), lambda, n, H);
}

// The vector part of conj(e_a) e_b conj(rest) (rest = e_rest, unit): rows Cq (3 x n) and, unless H is null,
// H += lambda . its Hessian. With p = conj(e_a) e_b = (a_0 b_0 + a . b, a_0 b - b_0 a - a x b) and c = S M p, M the right
// multiplication by conj(rest) and S the vector part, dp/d(e_a, e_b) is linear and lambda . c = omega . p,
// omega = M^T S^T lambda, has the constant mixed Hessian [0][0] = omega_0, [0][1+k] = omega_k,
// [1+j][0] = -omega_j, [1+j][1+k] = omega_0 delta_jk + [omega_v]x_jk (e_a index first).
inline void add_relative_rotation(const BodySlots& a, const BodySlots& b, const double* q, const double* rest,
                                  const double* lambda, int n, double* Cq, double* H) {
  static const double identity[4] = {1.0, 0.0, 0.0, 0.0};
  const double* ea = a.rotation ? q + a.offset + 3 : identity;
  const double* eb = b.rotation ? q + b.offset + 3 : identity;
  const double a0 = ea[0], av[3] = {ea[1], ea[2], ea[3]}, b0 = eb[0], bv[3] = {eb[1], eb[2], eb[3]};
  double P[4][8];  // dp/de_a (columns 0..3), dp/de_b (4..7)
  P[0][0] = b0;
  P[0][4] = a0;
  const double bx[3][3] = {{0.0, -bv[2], bv[1]}, {bv[2], 0.0, -bv[0]}, {-bv[1], bv[0], 0.0}};
  const double ax[3][3] = {{0.0, -av[2], av[1]}, {av[2], 0.0, -av[0]}, {-av[1], av[0], 0.0}};
  for (int i = 0; i < 3; ++i) {
    P[0][1 + i] = bv[i];
    P[0][5 + i] = av[i];
    P[1 + i][0] = bv[i];
    P[1 + i][4] = -av[i];
    for (int j = 0; j < 3; ++j) {
      P[1 + i][1 + j] = (i == j ? -b0 : 0.0) + bx[i][j];
      P[1 + i][5 + j] = (i == j ? a0 : 0.0) - ax[i][j];
    }
  }
  // M: (p conj(rest))_i = sum_c M[i][c] p_c, conj(rest) = (r0, -r).
  const double r0 = rest[0], r1 = -rest[1], r2 = -rest[2], r3 = -rest[3];
  const double M[4][4] = {{r0, -r1, -r2, -r3}, {r1, r0, r3, -r2}, {r2, -r3, r0, r1}, {r3, r2, -r1, r0}};
  for (int i = 0; i < 3; ++i) {
    double* row = Cq + i * n;
    for (int j = 0; j < n; ++j) row[j] = 0.0;
    for (int z = 0; z < 8; ++z) {
      const BodySlots& body = z < 4 ? a : b;
      if (!body.rotation) continue;
      row[body.offset + 3 + z % 4] =
          M[1 + i][0] * P[0][z] + M[1 + i][1] * P[1][z] + M[1 + i][2] * P[2][z] + M[1 + i][3] * P[3][z];
    }
  }
  if (H == nullptr || !a.rotation || !b.rotation) return;  // bilinear: none in one body's parameters alone
  double omega[4];
  for (int c = 0; c < 4; ++c) omega[c] = lambda[0] * M[1][c] + lambda[1] * M[2][c] + lambda[2] * M[3][c];
  const double Wx[3][3] = {{0.0, -omega[3], omega[2]}, {omega[3], 0.0, -omega[1]}, {-omega[2], omega[1], 0.0}};
  double T[4][4];
  T[0][0] = omega[0];
  for (int j = 0; j < 3; ++j) {
    T[0][1 + j] = omega[1 + j];
    T[1 + j][0] = -omega[1 + j];
    for (int k = 0; k < 3; ++k) T[1 + j][1 + k] = (j == k ? omega[0] : 0.0) + Wx[j][k];
  }
  const int oa = a.offset + 3, ob = b.offset + 3;
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y) {
      H[(oa + x) * n + ob + y] += T[x][y];
      H[(ob + y) * n + oa + x] += T[x][y];
    }
}

}  // namespace flexadj::constraints::joint_derivatives
