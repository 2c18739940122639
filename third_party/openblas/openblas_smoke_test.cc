// OpenBLAS: sgemm (with a transposed operand, alpha and beta) agrees with a naive loop nest, and
// the library linked is OpenBLAS itself rather than another BLAS behind the same header.
#include <cblas-openblas.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

TEST(OpenblasSmokeTest, IsOpenblas) {
  const std::string config = openblas_get_config();
  EXPECT_NE(config.find("OpenBLAS"), std::string::npos) << config;
}

TEST(OpenblasSmokeTest, SgemmMatchesNaiveLoops) {
  // C = alpha * A * B^T + beta * C with A: MxK, B: NxK (row-major), awkward sizes on purpose.
  const int m = 37, n = 29, k = 53;
  const float alpha = 1.5f, beta = -0.5f;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(m * k), b(n * k), c(m * n);
  for (float& x : a) x = uniform(rng);
  for (float& x : b) x = uniform(rng);
  for (float& x : c) x = uniform(rng);

  std::vector<float> expected(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int p = 0; p < k; ++p) acc += static_cast<double>(a[i * k + p]) * b[j * k + p];
      expected[i * n + j] = static_cast<float>(alpha * acc + beta * c[i * n + j]);
    }

  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, a.data(), k, b.data(), k,
              beta, c.data(), n);
  for (int i = 0; i < m * n; ++i) ASSERT_NEAR(c[i], expected[i], 1e-4f) << "at " << i;
}

}  // namespace
