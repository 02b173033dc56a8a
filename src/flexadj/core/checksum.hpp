#pragma once
// CRC-32 (zlib's crc32) of bytes and of vectors of doubles: the checksums of checkpoint and trajectory files.
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace flexadj {

// Of `bytes` bytes at `data`, continuing from `crc` (start with 0).
inline std::uint32_t checksum(std::uint32_t crc, const void* data, std::size_t bytes) {
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

inline std::uint32_t checksum(std::uint32_t crc, const std::vector<double>& values) {
  return checksum(crc, values.data(), values.size() * sizeof(double));
}

}  // namespace flexadj
