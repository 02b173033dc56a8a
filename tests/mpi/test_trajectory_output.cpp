// The HDF5 result file holds exactly the in-memory trajectory, and the XDMF file references only
// datasets that exist in it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "flexadj/io/hdf5_results_file.hpp"
#include "flexadj/io/trajectory_output.hpp"
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

TEST(TrajectoryOutput, FileMatchesTheInMemoryTrajectory) {
  auto model = rigid_chain(5, 0.3, 150);  // 150 steps: more than one write block of 64
  auto comm = world();
  assembly::Assembler assembler(*model, comm);
  const auto integrator = integrators::make_time_integrator(assembler, model->integrator, {});
  auto state = assembler.make_state();
  assembler.scatter_global(model->initial_coordinates(), model->initial_velocities(), state);
  const std::string path = "trajectory_output_np" + std::to_string(comm->getSize()) + ".h5";
  io::TrajectoryOutput output(assembler, path, 2, true);  // every second step and the last

  std::vector<double> times;
  std::vector<std::vector<double>> q, lambda;
  const auto& dofs = assembler.dofs();
  std::vector<long long> multiplier_ids;
  for (long long id : dofs.owned_multipliers()) multiplier_ids.push_back(id - dofs.coordinate_count());
  integrators::StepObserver record = [&](long long n, double t, const assembly::State& s) {
    output.observe(n, t, s);
    if (n % 2 != 0 && n != 150) return;
    times.push_back(t);
    q.push_back(gather_global(s.q, dofs.owned_coordinates(), dofs.coordinate_count(), *comm));
    lambda.push_back(gather_global(s.lambda, multiplier_ids, dofs.multiplier_count(), *comm));
  };
  integrators::SimulationOptions options;
  options.progress = false;
  integrators::simulate(assembler, *integrator, state, options, {record});
  output.finish();

  const io::ResultsReader reader(path);
  ASSERT_EQ(reader.steps(), 76);  // steps 0, 2, ..., 150
  EXPECT_EQ(reader.times(), times);
  const auto file_q = reader.read_all("/state/q");
  const auto file_lambda = reader.read_all("/state/lambda");
  const auto positions = reader.read_all("/bodies/position");
  const std::size_t nq = q[0].size(), nl = lambda[0].size();
  ASSERT_EQ(file_q.size(), 76 * nq);
  ASSERT_EQ(file_lambda.size(), 76 * nl);
  for (std::size_t k = 0; k < 76; ++k) {
    for (std::size_t i = 0; i < nq; ++i) ASSERT_EQ(file_q[k * nq + i], q[k][i]) << "step " << k << " q " << i;
    for (std::size_t i = 0; i < nl; ++i) ASSERT_EQ(file_lambda[k * nl + i], lambda[k][i]) << "step " << k;
    // Body positions are the centre-of-mass coordinates (7 per spatial rigid body).
    for (std::size_t b = 0; b < 5; ++b)
      for (int c = 0; c < 3; ++c) ASSERT_EQ(positions[(k * 5 + b) * 3 + c], q[k][7 * b + c]);
  }
  EXPECT_EQ(reader.read_strings("/model/body_names").front(), "link1");
  EXPECT_EQ(reader.read_strings("/model/coordinate_names").at(3), "link1.e0");

  // Every dataset the XDMF file references exists with the shape it claims.
  std::ifstream xmf(output.xdmf_path());
  ASSERT_TRUE(xmf.good());
  std::stringstream text;
  text << xmf.rdbuf();
  const std::string xml = text.str();
  const std::regex reference(R"(trajectory_output_np\d\.h5:(/[A-Za-z_/]+))");
  int references = 0;
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), reference); it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE(reader.exists((*it)[1].str())) << (*it)[1].str();
    ++references;
  }
  EXPECT_GT(references, 76);  // at least one per written step
  EXPECT_NE(xml.find("CollectionType=\"Temporal\""), std::string::npos);
}

}  // namespace
}  // namespace flexadj::testing
