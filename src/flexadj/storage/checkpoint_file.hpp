#pragma once
// One checkpoint on disk: named fields of values on every rank (the state at one step and the integrator's restart
// data; or the backward sweep's adjoint variables) in an HDF5 file written collectively (each rank its hyperslab
// of each dataset). Layout (format version 1):
//   attributes on "/": format = "flexadj checkpoint", version, kind (e.g. "state"), run (the run's identity:
//     model, design values, time grid, ranks), step, time, ranks
//   /fields [F]: the field names
//   /layout [ranks, F]: per rank the lengths of the F fields
//   /<field> [1, sum over ranks]: the ranks' values one after the other (absent if its total length is 0)
//   /checksum [ranks]: per rank the CRC-32 (zlib) of its values, all fields in order
// The file is written under the name + ".tmp" and renamed when complete and closed, so a killed run never leaves a
// file under the final name that is not whole. Reading checks all of the above, on every rank, and refuses a
// file that does not match (InputError naming the file and what differs): never a wrong state.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"

namespace flexadj::storage {

struct CheckpointHeader {
  std::string run;  // the identity of the run the checkpoint belongs to
  long long step = 0;
  double time = 0.0;
  std::string kind = "state";  // what the fields are
};

// A field of a checkpoint to write: its name and this rank's values.
struct CheckpointField {
  std::string name;
  const std::vector<double>* values;
};
// A field to read: its name, where this rank's values go, and the length this rank must find there (the
// partition's), or -1 for any (the vector is resized).
struct CheckpointTarget {
  std::string name;
  std::vector<double>* values;
  long long expected_length = -1;
};

// Collective over `comm`. OutputError if the file cannot be written.
void write_checkpoint_fields(const std::string& path, MPI_Comm comm, const CheckpointHeader& header,
                             const std::vector<CheckpointField>& fields);
// Collective. Reads the fields (same names, same order) of the checkpoint `expected` (run, step, time, kind).
// InputError on every rank, naming the file, if it is missing, not a checkpoint, of another run, kind, step, time,
// rank count or field layout, truncated, or fails its checksum.
void read_checkpoint_fields(const std::string& path, MPI_Comm comm, const CheckpointHeader& expected,
                            const std::vector<CheckpointTarget>& fields);

// Collective over the assembler's communicator. OutputError if the file cannot be written.
void write_checkpoint_file(const std::string& path, const assembly::Assembler& assembler,
                           const CheckpointHeader& header, const assembly::State& state,
                           const std::vector<double>& restart_data);

// Collective. Reads the checkpoint of step `expected.step` of run `expected.run` into `state` and `restart_data`
// (resized). InputError on every rank, naming the file, if it is missing, not a checkpoint, of another run, step,
// time or rank layout, truncated, or fails its checksum. Returns the time.
double read_checkpoint_file(const std::string& path, const assembly::Assembler& assembler,
                            const CheckpointHeader& expected, assembly::State& state, std::vector<double>& restart_data);

}  // namespace flexadj::storage
