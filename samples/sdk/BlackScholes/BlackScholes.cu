// CUDA SDK BlackScholes, written for warpsim.
//
// European call and put prices of a batch of options under the Black-Scholes model, with the
// cumulative normal distribution approximated by the SDK's fifth-degree polynomial (Abramowitz
// & Stegun 26.2.17). Every thread prices options opt = tid, tid + gridDim.x * blockDim.x, ...
// (the SDK's grid-stride loop, 128 threads per block); the riskless rate R and the volatility V
// are the same for all options.
//
// Changed from the SDK: the SDK calls the fast intrinsics __expf, __logf and
// __fdividef(1, rsqrtf(T)); this version writes the standard expf, logf and sqrtf (and plain
// division), which NVRTC compiles to its accurate library sequences (sqrt.rn, div.rn and an
// ex2.approx-based expf), so the prices differ from a correctly rounded reference only by the
// few ulps of expf and logf. See samples/src/sdk/black_scholes.rs for the tolerance.

#define A1 0.31938153f
#define A2 -0.356563782f
#define A3 1.781477937f
#define A4 -1.821255978f
#define A5 1.330274429f
#define RSQRT2PI 0.39894228040143267793994605993438f

// Polynomial approximation of the cumulative normal distribution.
__device__ inline float cndGPU(float d)
{
    const float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float cnd = RSQRT2PI * expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    if (d > 0)
        cnd = 1.0f - cnd;
    return cnd;
}

// Call and put prices of one option: stock price S, strike X, years to expiry T.
__device__ inline void BlackScholesBodyGPU(float &CallResult, float &PutResult, float S, float X,
                                           float T, float R, float V)
{
    const float sqrtT = sqrtf(T);
    const float d1 = (logf(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
    const float d2 = d1 - V * sqrtT;
    const float CNDD1 = cndGPU(d1);
    const float CNDD2 = cndGPU(d2);
    const float expRT = expf(-R * T);
    CallResult = S * CNDD1 - X * expRT * CNDD2;
    PutResult = X * expRT * (1.0f - CNDD2) - S * (1.0f - CNDD1);
}

extern "C" __global__ void BlackScholesGPU(float *d_CallResult, float *d_PutResult,
                                           const float *d_StockPrice, const float *d_OptionStrike,
                                           const float *d_OptionYears, float Riskfree,
                                           float Volatility, int optN)
{
    const int tid = blockDim.x * blockIdx.x + threadIdx.x;
    const int THREAD_N = blockDim.x * gridDim.x;
    for (int opt = tid; opt < optN; opt += THREAD_N)
        BlackScholesBodyGPU(d_CallResult[opt], d_PutResult[opt], d_StockPrice[opt],
                            d_OptionStrike[opt], d_OptionYears[opt], Riskfree, Volatility);
}
