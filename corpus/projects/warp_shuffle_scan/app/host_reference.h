// host_reference.h - the same algorithms, sequentially on the host.
#pragma once

#include <vector>

std::vector<int> host_inclusive_scan(const std::vector<int>& in);
std::vector<int> host_compact_positive(const std::vector<int>& in);
std::vector<unsigned int> host_histogram32(const std::vector<int>& in, int* largest);
