#include "fastcd/viz/render3d.hpp"
#include "viz/render_test_util.hpp"

#include "fastcd/geometry/boundary_facets.hpp"
#include "fastcd/geometry/triangulated_grid.hpp"
#include "io/io_test_util.hpp"

#include <gtest/gtest.h>

#include <cairo.h>
#include <stdlib.h>
#include <Eigen/Geometry>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using namespace fastcd;

namespace test_render3d {

using fastcd::test::probe;
using fastcd::test::run;
using fastcd::test::with_path;

// ---------------------------------------------------------------- helpers

struct Image {
  int width = 0, height = 0;
  std::vector<std::array<int, 3>> rgb;  // row-major, 0..255
  std::array<int, 3> at(int x, int y) const { return rgb[static_cast<std::size_t>(y * width + x)]; }
};

Image load_png(const std::string& path) {
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> s(
      cairo_image_surface_create_from_png(path.c_str()), &cairo_surface_destroy);
  if (cairo_surface_status(s.get()) != CAIRO_STATUS_SUCCESS) throw std::runtime_error("cannot decode " + path);
  cairo_surface_flush(s.get());
  Image out;
  out.width = cairo_image_surface_get_width(s.get());
  out.height = cairo_image_surface_get_height(s.get());
  const int stride = cairo_image_surface_get_stride(s.get());
  const unsigned char* d = cairo_image_surface_get_data(s.get());
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      std::uint32_t px;
      std::memcpy(&px, d + y * stride + 4 * x, 4);
      out.rgb.push_back(
          {static_cast<int>((px >> 16) & 0xff), static_cast<int>((px >> 8) & 0xff), static_cast<int>(px & 0xff)});
    }
  return out;
}

// Shade factor s if pixel p is s * c (within `tol` per 0..255 channel), else -1.
double shade_of(const std::array<int, 3>& p, const Rgb& c, double tol = 2.5) {
  const double cv[3] = {255 * c.r, 255 * c.g, 255 * c.b};
  double pc = 0, cc = 0;
  for (int k = 0; k < 3; ++k) {
    pc += p[k] * cv[k];
    cc += cv[k] * cv[k];
  }
  const double s = pc / cc;
  for (int k = 0; k < 3; ++k)
    if (std::abs(p[k] - s * cv[k]) > tol) return -1;
  return s;
}

// Histogram of shade factors (rounded to 1/100) of pixels that are shades of c.
std::map<int, int> shade_histogram(const Image& img, const Rgb& c) {
  std::map<int, int> h;
  for (const auto& p : img.rgb) {
    if (p[0] == 255 && p[1] == 255 && p[2] == 255) continue;
    const double s = shade_of(p, c);
    if (s > 0) ++h[static_cast<int>(std::lround(100 * s))];
  }
  return h;
}

int count_near(const Image& img, const std::array<int, 3>& c, int tol) {
  int n = 0;
  for (const auto& p : img.rgb)
    if (std::abs(p[0] - c[0]) <= tol && std::abs(p[1] - c[1]) <= tol && std::abs(p[2] - c[2]) <= tol) ++n;
  return n;
}

// True if every pixel of the 2-pixel-wide ring of rectangle [x0, x0+w) x [y0, y0+h) is white.
bool border_is_white(const Image& img, int x0, int y0, int w, int h) {
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x) {
      const bool ring = x < x0 + 2 || x >= x0 + w - 2 || y < y0 + 2 || y >= y0 + h - 2;
      if (ring && img.at(x, y) != std::array<int, 3>{255, 255, 255}) return false;
    }
  return true;
}

// The 6x3x3 tetrahedralized unit box stretched 3x along x and centred; F its surface.
struct Box {
  Eigen::MatrixXd X;
  Eigen::MatrixXi F;
};
Box stretched_box() {
  fastcd::Mesh m = fastcd::tetrahedralized_grid(6, 3, 3);
  m.X.col(0) *= 3.0;
  const Eigen::RowVector3d c = 0.5 * (m.X.colwise().minCoeff() + m.X.colwise().maxCoeff());
  m.X.rowwise() -= c;
  return {m.X, fastcd::boundary_facets(m.T).F};
}

const Rgb kBlue{0.12, 0.47, 0.71};
const Rgb kRed{0.84, 0.15, 0.16};

SurfacePanel box_panel(const Eigen::MatrixXd& X, const Eigen::MatrixXi& F, Rgb color, std::string title = "") {
  SurfacePanel p;
  p.states = {X};
  p.F = F;
  p.title = std::move(title);
  p.color = color;
  return p;
}

