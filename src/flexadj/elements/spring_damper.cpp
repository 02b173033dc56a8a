// Point-to-point linear spring and viscous damper.
//
// Between bodies whose point is their position (point masses, ANCF nodes, a fixed point on the ground) the residual,
// its Jacobians and the parameter partials are written out: with d = x_b - x_a, l = |d|, e = d/l and the tension
// T = k (l - L0) + c e.d_dot, the force on b is -T e (r_b = T e, r_a = -T e) and
//   d(T e)/dd = e (k e + (c/l)(d_dot - (e.d_dot) e))^T + (T/l)(I - e e^T),   d(T e)/dd_dot = c e e^T.
// Rigid bodies (whose point moves with their rotation) take the AD pass over evaluate(); so do the tangent and
// second-order products of every spring.
#include <algorithm>
#include <cmath>

#include "flexadj/elements/elements.hpp"
#include "flexadj/elements/point_pair.hpp"
#include "flexadj/model/component_ad.hpp"
#include "flexadj/model/force_batch.hpp"

namespace flexadj::elements {
namespace {

using model::Vec3;

// N: the capacity of the kernel's AD types (make_spring_damper picks the smallest that holds the bodies' coordinates).
template <int N>
class SpringDamper final : public model::ForceElementAD<SpringDamper<N>, N>, public model::BatchedForceElement {
  using Base = model::ForceElementAD<SpringDamper<N>, N>;
  using Base::add_parameter, Base::add_vector_parameter, Base::coordinate_count, Base::kinds, Base::local_offset,
      Base::parameters;

 public:
  enum : int { kStiffness, kDamping, kFreeLength, kPointA, kPointB = kPointA + 3 };

  SpringDamper(const std::string& name, std::array<int, 2> bodies, std::array<BodyKind, 2> kinds,
               const SpringDamperData& data)
      : Base(name, {bodies[0], bodies[1]}, {kinds[0], kinds[1]}) {
    add_parameter("stiffness", data.stiffness);
    add_parameter("damping", data.damping);
    add_parameter("free_length", data.free_length);
    add_vector_parameter("point_a", data.point_a);
    add_vector_parameter("point_b", data.point_b);
    offset_b_ = local_offset(1);
    kind_ = kinds;
    translations_ = {model::translation_count(kinds[0]), model::translation_count(kinds[1])};
    written_out_ = !model::has_orientation(kinds[0]) && !model::has_orientation(kinds[1]);
  }
  // Every derivative by the AD pass over evaluate() (the reference of the written-out ones, for tests).
  void use_plain_ad() { written_out_ = false; }
  const char* type() const override { return "spring_damper"; }
  bool conservative() const override { return parameters()[kDamping] == 0.0; }

  template <class S, class P> void evaluate(const S* q, const S* v, const S*, const P* p, double, S* r) const {
    using std::sqrt;
    const Vec3<P> sa = vector_at(p, kPointA), sb = vector_at(p, kPointB);
    const PointPair<S> pair = point_pair(kinds()[0], kinds()[1], q, v, offset_b_, sa, sb);
    const Vec3<S>& d = pair.separation;
    const S length = sqrt(model::dot(d, d));
    const S tension =
        p[kStiffness] * (length - p[kFreeLength]) + p[kDamping] * model::dot(d, pair.separation_rate) / length;
    subtract_force_pair<S, P, N>(kinds()[0], kinds()[1], q, offset_b_, coordinate_count(), sa, sb,
                                  model::scaled(d, -tension / length), r);
  }

  void residual_jacobian(const double* q, const double* v, const double* a, double t,
                         const model::JacobianCoefficients& c, double* r, double* J) const override {
    if (!written_out_) return Base::residual_jacobian(q, v, a, t, c, r, J);
    const Line line = line_at(q, v);
    const int n = coordinate_count();
    std::fill(r, r + n, 0.0);
    std::fill(J, J + n * n, 0.0);
    add_line_residual(line, r);
    double combined[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) combined[i][j] = c.q * line.dforce_dd[i][j] + c.v * line.dforce_drate[i][j];
    add_line_jacobian(combined, J);
  }

  // Springs between two bodies of the same kinds, neither the ground (whose point is a parameter): the position of
  // either end is its body's first coordinates.
  bool batches_with(const model::ForceElement& other) const override {
    const auto* spring = dynamic_cast<const SpringDamper*>(&other);
    return spring != nullptr && written_out_ && spring->written_out_ && spring->kind_ == kind_ &&
           kind_[0] != BodyKind::Ground && kind_[1] != BodyKind::Ground;
  }

