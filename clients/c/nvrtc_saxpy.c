/* CUDA C in: a .cu string compiled at run time with NVRTC (libnvrtc.so.12 from the
 * nvidia-cuda-nvrtc-cu12 wheel, dlopen'ed from the path given as the argument), for the
 * compute capability the device reports, then loaded and launched through the driver API on
 * warpsim and checked.
 *
 *   gcc -O2 -o nvrtc_saxpy nvrtc_saxpy.c -L target/release -lwarpsim_cuda -ldl
 *   LD_LIBRARY_PATH=target/release ./nvrtc_saxpy .../nvidia/cuda_nvrtc/lib/libnvrtc.so.12 */
#include "warpsim_cuda.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The NVRTC entry points used, as NVRTC's documentation declares them. */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
typedef nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                     const char *const *, const char *const *);
typedef nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*GetSize)(nvrtcProgram, size_t *);
typedef nvrtcResult (*GetText)(nvrtcProgram, char *);
typedef nvrtcResult (*DestroyProgram)(nvrtcProgram *);
typedef nvrtcResult (*AddNameExpression)(nvrtcProgram, const char *);
typedef nvrtcResult (*GetLoweredName)(nvrtcProgram, const char *, const char **);

#define CHECK(call)                                                                        \
    do {                                                                                   \
        CUresult r_ = (call);                                                              \
        if (r_ != CUDA_SUCCESS) {                                                          \
            const char *name_ = "?";                                                       \
            cuGetErrorName(r_, &name_);                                                    \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, name_);   \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#define NVRTC(call)                                                                        \
    do {                                                                                   \
        if ((call) != 0) {                                                                 \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call);              \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* A template kernel, so that the launch needs NVRTC's lowered (mangled) name. */
static const char *source =
    "template <typename T>\n"
    "__global__ void axpy(int n, T a, const T *x, T *y) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

static void *symbol(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "NVRTC has no %s\n", name);
        exit(1);
    }
    return f;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s path/to/libnvrtc.so.12\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "cannot load NVRTC: %s (pip install nvidia-cuda-nvrtc-cu12)\n", dlerror());
        return 1;
    }
    CreateProgram create = (CreateProgram)symbol(lib, "nvrtcCreateProgram");
    CompileProgram compile = (CompileProgram)symbol(lib, "nvrtcCompileProgram");
    GetSize log_size = (GetSize)symbol(lib, "nvrtcGetProgramLogSize");
    GetText get_log = (GetText)symbol(lib, "nvrtcGetProgramLog");
    GetSize ptx_size = (GetSize)symbol(lib, "nvrtcGetPTXSize");
    GetText get_ptx = (GetText)symbol(lib, "nvrtcGetPTX");
    DestroyProgram destroy = (DestroyProgram)symbol(lib, "nvrtcDestroyProgram");
    AddNameExpression add_name = (AddNameExpression)symbol(lib, "nvrtcAddNameExpression");
    GetLoweredName lowered = (GetLoweredName)symbol(lib, "nvrtcGetLoweredName");

    CUdevice dev;
    int major, minor;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);

    nvrtcProgram prog;
    NVRTC(create(&prog, source, "axpy.cu", 0, NULL, NULL));
    NVRTC(add_name(prog, "axpy<float>"));
    const char *options[] = {arch, "--std=c++17"};
    nvrtcResult compiled = compile(prog, 2, options);
    size_t n_log;
    NVRTC(log_size(prog, &n_log));
    char *log = malloc(n_log);
    NVRTC(get_log(prog, log));
    if (compiled != 0) {
        fprintf(stderr, "NVRTC failed:\n%s\n", log);
        return 1;
    }
    const char *name;
    NVRTC(lowered(prog, "axpy<float>", &name));
    size_t n_ptx;
    NVRTC(ptx_size(prog, &n_ptx));
    char *ptx = malloc(n_ptx);
    NVRTC(get_ptx(prog, ptx));
    printf("NVRTC compiled axpy<float> for %s: %zu bytes of PTX, kernel %s\n", arch + 19, n_ptx,
           name);

    CUcontext ctx;
    CUmodule module;
    CUfunction kernel;
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&kernel, module, name));

    int n = 100000;
    float a = -1.5f;
    size_t bytes = (size_t)n * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.25f;
        y[i] = 1.0f + (float)(i % 7);
    }
    CUdeviceptr dx, dy;
    CHECK(cuMemAlloc(&dx, bytes));
    CHECK(cuMemAlloc(&dy, bytes));
    CHECK(cuMemcpyHtoD(dx, x, bytes));
    CHECK(cuMemcpyHtoD(dy, y, bytes));
    void *params[] = {&n, &a, &dx, &dy};
    CHECK(cuLaunchKernel(kernel, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params,
                         NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(out, dy, bytes));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float expect = a * x[i] + y[i];
        if (fabsf(out[i] - expect) > 1e-5f * (1.0f + fabsf(expect)) && bad++ < 5)
            fprintf(stderr, "y[%d] = %g, expected %g\n", i, out[i], expect);
    }
    printf("axpy<float> on warpsim: %d elements, %s\n", n, bad ? "FAILED" : "correct");
    NVRTC(destroy(&prog));
    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dy));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));
    free(x);
    free(y);
    free(out);
    free(ptx);
    free(log);
    return bad ? 1 : 0;
}
