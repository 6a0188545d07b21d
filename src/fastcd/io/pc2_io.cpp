#include "fastcd/io/pc2_io.hpp"

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "fastcd/common/check.hpp"
#include "fastcd/io/parse_util.hpp"

namespace fastcd {

namespace {

constexpr char kMagic[12] = {'P', 'O', 'I', 'N', 'T', 'C', 'A', 'C', 'H', 'E', '2', '\0'};
constexpr std::size_t kHeader = 32;

/// v little-endian at p[0..3].
void store_u32(char* p, std::uint32_t v) {
  for (int b = 0; b < 4; ++b) p[b] = static_cast<char>((v >> (8 * b)) & 0xff);
}
void put_u32(std::string& out, std::uint32_t v) {
  char bytes[4];
  store_u32(bytes, v);
  out.append(bytes, 4);
}
std::uint32_t get_u32(const std::string& s, std::size_t pos) {
  std::uint32_t v = 0;
  for (int b = 3; b >= 0; --b) v = (v << 8) | static_cast<unsigned char>(s[pos + static_cast<std::size_t>(b)]);
  return v;
}

// v as float32, or invalid_argument if it is not finite or outside the float32 range.
float to_float(double v, const std::string& what) {
  const float f = static_cast<float>(v);
  if (!std::isfinite(v) || !std::isfinite(f))
    throw std::invalid_argument("write_pc2: " + what + " (" + std::to_string(v) + ") is not a finite float32 value");
  return f;
}

}  // namespace

void write_pc2(const std::string& path, const std::vector<MatrixXd>& frames, double start_frame, double sample_rate) {
  const Index nv = frames.empty() ? 0 : frames[0].rows();
  const Index dim = frames.empty() ? 3 : frames[0].cols();
  if (dim != 2 && dim != 3)
    throw std::invalid_argument("write_pc2: frames must be #V x 2 or #V x 3, got " + shape_of(frames[0]));
  if (nv > INT_MAX || frames.size() > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("write_pc2: too many points or samples for int32 counts");
  if (nv == 0 && !frames.empty())
    throw std::invalid_argument(
        "write_pc2: frames have 0 points (a PC2 file without points has no samples; "
        "pass no frames for an empty cache)");
  for (std::size_t s = 0; s < frames.size(); ++s)
    if (frames[s].rows() != nv || frames[s].cols() != dim)
      throw std::invalid_argument("write_pc2: frames[" + std::to_string(s) + "] is " + shape_of(frames[s]) +
                                  " but frames[0] is " + shape_of(frames[0]));
  const float start = to_float(start_frame, "start_frame");
  if (!(sample_rate > 0))
    throw std::invalid_argument("write_pc2: sample_rate must be > 0, got " + std::to_string(sample_rate));
  const float rate = to_float(sample_rate, "sample_rate");

  std::string out(kMagic, sizeof kMagic);
  put_u32(out, 1);
  put_u32(out, static_cast<std::uint32_t>(nv));
  put_u32(out, std::bit_cast<std::uint32_t>(start));
  put_u32(out, std::bit_cast<std::uint32_t>(rate));
  put_u32(out, static_cast<std::uint32_t>(frames.size()));
  out.resize(kHeader + frames.size() * static_cast<std::size_t>(nv) * 12);
  char* dst = out.data() + kHeader;
  for (std::size_t s = 0; s < frames.size(); ++s)
    for (Index i = 0; i < nv; ++i)
      for (Index c = 0; c < 3; ++c) {
        const double v = c < dim ? frames[s](i, c) : 0.0;
        const float f = static_cast<float>(v);
        if (!std::isfinite(f))  // throws; the message is built only for a bad value
          to_float(v, "frames[" + std::to_string(s) + "](" + std::to_string(i) + ", " + std::to_string(c) + ")");
        store_u32(dst, std::bit_cast<std::uint32_t>(f));
        dst += 4;
      }
  detail::write_text_atomically(path, out, "write_pc2");
}

PointCache read_pc2(const std::string& path) {
  const char* fn = "read_pc2";
  const std::string b = detail::read_file_bytes(path, fn);
  if (b.empty()) detail::fail_file(fn, path, "file is empty (not a PC2 point cache)");
  if (b.size() < 12 || std::memcmp(b.data(), kMagic, 12) != 0)
    detail::fail_file(
        fn, path,
        "bad magic " + detail::quote(std::string_view(b).substr(0, 12)) + " (a PC2 file starts with 'POINTCACHE2\\0')");
  if (b.size() < kHeader)
    detail::fail_file(fn, path, "truncated header: " + std::to_string(b.size()) + " bytes, a PC2 header has 32");
  const auto version = static_cast<std::int32_t>(get_u32(b, 12));
  const auto np = static_cast<std::int32_t>(get_u32(b, 16));
  const float start = std::bit_cast<float>(get_u32(b, 20));
  const float rate = std::bit_cast<float>(get_u32(b, 24));
  const auto ns = static_cast<std::int32_t>(get_u32(b, 28));
  if (version != 1)
    detail::fail_file(fn, path, "byte 12: version " + std::to_string(version) + " is not supported (PC2 version 1 is)");
  if (np < 0) detail::fail_file(fn, path, "byte 16: negative point count " + std::to_string(np));
  if (!std::isfinite(start)) detail::fail_file(fn, path, "byte 20: start frame is not finite");
  if (!std::isfinite(rate) || !(rate > 0))
    detail::fail_file(fn, path, "byte 24: sample rate " + std::to_string(rate) + " is not a positive number");
  if (ns < 0) detail::fail_file(fn, path, "byte 28: negative sample count " + std::to_string(ns));
  // A cache without points holds no data, so its size says nothing about the sample count:
  // believing it would allocate one (empty) frame per claimed sample.
  if (np == 0 && ns > 0)
    detail::fail_file(fn, path,
                      "byte 28: " + std::to_string(ns) +
                          " samples of 0 points (corrupt counts: a cache without points has no samples)");
  // 32 + 12 * np * ns may exceed 64 bits for garbage counts: compute it in 128 bits.
  const unsigned __int128 want =
      32 + static_cast<unsigned __int128>(12) * static_cast<std::uint64_t>(np) * static_cast<std::uint64_t>(ns);
  if (static_cast<unsigned __int128>(b.size()) != want) {
    std::string w;
    for (unsigned __int128 v = want; v > 0 || w.empty(); v /= 10)
      w.insert(w.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    detail::fail_file(fn, path,
                      "file has " + std::to_string(b.size()) + " bytes but its header (" + std::to_string(np) +
                          " points x " + std::to_string(ns) + " samples) needs exactly " + w +
                          (static_cast<unsigned __int128>(b.size()) < want ? " (truncated file or corrupt counts)"
                                                                           : " (trailing data or corrupt counts)"));
  }
  PointCache pc;
  pc.start_frame = start;
  pc.sample_rate = rate;
  pc.frames.resize(static_cast<std::size_t>(ns));
  std::size_t pos = kHeader;
  for (int s = 0; s < ns; ++s) {
    MatrixXd& F = pc.frames[static_cast<std::size_t>(s)];
    F.resize(np, 3);
    for (int i = 0; i < np; ++i)
      for (int c = 0; c < 3; ++c, pos += 4) {
        const float f = std::bit_cast<float>(get_u32(b, pos));
        if (!std::isfinite(f))
          detail::fail_file(fn, path,
                            "byte " + std::to_string(pos) + ": sample " + std::to_string(s) + ", point " +
                                std::to_string(i) + ", coordinate " + std::to_string(c) + " is not finite");
        F(i, c) = f;
      }
  }
  return pc;
}

namespace {

void put_u32_be(std::string& out, std::uint32_t v) {
  for (int b = 3; b >= 0; --b) out += static_cast<char>((v >> (8 * b)) & 0xff);
}
std::uint32_t get_u32_be(const std::string& s, std::size_t pos) {
  std::uint32_t v = 0;
  for (int b = 0; b < 4; ++b) v = (v << 8) | static_cast<unsigned char>(s[pos + static_cast<std::size_t>(b)]);
  return v;
}

}  // namespace

void write_mdd(const std::string& path, const std::vector<MatrixXd>& frames, const std::vector<double>& times) {
  const char* fn = "write_mdd";
  FASTCD_CHECK(!frames.empty(), "an MDD file needs at least one frame");
  FASTCD_CHECK(times.size() == frames.size(), "times has ", times.size(), " entries, frames ", frames.size());
  const Index nv = frames[0].rows();
  FASTCD_CHECK(nv > 0 && frames[0].cols() == 3, "frames must be #V x 3 with #V >= 1, got ", shape_of(frames[0]));
  FASTCD_CHECK(nv <= INT_MAX && frames.size() <= static_cast<std::size_t>(INT_MAX), "too many points or frames");
  std::string out;
  out.reserve(8 + 4 * frames.size() + frames.size() * static_cast<std::size_t>(nv) * 12);
  put_u32_be(out, static_cast<std::uint32_t>(frames.size()));
  put_u32_be(out, static_cast<std::uint32_t>(nv));
  for (std::size_t s = 0; s < times.size(); ++s) {
    const float t = static_cast<float>(times[s]);
    FASTCD_CHECK(std::isfinite(t) && (s == 0 || times[s] >= times[s - 1]), "times[", s, "] = ", times[s],
                 " is not finite or decreases");
    put_u32_be(out, std::bit_cast<std::uint32_t>(t));
  }
  for (std::size_t s = 0; s < frames.size(); ++s) {
    FASTCD_CHECK(frames[s].rows() == nv && frames[s].cols() == 3, "frames[", s, "] is ", shape_of(frames[s]),
                 " but frames[0] is ", shape_of(frames[0]));
    for (Index i = 0; i < nv; ++i)
      for (Index c = 0; c < 3; ++c) {
        const float f = static_cast<float>(frames[s](i, c));
        FASTCD_CHECK(std::isfinite(f), "frames[", s, "](", i, ", ", c, ") = ", frames[s](i, c),
                     " is not a finite float32 value");
        put_u32_be(out, std::bit_cast<std::uint32_t>(f));
      }
  }
  detail::write_text_atomically(path, out, fn);
}

PointCache read_mdd(const std::string& path, std::vector<double>* times) {
  const char* fn = "read_mdd";
  const std::string b = detail::read_file_bytes(path, fn);
  if (b.size() < 8)
    detail::fail_file(fn, path, "truncated header: " + std::to_string(b.size()) + " bytes, an MDD header has 8");
  const auto nf = static_cast<std::int32_t>(get_u32_be(b, 0));
  const auto nv = static_cast<std::int32_t>(get_u32_be(b, 4));
  if (nf <= 0 || nv <= 0)
    detail::fail_file(fn, path,
                      "bad counts: " + std::to_string(nf) + " frames of " + std::to_string(nv) +
                          " points (both must be positive; MDD is big-endian)");
  const unsigned __int128 want =
      8 + 4 * static_cast<unsigned __int128>(nf) +
      static_cast<unsigned __int128>(12) * static_cast<std::uint64_t>(nf) * static_cast<std::uint64_t>(nv);
  if (static_cast<unsigned __int128>(b.size()) != want)
    detail::fail_file(fn, path,
                      "file has " + std::to_string(b.size()) + " bytes but its header (" + std::to_string(nf) +
                          " frames x " + std::to_string(nv) + " points) needs " +
                          std::to_string(static_cast<unsigned long long>(want)));
  PointCache pc;
  std::size_t pos = 8;
  if (times) times->resize(static_cast<std::size_t>(nf));
  for (int s = 0; s < nf; ++s, pos += 4)
    if (times) (*times)[static_cast<std::size_t>(s)] = std::bit_cast<float>(get_u32_be(b, pos));
  pc.frames.resize(static_cast<std::size_t>(nf));
  for (int s = 0; s < nf; ++s) {
    MatrixXd& F = pc.frames[static_cast<std::size_t>(s)];
    F.resize(nv, 3);
    for (int i = 0; i < nv; ++i)
      for (int c = 0; c < 3; ++c, pos += 4) {
        const float f = std::bit_cast<float>(get_u32_be(b, pos));
        if (!std::isfinite(f))
          detail::fail_file(fn, path,
                            "byte " + std::to_string(pos) + ": frame " + std::to_string(s) + ", point " +
                                std::to_string(i) + " is not finite");
        F(i, c) = f;
      }
  }
  return pc;
}

}  // namespace fastcd