  void batch_residual_jacobian(const model::ForceBatch& batch, const model::JacobianCoefficients& c, double* r,
                               double* J) const override {
    constexpr int L = model::kBatchLanes;
    const BatchLine line = batch_line(batch);
    add_batch_residual(line, r);
    double combined[3][3][L];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int l = 0; l < L; ++l)
          combined[i][j][l] = c.q * line.dforce_dd[i][j][l] + c.v * line.dforce_drate[i][j][l];
    const int n = coordinate_count();
    std::fill(J, J + n * n * L, 0.0);
    add_batch_jacobian(combined, J);
  }

  void batch_residual_jacobians(const model::ForceBatch& batch, double* r, double* dr_dq, double* dr_dv,
                                double* dr_da) const override {
    const BatchLine line = batch_line(batch);
    add_batch_residual(line, r);
    const int n = coordinate_count();
    for (double* J : {dr_dq, dr_dv, dr_da}) std::fill(J, J + n * n * model::kBatchLanes, 0.0);
    add_batch_jacobian(line.dforce_dd, dr_dq);
    add_batch_jacobian(line.dforce_drate, dr_dv);
  }

  void residual_jacobians(const double* q, const double* v, const double* a, double t, double* r, double* dr_dq,
                          double* dr_dv, double* dr_da) const override {
    if (!written_out_) return Base::residual_jacobians(q, v, a, t, r, dr_dq, dr_dv, dr_da);
    const Line line = line_at(q, v);
    const int n = coordinate_count();
    std::fill(r, r + n, 0.0);
    for (double* J : {dr_dq, dr_dv, dr_da}) std::fill(J, J + n * n, 0.0);
    add_line_residual(line, r);
    add_line_jacobian(line.dforce_dd, dr_dq);
    add_line_jacobian(line.dforce_drate, dr_dv);
  }

  void add_transposed_products(const double* q, const double* v, const double* a, double t, const double* mu,
                               double* out_q, double* out_v, double* out_a) const override {
    if (!written_out_) return Base::add_transposed_products(q, v, a, t, mu, out_q, out_v, out_a);
    const Line line = line_at(q, v);
    const Vec3<double> w = mu_difference(mu);  // mu_b - mu_a on the positions
    for (int j = 0; j < 3; ++j) {
      double product_q = 0.0, product_v = 0.0;
      for (int i = 0; i < 3; ++i) {
        product_q += w[i] * line.dforce_dd[i][j];
        product_v += w[i] * line.dforce_drate[i][j];
      }
      if (j < translations_[0]) out_q[j] -= product_q, out_v[j] -= product_v;
      if (j < translations_[1]) out_q[offset_b_ + j] += product_q, out_v[offset_b_ + j] += product_v;
    }
  }

  void add_parameter_gradient(const double* q, const double* v, const double* a, double t, const double* mu,
                              double* gradient, model::ParameterMask wanted = model::kAllParameters) const override {
    if (!written_out_) return Base::add_parameter_gradient(q, v, a, t, mu, gradient, wanted);
    const Line line = line_at(q, v);
    const double* p = parameters().data();
    const Vec3<double> w = mu_difference(mu);
    const double w_e = model::dot(w, line.e);
    auto add = [&](int k, double value) {
      if ((wanted >> k) & 1u) gradient[k] += value;
    };
    add(kStiffness, w_e * (line.length - p[kFreeLength]));
    add(kDamping, w_e * model::dot(line.e, line.rate));
    add(kFreeLength, -w_e * p[kStiffness]);
    // A point moves d only on the ground (elsewhere the body's position is the point): d = x_b - s_a or s_b - x_a.
    for (int j = 0; j < 3; ++j) {
      double w_G = 0.0;
      for (int i = 0; i < 3; ++i) w_G += w[i] * line.dforce_dd[i][j];
      if (kind_[0] == BodyKind::Ground) add(kPointA + j, -w_G);
      if (kind_[1] == BodyKind::Ground) add(kPointB + j, w_G);
    }
  }

  double potential_energy(const double* q, double) const override {
    const double* p = parameters().data();
    const Vec3<double> d = model::subtract(model::point_position(kinds()[1], q + offset_b_, vector_at(p, kPointB)),
                                           model::point_position(kinds()[0], q, vector_at(p, kPointA)));
    const double stretch = std::sqrt(model::dot(d, d)) - p[kFreeLength];
    return 0.5 * p[kStiffness] * stretch * stretch;
  }

