// The HDF5 result file holds exactly the in-memory trajectory, and the XDMF file references only
// datasets that exist in it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "beam_support.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/results/hdf5_results_file.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/results/state_reader.hpp"
#include "flexadj/results/trajectory_output.hpp"
#include "flexadj/storage/trajectory.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/core/error.hpp"

#include <hdf5.h>
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

TEST(TrajectoryOutput, FileMatchesTheInMemoryTrajectory) {
  auto problem = rigid_chain(5, 0.3, 150);  // 150 steps: more than one write block of 64
  auto comm = world();
  assembly::Assembler assembler(*problem.model, comm);
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, {});
  auto state = assembler.make_state();
  assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
  const std::string path = "trajectory_output_np" + std::to_string(comm->getSize()) + ".h5";
  results::TrajectoryOutput output(assembler, integrators::describe_run(problem.integrator), path, 2, true);  // every second step and the last

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

  const results::ResultsReader reader(path);
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

// Runs `problem` on `comm`, writing every step to `path`; returns the global q and v of the steps.
std::pair<std::vector<std::vector<double>>, std::vector<std::vector<double>>> run_with_output(
    const problem::Problem& problem, RCP<const Comm> comm, const std::string& path) {
  const model::Model& model = *problem.model;
  assembly::Assembler assembler(model, comm);
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, {});
  auto state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
  results::TrajectoryOutput output(assembler, integrators::describe_run(problem.integrator), path, 1, false);
  std::vector<std::vector<double>> q, v;
  const auto& dofs = assembler.dofs();
  integrators::StepObserver record = [&](long long n, double t, const assembly::State& s) {
    output.observe(n, t, s);
    q.push_back(gather_global(s.q, dofs.owned_coordinates(), dofs.coordinate_count(), *comm));
    v.push_back(gather_global(s.v, dofs.owned_coordinates(), dofs.coordinate_count(), *comm));
  };
  integrators::SimulationOptions options;
  options.progress = false;
  integrators::simulate(assembler, *integrator, state, options, {record});
  output.finish();
  return {q, v};
}

const char* const kBeamFields[] = {"/beams/midpoint", "/beams/force", "/beams/moment", "/bodies/axis_x",
                                   "/bodies/axis_y", "/bodies/axis_z"};

// Beam output of every element with stress resultants (geometrically exact and ANCF): /beams/midpoint,
// /beams/force and /beams/moment hold each element's section point and (N, Q2, Q3), (T, M2, M3) at every step,
// /bodies/axis_* the nodes' section frames (model::section_frame), exactly as the elements compute them from the
// in-memory trajectory; and the file of this rank count equals that of one rank (each rank runs the model alone).
void check_beam_output(const std::string& yaml, const std::string& name) {
  const auto problem = io::read_problem_string(yaml, name + ".yaml");
  auto comm = world();
  const std::string path = name + "_np" + std::to_string(comm->getSize()) + ".h5";
  const auto [q, v] = run_with_output(problem, comm, path);
  const std::string serial_path = name + "_serial_rank" + std::to_string(comm->getRank()) + ".h5";
  run_with_output(problem, self(), serial_path);

  std::vector<int> beam_elements;
  for (std::size_t i = 0; i < problem.model->force_elements().size(); ++i)
    if (problem.model->force_elements()[i]->resultant_count() > 0) beam_elements.push_back(static_cast<int>(i));
  const long long steps = static_cast<long long>(q.size()), beams = static_cast<long long>(beam_elements.size());
  const long long bodies = static_cast<long long>(problem.model->bodies().size());
  const results::ResultsReader reader(path), serial(serial_path);
  ASSERT_EQ(reader.steps(), steps);
  for (const char* field : kBeamFields)
    ASSERT_EQ(reader.dims(field),
              (std::vector<long long>{steps, std::string(field).rfind("/beams", 0) == 0 ? beams : bodies, 3}))
        << field;
  const auto midpoints = reader.read_all("/beams/midpoint"), forces = reader.read_all("/beams/force"),
             moments = reader.read_all("/beams/moment");
  std::array<std::vector<double>, 3> axes;
  for (int a = 0; a < 3; ++a) axes[a] = reader.read_all(kBeamFields[3 + a]);
  double largest_difference = 0.0;
  auto compare = [&](double in_file, double expected) {
    largest_difference = std::max(largest_difference, std::abs(in_file - expected));
  };
  for (long long k = 0; k < steps; ++k) {
    for (long long b = 0; b < beams; ++b) {
      const auto& element = *problem.model->force_elements()[beam_elements[b]];
      const auto local_q = local_coordinates(*problem.model, element, q[k]),
                 local_v = local_coordinates(*problem.model, element, v[k]);
      std::array<double, 3> x;
      std::array<double, 6> r;
      element.section_point(local_q.data(), x.data());
      element.resultants(local_q.data(), local_v.data(), r.data());
      for (int c = 0; c < 3; ++c) {
        compare(midpoints[(k * beams + b) * 3 + c], x[c]);
        compare(forces[(k * beams + b) * 3 + c], r[c]);
        compare(moments[(k * beams + b) * 3 + c], r[3 + c]);
      }
    }
    for (long long b = 0; b < bodies; ++b) {
      const int body = static_cast<int>(b);
      const auto R =
          model::section_frame(problem.model->body(body).kind, q[k].data() + problem.model->body_offset(body));
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) compare(axes[a][(k * bodies + b) * 3 + c], R[3 * c + a]);
    }
  }
  EXPECT_EQ(largest_difference, 0.0) << name;
  // The file of this rank count against that of one rank.
  double largest_rank_difference = 0.0;
  for (const char* field : kBeamFields) {
    const auto values = reader.read_all(field), serial_values = serial.read_all(field);
    ASSERT_EQ(values.size(), serial_values.size()) << field;
    for (std::size_t i = 0; i < values.size(); ++i)
      largest_rank_difference = std::max(largest_rank_difference, std::abs(values[i] - serial_values[i]));
  }
  double largest_force = 0.0, largest_moment = 0.0;
  for (double f : forces) largest_force = std::max(largest_force, std::abs(f));
  for (double m : moments) largest_moment = std::max(largest_moment, std::abs(m));
  std::printf("%s at np %d: %lld beam elements, %lld steps, largest |force| %.3e, |moment| %.3e, largest difference "
              "from np 1 %.2e\n",
              name.c_str(), comm->getSize(), beams, steps, largest_force, largest_moment, largest_rank_difference);
  EXPECT_GT(largest_moment, 0.0) << name;  // the comparisons are not of zeros
  EXPECT_LT(largest_rank_difference, 1e-10) << name;
}

