// fastcd command-line tool: thin verbs over the library.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "fastcd/fastcd.hpp"

namespace {
constexpr const char* kVersion = "0.1.0";
}

int main(int argc, char** argv) {
  CLI::App app{"fastcd: complementary dynamics (full order and fast) on LBS rigs"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.add_subcommand("version", "print the version")->callback([] { std::cout << "fastcd " << kVersion << "\n"; });
  try {
    CLI11_PARSE(app, argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "fastcd: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
