// libFuzzer harness (scripts/fuzz.sh): the HDF5 files flexadj reads back. Each input is written to a file, which
// is then read as a trajectory (results::StateReader, every step), as a checkpoint (storage::read_checkpoint_file) and
// as a control signal (ControlSignal::from_hdf5). Each reader must accept the file or refuse it with an
// InputError naming it; anything else escaping, a sanitizer report or a hang is a crash. What is accepted must
// be finite. MPI, Kokkos and a small model (a mass on a rail with a spring: coordinates and a multiplier) are
// set up once.
// With FLEXADJ_FUZZ_WRITE_SEEDS=DIR set it writes the seeds instead (a trajectory, a checkpoint and a control
// file, written by flexadj's own writers, and files of the wrong kind) and exits.
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/core/runtime.hpp"
#include "flexadj/functions/control_signal.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/results/state_reader.hpp"
#include "flexadj/results/trajectory_output.hpp"
#include "flexadj/storage/checkpoint_file.hpp"
#include "hdf5_harness_model.hpp"

namespace {

using namespace flexadj;

const char* const kModel = fuzzing::kHdf5HarnessModel;

struct Fixture {
  explicit Fixture(char** argv) : runtime(argv) {}
  Runtime runtime;
  problem::Problem problem = io::read_problem_string(kModel, "fuzz_hdf5.yaml");
  assembly::Assembler assembler{*problem.model, runtime.comm()};
  storage::CheckpointHeader header{"fuzz run", 3, 0.3, "state"};
};
Fixture* fixture = nullptr;

void write_control_file(const std::string& path, const std::vector<double>& t, const std::vector<double>& u) {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);  // the checksummed format control files must have
  H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  const hid_t group = H5Gcreate2(file, "controls", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  for (const auto& [name, values] : {std::pair{"t", &t}, std::pair{"u", &u}}) {
    const hsize_t n = values->size();
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t set = H5Dcreate2(group, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values->data());
    H5Dclose(set);
    H5Sclose(space);
  }
  H5Gclose(group);
  H5Fclose(file);
}

void write_seeds(const std::string& folder) {
  Fixture& f = *fixture;
  auto integrator = integrators::make_time_integrator(f.assembler, f.problem.integrator, {});
  assembly::State state = f.assembler.make_state();
  f.assembler.scatter_global(f.problem.model->initial_coordinates(), f.problem.model->initial_velocities(), state);
  {
    results::TrajectoryOutput output(f.assembler, integrators::describe_run(f.problem.integrator), folder + "/trajectory.h5", 1, false);
    integrators::SimulationOptions options;
    options.progress = false;
    integrators::simulate(f.assembler, *integrator, state, options,
                          {[&](long long n, double t, const assembly::State& s) { output.observe(n, t, s); }});
    output.finish();
  }
  storage::write_checkpoint_file(folder + "/checkpoint.h5", f.assembler, f.header, state, {1.0, 2.0, 3.0});
  write_control_file(folder + "/control.h5", {0.0, 0.25, 0.5}, {1.0, -1.0, 2.0});
  write_control_file(folder + "/control_short.h5", {0.0}, {4.0});
}

// A refusal must name the file and say something.
void check_refusal(const InputError& e, const std::string& path, const char* reader) {
  const std::string what = e.what();
  if (what.rfind(path + ": ", 0) != 0 || what.size() < path.size() + 6) {
    std::fprintf(stderr, "%s: refusal that does not name the file: %s\n", reader, what.c_str());
    std::abort();
  }
}

void check_finite(const std::vector<double>& values, const char* what) {
  for (double x : values)
    if (!std::isfinite(x)) {
      std::fprintf(stderr, "accepted a non-finite %s\n", what);
      std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  static char* arguments[] = {(*argv)[0], nullptr};
  (void)argc;
  // Open MPI's signal handlers would end the process on an abort before libFuzzer saves the input.
  setenv("OMPI_MCA_opal_signal", "", 1);
  fixture = new Fixture(arguments);  // lives as long as the process: MPI ends with it
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // the readers report what they refuse; no HDF5 error stacks
  if (const char* folder = std::getenv("FLEXADJ_FUZZ_WRITE_SEEDS")) {
    write_seeds(folder);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/dev/shm/flexadj_fuzz_hdf5_" + std::to_string(::getpid()) + ".h5";
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
  Fixture& f = *fixture;
  assembly::State state = f.assembler.make_state();
  try {
    const results::StateReader reader(path, f.assembler);
    for (std::size_t k = 0; k < reader.times().size(); ++k) {
      reader.read(static_cast<long long>(k), state);
      check_finite(state.q, "coordinate");
      check_finite(state.lambda, "multiplier");
    }
  } catch (const InputError& e) {
    check_refusal(e, path, "trajectory");
  }
  try {
    std::vector<double> restart;
    const double t = storage::read_checkpoint_file(path, f.assembler, f.header, state, restart);
    if (t != f.header.time) std::abort();
    check_finite(state.q, "checkpoint coordinate");
    check_finite(restart, "restart value");
  } catch (const InputError& e) {
    check_refusal(e, path, "checkpoint");
  }
  try {
    const auto u = functions::ControlSignal::from_hdf5("u", path, "/controls/t", "/controls/u",
                                                       functions::Interpolation::PiecewiseLinear);
    for (double t : {-1.0, 0.0, 0.3, 1e300})
      if (!std::isfinite(u.value(t))) std::abort();
  } catch (const InputError& e) {
    check_refusal(e, path, "control");
  }
  return 0;
}
