#include "fastcd/viz/render2d.hpp"

#include "fastcd/viz/painter.hpp"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <utility>

namespace fastcd {

using namespace detail;  // shared Cairo / text / ffmpeg helpers (painter.hpp)

// tab20 (matplotlib/_cm.py, _tab20_data).
const std::array<Rgb, 20> kTab20 = {{
    {0.12156862745098039, 0.4666666666666667, 0.7058823529411765},   // #1f77b4
    {0.6823529411764706, 0.7803921568627451, 0.9098039215686274},    // #aec7e8
    {1.0, 0.4980392156862745, 0.054901960784313725},                 // #ff7f0e
    {1.0, 0.7333333333333333, 0.47058823529411764},                  // #ffbb78
    {0.17254901960784313, 0.6274509803921569, 0.17254901960784313},  // #2ca02c
    {0.596078431372549, 0.8745098039215686, 0.5411764705882353},     // #98df8a
    {0.8392156862745098, 0.15294117647058825, 0.1568627450980392},   // #d62728
    {1.0, 0.596078431372549, 0.5882352941176471},                    // #ff9896
    {0.5803921568627451, 0.403921568627451, 0.7411764705882353},     // #9467bd
    {0.7725490196078432, 0.6901960784313725, 0.8352941176470589},    // #c5b0d5
    {0.5490196078431373, 0.33725490196078434, 0.29411764705882354},  // #8c564b
    {0.7686274509803922, 0.611764705882353, 0.5803921568627451},     // #c49c94
    {0.8901960784313725, 0.4666666666666667, 0.7607843137254902},    // #e377c2
    {0.9686274509803922, 0.7137254901960784, 0.8235294117647058},    // #f7b6d2
    {0.4980392156862745, 0.4980392156862745, 0.4980392156862745},    // #7f7f7f
    {0.7803921568627451, 0.7803921568627451, 0.7803921568627451},    // #c7c7c7
    {0.7372549019607844, 0.7411764705882353, 0.13333333333333333},   // #bcbd22
    {0.8588235294117647, 0.8588235294117647, 0.5529411764705883},    // #dbdb8d
    {0.09019607843137255, 0.7450980392156863, 0.8117647058823529},   // #17becf
    {0.6196078431372549, 0.8549019607843137, 0.8980392156862745},    // #9edae5
}};

namespace {

// Matplotlib default rc values (points unless noted).
constexpr double kTickLabelSize = 10;  // xtick/ytick.labelsize "medium"
constexpr double kLabelSize = 10;      // axes.labelsize "medium"
constexpr double kLegendSize = 10;     // legend.fontsize "medium"
constexpr double kMajorTickLen = 3.5, kMajorTickWidth = 0.8;
constexpr double kMinorTickLen = 2.0, kMinorTickWidth = 0.6;
constexpr double kTickPad = 3.5;
constexpr double kSpineWidth = 0.8;
constexpr double kTitlePad = 6.0;
constexpr double kLabelPad = 4.0;
constexpr double kGridWidth = 0.8;
constexpr Rgb kGridColor = grey(0.9);
const char* const kMinus = "\xe2\x88\x92";  // U+2212, as matplotlib uses for tick labels

std::string with_unicode_minus(std::string s) {
  if (!s.empty() && s[0] == '-') s.replace(0, 1, kMinus);
  return s;
}

// ======================================================================
// Scales, locators, formatters
// ======================================================================

struct Scale {
  double vmin = 0, vmax = 1;
  bool log = false;
  /// Fraction of the axis length of value v (0 at vmin, 1 at vmax).
  double frac(double v) const {
    if (log) return (std::log10(v) - std::log10(vmin)) / (std::log10(vmax) - std::log10(vmin));
    return (v - vmin) / (vmax - vmin);
  }
  bool contains(double v) const {
    if (log) {
      if (!(v > 0)) return false;
      const double lv = std::log10(v), a = std::log10(vmin), b = std::log10(vmax);
      const double tol = 1e-10 * (b - a);
      return lv >= a - tol && lv <= b + tol;
    }
    const double tol = 1e-10 * (vmax - vmin);
    return v >= vmin - tol && v <= vmax + tol;
  }
};

struct AxisTicks {
  std::vector<double> major, minor;               // visible tick values
  std::vector<Label> major_labels, minor_labels;  // parallel to major / minor
  Label offset;                                   // e.g. "1e-5" (scientific order)
};

// Matplotlib's mpl.ticker.ScalarFormatter (no offset; powerlimits -5, 6).
void format_scalar(const std::vector<double>& locs, AxisTicks& t) {
  t.major_labels.assign(locs.size(), Label{});
  if (locs.empty()) return;
  double amax = 0;
  for (double v : locs) amax = std::max(amax, std::abs(v));
  int order = 0;
  if (amax > 0) {
    const int oom = static_cast<int>(std::floor(std::log10(amax)));
    if (oom <= -5 || oom >= 6) order = oom;
  }
  const double div = std::pow(10.0, order);
  std::vector<double> scaled;
  scaled.reserve(locs.size());
  for (double v : locs) scaled.push_back(v / div);
  double lo = *std::min_element(scaled.begin(), scaled.end());
  double hi = *std::max_element(scaled.begin(), scaled.end());
  double range = hi - lo;
  if (range == 0) range = std::max(std::abs(lo), std::abs(hi));
  if (range == 0) range = 1;
  const int range_oom = static_cast<int>(std::floor(std::log10(range)));
  int sigfigs = std::max(0, 3 - range_oom);
  const double thresh = 1e-3 * std::pow(10.0, range_oom);
  while (sigfigs >= 0) {
    const double p = std::pow(10.0, sigfigs);
    double worst = 0;
    for (double v : scaled) worst = std::max(worst, std::abs(v - std::round(v * p) / p));
    if (worst < thresh)
      --sigfigs;
    else
      break;
  }
  ++sigfigs;
  for (std::size_t i = 0; i < scaled.size(); ++i) {
    double v = scaled[i];
    if (std::abs(v) < 1e-8) v = 0;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", sigfigs, v);
    std::string s = buf;
    if (s[0] == '-' && std::strspn(s.c_str() + 1, "0.") == s.size() - 1) s.erase(0, 1);  // "-0.0"
    t.major_labels[i].text = with_unicode_minus(s);
  }
  if (order != 0) t.offset.text = "1e" + with_unicode_minus(std::to_string(order));
}

AxisTicks linear_ticks(const Scale& sc, int nbins) {
  AxisTicks t;
  for (double v : nice_ticks(sc.vmin, sc.vmax, nbins))
    if (sc.contains(v)) t.major.push_back(v);
  format_scalar(t.major, t);
  return t;
}

// Matplotlib's LogLocator(base 10) + LogFormatterSciNotation (labelling of
// minor ticks when the axis spans at most one decade, minor_thresholds (1, 0.4)).
AxisTicks log_ticks(const Scale& sc, int numticks) {
  AxisTicks t;
  const double lmin = std::log10(sc.vmin), lmax = std::log10(sc.vmax);
  const double numdec = std::floor(lmax) - std::ceil(lmin);
  const int stride = std::max(1, static_cast<int>(std::ceil(numdec / (numticks - 1))));
  const int k0 = static_cast<int>(std::floor(lmin)) - stride;
  const int k1 = static_cast<int>(std::ceil(lmax)) + stride;
  const double span = lmax - lmin;
  const bool label_minor_all = span <= 0.4;
  const bool label_minor_subset = span <= 1.0;
  for (int k = k0; k <= k1; k += stride) {
    const double v = std::pow(10.0, k);
    if (sc.contains(v)) {
      t.major.push_back(v);
      t.major_labels.push_back(Label{"10", with_unicode_minus(std::to_string(k))});
    }
    if (stride != 1) continue;
    for (int s = 2; s <= 9; ++s) {
      const double m = s * v;
      if (!sc.contains(m)) continue;
      t.minor.push_back(m);
      const bool lab = label_minor_all || (label_minor_subset && (s == 2 || s == 3 || s == 4 || s == 6));
      if (lab)
        t.minor_labels.push_back(Label{std::to_string(s) + "\xc3\x97"
                                                           "10",
                                       with_unicode_minus(std::to_string(k))});
      else
        t.minor_labels.push_back(Label{});
    }
  }
  return t;
}

// mpl.transforms.nonsingular + axes margins (autoscale of data limits).
std::pair<double, double> autoscale_linear(double lo, double hi, double margin = 0.05) {
  if (hi - lo <= 1e-12 * std::max(std::abs(lo), std::abs(hi)) || hi == lo) {
    if (hi == 0 && lo == 0) {
      lo = -0.05;
      hi = 0.05;
    } else {
      lo -= 0.05 * std::abs(lo);
      hi += 0.05 * std::abs(hi);
    }
  }
  const double d = hi - lo;
  return {lo - margin * d, hi + margin * d};
}

std::pair<double, double> autoscale_log(double lo, double hi, double margin = 0.05) {
  auto [a, b] = autoscale_linear(std::log10(lo), std::log10(hi), margin);
  return {std::pow(10.0, a), std::pow(10.0, b)};
}

// ======================================================================
// Axes geometry and decorations
// ======================================================================

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;  // pixels, y downwards from the top
  double right() const { return x + w; }
  double bottom() const { return y + h; }
};

// plt.subplots(1, n) with the default figure.subplot.* parameters.
std::vector<Rect> subplot_row(double W, double H, int n) {
  constexpr double left = 0.125, right = 0.9, bottom = 0.11, top = 0.88, wspace = 0.2;
  const double tot = (right - left) * W;
  const double cell = tot / (n + wspace * (n - 1));
  const double sep = wspace * cell;
  std::vector<Rect> r;
  for (int i = 0; i < n; ++i) r.push_back(Rect{left * W + i * (cell + sep), (1 - top) * H, cell, (top - bottom) * H});
  return r;
}

struct Axes {
  Rect box;
  Scale x, y;
  AxisTicks xt, yt;
  std::string title, xlabel, ylabel;
  bool grid = false;

