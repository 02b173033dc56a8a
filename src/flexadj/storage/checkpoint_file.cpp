#include "flexadj/storage/checkpoint_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "flexadj/core/checksum.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/core/run_identity.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/results/hdf5_results_file.hpp"
#include "flexadj/core/renamed_output.hpp"

namespace flexadj::storage {
namespace {

constexpr const char* kFormat = "flexadj checkpoint";
constexpr double kVersion = 1.0;

std::vector<long long> range(long long first, long long count) {
  std::vector<long long> items(static_cast<std::size_t>(count));
  for (long long i = 0; i < count; ++i) items[std::size_t(i)] = first + i;
  return items;
}

std::string dataset(const std::string& name) { return "/" + name; }

// A number read from a file, for a message (it may be anything).
std::string shown(double x) {
  std::ostringstream text;
  text.precision(17);
  text << x;
  return text.str();
}

std::vector<CheckpointField> state_fields(const assembly::State& s, const std::vector<double>& restart) {
  return {{"q", &s.q}, {"v", &s.v}, {"a", &s.a}, {"aux", &s.aux}, {"lambda", &s.lambda}, {"restart", &restart}};
}

// The state's fields have the partition's lengths (make_state()); the restart data any.
std::vector<CheckpointTarget> state_targets(assembly::State& s, std::vector<double>& restart) {
  auto length = [](const std::vector<double>& v) { return static_cast<long long>(v.size()); };
  return {{"q", &s.q, length(s.q)},       {"v", &s.v, length(s.v)},
          {"a", &s.a, length(s.a)},       {"aux", &s.aux, length(s.aux)},
          {"lambda", &s.lambda, length(s.lambda)}, {"restart", &restart, -1}};
}

}  // namespace

void write_checkpoint_fields(const std::string& path, MPI_Comm comm, const CheckpointHeader& header,
                             const std::vector<CheckpointField>& fields) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const auto count = static_cast<int>(fields.size());
  std::vector<long long> mine(fields.size());
  std::vector<std::string> names;
  std::uint32_t crc = 0;
  for (std::size_t f = 0; f < fields.size(); ++f) {
    mine[f] = static_cast<long long>(fields[f].values->size());
    names.push_back(fields[f].name);
    crc = checksum(crc, *fields[f].values);
  }
  std::vector<long long> layout(static_cast<std::size_t>(ranks) * fields.size()), crcs(static_cast<std::size_t>(ranks));
  MPI_Allgather(mine.data(), count, MPI_LONG_LONG, layout.data(), count, MPI_LONG_LONG, comm);
  const long long my_crc = crc;
  MPI_Allgather(&my_crc, 1, MPI_LONG_LONG, crcs.data(), 1, MPI_LONG_LONG, comm);

  RenamedOutput renamed(path, comm);
  {
    results::ResultsFile file(comm, renamed.temporary());
    file.write_attribute("/", "format", kFormat);
    file.write_attribute("/", "version", kVersion);
    file.write_attribute("/", "kind", header.kind);
    file.write_attribute("/", "run", header.run);
    file.write_attribute("/", "step", static_cast<double>(header.step));
    file.write_attribute("/", "time", header.time);
    file.write_attribute("/", "ranks", static_cast<double>(ranks));
    file.write_time(0, header.time);
    file.write_strings("/fields", names);
    file.write_static_int64("/layout", layout, {ranks, count});
    file.write_static_int64("/checksum", crcs, {ranks});
    for (std::size_t f = 0; f < fields.size(); ++f) {
      long long offset = 0, total = 0;
      for (int r = 0; r < ranks; ++r) {
        const long long length = layout[std::size_t(r) * fields.size() + f];
        if (r < rank) offset += length;
        total += length;
      }
      if (total == 0) continue;
      const int id = file.define_field(dataset(fields[f].name), total, 1, range(offset, mine[f]));
      file.write(id, 0, fields[f].values->data());
    }
    file.close();
  }
  renamed.commit();  // complete and closed on every rank: now it may carry the final name
}

