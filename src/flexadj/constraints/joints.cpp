// Lower-pair joints as algebraic constraints (Nikravesh 1988, ch. 7 and 11; Shabana 2005, ch. 3 and 7).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "flexadj/constraints/constraints.hpp"
#include "flexadj/constraints/joint_derivatives.hpp"
#include "flexadj/constraints/planar_joint_derivatives.hpp"
#include "flexadj/model/constraint_ad.hpp"

namespace flexadj::constraints {
namespace {

using model::Vec3;

bool is_planar(BodyKind kind) {
  return kind == BodyKind::PointMass2D || kind == BodyKind::PlanarRigid || kind == BodyKind::AncfPlanarNode;
}

template <class S> std::array<S, 4> orientation(BodyKind kind, const S* q) {
  if (kind == BodyKind::SpatialRigid) return {q[3], q[4], q[5], q[6]};
  if (kind == BodyKind::DualQuaternionNode) return {q[0], q[1], q[2], q[3]};
  return {S(1.0), S(0.0), S(0.0), S(0.0)};
}

class UnitQuaternion final : public model::ConstraintAD<UnitQuaternion, 7, 1> {
 public:
  UnitQuaternion(const std::string& body_name, int body)
      : ConstraintAD(body_name + ".unit_quaternion", {body}, {BodyKind::SpatialRigid}, 1) {}
  const char* type() const override { return "unit_quaternion"; }
  template <class S, class P> void evaluate(const S* q, const S&, const P*, S* c) const {
    c[0] = 0.5 * (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6] - 1.0);
  }
  // By hand, as the nested AD pass gives them to the bit: C_q = (0, e), lambda C_qq = lambda diag(0, I_4). The
  // reference (jacobian_and_hessian_reference) stays the AD pass.
  void jacobian_and_hessian(const double* q, const double* lambda, double, double* c, double* Cq,
                            double* H) const override {
    c[0] = 0.5 * (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6] - 1.0);
    for (int i = 0; i < 7; ++i) Cq[i] = i < 3 ? 0.0 : q[i];
    for (int i = 0; i < 49; ++i) H[i] = 0.0;
    for (int i = 3; i < 7; ++i) H[i * 7 + i] = lambda[0];
  }
};

// The unit conditions of a dual quaternion (q_r, q_d), Schubert et al. 2024, eqs. (31a)-(31b) (halved):
// (q_r.q_r - 1)/2 = 0 and q_r.q_d = 0.
class UnitDualQuaternion final : public model::ConstraintAD<UnitDualQuaternion, 8, 2> {
 public:
  UnitDualQuaternion(const std::string& body_name, int body, bool plain_ad)
      : ConstraintAD(body_name + ".unit_dual_quaternion", {body}, {BodyKind::DualQuaternionNode}, 2),
        plain_ad_(plain_ad) {}
  const char* type() const override { return "unit_dual_quaternion"; }
  template <class S, class P> void evaluate(const S* q, const S&, const P*, S* c) const {
    c[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0);
    c[1] = q[0] * q[4] + q[1] * q[5] + q[2] * q[6] + q[3] * q[7];
  }

