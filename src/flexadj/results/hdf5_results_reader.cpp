// The HDF5 result reader (ResultsReader): each read checks the storage first (core/hdf5_storage.hpp).
#include "flexadj/results/hdf5_results_file.hpp"

#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "flexadj/core/error.hpp"
#include "flexadj/core/hdf5_storage.hpp"
#include "flexadj/results/hdf5_support.hpp"

namespace flexadj::results {
using namespace hdf5_support;

// ---------------------------------------------------------------------------------------------------------
// ResultsReader

struct ResultsReader::Impl {
  std::string path;
  Handle file, dxpl;
  mutable std::set<std::string> indexes_checked;  // datasets whose chunk index was walked
  // Datasets read step by step stay open, so that HDF5's chunk cache keeps the chunk of the steps around the one
  // read (a sweep reads the steps in turn; reopening would read and check a whole chunk per step).
  mutable std::map<std::string, Handle> stepped_datasets;

  hid_t stepped_dataset(const Check& ck) const {
    auto found = stepped_datasets.find(ck.object);
    if (found == stepped_datasets.end()) found = stepped_datasets.emplace(ck.object, open_dataset(ck)).first;
    return found->second.get();
  }

  Handle open_dataset(const Check& ck) const {
    if (!object_exists(ck, file.get(), ck.object)) throw InputError(path, ck.object, "no such dataset");
    return ck.handle(H5Dopen2(file.get(), ck.object.c_str(), H5P_DEFAULT), H5Dclose, "open dataset");
  }
  static std::vector<hsize_t> extent(const Check& ck, hid_t dataset) {
    Handle space = ck.handle(H5Dget_space(dataset), H5Sclose, "get dataspace");
    std::vector<hsize_t> dims(std::size_t(ck(H5Sget_simple_extent_ndims(space.get()), "query rank")));
    ck(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "query dimensions");
    return dims;
  }
  Handle open_attribute(const Check& ck, const std::string& object, const std::string& name) const {
    if (!object_exists(ck, file.get(), object) ||
        ck(H5Aexists_by_name(file.get(), object.c_str(), name.c_str(), H5P_DEFAULT), "look up attribute") <= 0)
      throw InputError(path, object + "@" + name, "no such attribute");
    return ck.handle(H5Aopen_by_name(file.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                     "open attribute");
  }
};

ResultsReader::ResultsReader(const std::string& path, MPI_Comm comm) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path, "", "results file does not exist");
  const Check ck{m.path, "/", true};
  int size = 1;
  MPI_Comm_size(comm, &size);
  Handle fapl = ck.handle(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create file access properties");
  m.dxpl = ck.handle(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "create transfer properties");
  if (size > 1) {
    ck(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), "select the MPI-IO driver");
    ck(H5Pset_dxpl_mpio(m.dxpl.get(), H5FD_MPIO_COLLECTIVE), "select collective transfers");
  }
  QuietErrors quiet;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (file < 0) throw InputError(path, "", "cannot open as an HDF5 file" + hdf5_detail());
  m.file = Handle(file, H5Fclose);
  // Only files with checksummed metadata, as flexadj writes them, are parsed further.
  H5F_info2_t info{};
  ck(H5Fget_info2(file, &info), "query the superblock");
  if (info.super.version < 2)
    throw InputError(path, "", "an HDF5 file without metadata checksums (superblock version " +
                                   std::to_string(info.super.version) +
                                   "): not written by this flexadj, which writes version 2 or later");
}

ResultsReader ResultsReader::open(const std::string& path, MPI_Comm comm) { return ResultsReader(path, comm); }
ResultsReader::~ResultsReader() = default;
ResultsReader::ResultsReader(ResultsReader&&) noexcept = default;
ResultsReader& ResultsReader::operator=(ResultsReader&&) noexcept = default;

bool ResultsReader::exists(const std::string& object_path) const {
  return object_exists(Check{impl_->path, absolute(object_path), true}, impl_->file.get(), absolute(object_path));
}

std::vector<long long> ResultsReader::dims(const std::string& dataset) const {
  const Check ck{impl_->path, absolute(dataset), true};
  Handle d = impl_->open_dataset(ck);
  const auto dims = Impl::extent(ck, d.get());
  return {dims.begin(), dims.end()};
}

std::vector<double> ResultsReader::read_all(const std::string& dataset) const {
  const Check ck{impl_->path, absolute(dataset), true};
  Handle d = impl_->open_dataset(ck);
  const auto dims = Impl::extent(ck, d.get());
  check_storage(ck, impl_->file.get(), d.get(), dims, 0, dims.empty() ? 0 : dims[0] - 1, impl_->indexes_checked);
  hsize_t n = 1;
  for (hsize_t e : dims) n *= e;
  std::vector<double> out(std::max<hsize_t>(n, 1));
  ck(H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, impl_->dxpl.get(), out.data()), "read dataset");
  out.resize(n);
  return out;
}

