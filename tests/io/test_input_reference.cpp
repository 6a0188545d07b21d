// fastcd's one rule for references inside input files (input_reference.hpp): only regular files
// inside the referring file's folder, symbolic links resolved first.
#include "fastcd/io/input_reference.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>

#include "io_test_util.hpp"

namespace fastcd {
namespace test_input_reference {

namespace fs = std::filesystem;

class InputReferenceTest : public test::IoTempDir {
 protected:
  void SetUp() override {
    test::IoTempDir::SetUp();
    fs::create_directories(path("in/sub"));
    fs::create_directories(path("elsewhere"));
    put("in/a.png", "png");
    put("in/sub/b.png", "png");
    put("elsewhere/secret", "secret");
    folder = path("in");
  }
  InputReference resolve(const std::string& ref) const { return resolve_input_reference(folder, ref); }
  std::string folder;
};

TEST_F(InputReferenceTest, AcceptsRegularFilesInsideTheFolder) {
  for (const std::string ref : {"a.png", "sub/b.png", "./a.png", "sub/../a.png"}) {
    const InputReference r = resolve(ref);
    EXPECT_TRUE(r.ok()) << ref << ": " << r.problem;
    EXPECT_EQ(r.path, fs::canonical(path("in")) / r.relative) << ref;
  }
  // A symbolic link that stays inside is followed.
  fs::create_symlink("sub/b.png", path("in/alias.png"));
  const InputReference r = resolve("alias.png");
  ASSERT_TRUE(r.ok()) << r.problem;
  EXPECT_EQ(r.relative, fs::path("sub/b.png"));
}

TEST_F(InputReferenceTest, RefusesEveryWayOut) {
  fs::create_symlink("/", path("in/root"));
  fs::create_symlink(path("elsewhere/secret"), path("in/secret.png"));
  fs::create_symlink("../elsewhere", path("in/up"));
  std::string to_root;
  for (const auto& part : fs::canonical(folder)) (void)part, to_root += "../";
  for (const std::string& ref :
       std::vector<std::string>{"../elsewhere/secret", to_root + "etc/passwd", "/etc/passwd", path("elsewhere/secret"),
                                "root/etc/passwd", "secret.png", "up/secret", "file:///etc/passwd",
                                "http://example.invalid/a.png", "sub/../../elsewhere/secret"}) {
    const InputReference r = resolve(ref);
    EXPECT_FALSE(r.ok()) << ref;
    EXPECT_TRUE(r.path.empty()) << ref;
    EXPECT_FALSE(r.problem.empty()) << ref;
  }
  EXPECT_EQ(resolve("secret.png").problem, "leads outside the input's folder through a symbolic link");
  EXPECT_EQ(resolve("../elsewhere/secret").problem, "points outside the input's folder");
  EXPECT_NE(resolve("/etc/passwd").problem.find("absolute path"), std::string::npos);
  EXPECT_NE(resolve("file:///etc/passwd").problem.find("a URL"), std::string::npos);
}

TEST_F(InputReferenceTest, RefusesWhatIsNotARegularFile) {
  ASSERT_EQ(::mkfifo(path("in/pipe.png").c_str(), 0600), 0);
  EXPECT_EQ(resolve("pipe.png").problem, "is a FIFO (named pipe), not a regular file");
  EXPECT_EQ(resolve("sub").problem, "is a folder, not a file");
  EXPECT_EQ(resolve("").problem, "is empty");
  const InputReference missing = resolve("nothing.png");
  EXPECT_EQ(missing.problem, "does not exist");
  EXPECT_TRUE(missing.missing);
  fs::create_symlink("nowhere.png", path("in/dangling.png"));
  EXPECT_TRUE(resolve("dangling.png").missing);
  if (::geteuid() == 0) {  // a private copy of /dev/null, never the system's node
    ASSERT_EQ(::mknod(path("in/null.png").c_str(), S_IFCHR | 0600, ::makedev(1, 3)), 0);
    EXPECT_EQ(resolve("null.png").problem, "is a character device, not a regular file");
  }
}

TEST(PercentDecode, DecodesEscapesAndKeepsBadOnes) {
  EXPECT_EQ(percent_decode("%2e%2e/%2E%2E/etc/passwd"), "../../etc/passwd");
  EXPECT_EQ(percent_decode("my%20texture.png"), "my texture.png");
  EXPECT_EQ(percent_decode("100%"), "100%");
  EXPECT_EQ(percent_decode("%zz%4"), "%zz%4");
}

}  // namespace test_input_reference
}  // namespace fastcd
