#pragma once
// Eigen's SVDs of a MatrixXd, compiled once.
//
// BDCSVD is a few thousand lines of templates: compiling it took ~50 s of every file that used
// it, JacobiSVD ~10 s. Here both are explicitly instantiated once, in dense_decompositions.cpp
// (fastcd::core, compiled with the library's own flags), and declared `extern template` for every
// other file, which then only calls them. The code is Eigen's own, unchanged: only where it is
// compiled moves. Both constructors and compute() take a `const MatrixXd&`, so any argument uses
// the compiled copy.
//
// Only these two: the other decompositions (LLT, LDLT, the QRs, the eigensolvers) are cheaper to
// compile, and moving a decomposition out of the file that uses it changes which of its functions
// GCC inlines there, and so where it contracts a*b+c into an FMA: their results would change in
// the last bits (the fast solver's bakes did, by 1e-14 of the model's size). The SVDs here
// change no bake (scripts/compare_bakes.py). Fixed-size decompositions (a 3x3 polar SVD per
// element) stay inline where they are used.
//
// Use a BDCSVD or JacobiSVD of a MatrixXd through this header (tests/layout/check_layering.py
// checks).

#include <Eigen/Dense>

#define FASTCD_DENSE_DECOMPOSITIONS(EXTERN)             \
  EXTERN template class Eigen::BDCSVD<Eigen::MatrixXd>; \
  EXTERN template class Eigen::JacobiSVD<Eigen::MatrixXd>;

FASTCD_DENSE_DECOMPOSITIONS(extern)
