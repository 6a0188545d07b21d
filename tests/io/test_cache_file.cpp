// Cache files (io/cache_file.hpp): an entry is used only if its header is the full key asked
// for and its size and checksum match; a file of other settings or inputs, a damaged one, a
// huge one (refused from its first bytes and its size, never read), a FIFO or a folder under
// the entry's name is told apart with a reason; a folder that cannot take entries is found by
// trying. Issue 39 (item 13 and the cache part of item 7).
#include "fastcd/io/cache_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fastcd/common/hash.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_cache_file {

namespace fs = std::filesystem;
using State = CacheEntry::State;

/// Bytes this process has read through read(2) and pread(2) so far (/proc/self/io's rchar).
std::uint64_t bytes_read_so_far() {
  std::ifstream io("/proc/self/io");
  std::string name;
  std::uint64_t value = 0;
  while (io >> name >> value)
    if (name == "rchar:") return value;
  ADD_FAILURE() << "no rchar in /proc/self/io";
  return 0;
}

class CacheFile : public test::TempDir {
 protected:
  static CacheKey key(const std::string& settings, const std::string& input, const std::string& kind = "test",
                      int version = 1) {
    Sha256 inputs;
    inputs.add(input);
    return make_cache_key(kind, version, settings, inputs);
  }
  /// The file at `path` read as the entry of key_ (of `size` payload bytes when given).
  CacheEntry read(const std::string& path, std::optional<std::uint64_t> size = std::nullopt) const {
    return read_cache_entry(path, key_, size);
  }
  void SetUp() override {
    TempDir::SetUp();
    key_ = key("modes 6, clusters 10", "the mesh");
    file_ = cache_entry_path(path("cache"), key_);
    fs::create_directories(path("cache"));
    write_cache_entry(file_, key_, payload_);
  }
  CacheKey key_;
  std::string file_;
  const std::string payload_ = std::string("a payload with a \0 and\nlines", 29) + std::string(5000, 'p');
};

TEST_F(CacheFile, AnEntryReadsBackWithItsHeaderInWords) {
  EXPECT_EQ(fs::path(file_).filename().string(), "test-" + key_.digest.substr(0, 16) + ".bin");
  const CacheEntry e = read(file_);
  ASSERT_EQ(e.state, State::Usable) << e.problem;
  EXPECT_EQ(e.payload, payload_);
  EXPECT_TRUE(e.problem.empty());
  const std::string text = slurp(file_);
  EXPECT_EQ(text.rfind("fastcd cache test 1\nkey " + key_.digest +
                           "\nsettings modes 6, clusters 10\npayload 5029 "
                           "bytes sha256 ",
                       0),
            0u)
      << text.substr(0, 300);
  // Of the exact size asked for, or refused by its declared size before it is read.
  EXPECT_EQ(read(file_, payload_.size()).state, State::Usable);
  const CacheEntry wrong = read(file_, payload_.size() + 8);
  EXPECT_EQ(wrong.state, State::Damaged);
  EXPECT_NE(wrong.problem.find("declares 5029 bytes where this entry has 5037"), std::string::npos) << wrong.problem;
  EXPECT_EQ(read(path("cache/none.bin")).state, State::Missing);
  EXPECT_EQ(read(path("no-folder/none.bin")).state, State::Missing);
}

TEST_F(CacheFile, TheKeySeesEverySettingAndInputByte) {
  EXPECT_EQ(key("modes 6, clusters 10", "the mesh").digest, key_.digest);
  EXPECT_NE(key("modes 6, clusters 11", "the mesh").digest, key_.digest);
  EXPECT_NE(key("modes 6, clusters 10", "the mesH").digest, key_.digest);
  EXPECT_NE(key("modes 6, clusters 10", "the mesh", "other").digest, key_.digest);
  EXPECT_NE(key("modes 6, clusters 10", "the mesh", "test", 2).digest, key_.digest);
  test::expect_throw_with<std::invalid_argument>([] { key("two\nlines", ""); }, "one line");
  test::expect_throw_with<std::invalid_argument>([] { key("", "", "Tets-1"); }, "lower-case letters");
}

