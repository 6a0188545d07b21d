#include "fastcd/viz/render2d.hpp"
#include "test_util.hpp"
#include "viz/render_test_util.hpp"

#include <gtest/gtest.h>

#include <cairo.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace fastcd;

namespace test_render2d {

using fastcd::test::probe;
using fastcd::test::run;
using fastcd::test::with_path;

// ---------------------------------------------------------------- helpers

// A (nx+1) x (ny+1) vertex grid on [x0,x1] x [y0,y1], two triangles per cell.
void grid_mesh(int nx, int ny, double x0, double x1, double y0, double y1, Eigen::MatrixXd& X, Eigen::MatrixXi& T) {
  X.resize((nx + 1) * (ny + 1), 2);
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      X(j * (nx + 1) + i, 0) = x0 + (x1 - x0) * i / nx;
      X(j * (nx + 1) + i, 1) = y0 + (y1 - y0) * j / ny;
    }
  T.resize(2 * nx * ny, 3);
  int t = 0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int a = j * (nx + 1) + i, b = a + 1, c = a + nx + 1, d = c + 1;
      T.row(t++) << a, b, d;
      T.row(t++) << a, d, c;
    }
}

struct Png {
  int width = 0, height = 0;
  std::vector<std::array<int, 3>> rgb;  // row-major
  std::array<int, 3> at(int x, int y) const { return rgb[static_cast<std::size_t>(y * width + x)]; }
  // Number of pixels within `tol` (0..255 units, per channel) of colour c.
  int count(const Rgb& c, int tol) const {
    const int r = static_cast<int>(std::lround(c.r * 255)), g = static_cast<int>(std::lround(c.g * 255)),
              b = static_cast<int>(std::lround(c.b * 255));
    int n = 0;
    for (const auto& p : rgb)
      if (std::abs(p[0] - r) <= tol && std::abs(p[1] - g) <= tol && std::abs(p[2] - b) <= tol) ++n;
    return n;
  }
};

Png load_png(const std::string& path) {
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> s(
      cairo_image_surface_create_from_png(path.c_str()), &cairo_surface_destroy);
  if (cairo_surface_status(s.get()) != CAIRO_STATUS_SUCCESS) throw std::runtime_error("cannot decode " + path);
  cairo_surface_flush(s.get());
  Png out;
  out.width = cairo_image_surface_get_width(s.get());
  out.height = cairo_image_surface_get_height(s.get());
  const int stride = cairo_image_surface_get_stride(s.get());
  const unsigned char* d = cairo_image_surface_get_data(s.get());
  const cairo_format_t fmt = cairo_image_surface_get_format(s.get());
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      std::uint32_t px;
      std::memcpy(&px, d + y * stride + 4 * x, 4);
      int a = fmt == CAIRO_FORMAT_ARGB32 ? static_cast<int>(px >> 24) : 255;
      int r = (px >> 16) & 0xff, g = (px >> 8) & 0xff, b = px & 0xff;
      if (a > 0 && a < 255) {  // un-premultiply
        r = r * 255 / a;
        g = g * 255 / a;
        b = b * 255 / a;
      }
      out.rgb.push_back({r, g, b});
    }
  return out;
}

class Render2dTest : public fastcd::test::TempDir {
 protected:
  // Two panels: a 4x2-cell patch swinging (5 frames) and a 2x1 patch (3 frames).
  std::vector<MeshPanel> tiny_panels() const {
    std::vector<MeshPanel> panels(2);
    Eigen::MatrixXd X;
    grid_mesh(4, 2, -0.5, 0.5, -0.25, 0.25, X, panels[0].T);
    for (int f = 0; f < 5; ++f) {
      Eigen::MatrixXd Y = X;
      Y.col(0).array() += 0.1 * f;
      panels[0].states.push_back(Y);
    }
    grid_mesh(2, 1, -0.3, 0.3, -0.2, 0.2, X, panels[1].T);
    for (int f = 0; f < 3; ++f) {
      Eigen::MatrixXd Y = X;
      Y.col(1).array() -= 0.1 * f;
      panels[1].states.push_back(Y);
    }
    panels[0].title = "rig";
    panels[0].color = rgb_from_hex("#d62728");
    panels[1].title = "full";
    panels[1].color = rgb_from_hex("#1f77b4");
    return panels;
  }
};

// ---------------------------------------------------------------- colours / ticks

