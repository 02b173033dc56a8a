// The HDF5 result writer (ResultsFile); the reader is hdf5_results_reader.cpp, what both use hdf5_support.hpp.
#include "flexadj/results/hdf5_results_file.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "flexadj/core/error.hpp"
#include "flexadj/results/hdf5_support.hpp"

namespace flexadj::results {
using namespace hdf5_support;
namespace {

constexpr hsize_t kMaxChunkBytes = 4u << 20;  // 4 MiB
constexpr hsize_t kTimeChunk = 512;

struct Field {
  std::string path;
  Handle dataset;
  hsize_t items = 0, comps = 1;
  int rank = 2;
  std::vector<std::pair<hsize_t, hsize_t>> runs;
  hsize_t local_values = 0;  // local items * components
  long long extent = 0;      // steps allocated
};

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// ResultsFile

namespace {
bool file_left_open = false;  // see results_file_left_open()
}  // namespace

bool results_file_left_open() { return file_left_open; }

struct ResultsFile::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  std::string path;
  Handle file, dxpl, lcpl, time;  // file first: destroyed last
  long long time_extent = 0, steps = 0;
  std::vector<Field> fields;
  bool failed = false;  // a collective write failed: the file is abandoned, never closed (see close())

  void require_open() const {
    if (!file.valid()) throw std::logic_error(path + ": results file is closed");
  }
  // The outcome of a collective HDF5 call, agreed by all ranks: a write can fail on one rank only (the disk fills
  // under its share), and a rank that stopped while the others went on to the next collective call would hang
  // them all. Every rank throws if any failed; the failing rank names HDF5's reason.
  template <class T>
  T agree(const Check& ck, T status, const char* what) {
    int local = status < 0 ? 1 : 0, any = 0;
    MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) failed = true;
    if (local) ck.fail(what);
    if (any)
      throw OutputError(path + ": " + ck.object + ": cannot " + what +
                        " (failed on another rank; is the disk full, or the file not writable?)");
    return status;
  }
  Handle create_dataset(const Check& ck, hid_t type, const std::vector<hsize_t>& dims,
                        const std::vector<hsize_t>& max_dims = {}, const std::vector<hsize_t>& chunk = {}) {
    Handle space = ck.handle(H5Screate_simple(int(dims.size()), dims.data(), max_dims.empty() ? nullptr : max_dims.data()),
                             H5Sclose, "create dataspace");
    Handle dcpl = ck.handle(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create dataset properties");
    if (!chunk.empty()) ck(H5Pset_chunk(dcpl.get(), int(chunk.size()), chunk.data()), "set chunking");
    const hid_t dataset =
        agree(ck, H5Dcreate2(file.get(), ck.object.c_str(), type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
              "create dataset");
    return Handle(dataset, H5Dclose);
  }
  // Writes a whole static dataset from rank 0 (others select nothing), collectively.
  void write_from_root(const Check& ck, hid_t dataset, hid_t type, hsize_t n, const void* data) {
    Handle file_space = ck.handle(H5Dget_space(dataset), H5Sclose, "get dataspace");
    if (rank != 0) ck(H5Sselect_none(file_space.get()), "select nothing");
    Handle mem_space = memory_space(ck, rank == 0 ? n : 0);
    static const char dummy[16] = {};
    agree(ck, H5Dwrite(dataset, type, mem_space.get(), file_space.get(), dxpl.get(), rank == 0 && n ? data : dummy),
          "write dataset");
  }
  // Grows a time series dataset to at least step + 1 steps (collective).
  void extend(const Check& ck, hid_t dataset, long long& extent, long long step, const std::vector<hsize_t>& row) {
    if (step < extent) return;
    std::vector<hsize_t> dims{hsize_t(step + 1)};
    dims.insert(dims.end(), row.begin(), row.end());
    agree(ck, H5Dset_extent(dataset, dims.data()), "extend dataset");
    extent = step + 1;
  }
};

ResultsFile::ResultsFile(MPI_Comm comm, const std::string& path) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.comm = comm;
  m.path = path;
  MPI_Comm_rank(comm, &m.rank);
  const Check ck{m.path, "/"};
  // Failures are reported by flexadj's own messages (with HDF5's innermost reason), not HDF5's printed stack.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Handle fapl = ck.handle(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create file access properties");
  ck(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), "select the MPI-IO driver");
  ck(H5Pset_coll_metadata_write(fapl.get(), true), "enable collective metadata writes");
  // The file format of HDF5 1.8 (superblock 2, object headers 2): its metadata carries checksums, so that a
  // damaged file is refused by HDF5 instead of misread (HDF5 1.10.8 reads past its buffers on some damaged object
  // headers of the older format). Not 1.10's format: its superblock marks a file open for writing, and the file of
  // a killed run could not be opened again.
  ck(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18), "select the file format");
  {
    QuietErrors quiet;
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
    if (file < 0)
      throw InputError(path, "", "cannot create the HDF5 results file (does the directory exist and is it writable?)" +
                                     hdf5_detail());
    m.file = Handle(file, H5Fclose);
  }
  m.dxpl = ck.handle(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "create transfer properties");
  ck(H5Pset_dxpl_mpio(m.dxpl.get(), H5FD_MPIO_COLLECTIVE), "select collective transfers");
  m.lcpl = ck.handle(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "create link properties");
  ck(H5Pset_create_intermediate_group(m.lcpl.get(), 1), "enable intermediate groups");
  m.time = m.create_dataset(Check{m.path, "/time"}, H5T_NATIVE_DOUBLE, {0}, {H5S_UNLIMITED}, {kTimeChunk});
}

