// Damage found by the fuzz harness tests/fuzz/fuzz_hdf5.cpp (scripts/fuzz.sh), made again here in files written
// for the harness's model (a mass on a rail with a spring): each reader refuses them with an InputError naming the
// file, never reads past a buffer or converts a number it cannot hold.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/core/hdf5_storage.hpp"
#include "flexadj/functions/control_signal.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/results/state_reader.hpp"
#include "flexadj/results/trajectory_output.hpp"
#include "flexadj/storage/checkpoint_file.hpp"
#include "../fuzz/hdf5_harness_model.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

const char* const kHarnessModel = fuzzing::kHdf5HarnessModel;

// A trajectory of the harness's model with every step, as its seed.
void write_trajectory(const std::string& path) {
  const problem::Problem problem = io::read_problem_string(kHarnessModel, "harness.yaml");
  assembly::Assembler assembler(*problem.model, world());
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, {});
  assembly::State state = assembler.make_state();
  assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
  results::TrajectoryOutput output(assembler, integrators::describe_run(problem.integrator), path, 1, false);
  integrators::SimulationOptions options;
  options.progress = false;
  integrators::simulate(assembler, *integrator, state, options,
                        {[&](long long n, double t, const assembly::State& s) { output.observe(n, t, s); }});
  output.finish();
}

// What reading `path` as a trajectory throws ("" if every step reads).
std::string trajectory_refusal(const std::string& path) {
  const problem::Problem problem = io::read_problem_string(kHarnessModel, "harness.yaml");
  assembly::Assembler assembler(*problem.model, world());
  assembly::State state = assembler.make_state();
  try {
    const results::StateReader reader(path, assembler);
    for (std::size_t k = 0; k < reader.times().size(); ++k) reader.read(static_cast<long long>(k), state);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The file address of the chunk of dataset `name` at row `row` (column 0), and the chunk's size in bytes.
std::pair<haddr_t, hsize_t> chunk_address(const std::string& path, const char* name, hsize_t row) {
  haddr_t address = HADDR_UNDEF;
  hsize_t size = 0;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
  const hsize_t origin[2] = {row, 0};
  unsigned filters = 0;
  EXPECT_GE(H5Dget_chunk_info_by_coord(set, origin, &filters, &address, &size), 0);
  H5Dclose(set);
  H5Fclose(file);
  return {address, size};
}

// The bytes of `path`, and where the 8-byte address `address` (little-endian, as in the file) is in them: once,
// in the chunk index.
std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
std::size_t unique_address_position(const std::string& bytes, haddr_t address) {
  const std::string pattern(reinterpret_cast<const char*>(&address), 8);
  const std::size_t at = bytes.find(pattern);
  EXPECT_NE(at, std::string::npos);
  EXPECT_EQ(bytes.find(pattern, at + 1), std::string::npos) << "the address is not unique in the file";
  return at;
}

TEST(DamagedFiles, RefusesAChunkInsideTheSuperblock) {
  // The fuzzer moved the first chunk of /state/q to byte 2: HDF5 1.10.8 copied it from its 8-byte metadata
  // buffer (AddressSanitizer: heap-buffer-overflow in H5VM_memcpyvv). The same damage: its address in the chunk
  // index replaced by 2.
  const std::string path = "damaged_chunk_address.h5";
  write_trajectory(path);
  const auto [address, size] = chunk_address(path, "/state/q", 0);
  EXPECT_EQ(size, 16u);
  std::string bytes = file_bytes(path);
  const std::size_t at = unique_address_position(bytes, address);
  ASSERT_NE(at, std::string::npos);
  const std::uint64_t two = 2;
  std::memcpy(&bytes[at], &two, 8);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  const std::string refusal = trajectory_refusal(path);
  // The index's records are checked before the first read (hdf5_storage.hpp): this one lies in the superblock.
  EXPECT_EQ(refusal.rfind(path + ": /state/q: a damaged chunk index (record 0)", 0), 0u) << refusal;
  EXPECT_NE(refusal.find("a damaged file, or not one flexadj wrote"), std::string::npos) << refusal;
}

// All of /state/q of `path`, read by HDF5 after flexadj's chunk-index checks.
std::vector<double> all_positions(const std::string& path) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t set = H5Dopen2(file, "/state/q", H5P_DEFAULT);
  hsize_t dims[2] = {0, 0};
  const hid_t space = H5Dget_space(set);
  H5Sget_simple_extent_dims(space, dims, nullptr);
  EXPECT_EQ(dims[0], 6u);
  EXPECT_EQ(flexadj::hdf5_chunk_index_problem(file, set, {dims[0], dims[1]}), "");
  std::vector<double> q(dims[0] * dims[1]);
  EXPECT_GE(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, q.data()), 0);
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(file);
  return q;
}

