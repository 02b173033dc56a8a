#pragma once
// The planar joints of joints.cpp between ground, point masses and planar rigid bodies with their derivatives written
// out: spherical, revolute and fixed d = x_b - x_a = 0 (x, y), prismatic f . d = 0 with f = R(theta_a) n, and the
// rotation lock theta_b - theta_a - rest = 0 of a prismatic or fixed joint whose body b is rigid. With a body point
// x = r + R(theta) s (Nikravesh 1988, eqs. (3.7)-(3.9)): dx/dtheta = Q R s, d2x/dtheta2 = -R s (Q the quarter turn),
// and f_theta = Q f, f_thetatheta = -f. The z components are constant (zero for planar bodies, s_z for ground).
#include <algorithm>

#include "flexadj/model/body.hpp"

namespace flexadj::constraints::planar_joint_derivatives {

constexpr int kMaxCoordinates = 6;

// A body's point of the joint: the columns of r and theta in the joint's coordinates (-1: none), the arm with
// x = r + arm (R s for a rigid body, s for ground, 0 for a point mass), R itself (rigid bodies), and the body's sign
// in d (+1 for b, -1 for a).
struct BodyPoint {
  int r = -1, angle = -1;
  double arm[3] = {0.0, 0.0, 0.0};
  double cos_theta = 1.0, sin_theta = 0.0;
  double sign = 1.0;
  bool ground = false;
};

inline BodyPoint body_point(model::BodyKind kind, const double* q, int offset, const double* s, double sign) {
  BodyPoint x;
  x.sign = sign;
  if (kind == model::BodyKind::Ground) {
    x.ground = true;
    std::copy(s, s + 3, x.arm);
    return x;
  }
  x.r = offset;
  if (kind == model::BodyKind::PlanarRigid) {
    x.angle = offset + 2;
    model::sin_cos(q[offset + 2], x.sin_theta, x.cos_theta);
    x.arm[0] = x.cos_theta * s[0] - x.sin_theta * s[1];
    x.arm[1] = x.sin_theta * s[0] + x.cos_theta * s[1];
  }
  return x;
}

// The parameters' places (Joint's layout) and the joint's rows.
struct Layout {
  int point_a, point_b, normal, rest;
  bool prismatic, lock;
};

class PlanarJoint {
 public:
  // q: the joint's n coordinates (body a at 0, body b at offset_b); p: its parameters.
  PlanarJoint(model::BodyKind kind_a, model::BodyKind kind_b, int offset_b, int n, const double* q, const double* p,
              const Layout& layout)
      : layout_(layout), n_(n),
        a_(body_point(kind_a, q, 0, p + layout.point_a, -1.0)),
        b_(body_point(kind_b, q, offset_b, p + layout.point_b, 1.0)) {
    // x_b - x_a with each point summed first, as model::point_position and Joint::evaluate do.
    for (int i = 0; i < 3; ++i)
      d_[i] = ((b_.r >= 0 && i < 2 ? q[b_.r + i] : 0.0) + b_.arm[i]) -
              ((a_.r >= 0 && i < 2 ? q[a_.r + i] : 0.0) + a_.arm[i]);
    if (layout.lock) lock_value_ = (q[b_.angle] - (a_.angle >= 0 ? q[a_.angle] : 0.0)) - p[layout.rest];
    for (const BodyPoint* x : {&a_, &b_}) {
      if (x->r >= 0) {
        D_[0][x->r] += x->sign;
        D_[1][x->r + 1] += x->sign;
      }
      if (x->angle >= 0) {
        D_[0][x->angle] -= x->sign * x->arm[1];
        D_[1][x->angle] += x->sign * x->arm[0];
      }
    }
    if (layout.prismatic) {
      const double* normal = p + layout.normal;
      f_[0] = a_.cos_theta * normal[0] - a_.sin_theta * normal[1];
      f_[1] = a_.sin_theta * normal[0] + a_.cos_theta * normal[1];
      f_[2] = normal[2];
    }
  }

  int rows() const { return (layout_.prismatic ? 1 : 2) + (layout_.lock ? 1 : 0); }

  // The constraint values (Joint::evaluate's, from the same sines and cosines).
  void values(double* c) const {
    int k = 0;
    if (layout_.prismatic)
      c[k++] = f_[0] * d_[0] + f_[1] * d_[1] + f_[2] * d_[2];
    else
      for (; k < 2; ++k) c[k] = d_[k];
    if (layout_.lock) c[k] = lock_value_;
  }