// A geometrically exact beam, an ANCF cable (damped) and a fully parameterised ANCF beam, pinned at one end and
// falling under gravity.
TEST(TrajectoryOutput, BeamResultantsOfSpatialBeamsAndAncfElements) {
  check_beam_output(R"(
dimension: 3
gravity: [0, 0, -9.81]
integrator: {end_time: 0.02, step_size: 1.0e-3}
sections:
  - {name: s, E: 1.0e6, nu: 0.3, rho: 100, A: 0.01, I: 1.0e-5, shear_viscosity: 10}
beams:
  - {name: ge, section: s, elements: 3, line: {start: [0, 0, 0], end: [1, 0, 0]}}
ancf:
  - {name: cable, type: cable, section: s, damping_time: 1.0e-3, elements: 3,
     arc: {centre: [0, 1, 1], start: [0, 0, 1], angle: 1.2, axis: [0, 0, 1]}}
  - {name: full, type: full, section: s, elements: 3, line: {start: [0, 0, 2], end: [0.3, 1, 2]}}
joints:
  - {type: spherical, bodies: [ground, ge.start], point: [0, 0, 0]}
  - {type: spherical, bodies: [ground, cable.start], point: [0, 0, 1]}
  - {type: spherical, bodies: [ground, full.start], point: [0, 0, 2]}
)",
                    "beam_output_spatial");
}

// The ANCF pendulum of Berzeri and Shabana (meshes/ancf_pendulum.yaml) on 4 elements, 20 steps.
TEST(TrajectoryOutput, BeamResultantsOfPlanarAncfElements) {
  check_beam_output(R"(
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 0.02, step_size: 1.0e-3, spectral_radius: 0.95}
ancf:
  - {name: pendulum, type: planar, curvature: simple, section: {E: 0.7e6, nu: 0.3, rho: 5540, A: 0.0018, I: 1.215e-8},
     elements: 4, line: {start: [0, 0], end: [1.2, 0]}}
joints:
  - {name: pin, type: revolute, bodies: [ground, pendulum.start], point: [0, 0]}
)",
                    "beam_output_planar");
}

}  // namespace
}  // namespace flexadj::testing

namespace flexadj::testing {
namespace {

// A trajectory file whose values change between the forward run and the backward sweep (another program, a disk
// fault) is refused on every rank when the sweep reads the step, never read as a state (such a file
// once gave dJ/dm = -7e302 with exit 0).
TEST(TrajectoryOutput, ChangedTrajectoryFileIsRefused) {
  const problem::Problem problem = rigid_chain(4, 0.05, 20);
  assembly::Assembler assembler(*problem.model, world());
  linalg::LinearSolverOptions options;
  options.kind = "direct";
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, options);
  const std::string path = "changed_trajectory_np" + std::to_string(world()->getSize()) + ".h5";
  std::vector<double> step6;
  {
    storage::Hdf5Trajectory trajectory(path, assembler, integrators::describe_run(problem.integrator));
    auto state = assembler.make_state();
    assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
    integrators::record_forward_run(assembler, *integrator, state, trajectory);
    EXPECT_NO_THROW(trajectory.step(7));  // intact
    step6 = trajectory.step(6).q;
  }  // the file is closed
  world()->barrier();
  if (world()->getRank() == 0) {  // one velocity of step 7 changes by one unit in the last place
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    const hid_t dataset = H5Dopen2(file, "/state/v", H5P_DEFAULT);
    const hid_t space = H5Dget_space(dataset);
    const hsize_t start[2] = {7, 3}, count[2] = {1, 1};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    const hsize_t one = 1;
    const hid_t memory = H5Screate_simple(1, &one, nullptr);
    double value = 0.0;
    H5Dread(dataset, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, &value);
    value = std::nextafter(value, 1e300);
    H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, &value);
    H5Sclose(memory);
    H5Sclose(space);
    H5Dclose(dataset);
    H5Fclose(file);
  }
  world()->barrier();
  // A new reader (as the next sweep opens it) sees the change, on every rank.
  const results::StateReader reader(path, assembler);
  auto read_back = assembler.make_state();
  try {
    reader.read(7, read_back);
    ADD_FAILURE() << "a changed step was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("step 7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(reader.read(6, read_back));  // the other steps are intact
  EXPECT_EQ(read_back.q, step6);
}

}  // namespace
}  // namespace flexadj::testing
