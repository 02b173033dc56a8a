// The batched kernels of springs and point masses (model/force_batch.hpp) against the elements' own
// residual_jacobian() and residual_jacobians(): every lane's residual, Newton matrix and the adjoint's three
// Jacobians equal bit for bit, for full and partial batches (the padding lanes repeat the last element) and each
// batchable pair of body kinds; and which elements share a batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "flexadj/elements/elements.hpp"
#include "flexadj/model/force_batch.hpp"

namespace flexadj::testing {
namespace {

using model::BodyKind;
using Vector = std::vector<double>;
constexpr int L = model::kBatchLanes;

struct Random {
  std::mt19937 generator{4127};
  std::uniform_real_distribution<double> uniform{-1.0, 1.0};
  double operator()(double scale = 1.0) { return scale * uniform(generator); }
};

const model::BatchedForceElement& kernel_of(const model::ForceElement& element) {
  const auto* kernel = dynamic_cast<const model::BatchedForceElement*>(&element);
  if (kernel == nullptr) throw std::logic_error("not a batched element");
  return *kernel;
}

// Evaluates the first `count` elements as one batch and compares each lane with the element's own path.
void expect_batch_equals_elements(const std::vector<std::unique_ptr<model::ForceElement>>& elements, int count,
                                  Random& random, const std::string& label) {
  const int n = elements[0]->coordinate_count();
  std::vector<Vector> q(count), v(count), a(count);
  for (int l = 0; l < count; ++l) {
    q[l].resize(n);
    v[l].resize(n);
    a[l].resize(n);
    // Positions along a line with spacing near one (the springs' ends apart), slopes and the rest random.
    for (int i = 0; i < n; ++i) {
      q[l][i] = random(0.2) + (i == elements[l]->local_offset(1) ? 1.0 : 0.0);
      v[l][i] = random(2.0);
      a[l][i] = random(5.0);
    }
  }
  Vector bq(n * L), bv(n * L), ba(n * L), br(n * L), bJ(n * n * L);
  std::vector<const model::ForceElement*> lanes(L);
  for (int l = 0; l < L; ++l) {
    const int source = std::min(l, count - 1);
    lanes[l] = elements[source].get();
    for (int i = 0; i < n; ++i) {
      bq[i * L + l] = q[source][i];
      bv[i * L + l] = v[source][i];
      ba[i * L + l] = a[source][i];
    }
  }
  const model::JacobianCoefficients c{0.7, 0.3, 1.9};
  kernel_of(*elements[0]).batch_residual_jacobian({lanes.data(), count, bq.data(), bv.data(), ba.data(), 0.4}, c,
                                                  br.data(), bJ.data());
  Vector r(n), J(n * n);
  for (int l = 0; l < count; ++l) {
    elements[l]->residual_jacobian(q[l].data(), v[l].data(), a[l].data(), 0.4, c, r.data(), J.data());
    for (int i = 0; i < n; ++i) EXPECT_EQ(br[i * L + l], r[i]) << label << ", lane " << l << ", r[" << i << "]";
    for (int e = 0; e < n * n; ++e) EXPECT_EQ(bJ[e * L + l], J[e]) << label << ", lane " << l << ", J entry " << e;
  }
  // The adjoint's three Jacobians.
  Vector b3(3 * n * n * L), J3(3 * n * n);
  kernel_of(*elements[0]).batch_residual_jacobians({lanes.data(), count, bq.data(), bv.data(), ba.data(), 0.4},
                                                   br.data(), b3.data(), b3.data() + n * n * L,
                                                   b3.data() + 2 * n * n * L);
  for (int l = 0; l < count; ++l) {
    elements[l]->residual_jacobians(q[l].data(), v[l].data(), a[l].data(), 0.4, r.data(), J3.data(),
                                    J3.data() + n * n, J3.data() + 2 * n * n);
    for (int i = 0; i < n; ++i) EXPECT_EQ(br[i * L + l], r[i]) << label << ", lane " << l << ", kept r[" << i << "]";
    for (int e = 0; e < 3 * n * n; ++e)
      EXPECT_EQ(b3[e * L + l], J3[e]) << label << ", lane " << l << ", kept Jacobian entry " << e;
  }
  // Nonzero blocks were compared: the matrix of each lane is not all zero.
  for (int l = 0; l < count; ++l) {
    double largest = 0.0;
    for (int e = 0; e < n * n; ++e) largest = std::max(largest, std::abs(bJ[e * L + l]));
    EXPECT_GT(largest, 0.0) << label << ", lane " << l;
  }
}

std::unique_ptr<model::ForceElement> random_spring(std::array<BodyKind, 2> kinds, double damping, Random& random) {
  elements::SpringDamperData data;
  data.stiffness = 1.0e3 * (1.0 + 0.5 * random());
  data.damping = damping * (1.0 + 0.5 * random());
  data.free_length = 0.9 + 0.1 * random();
  return elements::make_spring_damper("s", {0, 1}, kinds, data);
}

TEST(ForceBatch, SpringsEqualTheirOwnPath) {
  Random random;
  const std::vector<std::array<BodyKind, 2>> pairs = {
      {BodyKind::PointMass2D, BodyKind::PointMass2D},    {BodyKind::PointMass3D, BodyKind::PointMass3D},
      {BodyKind::AncfPlanarNode, BodyKind::PointMass2D}, {BodyKind::AncfCableNode, BodyKind::AncfCableNode},
      {BodyKind::PointMass3D, BodyKind::AncfCableNode}};
  for (const auto& kinds : pairs)
    for (const double damping : {0.0, 2.5})
      for (const int count : {2, 5, L}) {
        std::vector<std::unique_ptr<model::ForceElement>> springs;
        for (int l = 0; l < count; ++l) springs.push_back(random_spring(kinds, damping, random));
        for (int l = 0; l < count; ++l) ASSERT_TRUE(kernel_of(*springs[0]).batches_with(*springs[l]));
        expect_batch_equals_elements(springs, count, random,
                                     "kinds " + std::to_string(static_cast<int>(kinds[0])) + "-" +
                                         std::to_string(static_cast<int>(kinds[1])) + ", damping " +
                                         std::to_string(damping) + ", " + std::to_string(count) + " lanes");
      }
}

TEST(ForceBatch, BodiesEqualTheirOwnPath) {
  Random random;
  for (const BodyKind kind : {BodyKind::PointMass2D, BodyKind::PointMass3D, BodyKind::PlanarRigid})
    for (const int count : {2, 7, L}) {
      std::vector<std::unique_ptr<model::ForceElement>> bodies;
      for (int l = 0; l < count; ++l) {
        model::Body body;
        body.name = "b";
        body.kind = kind;
        body.mass = 2.0 + random();
        body.inertia = {0.4, 0.5, 0.7 + 0.1 * random(), 0.0, 0.0, 0.0};
        bodies.push_back(elements::make_body_inertia(body, 0, {random(), -9.81 + random(), random()}));
      }
      for (int l = 0; l < count; ++l) ASSERT_TRUE(kernel_of(*bodies[0]).batches_with(*bodies[l]));
      expect_batch_equals_elements(bodies, count, random,
                                   "body kind " + std::to_string(static_cast<int>(kind)) + ", " +
                                       std::to_string(count) + " lanes");
    }
}

TEST(ForceBatch, OnlyElementsOfOneKernelAndLayoutShareABatch) {
  Random random;
  const auto masses = random_spring({BodyKind::PointMass3D, BodyKind::PointMass3D}, 1.0, random);
  const auto planar = random_spring({BodyKind::PointMass2D, BodyKind::PointMass2D}, 1.0, random);
  const auto grounded = random_spring({BodyKind::Ground, BodyKind::PointMass3D}, 1.0, random);
  const auto rigid = random_spring({BodyKind::SpatialRigid, BodyKind::PointMass3D}, 1.0, random);
  const auto reference = elements::make_spring_damper_plain_ad("s", {0, 1},
                                                               {BodyKind::PointMass3D, BodyKind::PointMass3D}, {});
  EXPECT_FALSE(kernel_of(*masses).batches_with(*planar));
  EXPECT_FALSE(kernel_of(*grounded).batches_with(*grounded));  // a ground point is a parameter
  EXPECT_FALSE(kernel_of(*rigid).batches_with(*rigid));        // the AD pass
  EXPECT_FALSE(kernel_of(*reference).batches_with(*reference));
  EXPECT_FALSE(kernel_of(*masses).batches_with(*reference));
  model::Body body;
  body.name = "b";
  body.mass = 1.0;
  body.kind = BodyKind::PointMass3D;
  const auto point = elements::make_body_inertia(body, 0, {0.0, 0.0, 0.0});
  body.kind = BodyKind::SpatialRigid;
  const auto spatial = elements::make_body_inertia(body, 0, {0.0, 0.0, 0.0});
  EXPECT_FALSE(kernel_of(*point).batches_with(*masses));
  EXPECT_FALSE(kernel_of(*masses).batches_with(*point));
  EXPECT_FALSE(kernel_of(*spatial).batches_with(*spatial));
  EXPECT_FALSE(kernel_of(*point).batches_with(*spatial));
}

}  // namespace
}  // namespace flexadj::testing