class Render3dTest : public fastcd::test::IoTempDir {
 protected:
  static SurfaceAnimationOptions small(int w = 240, int h = 200) {
    SurfaceAnimationOptions opt;
    opt.panel_width = w;
    opt.panel_height = h;
    return opt;
  }
  // Two panels (5 and 3 frames) of the stretched box, the second one turning.
  static std::vector<SurfacePanel> two_panels() {
    const Box b = stretched_box();
    std::vector<SurfacePanel> p(2);
    p[0] = box_panel(b.X, b.F, kRed, "rig");
    p[1] = box_panel(b.X, b.F, kBlue, "full");
    p[0].states.clear();
    p[1].states.clear();
    for (int f = 0; f < 5; ++f) {
      Eigen::MatrixXd Y = b.X;
      Y.col(1).array() += 0.05 * f;
      p[0].states.push_back(Y);
    }
    for (int f = 0; f < 3; ++f) {
      const Eigen::Matrix3d R = Eigen::AngleAxisd(0.2 * f, Eigen::Vector3d::UnitY()).toRotationMatrix();
      p[1].states.push_back(b.X * R.transpose());
    }
    return p;
  }
  static Camera camera_of(const std::vector<SurfacePanel>& panels) {
    std::vector<Eigen::MatrixXd> all;
    for (const auto& p : panels) all.insert(all.end(), p.states.begin(), p.states.end());
    return default_camera(all);
  }
};

// ---------------------------------------------------------------- camera