  double px(double v) const { return box.x + x.frac(v) * box.w; }
  double py(double v) const { return box.bottom() - y.frac(v) * box.h; }
};

// Tick counts like matplotlib's Axis.get_tick_space.
int x_tick_space(const Painter& P, const Rect& box) {
  return static_cast<int>(std::floor(box.w * 72.0 / P.dpi() / (kTickLabelSize * 3)));
}
int y_tick_space(const Painter& P, const Rect& box) {
  return static_cast<int>(std::floor(box.h * 72.0 / P.dpi() / (kTickLabelSize * 2)));
}

void compute_ticks(const Painter& P, Axes& ax) {
  const int nx = std::clamp(x_tick_space(P, ax.box), 1, 9);
  const int ny = std::clamp(y_tick_space(P, ax.box), 1, 9);
  ax.xt = linear_ticks(ax.x, nx);
  ax.yt = ax.y.log ? log_ticks(ax.y, std::clamp(y_tick_space(P, ax.box), 2, 9)) : linear_ticks(ax.y, ny);
}

// set_aspect("equal", adjustable="datalim"): widen the range that is too
// short for the box around its centre.
void equal_aspect_datalim(Axes& ax) {
  const double xr = ax.x.vmax - ax.x.vmin, yr = ax.y.vmax - ax.y.vmin;
  const double box_ratio = ax.box.h / ax.box.w;
  if (yr / xr < box_ratio) {
    const double c = 0.5 * (ax.y.vmin + ax.y.vmax), half = 0.5 * xr * box_ratio;
    ax.y.vmin = c - half;
    ax.y.vmax = c + half;
  } else {
    const double c = 0.5 * (ax.x.vmin + ax.x.vmax), half = 0.5 * yr / box_ratio;
    ax.x.vmin = c - half;
    ax.x.vmax = c + half;
  }
}

// Coordinate of a crisp line of the given pixel width (matplotlib snaps).
double snap(double v, double lw_px) {
  const long w = std::lround(lw_px);
  if (w <= 1 || (w % 2) == 1) return std::floor(v) + 0.5;
  return std::round(v);
}

void draw_face(Painter& P, const Axes& ax) {
  cairo_t* cr = P.cr();
  set_color(cr, kWhite);
  cairo_rectangle(cr, ax.box.x, ax.box.y, ax.box.w, ax.box.h);
  cairo_fill(cr);
}

void draw_grid(Painter& P, const Axes& ax) {
  if (!ax.grid) return;
  cairo_t* cr = P.cr();
  const double lw = P.pt(kGridWidth);
  cairo_save(cr);
  cairo_rectangle(cr, ax.box.x, ax.box.y, ax.box.w, ax.box.h);
  cairo_clip(cr);
  cairo_set_line_width(cr, lw);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
  set_color(cr, kGridColor);
  for (double v : ax.xt.major) {
    const double x = snap(ax.px(v), lw);
    cairo_move_to(cr, x, ax.box.y);
    cairo_line_to(cr, x, ax.box.bottom());
  }
  for (double v : ax.yt.major) {
    const double y = snap(ax.py(v), lw);
    cairo_move_to(cr, ax.box.x, y);
    cairo_line_to(cr, ax.box.right(), y);
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

void draw_spines(Painter& P, const Axes& ax) {
  cairo_t* cr = P.cr();
  const double lw = P.pt(kSpineWidth);
  const double x0 = snap(ax.box.x, lw), x1 = snap(ax.box.right(), lw);
  const double y0 = snap(ax.box.y, lw), y1 = snap(ax.box.bottom(), lw);
  cairo_set_line_width(cr, lw);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
  set_color(cr, kBlack);
  cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
  cairo_stroke(cr);
}

// Tick marks, tick labels, offset texts, axis labels and title.
void draw_decorations(Painter& P, const Axes& ax) {
  cairo_t* cr = P.cr();
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  set_color(cr, kBlack);
  auto ticks = [&](const std::vector<double>& xs, const std::vector<double>& ys, double len, double width) {
    const double lw = P.pt(width);
    cairo_set_line_width(cr, lw);
    const double bottom = snap(ax.box.bottom(), P.pt(kSpineWidth));
    const double left = snap(ax.box.x, P.pt(kSpineWidth));
    for (double v : xs) {
      const double x = snap(ax.px(v), lw);
      cairo_move_to(cr, x, bottom);
      cairo_line_to(cr, x, bottom + P.pt(len));
    }
    for (double v : ys) {
      const double y = snap(ax.py(v), lw);
      cairo_move_to(cr, left, y);
      cairo_line_to(cr, left - P.pt(len), y);
    }
    cairo_stroke(cr);
  };
  ticks(ax.xt.major, ax.yt.major, kMajorTickLen, kMajorTickWidth);
  ticks(ax.xt.minor, ax.yt.minor, kMinorTickLen, kMinorTickWidth);

  // x tick labels
  double xlab_bottom = ax.box.bottom() + P.pt(kMajorTickLen);
  auto xlabels = [&](const std::vector<double>& vs, const std::vector<Label>& ls, double len) {
    for (std::size_t i = 0; i < vs.size() && i < ls.size(); ++i) {
      if (ls[i].empty()) continue;
      const double top = ax.box.bottom() + P.pt(len + kTickPad);
      P.text(ls[i], ax.px(vs[i]), top, kTickLabelSize, HA::Center, VA::Top);
      xlab_bottom = std::max(xlab_bottom, top + P.measure(ls[i], kTickLabelSize).height());
    }
  };
  xlabels(ax.xt.major, ax.xt.major_labels, kMajorTickLen);
  xlabels(ax.xt.minor, ax.xt.minor_labels, kMinorTickLen);
  // y tick labels
  double ylab_left = ax.box.x - P.pt(kMajorTickLen);
  auto ylabels = [&](const std::vector<double>& vs, const std::vector<Label>& ls, double len) {
    for (std::size_t i = 0; i < vs.size() && i < ls.size(); ++i) {
      if (ls[i].empty()) continue;
      const double right = ax.box.x - P.pt(len + kTickPad);
      P.text(ls[i], right, ax.py(vs[i]), kTickLabelSize, HA::Right, VA::CenterBaseline);
      ylab_left = std::min(ylab_left, right - P.measure(ls[i], kTickLabelSize).width);
    }
  };
  ylabels(ax.yt.major, ax.yt.major_labels, kMajorTickLen);
  ylabels(ax.yt.minor, ax.yt.minor_labels, kMinorTickLen);

  if (!ax.xt.offset.empty()) {
    P.text(ax.xt.offset, ax.box.right(), xlab_bottom + P.pt(1), kTickLabelSize, HA::Right, VA::Top);
    xlab_bottom += P.measure(ax.xt.offset, kTickLabelSize).height() + P.pt(1);
  }
  if (!ax.yt.offset.empty()) P.text(ax.yt.offset, ax.box.x, ax.box.y - P.pt(3), kTickLabelSize, HA::Left, VA::Bottom);

  if (!ax.xlabel.empty())
    P.text(Label{ax.xlabel, {}}, ax.box.x + ax.box.w / 2, xlab_bottom + P.pt(kLabelPad), kLabelSize, HA::Center,
           VA::Top);
  if (!ax.ylabel.empty())
    P.text(Label{ax.ylabel, {}}, ylab_left - P.pt(kLabelPad), ax.box.y + ax.box.h / 2, kLabelSize, HA::Center,
           VA::Bottom, kBlack, /*vertical=*/true);
  if (!ax.title.empty()) {
    double base = ax.box.y - P.pt(kTitlePad);
    if (!ax.yt.offset.empty()) base -= P.measure(ax.yt.offset, kTickLabelSize).height();
    P.text(Label{ax.title, {}}, ax.box.x + ax.box.w / 2, base, kAxesTitleSize, HA::Center, VA::Baseline);
  }
}

// ======================================================================
// Meshes
// ======================================================================

struct MeshTopology {
  std::vector<std::array<int, 3>> tris;
  std::vector<std::pair<int, int>> edges;  // unique undirected edges
};

MeshTopology make_topology(const Eigen::MatrixXi& T) {
  MeshTopology m;
  m.tris.reserve(static_cast<std::size_t>(T.rows()));
  m.edges.reserve(static_cast<std::size_t>(T.rows()) * 3);
  for (Eigen::Index t = 0; t < T.rows(); ++t) {
    std::array<int, 3> tri{T(t, 0), T(t, 1), T(t, 2)};
    m.tris.push_back(tri);
    for (int k = 0; k < 3; ++k) {
      int a = tri[k], b = tri[(k + 1) % 3];
      if (a > b) std::swap(a, b);
      m.edges.emplace_back(a, b);
    }
  }
  std::sort(m.edges.begin(), m.edges.end());
  m.edges.erase(std::unique(m.edges.begin(), m.edges.end()), m.edges.end());
  return m;
}

void to_pixels(const Axes& ax, const Eigen::MatrixXd& X, std::vector<double>& out) {
  out.resize(static_cast<std::size_t>(X.rows()) * 2);
  const double sx = ax.box.w / (ax.x.vmax - ax.x.vmin), sy = ax.box.h / (ax.y.vmax - ax.y.vmin);
  for (Eigen::Index v = 0; v < X.rows(); ++v) {
    out[2 * v] = ax.box.x + (X(v, 0) - ax.x.vmin) * sx;
    out[2 * v + 1] = ax.box.bottom() - (X(v, 1) - ax.y.vmin) * sy;
  }
}

void stroke_edges(cairo_t* cr, const std::vector<double>& P, const MeshTopology& m, Rgb color, double alpha,
                  double lw_px) {
  for (const auto& [a, b] : m.edges) {
    cairo_move_to(cr, P[2 * static_cast<std::size_t>(a)], P[2 * static_cast<std::size_t>(a) + 1]);
    cairo_line_to(cr, P[2 * static_cast<std::size_t>(b)], P[2 * static_cast<std::size_t>(b) + 1]);
  }
  set_color(cr, color, alpha);
  cairo_set_line_width(cr, lw_px);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
  cairo_stroke(cr);
}

void check_triangles(const Eigen::MatrixXi& T, Eigen::Index nv, const std::string& what) {
  if (T.cols() != 3)
    throw std::invalid_argument(what + ": T must be #T x 3, got " + std::to_string(T.rows()) + "x" +
                                std::to_string(T.cols()));
  for (Eigen::Index t = 0; t < T.rows(); ++t)
    for (Eigen::Index k = 0; k < 3; ++k)
      if (T(t, k) < 0 || T(t, k) >= nv)
        throw std::invalid_argument(what + ": T(" + std::to_string(t) + ", " + std::to_string(k) +
                                    ") = " + std::to_string(T(t, k)) + " is out of range for " + std::to_string(nv) +
                                    " vertices");
}

}  // namespace

// ======================================================================
// Public API
// ======================================================================

Rgb rgb_from_hex(const std::string& hex) {
  auto bad = [&]() -> std::invalid_argument {
    return std::invalid_argument("rgb_from_hex: '" + hex + "' is not a colour like \"#d62728\"");
  };
  if (hex.size() != 7 && hex.size() != 4) throw bad();
  if (hex[0] != '#') throw bad();
  auto nib = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw bad();
  };
  int v[3];
  for (int i = 0; i < 3; ++i) {
    if (hex.size() == 7)
      v[i] = nib(hex[1 + 2 * i]) * 16 + nib(hex[2 + 2 * i]);
    else
      v[i] = nib(hex[1 + i]) * 17;
  }
  return {v[0] / 255.0, v[1] / 255.0, v[2] / 255.0};
}

Rgb tab20_color(double value, double vmin, double vmax) {
  double x = vmax > vmin ? (value - vmin) / (vmax - vmin) : 0.0;
  if (!std::isfinite(x)) x = 0;
  int idx = static_cast<int>(std::floor(x * 20));
  return kTab20[static_cast<std::size_t>(std::clamp(idx, 0, 19))];
}

Limits auto_limits(const std::vector<Eigen::MatrixXd>& states, double pad) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
  double ymin = xmin, ymax = -xmin;
  for (std::size_t s = 0; s < states.size(); ++s) {
    const auto& X = states[s];
    check_positions(X, 2, "auto_limits: state " + std::to_string(s));
    if (X.rows() == 0) continue;
    xmin = std::min(xmin, X.col(0).minCoeff());
    xmax = std::max(xmax, X.col(0).maxCoeff());
    ymin = std::min(ymin, X.col(1).minCoeff());
    ymax = std::max(ymax, X.col(1).maxCoeff());
  }
  if (!(xmin <= xmax)) throw std::invalid_argument("auto_limits: no vertex positions");
  return {xmin - pad, xmax + pad, ymin - pad, ymax + pad};
}

