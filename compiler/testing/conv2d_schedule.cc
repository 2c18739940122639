#include "compiler/testing/conv2d_schedule.h"

#include "compiler/support/check.h"

namespace tessel::testing {
namespace {

using schedule::IterVar;

const std::vector<IterVar>& Axes(const te::Tensor& t) {
  return t.op().as<te::ComputeOpNode>()->axis;
}

template <typename T>
T Ok(absl::StatusOr<T> v) {
  TESSEL_CHECK(v.ok()) << v.status().message();
  return *v;
}
void Ok(const absl::Status& s) { TESSEL_CHECK(s.ok()) << s.message(); }

}  // namespace

schedule::Schedule TwelvePrimitiveConv2dSchedule(const Conv2d& w) {
  schedule::Schedule s = schedule::create_schedule({w.C.op()});
  const auto& axis = Axes(w.C);
  te::Tensor cc = Ok(s.cache_write(w.C, "local"));                                              // 1
  auto t = Ok(s[w.C].tile(axis[2], axis[3], 4, 8));                                             // 2
  auto f = Ok(s[w.C].split(axis[1], 16));                                                       // 3
  Ok(s[w.C].reorder({axis[0], f.outer, t.x_outer, t.y_outer, f.inner, t.x_inner, t.y_inner}));  // 4
  IterVar fused = Ok(s[w.C].fuse(axis[0], f.outer));                                            // 5
  Ok(s[w.C].parallel(fused));                                                                   // 6
  Ok(s[cc].compute_at(s[w.C], t.y_outer));                                                      // 7
  const auto& caxis = Axes(cc);
  const auto& reduce = cc.op().as<te::ComputeOpNode>()->reduce_axis;
  auto rc = Ok(s[cc].split(reduce[0], 8));  // 8
  Ok(s[cc].reorder(
      {caxis[0], caxis[1], rc.outer, reduce[1], reduce[2], rc.inner, caxis[2], caxis[3]}));  // 9
  Ok(s[cc].vectorize(caxis[3]));                                                             // 10
  Ok(s[cc].unroll(caxis[2]));                                                                // 11
  Ok(s[w.Apad].compute_at(s[cc], rc.outer));                                                 // 12
  return s;
}

}  // namespace tessel::testing