  // By hand (the AD passes of ConstraintAD stay the reference, make_unit_dual_quaternion_plain_ad). Both equations
  // are quadratic, x.y with x, y among q_r, q_d: C_q = [q_r, 0; q_d, q_r], lambda . C_qq = [l0 I, l1 I; l1 I, 0];
  // along q(s) = q + v s + a s^2/2: dc/ds = (q_r.v_r, v_r.q_d + q_r.v_d), d2c/ds2 = (v_r.v_r + q_r.a_r,
  // a_r.q_d + 2 v_r.v_d + q_r.a_d).
  void jacobian(const double* q, double t, double* c, double* Cq) const override {
    if (plain_ad_) return ConstraintAD::jacobian(q, t, c, Cq);
    evaluate<double, double>(q, t, nullptr, c);
    for (int i = 0; i < 4; ++i) {
      Cq[i] = q[i];
      Cq[4 + i] = 0.0;
      Cq[8 + i] = q[4 + i];
      Cq[12 + i] = q[i];
    }
  }
  void jacobian_and_hessian(const double* q, const double* lambda, double t, double* c, double* Cq,
                            double* H) const override {
    if (plain_ad_) return ConstraintAD::jacobian_and_hessian(q, lambda, t, c, Cq, H);
    jacobian(q, t, c, Cq);
    for (int i = 0; i < 64; ++i) H[i] = 0.0;
    for (int i = 0; i < 4; ++i) {
      H[i * 8 + i] = lambda[0];
      H[i * 8 + 4 + i] = H[(4 + i) * 8 + i] = lambda[1];
    }
  }
  void time_derivatives(const double* q, const double* v, const double* a, double t, double* c, double* c_dot,
                        double* c_ddot) const override {
    if (plain_ad_) return ConstraintAD::time_derivatives(q, v, a, t, c, c_dot, c_ddot);
    evaluate<double, double>(q, t, nullptr, c);
    c_dot[0] = dot4(q, v);
    c_dot[1] = dot4(v, q + 4) + dot4(q, v + 4);
    c_ddot[0] = dot4(v, v) + dot4(q, a);
    c_ddot[1] = dot4(a, q + 4) + 2.0 * dot4(v, v + 4) + dot4(q, a + 4);
  }
  void level_jacobians(const double* q, const double* v, const double* a, double t, int level, double* d_dq,
                       double* d_dv) const override {
    if (plain_ad_) return ConstraintAD::level_jacobians(q, v, a, t, level, d_dq, d_dv);
    // d/dq of the level is d/ds (level 1) or d2/ds2 (level 2) of C_q along the path, d/dv is C_q or 2 d/ds C_q.
    const double* x = level == 1 ? v : a;
    const double v_scale = level == 1 ? 1.0 : 2.0;
    const double* y = level == 1 ? q : v;
    for (int i = 0; i < 4; ++i) {
      d_dq[i] = x[i];
      d_dq[4 + i] = 0.0;
      d_dq[8 + i] = x[4 + i];
      d_dq[12 + i] = x[i];
      d_dv[i] = v_scale * y[i];
      d_dv[4 + i] = 0.0;
      d_dv[8 + i] = v_scale * y[4 + i];
      d_dv[12 + i] = v_scale * y[i];
    }
  }

 private:
  static double dot4(const double* x, const double* y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3]; }
  bool plain_ad_;
};

// N: the capacity of the kernel's AD types, 6 for planar joints, 14 for spatial ones (make_joint). The nested
// Fad of the constraint Hessian costs N^2 per operation: a planar joint on the spatial capacity paid 5.4 times.
// Affine in the bodies' translations (every equation is linear in d or free of it): at most the 8 Euler
// parameters of two spatial bodies (2 angles of two planar ones) carry second derivatives.
template <int N>
class Joint final : public model::ConstraintAD<Joint<N>, N, 6, N == 14 ? 8 : 2> {
  using Base = model::ConstraintAD<Joint<N>, N, 6, N == 14 ? 8 : 2>;
  using Base::add_parameter, Base::add_vector_parameter, Base::kinds, Base::local_offset;

 public:
  static constexpr bool kAffineInTranslations = true;

  enum : int { kPointA = 0, kPointB = 3, kAxis = 6, kNormal1 = 9, kNormal2 = 12, kRest = 15 };

  // plain_ad: every derivative by the AD passes of ConstraintAD (the reference of the hand-written ones).
  Joint(const std::string& name, JointKind kind, std::array<int, 2> bodies, std::array<BodyKind, 2> kinds,
        const JointGeometry& g, bool plain_ad = false)
      : Base(name, {bodies[0], bodies[1]}, {kinds[0], kinds[1]}, joint_equation_count(kind, kinds[0], kinds[1])),
        kind_(kind),
        planar_(is_planar(kinds[0]) || is_planar(kinds[1])),
        lock_rotation_(model::has_orientation(kinds[1])),
        hand_derivatives_(!plain_ad && N == 14 && !planar_ && by_hand(kinds[0]) && by_hand(kinds[1])),
        planar_by_hand_(!plain_ad && planar_ && planar_by_hand(kinds[0]) && planar_by_hand(kinds[1])) {
    add_vector_parameter("point_a", g.point_a);
    add_vector_parameter("point_b", g.point_b);
    add_vector_parameter("axis", g.axis_a);
    add_vector_parameter("normal_1", g.normal_1);
    add_vector_parameter("normal_2", g.normal_2);
    if (planar_) {
      add_parameter("rest_angle", g.rest_angle);
    } else {
      for (int i = 0; i < 4; ++i) add_parameter("rest_rotation_" + std::to_string(i), g.rest_rotation[i]);
    }
    offset_b_ = local_offset(1);
  }
  const char* type() const override {
    switch (kind_) {
      case JointKind::Spherical: return "spherical";
      case JointKind::Revolute: return "revolute";
      case JointKind::Prismatic: return "prismatic";
      case JointKind::Fixed: return "fixed";
    }
    return "joint";
  }