ResultsFile::~ResultsFile() {
  try {
    if (impl_) close();
  } catch (...) {
  }
}

ResultsFile::ResultsFile(ResultsFile&&) noexcept = default;
ResultsFile& ResultsFile::operator=(ResultsFile&&) noexcept = default;

int ResultsFile::define_field(const std::string& path, long long global_items, int components,
                              const std::vector<long long>& local_items) {
  Impl& m = *impl_;
  m.require_open();
  const Check ck{m.path, absolute(path)};
  bool bad = global_items < 1 || components < 1;
  for (std::size_t i = 0; i < local_items.size() && !bad; ++i)
    bad = local_items[i] < 0 || local_items[i] >= global_items || (i > 0 && local_items[i] <= local_items[i - 1]);
  // Agree on validity and shape before any collective HDF5 call.
  long long local[5] = {global_items, -global_items, components, -components, bad}, all[5];
  MPI_Allreduce(local, all, 5, MPI_LONG_LONG, MPI_MAX, m.comm);
  if (all[4] || all[0] != -all[1] || all[2] != -all[3])
    throw std::invalid_argument(m.path + ", " + ck.object +
                                ": bad field definition (need global_items >= 1, components >= 1, the same on all "
                                "ranks, and strictly increasing local items in [0, global_items))");

  Field f;
  f.path = ck.object;
  f.items = hsize_t(global_items);
  f.comps = hsize_t(components);
  f.rank = components == 1 ? 2 : 3;
  f.runs = runs_of(local_items);
  f.local_values = local_items.size() * f.comps;
  const hsize_t chunk_items = std::clamp<hsize_t>(kMaxChunkBytes / (sizeof(double) * f.comps), 1, f.items);
  std::vector<hsize_t> dims{0, f.items}, max_dims{H5S_UNLIMITED, f.items}, chunk{1, chunk_items};
  if (f.rank == 3) {
    dims.push_back(f.comps);
    max_dims.push_back(f.comps);
    chunk.push_back(f.comps);
  }
  f.dataset = m.create_dataset(ck, H5T_NATIVE_DOUBLE, dims, max_dims, chunk);
  m.fields.push_back(std::move(f));
  return int(m.fields.size() - 1);
}