std::vector<double> nice_ticks(double vmin, double vmax, int nbins) {
  if (!std::isfinite(vmin) || !std::isfinite(vmax) || !(vmin < vmax) || nbins < 1)
    throw std::invalid_argument("nice_ticks: need finite vmin < vmax and nbins >= 1");
  static constexpr double kSteps[] = {0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20};
  const double dv = vmax - vmin;
  const double raw_step = dv / nbins;
  const double scale = std::pow(10.0, std::floor(std::log10(raw_step)));
  int istep = 0;
  while (istep < 9 && kSteps[istep] * scale < raw_step) ++istep;
  std::vector<double> ticks;
  for (int i = istep; i >= 0; --i) {
    const double step = kSteps[i] * scale;
    const double best_vmin = std::floor(vmin / step) * step;
    auto le = [&](double x) {
      const double d = std::floor(x / step), m = x - d * step;
      return std::abs(m / step - 1) < 1e-10 ? d + 1 : d;
    };
    auto ge = [&](double x) {
      const double d = std::floor(x / step), m = x - d * step;
      return std::abs(m / step) < 1e-10 ? d : d + 1;
    };
    const double low = le(vmin - best_vmin), high = ge(vmax - best_vmin);
    ticks.clear();
    for (double k = low; k <= high + 0.5; k += 1) {
      double t = k * step + best_vmin;
      if (std::abs(t) < 1e-10 * step) t = 0;
      ticks.push_back(t);
    }
    const double tol = 1e-10 * dv;
    const auto n =
        std::count_if(ticks.begin(), ticks.end(), [&](double t) { return t >= vmin - tol && t <= vmax + tol; });
    if (n >= 2) break;
  }
  return ticks;
}