  template <class S, class P> void evaluate(const S* q, const S&, const P* p, S* c) const {
    const BodyKind ka = kinds()[0], kb = kinds()[1];
    const S* qb = q + offset_b_;
    const Vec3<P> sa = vec(p, kPointA), sb = vec(p, kPointB);
    const Vec3<S> d = model::subtract(model::point_position(kb, qb, sb), model::point_position(ka, q, sa));
    const int dim = planar_ ? 2 : 3;
    int k = 0;
    if (kind_ == JointKind::Prismatic) {
      const auto Ra = model::body_rotation(ka, q);
      c[k++] = model::dot(model::multiply(Ra, vec(p, kNormal1)), d);
      if (!planar_) c[k++] = model::dot(model::multiply(Ra, vec(p, kNormal2)), d);
    } else {
      for (int i = 0; i < dim; ++i) c[k++] = d[i];
    }
    if (kind_ == JointKind::Revolute && !planar_) {
      const Vec3<S> axis = model::multiply(model::body_rotation(ka, q), vec(p, kAxis));
      const auto Rb = model::body_rotation(kb, qb);
      c[k++] = model::dot(axis, model::multiply(Rb, vec(p, kNormal1)));
      c[k++] = model::dot(axis, model::multiply(Rb, vec(p, kNormal2)));
    }
    if ((kind_ == JointKind::Prismatic || kind_ == JointKind::Fixed) && lock_rotation_) {
      if (planar_) {
        const S angle_a = ka == BodyKind::PlanarRigid ? q[2] : S(0.0);
        c[k++] = qb[2] - angle_a - p[kRest];
      } else {
        // Vector part of conj(e_a) e_b conj(e_rest): zero when the relative rotation equals its rest value.
        const std::array<S, 4> rest{S(p[kRest]), S(-p[kRest + 1]), S(-p[kRest + 2]), S(-p[kRest + 3])};
        const auto relative = model::quaternion_product(
            model::quaternion_product(model::quaternion_conjugate(orientation(ka, q)), orientation(kb, qb)), rest);
        for (int i = 1; i <= 3; ++i) c[k++] = relative[i];
      }
    }
  }

