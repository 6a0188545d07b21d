// libFuzzer harness: read_bone_animation_3d and read_point_animation_3d (the 3D release's
// animations), both on every input.
#include "fastcd/io/anim_io.hpp"
#include "fuzz_util.hpp"

using namespace fastcd::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = write_input("in_anim.txt", data, size);
  try {
    const fastcd::BoneAnimation3D a = fastcd::read_bone_animation_3d(path);
    const auto nb = a.bone_rest_euler.rows();
    check(nb > 0 && !a.bone_euler.empty() && a.root_rotation.size() == a.bone_euler.size() &&
              a.root_translation.size() == a.bone_euler.size(),
          "read_bone_animation_3d: shapes");
    for (const auto& F : a.bone_euler) {
      check(F.rows() == nb && F.cols() == 3, "read_bone_animation_3d: frame shape");
      check_finite(F, "read_bone_animation_3d: frame");
    }
  } catch (const std::exception& e) {
    check_message(e, "read_bone_animation_3d", path);
  }
  try {
    const fastcd::PointAnimation3D a = fastcd::read_point_animation_3d(path);
    const auto nh = a.rest_translation.rows();
    check(nh > 0 && a.rest_euler.rows() == nh && !a.translation.empty() && a.translation.size() == a.euler.size(),
          "read_point_animation_3d: shapes");
    for (std::size_t f = 0; f < a.translation.size(); ++f) {
      check(a.translation[f].rows() == nh && a.euler[f].rows() == nh, "read_point_animation_3d: frame shape");
      check_finite(a.translation[f], "read_point_animation_3d: translation");
      check_finite(a.euler[f], "read_point_animation_3d: euler");
    }
  } catch (const std::exception& e) {
    check_message(e, "read_point_animation_3d", path);
  }
  return 0;
}
