// Texture and surface access through bindless objects:
// tex1Dfetch (tex.1d.v4.*.s32), tex1D/tex2D/tex3D with float coordinates,
// tex2DLod (tex.level), and surf2Dread/surf2Dwrite (suld.b.2d / sust.b.2d),
// plus 1D surface access.

extern "C" __global__ void tex_fetch(cudaTextureObject_t lin, cudaTextureObject_t lin_int,
                                     float *out, int *outi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = tex1Dfetch<float>(lin, i);          // tex.1d.v4.f32.s32
    outi[i] = tex1Dfetch<int>(lin_int, i * 2);   // tex.1d.v4.s32.s32
}

extern "C" __global__ void tex_sample(cudaTextureObject_t t1, cudaTextureObject_t t2,
                                      cudaTextureObject_t t3, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
    float a = tex1D<float>(t1, u);                // tex.1d.v4.f32.f32
    float b = tex2D<float>(t2, u, v);             // tex.2d.v4.f32.f32
    float4 c = tex2D<float4>(t2, u * 0.5f, v);    // all four channels
    float d = tex3D<float>(t3, u, v, 0.5f);       // tex.3d.v4.f32.f32
    float e = tex2DLod<float>(t2, u, v, 1.0f);    // tex.level.2d.v4.f32.f32
    out[y * w + x] = a + b + c.x + c.y + c.z + c.w + d + e;
}

extern "C" __global__ void surf_copy(cudaSurfaceObject_t src, cudaSurfaceObject_t dst,
                                     cudaSurfaceObject_t flip, cudaSurfaceObject_t line,
                                     int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float v;
    surf2Dread(&v, src, x * (int)sizeof(float), y);                  // suld.b.2d.b32.trap
    surf2Dwrite(v * 2.0f, dst, x * (int)sizeof(float), y);           // sust.b.2d.b32.trap
    // The next element's bytes, clamped at the right edge, to the mirrored row.
    uchar4 p = surf2Dread<uchar4>(src, x * 4 + 4, y, cudaBoundaryModeClamp); // suld.b.2d.v4.b8.clamp
    surf2Dwrite(p, flip, x * 4, h - 1 - y, cudaBoundaryModeZero);    // sust.b.2d.v4.b8.zero
    surf2Dwrite(p, flip, (x + w) * 4, y, cudaBoundaryModeZero);      // outside: dropped
    if (y == 0) {
        int q = surf1Dread<int>(line, x * 4);                        // suld.b.1d.b32.trap
        surf1Dwrite(q + 1, line, x * 4);                             // sust.b.1d.b32.trap
    }
}