void write_panel_animation(const std::string& mp4_path, const std::vector<MeshPanel>& panels,
                           const AnimationOptions& opt, const std::function<void(int done, int total)>& progress) {
  // ---- validation
  if (panels.empty()) throw std::invalid_argument("write_panel_animation: no panels");
  if (opt.fps < 1) throw std::invalid_argument("write_panel_animation: fps must be >= 1");
  if (!(opt.dpi > 0) || !(opt.panel_width_in > 0) || !(opt.height_in > 0) ||
      !std::isfinite(opt.dpi * opt.panel_width_in * opt.height_in) ||
      opt.dpi * opt.panel_width_in * static_cast<double>(panels.size()) > 16384 || opt.dpi * opt.height_in > 16384)
    throw std::invalid_argument("write_panel_animation: dpi and figure sizes must be positive (and at most 16384 px)");
  if (!(opt.pad >= 0) || !std::isfinite(opt.pad))
    throw std::invalid_argument("write_panel_animation: pad must be finite and >= 0");
  std::size_t frames = 0;
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const MeshPanel& pan = panels[p];
    const std::string who = "write_panel_animation: panel " + std::to_string(p) + " ('" + pan.title + "')";
    check_panel(who, pan.states, 2, pan.T, "T");
    frames = std::max(frames, pan.states.size());
  }
  if (frames > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("write_panel_animation: too many frames");

  // ---- limits shared by all panels and frames
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
  for (const auto& pan : panels) {
    const Limits l = auto_limits(pan.states, 0.0);
    xmin = std::min(xmin, l.xmin);
    xmax = std::max(xmax, l.xmax);
    ymin = std::min(ymin, l.ymin);
    ymax = std::max(ymax, l.ymax);
  }
  auto nonsingular = [](double& lo, double& hi) {
    if (hi - lo <= 0) {
      const double d = lo == 0 ? 0.05 : 0.05 * std::abs(lo);
      lo -= d;
      hi += d;
    }
  };
  xmin -= opt.pad, xmax += opt.pad, ymin -= opt.pad, ymax += opt.pad;
  nonsingular(xmin, xmax);
  nonsingular(ymin, ymax);

  // ---- figure layout
  const int n = static_cast<int>(panels.size());
  const int W = even_pixels(opt.panel_width_in * n * opt.dpi);
  const int H = even_pixels(opt.height_in * opt.dpi);
  SurfacePtr background = make_surface(W, H);
  ContextPtr bcr = make_context(background.get());
  Painter BP(bcr.get(), opt.dpi);

  std::vector<Axes> axes(panels.size());
  const std::vector<Rect> boxes = subplot_row(W, H, n);
  for (int p = 0; p < n; ++p) {
    Axes& ax = axes[static_cast<std::size_t>(p)];
    ax.box = boxes[static_cast<std::size_t>(p)];
    ax.x = Scale{xmin, xmax, false};
    ax.y = Scale{ymin, ymax, false};
    equal_aspect_datalim(ax);
    compute_ticks(BP, ax);
    ax.title = panels[static_cast<std::size_t>(p)].title;
    ax.grid = true;
  }

  // static part: background, axes faces, grid, ticks, labels, titles
  set_color(bcr.get(), kWhite);
  cairo_paint(bcr.get());
  for (const Axes& ax : axes) {
    draw_face(BP, ax);
    draw_grid(BP, ax);
    draw_decorations(BP, ax);
  }
  if (!opt.suptitle.empty()) BP.text(Label{opt.suptitle, {}}, W / 2.0, 0.02 * H, kSuptitleSize, HA::Center, VA::Top);
  cairo_surface_flush(background.get());

  std::vector<MeshTopology> topo;
  for (const auto& pan : panels) topo.push_back(make_topology(pan.T));

  SurfacePtr frame = make_surface(W, H);
  ContextPtr cr = make_context(frame.get());
  Painter FP(cr.get(), opt.dpi);
  const double edge_lw = FP.pt(0.5);
  std::vector<double> pix;

  const int total = static_cast<int>(frames);

  encode_mp4(
      mp4_path, W, H, opt.fps, total,
      [&](int f) {
        cairo_set_operator(cr.get(), CAIRO_OPERATOR_SOURCE);
        cairo_set_source_surface(cr.get(), background.get(), 0, 0);
        cairo_paint(cr.get());
        cairo_set_operator(cr.get(), CAIRO_OPERATOR_OVER);
        for (std::size_t p = 0; p < panels.size(); ++p) {
          const MeshPanel& pan = panels[p];
          const Axes& ax = axes[p];
          const auto& X = pan.states[std::min(static_cast<std::size_t>(f), pan.states.size() - 1)];
          to_pixels(ax, X, pix);
          cairo_save(cr.get());
          cairo_rectangle(cr.get(), ax.box.x, ax.box.y, ax.box.w, ax.box.h);
          cairo_clip(cr.get());
          cairo_new_path(cr.get());
          for (const auto& tri : topo[p].tris) add_triangle(cr.get(), pix, tri);
          cairo_set_fill_rule(cr.get(), CAIRO_FILL_RULE_WINDING);
          set_color(cr.get(), pan.color, 0.95);
          cairo_fill(cr.get());
          stroke_edges(cr.get(), pix, topo[p], grey(0.3), 0.95, edge_lw);
          cairo_restore(cr.get());
          draw_spines(FP, ax);
        }
        return video_frame(frame.get());
      },
      progress);
}

