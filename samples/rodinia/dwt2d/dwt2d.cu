// Rodinia 3.1 dwt2d (2-D discrete wavelet transform, the CUDA DWT of Jiri Matela and Martin
// Jirman), written for warpsim. The host splits an interleaved 8-bit RGB image into three
// component planes (c_CopySrcToComponents, 256 threads per block), then runs a multi-level
// forward DWT on each plane: per level one launch of a sliding-window kernel (fdwt53Kernel for
// the reversible integer 5/3 transform, fdwt97Kernel for the irreversible float 9/7 one), after
// which the host copies the LL band back to the input buffer for the next level.
//
// Each fdwt block has WIN_X threads, one per column of a WIN_X-wide window, and slides the
// window down the image WIN_Y rows at a time (winSteps times). Columns are kept in a shared
// buffer whose even and odd columns are stored apart; a few threads also load the boundary
// columns left and right of the window. Pixels outside the image are mirrored (whole-sample
// symmetric extension). Results are written into four linearly stored bands LL, HL, LH, HH.
//
// Rodinia's kernels are C++ templates (component type; window size); here the template bodies
// are kept and every instantiation Rodinia's host can launch gets an extern "C" wrapper named
// after the kernel and its template arguments.

#define THREADS 256
#define SHM_SIZE (48 * 1024)
#define CTMIN(a, b) (((a) < (b)) ? (a) : (b))

// ---------------------------------------------------------------------------------------------
// Component copy

__device__ __forceinline__ void storeComponent(int *d, unsigned char c, int pos)
{
    d[pos] = (int)c - 128;
}

__device__ __forceinline__ void storeComponent(float *d, unsigned char c, int pos)
{
    d[pos] = ((float)c / 255.0f) - 0.5f;
}

// One pixel per thread: the block's 3 * THREADS source bytes are staged in shared memory four
// bytes at a time, then each thread splits its pixel into the three planes.
template <typename T>
__device__ void copySrcToComponents(T *d_r, T *d_g, T *d_b, const unsigned char *d_src,
                                    int pixels, unsigned char *sData)
{
    int x = threadIdx.x;
    int gX = blockDim.x * blockIdx.x;

    // The source buffer is padded to a multiple of 3 * THREADS bytes, so no bounds check.
    if (x * 4 < THREADS * 3) {
        const float *s = (const float *)d_src;
        float *d = (float *)sData;
        d[x] = s[((gX * 3) >> 2) + x];
    }
    __syncthreads();

    int base = x * 3;
    unsigned char r = sData[base];
    unsigned char g = sData[base + 1];
    unsigned char b = sData[base + 2];

    int pos = gX + x;
    if (pos < pixels) {
        storeComponent(d_r, r, pos);
        storeComponent(d_g, g, pos);
        storeComponent(d_b, b, pos);
    }
}

extern "C" __global__ void c_CopySrcToComponents_int(int *d_r, int *d_g, int *d_b,
                                                     const unsigned char *d_src, int pixels)
{
    __shared__ __align__(4) unsigned char sData[THREADS * 3];
    copySrcToComponents<int>(d_r, d_g, d_b, d_src, pixels, sData);
}

extern "C" __global__ void c_CopySrcToComponents_float(float *d_r, float *d_g, float *d_b,
                                                       const unsigned char *d_src, int pixels)
{
    __shared__ __align__(4) unsigned char sData[THREADS * 3];
    copySrcToComponents<float>(d_r, d_g, d_b, d_src, pixels, sData);
}

// ---------------------------------------------------------------------------------------------
// Shared transform buffer: SIZE_Y lines of SIZE_X + 2 * BOUNDARY_X columns, the even columns in
// one half and the odd ones in the other (fewer bank conflicts in the lifting steps).

