#include "tools/pch/test_headers.h"