void write_cluster_png(const std::string& png_path, const Eigen::MatrixXd& X, const Eigen::MatrixXi& T,
                       const Eigen::VectorXi& labels, const std::string& title) {
  check_positions(X, 2, "write_cluster_png: X");
  if (X.rows() == 0) throw std::invalid_argument("write_cluster_png: X has no vertices");
  check_triangles(T, X.rows(), "write_cluster_png");
  if (T.rows() == 0) throw std::invalid_argument("write_cluster_png: T has no triangles");
  if (labels.size() != T.rows())
    throw std::invalid_argument("write_cluster_png: " + std::to_string(labels.size()) + " labels for " +
                                std::to_string(T.rows()) + " triangles");

  constexpr double kDpi = 150;
  const int W = even_pixels(8 * kDpi), H = even_pixels(3 * kDpi);
  SurfacePtr surface = make_surface(W, H);
  ContextPtr cr = make_context(surface.get());
  Painter P(cr.get(), kDpi);
  set_color(cr.get(), kWhite);
  cairo_paint(cr.get());

  Axes ax;
  ax.box = subplot_row(W, H, 1)[0];
  auto [x0, x1] = autoscale_linear(X.col(0).minCoeff(), X.col(0).maxCoeff());
  auto [y0, y1] = autoscale_linear(X.col(1).minCoeff(), X.col(1).maxCoeff());
  ax.x = Scale{x0, x1, false};
  ax.y = Scale{y0, y1, false};
  equal_aspect_datalim(ax);
  compute_ticks(P, ax);
  ax.title = title;

  draw_face(P, ax);
  std::vector<double> pix;
  to_pixels(ax, X, pix);
  const MeshTopology topo = make_topology(T);
  const double lmin = labels.minCoeff(), lmax = labels.maxCoeff();
  cairo_save(cr.get());
  cairo_rectangle(cr.get(), ax.box.x, ax.box.y, ax.box.w, ax.box.h);
  cairo_clip(cr.get());
  cairo_set_fill_rule(cr.get(), CAIRO_FILL_RULE_WINDING);
  for (std::size_t c = 0; c < kTab20.size(); ++c) {
    cairo_new_path(cr.get());
    bool any = false;
    for (std::size_t t = 0; t < topo.tris.size(); ++t) {
      const Rgb col = tab20_color(labels(static_cast<Eigen::Index>(t)), lmin, lmax);
      if (col.r != kTab20[c].r || col.g != kTab20[c].g || col.b != kTab20[c].b) continue;
      add_triangle(cr.get(), pix, topo.tris[t]);
      any = true;
    }
    if (!any) continue;
    set_color(cr.get(), kTab20[c]);
    cairo_fill(cr.get());
  }
  stroke_edges(cr.get(), pix, topo, grey(0.4), 1.0, P.pt(0.3));
  cairo_restore(cr.get());
  draw_spines(P, ax);
  draw_decorations(P, ax);
  write_png(surface.get(), png_path);
}

