#pragma once
// A force element's dense n x n matrix added into the values of a compressed-row matrix. A node's coordinates are
// consecutive columns, so the entries of one element row fall on a few runs of adjacent values: the scatter reads
// one offset per run (a beam element's 196 entries lie on 28 runs of 7) instead of one per entry, and its inner loop
// is a contiguous add.
#include <cstddef>
#include <vector>

namespace flexadj::assembly {

struct ValueRun {
  int row = 0;               // element row
  int first_column = 0;      // element column of the run's first entry
  int length = 0;            // entries
  std::size_t offset = 0;    // position of the first entry in the matrix values
};

// The runs of an element's entries given their value offsets row by row (n x n, row-major).
inline std::vector<ValueRun> value_runs(const std::vector<std::size_t>& offsets, int n) {
  std::vector<ValueRun> runs;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const std::size_t offset = offsets[static_cast<std::size_t>(i) * n + j];
      if (j > 0 && offset == runs.back().offset + runs.back().length)
        ++runs.back().length;
      else
        runs.push_back({i, j, 1, offset});
    }
  return runs;
}

// values[offset of (i, j)] += entry(e) with e = i n + j, or e = j n + i for the transposed matrix (runs: a range of
// ValueRun).
template <class Runs, class Entry>
inline void add_runs(double* values, const Runs& runs, int n, bool transposed, const Entry& entry) {
  if (transposed) {
    for (const ValueRun& run : runs) {
      double* out = values + run.offset;
      for (int k = 0; k < run.length; ++k) out[k] += entry((run.first_column + k) * n + run.row);
    }
  } else {
    for (const ValueRun& run : runs) {
      double* out = values + run.offset;
      const int first = run.row * n + run.first_column;
      for (int k = 0; k < run.length; ++k) out[k] += entry(first + k);
    }
  }
}

}  // namespace flexadj::assembly