TEST_F(CacheFile, AFileOfOtherSettingsInputsKindOrFormatIsStaleWithTheReason) {
  const auto copied_over = [&](const CacheKey& other) {
    write_cache_entry(file_, other, payload_);  // as a copy of that entry would be
    return read(file_);
  };
  CacheEntry e = copied_over(key("modes 6, clusters 10, leak none", "the mesh"));
  EXPECT_EQ(e.state, State::Stale);
  EXPECT_EQ(e.problem,
            "was made for other settings (modes 6, clusters 10, leak none; this bake: modes 6, clusters 10)");
  EXPECT_TRUE(e.payload.empty());
  e = copied_over(key("modes 6, clusters 10", "another mesh"));
  EXPECT_EQ(e.state, State::Stale);
  EXPECT_EQ(e.problem, "was made for other inputs with the same settings (modes 6, clusters 10)");
  e = copied_over(key("modes 6, clusters 10", "the mesh", "fast"));
  EXPECT_EQ(e.state, State::Stale);
  EXPECT_EQ(e.problem, "holds a 'fast' entry, not a 'test' one (renamed?)");
  e = copied_over(key("modes 6, clusters 10", "the mesh", "test", 7));
  EXPECT_EQ(e.state, State::Stale);
  EXPECT_EQ(e.problem, "was written in format 7 (this fastcd writes format 1)");
  // A file of the format before headers (a plain Medit .mesh, a raw subspace): not a cache file.
  put("cache/old.bin", "MeshVersionFormatted 1\nDimension 3\nVertices\n0\nEnd\n");
  e = read(path("cache/old.bin"));
  EXPECT_EQ(e.state, State::Damaged);
  EXPECT_EQ(e.problem, "is not a fastcd cache file (50 bytes without its header)");
}

TEST_F(CacheFile, ATruncatedGrownOrBitFlippedFileIsDamaged) {
  const std::string good = slurp(file_);
  const auto after = [&](const std::string& bytes) {
    std::ofstream(file_, std::ios::binary | std::ios::trunc) << bytes;
    return read(file_);
  };
  const std::string size = std::to_string(good.size()), less = std::to_string(good.size() - 1),
                    more = std::to_string(good.size() + 1);
  CacheEntry e = after(good.substr(0, good.size() - 1));
  EXPECT_EQ(e.state, State::Damaged);
  EXPECT_EQ(e.problem, "is cut short (" + less + " bytes of the " + size + " bytes its header declares)");
  e = after(good + "x");
  EXPECT_EQ(e.state, State::Damaged);
  EXPECT_EQ(e.problem, "has grown (" + more + " bytes where its header declares " + size + " bytes)");
  e = after(good.substr(0, 100));
  EXPECT_EQ(e.state, State::Damaged);
  EXPECT_EQ(e.problem, "is damaged (its header is cut short or garbled)");
  e = after("");
  EXPECT_EQ(e.state, State::Damaged);
  // Every single bit of the payload, and of the checksum, is seen.
  for (std::size_t at : {good.size() - 5029, good.size() - 2000, good.size() - 1, good.size() - 5029 - 2}) {
    for (int bit : {0, 7}) {
      std::string flipped = good;
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
      e = after(flipped);
      EXPECT_NE(e.state, State::Usable) << at << " " << bit;
      EXPECT_TRUE(e.payload.empty());
    }
  }
  e = after(good);
  EXPECT_EQ(e.state, State::Usable);
  std::string flipped = good;
  flipped[good.size() - 100] ^= 1;
  EXPECT_EQ(after(flipped).problem, "is damaged (its content does not match its checksum)");
}