TEST(Render2dBasics, RgbFromHex) {
  const Rgb c = rgb_from_hex("#d62728");
  EXPECT_NEAR(c.r, 214 / 255.0, 1e-12);
  EXPECT_NEAR(c.g, 39 / 255.0, 1e-12);
  EXPECT_NEAR(c.b, 40 / 255.0, 1e-12);
  const Rgb w = rgb_from_hex("#FFF");
  EXPECT_EQ(w.r, 1.0);
  EXPECT_EQ(w.b, 1.0);
  for (const char* bad : {"", "d62728", "#d6272", "#d627289", "#g62728", "#12345z", "red"})
    EXPECT_THROW(rgb_from_hex(bad), std::invalid_argument) << bad;
}

TEST(Render2dBasics, Tab20MatchesMatplotlib) {
  EXPECT_NEAR(kTab20[0].r, 0x1f / 255.0, 1e-12);
  EXPECT_NEAR(kTab20[6].g, 0x27 / 255.0, 1e-12);
  EXPECT_NEAR(kTab20[19].b, 0xe5 / 255.0, 1e-12);
  auto idx = [](const Rgb& c) {
    for (std::size_t i = 0; i < kTab20.size(); ++i)
      if (kTab20[i].r == c.r && kTab20[i].g == c.g && kTab20[i].b == c.b) return static_cast<int>(i);
    return -1;
  };
  EXPECT_EQ(idx(tab20_color(0, 0, 3)), 0);
  EXPECT_EQ(idx(tab20_color(1, 0, 3)), 6);   // floor(1/3*20)
  EXPECT_EQ(idx(tab20_color(2, 0, 3)), 13);  // floor(2/3*20)
  EXPECT_EQ(idx(tab20_color(3, 0, 3)), 19);  // 20 clipped
  EXPECT_EQ(idx(tab20_color(19, 0, 19)), 19);
  EXPECT_EQ(idx(tab20_color(9, 0, 19)), 9);
  EXPECT_EQ(idx(tab20_color(5, 5, 5)), 0);  // degenerate range
}