TEST(Render3dBasics, DefaultCameraLooksAtBoxCentreFromFrontRightAbove) {
  Eigen::MatrixXd A(2, 3), B(1, 3);
  A << 0, 0, 0, 2, 1, 1;
  B << -2, 3, 0.5;
  const Camera cam = default_camera({A, B});
  EXPECT_TRUE(cam.target.isApprox(Eigen::Vector3d(0, 1.5, 0.5)));
  EXPECT_TRUE(cam.up.isApprox(Eigen::Vector3d::UnitY()));
  EXPECT_DOUBLE_EQ(cam.fov_deg, 35);
  const Eigen::Vector3d d = (cam.eye - cam.target).normalized();
  const double az = 35 * M_PI / 180, el = 25 * M_PI / 180;
  EXPECT_TRUE(
      d.isApprox(Eigen::Vector3d(std::sin(az) * std::cos(el), std::sin(el), std::cos(az) * std::cos(el)), 1e-12));
  EXPECT_GT((cam.eye - cam.target).norm(), 3.0);  // outside the box's bounding sphere

  // A single point still gets a usable camera.
  const Camera pt = default_camera({Eigen::MatrixXd::Ones(1, 3)});
  EXPECT_GT((pt.eye - pt.target).norm(), 0.1);

  EXPECT_THROW(default_camera({}), std::invalid_argument);
  EXPECT_THROW(default_camera({Eigen::MatrixXd(0, 3)}), std::invalid_argument);
  EXPECT_THROW(default_camera({Eigen::MatrixXd::Zero(2, 2)}), std::invalid_argument);
  Eigen::MatrixXd N = A;
  N(1, 2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(default_camera({N}), std::invalid_argument);
}

// ---------------------------------------------------------------- PNGs

TEST_F(Render3dTest, BoxPngHasSizeShadedColourAndWhiteCorners) {
  const Box b = stretched_box();
  const std::vector<SurfacePanel> panels = {box_panel(b.X, b.F, kBlue)};
  write_surface_png(path("box.png"), panels, camera_of(panels), 0, small());
  EXPECT_EQ(listing(), std::set<std::string>{"box.png"});
  const Image img = load_png(path("box.png"));
  EXPECT_EQ(img.width, 240);  // no text: no title band
  EXPECT_EQ(img.height, 200);
  const std::array<int, 3> white{255, 255, 255};
  EXPECT_EQ(img.at(0, 0), white);
  EXPECT_EQ(img.at(239, 0), white);
  EXPECT_EQ(img.at(0, 199), white);
  EXPECT_EQ(img.at(239, 199), white);
  EXPECT_TRUE(border_is_white(img, 0, 0, 240, 200)) << "the default camera frames the box";

  // Three faces of the box are visible, each flat shaded with its own
  // factor of the panel colour, within [0.25, 1].
  const auto hist = shade_histogram(img, kBlue);
  std::vector<int> faces;
  for (const auto& [s, n] : hist)
    if (n > 300) faces.push_back(s);
  ASSERT_EQ(faces.size(), 3u) << "shade levels with many pixels";
  EXPECT_GE(faces.front(), 25);
  EXPECT_LE(faces.back(), 100);
  EXPECT_GE(faces[1] - faces[0], 8);
  EXPECT_GE(faces[2] - faces[1], 8);
  int covered = 0;
  for (const auto& [s, n] : hist) covered += n;
  EXPECT_GT(covered, 4000);
}

TEST_F(Render3dTest, TitlesAddABandAboveThePanels) {
  const Box b = stretched_box();
  std::vector<SurfacePanel> panels = {box_panel(b.X, b.F, kBlue, "left"), box_panel(b.X, b.F, kRed, "right")};
  SurfaceAnimationOptions opt = small(121, 101);
  opt.suptitle = "a suptitle";
  write_surface_png(path("t.png"), panels, camera_of(panels), 0, opt);
  const Image img = load_png(path("t.png"));
  EXPECT_EQ(img.width, 242);
  EXPECT_GT(img.height, 101 + 30);
  EXPECT_EQ(img.height % 2, 0);
  EXPECT_EQ(img.at(0, 0), (std::array<int, 3>{255, 255, 255}));
  // dark text pixels in the band, none in the bottom row
  int dark_top = 0, dark_bottom = 0;
  for (int x = 0; x < img.width; ++x) {
    for (int y = 0; y < img.height - 101; ++y)
      if (img.at(x, y)[0] < 100 && img.at(x, y)[2] < 100) ++dark_top;
    if (img.at(x, img.height - 1)[0] < 100) ++dark_bottom;
  }
  EXPECT_GT(dark_top, 50);
  EXPECT_EQ(dark_bottom, 0);
  // each panel shows its own colour
  EXPECT_FALSE(shade_histogram(img, kBlue).empty());
  EXPECT_FALSE(shade_histogram(img, kRed).empty());
}

TEST_F(Render3dTest, RotatedBoxStillRenders) {
  const Box b = stretched_box();
  const Eigen::Matrix3d R =
      (Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()) * Eigen::AngleAxisd(2.5, Eigen::Vector3d::UnitX()))
          .toRotationMatrix();
  const Eigen::MatrixXd Y = (b.X * R.transpose()).rowwise() + Eigen::RowVector3d(5, -3, 2);
  const std::vector<SurfacePanel> panels = {box_panel(Y, b.F, kRed)};
  write_surface_png(path("rot.png"), panels, camera_of(panels), 0, small());
  const Image img = load_png(path("rot.png"));
  EXPECT_EQ(img.width, 240);
  EXPECT_EQ(img.height, 200);
  EXPECT_TRUE(border_is_white(img, 0, 0, 240, 200));
  int covered = 0, levels = 0;
  for (const auto& [s, n] : shade_histogram(img, kRed)) {
    covered += n;
    if (n > 100) ++levels;
  }
  EXPECT_GT(covered, 3000);
  EXPECT_GE(levels, 2);
}

TEST_F(Render3dTest, DefaultCameraKeepsWholeAnimationInView) {
  const Box b = stretched_box();
  SurfacePanel p = box_panel(b.X, b.F, kBlue);
  p.states.clear();
  for (int f = 0; f < 4; ++f) {  // slides 12 units along x, rising 4 units
    Eigen::MatrixXd Y = b.X;
    Y.col(0).array() += 4.0 * f;
    Y.col(1).array() += 1.3 * f;
    p.states.push_back(Y);
  }
  const std::vector<SurfacePanel> panels = {p};
  const Camera cam = camera_of(panels);
  for (int f : {0, 3}) {
    const std::string png = path("f" + std::to_string(f) + ".png");
    write_surface_png(png, panels, cam, f, small(200, 200));
    const Image img = load_png(png);
    EXPECT_TRUE(border_is_white(img, 0, 0, 200, 200)) << "frame " << f;
    int covered = 0;
    for (const auto& [s, n] : shade_histogram(img, kBlue)) covered += n;
    EXPECT_GT(covered, 200) << "frame " << f;
  }
}

