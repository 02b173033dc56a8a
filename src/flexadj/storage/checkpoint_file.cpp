#include "flexadj/storage/checkpoint_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/io/hdf5_results_file.hpp"

namespace flexadj::storage {
namespace {

constexpr const char* kFormat = "flexadj checkpoint";
constexpr double kVersion = 1.0;
constexpr int kFields = 6;
const std::array<const char*, kFields> kNames = {"/q", "/v", "/a", "/aux", "/lambda", "/restart"};

std::array<const std::vector<double>*, kFields> fields_of(const assembly::State& s, const std::vector<double>& r) {
  return {&s.q, &s.v, &s.a, &s.aux, &s.lambda, &r};
}
std::array<std::vector<double>*, kFields> fields_of(assembly::State& s, std::vector<double>& r) {
  return {&s.q, &s.v, &s.a, &s.aux, &s.lambda, &r};
}

// The lengths of the six fields on every rank, rank-major.
std::vector<long long> gather_layout(MPI_Comm comm, const std::array<long long, kFields>& mine) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::vector<long long> all(std::size_t(ranks) * kFields);
  MPI_Allgather(mine.data(), kFields, MPI_LONG_LONG, all.data(), kFields, MPI_LONG_LONG, comm);
  return all;
}

// Where this rank's values of field f start, and the field's total length.
std::pair<long long, long long> offset_and_total(const std::vector<long long>& layout, int rank, int f) {
  long long offset = 0, total = 0;
  for (std::size_t r = 0; r < layout.size() / kFields; ++r) {
    if (int(r) < rank) offset += layout[r * kFields + f];
    total += layout[r * kFields + f];
  }
  return {offset, total};
}

std::vector<long long> range(long long first, long long count) {
  std::vector<long long> items(static_cast<std::size_t>(count));
  for (long long i = 0; i < count; ++i) items[std::size_t(i)] = first + i;
  return items;
}

}  // namespace

std::uint32_t checksum(std::uint32_t crc, const void* data, std::size_t bytes) {
  // zlib's crc32 takes at most UINT_MAX bytes a call.
  const auto* next = static_cast<const Bytef*>(data);
  uLong c = crc;
  while (bytes > 0) {
    const auto part = static_cast<uInt>(std::min<std::size_t>(bytes, std::size_t(1) << 30));
    c = crc32(c, next, part);
    next += part;
    bytes -= part;
  }
  return static_cast<std::uint32_t>(c);
}

std::uint32_t checksum(std::uint32_t crc, const std::vector<double>& values) {
  return checksum(crc, values.data(), values.size() * sizeof(double));
}

void write_checkpoint_file(const std::string& path, const assembly::Assembler& assembler,
                           const CheckpointHeader& header, const assembly::State& state,
                           const std::vector<double>& restart_data) {
  const MPI_Comm comm = raw_mpi_comm(*assembler.comm());
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const auto fields = fields_of(state, restart_data);
  std::array<long long, kFields> mine{};
  std::uint32_t crc = 0;
  for (int f = 0; f < kFields; ++f) {
    mine[std::size_t(f)] = static_cast<long long>(fields[std::size_t(f)]->size());
    crc = checksum(crc, *fields[std::size_t(f)]);
  }
  const std::vector<long long> layout = gather_layout(comm, mine);
  std::vector<long long> crcs(static_cast<std::size_t>(ranks));
  const long long my_crc = crc;
  MPI_Allgather(&my_crc, 1, MPI_LONG_LONG, crcs.data(), 1, MPI_LONG_LONG, comm);

  const std::string temporary = path + ".tmp";
  {
    io::ResultsFile file(comm, temporary);
    file.write_attribute("/", "format", kFormat);
    file.write_attribute("/", "version", kVersion);
    file.write_attribute("/", "run", header.run);
    file.write_attribute("/", "step", static_cast<double>(header.step));
    file.write_attribute("/", "time", header.time);
    file.write_attribute("/", "ranks", static_cast<double>(ranks));
    file.write_time(0, header.time);
    file.write_static_int64("/layout", layout, {ranks, kFields});
    file.write_static_int64("/checksum", crcs, {ranks});
    for (int f = 0; f < kFields; ++f) {
      const auto [offset, total] = offset_and_total(layout, rank, f);
      if (total == 0) continue;
      const int id = file.define_field(kNames[std::size_t(f)], total, 1, range(offset, mine[std::size_t(f)]));
      file.write(id, 0, fields[std::size_t(f)]->data());
    }
    file.close();
  }
  // Complete and closed on every rank: now it may carry the final name.
  MPI_Barrier(comm);
  int failed = 0;
  if (rank == 0) failed = std::rename(temporary.c_str(), path.c_str()) != 0;
  MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
  if (failed) throw OutputError(path + ": cannot rename the checkpoint from " + temporary);
}

