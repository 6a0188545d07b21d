#pragma once
// PC2 and MDD point caches (3ds Max, LightWave, Blender "Mesh Cache" modifier): a vertex
// animation as float32.
//
// Layout (little-endian, 32-byte header):
//   char[12] "POINTCACHE2\0" | int32 version = 1 | int32 numPoints | float32 startFrame |
//   float32 sampleRate | int32 numSamples | numSamples x numPoints x (float32 x, y, z)
#include <Eigen/Core>
#include <string>
#include <vector>

#include "fastcd/common/types.hpp"

namespace fastcd {

/// Content of a PC2 file.
struct PointCache {
  double start_frame = 0;        ///< first frame (float32 in the file)
  double sample_rate = 1;        ///< frames per sample (float32 in the file)
  std::vector<MatrixXd> frames;  ///< numSamples matrices, each numPoints x 3 (float32 values)
};

/// Writes a PC2 file. Positions are rounded to float32; 2D frames (#V x 2) get z = 0.
/// @param frames       samples, each #V x 2 or #V x 3 with #V >= 1, all of the same shape,
///                     finite and within the float32 range; may be empty (0 points, 0 samples).
/// @param start_frame  finite, fits in float32.
/// @param sample_rate  finite and > 0.
/// @throws std::invalid_argument for bad shapes or values.
/// @throws std::runtime_error if the file cannot be written.
void write_pc2(const std::string& path, const std::vector<MatrixXd>& frames, double start_frame = 0,
               double sample_rate = 1);

/// Reads a PC2 file. The header (magic, version 1, non-negative counts, no samples without
/// points, finite start frame, positive sample rate) and the exact file size
/// 32 + 12 * numPoints * numSamples are checked before anything is allocated.
/// @throws std::runtime_error naming the file and the problem (missing/empty file, bad magic,
///         unsupported version, negative counts, truncated or oversized file, NaN/Inf values
///         with their byte offset, sample and point).
PointCache read_pc2(const std::string& path);

/// Writes an MDD point cache (LightWave / Blender Mesh Cache; big-endian): int32 numFrames,
/// int32 numPoints, float32 time[numFrames] (seconds), numFrames x numPoints x float32[3].
/// @throws std::invalid_argument for no frames, mismatched shapes or times, non-finite values.
/// @throws std::runtime_error if the file cannot be written.
void write_mdd(const std::string& path, const std::vector<MatrixXd>& frames, const std::vector<double>& times);

/// Reads an MDD point cache (frames only; start_frame and sample_rate keep their defaults),
/// checking the counts against the exact file size first. `times` receives the frame times.
/// @throws std::runtime_error naming the file and the problem.
PointCache read_mdd(const std::string& path, std::vector<double>* times = nullptr);

}  // namespace fastcd
