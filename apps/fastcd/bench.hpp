#pragma once
#include <CLI/CLI.hpp>

namespace fastcd::cli {
/// `fastcd bench [--json FILE]`: precompute and per-step timings of both solvers.
void register_bench(CLI::App& app);
}  // namespace fastcd::cli