TEST(DamagedFiles, RefusesChunksSwappedInTheirIndex) {
  // The damage the record checks cannot see: the chunk index of HDF5 1.8's format (a version-1 B-tree) has no
  // checksum, and with the addresses of the chunks of steps 1 and 2 of /state/q swapped every record is still a
  // whole chunk of the extent inside the file. HDF5 then reads step 2's positions as step 1's; the checksum of
  // each step's values (written beside them, results/state_reader.cpp) refuses them.
  const std::string path = "damaged_swapped_chunks.h5";
  write_trajectory(path);
  std::filesystem::copy_file(path, "damaged_swapped_chunks_original.h5",
                             std::filesystem::copy_options::overwrite_existing);
  const auto [first, first_size] = chunk_address(path, "/state/q", 1);
  const auto [second, second_size] = chunk_address(path, "/state/q", 2);
  ASSERT_EQ(first_size, second_size);
  std::string bytes = file_bytes(path);
  const std::size_t at_first = unique_address_position(bytes, first);
  const std::size_t at_second = unique_address_position(bytes, second);
  ASSERT_NE(at_first, std::string::npos);
  ASSERT_NE(at_second, std::string::npos);
  std::memcpy(&bytes[at_first], &second, 8);
  std::memcpy(&bytes[at_second], &first, 8);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  // HDF5 reads the swapped rows without complaint: the index passes every check flexadj can make.
  const std::vector<double> before = all_positions("damaged_swapped_chunks_original.h5"), after = all_positions(path);
  ASSERT_EQ(before.size(), after.size());
  const std::size_t columns = before.size() / 6;  // 6 stored steps
  ASSERT_NE(before[columns], before[2 * columns]);  // the mass moves between steps 1 and 2
  for (std::size_t c = 0; c < columns; ++c) {
    EXPECT_EQ(after[columns + c], before[2 * columns + c]);
    EXPECT_EQ(after[2 * columns + c], before[columns + c]);
  }
  const std::string refusal = trajectory_refusal(path);
  EXPECT_EQ(refusal.rfind(path + ": /state/checksum: step 1: the values of rank 0 do not match their checksum", 0),
            0u)
      << refusal;
}

TEST(DamagedFiles, RefusesDamagedMetadataAsAnInputError) {
  // Damaged metadata once escaped as an OutputError "/time: cannot look up link (bad heap free list) (is the disk
  // full, or the file not writable?)". Files are now written in HDF5 1.8's format, whose object headers carry
  // checksums: a changed byte in the header of /state/q is found by HDF5 and refused as a damaged file.
  const std::string path = "damaged_header.h5";
  write_trajectory(path);
  haddr_t header = HADDR_UNDEF;
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    H5F_info2_t info{};
    ASSERT_GE(H5Fget_info2(file, &info), 0);
    EXPECT_EQ(info.super.version, 2u);
    H5O_info_t object{};
    ASSERT_GE(H5Oget_info_by_name2(file, "/state/q", &object, H5O_INFO_BASIC, H5P_DEFAULT), 0);
    header = object.addr;
    H5Fclose(file);
  }
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_EQ(bytes.compare(header, 4, "OHDR"), 0);
  bytes[header + 12] = static_cast<char>(bytes[header + 12] ^ 0x5a);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  const std::string refusal = trajectory_refusal(path);
  EXPECT_EQ(refusal.rfind(path + ": /state/q: ", 0), 0u) << refusal;
  EXPECT_NE(refusal.find("a damaged file, or not one flexadj wrote"), std::string::npos) << refusal;
  EXPECT_EQ(refusal.find("disk full"), std::string::npos) << refusal;
}

