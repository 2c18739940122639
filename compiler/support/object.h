#pragma once

#include <atomic>
#include <cstddef>
#include <utility>

namespace tessel {

// The base of every immutable, shared IR object: an intrusive reference count and a virtual
// destructor. Objects are created through MakeRef and held by Ref; they are never copied or moved.
class Object {
 public:
  Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;

 private:
  template <typename T>
  friend class Ref;
  mutable std::atomic<int> ref_count_{0};
};

// An owning, reference-counting pointer to an Object subclass. Copying shares; the object dies
// with its last Ref. Identity (same_as) is pointer identity.
template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}  // NOLINT: null converts implicitly, like a pointer
  explicit Ref(T* ptr) : ptr_(ptr) { Retain(); }
  Ref(const Ref& other) : ptr_(other.ptr_) { Retain(); }
  Ref(Ref&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  template <typename U>
  Ref(const Ref<U>& other) : ptr_(other.get()) {  // NOLINT: upcasts are implicit
    Retain();
  }
  ~Ref() { Release(); }

  Ref& operator=(Ref other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  T* get() const { return ptr_; }
  T* operator->() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool same_as(const Ref& other) const { return ptr_ == other.ptr_; }

 private:
  void Retain() {
    if (ptr_) ptr_->ref_count_.fetch_add(1, std::memory_order_relaxed);
  }
  void Release() {
    if (ptr_ && ptr_->ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete ptr_;
  }

  T* ptr_ = nullptr;
};

template <typename T, typename... Args>
Ref<T> MakeRef(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

}  // namespace tessel