void ResultsFile::write_times(long long first_step, const std::vector<double>& times) {
  Impl& m = *impl_;
  m.require_open();
  const Check ck{m.path, "/time"};
  if (first_step < 0) throw std::invalid_argument(m.path + ", /time: negative step");
  if (times.empty()) return;
  const long long last = first_step + static_cast<long long>(times.size()) - 1;
  m.extend(ck, m.time.get(), m.time_extent, last, {});
  Handle file_space = ck.handle(H5Dget_space(m.time.get()), H5Sclose, "get dataspace");
  const hsize_t start = hsize_t(first_step), count = times.size();
  if (m.rank == 0)
    ck(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr), "select steps");
  else
    ck(H5Sselect_none(file_space.get()), "select nothing");
  Handle mem_space = memory_space(ck, m.rank == 0 ? count : 0);
  m.agree(ck, H5Dwrite(m.time.get(), H5T_NATIVE_DOUBLE, mem_space.get(), file_space.get(), m.dxpl.get(), times.data()),
     "write times");
  m.steps = std::max(m.steps, last + 1);
}

void ResultsFile::write_steps(int field, long long first_step, long long step_count, const double* data) {
  Impl& m = *impl_;
  m.require_open();
  if (field < 0 || std::size_t(field) >= m.fields.size())
    throw std::out_of_range(m.path + ": no field with id " + std::to_string(field));
  Field& f = m.fields[std::size_t(field)];
  const Check ck{m.path, f.path};
  if (first_step < 0 || step_count < 1) throw std::invalid_argument(m.path + ", " + f.path + ": bad step range");
  if (!data && f.local_values) throw std::invalid_argument(m.path + ", " + f.path + ": no data");
  std::vector<hsize_t> row{f.items};
  if (f.rank == 3) row.push_back(f.comps);
  const long long last = first_step + step_count - 1;
  m.extend(ck, f.dataset.get(), f.extent, last, row);
  Handle file_space = ck.handle(H5Dget_space(f.dataset.get()), H5Sclose, "get dataspace");
  select_rows(ck, file_space.get(), hsize_t(first_step), f.runs, f.comps, hsize_t(step_count));
  // Memory holds the steps one after the other, each in item-major order.
  Handle mem_space = memory_space(ck, f.local_values * hsize_t(step_count));
  const double dummy = 0;
  m.agree(ck, H5Dwrite(f.dataset.get(), H5T_NATIVE_DOUBLE, mem_space.get(), file_space.get(), m.dxpl.get(),
              f.local_values ? data : &dummy),
     "write steps");
  m.steps = std::max(m.steps, last + 1);
}

void ResultsFile::write(int field, long long step, const double* data) { write_steps(field, step, 1, data); }

void ResultsFile::write_time(long long step, double t) { write_times(step, std::vector<double>{t}); }