double read_checkpoint_file(const std::string& path, const assembly::Assembler& assembler,
                            const CheckpointHeader& expected, assembly::State& state,
                            std::vector<double>& restart_data) {
  const MPI_Comm comm = raw_mpi_comm(*assembler.comm());
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // Every rank reads its own share with its own handle, so that no rank can be left waiting in a collective
  // read when another finds the file bad; the ranks agree on the verdict at the end.
  std::string problem;
  double time = 0.0;
  try {
    if (!std::filesystem::exists(path)) throw InputError(path, "", "checkpoint file missing");
    const io::ResultsReader file(path);
    auto text = [&](const char* name) { return file.read_string_attribute("/", name); };
    auto number = [&](const char* name) { return file.read_double_attribute("/", name); };
    if (text("format") != kFormat) throw InputError(path, "format", "not a flexadj checkpoint");
    if (number("version") != kVersion) {
      std::ostringstream m;
      m << "checkpoint format version " << number("version") << ", this flexadj reads version " << kVersion;
      throw InputError(path, "version", m.str());
    }
    if (text("run") != expected.run)
      throw InputError(path, "run",
                       "the checkpoint belongs to another run (model file, design values or integrator differ): '" +
                           text("run") + "', this run is '" + expected.run + "'");
    if (number("step") != static_cast<double>(expected.step))
      throw InputError(path, "step", "holds step " + std::to_string(static_cast<long long>(number("step"))) +
                                         ", expected step " + std::to_string(expected.step));
    if (number("ranks") != static_cast<double>(ranks))
      throw InputError(path, "ranks", "written by " + std::to_string(static_cast<long long>(number("ranks"))) +
                                          " ranks, this run has " + std::to_string(ranks));
    time = number("time");
    if (time != expected.time) {
      std::ostringstream m;
      m.precision(17);
      m << "holds time " << time << ", this run's step " << expected.step << " is at " << expected.time;
      throw InputError(path, "time", m.str());
    }
    std::vector<double> layout = file.read_all("/layout");
    if (layout.size() != std::size_t(ranks) * kFields) throw InputError(path, "/layout", "wrong size");
    auto fields = fields_of(state, restart_data);
    std::uint32_t crc = 0;
    for (int f = 0; f < kFields; ++f) {
      const std::size_t expected_length = f == kFields - 1 ? std::size_t(layout[std::size_t(rank) * kFields + f])
                                                           : fields[std::size_t(f)]->size();
      if (layout[std::size_t(rank) * kFields + f] != static_cast<double>(expected_length))
        throw InputError(path, kNames[std::size_t(f)],
                         "rank " + std::to_string(rank) + " holds " +
                             std::to_string(static_cast<long long>(layout[std::size_t(rank) * kFields + f])) +
                             " values, this run's partition has " + std::to_string(expected_length) +
                             " (another model or partition)");
      long long offset = 0;
      for (int r = 0; r < rank; ++r) offset += static_cast<long long>(layout[std::size_t(r) * kFields + f]);
      if (expected_length == 0) {
        fields[std::size_t(f)]->clear();
        continue;
      }
      *fields[std::size_t(f)] = file.read_step(kNames[std::size_t(f)], 0, range(offset, static_cast<long long>(expected_length)));
      crc = checksum(crc, *fields[std::size_t(f)]);
    }
    const std::vector<double> crcs = file.read_all("/checksum");
    if (crcs.size() != std::size_t(ranks) || crcs[std::size_t(rank)] != static_cast<double>(crc))
      throw InputError(path, "/checksum", "the values of rank " + std::to_string(rank) +
                                              " do not match their checksum: the file is corrupt");
  } catch (const std::exception& e) {
    problem = e.what();
    if (problem.empty()) problem = path + ": unreadable checkpoint";
  }
  // The first rank's reason, on all ranks.
  int bad = problem.empty() ? ranks : rank, first = ranks;
  MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == ranks) return time;
  int length = static_cast<int>(problem.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  problem.resize(std::size_t(length));
  MPI_Bcast(problem.data(), length, MPI_CHAR, first, comm);
  throw InputError("", "", problem + " (refused: a checkpoint that does not match is never used)");
}

}  // namespace flexadj::storage