std::vector<double> ResultsReader::read_step(const std::string& dataset, long long step,
                                             const std::vector<long long>& items, bool check_chunk) const {
  const Check ck{impl_->path, absolute(dataset), true};
  const hid_t d = impl_->stepped_dataset(ck);
  const auto dims = Impl::extent(ck, d);
  if (dims.size() != 2 && dims.size() != 3)
    throw InputError(impl_->path, ck.object, "not a time series (rank must be 2 or 3)");
  const hsize_t comps = dims.size() == 3 ? dims[2] : 1;
  if (step < 0 || hsize_t(step) >= dims[0])
    throw std::out_of_range(impl_->path + ", " + ck.object + ": step " + std::to_string(step) + " not stored");
  std::vector<long long> unique = items;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  if (!unique.empty() && (unique.front() < 0 || hsize_t(unique.back()) >= dims[1]))
    throw std::out_of_range(impl_->path + ", " + ck.object + ": item index out of range");

  if (check_chunk)
    check_storage(ck, impl_->file.get(), d, dims, hsize_t(step), hsize_t(step), impl_->indexes_checked);
  else
    check_index(ck, impl_->file.get(), d, dims, impl_->indexes_checked);
  Handle file_space = ck.handle(H5Dget_space(d), H5Sclose, "get dataspace");
  select_rows(ck, file_space.get(), hsize_t(step), runs_of(unique), comps);
  Handle mem_space = memory_space(ck, unique.size() * comps);
  std::vector<double> rows(std::max<std::size_t>(unique.size() * comps, 1));
  ck(H5Dread(d, H5T_NATIVE_DOUBLE, mem_space.get(), file_space.get(), impl_->dxpl.get(), rows.data()),
     "read step");
  std::vector<double> out;
  out.reserve(items.size() * comps);
  for (long long item : items) {
    const auto row = std::size_t(std::lower_bound(unique.begin(), unique.end(), item) - unique.begin());
    out.insert(out.end(), rows.begin() + long(row * comps), rows.begin() + long((row + 1) * comps));
  }
  return out;
}

std::vector<std::string> ResultsReader::read_strings(const std::string& dataset) const {
  const Check ck{impl_->path, absolute(dataset), true};
  Handle d = impl_->open_dataset(ck);
  const auto dims = Impl::extent(ck, d.get());
  check_storage(ck, impl_->file.get(), d.get(), dims, 0, dims.empty() ? 0 : dims[0] - 1, impl_->indexes_checked);
  hsize_t n = 1;
  for (hsize_t e : dims) n *= e;
  Handle type = ck.handle(H5Dget_type(d.get()), H5Tclose, "get type");
  return read_string_values(ck, type.get(), n, [&](hid_t mem_type, void* buffer) {
    return H5Dread(d.get(), mem_type, H5S_ALL, H5S_ALL, impl_->dxpl.get(), buffer);
  });
}

std::string ResultsReader::read_string_attribute(const std::string& object_path, const std::string& name) const {
  const Check ck{impl_->path, absolute(object_path) + " attribute " + name, true};
  Handle a = impl_->open_attribute(ck, absolute(object_path), name);
  Handle space = ck.handle(H5Aget_space(a.get()), H5Sclose, "get dataspace");
  if (ck(H5Sget_simple_extent_npoints(space.get()), "query size") != 1) ck.fail("read attribute: not a single value");
  Handle type = ck.handle(H5Aget_type(a.get()), H5Tclose, "get type");
  return read_string_values(ck, type.get(), 1, [&](hid_t mem_type, void* buffer) {
    return H5Aread(a.get(), mem_type, buffer);
  })[0];
}

double ResultsReader::read_double_attribute(const std::string& object_path, const std::string& name) const {
  const Check ck{impl_->path, absolute(object_path) + " attribute " + name, true};
  Handle a = impl_->open_attribute(ck, absolute(object_path), name);
  Handle space = ck.handle(H5Aget_space(a.get()), H5Sclose, "get dataspace");
  if (ck(H5Sget_simple_extent_npoints(space.get()), "query size") != 1) ck.fail("read attribute: not a single value");
  double value = 0;
  ck(H5Aread(a.get(), H5T_NATIVE_DOUBLE, &value), "read attribute");
  return value;
}

std::vector<double> ResultsReader::times() const { return read_all("/time"); }
long long ResultsReader::steps() const { return dims("/time").at(0); }
const std::string& ResultsReader::path() const { return impl_->path; }

}  // namespace flexadj::results
