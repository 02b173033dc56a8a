#pragma once
// What the HDF5 result writer (hdf5_results_file.cpp) and reader (hdf5_results_reader.cpp) share: identifiers that
// close themselves, return-code checks that name the file and the object, row selections, string reads. Internal
// to the io library: include only from those two files.
#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/core/hdf5_storage.hpp"

namespace flexadj::results::hdf5_support {

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      close();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      close_ = o.close_;
    }
    return *this;
  }
  ~Handle() { close(); }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  herr_t close() { return id_ >= 0 ? close_(std::exchange(id_, H5I_INVALID_HID)) : 0; }
  // Forgets the identifier without closing it (a file HDF5 can no longer close safely).
  void abandon() { id_ = H5I_INVALID_HID; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

// The innermost message on the HDF5 error stack (empty if none).
inline std::string hdf5_detail() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD,
           [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
             if (e->desc && *e->desc) *static_cast<std::string*>(out) = e->desc;
             return 0;
           },
           &text);
  return text.empty() ? text : " (" + text + ")";
}

// Turns off HDF5's error printing where a failure is expected and reported by us.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// Checks HDF5 return codes; failures name the file and the object: an OutputError when writing, an InputError
// when reading (a damaged or foreign file).
struct Check {
  const std::string& file;
  std::string object;
  bool reading = false;
  [[noreturn]] void fail(const std::string& what) const {
    if (reading)
      throw InputError(file, object, "cannot " + what + hdf5_detail() + " (a damaged file, or not one flexadj wrote)");
    throw OutputError(file + ": " + object + ": cannot " + what + hdf5_detail() +
                      " (is the disk full, or the file not writable?)");
  }
  template <class T>
  T operator()(T status, const char* what) const {
    if (status < 0) fail(what);
    return status;
  }
  Handle handle(hid_t id, Handle::Closer close, const char* what) const { return Handle((*this)(id, what), close); }
};

inline std::string absolute(const std::string& path) { return !path.empty() && path[0] == '/' ? path : "/" + path; }

// Contiguous runs (first, count) of strictly increasing indices.
inline std::vector<std::pair<hsize_t, hsize_t>> runs_of(const std::vector<long long>& items) {
  std::vector<std::pair<hsize_t, hsize_t>> runs;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0 && items[i] == items[i - 1] + 1)
      ++runs.back().second;
    else
      runs.emplace_back(hsize_t(items[i]), 1);
  }
  return runs;
}

// Selects rows `runs` of one step in a file space of rank 2 ([steps, items]) or 3 ([steps, items, comps]).
inline void select_rows(const Check& ck, hid_t space, hsize_t step,
                 const std::vector<std::pair<hsize_t, hsize_t>>& runs, hsize_t comps, hsize_t steps = 1) {
  if (runs.empty()) {
    ck(H5Sselect_none(space), "select nothing");
    return;
  }
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const hsize_t start[3] = {step, runs[r].first, 0}, count[3] = {steps, runs[r].second, comps};
    ck(H5Sselect_hyperslab(space, r == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start, nullptr, count, nullptr),
       "select rows");
  }
}

// A 1-D memory space of n elements (selection none if n == 0).
inline Handle memory_space(const Check& ck, hsize_t n) {
  const hsize_t dim = std::max<hsize_t>(n, 1);
  Handle space = ck.handle(H5Screate_simple(1, &dim, nullptr), H5Sclose, "create memory space");
  if (n == 0) ck(H5Sselect_none(space.get()), "select nothing");
  return space;
}

inline Handle fixed_string_type(const Check& ck, std::size_t length) {
  Handle type = ck.handle(H5Tcopy(H5T_C_S1), H5Tclose, "create string type");
  ck(H5Tset_size(type.get(), length + 1), "set string size");
  ck(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "set string padding");
  ck(H5Tset_cset(type.get(), H5T_CSET_UTF8), "set string encoding");
  return type;
}

// Whether an object exists at an absolute path (every link on the way must exist and lead to a group).
inline bool object_exists(const Check& ck, hid_t file, const std::string& path) {
  if (path == "/") return true;
  for (std::size_t pos = path.find('/', 1);; pos = path.find('/', pos + 1)) {
    const std::string prefix = path.substr(0, pos);
    if (ck(H5Lexists(file, prefix.c_str(), H5P_DEFAULT), "look up link") <= 0) return false;
    if (ck(H5Oexists_by_name(file, prefix.c_str(), H5P_DEFAULT), "look up object") <= 0) return false;
    if (pos == std::string::npos) return true;
    Handle object = ck.handle(H5Oopen(file, prefix.c_str(), H5P_DEFAULT), H5Oclose, "open object");
    if (H5Iget_type(object.get()) != H5I_GROUP) return false;  // e.g. "/dataset/x"
  }
}

// Before a read of rows [first_row, last_row] of dataset d: refuses storage HDF5 would misread (hdf5_storage.hpp).
// The chunk index of dataset d, once per dataset (indexes_checked).
inline void check_index(const Check& ck, hid_t file, hid_t d, const std::vector<hsize_t>& dims,
                        std::set<std::string>& indexes_checked) {
  if (!indexes_checked.insert(ck.object).second) return;
  const std::string why = hdf5_chunk_index_problem(file, d, dims);
  if (!why.empty()) throw InputError(ck.file, ck.object, why + " (a damaged file, or not one flexadj wrote)");
}

inline void check_storage(const Check& ck, hid_t file, hid_t d, const std::vector<hsize_t>& dims, hsize_t first_row,
                   hsize_t last_row, std::set<std::string>& indexes_checked) {
  std::string why;
  if (indexes_checked.insert(ck.object).second) why = hdf5_chunk_index_problem(file, d, dims);
  if (why.empty()) why = hdf5_storage_problem(file, d, dims, first_row, last_row);
  if (!why.empty()) throw InputError(ck.file, ck.object, why + " (a damaged file, or not one flexadj wrote)");
}

// Reads n strings (fixed or variable length) from a dataset or attribute.
template <class Read>
inline std::vector<std::string> read_string_values(const Check& ck, hid_t file_type, std::size_t n, Read read) {
  std::vector<std::string> out(n);
  if (n == 0) return out;
  if (ck(H5Tget_class(file_type), "query type") != H5T_STRING) ck.fail("read strings: not a string type");
  // The memory type keeps the file's character set: HDF5 does not convert between ASCII and UTF-8.
  Handle type = ck.handle(H5Tcopy(file_type), H5Tclose, "copy string type");
  if (ck(H5Tis_variable_str(file_type), "query string type") > 0) {
    std::vector<char*> buffer(n, nullptr);
    ck(read(type.get(), buffer.data()), "read strings");
    for (std::size_t i = 0; i < n; ++i) {
      if (buffer[i]) out[i] = buffer[i];
      H5free_memory(buffer[i]);
    }
    return out;
  }
  const std::size_t size = H5Tget_size(file_type);
  if (size == 0) ck.fail("query string size");
  const bool space_padded = H5Tget_strpad(file_type) == H5T_STR_SPACEPAD;
  std::vector<char> buffer(n * size, '\0');
  ck(read(type.get(), buffer.data()), "read strings");
  for (std::size_t i = 0; i < n; ++i) {
    const char* s = buffer.data() + i * size;
    out[i].assign(s, strnlen(s, size));
    if (space_padded) out[i].erase(out[i].find_last_not_of(' ') + 1);
  }
  return out;
}

}  // namespace flexadj::results::hdf5_support
