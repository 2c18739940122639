#include "tools/pch/common_headers.h"
