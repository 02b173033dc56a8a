#pragma once
// A read-only view of `count` entries that live in a pool owned elsewhere (the assembler keeps each component's
// indices in one array per kind, in component order: a sweep over 10^4 components then reads them sequentially,
// where a vector per component and kind cost a cache miss each).
#include <cstddef>

namespace flexadj::assembly {

template <class T>
class PoolSpan {
 public:
  PoolSpan() = default;
  PoolSpan(const T* first, std::size_t count) : first_(first), count_(count) {}
  const T* data() const { return first_; }
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  const T& operator[](std::size_t i) const { return first_[i]; }
  const T* begin() const { return first_; }
  const T* end() const { return first_ + count_; }

 private:
  const T* first_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace flexadj::assembly
