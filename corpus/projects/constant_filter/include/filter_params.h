/* filter_params.h - plain data shared by host code and device code. */
#ifndef CONSTANT_FILTER_PARAMS_H
#define CONSTANT_FILTER_PARAMS_H

#define FILTER_MAX_RADIUS 16

struct FilterParams {
    int width;
    int height;
    int pitch;   /* elements per row */
    int radius;  /* taps = 2 * radius + 1 */
    float gain;
};

#endif /* CONSTANT_FILTER_PARAMS_H */