  // C_q (rows() x n, row-major).
  void jacobian(double* Cq) const {
    std::fill(Cq, Cq + rows() * n_, 0.0);
    int k = 0;
    if (layout_.prismatic) {
      for (int j = 0; j < n_; ++j) Cq[j] = f_[0] * D_[0][j] + f_[1] * D_[1][j];
      if (a_.angle >= 0) Cq[a_.angle] += -f_[1] * d_[0] + f_[0] * d_[1];
      k = 1;
    } else {
      for (; k < 2; ++k) std::copy(D_[k], D_[k] + n_, Cq + k * n_);
    }
    if (layout_.lock) {
      Cq[k * n_ + b_.angle] = 1.0;
      if (a_.angle >= 0) Cq[k * n_ + a_.angle] = -1.0;
    }
  }

  // H += lambda . C_qq (n x n): the point rows' d_thetatheta; the prismatic row's f_qq . d + f_q^T d_q + d_q^T f_q +
  // f . d_qq (f depends on theta_a alone); the lock is linear.
  void add_hessian(const double* lambda, double* H) const {
    const int n = n_;
    if (layout_.prismatic) {
      const double w = lambda[0];
      if (a_.angle >= 0) {
        const double f_theta[2] = {-f_[1], f_[0]};
        for (int j = 0; j < n; ++j) {
          const double mixed = w * (f_theta[0] * D_[0][j] + f_theta[1] * D_[1][j]);
          H[a_.angle * n + j] += mixed;
          H[j * n + a_.angle] += mixed;
        }
        H[a_.angle * n + a_.angle] += w * (-f_[0] * d_[0] - f_[1] * d_[1]);
      }
      for (const BodyPoint* x : {&a_, &b_})
        if (x->angle >= 0) H[x->angle * n + x->angle] -= w * x->sign * (f_[0] * x->arm[0] + f_[1] * x->arm[1]);
    } else {
      for (const BodyPoint* x : {&a_, &b_})
        if (x->angle >= 0) H[x->angle * n + x->angle] -= x->sign * (lambda[0] * x->arm[0] + lambda[1] * x->arm[1]);
    }
  }

  // dc/ds and d2c/ds2 along q + v s + a s^2/2: the point rows D v and D a - sum sign theta_dot^2 arm; the prismatic
  // row f_dot . d + f . d_dot and f_ddot . d + 2 f_dot . d_dot + f . d_ddot, f_dot = theta_dot_a Q f,
  // f_ddot = theta_ddot_a Q f - theta_dot_a^2 f; the lock theta_dot_b - theta_dot_a, theta_ddot_b - theta_ddot_a.
  void time_derivatives(const double* v, const double* a, double* c_dot, double* c_ddot) const {
    double d_dot[2] = {0.0, 0.0}, d_ddot[2] = {0.0, 0.0};
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < n_; ++j) {
        d_dot[i] += D_[i][j] * v[j];
        d_ddot[i] += D_[i][j] * a[j];
      }
    for (const BodyPoint* x : {&a_, &b_})
      if (x->angle >= 0) {
        const double rate = v[x->angle];
        for (int i = 0; i < 2; ++i) d_ddot[i] -= x->sign * rate * rate * x->arm[i];
      }
    int k = 0;
    if (layout_.prismatic) {
      const double rate = a_.angle >= 0 ? v[a_.angle] : 0.0, acceleration = a_.angle >= 0 ? a[a_.angle] : 0.0;
      const double qf[2] = {-f_[1], f_[0]};
      double f_dot[2], f_ddot[2];
      for (int i = 0; i < 2; ++i) {
        f_dot[i] = rate * qf[i];
        f_ddot[i] = acceleration * qf[i] - rate * rate * f_[i];
      }
      c_dot[0] = f_dot[0] * d_[0] + f_dot[1] * d_[1] + f_[0] * d_dot[0] + f_[1] * d_dot[1];
      c_ddot[0] = f_ddot[0] * d_[0] + f_ddot[1] * d_[1] + 2.0 * (f_dot[0] * d_dot[0] + f_dot[1] * d_dot[1]) +
                  f_[0] * d_ddot[0] + f_[1] * d_ddot[1];
      k = 1;
    } else {
      for (; k < 2; ++k) {
        c_dot[k] = d_dot[k];
        c_ddot[k] = d_ddot[k];
      }
    }
    if (layout_.lock) {
      c_dot[k] = v[b_.angle] - (a_.angle >= 0 ? v[a_.angle] : 0.0);
      c_ddot[k] = a[b_.angle] - (a_.angle >= 0 ? a[a_.angle] : 0.0);
    }
  }

