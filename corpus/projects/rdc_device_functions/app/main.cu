// main.cu - rdc_device_functions: one N-body step on the device, checked
// against the same step on the host in double precision.
#include "energy.cuh"

#include "nbody/check.cuh"
#include "nbody/forces.cuh"
#include "nbody/softening.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr int kBodies = 2048;
constexpr float kEpsilon = 0.05f;
constexpr float kDt = 0.01f;

struct Host3 {
    double x, y, z;
};

// Accelerations in double from the float inputs; also the sum of the
// magnitudes of the terms, which bounds the float rounding error.
void host_accelerations(const std::vector<float4>& pos, float eps_sq,
                        std::vector<Host3>& acc, std::vector<double>& magnitude)
{
    const int n = static_cast<int>(pos.size());
    for (int i = 0; i < n; ++i) {
        Host3 a{0.0, 0.0, 0.0};
        double mag = 0.0;
        for (int j = 0; j < n; ++j) {
            const double dx = static_cast<double>(pos[j].x) - pos[i].x;
            const double dy = static_cast<double>(pos[j].y) - pos[i].y;
            const double dz = static_cast<double>(pos[j].z) - pos[i].z;
            const double r2 = dx * dx + dy * dy + dz * dz + eps_sq;
            const double s = pos[j].w / (r2 * std::sqrt(r2));
            a.x += dx * s;
            a.y += dy * s;
            a.z += dz * s;
            mag += std::sqrt(r2 - eps_sq) * s;
        }
        acc[i] = a;
        magnitude[i] = mag;
    }
}

bool close(double got, double want, double scale, double rel)
{
    return std::fabs(got - want) <= rel * scale + 1e-7;
}

}  // namespace

