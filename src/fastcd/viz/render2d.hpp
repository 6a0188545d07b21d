#pragma once

// Matplotlib-look 2D figures rendered with Cairo: mesh animations encoded to
// MP4 through ffmpeg, a rotation-cluster picture and a timing plot (PNG).
// Nothing here prints; every failure is reported by an exception.

#include <Eigen/Core>

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace fastcd {

/// An sRGB colour with components in [0, 1].
struct Rgb {
  double r = 0, g = 0, b = 0;
};

/// Parses "#rrggbb" or "#rgb" (hex digits, either case), e.g. "#d62728".
/// @throws std::invalid_argument if the string is not such a colour.
Rgb rgb_from_hex(const std::string& hex);

/// Matplotlib's "tab20" colormap: 20 colours (ListedColormap order).
extern const std::array<Rgb, 20> kTab20;

/// Colour that matplotlib's tab20 colormap assigns to `value` normalised over
/// [vmin, vmax]: index floor((value - vmin) / (vmax - vmin) * 20) clipped to
/// [0, 19]; index 0 if vmax == vmin.
Rgb tab20_color(double value, double vmin, double vmax);

/// Axis limits in data units.
struct Limits {
  double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
};

/// Global min/max of the x and y coordinates over all `states` (each #V x 2,
/// at least one row overall), widened by `pad` on every side.
/// @throws std::invalid_argument if there are no coordinates at all, a state
///         has not 2 columns or a coordinate is not finite.
Limits auto_limits(const std::vector<Eigen::MatrixXd>& states, double pad);

/// Matplotlib's MaxNLocator (steps 1, 2, 2.5, 5, 10): "nice" tick values for
/// the view interval [vmin, vmax] with at most about `nbins` intervals; the
/// result may extend one tick beyond the interval on each side.
/// @throws std::invalid_argument unless vmin < vmax are finite and nbins >= 1.
std::vector<double> nice_ticks(double vmin, double vmax, int nbins);

/// One panel of a mesh animation.
struct MeshPanel {
  std::vector<Eigen::MatrixXd> states;  ///< frames, each #V x 2 vertex positions
  Eigen::MatrixXi T;                    ///< #T x 3 triangle vertex indices (0-based)
  std::string title;                    ///< axes title above the panel
  Rgb color;                            ///< triangle fill colour
};

/// Figure and encoding settings of write_panel_animation.
struct AnimationOptions {
  int fps = 30;                 ///< frames per second of the video
  std::string suptitle;         ///< figure title centred at the top ("" = none)
  double pad = 0.6;             ///< margin around the data, in data units
  double dpi = 100;             ///< pixels per inch
  double panel_width_in = 5.2;  ///< figure width per panel, inches
  double height_in = 4.4;       ///< figure height, inches
};

/// Renders side-by-side mesh panels frame by frame (matplotlib look: white
/// figure of (panel_width_in * #panels) x height_in inches at `dpi`, rounded
/// up to even pixel sizes; per panel one equal-aspect axes with a light grid,
/// ticks, tick labels and title; optional suptitle; triangles filled with the
/// panel colour at alpha 0.95 with 0.3-grey 0.5 pt edges) and encodes them to
/// an H.264 / yuv420p MP4 (crf 20) by piping raw frames into `ffmpeg` found
/// on PATH. Axis limits are shared by all panels and frames: auto_limits of
/// every state of every panel with opt.pad, then widened around the centre
/// to equal aspect in each axes box. The frame count is that of the longest
/// panel; shorter panels hold their last frame. The file is written
/// atomically (temp file + rename).
///
/// @param mp4_path  output path (written as MP4 regardless of extension).
/// @param panels    at least one panel; each with at least one state.
/// @param opt       figure / encoding options.
/// @param progress  optional, called after each frame with (done, total).
/// @throws std::invalid_argument for no panels, a panel without states, a
///         state that is not #V x 2 or has non-finite coordinates, T not
///         #T x 3, an index of T outside [0, #V) of some state, or bad
///         options (fps < 1, non-positive sizes, negative pad).
/// @throws std::runtime_error if ffmpeg is not installed, fails (its error
///         output is in the message) or the file cannot be written.
void write_panel_animation(const std::string& mp4_path, const std::vector<MeshPanel>& panels,
                           const AnimationOptions& opt, const std::function<void(int done, int total)>& progress = {});

/// Writes a PNG (8 x 3 inches at 150 dpi) showing the mesh with each triangle
/// filled by matplotlib's tab20 colour of its label (normalised over the
/// min..max label, as `tripcolor(facecolors=labels, cmap="tab20")`), 0.4-grey
/// 0.3 pt edges, one equal-aspect axes without grid, ticks, and `title`.
/// Written atomically.
///
/// @param png_path  output path.
/// @param X         #V x 2 vertex positions (finite).
/// @param T         #T x 3 triangle indices into X (at least one triangle).
/// @param labels    #T per-triangle cluster labels.
/// @param title     axes title.
/// @throws std::invalid_argument on inconsistent sizes, indices out of range,
///         non-finite coordinates or an empty mesh.
/// @throws std::runtime_error if the PNG cannot be written.
void write_cluster_png(const std::string& png_path, const Eigen::MatrixXd& X, const Eigen::MatrixXi& T,
                       const Eigen::VectorXi& labels, const std::string& title);

/// One line of a line plot, drawn "-o" (2 pt line with circle markers).
/// Points with a non-finite coordinate (or y <= 0 on a log axis) are skipped
/// and break the line, as matplotlib does.
struct Series {
  std::string name;       ///< legend label
  std::vector<double> x;  ///< abscissae
  std::vector<double> y;  ///< ordinates, same length as x
  Rgb color;              ///< line and marker colour
};

/// Writes a two-panel line-plot PNG (13 x 4.2 inches at 150 dpi), matplotlib
/// look: light grid, "-o" lines, autoscaled axes with 5% margins. The left
/// panel shows `left_series` (log-scale y if `left_logy`, decade ticks
/// labelled 10^k) with a legend placed like loc="best" when it has more than
/// one series; the right panel shows `right_series` (legend likewise). Both
/// panels use `xlabel`. Written atomically.
///
/// @throws std::invalid_argument if a series has x and y of different
///         lengths, a panel has no series or no plottable point.
/// @throws std::runtime_error if the PNG cannot be written.
void write_timing_png(const std::string& png_path, const std::vector<Series>& left_series, bool left_logy,
                      const std::string& left_title, const std::string& xlabel, const std::string& left_ylabel,
                      const std::vector<Series>& right_series, const std::string& right_title,
                      const std::string& right_ylabel);

}  // namespace fastcd