  // gradient[k] += d/dp_k [lambda . (C_q mu_r) + mu_c . c] for the wanted k (bit k of wanted), c at the position level.
  // C_q mu_r is the rate of c along q + mu_r s: the point rows' d_dot = D mu_r, the prismatic row's f_dot . d +
  // f . d_dot. Their parameters: the body points s (d_s = sign R, sign I for ground; d_dot_s = sign theta_dot Q R),
  // the prismatic normal n (f = R n) and the lock's rest angle.
  void add_parameter_gradient(const double* lambda, const double* mu_r, const double* mu_c, double* gradient,
                              unsigned wanted) const {
    auto add = [&](int k, double value) {
      if ((wanted >> k) & 1u) gradient[k] += value;
    };
    double d_dot[2] = {0.0, 0.0};
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < n_; ++j) d_dot[i] += D_[i][j] * mu_r[j];
    // u, w: the weights of the rows' values (mu_c) and rates (lambda) on d and d_dot, as 3-vectors.
    double u[3] = {0.0, 0.0, 0.0}, w[3] = {0.0, 0.0, 0.0};
    int k = 0;
    if (layout_.prismatic) {
      const double rate = a_.angle >= 0 ? mu_r[a_.angle] : 0.0;
      const double f_dot[3] = {-rate * f_[1], rate * f_[0], 0.0};
      // c = f . d: u = mu_c f on d; c_dot = f_dot . d + f . d_dot: lambda f_dot on d, lambda f on d_dot.
      for (int i = 0; i < 3; ++i) {
        u[i] = mu_c[0] * f_[i] + lambda[0] * f_dot[i];
        w[i] = lambda[0] * f_[i];
      }
      // The normal: f = (R n)_xy, n_z and f_dot = theta_dot Q R n, weighted by mu_c d + lambda d_dot and lambda d.
      const double on_f[2] = {mu_c[0] * d_[0] + lambda[0] * d_dot[0], mu_c[0] * d_[1] + lambda[0] * d_dot[1]};
      const double on_f_dot[2] = {lambda[0] * d_[0], lambda[0] * d_[1]};
      const double c = a_.cos_theta, s = a_.sin_theta;
      // d/dn of x . R n = R^T x; of x . Q R n = (Q R)^T x with Q R = [[-s, -c], [c, -s]].
      add(layout_.normal, c * on_f[0] + s * on_f[1] + rate * (-s * on_f_dot[0] + c * on_f_dot[1]));
      add(layout_.normal + 1, -s * on_f[0] + c * on_f[1] + rate * (-c * on_f_dot[0] - s * on_f_dot[1]));
      add(layout_.normal + 2, mu_c[0] * d_[2]);
      k = 1;
    } else {
      for (int i = 0; i < 2; ++i) {
        u[i] = mu_c[i];
        w[i] = lambda[i];
      }
      k = 2;
    }
    if (layout_.lock) add(layout_.rest, -mu_c[k]);
    // The body points: d = sum sign (r + arm), arm = R s (rigid) or s (ground); d_dot's arm part sign theta_dot Q R s.
    for (const BodyPoint* x : {&a_, &b_}) {
      const int at = x == &a_ ? layout_.point_a : layout_.point_b;
      if (x->ground) {
        for (int j = 0; j < 3; ++j) add(at + j, x->sign * u[j]);
      } else if (x->angle >= 0) {
        const double c = x->cos_theta, s = x->sin_theta, rate = mu_r[x->angle];
        add(at, x->sign * (c * u[0] + s * u[1] + rate * (-s * w[0] + c * w[1])));
        add(at + 1, x->sign * (-s * u[0] + c * u[1] + rate * (-c * w[0] - s * w[1])));
      }
    }
  }

 private:
  Layout layout_;
  int n_;
  BodyPoint a_, b_;
  double d_[3];
  double D_[2][kMaxCoordinates] = {};
  double f_[3] = {0.0, 0.0, 0.0};
  double lock_value_ = 0.0;
};

}  // namespace flexadj::constraints::planar_joint_derivatives