TEST_F(Render3dTest, NearerTriangleHidesFartherOneWhateverTheirOrder) {
  // A tilted square at z = -1 listed after a larger square at z = 0 that
  // covers it on screen; seen from +z the far one must be hidden.
  Eigen::MatrixXd X(8, 3);
  X << -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0,                             // near, facing the camera
      -0.3, -0.3, -1.5, 0.3, -0.3, -0.5, 0.3, 0.3, -0.5, -0.3, 0.3, -1.5;  // far, tilted
  Eigen::MatrixXi Fnear(2, 3), Ffar(2, 3), Fboth(4, 3);
  Fnear << 0, 1, 2, 0, 2, 3;
  Ffar << 4, 5, 6, 4, 6, 7;
  Fboth << Fnear, Ffar;
  Camera cam;
  cam.eye = Eigen::Vector3d(0, 0, 6);
  cam.target = Eigen::Vector3d::Zero();
  cam.up = Eigen::Vector3d::UnitY();

  auto dominant = [&](const Eigen::MatrixXi& F, const std::string& name) {
    write_surface_png(path(name), {box_panel(X, F, kBlue)}, cam, 0, small(160, 160));
    const Image img = load_png(path(name));
    std::map<std::array<int, 3>, int> counts;
    for (const auto& p : img.rgb)
      if (p != std::array<int, 3>{255, 255, 255}) ++counts[p];
    std::pair<std::array<int, 3>, int> best{{0, 0, 0}, 0};
    for (const auto& c : counts)
      if (c.second > best.second) best = c;
    return std::make_pair(best.first, img);
  };
  const auto [near_colour, near_img] = dominant(Fnear, "near.png");
  const auto [far_colour, far_img] = dominant(Ffar, "far.png");
  ASSERT_GT(std::abs(near_colour[0] - far_colour[0]) + std::abs(near_colour[1] - far_colour[1]) +
                std::abs(near_colour[2] - far_colour[2]),
            20)
      << "the two squares must be shaded differently for this test";
  const auto [both_colour, both] = dominant(Fboth, "both.png");
  EXPECT_EQ(both_colour, near_colour);
  EXPECT_GT(count_near(both, near_colour, 0), 5000);
  EXPECT_EQ(count_near(both, far_colour, 1), 0);
  EXPECT_GT(count_near(far_img, far_colour, 0), 300);
}

TEST_F(Render3dTest, EdgesAreDarkerThanFaces) {
  const Box b = stretched_box();
  const std::vector<SurfacePanel> panels = {box_panel(b.X, b.F, kBlue)};
  SurfaceAnimationOptions opt = small();
  write_surface_png(path("plain.png"), panels, camera_of(panels), 0, opt);
  opt.edges = true;
  write_surface_png(path("edges.png"), panels, camera_of(panels), 0, opt);
  auto darkest = [&](const std::string& name) {
    int lo = 1000;
    for (const auto& [s, n] : shade_histogram(load_png(path(name)), kBlue))
      if (n > 20) lo = std::min(lo, s);
    return lo;
  };
  const int plain = darkest("plain.png");
  EXPECT_GE(plain, 25);  // ambient floor
  EXPECT_LT(darkest("edges.png"), plain - 10);
}

// ---------------------------------------------------------------- MP4

TEST_F(Render3dTest, TwoPanelMp4HasFrameCountAndSize) {
  const auto panels = two_panels();
  const Camera cam = camera_of(panels);
  SurfaceAnimationOptions opt = small(160, 120);
  opt.suptitle = "two panels";
  opt.fps = 10;
  std::vector<std::pair<int, int>> calls;
  write_surface_animation(path("a.mp4"), panels, cam, opt,
                          [&](int done, int total) { calls.emplace_back(done, total); });
  write_surface_png(path("a.png"), panels, cam, 4, opt);
  EXPECT_EQ(listing(), (std::set<std::string>{"a.mp4", "a.png"}));
  const Image still = load_png(path("a.png"));
  EXPECT_EQ(still.width, 320);
  EXPECT_EQ(probe(path("a.mp4")), (std::vector<int>{320, still.height, 5}));
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls.front(), (std::pair<int, int>{1, 5}));
  EXPECT_EQ(calls.back(), (std::pair<int, int>{5, 5}));

  // The last video frame shows both panel colours on white, like the still.
  const std::string last = path("last.png");
  run("ffmpeg -v error -y -sseof -0.1 -i '" + path("a.mp4") + "' -frames:v 1 -update 1 '" + last + "' 2>&1");
  const Image frame = load_png(last);
  EXPECT_EQ(frame.width, 320);
  EXPECT_GT(count_near(frame, {255, 255, 255}, 3), 320 * 120 / 3);
  int red = 0, blue = 0;
  for (const auto& p : frame.rgb) {
    red += shade_of(p, kRed, 12) > 0.2 && !(p[0] > 250 && p[1] > 250);
    blue += shade_of(p, kBlue, 12) > 0.2 && !(p[0] > 250 && p[1] > 250);
  }
  EXPECT_GT(red, 300);
  EXPECT_GT(blue, 300);
}

