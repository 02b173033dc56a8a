#pragma once
// Parallel HDF5 result files: one file per run, written collectively by all ranks (MPI-IO), and read back
// by any number of ranks. Layout:
//   /time                      [steps]                        time value of every step
//   /<group>/<field>           [steps, items(, components)]   time series, extensible in steps, 1 step/chunk
//   static datasets, string lists and attributes anywhere (intermediate groups are created on demand).
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

namespace flexadj::results {

// True once closing a results file failed on some rank (disk full): HDF5 1.10 then holds a half-destroyed file and
// crashes on it when MPI finalizes, so the program must end without finalizing (std::_Exit after its message).
bool results_file_left_open();

// Write failures (disk full, no permission) throw flexadj::OutputError on every rank of the file's communicator
// (the ranks agree after each collective write, so none is left waiting in the next one).
class ResultsFile {
 public:
  // Collective. Creates or truncates `path`; InputError if it cannot be created (missing directory, ...).
  ResultsFile(MPI_Comm comm, const std::string& path);
  ~ResultsFile();  // closes; errors are swallowed (call close() to see them)
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;
  ResultsFile(ResultsFile&&) noexcept;
  ResultsFile& operator=(ResultsFile&&) noexcept;

  // Collective. Defines dataset `path` of shape [steps, global_items, components] (components == 1:
  // [steps, global_items]); `local_items` are the strictly increasing global item indices this rank writes
  // (may be empty; need not be contiguous). Checked on all ranks: std::invalid_argument everywhere if any
  // rank passes bad items or the ranks disagree on global_items/components. Returns the field id.
  int define_field(const std::string& path, long long global_items, int components,
                   const std::vector<long long>& local_items);

  // Collective. Writes /time[step] = t (the value of rank 0 is stored).
  void write_time(long long step, double t);
  // Collective. Writes this rank's rows of one step: local_items.size() * components doubles, item-major.
  // Steps may be written in any order; the dataset grows to step + 1 as needed.
  void write(int field, long long step, const double* data);
  // Block writes of consecutive steps (one collective call): times[k] is step first_step + k; data holds
  // step_count steps one after the other, each local_items.size()*components values in item-major order.
  void write_times(long long first_step, const std::vector<double>& times);
  void write_steps(int field, long long first_step, long long step_count, const double* data);

  // Collective; values must be identical on all ranks. A missing object is created as a group.
  // An existing attribute of the same name is replaced. object_path "/" is the root group.
  void write_attribute(const std::string& object_path, const std::string& name, const std::string& value);
  void write_attribute(const std::string& object_path, const std::string& name, double value);
  // Collective; data identical on all ranks (rank 0's copy is written). dims: row-major shape,
  // product(dims) == data.size().
  void write_static(const std::string& path, const std::vector<double>& data, const std::vector<long long>& dims);
  void write_static_int64(const std::string& path, const std::vector<long long>& data,
                          const std::vector<long long>& dims);  // e.g. polyline connectivity [segments, 2]
  // Collective; 1-D dataset of fixed-length, NUL-terminated UTF-8 strings.
  void write_strings(const std::string& path, const std::vector<std::string>& values);

  void flush();  // collective
  void close();  // collective; idempotent; throws std::runtime_error if HDF5 fails to close the file
  bool is_open() const;

  long long steps_written() const;  // 1 + the largest step given to write_time() or write()
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads a results file (or any HDF5 file). With comm == MPI_COMM_SELF (default) every rank reads on its own;
// with a larger communicator the file is opened with MPI-IO and every call is collective over comm.
class ResultsReader {
 public:
  // InputError if the file does not exist or is not an HDF5 file.
  explicit ResultsReader(const std::string& path, MPI_Comm comm = MPI_COMM_SELF);
  static ResultsReader open(const std::string& path, MPI_Comm comm = MPI_COMM_SELF);
  ~ResultsReader();
  ResultsReader(ResultsReader&&) noexcept;
  ResultsReader& operator=(ResultsReader&&) noexcept;

  bool exists(const std::string& object_path) const;  // group or dataset
  // Reading a missing dataset or attribute gives an InputError (file = path(), key = the object).
  std::vector<long long> dims(const std::string& dataset) const;
  std::vector<double> read_all(const std::string& dataset) const;  // row-major, converted to double
  // Rows `items` (any order, repeats allowed) of one step of a [steps, items(, components)] dataset:
  // items.size() * components values, item-major in the order given. `check_chunk`: the step's chunk record is
  // checked against the file before it is read (HDF5 1.10 finds a record by a pass over the index, so that a
  // sweep over N steps costs O(N^2) lookups); without it only the index, once per dataset.
  std::vector<double> read_step(const std::string& dataset, long long step, const std::vector<long long>& items,
                                bool check_chunk = true) const;
  std::vector<std::string> read_strings(const std::string& dataset) const;  // fixed- or variable-length
  std::string read_string_attribute(const std::string& object_path, const std::string& name) const;
  double read_double_attribute(const std::string& object_path, const std::string& name) const;
  std::vector<double> times() const;  // /time
  long long steps() const;            // length of /time
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flexadj::results