TEST(Render2dBasics, NiceTicksLikeMaxNLocator) {
  auto t = nice_ticks(-1.6, 1.6, 9);
  ASSERT_GE(t.size(), 7u);
  for (std::size_t i = 1; i < t.size(); ++i) EXPECT_NEAR(t[i] - t[i - 1], 0.5, 1e-12);
  EXPECT_NE(std::find(t.begin(), t.end(), 0.0), t.end());
  EXPECT_EQ(nice_ticks(0, 10, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  auto u = nice_ticks(0, 1, 4);  // steps 0.25
  EXPECT_NEAR(u[1] - u[0], 0.25, 1e-12);
  EXPECT_THROW(nice_ticks(1, 1, 5), std::invalid_argument);
  EXPECT_THROW(nice_ticks(0, 1, 0), std::invalid_argument);
}

TEST(Render2dBasics, AutoLimitsPadsGlobalRange) {
  Eigen::MatrixXd A(2, 2), B(1, 2);
  A << 0, 0, 1, 2;
  B << -1, 5;
  const Limits l = auto_limits({A, B}, 0.6);
  EXPECT_DOUBLE_EQ(l.xmin, -1.6);
  EXPECT_DOUBLE_EQ(l.xmax, 1.6);
  EXPECT_DOUBLE_EQ(l.ymin, -0.6);
  EXPECT_DOUBLE_EQ(l.ymax, 5.6);
  EXPECT_THROW(auto_limits({}, 0.6), std::invalid_argument);
  Eigen::MatrixXd C(1, 3);
  C.setZero();
  EXPECT_THROW(auto_limits({C}, 0.6), std::invalid_argument);
}

// ---------------------------------------------------------------- PNGs

TEST_F(Render2dTest, ClusterPngDecodesWithLabelColours) {
  Eigen::MatrixXd X;
  Eigen::MatrixXi T;
  grid_mesh(8, 2, -1, 1, -0.2, 0.2, X, T);
  Eigen::VectorXi labels(T.rows());
  for (int t = 0; t < T.rows(); ++t) labels(t) = (t / 8) % 4;  // 0..3
  write_cluster_png(path("c.png"), X, T, labels, "rotation clusters (one shared rotation each)");
  EXPECT_EQ(listing(), std::set<std::string>{"c.png"});
  const Png png = load_png(path("c.png"));
  EXPECT_EQ(png.width, 1200);
  EXPECT_EQ(png.height, 450);
  EXPECT_EQ(png.at(0, 0), (std::array<int, 3>{255, 255, 255}));
  EXPECT_EQ(png.at(png.width - 1, png.height - 1), (std::array<int, 3>{255, 255, 255}));
  for (int idx : {0, 6, 13, 19}) EXPECT_GT(png.count(kTab20[idx], 1), 100) << "tab20[" << idx << "]";
  EXPECT_EQ(png.count(kTab20[3], 1), 0);
}

TEST_F(Render2dTest, ClusterPngRejectsBadInput) {
  Eigen::MatrixXd X;
  Eigen::MatrixXi T;
  grid_mesh(2, 1, 0, 1, 0, 1, X, T);
  Eigen::VectorXi labels = Eigen::VectorXi::Zero(T.rows());
  EXPECT_THROW(write_cluster_png(path("c.png"), X, T, Eigen::VectorXi::Zero(1), "t"), std::invalid_argument);
  Eigen::MatrixXi Tbad = T;
  Tbad(1, 2) = static_cast<int>(X.rows());
  try {
    write_cluster_png(path("c.png"), X, Tbad, labels, "t");
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("T(1, 2) = 6"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("6 vertices"), std::string::npos) << e.what();
  }
  Eigen::MatrixXd Xnan = X;
  Xnan(0, 1) = std::nan("");
  EXPECT_THROW(write_cluster_png(path("c.png"), Xnan, T, labels, "t"), std::invalid_argument);
  EXPECT_THROW(write_cluster_png(path("no/dir/c.png"), X, T, labels, "t"), std::runtime_error);
  EXPECT_TRUE(listing().empty());
}

TEST_F(Render2dTest, TimingPngDecodesWithSeriesColours) {
  const Rgb red = rgb_from_hex("#d62728"), blue = rgb_from_hex("#1f77b4");
  std::vector<Series> left = {
      {"full", {200, 400, 800, 1600}, {2e-3, 8e-3, 3.5e-2, 0.14}, red},
      {"reduced", {200, 400, 800, 1600}, {2e-4, 2.5e-4, 3e-4, 4e-4}, blue},
  };
  std::vector<Series> right = {{"speedup", {200, 400, 800, 1600}, {10, 32, 116, 350}, {0.2, 0.2, 0.2}}};
  write_timing_png(path("t.png"), left, true, "time per step", "vertices", "seconds", right, "speed-up",
                   "full / reduced");
  EXPECT_EQ(listing(), std::set<std::string>{"t.png"});
  const Png png = load_png(path("t.png"));
  EXPECT_EQ(png.width, 1950);
  EXPECT_EQ(png.height, 630);
  EXPECT_EQ(png.at(0, 0), (std::array<int, 3>{255, 255, 255}));
  EXPECT_GT(png.count(red, 2), 200);
  EXPECT_GT(png.count(blue, 2), 200);
  EXPECT_GT(png.count({0.2, 0.2, 0.2}, 2), 200);
}

TEST_F(Render2dTest, TimingPngRejectsBadInput) {
  std::vector<Series> ok = {{"a", {1, 2}, {1, 2}, {0, 0, 0}}};
  std::vector<Series> mismatched = {{"a", {1, 2, 3}, {1, 2}, {0, 0, 0}}};
  std::vector<Series> nonpositive = {{"a", {1, 2}, {0, -1}, {0, 0, 0}}};
  EXPECT_THROW(write_timing_png(path("t.png"), mismatched, false, "", "", "", ok, "", ""), std::invalid_argument);
  EXPECT_THROW(write_timing_png(path("t.png"), nonpositive, true, "", "", "", ok, "", ""), std::invalid_argument);
  EXPECT_THROW(write_timing_png(path("t.png"), ok, false, "", "", "", {}, "", ""), std::invalid_argument);
  EXPECT_THROW(write_timing_png(path("missing/t.png"), ok, false, "", "", "", ok, "", ""), std::runtime_error);
  EXPECT_TRUE(listing().empty());
}

// ---------------------------------------------------------------- animation

TEST_F(Render2dTest, PanelAnimationEncodesAllFrames) {
  AnimationOptions opt;
  opt.suptitle = "test";
  std::vector<std::pair<int, int>> calls;
  write_panel_animation(path("a.mp4"), tiny_panels(), opt,
                        [&](int done, int total) { calls.emplace_back(done, total); });
  EXPECT_EQ(listing(), std::set<std::string>{"a.mp4"});
  EXPECT_EQ(probe(path("a.mp4")), (std::vector<int>{1040, 440, 5}));
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls.back(), (std::pair<int, int>{5, 5}));

  // The last frame shows both panel colours on a white background.
  const std::string png = path("last.png");
  run("ffmpeg -v error -y -sseof -0.1 -i '" + path("a.mp4") + "' -frames:v 1 -update 1 '" + png + "' 2>&1");
  const Png frame = load_png(png);
  EXPECT_EQ(frame.width, 1040);
  EXPECT_GT(frame.count({1, 1, 1}, 3), 1040 * 440 / 2);
  EXPECT_GT(frame.count(rgb_from_hex("#d62728"), 24), 200);
  EXPECT_GT(frame.count(rgb_from_hex("#1f77b4"), 24), 200);
}

TEST_F(Render2dTest, PanelAnimationRoundsToEvenSize) {
  AnimationOptions opt;
  opt.panel_width_in = 1.01;  // 2 x 101 px = 202
  opt.height_in = 1.01;       // 101 px -> 102
  opt.fps = 10;
  write_panel_animation(path("odd.mp4"), tiny_panels(), opt);
  EXPECT_EQ(probe(path("odd.mp4")), (std::vector<int>{202, 102, 5}));
}

TEST_F(Render2dTest, PanelAnimationBadDirectoryThrows) {
  EXPECT_THROW(write_panel_animation(path("no/such/dir/a.mp4"), tiny_panels(), AnimationOptions{}), std::runtime_error);
  EXPECT_TRUE(listing().empty());
}

TEST_F(Render2dTest, PanelAnimationRejectsBadInput) {
  const AnimationOptions opt;
  EXPECT_THROW(write_panel_animation(path("a.mp4"), {}, opt), std::invalid_argument);
  {
    auto p = tiny_panels();
    p[1].states.clear();
    EXPECT_THROW(write_panel_animation(path("a.mp4"), p, opt), std::invalid_argument);
  }
  {
    auto p = tiny_panels();
    p[0].T(3, 1) = 15;  // 15 vertices in the 4x2 grid
    try {
      write_panel_animation(path("a.mp4"), p, opt);
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("T(3, 1) = 15"), std::string::npos) << m;
      EXPECT_NE(m.find("15 vertices"), std::string::npos) << m;
    }
  }
  {
    auto p = tiny_panels();
    p[1].states[2].conservativeResize(Eigen::NoChange, 3);
    EXPECT_THROW(write_panel_animation(path("a.mp4"), p, opt), std::invalid_argument);
  }
  {
    auto p = tiny_panels();
    p[0].states[4](0, 0) = std::numeric_limits<double>::infinity();
    EXPECT_THROW(write_panel_animation(path("a.mp4"), p, opt), std::invalid_argument);
  }
  {
    auto p = tiny_panels();
    p[0].T.conservativeResize(Eigen::NoChange, 2);
    EXPECT_THROW(write_panel_animation(path("a.mp4"), p, opt), std::invalid_argument);
  }
  {
    AnimationOptions bad;
    bad.fps = 0;
    EXPECT_THROW(write_panel_animation(path("a.mp4"), tiny_panels(), bad), std::invalid_argument);
  }
  EXPECT_TRUE(listing().empty());
}

TEST_F(Render2dTest, FailingFfmpegThrowsWithItsMessageAndLeavesNoTemp) {
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
      write_panel_animation((dir_ / "out" / "a.mp4").string(), tiny_panels(), AnimationOptions{});
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("codec exploded"), std::string::npos) << m;
      EXPECT_NE(m.find("exit status 3"), std::string::npos) << m;
    }
  });
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
}

TEST_F(Render2dTest, MissingFfmpegThrows) {
  fs::create_directory(dir_ / "empty");
  fs::create_directory(dir_ / "out");
  with_path((dir_ / "empty").string(), [&] {
    try {
      write_panel_animation((dir_ / "out" / "a.mp4").string(), tiny_panels(), AnimationOptions{});
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("ffmpeg"), std::string::npos) << e.what();
    }
  });
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
}

TEST_F(Render2dTest, ProgressExceptionPropagatesAndLeavesNoTemp) {
  EXPECT_THROW(write_panel_animation(path("a.mp4"), tiny_panels(), AnimationOptions{},
                                     [](int done, int) {
                                       if (done == 2) throw std::logic_error("stop");
                                     }),
               std::logic_error);
  EXPECT_TRUE(listing().empty());
}

}  // namespace test_render2d