TEST_F(CacheFile, AHugeFileIsRefusedWithoutBeingRead) {
  constexpr std::uintmax_t huge = 6ull << 30;  // 6 GiB, sparse: no disk space taken
  const std::string header = slurp(file_).substr(0, 300);
  const std::uint64_t before = bytes_read_so_far();
  // Zeros only (truncate -s 6G): its first bytes are no header.
  const std::string zeros = path("cache/zeros.bin");
  { std::ofstream(zeros, std::ios::binary).put('\0'); }
  fs::resize_file(zeros, huge);
  CacheEntry e = read(zeros);
  EXPECT_EQ(e.state, State::Damaged);
  EXPECT_EQ(e.problem, "is not a fastcd cache file (6144 MiB (6442450944 bytes) without its header)");
  // The entry itself grown to 6 GiB: its header's size is not the file's.
  fs::resize_file(file_, huge);
  e = read(file_);
  EXPECT_EQ(e.state, State::Damaged);
  EXPECT_NE(e.problem.find("has grown (6144 MiB"), std::string::npos) << e.problem;
  // A header of this key that declares 6 GiB, in a file of that size: refused by the size the
  // entry must have.
  const std::size_t declared = header.find("payload 5029 bytes");
  ASSERT_NE(declared, std::string::npos);
  std::string big = header.substr(0, declared) + "payload " + std::to_string(huge) + " bytes" +
                    header.substr(declared + std::string("payload 5029 bytes").size());
  big = big.substr(0, big.find('\n', declared) + 1);
  std::ofstream(file_, std::ios::binary | std::ios::trunc) << big;
  fs::resize_file(file_, big.size() + huge);
  e = read(file_, payload_.size());
  EXPECT_EQ(e.state, State::Damaged);
  EXPECT_NE(e.problem.find("declares 6144 MiB (6442450944 bytes) where this entry has 5029 bytes"), std::string::npos)
      << e.problem;
  // Each was judged from its first 4 KiB at most.
  EXPECT_LT(bytes_read_so_far() - before, 3 * kCacheHeaderMaxBytes + 1024);
}

TEST_F(CacheFile, AFifoOrAFolderUnderTheNameIsUnreadableAndNothingWaits) {
  fs::remove(file_);
  ASSERT_EQ(::mkfifo(file_.c_str(), 0644), 0);
  CacheEntry e = read(file_);  // would block forever if it waited for a writer
  EXPECT_EQ(e.state, State::Unreadable);
  EXPECT_EQ(e.problem, "cannot be read (it is not a regular file)");
  fs::remove(file_);
  fs::create_directory(file_);
  EXPECT_EQ(read(file_).state, State::Unreadable);
}

TEST_F(CacheFile, AFolderThatCannotTakeEntriesIsFoundBeforeAnyWork) {
  EXPECT_EQ(cache_folder_warning(path("cache")), "");
  EXPECT_EQ(cache_folder_warning(path("new/deeper")), "");  // made
  EXPECT_TRUE(fs::is_directory(path("new/deeper")));
  EXPECT_EQ(listing(), (std::set<std::string>{"cache", "new"}));
  EXPECT_EQ(std::distance(fs::directory_iterator(path("new/deeper")), {}), 0);  // the probe is gone
  put("file", "not a folder");
  for (const std::string& folder : {path("file"), path("file/sub")}) {
    const std::string w = cache_folder_warning(folder);
    EXPECT_EQ(w.rfind("the cache folder '" + folder + "' cannot be written (", 0), 0u) << w;
    EXPECT_NE(w.find("): the bake goes on without keeping its tets and precompute"), std::string::npos) << w;
  }
  // Writing into a folder that is not there says so (the caller turns it into a warning).
  test::expect_throw_with<std::runtime_error>([&] { write_cache_entry(path("file/x.bin"), key_, "p"); }, "file/x.bin");
}

TEST_F(CacheFile, TheWarningSaysWhatWasDoneInstead) {
  CacheEntry e;
  e.state = State::Stale;
  e.problem = "was made for other settings (a; this bake: b)";
  EXPECT_EQ(cache_entry_warning("c/f.bin", e, "the tets were meshed again", ""),
            "the cache file 'c/f.bin' was made for other settings (a; this bake: b): the tets were meshed again and "
            "the file rewritten");
  EXPECT_EQ(cache_entry_warning("c/f.bin", e, "the tets were meshed again", "disk full"),
            "the cache file 'c/f.bin' was made for other settings (a; this bake: b): the tets were meshed again; the "
            "file could not be rewritten (disk full)");
}

}  // namespace test_cache_file
}  // namespace fastcd