 private:
  struct Line {
    Vec3<double> rate, e;
    double length = 0.0, tension = 0.0;
    double dforce_dd[3][3], dforce_drate[3][3];  // of the force T e on b (the file's comment)
  };

  Line line_at(const double* q, const double* v) const {
    const double* p = parameters().data();
    const PointPair<double> pair =
        point_pair(kind_[0], kind_[1], q, v, offset_b_, vector_at(p, kPointA), vector_at(p, kPointB));
    Line line;
    line.rate = pair.separation_rate;
    line.length = std::sqrt(model::dot(pair.separation, pair.separation));
    line.e = model::scaled(pair.separation, 1.0 / line.length);
    const double e_rate = model::dot(line.e, line.rate);
    line.tension = p[kStiffness] * (line.length - p[kFreeLength]) + p[kDamping] * e_rate;
    const double ratio = line.tension / line.length, viscous = p[kDamping] / line.length;
    for (int j = 0; j < 3; ++j) {
      const double dT_dd = p[kStiffness] * line.e[j] + viscous * (line.rate[j] - e_rate * line.e[j]);
      for (int i = 0; i < 3; ++i) {
        line.dforce_dd[i][j] = line.e[i] * dT_dd + ratio * ((i == j ? 1.0 : 0.0) - line.e[i] * line.e[j]);
        line.dforce_drate[i][j] = p[kDamping] * line.e[i] * line.e[j];
      }
    }
    return line;
  }

  // r_a -= T e, r_b += T e on the positions.
  void add_line_residual(const Line& line, double* r) const {
    for (int i = 0; i < translations_[0]; ++i) r[i] -= line.tension * line.e[i];
    for (int i = 0; i < translations_[1]; ++i) r[offset_b_ + i] += line.tension * line.e[i];
  }

  // Calls add(e, i, j, sign) for the entries e (row-major, n x n) of [G -G; -G G] on the positions of a and b, where
  // G's entry (i, j) goes with the sign.
  template <class Add> void for_line_blocks(const Add& add) const {
    const int n = coordinate_count();
    const int offsets[2] = {0, offset_b_};
    for (int row = 0; row < 2; ++row)
      for (int column = 0; column < 2; ++column) {
        const double sign = row == column ? 1.0 : -1.0;
        for (int i = 0; i < translations_[row]; ++i)
          for (int j = 0; j < translations_[column]; ++j) add((offsets[row] + i) * n + offsets[column] + j, i, j, sign);
      }
  }

  // J += [G -G; -G G] for G = d(T e)/dd (or its combination with d(T e)/dd_dot).
  void add_line_jacobian(const double (&G)[3][3], double* J) const {
    for_line_blocks([&](int e, int i, int j, double sign) { J[e] += sign * G[i][j]; });
  }

  // Line and add_line_residual()/add_line_jacobian() lane by lane (the same operations in the same order).
  struct BatchLine {
    double e[3][model::kBatchLanes], tension[model::kBatchLanes];
    double dforce_dd[3][3][model::kBatchLanes], dforce_drate[3][3][model::kBatchLanes];
  };