  // C_q and lambda . C_qq by hand for a spatial joint between ground, point masses and spatial rigid bodies
  // (joint_derivatives.hpp) and for a planar joint between ground, point masses and planar rigid bodies
  // (planar_joint_derivatives.hpp); other body kinds by the AD pass, which stays the reference
  // (jacobian_and_hessian_reference, make_joint_plain_ad).
  void jacobian_and_hessian(const double* q, const double* lambda, double t, double* c, double* Cq,
                            double* H) const override {
    if (planar_by_hand_) return planar_derivatives(q, lambda, c, Cq, H);
    if (!hand_derivatives_) return Base::jacobian_and_hessian(q, lambda, t, c, Cq, H);
    hand_derivatives(q, lambda, t, c, Cq, H);
  }
  void jacobian(const double* q, double t, double* c, double* Cq) const override {
    if (planar_by_hand_) return planar_derivatives(q, nullptr, c, Cq, nullptr);
    if (!hand_derivatives_) return Base::jacobian(q, t, c, Cq);
    hand_derivatives(q, nullptr, t, c, Cq, nullptr);
  }
  // The planar joints' dc/ds, d2c/ds2 and position-level parameter partials by hand as well.
  void time_derivatives(const double* q, const double* v, const double* a, double t, double* c, double* c_dot,
                        double* c_ddot) const override {
    if (!planar_by_hand_) return Base::time_derivatives(q, v, a, t, c, c_dot, c_ddot);
    const auto joint = planar_joint(q);
    joint.values(c);
    joint.time_derivatives(v, a, c_dot, c_ddot);
  }
  void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* lambda,
                              const double* mu_r, const double* mu_c, int level, double* gradient,
                              model::ParameterMask wanted = model::kAllParameters) const override {
    if (!planar_by_hand_ || level != 0)
      return Base::add_parameter_gradient(q, v, a, t, lambda, mu_r, mu_c, level, gradient, wanted);
    planar_joint(q).add_parameter_gradient(lambda, mu_r, mu_c, gradient, wanted);
  }

 private:
  planar_joint_derivatives::PlanarJoint planar_joint(const double* q) const {
    const bool prismatic = kind_ == JointKind::Prismatic;
    const planar_joint_derivatives::Layout layout{kPointA, kPointB, kNormal1, kRest, prismatic,
                                                  (prismatic || kind_ == JointKind::Fixed) && lock_rotation_};
    return planar_joint_derivatives::PlanarJoint(kinds()[0], kinds()[1], offset_b_, this->coordinate_count(), q,
                                                 this->parameters().data(), layout);
  }
  // c, Cq and, if H is not null, H = lambda . C_qq of a planar joint (planar_joint_derivatives.hpp).
  void planar_derivatives(const double* q, const double* lambda, double* c, double* Cq, double* H) const {
    const int n = this->coordinate_count();
    const auto joint = planar_joint(q);
    joint.values(c);
    joint.jacobian(Cq);
    if (H == nullptr) return;
    std::fill(H, H + n * n, 0.0);
    joint.add_hessian(lambda, H);
  }
  static bool planar_by_hand(BodyKind kind) {
    return kind == BodyKind::Ground || kind == BodyKind::PointMass2D || kind == BodyKind::PlanarRigid;
  }

  // c, Cq and, if H is not null, H = lambda . C_qq.
  void hand_derivatives(const double* q, const double* lambda, double t, double* c, double* Cq, double* H) const {
    namespace jd = joint_derivatives;
    const int n = this->coordinate_count();
    const double* p = this->parameters().data();
    evaluate<double, double>(q, t, p, c);
    if (H)
      for (int i = 0; i < n * n; ++i) H[i] = 0.0;
    const BodyKind ka = kinds()[0], kb = kinds()[1];
    const jd::BodySlots a{ka != BodyKind::Ground, ka == BodyKind::SpatialRigid, 0};
    const jd::BodySlots b{kb != BodyKind::Ground, kb == BodyKind::SpatialRigid, offset_b_};
    jd::Field d;  // x_b - x_a
    jd::add_point(d, b, q, p + kPointB, 1.0, 0);
    jd::add_point(d, a, q, p + kPointA, -1.0, 1);
    int k = 0;
    if (kind_ == JointKind::Prismatic) {
      for (const int normal : {kNormal1, kNormal2}) {
        jd::Field f;  // R_a n
        jd::add_rotated(f, a, q, p + normal, 1.0, 0);
        jd::add_dot(f, d, H ? lambda[k] : 0.0, n, Cq + k * n, H);
        ++k;
      }
    } else {
      for (; k < 3; ++k)
        for (int j = 0; j < n; ++j) Cq[k * n + j] = d.J[k][j];
      if (H) jd::add_weighted_hessian(d, lambda, 1.0, n, H);
    }
    if (kind_ == JointKind::Revolute) {
      jd::Field axis;  // R_a axis
      jd::add_rotated(axis, a, q, p + kAxis, 1.0, 0);
      for (const int normal : {kNormal1, kNormal2}) {
        jd::Field g;  // R_b n
        jd::add_rotated(g, b, q, p + normal, 1.0, 0);
        jd::add_dot(axis, g, H ? lambda[k] : 0.0, n, Cq + k * n, H);
        ++k;
      }
    }
    if ((kind_ == JointKind::Prismatic || kind_ == JointKind::Fixed) && lock_rotation_)
      jd::add_relative_rotation(a, b, q, p + kRest, H ? lambda + k : nullptr, n, Cq + k * n, H);
  }

  static bool by_hand(BodyKind kind) {
    return kind == BodyKind::Ground || kind == BodyKind::PointMass3D || kind == BodyKind::SpatialRigid;
  }
  template <class P> static Vec3<P> vec(const P* p, int at) { return {p[at], p[at + 1], p[at + 2]}; }
  JointKind kind_;
  bool planar_, lock_rotation_, hand_derivatives_, planar_by_hand_;
  int offset_b_ = 0;
};