namespace {

struct Polyline {
  std::vector<std::vector<std::pair<double, double>>> runs;  // pixel points, split at gaps
};

bool segment_hits_rect(double ax_, double ay, double bx, double by, const Rect& r) {
  // Liang-Barsky clipping.
  double t0 = 0, t1 = 1;
  const double dx = bx - ax_, dy = by - ay;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {ax_ - r.x, r.right() - ax_, ay - r.y, r.bottom() - ay};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
    } else {
      const double t = q[i] / p[i];
      if (p[i] < 0)
        t0 = std::max(t0, t);
      else
        t1 = std::min(t1, t);
      if (t0 > t1) return false;
    }
  }
  return true;
}

void draw_line_panel(Painter& P, Axes& ax, const std::vector<Series>& series) {
  cairo_t* cr = P.cr();
  draw_face(P, ax);
  draw_grid(P, ax);

  std::vector<Polyline> lines;
  for (const Series& s : series) {
    Polyline pl;
    pl.runs.emplace_back();
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      const double x = s.x[i], y = s.y[i];
      const bool ok = std::isfinite(x) && std::isfinite(y) && (!ax.y.log || y > 0);
      if (!ok) {
        if (!pl.runs.back().empty()) pl.runs.emplace_back();
        continue;
      }
      pl.runs.back().emplace_back(ax.px(x), ax.py(y));
    }
    lines.push_back(std::move(pl));
  }

  cairo_save(cr);
  cairo_rectangle(cr, ax.box.x, ax.box.y, ax.box.w, ax.box.h);
  cairo_clip(cr);
  const double lw = P.pt(2.0), r = P.pt(3.0);
  for (std::size_t k = 0; k < series.size(); ++k) {
    set_color(cr, series[k].color);
    cairo_set_line_width(cr, lw);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
    for (const auto& run : lines[k].runs) {
      if (run.size() < 2) continue;
      cairo_move_to(cr, run[0].first, run[0].second);
      for (std::size_t i = 1; i < run.size(); ++i) cairo_line_to(cr, run[i].first, run[i].second);
      cairo_stroke(cr);
    }
    cairo_set_line_width(cr, P.pt(1.0));
    for (const auto& run : lines[k].runs)
      for (const auto& [x, y] : run) {
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, r, 0, 2 * std::numbers::pi);
      }
    cairo_fill_preserve(cr);
    cairo_stroke(cr);
  }
  cairo_restore(cr);
  draw_spines(P, ax);
  draw_decorations(P, ax);

  // ---- legend (loc="best") when more than one named series
  std::vector<std::size_t> named;
  for (std::size_t k = 0; k < series.size(); ++k)
    if (!series[k].name.empty()) named.push_back(k);
  if (series.size() < 2 || named.empty()) return;
  const double fs = P.pt(kLegendSize);
  double text_w = 0, row_h = 0;
  for (std::size_t k : named) {
    const auto b = P.measure(Label{series[k].name, {}}, kLegendSize);
    text_w = std::max(text_w, b.width);
    row_h = std::max(row_h, b.height());
  }
  row_h = std::max(row_h, 0.7 * fs);
  const double pad = 0.4 * fs, handle = 2.0 * fs, gap = 0.8 * fs, spacing = 0.5 * fs;
  const double lw_ = 2 * pad + handle + gap + text_w;
  const double lh_ =
      2 * pad + static_cast<double>(named.size()) * row_h + static_cast<double>(named.size() - 1) * spacing;
  const double inset = 0.5 * fs;
  const double L = ax.box.x + inset, R = ax.box.right() - inset - lw_;
  const double Tp = ax.box.y + inset, B = ax.box.bottom() - inset - lh_;
  const double CX = ax.box.x + (ax.box.w - lw_) / 2, CY = ax.box.y + (ax.box.h - lh_) / 2;
  // matplotlib order: upper right, upper left, lower left, lower right, right,
  // center left, center right, lower center, upper center, center
  const std::pair<double, double> candidates[] = {{R, Tp}, {L, Tp}, {L, B},  {R, B},   {R, CY},
                                                  {L, CY}, {R, CY}, {CX, B}, {CX, Tp}, {CX, CY}};
  Rect best{};
  long best_bad = std::numeric_limits<long>::max();
  for (const auto& [cx, cy] : candidates) {
    const Rect box{cx, cy, lw_, lh_};
    long bad = 0;
    for (const auto& pl : lines)
      for (const auto& run : pl.runs) {
        for (const auto& [x, y] : run)
          if (x >= box.x && x <= box.right() && y >= box.y && y <= box.bottom()) ++bad;
        for (std::size_t i = 1; i < run.size(); ++i)
          if (segment_hits_rect(run[i - 1].first, run[i - 1].second, run[i].first, run[i].second, box)) ++bad;
      }
    if (bad < best_bad) {
      best_bad = bad;
      best = box;
      if (bad == 0) break;
    }
  }
  // frame
  const double rad = 0.2 * fs;
  cairo_new_path(cr);
  cairo_new_sub_path(cr);
  cairo_arc(cr, best.right() - rad, best.y + rad, rad, -std::numbers::pi / 2, 0);
  cairo_arc(cr, best.right() - rad, best.bottom() - rad, rad, 0, std::numbers::pi / 2);
  cairo_arc(cr, best.x + rad, best.bottom() - rad, rad, std::numbers::pi / 2, std::numbers::pi);
  cairo_arc(cr, best.x + rad, best.y + rad, rad, std::numbers::pi, 1.5 * std::numbers::pi);
  cairo_close_path(cr);
  set_color(cr, kWhite, 0.8);
  cairo_fill_preserve(cr);
  set_color(cr, grey(0.8), 0.8);
  cairo_set_line_width(cr, P.pt(1.0));
  cairo_stroke(cr);
  // entries
  double yc = best.y + pad + row_h / 2;
  for (std::size_t k : named) {
    const double hx = best.x + pad;
    set_color(cr, series[k].color);
    cairo_set_line_width(cr, lw);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
    cairo_move_to(cr, hx, yc);
    cairo_line_to(cr, hx + handle, yc);
    cairo_stroke(cr);
    cairo_arc(cr, hx + handle / 2, yc, r, 0, 2 * std::numbers::pi);
    cairo_fill(cr);
    P.text(Label{series[k].name, {}}, hx + handle + gap, yc, kLegendSize, HA::Left, VA::Center);
    yc += row_h + spacing;
  }
}