void read_checkpoint_fields(const std::string& path, MPI_Comm comm, const CheckpointHeader& expected,
                            const std::vector<CheckpointTarget>& fields) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // Every rank reads its own share with its own handle, so that no rank can be left waiting in a collective
  // read when another finds the file bad; the ranks agree on the verdict at the end.
  std::string problem;
  try {
    if (!std::filesystem::exists(path)) throw InputError(path, "", "checkpoint file missing");
    const results::ResultsReader file(path);
    auto text = [&](const char* name) { return file.read_string_attribute("/", name); };
    auto number = [&](const char* name) { return file.read_double_attribute("/", name); };
    if (text("format") != kFormat) throw InputError(path, "format", "not a flexadj checkpoint");
    if (number("version") != kVersion) {
      std::ostringstream m;
      m << "checkpoint format version " << number("version") << ", this flexadj reads version " << kVersion;
      throw InputError(path, "version", m.str());
    }
    if (text("kind") != expected.kind)
      throw InputError(path, "kind", "holds a checkpoint of kind '" + text("kind") + "', expected '" + expected.kind +
                                         "'");
    if (text("run") != expected.run)
      throw InputError(path, "run",
                       "the checkpoint belongs to another run: " + run_identity_difference(text("run"), expected.run));
    if (number("step") != static_cast<double>(expected.step))
      throw InputError(path, "step", "holds step " + shown(number("step")) + ", expected step " +
                                         std::to_string(expected.step));
    if (number("ranks") != static_cast<double>(ranks))
      throw InputError(path, "ranks", "written by " + shown(number("ranks")) + " ranks, this run has " +
                                          std::to_string(ranks));
    if (number("time") != expected.time) {
      std::ostringstream m;
      m.precision(17);
      m << "holds time " << number("time") << ", this run's step " << expected.step << " is at " << expected.time;
      throw InputError(path, "time", m.str());
    }
    std::vector<std::string> expected_names;
    for (const auto& f : fields) expected_names.push_back(f.name);
    if (file.read_strings("/fields") != expected_names)
      throw InputError(path, "/fields", "holds other fields than a checkpoint of kind '" + expected.kind + "'");
    const std::vector<double> layout = file.read_all("/layout");
    if (layout.size() != std::size_t(ranks) * fields.size()) throw InputError(path, "/layout", "wrong size");
    std::uint32_t crc = 0;
    for (double n : layout)
      if (!(n >= 0.0 && n <= 9007199254740992.0 && n == std::floor(n)))
        throw InputError(path, "/layout", "expected counts of values (whole numbers >= 0), got " + shown(n));
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const auto length = static_cast<long long>(layout[std::size_t(rank) * fields.size() + f]);
      if (fields[f].expected_length >= 0 && length != fields[f].expected_length)
        throw InputError(path, dataset(fields[f].name),
                         "rank " + std::to_string(rank) + " holds " + std::to_string(length) +
                             " values, this run's partition has " + std::to_string(fields[f].expected_length) +
                             " (another model or partition)");
      long long offset = 0;
      for (int r = 0; r < rank; ++r) offset += static_cast<long long>(layout[std::size_t(r) * fields.size() + f]);
      if (length == 0) {
        fields[f].values->clear();
      } else {
        const std::vector<long long> stored = file.dims(dataset(fields[f].name));
        if (stored.size() != 2 || stored[0] != 1 || offset + length > stored[1])
          throw InputError(path, dataset(fields[f].name), "holds fewer values than its layout says (truncated?)");
        *fields[f].values = file.read_step(dataset(fields[f].name), 0, range(offset, length));
      }
      crc = checksum(crc, *fields[f].values);
    }
    const std::vector<double> crcs = file.read_all("/checksum");
    if (crcs.size() != std::size_t(ranks) || crcs[std::size_t(rank)] != static_cast<double>(crc))
      throw InputError(path, "/checksum", "the values of rank " + std::to_string(rank) +
                                              " do not match their checksum: the file is corrupt");
  } catch (const std::exception& e) {
    problem = e.what();
    if (problem.empty()) problem = path + ": unreadable checkpoint";
  }
  // The first failing rank's reason, on all ranks.
  int bad = problem.empty() ? ranks : rank, first = ranks;
  MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == ranks) return;
  int length = static_cast<int>(problem.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  problem.resize(std::size_t(length));
  MPI_Bcast(problem.data(), length, MPI_CHAR, first, comm);
  throw InputError("", "", problem + " (refused: a checkpoint that does not match is never used)");
}

void write_checkpoint_file(const std::string& path, const assembly::Assembler& assembler,
                           const CheckpointHeader& header, const assembly::State& state,
                           const std::vector<double>& restart_data) {
  write_checkpoint_fields(path, raw_mpi_comm(*assembler.comm()), header, state_fields(state, restart_data));
}

double read_checkpoint_file(const std::string& path, const assembly::Assembler& assembler,
                            const CheckpointHeader& expected, assembly::State& state,
                            std::vector<double>& restart_data) {
  read_checkpoint_fields(path, raw_mpi_comm(*assembler.comm()), expected, state_targets(state, restart_data));
  return expected.time;
}

}  // namespace flexadj::storage