template <typename T, int SIZE_X, int SIZE_Y, int BOUNDARY_X>
struct SplitBuffer {
    enum {
        STRIDE = BOUNDARY_X + SIZE_X / 2,  // between two vertical neighbours
        HALF = STRIDE * SIZE_Y,            // one half (even or odd columns)
        GAP = 32 - ((HALF + 16) % 32),     // padding between the halves (32 banks)
        ODD = HALF + GAP,                  // where the odd half starts
        WORDS = 2 * HALF + GAP,
    };
    T data[WORDS];

    // Offset of column `c` (-BOUNDARY_X .. SIZE_X + BOUNDARY_X - 1) in line 0.
    __device__ static int column(int c)
    {
        c += BOUNDARY_X;
        return c / 2 + (c & 1) * ODD;
    }

    // Applies f(prev, centre, next) to `count` consecutive centre items, SIZE_X at a time.
    template <typename F>
    __device__ void horizontalPass(int count, int prev, int mid, int next, const F &f)
    {
        const int rounds = count / SIZE_X;
        const int rest = count % SIZE_X;
        const int restAt = count - rest;
        for (int i = 0; i < rounds; i++) {
            const int k = i * SIZE_X + threadIdx.x;
            const T p = data[prev + k];
            const T n = data[next + k];
            f(p, data[mid + k], n);
        }
        if (threadIdx.x < rest) {
            const int k = restAt + threadIdx.x;
            const T p = data[prev + k];
            const T n = data[next + k];
            f(p, data[mid + k], n);
        }
    }

    // Every odd item of lines first .. first + lines - 1 from its even neighbours (the last odd
    // item of the last line excluded).
    template <typename F>
    __device__ void horizontalOdd(int first, int lines, const F &f)
    {
        const int even = first * STRIDE;
        horizontalPass(lines * STRIDE - 1, even, even + ODD, even + 1, f);
    }

    // Every even item of the lines from its odd neighbours (the first even item excluded).
    template <typename F>
    __device__ void horizontalEven(int first, int lines, const F &f)
    {
        const int odd = first * STRIDE + ODD;
        horizontalPass(lines * STRIDE - 1, odd, first * STRIDE + 1, odd + 1, f);
    }

    // Odd lines 1, 3, ... of one column from the lines above and below.
    template <typename F>
    __device__ void verticalOdd(int col, const F &f)
    {
        for (int i = 0; i < (SIZE_Y - 1) / 2; i++) {
            const int at = col + (2 * i + 1) * STRIDE;
            const T p = data[at - STRIDE];
            const T n = data[at + STRIDE];
            f(p, data[at], n);
        }
    }

    // Even lines 2, 4, ... of one column (line 0 excluded).
    template <typename F>
    __device__ void verticalEven(int col, const F &f)
    {
        if (SIZE_Y > 3) {
            for (int i = 0; i < SIZE_Y / 2 - 1; i++) {
                const int at = col + (2 * i + 2) * STRIDE;
                const T p = data[at - STRIDE];
                const T n = data[at + STRIDE];
                f(p, data[at], n);
            }
        }
    }