void setup_line_axes(Axes& ax, const std::vector<Series>& series, bool logy, const char* which) {
  if (series.empty())
    throw std::invalid_argument(std::string("write_timing_png: the ") + which + " panel has no series");
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const Series& s : series) {
    if (s.x.size() != s.y.size())
      throw std::invalid_argument("write_timing_png: series '" + s.name + "' has " + std::to_string(s.x.size()) +
                                  " x but " + std::to_string(s.y.size()) + " y values");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (logy && !(s.y[i] > 0))) continue;
      x0 = std::min(x0, s.x[i]);
      x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, s.y[i]);
      y1 = std::max(y1, s.y[i]);
    }
  }
  if (!(x0 <= x1))
    throw std::invalid_argument(std::string("write_timing_png: the ") + which + " panel has no plottable point" +
                                (logy ? " (log y needs y > 0)" : ""));
  auto [a, b] = autoscale_linear(x0, x1);
  ax.x = Scale{a, b, false};
  if (logy) {
    auto [c, d] = autoscale_log(y0, y1);
    ax.y = Scale{c, d, true};
  } else {
    auto [c, d] = autoscale_linear(y0, y1);
    ax.y = Scale{c, d, false};
  }
  ax.grid = true;
}

}  // namespace

void write_timing_png(const std::string& png_path, const std::vector<Series>& left_series, bool left_logy,
                      const std::string& left_title, const std::string& xlabel, const std::string& left_ylabel,
                      const std::vector<Series>& right_series, const std::string& right_title,
                      const std::string& right_ylabel) {
  Axes left, right;
  setup_line_axes(left, left_series, left_logy, "left");
  setup_line_axes(right, right_series, false, "right");

  constexpr double kDpi = 150;
  const int W = even_pixels(13 * kDpi), H = even_pixels(4.2 * kDpi);
  SurfacePtr surface = make_surface(W, H);
  ContextPtr cr = make_context(surface.get());
  Painter P(cr.get(), kDpi);
  set_color(cr.get(), kWhite);
  cairo_paint(cr.get());

  const auto boxes = subplot_row(W, H, 2);
  left.box = boxes[0];
  right.box = boxes[1];
  left.title = left_title;
  left.xlabel = xlabel;
  left.ylabel = left_ylabel;
  right.title = right_title;
  right.xlabel = xlabel;
  right.ylabel = right_ylabel;
  compute_ticks(P, left);
  compute_ticks(P, right);
  draw_line_panel(P, left, left_series);
  draw_line_panel(P, right, right_series);
  write_png(surface.get(), png_path);
}

}  // namespace fastcd
