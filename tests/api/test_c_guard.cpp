// The C API's error boundary: every exception becomes a status and a message, none crosses it.
#include <gtest/gtest.h>

#include <new>
#include <string>
#include <vector>

#include "hetlu/detail/c_guard.hpp"
#include "hetlu/hetlu.h"

using hetlu::detail::c_guarded;

namespace {
std::string last_error() {
  return hetlu_last_error() ? hetlu_last_error() : "";
}
}  // namespace

TEST(CGuard, EachKindOfFailureHasItsStatus) {
  EXPECT_EQ(c_guarded([]() -> hetlu_status { throw hetlu::InvalidArgument("n = -1 must be >= 0"); }),
            HETLU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "n = -1 must be >= 0");
  EXPECT_EQ(c_guarded([]() -> hetlu_status { throw std::bad_alloc(); }), HETLU_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(c_guarded([]() -> hetlu_status { throw hetlu::DeviceOutOfMemory("cuda:0 holds 1 GiB"); }),
            HETLU_ERROR_OUT_OF_MEMORY);
  // The kind, not the words: an Error that mentions "not available" is not the status.
  EXPECT_EQ(c_guarded([]() -> hetlu_status { throw hetlu::NotAvailable("backend 'cuda': no GPU"); }),
            HETLU_ERROR_NOT_AVAILABLE);
  EXPECT_EQ(c_guarded([]() -> hetlu_status { throw hetlu::Error("file x.mtx is not available"); }),
            HETLU_ERROR_INTERNAL);
  EXPECT_EQ(c_guarded([]() -> hetlu_status { return HETLU_SUCCESS; }), HETLU_SUCCESS);
}

// Something that is no std::exception (a C++ library's own type, or a thrown int) is still a status.
TEST(CGuard, AnExceptionOfUnknownTypeDoesNotEscape) {
  EXPECT_EQ(c_guarded([]() -> hetlu_status { throw 42; }), HETLU_ERROR_INTERNAL);
  EXPECT_EQ(last_error(), "an exception of unknown type");
  int info = 0;
  EXPECT_EQ(hetlu::detail::c_guarded_info(&info, []() -> hetlu_status { throw 42; }), HETLU_ERROR_INTERNAL);
  EXPECT_EQ(info, -static_cast<int>(HETLU_ERROR_INTERNAL));
}

// Found by a hostile test: hetlu_dgesv with B = A returned success and a wrong X; n = 2e9 with A
// null was refused only after 126 s of pricing plans; a NUL precision cut recommend's message short.
TEST(CApiArguments, AreCheckedBeforeAnyPlanAndApartFromEachOther) {
  std::vector<double> A{4, 1, 1, 3};
  std::vector<int> ipiv(2);
  int info = 0;
  EXPECT_EQ(hetlu_dgesv(2, 1, A.data(), 2, ipiv.data(), A.data(), 2, &info, nullptr, nullptr),
            HETLU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "B overlaps A: B must be an array of its own");
  EXPECT_EQ(hetlu_dgesv(2, 1, A.data(), 2, ipiv.data(), A.data() + 1, 2, &info, nullptr, nullptr),
            HETLU_ERROR_INVALID_ARGUMENT);
  // B in A's padding (lda = 4 > n = 2) shares no entry: LAPACK-legal, solved.
  std::vector<double> padded{4, 1, 1, 0, 1, 3, 1, 0};  // A = [[4, 1], [1, 3]], B = (1, 0) in rows 3-4 of column 1
  EXPECT_EQ(hetlu_dgesv(2, 1, padded.data(), 4, ipiv.data(), padded.data() + 2, 4, &info, nullptr, nullptr),
            HETLU_SUCCESS)
      << last_error();
  hetlu_options options;
  hetlu_options_init(&options);
  options.db_path = "/nonexistent/hetlu.db";
  EXPECT_EQ(
      hetlu_dgesv(2000000000, 1, nullptr, 2000000000, ipiv.data(), A.data(), 2000000000, &info, &options, nullptr),
      HETLU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hetlu_dgetrf(2000000000, 2000000000, nullptr, 2000000000, ipiv.data(), &info, &options, nullptr),
            HETLU_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("null"), std::string::npos) << last_error();
  hetlu_plan plan;
  EXPECT_EQ(hetlu_recommend('\0', 10, 10, nullptr, &plan), HETLU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "precision = char 0 must be 'd' or 's'");
}

// Pivots, info or a batch's B inside A or B (a hostile helper's finding): a crash in dlaswp, or
// success with a wrong X. Refused, naming both; a refused batch leaves info as it was.
TEST(CApiArguments, PivotsInfoAndABatchsArraysAreApartFromEachOther) {
  const int n = 4;
  std::vector<double> A(4 * n * n + 64, 0.0), B(4 * n + 64, 1.0);
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < n; ++i) A[s * n * n + i * n + i] = 4;
  int info = 0, infos[4] = {7, 7, 7, 7};
  std::vector<int> ipiv(4 * n);
  auto refused = [](hetlu_status status, const std::string& message) {
    EXPECT_EQ(status, HETLU_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(last_error(), message);
  };
  auto* pivots_in_a = reinterpret_cast<int*>(A.data() + n * n - 2);  // A's last column
  refused(hetlu_dgesv(n, 1, A.data(), n, pivots_in_a, B.data(), n, &info, nullptr, nullptr),
          "ipiv overlaps A: ipiv must be an array of its own");
  refused(hetlu_dgesv(n, 1, A.data(), n, reinterpret_cast<int*>(B.data()), B.data(), n, &info, nullptr, nullptr),
          "ipiv overlaps B: ipiv must be an array of its own");
  refused(hetlu_dgetrf(n, n, A.data(), n, pivots_in_a, &info, nullptr, nullptr),
          "ipiv overlaps A: ipiv must be an array of its own");
  refused(hetlu_dgetrs('N', n, 1, A.data(), n, ipiv.data(), A.data(), n),
          "B overlaps LU: B must be an array of its own");
  // System 0's B inside the last system's A; pivots, info inside B or A.
  refused(hetlu_dgesv_batched(4, n, 1, A.data(), n, n * n, ipiv.data(), n, A.data() + 3 * n * n + n, n, n, infos),
          "B overlaps A: B must be an array of its own");
  refused(
      hetlu_dgesv_batched(4, n, 1, A.data(), n, n * n, reinterpret_cast<int*>(B.data() + 2), n, B.data(), n, n, infos),
      "ipiv overlaps B: ipiv must be an array of its own");
  refused(hetlu_dgesv_batched(4, n, 1, A.data(), n, n * n, ipiv.data(), n, B.data(), n, n,
                              reinterpret_cast<int*>(A.data() + 5)),
          "info overlaps A: info must be an array of its own");
  EXPECT_EQ(infos[0], 7);
  // info and iter, written when a call ends: inside A, ipiv or X they changed a factor, a pivot or X
  // with success.
  refused(
      hetlu_dgesv(n, 1, A.data(), n, ipiv.data(), B.data(), n, reinterpret_cast<int*>(A.data() + 3), nullptr, nullptr),
      "info overlaps A: info must be an array of its own");
  refused(hetlu_dgetrf(n, n, A.data(), n, ipiv.data(), ipiv.data() + 1, nullptr, nullptr),
          "info overlaps ipiv: info must be an array of its own");
  std::vector<double> X(n);
  int iter = 0;
  refused(hetlu_dsgesv(n, 1, A.data(), n, ipiv.data(), B.data(), n, X.data(), n, reinterpret_cast<int*>(X.data()),
                       &info, nullptr, nullptr),
          "iter overlaps X: iter must be an array of its own");
  refused(hetlu_dsgesv(n, 1, A.data(), n, ipiv.data(), B.data(), n, X.data(), n, &iter, &iter, nullptr, nullptr),
          "info overlaps iter: info must be an array of its own");
  // The checked solve's outputs: refused before any is written.
  double omega = 5;
  refused(hetlu_dsolve_checked(n, 1, A.data(), n, B.data(), n, &info, A.data() + 1, nullptr, nullptr, nullptr),
          "backward_error overlaps A: backward_error must be an array of its own");
  refused(hetlu_dsolve_checked(n, 1, A.data(), n, B.data(), n, reinterpret_cast<int*>(B.data()), &omega, nullptr,
                               nullptr, nullptr),
          "info overlaps B: info must be an array of its own");
  info = 555;
  refused(hetlu_dsolve_checked(n, 1, A.data(), n, B.data(), n, &info, &omega, &omega, nullptr, nullptr),
          "backward_error overlaps rcond: backward_error must be an array of its own");
  EXPECT_EQ(omega, 5);
  EXPECT_EQ(info, -HETLU_ERROR_INVALID_ARGUMENT) << "an info apart from everything says the refusal (it stayed 555)";
  EXPECT_EQ(A[1], 0);
  // The report and the options: an output inside either, or the report over an array, is refused
  // before anything is written (info inside the report read 2 after a success; a report over B was
  // cleared before B was read and "solved" to success; backward_error over options->db_path crashed).
  hetlu_report report{};
  hetlu_options options;
  hetlu_options_init(&options);
  options.db_path = "/nonexistent-folder/x.db";
  refused(hetlu_dsolve_checked(n, 1, A.data(), n, B.data(), n, &report.plan.nb, nullptr, nullptr, nullptr, &report),
          "info overlaps report: info must be an array of its own");
  refused(hetlu_dsolve_checked(n, 1, A.data(), n, B.data(), n, &info, reinterpret_cast<double*>(&options.db_path),
                               nullptr, &options, nullptr),
          "backward_error overlaps options: backward_error must be an array of its own");
  EXPECT_STREQ(options.db_path, "/nonexistent-folder/x.db");
  auto* report_over_b = reinterpret_cast<hetlu_report*>(B.data());
  const double b0 = B[0];
  info = 555;
  refused(hetlu_dgesv(n, 1, A.data(), n, ipiv.data(), B.data(), n, &info, nullptr, report_over_b),
          "report overlaps B: report must be an array of its own");
  EXPECT_EQ(B[0], b0);
  EXPECT_EQ(info, -HETLU_ERROR_INVALID_ARGUMENT);
  info = 12345;
  refused(hetlu_dgetrf(n, n, A.data(), n, ipiv.data(), reinterpret_cast<int*>(A.data() + 2), nullptr, nullptr),
          "info overlaps A: info must be an array of its own");
  EXPECT_EQ(A[2], 0) << "a refused info inside A is not written";
  // Apart, in one allocation: solved.
  EXPECT_EQ(hetlu_dgesv_batched(4, n, 1, A.data(), n, n * n, ipiv.data(), n, B.data(), n, n, infos), HETLU_SUCCESS)
      << last_error();
  EXPECT_EQ(infos[3], 0);
  EXPECT_DOUBLE_EQ(B[3 * n], 0.25);
}
