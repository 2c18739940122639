#include "compiler/runtime/opencl/buffer_table.h"

#include <map>
#include <mutex>

namespace tessel::runtime::opencl {
namespace {

constexpr uintptr_t kBase = uintptr_t{1} << 62;
constexpr uintptr_t kPage = 4096;

struct Table {
  std::mutex mu;
  uintptr_t next = kBase;
  std::map<uintptr_t, BufferRef> by_address;  // start -> buffer (offset 0)
};

Table& TheTable() {
  static Table* const table = new Table();
  return *table;
}

}  // namespace

uintptr_t BufferTable::Add(cl_mem mem, size_t size, int device_id) {
  Table& t = TheTable();
  std::lock_guard<std::mutex> lock(t.mu);
  const uintptr_t address = t.next;
  // One page past the end at least, so one-past-the-end of a buffer is in no other.
  t.next += (size / kPage + 2) * kPage;
  t.by_address[address] = BufferRef{mem, 0, size, device_id};
  return address;
}

cl_mem BufferTable::Remove(uintptr_t address) {
  Table& t = TheTable();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.by_address.find(address);
  if (it == t.by_address.end()) return nullptr;
  cl_mem mem = it->second.mem;
  t.by_address.erase(it);
  return mem;
}

std::optional<BufferRef> BufferTable::Find(uintptr_t address) {
  Table& t = TheTable();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.by_address.upper_bound(address);
  if (it == t.by_address.begin()) return std::nullopt;
  --it;
  const uintptr_t offset = address - it->first;
  if (offset > it->second.size) return std::nullopt;
  BufferRef ref = it->second;
  ref.offset = offset;
  return ref;
}

}  // namespace tessel::runtime::opencl
