// Point-to-point linear spring and viscous damper.
#include <cmath>

#include "flexadj/elements/elements.hpp"
#include "flexadj/model/component_ad.hpp"

namespace flexadj::elements {
namespace {

using model::Vec3;

class SpringDamper final : public model::ForceElementAD<SpringDamper, 14> {
 public:
  enum : int { kStiffness, kDamping, kFreeLength, kPointA, kPointB = kPointA + 3 };

  SpringDamper(const std::string& name, std::array<int, 2> bodies, std::array<BodyKind, 2> kinds,
               const SpringDamperData& data)
      : ForceElementAD(name, {bodies[0], bodies[1]}, {kinds[0], kinds[1]}) {
    add_parameter("stiffness", data.stiffness);
    add_parameter("damping", data.damping);
    add_parameter("free_length", data.free_length);
    for (int i = 0; i < 3; ++i) add_parameter(std::string("point_a_") + "xyz"[i], data.point_a[i]);
    for (int i = 0; i < 3; ++i) add_parameter(std::string("point_b_") + "xyz"[i], data.point_b[i]);
    offset_b_ = local_offset(1);
  }
  const char* type() const override { return "spring_damper"; }
  bool conservative() const override { return parameters()[kDamping] == 0.0; }

  template <class S, class P> void evaluate(const S* q, const S* v, const S*, const P* p, double, S* r) const {
    using std::sqrt;
    const auto [ka, kb] = std::pair(kinds()[0], kinds()[1]);
    const Vec3<P> sa{p[kPointA], p[kPointA + 1], p[kPointA + 2]}, sb{p[kPointB], p[kPointB + 1], p[kPointB + 2]};
    const Vec3<S> d = model::subtract(model::point_position(kb, q + offset_b_, sb), model::point_position(ka, q, sa));
    const Vec3<S> d_dot = model::subtract(model::point_velocity(kb, q + offset_b_, v + offset_b_, sb), model::point_velocity(ka, q, v, sa));
    const S length = sqrt(model::dot(d, d));
    const S tension = p[kStiffness] * (length - p[kFreeLength]) + p[kDamping] * model::dot(d, d_dot) / length;
    const Vec3<S> force_on_a = model::scaled(d, tension / length);
    const Vec3<S> force_on_b = model::scaled(d, -tension / length);
    const Vec3<S> zero{S(0.0), S(0.0), S(0.0)};
    // r = -Q
    std::array<S, 14> Q;
    for (int i = 0; i < coordinate_count(); ++i) Q[i] = 0.0;
    model::add_generalized_force(ka, q, sa, force_on_a, zero, Q.data());
    model::add_generalized_force(kb, q + offset_b_, sb, force_on_b, zero, Q.data() + offset_b_);
    for (int i = 0; i < coordinate_count(); ++i) r[i] -= Q[i];
  }

  double potential_energy(const double* q, double) const override {
    const double* p = parameters().data();
    const Vec3<double> sa{p[kPointA], p[kPointA + 1], p[kPointA + 2]}, sb{p[kPointB], p[kPointB + 1], p[kPointB + 2]};
    const Vec3<double> d = model::subtract(model::point_position(kinds()[1], q + offset_b_, sb), model::point_position(kinds()[0], q, sa));
    const double stretch = std::sqrt(model::dot(d, d)) - p[kFreeLength];
    return 0.5 * p[kStiffness] * stretch * stretch;
  }

 private:
  int offset_b_ = 0;
};

}  // namespace

std::unique_ptr<model::ForceElement> make_spring_damper(const std::string& name, std::array<int, 2> bodies,
                                                        std::array<BodyKind, 2> kinds, const SpringDamperData& data) {
  return std::make_unique<SpringDamper>(name, bodies, kinds, data);
}

}  // namespace flexadj::elements