class Distance final : public model::ConstraintAD<Distance, 14, 1> {
 public:
  enum : int { kPointA = 0, kPointB = 3, kLength = 6 };
  Distance(const std::string& name, std::array<int, 2> bodies, std::array<BodyKind, 2> kinds, const Point& a,
           const Point& b, double length)
      : ConstraintAD(name, {bodies[0], bodies[1]}, {kinds[0], kinds[1]}, 1) {
    add_vector_parameter("point_a", a);
    add_vector_parameter("point_b", b);
    add_parameter("length", length);
    offset_b_ = local_offset(1);
  }
  const char* type() const override { return "distance"; }
  template <class S, class P> void evaluate(const S* q, const S&, const P* p, S* c) const {
    const Vec3<P> sa{p[kPointA], p[kPointA + 1], p[kPointA + 2]}, sb{p[kPointB], p[kPointB + 1], p[kPointB + 2]};
    const Vec3<S> d = model::subtract(model::point_position(kinds()[1], q + offset_b_, sb), model::point_position(kinds()[0], q, sa));
    c[0] = (model::dot(d, d) - p[kLength] * p[kLength]) / (2.0 * p[kLength]);
  }

 private:
  int offset_b_ = 0;
};

class Winch final : public model::ConstraintAD<Winch, 21, 1> {
 public:
  enum : int { kPointA = 0, kPointB = 3, kLength = 6, kRadius, kDrumAngle };
  Winch(const std::string& name, std::array<int, 3> bodies, std::array<BodyKind, 3> kinds, const Point& a,
        const Point& b, double length, double radius, double drum_angle)
      : ConstraintAD(name, {bodies[0], bodies[1], bodies[2]}, {kinds[0], kinds[1], kinds[2]}, 1) {
    add_vector_parameter("point_a", a);
    add_vector_parameter("point_b", b);
    add_parameter("initial_length", length);
    add_parameter("radius", radius);
    add_parameter("initial_drum_angle", drum_angle);
    offset_b_ = local_offset(1);
    offset_drum_ = local_offset(2);
  }
  const char* type() const override { return "winch"; }
  template <class S, class P> void evaluate(const S* q, const S&, const P* p, S* c) const {
    const Vec3<P> sa{p[kPointA], p[kPointA + 1], p[kPointA + 2]}, sb{p[kPointB], p[kPointB + 1], p[kPointB + 2]};
    const Vec3<S> d = model::subtract(model::point_position(kinds()[1], q + offset_b_, sb), model::point_position(kinds()[0], q, sa));
    const S length = p[kLength] + p[kRadius] * (q[offset_drum_ + 2] - p[kDrumAngle]);
    c[0] = (model::dot(d, d) - length * length) / (2.0 * p[kLength]);
  }

 private:
  int offset_b_ = 0, offset_drum_ = 0;
};

class PrescribedMotion final : public model::ConstraintAD<PrescribedMotion, 12, 3> {  // up to a full ANCF node
 public:
  PrescribedMotion(const std::string& name, int body, BodyKind kind, const Point& point,
                   const std::array<functions::Expression, 3>& path, const std::array<bool, 3>& axes, int equations)
      : ConstraintAD(name, {body}, {kind}, equations), path_(path), axes_(axes) {
    add_vector_parameter("point", point);
  }
  const char* type() const override { return "prescribed_motion"; }
  bool rheonomic() const override { return true; }
  template <class S, class P> void evaluate(const S* q, const S& t, const P* p, S* c) const {
    const Vec3<P> s{p[0], p[1], p[2]};
    const Vec3<S> x = model::point_position(kinds()[0], q, s);
    int k = 0;
    for (int i = 0; i < 3; ++i)
      if (axes_[i]) c[k++] = x[i] - path_[i].evaluate<S>(t);
  }

 private:
  std::array<functions::Expression, 3> path_;
  std::array<bool, 3> axes_;
};

