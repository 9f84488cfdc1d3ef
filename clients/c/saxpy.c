/* SAXPY through the CUDA driver API on warpsim: a plain C host program, compiled with the
 * system C compiler against libwarpsim_cuda.so. It loads the PTX file given as its argument
 * (samples/saxpy/saxpy.ptx: saxpy(int n, float a, float *x, float *y), y = a*x + y), links it
 * through cuLink*, launches it with kernelParams and again with the `extra` buffer, checks
 * every element, and prints what the device and the events report.
 *
 *   gcc -O2 -o saxpy saxpy.c -L target/release -lwarpsim_cuda
 *   LD_LIBRARY_PATH=target/release ./saxpy samples/saxpy/saxpy.ptx */
#include "warpsim_cuda.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        CUresult r_ = (call);                                                              \
        if (r_ != CUDA_SUCCESS) {                                                          \
            const char *name_ = "?";                                                       \
            cuGetErrorName(r_, &name_);                                                    \
            fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, #call, name_, \
                    r_);                                                                   \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (fread(text, 1, (size_t)n, f) != (size_t)n) {
        perror(path);
        exit(1);
    }
    text[n] = 0;
    fclose(f);
    *len = (size_t)n + 1;
    return text;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s saxpy.ptx\n", argv[0]);
        return 2;
    }
    size_t ptx_len;
    char *ptx = read_file(argv[1], &ptx_len);

    int version, count, major, minor, sms;
    char name[128];
    CUdevice dev;
    CHECK(cuInit(0));
    CHECK(cuDriverGetVersion(&version));
    CHECK(cuDeviceGetCount(&count));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    printf("driver %d, %d device(s): %s, compute capability %d.%d, %d SMs\n", version, count,
           name, major, minor, sms);

    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, 0, dev));

    /* Link the PTX (one input), then load the linked image. */
    char error_log[4096] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error_log, (void *)(size_t)sizeof error_log};
    CUlinkState link;
    void *image;
    size_t image_size;
    CHECK(cuLinkCreate(2, options, values, &link));
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, ptx_len, "saxpy.ptx", 0, NULL, NULL));
    CHECK(cuLinkComplete(link, &image, &image_size));
    CUmodule module;
    CHECK(cuModuleLoadDataEx(&module, image, 2, options, values));
    CHECK(cuLinkDestroy(link));
    CUfunction saxpy;
    CHECK(cuModuleGetFunction(&saxpy, module, "saxpy"));
    int regs, blocks_per_sm;
    CHECK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, saxpy));
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, saxpy, 256, 0));
    printf("saxpy: %d registers, %d blocks of 256 per SM\n", regs, blocks_per_sm);

    int n = 1 << 16;
    float a = 2.5f;
    size_t bytes = (size_t)n * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
    for (int i = 0; i < n; i++) {
        x[i] = (float)i;
        y[i] = (float)(n - i);
    }
    CUdeviceptr dx, dy;
    CHECK(cuMemAlloc(&dx, bytes));
    CHECK(cuMemAlloc(&dy, bytes));
    CUstream stream;
    CUevent start, stop;
    CHECK(cuStreamCreate(&stream, 0));
    CHECK(cuEventCreate(&start, 0));
    CHECK(cuEventCreate(&stop, 0));
    CHECK(cuMemcpyHtoDAsync(dx, x, bytes, stream));
    CHECK(cuMemcpyHtoDAsync(dy, y, bytes, stream));

    /* y = a*x + y with kernelParams ... */
    unsigned int grid = (unsigned int)((n + 255) / 256);
    void *params[] = {&n, &a, &dx, &dy};
    CHECK(cuEventRecord(start, stream));
    CHECK(cuLaunchKernel(saxpy, grid, 1, 1, 256, 1, 1, 0, stream, params, NULL));
    /* ... and once more with the `extra` buffer: the parameters at their ABI offsets. */
    struct {
        int n;
        float a;
        CUdeviceptr x, y;
    } buffer = {n, a, dx, dy};
    size_t buffer_size = sizeof buffer;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buffer, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &buffer_size, CU_LAUNCH_PARAM_END};
    CHECK(cuLaunchKernel(saxpy, grid, 1, 1, 256, 1, 1, 0, stream, NULL, extra));
    CHECK(cuEventRecord(stop, stream));
    CHECK(cuMemcpyDtoHAsync(out, dy, bytes, stream));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuEventSynchronize(stop));
    float ms;
    CHECK(cuEventElapsedTime(&ms, start, stop));

    int bad = 0;
    for (int i = 0; i < n; i++) {
        float expect = a * x[i] + (a * x[i] + y[i]);
        if (fabsf(out[i] - expect) > 1e-3f * fabsf(expect)) {
            if (bad++ < 5)
                fprintf(stderr, "y[%d] = %g, expected %g\n", i, out[i], expect);
        }
    }
    printf("saxpy: %d elements, two launches, %s (%d mismatches); events: %.6f ms\n", n,
           bad ? "FAILED" : "correct", bad, ms);

    /* A binary image is refused with CUDA_ERROR_NOT_SUPPORTED, naming the format. */
    static const char cubin[] = "\x7f" "ELF\x02\x01\x01";
    CUmodule refused;
    CUresult r = cuModuleLoadData(&refused, cubin);
    printf("a cubin image: %s\n", r == CUDA_ERROR_NOT_SUPPORTED ? "refused (CUDA_ERROR_NOT_SUPPORTED)" : "NOT REFUSED");

    CHECK(cuEventDestroy(start));
    CHECK(cuEventDestroy(stop));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dy));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));
    free(x);
    free(y);
    free(out);
    free(ptx);
    return bad || r != CUDA_ERROR_NOT_SUPPORTED ? 1 : 0;
}