// ---------------------------------------------------------------- errors

// The message of the std::invalid_argument that f throws ("" if none).
template <typename F>
std::string invalid_message(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST_F(Render3dTest, BadInputThrowsNamedMessage) {
  const auto good = two_panels();
  const Camera cam = camera_of(good);
  const SurfaceAnimationOptions opt = small(64, 64);
  auto mp4 = [&](const std::vector<SurfacePanel>& p, const Camera& c = Camera{},
                 const SurfaceAnimationOptions& o = SurfaceAnimationOptions{}) {
    return invalid_message([&] { write_surface_animation(path("a.mp4"), p, c, o); });
  };
  auto has = [](const std::string& msg, const std::string& part) { return msg.find(part) != std::string::npos; };

  EXPECT_TRUE(has(mp4({}, cam, opt), "no panels"));
  {
    auto p = good;
    p[1].states.clear();
    EXPECT_TRUE(has(mp4(p, cam, opt), "panel 1 ('full') has no states"));
  }
  {
    auto p = good;
    p[0].states[2].conservativeResize(Eigen::NoChange, 2);
    const std::string m = mp4(p, cam, opt);
    EXPECT_TRUE(has(m, "state 2 must be #V x 3")) << m;
  }
  {
    auto p = good;
    p[0].states[4](7, 1) = std::numeric_limits<double>::quiet_NaN();
    const std::string m = mp4(p, cam, opt);
    EXPECT_TRUE(has(m, "state 4 has a non-finite coordinate at (7, 1)")) << m;
  }
  {
    auto p = good;
    p[1].F(3, 1) = 99;
    const std::string m = mp4(p, cam, opt);
    EXPECT_TRUE(has(m, "F(3, 1) = 99")) << m;
    EXPECT_TRUE(has(m, "54 vertices")) << m;
  }
  {
    auto p = good;
    p[1].F(0, 2) = -1;
    EXPECT_TRUE(has(mp4(p, cam, opt), "F(0, 2) = -1 is negative"));
  }
  {
    auto p = good;
    p[0].F = Eigen::MatrixXi::Zero(3, 4);
    EXPECT_TRUE(has(mp4(p, cam, opt), "F must be #F x 3, got 3x4"));
  }
  {
    Camera c = cam;
    c.eye = c.target;
    EXPECT_TRUE(has(mp4(good, c, opt), "eye and target coincide"));
    c = cam;
    c.up = c.target - c.eye;
    EXPECT_TRUE(has(mp4(good, c, opt), "parallel to the view direction"));
    c = cam;
    c.fov_deg = 0;
    EXPECT_TRUE(has(mp4(good, c, opt), "fov_deg"));
    c = cam;
    c.eye.x() = std::numeric_limits<double>::infinity();
    EXPECT_TRUE(has(mp4(good, c, opt), "finite"));
  }
  {
    SurfaceAnimationOptions o = opt;
    o.fps = 0;
    EXPECT_TRUE(has(mp4(good, cam, o), "fps"));
    o = opt;
    o.panel_width = 1;
    EXPECT_TRUE(has(mp4(good, cam, o), "panel_width"));
    o = opt;
    o.supersample = 0;
    EXPECT_TRUE(has(mp4(good, cam, o), "supersample"));
  }
  {
    auto p = good;
    p[0].color = Rgb{2, 0, 0};
    EXPECT_TRUE(has(mp4(p, cam, opt), "color"));
  }
  const std::string m = invalid_message([&] { write_surface_png(path("a.png"), good, cam, 5, opt); });
  EXPECT_TRUE(has(m, "frame 5 is out of range for 5 frames")) << m;
  EXPECT_TRUE(has(invalid_message([&] { write_surface_png(path("a.png"), good, cam, -1, opt); }), "frame -1"));
  EXPECT_TRUE(listing().empty());
}

TEST_F(Render3dTest, NoTempFileLeftOnFailure) {
  const auto panels = two_panels();
  const Camera cam = camera_of(panels);
  const SurfaceAnimationOptions opt = small(64, 64);

  // Missing directory: I/O error, nothing written.
  EXPECT_THROW(write_surface_animation(path("no/dir/a.mp4"), panels, cam, opt), std::runtime_error);
  EXPECT_THROW(write_surface_png(path("no/dir/a.png"), panels, cam, 0, opt), std::runtime_error);
  EXPECT_TRUE(listing().empty());

  // Failing ffmpeg: its message is reported and its partial output removed.
  const fs::path bin = dir_ / "bin";
  fs::create_directory(bin);
  {
    std::ofstream s(bin / "ffmpeg");
    s << "#!/bin/sh\necho 'fake ffmpeg: codec exploded' >&2\nexit 3\n";
  }
  fs::permissions(bin / "ffmpeg", fs::perms::owner_all);
  fs::create_directory(dir_ / "out");
  with_path(bin.string(), [&] {
    try {
      write_surface_animation((dir_ / "out" / "a.mp4").string(), panels, cam, opt);
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("codec exploded"), std::string::npos) << m;
      EXPECT_NE(m.find("exit status 3"), std::string::npos) << m;
    }
  });
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));

  // ffmpeg not installed.
  fs::create_directory(dir_ / "empty");
  with_path((dir_ / "empty").string(), [&] {
    try {
      write_surface_animation((dir_ / "out" / "a.mp4").string(), panels, cam, opt);
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("ffmpeg"), std::string::npos) << e.what();
    }
  });
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));

  // An exception from the progress callback aborts cleanly.
  EXPECT_THROW(write_surface_animation((dir_ / "out" / "a.mp4").string(), panels, cam, opt,
                                       [](int done, int) {
                                         if (done == 2) throw std::logic_error("stop");
                                       }),
               std::logic_error);
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
}

