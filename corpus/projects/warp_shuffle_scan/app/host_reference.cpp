// host_reference.cpp
#include "host_reference.h"

#include <algorithm>
#include <climits>

std::vector<int> host_inclusive_scan(const std::vector<int>& in)
{
    std::vector<int> out(in.size());
    int running = 0;
    for (size_t i = 0; i < in.size(); ++i) {
        running += in[i];
        out[i] = running;
    }
    return out;
}

std::vector<int> host_compact_positive(const std::vector<int>& in)
{
    std::vector<int> out;
    std::copy_if(in.begin(), in.end(), std::back_inserter(out), [](int v) { return v > 0; });
    return out;
}

std::vector<unsigned int> host_histogram32(const std::vector<int>& in, int* largest)
{
    std::vector<unsigned int> bins(32, 0);
    *largest = INT_MIN;
    for (int v : in) {
        ++bins[v & 31];
        *largest = std::max(*largest, v);
    }
    return bins;
}
