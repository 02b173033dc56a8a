// Applied force and moment: time functions plus a control signal times a direction.
#include "flexadj/elements/elements.hpp"
#include "flexadj/model/component_ad.hpp"

namespace flexadj::elements {
namespace {

using model::Vec3;

// Up to 12 coordinates: a full ANCF node.
class Load final : public model::ForceElementAD<Load, 12> {
 public:
  enum : int { kPoint };

  Load(const std::string& name, int body, BodyKind kind, const LoadData& data)
      : ForceElementAD(name, {body}, {kind}), data_(data) {
    add_vector_parameter("point", data.point);
  }
  const char* type() const override { return "load"; }
  bool conservative() const override { return false; }
  bool applied_load() const override { return true; }
  bool time_dependent() const override { return data_.control || time_dependent_besides_control(); }
  bool time_dependent_besides_control() const override {
    for (int i = 0; i < 3; ++i)
      if (!data_.force[i].is_constant() || !data_.moment[i].is_constant()) return true;
    return false;
  }

  template <class S, class P> void evaluate(const S* q, const S*, const S*, const P* p, double t, S* r) const {
    evaluate_with_control(q, p, S(data_.control ? data_.control->value(t) : 0.0), t, r);
  }

  // The same with the control value given (ForceElementAD's second-order products differentiate in it).
  template <class S, class P>
  void evaluate_controlled(const S* q, const S*, const S*, const P* p, const S& u, double t, S* r) const {
    evaluate_with_control(q, p, u, t, r);
  }

  const functions::ControlSignal* control() const override { return data_.control.get(); }

  // mu . dr/du with the control value u(t) as the one independent variable.
  double control_sensitivity(const double* q, const double*, const double*, double t, const double* mu) const override {
    if (!data_.control) return 0.0;
    using Fad = Sacado::Fad::SFad<double, 1>;
    std::array<Fad, 12> qf, rf;
    for (int i = 0; i < coordinate_count(); ++i) {
      qf[i] = q[i];
      rf[i] = 0.0;
    }
    evaluate_with_control(qf.data(), parameters().data(), Fad(1, 0, data_.control->value(t)), t, rf.data());
    double sensitivity = 0.0;
    for (int i = 0; i < coordinate_count(); ++i) sensitivity += mu[i] * rf[i].dx(0);
    return sensitivity;
  }

 private:
  template <class S, class P> void evaluate_with_control(const S* q, const P* p, const S& u, double t, S* r) const {
    const BodyKind kind = kinds()[0];
    Vec3<S> force, moment;
    for (int i = 0; i < 3; ++i) {
      force[i] = data_.force[i](t) + u * data_.control_force_direction[i];
      moment[i] = data_.moment[i](t) + u * data_.control_moment_direction[i];
    }
    const Vec3<P> point{p[kPoint], p[kPoint + 1], p[kPoint + 2]};
    std::array<S, 12> Q;
    for (int i = 0; i < coordinate_count(); ++i) Q[i] = 0.0;
    if (data_.body_frame) {
      const auto R = model::body_rotation(kind, q);
      model::add_generalized_force(kind, q, point, model::multiply(R, force), model::multiply(R, moment), Q.data());
    } else {
      model::add_generalized_force(kind, q, point, force, moment, Q.data());
    }
    for (int i = 0; i < coordinate_count(); ++i) r[i] -= Q[i];
  }

  LoadData data_;
};

}  // namespace

std::unique_ptr<model::ForceElement> make_load(const std::string& name, int body, BodyKind kind, const LoadData& data) {
  return std::make_unique<Load>(name, body, kind, data);
}

}  // namespace flexadj::elements