namespace {
// Opens the object at `path`, creating a group (with intermediate groups) if nothing exists there.
Handle open_or_create(const Check& ck, hid_t file, hid_t lcpl, const std::string& path) {
  if (!object_exists(ck, file, path))
    ck.handle(H5Gcreate2(file, path.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "create group");
  return ck.handle(H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose, "open object");
}

void write_scalar_attribute(const Check& ck, hid_t object, const std::string& name, hid_t type, const void* value) {
  if (ck(H5Aexists(object, name.c_str()), "look up attribute") > 0)
    ck(H5Adelete(object, name.c_str()), "replace attribute");
  Handle space = ck.handle(H5Screate(H5S_SCALAR), H5Sclose, "create dataspace");
  Handle attribute = ck.handle(H5Acreate2(object, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                               H5Aclose, "create attribute");
  ck(H5Awrite(attribute.get(), type, value), "write attribute");
}
}  // namespace

void ResultsFile::write_attribute(const std::string& object_path, const std::string& name, const std::string& value) {
  Impl& m = *impl_;
  m.require_open();
  const Check ck{m.path, absolute(object_path) + " attribute " + name};
  Handle object = open_or_create(ck, m.file.get(), m.lcpl.get(), absolute(object_path));
  Handle type = fixed_string_type(ck, value.size());
  write_scalar_attribute(ck, object.get(), name, type.get(), value.c_str());
}

void ResultsFile::write_attribute(const std::string& object_path, const std::string& name, double value) {
  Impl& m = *impl_;
  m.require_open();
  const Check ck{m.path, absolute(object_path) + " attribute " + name};
  Handle object = open_or_create(ck, m.file.get(), m.lcpl.get(), absolute(object_path));
  write_scalar_attribute(ck, object.get(), name, H5T_NATIVE_DOUBLE, &value);
}

namespace {
std::vector<hsize_t> checked_dims(const std::string& file, const std::string& path, const std::vector<long long>& dims,
                                  std::size_t size) {
  std::vector<hsize_t> out;
  hsize_t product = 1;
  for (long long d : dims) {
    if (d < 0) throw std::invalid_argument(file + ", " + path + ": negative dimension");
    out.push_back(hsize_t(d));
    product *= hsize_t(d);
  }
  if (dims.empty() || product != size)
    throw std::invalid_argument(file + ", " + path + ": dims do not match the number of values");
  return out;
}
}  // namespace

void ResultsFile::write_static(const std::string& path, const std::vector<double>& data,
                               const std::vector<long long>& dims) {
  Impl& m = *impl_;
  m.require_open();
  const Check ck{m.path, absolute(path)};
  Handle dataset = m.create_dataset(ck, H5T_NATIVE_DOUBLE, checked_dims(m.path, ck.object, dims, data.size()));
  m.write_from_root(ck, dataset.get(), H5T_NATIVE_DOUBLE, data.size(), data.data());
}

void ResultsFile::write_static_int64(const std::string& path, const std::vector<long long>& data,
                                     const std::vector<long long>& dims) {
  Impl& m = *impl_;
  m.require_open();
  const Check ck{m.path, absolute(path)};
  Handle dataset = m.create_dataset(ck, H5T_STD_I64LE, checked_dims(m.path, ck.object, dims, data.size()));
  m.write_from_root(ck, dataset.get(), H5T_NATIVE_LLONG, data.size(), data.data());
}

void ResultsFile::write_strings(const std::string& path, const std::vector<std::string>& values) {
  Impl& m = *impl_;
  m.require_open();
  const Check ck{m.path, absolute(path)};
  std::size_t length = 0;
  for (const auto& v : values) length = std::max(length, v.size());
  Handle type = fixed_string_type(ck, length);
  std::vector<char> buffer(values.size() * (length + 1), '\0');
  for (std::size_t i = 0; i < values.size(); ++i) std::memcpy(&buffer[i * (length + 1)], values[i].data(), values[i].size());
  Handle dataset = m.create_dataset(ck, type.get(), {hsize_t(values.size())});
  m.write_from_root(ck, dataset.get(), type.get(), values.size(), buffer.data());
}

void ResultsFile::flush() {
  Impl& m = *impl_;
  m.require_open();
  m.agree(Check{m.path, "/"}, H5Fflush(m.file.get(), H5F_SCOPE_GLOBAL), "flush file");
}

void ResultsFile::close() {
  Impl& m = *impl_;
  if (!m.file.valid()) return;
  if (m.failed) {
    // After a failed write HDF5 1.10's close is neither safe nor collective (it hangs at np 2 and crashes when MPI
    // finalizes): abandon the file and its objects; the program ends without finalizing (results_file_left_open).
    for (Field& field : m.fields) field.dataset.abandon();
    m.fields.clear();
    for (Handle* handle : {&m.time, &m.dxpl, &m.lcpl, &m.file}) handle->abandon();
    file_left_open = true;
    return;
  }
  m.fields.clear();  // datasets and property lists first: the MPI-IO driver refuses to close with open objects
  m.time.close();
  m.dxpl.close();
  m.lcpl.close();
  const herr_t status = m.file.close();
  int local = status < 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, m.comm);
  if (any) {
    // HDF5 1.10 keeps a file whose close failed (disk full) half-destroyed and crashes on it when MPI finalizes.
    file_left_open = true;
    throw OutputError(m.path + ": cannot close the file" + (local ? hdf5_detail() : std::string()) +
                      " (is the disk full, or the file not writable?)");
  }
}

bool ResultsFile::is_open() const { return impl_->file.valid(); }
long long ResultsFile::steps_written() const { return impl_->steps; }
const std::string& ResultsFile::path() const { return impl_->path; }

}  // namespace flexadj::results