// The ghost (another pose drawn over a panel): it tints only pixels its surface covers, leaves
// every other pixel exactly as the panel alone, and is validated like the panel.
TEST_F(Render3dTest, GhostTintsOnlyWhatItCovers) {
  const Box b = stretched_box();
  Eigen::MatrixXd moved = b.X;
  moved.col(0).array() += 0.35 * (b.X.col(0).maxCoeff() - b.X.col(0).minCoeff());  // half off the box
  SurfacePanel plain = box_panel(b.X, b.F, kBlue);
  std::vector<Eigen::MatrixXd> all = {b.X, moved};
  const Camera cam = default_camera(all);
  write_surface_png(path("plain.png"), {plain}, cam, 0, small());
  SurfacePanel ghosted = plain;
  ghosted.ghost_states = {moved};
  write_surface_png(path("ghost.png"), {ghosted}, cam, 0, small());
  SurfacePanel ghost_only = box_panel(moved, b.F, kBlue);
  write_surface_png(path("ghost_only.png"), {ghost_only}, cam, 0, small());
  const Image a = load_png(path("plain.png")), g = load_png(path("ghost.png")), m = load_png(path("ghost_only.png"));
  const std::array<int, 3> white{255, 255, 255};
  int changed = 0, tinted_background = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      const bool ghost_here = m.at(x, y) != white;
      if (!ghost_here) {
        ASSERT_EQ(g.at(x, y), a.at(x, y)) << "a pixel the ghost does not cover changed at " << x << ", " << y;
        continue;
      }
      if (g.at(x, y) != a.at(x, y)) ++changed;
      if (a.at(x, y) == white && g.at(x, y) != white) ++tinted_background;
    }
  EXPECT_GT(changed, 1000);
  EXPECT_GT(tinted_background, 300) << "where the ghost leaves the box it shows on the background";
  SurfacePanel bad = ghosted;
  bad.ghost_alpha = 0;
  fastcd::test::expect_throw_with<std::invalid_argument>(
      [&] { write_surface_png(path("x.png"), {bad}, cam, 0, small()); }, "ghost_alpha must be in (0, 1]");
  bad = ghosted;
  bad.ghost_states = {moved.topRows(3)};
  EXPECT_THROW(write_surface_png(path("x.png"), {bad}, cam, 0, small()), std::invalid_argument);
}

// Where point p lands on screen through `cam`, in units of tan(fov / 2): |x|, |y| <= 1 is in view
// (the renderer scales both axes by the shorter side of the panel).
Eigen::Vector2d on_screen(const Camera& cam, const Eigen::Vector3d& p) {
  const Eigen::Vector3d f = (cam.target - cam.eye).normalized();
  const Eigen::Vector3d r = f.cross(cam.up).normalized();
  const Eigen::Vector3d u = r.cross(f);
  const Eigen::Vector3d q = p - cam.eye;
  const double t = std::tan(0.5 * cam.fov_deg * M_PI / 180);
  return Eigen::Vector2d(q.dot(r), q.dot(u)) / (q.dot(f) * t);
}

