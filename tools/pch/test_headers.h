// The precompiled header of test sources (*_test.cc): common_headers.h and GoogleTest/GoogleMock,
// which every test parses and no library needs.
#include "tools/pch/common_headers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
