// The adjoint step's matrix and products from the kept element Jacobians (Assembler::assemble_adjoint_matrix,
// kept_adjoint_products) against the element-by-element path (assemble, adjoint_products), on models with every
// component kind: rigid bodies and spherical joints, beams, ANCF elements, springs, controlled loads. assemble()
// evaluates batches of springs and point masses together (model/force_batch.hpp; the spring chain), the adjoint's
// matrix element by element.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "flexadj/assembly/assembler.hpp"
#include "gradient_support.hpp"
#include "model_files.hpp"

namespace flexadj::testing {
namespace {

double max_abs(const std::vector<double>& x) {
  double m = 0.0;
  for (double value : x) m = std::max(m, std::abs(value));
  return m;
}

class KeptAdjointProducts : public ::testing::TestWithParam<const char*> {};

TEST_P(KeptAdjointProducts, EqualTheElementByElementProducts) {
  const auto problem = read_model_file(GetParam());
  const model::Model& model = *problem.model;
  assembly::Assembler assembler(model, world(), assembly::partition_from_name(problem.integrator.partition));
  assembly::State state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
  // Velocities, accelerations and multipliers away from zero, so that every block of every component counts.
  std::mt19937 rng(7u + static_cast<unsigned>(assembler.system_map()->getComm()->getRank()));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& x : state.v) x += 0.3 * u(rng);
  for (double& x : state.a) x = 2.0 * u(rng);
  for (double& x : state.lambda) x = 5.0 * u(rng);
  std::vector<double> mu_r(state.q.size()), mu_c(state.lambda.size());
  for (double& x : mu_r) x = u(rng);
  for (double& x : mu_c) x = u(rng);
  const double t = 0.3, scale = 0.37;
  const model::JacobianCoefficients coefficients{1.0, 0.8, 2.3};
  assembly::ScopedTransposedAssembly transposed(assembler);

  Vector x(assembler.system_map()), y_reference(assembler.system_map()), y_kept(assembler.system_map());
  x.randomize();
  assembler.assemble(state, t, assembly::ConstraintLevel::Position, scale, &coefficients);
  assembler.matrix()->apply(x, y_reference);
  std::vector<double> q_ref(mu_r.size()), v_ref(mu_r.size()), a_ref(mu_r.size());
  assembler.adjoint_products(state, t, mu_r, mu_c, false, q_ref, v_ref, a_ref);

  assembler.assemble_adjoint_matrix(state, t, scale, coefficients);
  assembler.matrix()->apply(x, y_kept);
  std::vector<double> q_kept(mu_r.size()), v_kept(mu_r.size()), a_kept(mu_r.size());
  assembler.kept_adjoint_products(mu_r, mu_c, q_kept, v_kept, a_kept);

  y_kept.update(-1.0, y_reference, 1.0);
  EXPECT_LE(y_kept.normInf(), 1e-12 * y_reference.normInf()) << "A^T x";
  const std::vector<double>* reference[3] = {&q_ref, &v_ref, &a_ref};
  const std::vector<double>* kept[3] = {&q_kept, &v_kept, &a_kept};
  for (int b = 0; b < 3; ++b) {
    double local = max_abs(*reference[b]), scale_b = 0.0, worst_local = 0.0, worst = 0.0;
    for (std::size_t i = 0; i < q_ref.size(); ++i)
      worst_local = std::max(worst_local, std::abs((*kept[b])[i] - (*reference[b])[i]));
    Teuchos::reduceAll(*world(), Teuchos::REDUCE_MAX, local, Teuchos::outArg(scale_b));
    Teuchos::reduceAll(*world(), Teuchos::REDUCE_MAX, worst_local, Teuchos::outArg(worst));
    if (b == 0) EXPECT_GT(scale_b, 0.0) << "K^T mu";  // D^T mu is zero in the undamped models
    EXPECT_LE(worst, 1e-12 * scale_b) << "products, block " << "qva"[b];
  }
}

INSTANTIATE_TEST_SUITE_P(Models, KeptAdjointProducts,
                         ::testing::Values("rigid_chain.yaml", "flying_spaghetti.yaml", "ancf_pendulum.yaml",
                                           "overhead_crane.yaml", "double_pendulum_cart.yaml",
                                           "right_angle_cantilever.yaml", "knife_edge.yaml",
                                           "tests/mpi/spring_chain.yaml"),
                         model_file_test_name);

}  // namespace
}  // namespace flexadj::testing