TEST(DamagedFiles, RefusesFilesWithoutMetadataChecksums) {
  // HDF5's default format (superblock 0, no checksums) is not parsed beyond its superblock.
  const std::string path = "old_format.h5";
  H5Fclose(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  const std::string refusal = trajectory_refusal(path);
  EXPECT_EQ(refusal, path + ": an HDF5 file without metadata checksums (superblock version 0): not written by this "
                            "flexadj, which writes version 2 or later");
}

// Unpacks a gzipped file of tests/fuzz/regressions/hdf5/ to `path`.
void unpack(const std::string& name, const std::string& path) {
  const std::string packed = std::string(FLEXADJ_SOURCE_DIR) + "/tests/fuzz/regressions/hdf5/" + name;
  gzFile in = gzopen(packed.c_str(), "rb");
  ASSERT_NE(in, nullptr) << packed;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  char buffer[4096];
  for (int n; (n = gzread(in, buffer, sizeof buffer)) > 0;) out.write(buffer, n);
  gzclose(in);
}

TEST(DamagedFiles, RefusesAChunkIndexThatCannotBeWalked) {
  // Found by the fuzzer (a trajectory of the harness's model): the chunk index of /state/q (a version-1 B-tree,
  // without checksums in HDF5 1.8's format) zeroed after its first records. HDF5 could no longer walk it but
  // still found single chunks, and then read 16 bytes from an 8-byte buffer (AddressSanitizer:
  // heap-buffer-overflow in H5VM_memcpyvv under H5D__select_read). HDF5 walks q's index; its record 1 is wrong.
  const std::string path = "damaged_chunk_index.h5";
  unpack("chunk_index_cut.h5.gz", path);
  const std::string refusal = trajectory_refusal(path);
  EXPECT_EQ(refusal.rfind(path + ": /state/q: a damaged chunk index (record 1) (a damaged file", 0), 0u) << refusal;
}

TEST(DamagedFiles, RefusesChunkRecordsOutsideTheDataset) {
  // Found by the fuzzer after the walk was checked: indexes HDF5 walks, whose records hold chunks at offsets
  // outside the extent, of other sizes, with filter masks, at address 0; HDF5 read past a chunk buffer again (in
  // /state/q). The first such record is in /time.
  const std::string path = "damaged_chunk_records.h5";
  unpack("chunk_records.h5.gz", path);
  const std::string refusal = trajectory_refusal(path);
  EXPECT_EQ(refusal.rfind(path + ": /time: a damaged chunk index (record 0) (a damaged file", 0), 0u) << refusal;
}

// Writes a checkpoint of the harness's model, then sets the length of its last field (restart) in /layout to
// `restart_length`; gives what reading it throws.
std::string checkpoint_with_restart_length(const std::string& path, double restart_length) {
  const problem::Problem problem = io::read_problem_string(kHarnessModel, "harness.yaml");
  assembly::Assembler assembler(*problem.model, world());
  assembly::State state = assembler.make_state();
  const storage::CheckpointHeader header{"damaged", 3, 0.3, "state"};
  storage::write_checkpoint_file(path, assembler, header, state, {1.0, 2.0, 3.0});
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t set = H5Dopen2(file, "/layout", H5P_DEFAULT);
  std::vector<double> layout(6);  // q, v, a, aux, lambda, restart
  const hid_t space = H5Dget_space(set);
  EXPECT_EQ(H5Sget_simple_extent_npoints(space), 6);
  H5Sclose(space);
  EXPECT_GE(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, layout.data()), 0);
  EXPECT_EQ(layout[5], 3.0);
  layout[5] = restart_length;
  EXPECT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, layout.data()), 0);
  H5Dclose(set);
  H5Fclose(file);
  std::vector<double> restart;
  try {
    storage::read_checkpoint_file(path, assembler, header, state, restart);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(DamagedFiles, RefusesACheckpointLayoutOfNoCounts) {
  // A layout entry of 2.2e307 was converted to long long (UBSan: outside the range of representable values).
  const std::string refusal = checkpoint_with_restart_length("damaged_layout.h5", 2.2e307);
  EXPECT_NE(refusal.find("damaged_layout.h5: /layout: expected counts of values"), std::string::npos) << refusal;
}

TEST(DamagedFiles, RefusesACheckpointLayoutBeyondItsValues) {
  // 10^12 restart values claimed where 3 are stored: refused before anything is allocated for them.
  const std::string refusal = checkpoint_with_restart_length("damaged_length.h5", 1e12);
  EXPECT_NE(refusal.find("holds fewer values than its layout says"), std::string::npos) << refusal;
}

TEST(DamagedFiles, RefusesControlValuesWhoseSlopeOverflows) {
  // Values of +-9e307 a quarter second apart: the interpolation's slope was Inf, and so was u(t).
  try {
    functions::ControlSignal("u", {0.0, 0.25, 0.5}, {8.98847e307, -8.98847e307, 0.0},
                             functions::Interpolation::PiecewiseLinear);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("changes too fast between index 0 and 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace flexadj::testing