  BatchLine batch_line(const model::ForceBatch& batch) const {
    constexpr int L = model::kBatchLanes;
    double stiffness[L], damping[L], free_length[L];
    for (int l = 0; l < L; ++l) {
      const double* p = static_cast<const SpringDamper*>(batch.elements[l])->parameters().data();
      stiffness[l] = p[kStiffness];
      damping[l] = p[kDamping];
      free_length[l] = p[kFreeLength];
    }
    double d[3][L], rate[3][L];
    for (int i = 0; i < 3; ++i)
      for (int l = 0; l < L; ++l) {
        const bool on_a = i < translations_[0], on_b = i < translations_[1];
        d[i][l] = (on_b ? batch.q[(offset_b_ + i) * L + l] : 0.0) - (on_a ? batch.q[i * L + l] : 0.0);
        rate[i][l] = (on_b ? batch.v[(offset_b_ + i) * L + l] : 0.0) - (on_a ? batch.v[i * L + l] : 0.0);
      }
    BatchLine line;
    double length[L], inverse[L], e_rate[L], ratio[L], viscous[L];
    for (int l = 0; l < L; ++l) length[l] = std::sqrt(d[0][l] * d[0][l] + d[1][l] * d[1][l] + d[2][l] * d[2][l]);
    for (int l = 0; l < L; ++l) inverse[l] = 1.0 / length[l];
    double e[3][L];  // local: GCC does not vectorise the loops below over the returned object's members
    for (int i = 0; i < 3; ++i)
      for (int l = 0; l < L; ++l) e[i][l] = d[i][l] * inverse[l];
    for (int l = 0; l < L; ++l) {
      e_rate[l] = e[0][l] * rate[0][l] + e[1][l] * rate[1][l] + e[2][l] * rate[2][l];
      line.tension[l] = stiffness[l] * (length[l] - free_length[l]) + damping[l] * e_rate[l];
      ratio[l] = line.tension[l] / length[l];
      viscous[l] = damping[l] / length[l];
    }
    double dT_dd[3][L], dforce_dd[3][3][L], dforce_drate[3][3][L];
    for (int j = 0; j < 3; ++j)
      for (int l = 0; l < L; ++l)
        dT_dd[j][l] = stiffness[l] * e[j][l] + viscous[l] * (rate[j][l] - e_rate[l] * e[j][l]);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double delta = i == j ? 1.0 : 0.0;
        for (int l = 0; l < L; ++l) {
          dforce_dd[i][j][l] = e[i][l] * dT_dd[j][l] + ratio[l] * (delta - e[i][l] * e[j][l]);
          dforce_drate[i][j][l] = damping[l] * e[i][l] * e[j][l];
        }
      }
    std::copy(&e[0][0], &e[0][0] + 3 * L, &line.e[0][0]);
    std::copy(&dforce_dd[0][0][0], &dforce_dd[0][0][0] + 9 * L, &line.dforce_dd[0][0][0]);
    std::copy(&dforce_drate[0][0][0], &dforce_drate[0][0][0] + 9 * L, &line.dforce_drate[0][0][0]);
    return line;
  }

  // r := 0, then r_a -= T e, r_b += T e (lane-major).
  void add_batch_residual(const BatchLine& line, double* r) const {
    constexpr int L = model::kBatchLanes;
    std::fill(r, r + coordinate_count() * L, 0.0);
    for (int i = 0; i < translations_[0]; ++i)
      for (int l = 0; l < L; ++l) r[i * L + l] -= line.tension[l] * line.e[i][l];
    for (int i = 0; i < translations_[1]; ++i)
      for (int l = 0; l < L; ++l) r[(offset_b_ + i) * L + l] += line.tension[l] * line.e[i][l];
  }

  // add_line_jacobian() lane by lane.
  void add_batch_jacobian(const double (&G)[3][3][model::kBatchLanes], double* J) const {
    constexpr int L = model::kBatchLanes;
    for_line_blocks([&](int e, int i, int j, double sign) {
      double* out = J + e * L;
      for (int l = 0; l < L; ++l) out[l] += sign * G[i][j][l];
    });
  }

  Vec3<double> mu_difference(const double* mu) const {
    Vec3<double> w{0.0, 0.0, 0.0};
    for (int i = 0; i < translations_[1]; ++i) w[i] += mu[offset_b_ + i];
    for (int i = 0; i < translations_[0]; ++i) w[i] -= mu[i];
    return w;
  }

  int offset_b_ = 0;
  // Kept here rather than read from kinds(): that separate allocation is a cache miss per element in the assembly
  // loop over a long chain (perf annotate of the body inertia's kernel at 10^4 point masses).
  std::array<BodyKind, 2> kind_{};
  std::array<int, 2> translations_{};  // position coordinates of a and b (0 for the ground)
  bool written_out_ = false;
};

}  // namespace

std::unique_ptr<model::ForceElement> make_spring_damper(const std::string& name, std::array<int, 2> bodies,
                                                        std::array<BodyKind, 2> kinds, const SpringDamperData& data) {
  const int coordinates = model::coordinate_count(kinds[0]) + model::coordinate_count(kinds[1]);
  return model::make_with_capacity<4, 6, 14>(coordinates, [&](auto capacity) -> std::unique_ptr<model::ForceElement> {
    return std::make_unique<SpringDamper<decltype(capacity)::value>>(name, bodies, kinds, data);
  });
}

std::unique_ptr<model::ForceElement> make_spring_damper_plain_ad(const std::string& name, std::array<int, 2> bodies,
                                                                 std::array<BodyKind, 2> kinds,
                                                                 const SpringDamperData& data) {
  const int coordinates = model::coordinate_count(kinds[0]) + model::coordinate_count(kinds[1]);
  return model::make_with_capacity<4, 6, 14>(coordinates, [&](auto capacity) -> std::unique_ptr<model::ForceElement> {
    auto element = std::make_unique<SpringDamper<decltype(capacity)::value>>(name, bodies, kinds, data);
    element->use_plain_ad();
    return element;
  });
}

}  // namespace flexadj::elements
