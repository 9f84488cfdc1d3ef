// Rodinia 3.1 hotspot3D, written for warpsim.
//
// Thermal simulation on a 3-D grid of nx x ny x nz cells (seven-point stencil). Each thread
// owns one (x, y) column and walks it from the bottom layer to the top, keeping the layers
// below, at and above in registers (Rodinia's "opt1" version). CTAs are 64 x 4 threads and
// the grid is (nx / 64) x (ny / 4); the host launches hotspotOpt1 once per time step and swaps
// the input and output buffers between launches.
//
// The sum is written in Rodinia's order; NVRTC turns it into one mul.f32 and a chain of
// fma.rn.f32, which the CPU reference in samples/src/rodinia/hotspot3d.rs mirrors.

extern "C" __global__ void hotspotOpt1(const float *p, const float *tIn, float *tOut, float sdc,
                                       int nx, int ny, int nz,
                                       float ce, float cw, float cn, float cs,
                                       float ct, float cb, float cc)
{
    const float amb_temp = 80.0f;

    int i = blockDim.x * blockIdx.x + threadIdx.x;
    int j = blockDim.y * blockIdx.y + threadIdx.y;

    int c = i + j * nx;
    int xy = nx * ny;

    // Neighbours in the layer, clamped at the edges.
    int w = (i == 0) ? c : c - 1;
    int e = (i == nx - 1) ? c : c + 1;
    int n = (j == 0) ? c : c - nx;
    int s = (j == ny - 1) ? c : c + nx;

    // below / center / above: the bottom layer is its own "below".
    float below, center, above;
    below = center = tIn[c];
    above = tIn[c + xy];
    tOut[c] = cc * center + cw * tIn[w] + ce * tIn[e] + cs * tIn[s] + cn * tIn[n] +
              cb * below + ct * above + sdc * p[c] + ct * amb_temp;
    c += xy;
    w += xy;
    e += xy;
    n += xy;
    s += xy;

    for (int k = 1; k < nz - 1; ++k) {
        below = center;
        center = above;
        above = tIn[c + xy];
        tOut[c] = cc * center + cw * tIn[w] + ce * tIn[e] + cs * tIn[s] + cn * tIn[n] +
                  cb * below + ct * above + sdc * p[c] + ct * amb_temp;
        c += xy;
        w += xy;
        e += xy;
        n += xy;
        s += xy;
    }

    // The top layer is its own "above".
    below = center;
    center = above;
    tOut[c] = cc * center + cw * tIn[w] + ce * tIn[e] + cs * tIn[s] + cn * tIn[n] +
              cb * below + ct * above + sdc * p[c] + ct * amb_temp;
}