class PrescribedCoordinate final : public model::ConstraintAD<PrescribedCoordinate, 12, 1> {  // up to a full ANCF node
 public:
  PrescribedCoordinate(const std::string& name, int body, BodyKind kind, int coordinate,
                       const functions::Expression& value)
      : ConstraintAD(name, {body}, {kind}, 1), coordinate_(coordinate), value_(value) {}
  const char* type() const override { return "prescribed_coordinate"; }
  bool rheonomic() const override { return !value_.is_constant(); }
  template <class S, class P> void evaluate(const S* q, const S& t, const P*, S* c) const {
    c[0] = q[coordinate_] - value_.evaluate<S>(t);
  }

 private:
  int coordinate_;
  functions::Expression value_;
};

}  // namespace

int joint_equation_count(JointKind kind, BodyKind a, BodyKind b) {
  const bool planar = is_planar(a) || is_planar(b);
  const bool lock = model::has_orientation(b);
  switch (kind) {
    case JointKind::Spherical: return planar ? 2 : 3;
    case JointKind::Revolute: return planar ? 2 : 5;
    case JointKind::Prismatic: return planar ? 1 + (lock ? 1 : 0) : 2 + (lock ? 3 : 0);
    case JointKind::Fixed: return planar ? 2 + (lock ? 1 : 0) : 3 + (lock ? 3 : 0);
  }
  return 0;
}

std::unique_ptr<model::Constraint> make_unit_quaternion(const std::string& body_name, int body) {
  return std::make_unique<UnitQuaternion>(body_name, body);
}

std::unique_ptr<model::Constraint> make_unit_dual_quaternion(const std::string& body_name, int body) {
  return std::make_unique<UnitDualQuaternion>(body_name, body, false);
}

std::unique_ptr<model::Constraint> make_unit_dual_quaternion_plain_ad(const std::string& body_name, int body) {
  return std::make_unique<UnitDualQuaternion>(body_name, body, true);
}
std::unique_ptr<model::Constraint> make_joint(const std::string& name, JointKind kind, std::array<int, 2> bodies,
                                              std::array<BodyKind, 2> kinds, const JointGeometry& geometry) {
  const int coordinates = model::coordinate_count(kinds[0]) + model::coordinate_count(kinds[1]);
  return model::make_with_capacity<6, 14>(coordinates, [&](auto capacity) -> std::unique_ptr<model::Constraint> {
    return std::make_unique<Joint<decltype(capacity)::value>>(name, kind, bodies, kinds, geometry);
  });
}
std::unique_ptr<model::Constraint> make_joint_plain_ad(const std::string& name, JointKind kind,
                                                       std::array<int, 2> bodies, std::array<BodyKind, 2> kinds,
                                                       const JointGeometry& geometry) {
  const int coordinates = model::coordinate_count(kinds[0]) + model::coordinate_count(kinds[1]);
  return model::make_with_capacity<6, 14>(coordinates, [&](auto capacity) -> std::unique_ptr<model::Constraint> {
    return std::make_unique<Joint<decltype(capacity)::value>>(name, kind, bodies, kinds, geometry, true);
  });
}
std::unique_ptr<model::Constraint> make_distance(const std::string& name, std::array<int, 2> bodies,
                                                 std::array<BodyKind, 2> kinds, const Point& a, const Point& b,
                                                 double length) {
  return std::make_unique<Distance>(name, bodies, kinds, a, b, length);
}
std::unique_ptr<model::Constraint> make_winch(const std::string& name, std::array<int, 3> bodies,
                                              std::array<BodyKind, 3> kinds, const Point& a, const Point& b,
                                              double length, double radius, double drum_angle) {
  return std::make_unique<Winch>(name, bodies, kinds, a, b, length, radius, drum_angle);
}
std::unique_ptr<model::Constraint> make_prescribed_motion(const std::string& name, int body, BodyKind kind,
                                                          const Point& point,
                                                          const std::array<functions::Expression, 3>& path,
                                                          const std::array<bool, 3>& axes) {
  const int equations = int(axes[0]) + int(axes[1]) + int(axes[2]);
  return std::make_unique<PrescribedMotion>(name, body, kind, point, path, axes, equations);
}
std::unique_ptr<model::Constraint> make_prescribed_coordinate(const std::string& name, int body, BodyKind kind,
                                                              int coordinate, const functions::Expression& value) {
  return std::make_unique<PrescribedCoordinate>(name, body, kind, coordinate, value);
}

}  // namespace flexadj::constraints
