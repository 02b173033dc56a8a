#pragma once
// A check before HDF5 reads a dataset of a file flexadj did not necessarily write (a damaged result file, a user's
// control file): HDF5 1.10 trusts the file's storage records and reads past its own buffers on some damaged ones.
#include <hdf5.h>

#include <string>
#include <vector>

namespace flexadj {

// Why rows [first_row, last_row] of dataset `set` (extent `dims`) of `file` must not be read, or "" if they may:
// more values than the file can hold, a compact or virtual dataset, a chunk record of another size than its chunk,
// or lying in the superblock or past the end of the file (HDF5 1.10.8 copied a chunk at byte 2 from an 8-byte
// buffer). flexadj writes no filtered (compressed) data; `filters_allowed` accepts them (a user's file) with up to
// 1024 times the file's size in values and chunks of any stored size.
inline std::string hdf5_storage_problem(hid_t file, hid_t set, const std::vector<hsize_t>& dims, hsize_t first_row,
                                        hsize_t last_row, bool filters_allowed = false) {
  struct Id {
    hid_t id;
    herr_t (*close)(hid_t);
    ~Id() {
      if (id >= 0) close(id);
    }
  };
  hsize_t end_of_file = 0;
  if (H5Fget_filesize(file, &end_of_file) < 0) return "cannot query the file size";
  const Id type{H5Dget_type(set), H5Tclose};
  const std::size_t value_bytes = type.id < 0 ? 0 : H5Tget_size(type.id);
  if (value_bytes == 0) return "values of no size";
  const Id dcpl{H5Dget_create_plist(set), H5Pclose};
  if (dcpl.id < 0) return "cannot query the storage";
  const int filters = H5Pget_nfilters(dcpl.id);
  if (filters < 0) return "cannot query the storage's filters";
  if (filters > 0 && !filters_allowed) return "filtered (compressed) storage, which flexadj does not write";
  long double bytes = value_bytes;  // may exceed 64 bits in a damaged file
  for (hsize_t e : dims) bytes *= e;
  if (bytes > static_cast<long double>(end_of_file) * (filters > 0 ? 1024.0L : 1.0L))
    return "claims more values than the file's " + std::to_string(end_of_file) + " bytes can hold";
  if (dims.empty() || first_row > last_row) return "";
  for (hsize_t e : dims)
    if (e == 0) return "";
  const H5D_layout_t layout = H5Pget_layout(dcpl.id);
  if (layout == H5D_CONTIGUOUS) return "";  // HDF5 checks its extent against the end of the file
  if (layout != H5D_CHUNKED) return "a storage layout flexadj does not read (compact or virtual)";
  const int rank = static_cast<int>(dims.size());
  std::vector<hsize_t> chunk(dims.size(), 0);
  if (H5Pget_chunk(dcpl.id, rank, chunk.data()) != rank) return "chunks of another rank than the dataset";
  long double chunk_bytes = value_bytes;
  for (hsize_t c : chunk) {
    if (c == 0) return "chunks of size 0";
    chunk_bytes *= c;
  }
  if (filters == 0 && chunk_bytes > static_cast<long double>(end_of_file)) return "chunks larger than the file";
  const auto expected = static_cast<hsize_t>(chunk_bytes);
  H5F_info2_t info{};
  if (H5Fget_info2(file, &info) < 0) return "cannot query the superblock";
  const hsize_t data_start = info.super.super_size + info.super.super_ext_size;
  std::vector<hsize_t> offset(dims.size(), 0);
  offset[0] = first_row / chunk[0] * chunk[0];
  for (;;) {
    unsigned mask = 0;
    haddr_t address = HADDR_UNDEF;
    hsize_t size = 0;
    if (H5Dget_chunk_info_by_coord(set, offset.data(), &mask, &address, &size) < 0) return "cannot look up a chunk";
    if (address != HADDR_UNDEF &&
        ((filters == 0 && size != expected) || address < data_start || address > end_of_file ||
         size > end_of_file - address))
      return "a chunk of " + std::to_string(size) + " bytes at byte " + std::to_string(address) + ", expected " +
             std::to_string(expected) + " bytes within the file's " + std::to_string(end_of_file);
    int k = rank - 1;  // the next chunk, last dimension fastest
    for (; k > 0; --k) {
      offset[std::size_t(k)] += chunk[std::size_t(k)];
      if (offset[std::size_t(k)] < dims[std::size_t(k)]) break;
      offset[std::size_t(k)] = 0;
    }
    if (k == 0) {
      offset[0] += chunk[0];
      if (offset[0] > last_row || offset[0] >= dims[0]) return "";
    }
  }
}

// Why the chunk index of dataset `set` (extent `dims`) of `file` is damaged, or "" if HDF5 can walk it, it holds no
// more chunks than the extent has room for and, for up to kChunkRecordsChecked chunks, every record is a chunk of
// the extent (aligned, inside) of its full size, unfiltered (if the dataset has no filters), inside the file after
// the superblock. Called once per dataset and file (a walk costs a pass over the index; the record checks, through
// HDF5 1.10's H5Dget_chunk_info, a pass per record). HDF5 1.10.8 finds single chunks of a damaged index and then
// reads past its buffers.
inline constexpr hsize_t kChunkRecordsChecked = 1024;
inline std::string hdf5_chunk_index_problem(hid_t file, hid_t set, const std::vector<hsize_t>& dims) {
  const hid_t dcpl = H5Dget_create_plist(set);
  if (dcpl < 0) return "cannot query the storage";
  const bool chunked = H5Pget_layout(dcpl) == H5D_CHUNKED;
  std::vector<hsize_t> chunk(dims.size(), 0);
  const int rank = chunked ? H5Pget_chunk(dcpl, static_cast<int>(dims.size()), chunk.data()) : 0;
  const int filters = chunked ? H5Pget_nfilters(dcpl) : 0;
  H5Pclose(dcpl);
  if (!chunked) return "";
  if (rank != static_cast<int>(dims.size()) || filters < 0) return "chunks of another rank than the dataset";
  long double room = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) room *= chunk[i] ? (dims[i] + chunk[i] - 1) / chunk[i] : 0;
  const hid_t space = H5Dget_space(set);
  if (space < 0) return "cannot query the extent";
  hsize_t chunks = 0;
  std::string why;
  if (H5Dget_num_chunks(set, space, &chunks) < 0) why = "a damaged chunk index";
  else if (static_cast<long double>(chunks) > room) why = "more chunks than the dataset has room for";
  hsize_t end_of_file = 0;
  H5F_info2_t info{};
  const hid_t type = H5Dget_type(set);
  const std::size_t value_bytes = type < 0 ? 0 : H5Tget_size(type);
  if (type >= 0) H5Tclose(type);
  if (why.empty() && chunks <= kChunkRecordsChecked &&
      (H5Fget_filesize(file, &end_of_file) < 0 || H5Fget_info2(file, &info) < 0 || value_bytes == 0))
    why = "cannot query the file";
  hsize_t chunk_bytes = value_bytes;
  for (hsize_t c : chunk) chunk_bytes *= c;
  const hsize_t data_start = info.super.super_size + info.super.super_ext_size;
  std::vector<hsize_t> offset(dims.size() + 1, 0);
  for (hsize_t k = 0; why.empty() && chunks <= kChunkRecordsChecked && k < chunks; ++k) {
    unsigned mask = 0;
    haddr_t address = HADDR_UNDEF;
    hsize_t size = 0;
    if (H5Dget_chunk_info(set, space, k, offset.data(), &mask, &address, &size) < 0) {
      why = "a damaged chunk index";
      break;
    }
    bool fits = address >= data_start && address <= end_of_file && size <= end_of_file - address;
    if (filters == 0) fits = fits && mask == 0 && size == chunk_bytes;
    for (std::size_t i = 0; i < dims.size(); ++i) fits = fits && offset[i] % chunk[i] == 0 && offset[i] < dims[i];
    if (!fits) why = "a damaged chunk index (record " + std::to_string(k) + ")";
  }
  H5Sclose(space);
  return why;
}

}  // namespace flexadj
