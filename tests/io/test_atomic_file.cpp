// The atomic writers replace only regular files: a device node, a FIFO, a directory or a
// symbolic link to one of them at the output's name is refused and left as it was (issue 39:
// `write_obj('/dev/null', ...)` as root replaced the system's /dev/null). Device nodes are
// private copies made with mknod in the test's own folder, never the system's.
#include "fastcd/io/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <Eigen/Core>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "fastcd/io/mesh_io.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using fastcd::check_output_file;
using fastcd::write_file_atomically;
using fastcd::write_file_contents;
using fastcd::test::expect_throw_with;

namespace test_atomic_file {

class AtomicFile : public fastcd::test::TempDir {
 protected:
  // A private copy of /dev/null (character device 1:3); skips the test where mknod is not
  // allowed (not root).
  std::string null_device(const std::string& name) {
    const std::string p = path(name);
    if (::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
      if (errno == EPERM) return {};
      ADD_FAILURE() << "mknod " << p << ": " << std::strerror(errno);
    }
    return p;
  }
  static mode_t kind(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? st.st_mode & S_IFMT : 0;
  }
  // Every writer refuses `target` naming `what`; `target` keeps its kind; no temporary file.
  void expect_refused(const std::string& target, const std::string& what) {
    const mode_t before = kind(target);
    const std::set<std::string> names = listing();
    expect_throw_with<std::runtime_error>(
        [&] { write_file_atomically(target, [](const std::string& tmp) { std::ofstream(tmp) << "x"; }); }, what);
    expect_throw_with<std::runtime_error>([&] { write_file_contents(target, "x", "write_test"); },
                                          "write_test: cannot write '" + target + "': it is " + what);
    Eigen::MatrixXd V(3, 3);
    V << 0, 0, 0, 1, 0, 0, 0, 1, 0;
    Eigen::MatrixXi F(1, 3);
    F << 0, 1, 2;
    expect_throw_with<std::runtime_error>([&] { fastcd::write_obj(target, V, F); }, "not a regular file");
    expect_throw_with<std::runtime_error>([&] { check_output_file(target, "fastcd view"); }, "fastcd view: ");
    EXPECT_EQ(kind(target), before) << target << " was replaced";
    EXPECT_EQ(listing(), names) << "a temporary file was left";
  }
};

TEST_F(AtomicFile, ADeviceNodeIsRefusedAndKept) {
  const std::string null = null_device("null");
  if (null.empty()) GTEST_SKIP() << "mknod needs root";
  expect_refused(null, "a character device");
  struct stat st {};
  ASSERT_EQ(::stat(null.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
}

TEST_F(AtomicFile, AFifoIsRefusedAndKept) {
  ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0644), 0);
  expect_refused(path("pipe"), "a FIFO (named pipe)");
}

TEST_F(AtomicFile, ADirectoryIsRefused) {
  fs::create_directory(path("adir"));
  expect_refused(path("adir"), "a directory");
}

TEST_F(AtomicFile, ASymbolicLinkToADeviceOrFifoIsRefused) {
  ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0644), 0);
  fs::create_symlink(path("pipe"), path("to-pipe"));
  expect_refused(path("to-pipe"), "a symbolic link to a FIFO (named pipe)");
  const std::string null = null_device("null");
  if (null.empty()) GTEST_SKIP() << "mknod needs root";
  fs::create_symlink(null, path("to-null"));
  expect_refused(path("to-null"), "a symbolic link to a character device");
  EXPECT_TRUE(fs::is_character_file(null));
}

// As before: a link to a regular file (or a dangling one) is replaced by the new file; the file
// it pointed at is left alone.
TEST_F(AtomicFile, ASymbolicLinkToAFileIsReplacedNotWrittenThrough) {
  put("original.txt", "keep");
  fs::create_symlink(path("original.txt"), path("link.txt"));
  fs::create_symlink(path("missing.txt"), path("dangling.txt"));
  write_file_contents(path("link.txt"), "new", "write_test");
  write_file_contents(path("dangling.txt"), "new", "write_test");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(path("link.txt"))));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(path("dangling.txt"))));
  EXPECT_EQ(slurp(path("link.txt")), "new");
  EXPECT_EQ(slurp(path("original.txt")), "keep");
  EXPECT_FALSE(fs::exists(path("missing.txt")));
}

// A file name as long as the file system allows is written: the temporary name is shortened
// instead of failing with "File name too long".
TEST_F(AtomicFile, TheLongestFileNameIsWritable) {
  const std::string name = std::string(251, 'n') + ".obj";  // 255 bytes
  write_file_contents(path(name), "ok", "write_test");
  EXPECT_EQ(slurp(path(name)), "ok");
  EXPECT_EQ(listing(), std::set<std::string>{name});
}

}  // namespace test_atomic_file