int main()
{
    const int n = kBodies;
    std::printf("[rdc_device_functions] %d bodies, softening %.3f, dt %.3f\n", n, kEpsilon, kDt);

    std::mt19937 rng(4242u);
    std::uniform_real_distribution<float> coord(-1.0f, 1.0f);
    std::uniform_real_distribution<float> mass(0.5f, 1.5f);
    std::uniform_real_distribution<float> speed(-0.1f, 0.1f);
    std::vector<float4> h_pos(n);
    std::vector<float3> h_vel(n);
    for (int i = 0; i < n; ++i) {
        h_pos[i] = make_float4(coord(rng), coord(rng), coord(rng), mass(rng) / n);
        h_vel[i] = make_float3(speed(rng), speed(rng), speed(rng));
    }

    const float eps_sq = nbody::set_softening(kEpsilon);
    bool ok = (eps_sq == kEpsilon * kEpsilon);
    std::printf("[rdc_device_functions] softening^2 read back: %s\n", ok ? "ok" : "WRONG");

    cudaStream_t stream;
    NBODY_CHECK(cudaStreamCreate(&stream));
    float4* d_pos;
    float3 *d_vel, *d_acc;
    NBODY_CHECK(cudaMalloc(&d_pos, n * sizeof(float4)));
    NBODY_CHECK(cudaMalloc(&d_vel, n * sizeof(float3)));
    NBODY_CHECK(cudaMalloc(&d_acc, n * sizeof(float3)));
    NBODY_CHECK(cudaMemcpyAsync(d_pos, h_pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice, stream));
    NBODY_CHECK(cudaMemcpyAsync(d_vel, h_vel.data(), n * sizeof(float3), cudaMemcpyHostToDevice, stream));

    nbody::compute_accelerations(d_pos, d_acc, n, stream);
    std::vector<float3> g_acc(n);
    NBODY_CHECK(cudaMemcpyAsync(g_acc.data(), d_acc, n * sizeof(float3), cudaMemcpyDeviceToHost, stream));
    nbody::integrate(d_pos, d_vel, d_acc, n, kDt, stream);
    std::vector<float4> g_pos(n);
    std::vector<float3> g_vel(n);
    NBODY_CHECK(cudaMemcpyAsync(g_pos.data(), d_pos, n * sizeof(float4), cudaMemcpyDeviceToHost, stream));
    NBODY_CHECK(cudaMemcpyAsync(g_vel.data(), d_vel, n * sizeof(float3), cudaMemcpyDeviceToHost, stream));
    NBODY_CHECK(cudaStreamSynchronize(stream));
    const double energy = kinetic_energy(d_pos, d_vel, n, stream);

    std::vector<Host3> acc(n);
    std::vector<double> magnitude(n);
    host_accelerations(h_pos, eps_sq, acc, magnitude);
    int bad_acc = 0, bad_state = 0;
    double acc_sum = 0.0, pos_sum = 0.0, energy_ref = 0.0;
    for (int i = 0; i < n; ++i) {
        const bool a_ok = close(g_acc[i].x, acc[i].x, magnitude[i], 1e-4) &&
                          close(g_acc[i].y, acc[i].y, magnitude[i], 1e-4) &&
                          close(g_acc[i].z, acc[i].z, magnitude[i], 1e-4);
        if (!a_ok && bad_acc++ < 5) {
            std::fprintf(stderr, "acc mismatch at %d: %g %g %g vs %g %g %g\n", i,
                         g_acc[i].x, g_acc[i].y, g_acc[i].z, acc[i].x, acc[i].y, acc[i].z);
        }
        // The step itself, from the device accelerations.
        const double vx = h_vel[i].x + static_cast<double>(g_acc[i].x) * kDt;
        const double vy = h_vel[i].y + static_cast<double>(g_acc[i].y) * kDt;
        const double vz = h_vel[i].z + static_cast<double>(g_acc[i].z) * kDt;
        const bool s_ok = close(g_vel[i].x, vx, 1.0, 1e-6) && close(g_vel[i].y, vy, 1.0, 1e-6) &&
                          close(g_vel[i].z, vz, 1.0, 1e-6) &&
                          close(g_pos[i].x, h_pos[i].x + vx * kDt, 1.0, 1e-6) &&
                          close(g_pos[i].y, h_pos[i].y + vy * kDt, 1.0, 1e-6) &&
                          close(g_pos[i].z, h_pos[i].z + vz * kDt, 1.0, 1e-6) &&
                          g_pos[i].w == h_pos[i].w;
        if (!s_ok && bad_state++ < 5) {
            std::fprintf(stderr, "state mismatch at %d\n", i);
        }
        acc_sum += std::fabs(g_acc[i].x) + std::fabs(g_acc[i].y) + std::fabs(g_acc[i].z);
        pos_sum += g_pos[i].x + g_pos[i].y + g_pos[i].z;
        energy_ref += 0.5 * h_pos[i].w * (vx * vx + vy * vy + vz * vz);
    }
    const bool energy_ok = std::fabs(energy - energy_ref) <= 1e-5 * energy_ref;
    std::printf("[rdc_device_functions] accelerations: %d mismatches, state: %d mismatches, "
                "energy: %s\n", bad_acc, bad_state, energy_ok ? "ok" : "WRONG");
    // Rounded to 6 significant digits: rsqrtf and summation order may move the last bits.
    std::printf("checksum acceleration_abs_sum %.5e\n", acc_sum);
    std::printf("checksum position_sum %.5e\n", pos_sum);
    std::printf("checksum kinetic_energy %.5e\n", energy);
    ok = ok && bad_acc == 0 && bad_state == 0 && energy_ok;

    if (ok) {
        cudaEvent_t start, stop;
        NBODY_CHECK(cudaEventCreate(&start));
        NBODY_CHECK(cudaEventCreate(&stop));
        for (int i = 0; i < 10; ++i) {
            nbody::compute_accelerations(d_pos, d_acc, n, stream);
        }
        NBODY_CHECK(cudaStreamSynchronize(stream));
        std::vector<float> times(100);
        for (float& t : times) {
            NBODY_CHECK(cudaEventRecord(start, stream));
            nbody::compute_accelerations(d_pos, d_acc, n, stream);
            NBODY_CHECK(cudaEventRecord(stop, stream));
            NBODY_CHECK(cudaEventSynchronize(stop));
            NBODY_CHECK(cudaEventElapsedTime(&t, start, stop));
        }
        std::sort(times.begin(), times.end());
        std::printf("kernel_median_ms pairwise_forces %.6f\n",
                    0.5 * (static_cast<double>(times[49]) + times[50]));
        NBODY_CHECK(cudaEventDestroy(start));
        NBODY_CHECK(cudaEventDestroy(stop));
    }

    NBODY_CHECK(cudaFree(d_pos));
    NBODY_CHECK(cudaFree(d_vel));
    NBODY_CHECK(cudaFree(d_acc));
    NBODY_CHECK(cudaStreamDestroy(stream));
    std::printf(ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? 0 : 1;
}
