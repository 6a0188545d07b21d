#include "fastcd/common/hash.hpp"

#include <openssl/evp.h>

#include <cstdio>
#include <new>
#include <stdexcept>

namespace fastcd {

std::string Hash64::hex() const {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h_));
  return s;
}

namespace {

EVP_MD_CTX* context(void* ctx) { return static_cast<EVP_MD_CTX*>(ctx); }

// OpenSSL fails only when it cannot allocate or is broken: never a wrong digest, always an exception.
void ensure(int ok, const char* what) {
  if (ok != 1) throw std::runtime_error(std::string("SHA-256 (OpenSSL): ") + what + " failed");
}

}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) throw std::bad_alloc();
  ensure(EVP_DigestInit_ex(context(ctx_), EVP_sha256(), nullptr), "initialising");
}

Sha256::~Sha256() { EVP_MD_CTX_free(context(ctx_)); }

Sha256::Sha256(const Sha256& other) : HashFeed(other), ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) throw std::bad_alloc();
  ensure(EVP_MD_CTX_copy_ex(context(ctx_), context(other.ctx_)), "copying");
}

Sha256& Sha256::operator=(const Sha256& other) {
  if (this != &other) ensure(EVP_MD_CTX_copy_ex(context(ctx_), context(other.ctx_)), "copying");
  return *this;
}

void Sha256::add(const void* data, std::size_t bytes) {
  if (bytes > 0) ensure(EVP_DigestUpdate(context(ctx_), data, bytes), "hashing");
}

std::array<std::uint8_t, 32> Sha256::digest() const {
  const Sha256 copy = *this;  // finishing ends a context: finish a copy, so this one goes on
  std::array<std::uint8_t, 32> out{};
  unsigned int length = 0;
  ensure(EVP_DigestFinal_ex(context(copy.ctx_), out.data(), &length), "finishing");
  if (length != out.size())
    throw std::runtime_error("SHA-256 (OpenSSL): a digest of " + std::to_string(length) + " bytes");
  return out;
}

std::string Sha256::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (const std::uint8_t b : digest()) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

}  // namespace fastcd
