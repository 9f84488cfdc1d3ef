// Parboil stencil (the `cuda` version, `block2D_hybrid_coarsen_x`), written for warpsim.
//
// One Jacobi step of the 7-point 3-D Laplacian stencil on an nx x ny x nz grid (x fastest):
//   Anext(i,j,k) = c1 * (A0(i,j,k+1) + A0(i,j,k-1) + A0(i,j+1,k) + A0(i,j-1,k)
//                        + A0(i+1,j,k) + A0(i-1,j,k)) - c0 * A0(i,j,k)
// for interior points; boundary points are not written (the host initialises both buffers
// with the input, so they stay fixed). The host launches the kernel once per iteration,
// swapping the two buffers.
//
// Parboil's structure: a 2-D grid of CTAs of tx x ty threads covers the xy plane, each thread
// coarsened over two points along x (i and i + tx), and every thread walks the whole z column.
// The current plane of the CTA's (2 tx) x ty tile sits in (dynamic) shared memory; the planes
// below and above stay in registers (`bottom`, `top`), and neighbours just outside the tile
// in x or y are read from global memory. After each plane the tile shifts up one plane.

#define Index3D(nx, ny, i, j, k) ((i) + (nx) * ((j) + (ny) * (k)))

extern "C" __global__ void block2D_hybrid_coarsen_x(float c0, float c1, const float *A0,
                                                    float *Anext, int nx, int ny, int nz)
{
    extern __shared__ float plane[];

    const int i = blockIdx.x * blockDim.x * 2 + threadIdx.x; // first point
    const int i2 = i + blockDim.x;                           // second point
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int tile_w = blockDim.x * 2;
    const int s = threadIdx.x + threadIdx.y * tile_w;
    const int s2 = s + blockDim.x;

    plane[s] = 0.0f;
    plane[s2] = 0.0f;
    __syncthreads();

    // Which points are interior (written), and which neighbours lie outside the tile.
    const bool inner = i > 0 && j > 0 && i < nx - 1 && j < ny - 1;
    const bool inner2 = j > 0 && i2 < nx - 1 && j < ny - 1;
    const bool x_lo = threadIdx.x == 0;
    const bool x_hi = threadIdx.x == blockDim.x - 1;
    const bool y_lo = threadIdx.y == 0;
    const bool y_hi = threadIdx.y == blockDim.y - 1;
    const bool load = i < nx && j < ny;
    const bool load2 = i2 < nx && j < ny;

    float bottom = 0.0f, bottom2 = 0.0f, top = 0.0f, top2 = 0.0f;
    if (load) {
        bottom = A0[Index3D(nx, ny, i, j, 0)];
        plane[s] = A0[Index3D(nx, ny, i, j, 1)];
    }
    if (load2) {
        bottom2 = A0[Index3D(nx, ny, i2, j, 0)];
        plane[s2] = A0[Index3D(nx, ny, i2, j, 1)];
    }
    __syncthreads();

    for (int k = 1; k < nz - 1; k++) {
        if (load)
            top = A0[Index3D(nx, ny, i, j, k + 1)];
        if (inner) {
            float up = y_hi ? A0[Index3D(nx, ny, i, j + 1, k)] : plane[s + tile_w];
            float down = y_lo ? A0[Index3D(nx, ny, i, j - 1, k)] : plane[s - tile_w];
            float left = x_lo ? A0[Index3D(nx, ny, i - 1, j, k)] : plane[s - 1];
            Anext[Index3D(nx, ny, i, j, k)] =
                (top + bottom + up + down + plane[s + 1] + left) * c1 - plane[s] * c0;
        }

        if (load2)
            top2 = A0[Index3D(nx, ny, i2, j, k + 1)];
        if (inner2) {
            float up = y_hi ? A0[Index3D(nx, ny, i2, j + 1, k)] : plane[s2 + tile_w];
            float down = y_lo ? A0[Index3D(nx, ny, i2, j - 1, k)] : plane[s2 - tile_w];
            float right = x_hi ? A0[Index3D(nx, ny, i2 + 1, j, k)] : plane[s2 + 1];
            Anext[Index3D(nx, ny, i2, j, k)] =
                (top2 + bottom2 + up + down + plane[s2 - 1] + right) * c1 - plane[s2] * c0;
        }

        // Shift the tile up one plane.
        __syncthreads();
        bottom = plane[s];
        plane[s] = top;
        bottom2 = plane[s2];
        plane[s2] = top2;
        __syncthreads();
    }
}
