// libFuzzer harness: read_animation_2d (the 2D release's *_anim.txt).
#include "fastcd/io/anim_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

FASTCD_FUZZ_READER("in_anim.txt", "read_animation_2d", {
  const fastcd::Animation2D a = fastcd::read_animation_2d(path);
  check(a.rest.rows() > 0 && a.rest.cols() == 3 && !a.frames.empty(), "read_animation_2d: shapes");
  check_finite(a.rest, "read_animation_2d: rest");
  for (const auto& F : a.frames) {
    check(F.rows() == a.rest.rows() && F.cols() == 3, "read_animation_2d: frame shape");
    check_finite(F, "read_animation_2d: frame");
  }
})
