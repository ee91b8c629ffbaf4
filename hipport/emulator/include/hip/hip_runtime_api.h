// hipport emulator: <hip/hip_runtime_api.h> (the whole runtime; see hip_runtime.h).
#pragma once
#include "hip_runtime.h"
