// hipport emulator: <hip/hip_runtime.h> for host-CPU builds (hipport emulate). Written for hipport.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <algorithm>
#include "../hipemu/device.h"
#include "../hipemu/functions.h"
#include "../hipemu/runtime.h"