    // Multiplies the even items of the lines by evenScale and the odd ones by oddScale.
    __device__ void scaleLines(T evenScale, T oddScale, int first, int lines)
    {
        const int at = first * STRIDE;
        const int count = lines * STRIDE;
        const int rounds = count / SIZE_X;
        const int rest = count % SIZE_X;
        const int restAt = count - rest;
        for (int i = 0; i < rounds; i++) {
            const int k = at + i * SIZE_X + threadIdx.x;
            data[k] *= evenScale;
            data[k + ODD] *= oddScale;
        }
        if (threadIdx.x < rest) {
            const int k = at + restAt + threadIdx.x;
            data[k] *= evenScale;
            data[k + ODD] *= oddScale;
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Loading image columns and writing band columns

__device__ __forceinline__ int divRndUp(int n, int d)
{
    return n / d + ((n % d) ? 1 : 0);
}

// Whole-sample symmetric extension (one reflection).
__device__ __forceinline__ int mirror(int d, int size)
{
    if (d >= size) {
        return 2 * size - 2 - d;
    } else if (d < 0) {
        return -d;
    }
    return d;
}

// Walks down one image column; a CHECKED loader turns around at the bottom edge.
template <typename T, bool CHECKED>
struct ColumnLoader {
    int last;    // index of the pixel loaded last
    int end;     // index of the pixel just below the column
    int stride;  // +-image width

    __device__ void init(int sizeX, int sizeY, int firstX, int firstY)
    {
        firstX = mirror(firstX, sizeX);
        end = CHECKED ? sizeY * sizeX + firstX : 0;
        stride = sizeX;
        last = firstX + sizeX * firstY - sizeX;
    }

    __device__ void clear()
    {
        last = end = stride = 0;
    }

    __device__ T next(const T *input)
    {
        last += stride;
        if (CHECKED && last == end) {
            last -= 2 * stride;
            stride = -stride;
        }
        return input[last];
    }
};

// Writes one column's coefficients alternately into its low and high vertical band (the band
// pair selected by the column's parity); a CHECKED writer stops at the bottom of the image.
template <typename T, bool CHECKED>
struct BandWriter {
    int next;
    int end;
    int lowToHigh;  // index step from a low-band row to the following high-band row
    int highToLow;

    __device__ void init(int sizeX, int sizeY, int firstX, int firstY)
    {
        if (firstX >= sizeX) {
            next = end = lowToHigh = highToLow = 0;
            return;
        }
        int offset = firstX / 2;
        int rowStride;
        if (firstX & 1) {  // HL / HH
            rowStride = sizeX / 2;
            offset += divRndUp(sizeX, 2) * divRndUp(sizeY, 2);
            lowToHigh = (sizeX * sizeY) / 2;
        } else {  // LL / LH
            rowStride = sizeX / 2 + (sizeX & 1);
            lowToHigh = divRndUp(sizeY, 2) * sizeX;
        }
        highToLow = rowStride - lowToHigh;
        end = CHECKED ? offset + (sizeY / 2) * rowStride + (sizeY & 1) * lowToHigh : 0;
        next = offset + (firstY / 2) * rowStride + (firstY & 1) * lowToHigh;
    }

    __device__ void put(T *out, T value, int step)
    {
        if (!CHECKED || next != end) {
            out[next] = value;
            next += step;
        }
    }

    __device__ void low(T *out, T value) { put(out, value, lowToHigh); }
    __device__ void high(T *out, T value) { put(out, value, highToLow); }
};

// Index 0 .. THREADS_N - 1 with the first half of the threads on even indices and the second
// half on odd ones: 0 2 4 ... 1 3 5 ...
template <int THREADS_N>
__device__ __forceinline__ int parityIdx()
{
    return (threadIdx.x * 2) - (THREADS_N - 1) * (threadIdx.x / (THREADS_N / 2));
}

// ---------------------------------------------------------------------------------------------
// Forward 5/3 (integer lifting, JPEG 2000 F.8 / F.9)

struct Predict53 {
    __device__ void operator()(int p, int &c, int n) const { c -= (p + n) / 2; }
};

struct Update53 {
    __device__ void operator()(int p, int &c, int n) const { c += (p + n + 2) / 4; }
};

template <int WIN_X, int WIN_Y>
struct FDWT53 {
    typedef SplitBuffer<int, WIN_X, WIN_Y + 3, 2> Buffer;
    enum { S = Buffer::STRIDE };

    template <bool CHECKED>
    struct Column {
        ColumnLoader<int, CHECKED> loader;
        int offset;
        int pixel0, pixel1, pixel2;  // the first three (untransformed) lines of the window
    };

    // Offset of the column, its loader, and its first three pixels (mirrored at the top).
    template <bool CHECKED>
    __device__ static void initColumn(Column<CHECKED> &col, const int *in, int sizeX, int sizeY,
                                      int colIndex, int firstY)
    {
        col.offset = Buffer::column(colIndex);
        const int firstX = blockIdx.x * WIN_X + colIndex;
        if (blockIdx.y == 0) {
            col.loader.init(sizeX, sizeY, firstX, firstY);
            col.pixel2 = col.loader.next(in);  // row 0
            col.pixel1 = col.loader.next(in);  // row 1
            col.pixel0 = col.loader.next(in);  // row 2 (mirror of row -2)
            col.loader.init(sizeX, sizeY, firstX, firstY + 1);
        } else {
            col.loader.init(sizeX, sizeY, firstX, firstY - 2);
            col.pixel0 = col.loader.next(in);
            col.pixel1 = col.loader.next(in);
            col.pixel2 = col.loader.next(in);
        }
    }

    // Puts the three kept pixels and WIN_Y new ones into the column, keeps the last three for
    // the next window, and transforms the column vertically.
    template <bool CHECKED>
    __device__ static void loadColumn(Buffer &buf, Column<CHECKED> &col, const int *in)
    {
        buf.data[col.offset + 0 * S] = col.pixel0;
        buf.data[col.offset + 1 * S] = col.pixel1;
        buf.data[col.offset + 2 * S] = col.pixel2;
        for (int i = 3; i < 3 + WIN_Y; i++) {
            buf.data[col.offset + i * S] = col.loader.next(in);
        }
        col.pixel0 = buf.data[col.offset + (WIN_Y + 0) * S];
        col.pixel1 = buf.data[col.offset + (WIN_Y + 1) * S];
        col.pixel2 = buf.data[col.offset + (WIN_Y + 2) * S];
        buf.verticalOdd(col.offset, Predict53());
        buf.verticalEven(col.offset, Update53());
    }

    template <bool CHECK_LOADS, bool CHECK_WRITES>
    __device__ static void transform(Buffer &buf, const int *in, int *out, int sizeX, int sizeY,
                                     int winSteps)
    {
        Column<CHECK_LOADS> col;
        Column<CHECK_LOADS> boundary;  // used by threads 0..2 only

        const int firstY = blockIdx.y * WIN_Y * winSteps;
        initColumn(col, in, sizeX, sizeY, threadIdx.x, firstY);

        boundary.offset = boundary.pixel0 = boundary.pixel1 = boundary.pixel2 = 0;
        boundary.loader.clear();
        if (threadIdx.x < 3) {
            // thread 0: the column right of the window; threads 1, 2: the two left of it
            const int colId = threadIdx.x + ((threadIdx.x == 0) ? WIN_X : -3);
            initColumn(boundary, in, sizeX, sizeY, colId, firstY);
        }

        const int outColumn = parityIdx<WIN_X>();
        const int outOffset = Buffer::column(outColumn);
        BandWriter<int, CHECK_WRITES> writer;
        writer.init(sizeX, sizeY, blockIdx.x * WIN_X + outColumn, firstY);

        for (int w = 0; w < winSteps; w++) {
            loadColumn(buf, col, in);
            if (threadIdx.x < 3) {
                loadColumn(buf, boundary, in);
            }
            __syncthreads();

            buf.horizontalOdd(2, WIN_Y, Predict53());
            __syncthreads();
            buf.horizontalEven(2, WIN_Y, Update53());
            __syncthreads();

            for (int r = 2; r < 2 + WIN_Y; r += 2) {
                writer.low(out, buf.data[outOffset + r * S]);
                writer.high(out, buf.data[outOffset + (r + 1) * S]);
            }
            __syncthreads();
        }
    }

    __device__ static void run(Buffer &buf, const int *in, int *out, int sx, int sy, int steps)
    {
        // (+1: the radius of the 5/3 filters' support)
        const int maxX = (blockIdx.x + 1) * WIN_X + 1;
        const int maxY = (blockIdx.y + 1) * WIN_Y * steps + 1;
        if (maxY >= sy) {
            transform<true, true>(buf, in, out, sx, sy, steps);
        } else if (maxX >= sx) {
            transform<false, true>(buf, in, out, sx, sy, steps);
        } else {
            transform<false, false>(buf, in, out, sx, sy, steps);
        }
    }
};

#define FDWT53_KERNEL(WX, WY)                                                                  \
    extern "C" __global__ void __launch_bounds__(                                              \
        WX, CTMIN(SHM_SIZE / sizeof(FDWT53<WX, WY>::Buffer), 8))                               \
        fdwt53Kernel_##WX##_##WY(const int *input, int *output, int sizeX, int sizeY,          \
                                 int winSteps)                                                 \
    {                                                                                          \
        __shared__ FDWT53<WX, WY>::Buffer buf;                                                 \
        FDWT53<WX, WY>::run(buf, input, output, sizeX, sizeY, winSteps);                       \
    }

FDWT53_KERNEL(64, 8)
FDWT53_KERNEL(128, 8)
FDWT53_KERNEL(192, 8)

// ---------------------------------------------------------------------------------------------
// Forward 9/7 (float lifting with Rodinia's coefficients)

constexpr float f97Predict1 = -1.586134342;
constexpr float f97Update1 = -0.05298011854;
constexpr float f97Predict2 = 0.8829110762;
constexpr float f97Update2 = 0.4435068522;
constexpr float scale97Mul = 1.23017410491400f;
constexpr float scale97Div = 1.0 / scale97Mul;

struct AddScaledSum {
    const float scale;
    __device__ AddScaledSum(float s) : scale(s) {}
    __device__ void operator()(float p, float &c, float n) const { c += scale * (p + n); }
};

template <int WIN_X, int WIN_Y>
struct FDWT97 {
    typedef SplitBuffer<float, WIN_X, WIN_Y + 7, 4> Buffer;
    enum { S = Buffer::STRIDE };

    template <bool CHECKED>
    struct Column {
        ColumnLoader<float, CHECKED> loader;
        int offset;
    };

    // All four lifting steps and the scaling on `lines` lines from `first`.
    __device__ static void horizontal(Buffer &buf, int lines, int first)
    {
        __syncthreads();
        buf.horizontalOdd(first, lines, AddScaledSum(f97Predict1));
        __syncthreads();
        buf.horizontalEven(first, lines, AddScaledSum(f97Update1));
        __syncthreads();
        buf.horizontalOdd(first, lines, AddScaledSum(f97Predict2));
        __syncthreads();
        buf.horizontalEven(first, lines, AddScaledSum(f97Update2));
        __syncthreads();
        buf.scaleLines(scale97Div, scale97Mul, first, lines);
        __syncthreads();
    }

    // Loads the first 7 lines of the column (mirrored at the top of the image).
    template <bool CHECKED>
    __device__ static void initColumn(Buffer &buf, Column<CHECKED> &col, int colIndex,
                                      const float *in, int sizeX, int sizeY, int firstY)
    {
        col.offset = Buffer::column(colIndex);
        const int firstX = blockIdx.x * WIN_X + colIndex;
        float *c = buf.data + col.offset;
        if (blockIdx.y == 0) {
            col.loader.init(sizeX, sizeY, firstX, firstY);
            c[4 * S] = col.loader.next(in);
            c[3 * S] = c[5 * S] = col.loader.next(in);
            c[2 * S] = c[6 * S] = col.loader.next(in);
            c[1 * S] = col.loader.next(in);
            c[0 * S] = col.loader.next(in);
            col.loader.init(sizeX, sizeY, firstX, firstY + 3);
        } else {
            col.loader.init(sizeX, sizeY, firstX, firstY - 4);
            for (int i = 0; i < 7; i++) {
                c[i * S] = col.loader.next(in);
            }
        }
    }

    template <bool CHECKED>
    __device__ static void loadWindow(Buffer &buf, Column<CHECKED> &col, const float *in)
    {
        for (int i = 7; i < 7 + WIN_Y; i++) {
            buf.data[col.offset + i * S] = col.loader.next(in);
        }
    }

    template <bool CHECK_LOADS, bool CHECK_WRITES>
    __device__ static void transform(Buffer &buf, const float *in, float *out, int sizeX,
                                     int sizeY, int winSteps)
    {
        Column<CHECK_LOADS> col;
        Column<CHECK_LOADS> boundary;  // used by threads 0..6 only

        const int firstY = blockIdx.y * WIN_Y * winSteps;
        initColumn(buf, col, threadIdx.x, in, sizeX, sizeY, firstY);

        boundary.offset = 0;
        boundary.loader.clear();
        if (threadIdx.x < 7) {
            // threads 0..2: the three columns right of the window; 3..6: the four left of it
            const int colId = threadIdx.x + ((threadIdx.x < 3) ? WIN_X : -7);
            initColumn(buf, boundary, colId, in, sizeX, sizeY, firstY);
        }

        horizontal(buf, 7, 0);

        const int outColumn = parityIdx<WIN_X>();
        BandWriter<float, CHECK_WRITES> writer;
        writer.init(sizeX, sizeY, blockIdx.x * WIN_X + outColumn, firstY);
        const int outOffset = Buffer::column(outColumn);

        for (int w = 0; w < winSteps; w++) {
            loadWindow(buf, col, in);
            if (threadIdx.x < 7) {
                loadWindow(buf, boundary, in);
            }
            horizontal(buf, WIN_Y, 7);

            // The last 7 lines, transformed horizontally only, start the next window.
            float keep[7];
            for (int i = 0; i < 7; i++) {
                keep[i] = buf.data[outOffset + (WIN_Y + i) * S];
            }

            buf.verticalOdd(outOffset, AddScaledSum(f97Predict1));
            buf.verticalEven(outOffset, AddScaledSum(f97Update1));
            buf.verticalOdd(outOffset, AddScaledSum(f97Predict2));
            buf.verticalEven(outOffset, AddScaledSum(f97Update2));

            // Lines 4 .. 4 + WIN_Y hold this window's results.
            for (int i = 4; i < 4 + WIN_Y; i += 2) {
                const int at = outOffset + i * S;
                writer.low(out, buf.data[at] * scale97Div);
                writer.high(out, buf.data[at + S] * scale97Mul);
            }

            for (int i = 0; i < 7; i++) {
                buf.data[outOffset + i * S] = keep[i];
            }
            __syncthreads();
        }
    }

    __device__ static void run(Buffer &buf, const float *in, float *out, int sx, int sy,
                               int steps)
    {
        // (+3: the radius of the 9/7 filters' support)
        const int maxX = (blockIdx.x + 1) * WIN_X + 3;
        const int maxY = (blockIdx.y + 1) * WIN_Y * steps + 3;
        if (maxY >= sy) {
            transform<true, true>(buf, in, out, sx, sy, steps);
        } else if (maxX >= sx) {
            transform<false, true>(buf, in, out, sx, sy, steps);
        } else {
            transform<false, false>(buf, in, out, sx, sy, steps);
        }
    }
};

#define FDWT97_KERNEL(WX, WY)                                                                  \
    extern "C" __global__ void __launch_bounds__(                                              \
        WX, CTMIN(SHM_SIZE / sizeof(FDWT97<WX, WY>::Buffer), 8))                               \
        fdwt97Kernel_##WX##_##WY(const float *input, float *output, int sizeX, int sizeY,      \
                                 int steps)                                                    \
    {                                                                                          \
        __shared__ FDWT97<WX, WY>::Buffer buf;                                                 \
        FDWT97<WX, WY>::run(buf, input, output, sizeX, sizeY, steps);                          \
    }

FDWT97_KERNEL(64, 6)
FDWT97_KERNEL(128, 6)
FDWT97_KERNEL(192, 8)
