#pragma once
// The lumped inertia terms of one beam node (a spatial rigid body in Euler parameters) and their derivatives, by
// hand. With the body angular velocity and acceleration w = 2 G(e) de/dt, alpha = 2 G(e) d2e/dt2 (Nikravesh 1988,
// eqs. (6.97), (6.104)) and the diagonal rotary inertia J, the residual is (Nikravesh 1988, eqs. (11.20)-(11.24))
//   r_x = m a_x,   r_e = 2 G(e)^T M,   M = J alpha + w x (J w).
// G(e) is linear in e and G(a) b = -G(b) a (Nikravesh 1988, eq. (6.93)), so d(G(e) y)/de = -G(y); with
// M_w = dM/dw = [w]x J - [J w]x and A(M) = d(G(e)^T M)/de (linear in M):
//   dr_e/d(d2e/dt2) = 4 G^T J G,   dr_e/d(de/dt) = 4 G^T M_w G,
//   dr_e/de = 2 A(M) - 4 G^T (J G(d2e/dt2) + M_w G(de/dt)).
#include <array>

namespace flexadj::elements {

// Residual and Jacobians of one node's rotational terms (4 Euler-parameter rows and columns).
// Scalar is double, or a forward-AD type for their derivatives along a direction (second-order products).
template <class Scalar = double> struct NodeRotaryDerivatives {
  std::array<Scalar, 4> r;
  std::array<std::array<Scalar, 4>, 4> dq, dv, da;
};

namespace node_inertia_detail {

// G(e) (3 x 4), the body-frame map w = 2 G(e) de/dt.
template <class Scalar> void euler_map(const Scalar* e, Scalar G[3][4]) {
  const Scalar rows[3][4] = {{-e[1], e[0], e[3], -e[2]}, {-e[2], -e[3], e[0], e[1]}, {-e[3], e[2], -e[1], e[0]}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) G[i][j] = rows[i][j];
}

// G^T X G for a 3 x 3 X.
template <class Scalar>
void congruence(const Scalar G[3][4], const Scalar X[3][3], double scale, std::array<std::array<Scalar, 4>, 4>& out) {
  Scalar XG[3][4];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) XG[i][j] = X[i][0] * G[0][j] + X[i][1] * G[1][j] + X[i][2] * G[2][j];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) out[i][j] = scale * (G[0][i] * XG[0][j] + G[1][i] * XG[1][j] + G[2][i] * XG[2][j]);
}

}  // namespace node_inertia_detail

// e, de, dde: the node's Euler parameters and their first and second time derivatives; J: the diagonal rotary
// inertia in the node frame.
template <class Scalar, class Inertia>
void node_rotary_derivatives(const Scalar* e, const Scalar* de, const Scalar* dde, const Inertia* J,
                             NodeRotaryDerivatives<Scalar>& out) {
  using namespace node_inertia_detail;
  Scalar G[3][4], Gv[3][4], Ga[3][4];
  euler_map(e, G);
  euler_map(de, Gv);
  euler_map(dde, Ga);
  Scalar w[3], alpha[3];
  for (int i = 0; i < 3; ++i) {
    w[i] = 2.0 * (G[i][0] * de[0] + G[i][1] * de[1] + G[i][2] * de[2] + G[i][3] * de[3]);
    alpha[i] = 2.0 * (G[i][0] * dde[0] + G[i][1] * dde[1] + G[i][2] * dde[2] + G[i][3] * dde[3]);
  }
  const Scalar Jw[3] = {J[0] * w[0], J[1] * w[1], J[2] * w[2]};
  const Scalar M[3] = {J[0] * alpha[0] + w[1] * Jw[2] - w[2] * Jw[1], J[1] * alpha[1] + w[2] * Jw[0] - w[0] * Jw[2],
                       J[2] * alpha[2] + w[0] * Jw[1] - w[1] * Jw[0]};
  for (int j = 0; j < 4; ++j) out.r[j] = 2.0 * (G[0][j] * M[0] + G[1][j] * M[1] + G[2][j] * M[2]);
  // M_w = [w]x J - [J w]x.
  const Scalar Mw[3][3] = {{0.0, -w[2] * J[1] + Jw[2], w[1] * J[2] - Jw[1]},
                           {w[2] * J[0] - Jw[2], 0.0, -w[0] * J[2] + Jw[0]},
                           {-w[1] * J[0] + Jw[1], w[0] * J[1] - Jw[0], 0.0}};
  const Scalar Jd[3][3] = {{J[0], 0.0, 0.0}, {0.0, J[1], 0.0}, {0.0, 0.0, J[2]}};
  congruence(G, Jd, 4.0, out.da);
  congruence(G, Mw, 4.0, out.dv);
  // A(M) = d(G(e)^T M)/de, row r = coefficients of e in component r of G^T M.
  const Scalar A[4][4] = {{0.0, -M[0], -M[1], -M[2]}, {M[0], 0.0, M[2], -M[1]}, {M[1], -M[2], 0.0, M[0]},
                          {M[2], M[1], -M[0], 0.0}};
  // Y = J G(dde) + M_w G(de) (3 x 4); dr_e/de = 2 A - 4 G^T Y.
  Scalar Y[3][4];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) Y[i][j] = J[i] * Ga[i][j] + Mw[i][0] * Gv[0][j] + Mw[i][1] * Gv[1][j] + Mw[i][2] * Gv[2][j];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) out.dq[i][j] = 2.0 * A[i][j] - 4.0 * (G[0][i] * Y[0][j] + G[1][i] * Y[1][j] + G[2][i] * Y[2][j]);
}

// out_k += d(mu_e . r_e)/dJ_k = 2 (y_k alpha_k + w_k (y x w)_k) with y = G(e) mu_e: mu_e . 2 G^T M = 2 y . M and
// M = J alpha + w x (J w) is linear in J (the rotary inertia's parameter partials).
template <class Scalar>
void node_rotary_parameter_sensitivity(const Scalar* e, const Scalar* de, const Scalar* dde, const double* mu_e,
                                       Scalar* out) {
  Scalar G[3][4];
  node_inertia_detail::euler_map(e, G);
  Scalar w[3], alpha[3], y[3];
  for (int i = 0; i < 3; ++i) {
    w[i] = 2.0 * (G[i][0] * de[0] + G[i][1] * de[1] + G[i][2] * de[2] + G[i][3] * de[3]);
    alpha[i] = 2.0 * (G[i][0] * dde[0] + G[i][1] * dde[1] + G[i][2] * dde[2] + G[i][3] * dde[3]);
    y[i] = G[i][0] * mu_e[0] + G[i][1] * mu_e[1] + G[i][2] * mu_e[2] + G[i][3] * mu_e[3];
  }
  const Scalar y_x_w[3] = {y[1] * w[2] - y[2] * w[1], y[2] * w[0] - y[0] * w[2], y[0] * w[1] - y[1] * w[0]};
  for (int k = 0; k < 3; ++k) out[k] += 2.0 * (y[k] * alpha[k] + w[k] * y_x_w[k]);
}

}  // namespace flexadj::elements