// Screen extent [x0, x1] x [y0, y1] of X through cam.
Eigen::Vector4d extent(const Camera& cam, const Eigen::MatrixXd& X) {
  Eigen::Vector4d e(1e300, -1e300, 1e300, -1e300);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const Eigen::Vector2d s = on_screen(cam, X.row(i).transpose());
    e = Eigen::Vector4d(std::min(e[0], s.x()), std::max(e[1], s.x()), std::min(e[2], s.y()), std::max(e[3], s.y()));
  }
  return e;
}

// A subject travelling 40 box lengths: the camera follows it at one distance for the shot, aims
// at its (moving-average) centre, keeps every vertex of every frame inside `fill` and shows it
// large; a subject jiggling in place gets one fixed camera, centred on screen and filled.
TEST(Render3dBasics, TrackCameraFollowsATravellerAndHoldsStillForAJiggle) {
  const Box b = stretched_box();
  const double fill = 0.9;
  std::vector<Eigen::MatrixXd> walk;
  for (int f = 0; f < 60; ++f) {
    Eigen::MatrixXd Y = b.X;
    Y.col(0).array() += 40.0 * f / 59.0;
    walk.push_back(Y);
  }
  const CameraTrack track = track_camera(walk, 9, fill);
  ASSERT_TRUE(track.follows);
  ASSERT_EQ(track.cameras.size(), walk.size());
  double largest = 0;
  for (std::size_t f = 0; f < walk.size(); ++f) {
    const Camera& cam = track.cameras[f];
    const Eigen::Vector4d e = extent(cam, walk[f]);
    EXPECT_GE(e[0], -fill - 1e-9) << "frame " << f;
    EXPECT_LE(e[1], fill + 1e-9) << "frame " << f;
    EXPECT_GE(e[2], -fill - 1e-9) << "frame " << f;
    EXPECT_LE(e[3], fill + 1e-9) << "frame " << f;
    largest = std::max(largest, e[1] - e[0]);
    EXPECT_NEAR((cam.eye - cam.target).norm(), (track.cameras[0].eye - track.cameras[0].target).norm(), 1e-9);
    // Away from the ends the window is whole, and the mean of a steady slide is the centre.
    if (f >= 4 && f + 4 < walk.size()) {
      const Eigen::Vector3d centre = 0.5 * (walk[f].colwise().minCoeff() + walk[f].colwise().maxCoeff()).transpose();
      EXPECT_LT((cam.target - centre).norm(), 1e-9) << "frame " << f;
    }
  }
  EXPECT_GT(largest, 1.2) << "the travelling box fills well over half the panel's width";

  std::vector<Eigen::MatrixXd> jiggle;
  for (int f = 0; f < 30; ++f) jiggle.push_back(b.X * (1 + 0.05 * std::sin(0.7 * f)));
  const CameraTrack still = track_camera(jiggle, 9, fill);
  ASSERT_FALSE(still.follows);
  ASSERT_EQ(still.cameras.size(), 1u);
  Eigen::Vector4d all(1e300, -1e300, 1e300, -1e300);
  for (const auto& X : jiggle) {
    const Eigen::Vector4d e = extent(still.cameras[0], X);
    all =
        Eigen::Vector4d(std::min(all[0], e[0]), std::max(all[1], e[1]), std::min(all[2], e[2]), std::max(all[3], e[3]));
  }
  EXPECT_GE(all[0], -fill - 1e-9);
  EXPECT_LE(all[1], fill + 1e-9);
  EXPECT_GE(all[2], -fill - 1e-9);
  EXPECT_LE(all[3], fill + 1e-9);
  EXPECT_GT(std::max(all[1] - all[0], all[3] - all[2]), 2 * fill - 1e-3) << "the fit is tight on one axis";
  EXPECT_NEAR(all[0] + all[1], 0, 1e-3) << "centred across";
  EXPECT_NEAR(all[2] + all[3], 0, 1e-3) << "centred up and down";

  EXPECT_THROW(track_camera({}, 1), std::invalid_argument);
  EXPECT_THROW(track_camera(jiggle, 0), std::invalid_argument);
  EXPECT_THROW(track_camera(jiggle, 1, 0.0), std::invalid_argument);
  EXPECT_THROW(track_camera(jiggle, 1, 1.5), std::invalid_argument);
  EXPECT_THROW(track_camera({Eigen::MatrixXd(0, 3)}, 1), std::invalid_argument);
  auto nan = jiggle;
  nan[7](3, 2) = std::numeric_limits<double>::quiet_NaN();
  fastcd::test::expect_throw_with<std::invalid_argument>([&] { track_camera(nan, 1); }, "frame 7");
}

