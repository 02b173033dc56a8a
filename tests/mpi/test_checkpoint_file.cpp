// Disk checkpoints (storage/checkpoint_file.hpp): a file written by all ranks reads back bit for bit, and every
// file that does not match is refused on every rank with a message naming the file and the mismatch, never
// read as a state: another run, step or time, a flipped byte in the values (CRC-32), a truncated file, a file
// that is not HDF5, a missing file. The file appears under its name only when complete.
#include <Teuchos_CommHelpers.hpp>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "flexadj/core/error.hpp"
#include "flexadj/storage/checkpoint_file.hpp"
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  problem::Problem problem = rigid_chain(5, 0.1, 10);
  assembly::Assembler assembler{*problem.model, world()};
  assembly::State state = assembler.make_state();
  std::vector<double> restart;
  Fixture() {
    // Distinct values on every rank and field, so that a flipped byte can be found and no two fields agree.
    const int rank = world()->getRank();
    double x = 1.0 + 0.125 * rank;
    for (auto* field : {&state.q, &state.v, &state.a, &state.aux, &state.lambda})
      for (double& value : *field) value = (x += 0.7316);
    restart.assign(3 + std::size_t(rank), 0.0);
    for (double& value : restart) value = (x += 0.113);
  }
};

const storage::CheckpointHeader kHeader{"test run 1", 7, 0.07};

std::string file_name(const std::string& stem) { return "checkpoint_file_test_" + stem + ".h5"; }

// What reading `path` with `expected` throws on this rank ("" if it reads).
std::string refusal(Fixture& f, const std::string& path, const storage::CheckpointHeader& expected = kHeader) {
  assembly::State state = f.assembler.make_state();
  std::vector<double> restart;
  try {
    storage::read_checkpoint_file(path, f.assembler, expected, state, restart);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckpointFile, ReadsBackBitForBit) {
  Fixture f;
  const std::string path = file_name("good");
  storage::write_checkpoint_file(path, f.assembler, kHeader, f.state, f.restart);
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  assembly::State state = f.assembler.make_state();
  std::vector<double> restart;
  EXPECT_EQ(storage::read_checkpoint_file(path, f.assembler, kHeader, state, restart), 0.07);
  EXPECT_EQ(state.q, f.state.q);
  EXPECT_EQ(state.v, f.state.v);
  EXPECT_EQ(state.a, f.state.a);
  EXPECT_EQ(state.aux, f.state.aux);
  EXPECT_EQ(state.lambda, f.state.lambda);
  EXPECT_EQ(restart, f.restart);
}

TEST(CheckpointFile, RefusesAnotherRunStepOrTime) {
  Fixture f;
  const std::string path = file_name("header");
  storage::write_checkpoint_file(path, f.assembler, kHeader, f.state, f.restart);
  EXPECT_NE(refusal(f, path, {"test run 2", 7, 0.07}).find("belongs to another run"), std::string::npos);
  EXPECT_NE(refusal(f, path, {"test run 1", 8, 0.07}).find("holds step 7, expected step 8"), std::string::npos);
  EXPECT_NE(refusal(f, path, {"test run 1", 7, 0.0700000001}).find("holds time"), std::string::npos);
  EXPECT_EQ(refusal(f, path), "");
}

TEST(CheckpointFile, RefusesAFlippedByteOnEveryRank) {
  Fixture f;
  const std::string path = file_name("corrupt");
  storage::write_checkpoint_file(path, f.assembler, kHeader, f.state, f.restart);
  world()->barrier();
  // Rank 0 flips one bit of the last rank's first velocity (the values are stored as native doubles).
  double target = 0.0;
  if (world()->getRank() == world()->getSize() - 1) target = f.state.v.at(0);
  Teuchos::broadcast(*world(), world()->getSize() - 1, Teuchos::outArg(target));
  if (world()->getRank() == 0) {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    char pattern[sizeof(double)];
    std::memcpy(pattern, &target, sizeof(double));
    const auto at = bytes.find(std::string(pattern, sizeof(double)));
    ASSERT_NE(at, std::string::npos);
    file.seekp(static_cast<std::streamoff>(at + 3));
    const char flipped = static_cast<char>(bytes[at + 3] ^ 0x10);
    file.write(&flipped, 1);
  }
  world()->barrier();
  const std::string message = refusal(f, path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
}

TEST(CheckpointFile, RefusesTruncatedForeignAndMissingFiles) {
  Fixture f;
  const std::string path = file_name("truncated");
  storage::write_checkpoint_file(path, f.assembler, kHeader, f.state, f.restart);
  world()->barrier();
  if (world()->getRank() == 0) fs::resize_file(path, fs::file_size(path) / 2);
  world()->barrier();
  std::string message = refusal(f, path);
  EXPECT_NE(message.find(path), std::string::npos) << message;

  const std::string foreign = file_name("foreign");
  if (world()->getRank() == 0) std::ofstream(foreign) << "q: [1, 2, 3]\n";
  world()->barrier();
  message = refusal(f, foreign);
  EXPECT_NE(message.find(foreign), std::string::npos) << message;

  message = refusal(f, file_name("missing"));
  EXPECT_NE(message.find("missing"), std::string::npos) << message;
}

}  // namespace
}  // namespace flexadj::testing
