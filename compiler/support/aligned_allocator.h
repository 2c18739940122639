#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace tessel {

// A std::allocator that aligns every allocation to Alignment bytes: host buffers that compiled
// code may assume aligned (the LLVM backend declares argument buffers 64-byte aligned).
template <class T, size_t Alignment = 64>
struct AlignedAllocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = AlignedAllocator<U, Alignment>;
  };

  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U, Alignment>&) {}  // NOLINT

  T* allocate(size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(Alignment)));
  }
  // The unsized form: clang declares sized deallocation only under -fsized-deallocation.
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(Alignment)); }
  template <class U>
  bool operator==(const AlignedAllocator<U, Alignment>&) const {
    return true;
  }
};

// A vector whose elements start 64-byte aligned.
template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace tessel