// Streaming: a producer thread fills the frames while the video is written; the result is the
// video of the finished frames, frame for frame. A producer that gives up leaves no file, a
// bad streamed frame is named, and a camera per frame must be one per frame.
TEST_F(Render3dTest, StreamedVideoEqualsTheFinishedOne) {
  const Box b = stretched_box();
  std::vector<SurfacePanel> done(2);
  done[0] = box_panel(b.X, b.F, kRed, "rig");
  done[1] = box_panel(b.X, b.F, kBlue, "cd");
  done[0].states.clear();
  done[1].states.clear();
  for (int f = 0; f < 12; ++f) {
    const Eigen::Matrix3d R = Eigen::AngleAxisd(0.1 * f, Eigen::Vector3d::UnitY()).toRotationMatrix();
    done[0].states.push_back(b.X * R.transpose());
    done[1].states.push_back(b.X * R.transpose() * (1 + 0.03 * f));
  }
  done[1].ghost_states = done[0].states;
  std::vector<Eigen::MatrixXd> all = done[0].states;
  all.insert(all.end(), done[1].states.begin(), done[1].states.end());
  const CameraTrack track = track_camera(all, 1, 0.9);
  const std::vector<Camera> per_frame(12, track.cameras[0]);
  SurfaceAnimationOptions opt = small(96, 80);
  opt.fps = 12;
  write_surface_animation(path("finished.mp4"), done, per_frame, opt);

  auto streamed = [&](int give, const std::string& out, std::function<void(int, std::vector<SurfacePanel>&)> edit) {
    std::vector<SurfacePanel> live = done;
    for (auto& p : live) std::fill(p.states.begin(), p.states.end(), Eigen::MatrixXd());
    FrameFeed feed;
    SurfaceAnimationOptions o = opt;
    o.feed = &feed;
    std::thread producer([&] {
      for (int f = 0; f < give; ++f) {
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
        for (std::size_t p = 0; p < live.size(); ++p) live[p].states[f] = done[p].states[f];
        if (edit) edit(f, live);
        feed.publish(f + 1);
      }
      if (give < 12) feed.abort("the producer stopped at frame " + std::to_string(give));
    });
    try {
      write_surface_animation(path(out), live, per_frame, o);
    } catch (...) {
      feed.abort("the writer failed");
      producer.join();
      throw;
    }
    producer.join();
  };
  streamed(12, "streamed.mp4", nullptr);
  EXPECT_EQ(probe(path("streamed.mp4")), probe(path("finished.mp4")));
  const auto decoded = [&](const std::string& f) {
    return run("ffmpeg -v error -i '" + path(f) + "' -f rawvideo -pix_fmt rgb24 - | md5sum");
  };
  EXPECT_EQ(decoded("streamed.mp4"), decoded("finished.mp4"));
  EXPECT_EQ(decoded("streamed.mp4").size(), 36u);  // a digest, not an error

  fastcd::test::expect_throw_with<std::runtime_error>([&] { streamed(5, "gave_up.mp4", nullptr); },
                                                      "the producer stopped at frame 5");
  const std::string bad = invalid_message([&] {
    streamed(12, "nan.mp4", [](int f, std::vector<SurfacePanel>& live) {
      if (f == 3) live[1].states[3](2, 1) = std::numeric_limits<double>::quiet_NaN();
    });
  });
  EXPECT_NE(bad.find("panel 1 ('cd'): state 3"), std::string::npos) << bad;
  EXPECT_EQ(listing(), (std::set<std::string>{"finished.mp4", "streamed.mp4"}));

  const std::string count = invalid_message(
      [&] { write_surface_animation(path("x.mp4"), done, std::vector<Camera>(5, track.cameras[0]), opt); });
  EXPECT_NE(count.find("5 cameras for 12 frames"), std::string::npos) << count;
  fastcd::test::expect_throw_with<std::invalid_argument>(
      [&] {
        SurfaceAnimationOptions o = opt;
        FrameFeed feed;
        o.feed = &feed;
        write_surface_png(path("x.png"), done, track.cameras[0], 0, o);
      },
      "a feed is for videos");
}

}  // namespace test_render3d
