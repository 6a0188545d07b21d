#pragma once
// Shared helpers of the rendering tests: running a command, probing a video, a temporary PATH.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace fastcd::test {

/// Output of a shell command.
inline std::string run(const std::string& cmd) {
  std::string out;
  std::unique_ptr<FILE, decltype(&pclose)> p(popen(cmd.c_str(), "r"), &pclose);
  if (!p) return out;
  char buf[512];
  while (fgets(buf, sizeof buf, p.get())) out += buf;
  return out;
}

/// ffprobe "width,height,nb_read_frames" of the video stream.
inline std::vector<int> probe(const std::string& file) {
  const std::string out =
      run("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
          "stream=nb_read_frames,width,height -of csv=p=0 '" +
          file + "' 2>&1");
  std::vector<int> v;
  std::stringstream ss(out);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::atoi(item.c_str()));
  return v;
}

/// Runs `f` with PATH set to `path_value`, restoring it afterwards.
template <typename F>
void with_path(const std::string& path_value, F&& f) {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  setenv("PATH", path_value.c_str(), 1);
  try {
    f();
  } catch (...) {
    setenv("PATH", saved.c_str(), 1);
    throw;
  }
  setenv("PATH", saved.c_str(), 1);
}

}  // namespace fastcd::test
