#include "tools/pch/torch_headers.h"
