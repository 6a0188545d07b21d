#include "fastcd/io/anim_io.hpp"

#include "fastcd/io/parse_util.hpp"

namespace fastcd {

namespace {

using detail::LineReader;
using detail::TokenStream;

constexpr long long kMaxCount = 100000000;

MatrixXd read_block(TokenStream& ts, Index rows, const char* what) {
  MatrixXd M(rows, 3);
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < 3; ++c) M(r, c) = ts.finite(what);
  return M;
}

Eigen::Vector3d read_vec3(TokenStream& ts, const char* what) { return read_block(ts, 1, what).row(0).transpose(); }

void expect_end(TokenStream& ts) {
  std::string_view tok;
  if (ts.next(tok)) ts.reader().fail("unexpected extra value " + detail::quote(tok) + " after the last frame");
}

}  // namespace

Animation2D read_animation_2d(const std::string& path) {
  const std::string text = detail::read_file_bytes(path, "read_animation_2d");
  LineReader r(text, path, "read_animation_2d", "animation");
  TokenStream ts(r, 0);
  const long long frames = ts.integer("frame count", 1, kMaxCount);
  const long long handles = ts.integer("handle count", 1, 100000);
  r.check_count_fits((frames + 1) * handles * 3, 2, "values");
  Animation2D a;
  a.rest = read_block(ts, handles, "rest value");
  a.frames.reserve(static_cast<std::size_t>(frames));
  for (long long f = 0; f < frames; ++f) a.frames.push_back(read_block(ts, handles, "frame value"));
  expect_end(ts);
  return a;
}

BoneAnimation3D read_bone_animation_3d(const std::string& path) {
  const std::string text = detail::read_file_bytes(path, "read_bone_animation_3d");
  LineReader r(text, path, "read_bone_animation_3d", "animation");
  TokenStream ts(r, 0);
  const long long bones = ts.integer("bone count", 1, 100000);
  const long long frames = ts.integer("frame count", 1, kMaxCount);
  r.check_count_fits(frames * (bones + 2) * 3, 2, "values");
  BoneAnimation3D a;
  a.root_rest_translation = read_vec3(ts, "root rest translation");
  a.root_rest_euler = read_vec3(ts, "root rest angle");
  a.bone_rest_euler = read_block(ts, bones, "bone rest angle");
  for (long long f = 0; f < frames; ++f) {
    a.root_rotation.push_back(read_vec3(ts, "root rotation"));
    a.root_translation.push_back(read_vec3(ts, "root translation"));
    a.bone_euler.push_back(read_block(ts, bones, "bone angle"));
  }
  expect_end(ts);
  return a;
}

PointAnimation3D read_point_animation_3d(const std::string& path) {
  const std::string text = detail::read_file_bytes(path, "read_point_animation_3d");
  LineReader r(text, path, "read_point_animation_3d", "animation");
  TokenStream ts(r, 0);
  const long long handles = ts.integer("handle count", 1, 100000);
  const long long frames = ts.integer("frame count", 1, kMaxCount);
  r.check_count_fits((frames + 1) * handles * 6, 2, "values");
  PointAnimation3D a;
  a.rest_translation.resize(handles, 3);
  a.rest_euler.resize(handles, 3);
  for (long long h = 0; h < handles; ++h) {
    a.rest_translation.row(h) = read_vec3(ts, "rest translation").transpose();
    a.rest_euler.row(h) = read_vec3(ts, "rest angle").transpose();
  }
  for (long long f = 0; f < frames; ++f) {
    MatrixXd t(handles, 3), e(handles, 3);
    for (long long h = 0; h < handles; ++h) {
      t.row(h) = read_vec3(ts, "translation").transpose();
      e.row(h) = read_vec3(ts, "angle").transpose();
    }
    a.translation.push_back(t);
    a.euler.push_back(e);
  }
  expect_end(ts);
  return a;
}

}  // namespace fastcd
