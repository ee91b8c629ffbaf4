// hipport emulator: <hip/hip_cooperative_groups.h>.
#pragma once
#include "hip_runtime.h"
#include "../hipemu/coop.h"
