// Rotational spring-damper between two bodies, and the planar angle spring on a line between two points.
#include <cmath>

#include "flexadj/elements/elements.hpp"
#include "flexadj/elements/point_pair.hpp"
#include "flexadj/model/component_ad.hpp"

namespace flexadj::elements {
namespace {

using model::Vec3;

// Planar: moment -(k (theta_b - theta_a - theta_0) + c (omega_b - omega_a)) on b, the opposite on a.
// Spatial: damping only, on the relative angular velocity about the axis carried by body a.
class RotationalSpringDamper final : public model::ForceElementAD<RotationalSpringDamper, 14> {
 public:
  enum : int { kStiffness, kDamping, kRestAngle, kAxis };

  RotationalSpringDamper(const std::string& name, std::array<int, 2> bodies, std::array<BodyKind, 2> kinds,
                         const Point& axis_in_a, const RotationalSpringDamperData& data)
      : ForceElementAD(name, {bodies[0], bodies[1]}, {kinds[0], kinds[1]}) {
    add_parameter("stiffness", data.stiffness);
    add_parameter("damping", data.damping);
    add_parameter("rest_angle", data.rest_angle);
    add_vector_parameter("axis", axis_in_a);
    offset_b_ = local_offset(1);
  }
  const char* type() const override { return "rotational_spring_damper"; }
  bool conservative() const override { return parameters()[kDamping] == 0.0; }

  template <class S, class P> void evaluate(const S* q, const S* v, const S*, const P* p, double, S* r) const {
    const BodyKind ka = kinds()[0], kb = kinds()[1];
    const Vec3<S> zero{S(0.0), S(0.0), S(0.0)};
    const Vec3<P> origin{P(0.0), P(0.0), P(0.0)};
    Vec3<S> moment_on_b;
    if (ka == BodyKind::SpatialRigid || kb == BodyKind::SpatialRigid) {
      const Vec3<P> axis_local{p[kAxis], p[kAxis + 1], p[kAxis + 2]};
      const Vec3<S> axis = ka == BodyKind::Ground ? model::lift<S>(axis_local)
                                                  : model::multiply(model::body_rotation(ka, q), axis_local);
      const Vec3<S> relative = model::subtract(model::angular_velocity(kb, q + offset_b_, v + offset_b_), model::angular_velocity(ka, q, v));
      moment_on_b = model::scaled(axis, -p[kDamping] * model::dot(axis, relative));
    } else {
      const S angle_a = ka == BodyKind::PlanarRigid ? q[2] : S(0.0);
      const S rate_a = ka == BodyKind::PlanarRigid ? v[2] : S(0.0);
      const S angle = q[offset_b_ + 2] - angle_a - p[kRestAngle];
      const S rate = v[offset_b_ + 2] - rate_a;
      moment_on_b = {S(0.0), S(0.0), -(p[kStiffness] * angle + p[kDamping] * rate)};
    }
    std::array<S, 14> Q;
    for (int i = 0; i < coordinate_count(); ++i) Q[i] = 0.0;
    model::add_generalized_force(ka, q, origin, zero, model::scaled(moment_on_b, -1.0), Q.data());
    model::add_generalized_force(kb, q + offset_b_, origin, zero, moment_on_b, Q.data() + offset_b_);
    for (int i = 0; i < coordinate_count(); ++i) r[i] -= Q[i];
  }

  double potential_energy(const double* q, double) const override {
    if (kinds()[1] != BodyKind::PlanarRigid) return 0.0;
    const double* p = parameters().data();
    const double angle = q[offset_b_ + 2] - (kinds()[0] == BodyKind::PlanarRigid ? q[2] : 0.0) - p[kRestAngle];
    return 0.5 * p[kStiffness] * angle * angle;
  }

 private:
  int offset_b_ = 0;
};

// V = k/2 phi^2 with phi = atan2(n0 x d, n0 . d), d = p_b - p_a, n0 the rest direction.
class AngleSpringDamper final : public model::ForceElementAD<AngleSpringDamper, 14> {
 public:
  enum : int { kStiffness, kDamping, kRestAngle, kPointA, kPointB = kPointA + 3 };

  AngleSpringDamper(const std::string& name, std::array<int, 2> bodies, std::array<BodyKind, 2> kinds,
                    const AngleSpringDamperData& data)
      : ForceElementAD(name, {bodies[0], bodies[1]}, {kinds[0], kinds[1]}) {
    add_parameter("stiffness", data.stiffness);
    add_parameter("damping", data.damping);
    add_parameter("rest_angle", data.rest_angle);
    add_vector_parameter("point_a", data.point_a);
    add_vector_parameter("point_b", data.point_b);
    offset_b_ = local_offset(1);
  }
  const char* type() const override { return "angle_spring_damper"; }
  bool conservative() const override { return parameters()[kDamping] == 0.0; }

  template <class S, class P> void evaluate(const S* q, const S* v, const S*, const P* p, double, S* r) const {
    const Vec3<P> sa = vector_at(p, kPointA), sb = vector_at(p, kPointB);
    const PointPair<S> pair = point_pair(kinds()[0], kinds()[1], q, v, offset_b_, sa, sb);
    const Vec3<S>& d = pair.separation;
    const Vec3<S>& d_dot = pair.separation_rate;
    const S length_squared = d[0] * d[0] + d[1] * d[1];
    const S phi = angle(d, p[kRestAngle]);
    const S phi_dot = (d[0] * d_dot[1] - d[1] * d_dot[0]) / length_squared;
    // Force on b: -(k phi + c phi_dot) dphi/dd, dphi/dd = (-d_y, d_x) / |d|^2.
    const S factor = -(p[kStiffness] * phi + p[kDamping] * phi_dot) / length_squared;
    const Vec3<S> force_on_b{-d[1] * factor, d[0] * factor, S(0.0)};
    subtract_force_pair<S, P, 14>(kinds()[0], kinds()[1], q, offset_b_, coordinate_count(), sa, sb, force_on_b, r);
  }

  double potential_energy(const double* q, double) const override {
    const double* p = parameters().data();
    const Vec3<double> d = model::subtract(model::point_position(kinds()[1], q + offset_b_, vector_at(p, kPointB)),
                                           model::point_position(kinds()[0], q, vector_at(p, kPointA)));
    const double phi = angle(d, p[kRestAngle]);
    return 0.5 * p[kStiffness] * phi * phi;
  }

 private:
  template <class S, class P> static S angle(const Vec3<S>& d, const P& rest_angle) {
    using std::atan2;
    using std::cos;
    using std::sin;
    const P c = cos(rest_angle), s = sin(rest_angle);
    return atan2(c * d[1] - s * d[0], c * d[0] + s * d[1]);
  }
  int offset_b_ = 0;
};

}  // namespace

std::unique_ptr<model::ForceElement> make_rotational_spring_damper(const std::string& name, std::array<int, 2> bodies,
                                                                   std::array<BodyKind, 2> kinds,
                                                                   const RotationalSpringDamperData& data) {
  return std::make_unique<RotationalSpringDamper>(name, bodies, kinds, data.axis, data);
}

std::unique_ptr<model::ForceElement> make_angle_spring_damper(const std::string& name, std::array<int, 2> bodies,
                                                              std::array<BodyKind, 2> kinds,
                                                              const AngleSpringDamperData& data) {
  return std::make_unique<AngleSpringDamper>(name, bodies, kinds, data);
}

}  // namespace flexadj::elements
