// Assembler::assemble_matrix against assemble(): the same matrix bit for bit, at the velocity and acceleration
// levels, with the mass alone and with every coefficient, on models with every component kind (rigid bodies and
// spherical joints, planar joints, beams, dual-quaternion beams with their unit constraints, ANCF elements,
// springs, knife edges); residual() keeps what the assemble() before it gave.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "flexadj/assembly/assembler.hpp"
#include "gradient_support.hpp"
#include "model_files.hpp"

namespace flexadj::testing {
namespace {

// The matrix's local values in storage order.
std::vector<double> matrix_values(const assembly::Assembler& assembler) {
  const auto matrix = assembler.matrix();
  std::vector<double> values;
  for (LocalOrdinal row = 0; row < static_cast<LocalOrdinal>(matrix->getNodeNumRows()); ++row) {
    CrsMatrix::local_inds_host_view_type columns;
    CrsMatrix::values_host_view_type entries;
    matrix->getLocalRowView(row, columns, entries);
    for (std::size_t k = 0; k < entries.extent(0); ++k) values.push_back(entries(k));
  }
  return values;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

class MatrixAlone : public ::testing::TestWithParam<const char*> {};

TEST_P(MatrixAlone, EqualsTheMatrixOfTheFullAssembly) {
  const auto problem = read_model_file(GetParam());
  const model::Model& model = *problem.model;
  assembly::Assembler assembler(model, world(), assembly::partition_from_name(problem.integrator.partition));
  assembly::State state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
  std::mt19937 rng(11u + static_cast<unsigned>(assembler.system_map()->getComm()->getRank()));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& x : state.q) x += 0.05 * u(rng);
  for (double& x : state.v) x += 0.3 * u(rng);
  for (double& x : state.a) x = 2.0 * u(rng);
  for (double& x : state.lambda) x = 5.0 * u(rng);
  assembly::State other = state;
  for (double& x : other.q) x += 0.01 * u(rng);
  const double t = 0.3;
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0}, every{1.0, 0.8, 2.3};
  for (const auto level : {assembly::ConstraintLevel::Velocity, assembly::ConstraintLevel::Acceleration}) {
    for (const auto* coefficients : {&mass_only, &every}) {
      SCOPED_TRACE(std::string(level == assembly::ConstraintLevel::Velocity ? "velocity" : "acceleration") +
                   " level, " + (coefficients == &mass_only ? "mass alone" : "every coefficient"));
      assembler.assemble(state, t, level, 1.0, coefficients);
      const std::vector<double> reference = matrix_values(assembler);
      // A residual of another state first: assemble_matrix leaves it.
      assembler.assemble(other, t, level, 1.0, coefficients);
      Vector residual_before(assembler.system_map());
      residual_before.assign(assembler.residual());
      assembler.assemble_matrix(state, t, level, *coefficients);
      const std::vector<double> alone = matrix_values(assembler);
      EXPECT_FALSE(reference.empty());
      EXPECT_TRUE(same_bits(reference, alone)) << "the matrix differs";
      residual_before.update(-1.0, assembler.residual(), 1.0);
      EXPECT_EQ(residual_before.normInf(), 0.0) << "the residual changed";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, MatrixAlone,
                         ::testing::Values("rigid_chain.yaml", "double_pendulum_cart.yaml", "flying_spaghetti.yaml",
                                           "dual_quaternion_cantilever.yaml", "ancf_pendulum.yaml",
                                           "knife_edge.yaml", "tests/mpi/spring_chain.yaml"),
                         model_file_test_name);

}  // namespace
}  // namespace flexadj::testing
