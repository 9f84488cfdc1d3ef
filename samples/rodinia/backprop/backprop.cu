// Rodinia 3.1 backprop, written for warpsim: one training step of a fully connected
// input -> hidden (16) -> output (1) network. The GPU computes the input layer's weighted sums
// (bpnn_layerforward_CUDA: a 16 x 16 tile of weight x input products, reduced over the 16
// inputs of the tile in shared memory) and adjusts the input -> hidden weights with momentum
// (bpnn_adjust_weights_cuda). The host does everything else between the two launches.
//
// Launch structure as in Rodinia: grid (1, in / 16), block (16, 16), blockIdx.y picks the tile
// of 16 input units. ETA and MOMENTUM are double constants, so the weight update is computed
// in double precision, as in the original.

#define BLOCK_SIZE 16
#define WIDTH 16   // hidden units per tile (the hidden layer has 16 units)
#define HEIGHT 16  // input units per tile
#define ETA 0.3
#define MOMENTUM 0.3

// Weights are stored row-major as (in + 1) x (hid + 1): row 0 and column 0 are the bias
// (threshold) units, so the tile of block `by` starts at row 1 + 16 * by, column 1.
extern "C" __global__ void bpnn_layerforward_CUDA(float *input_cuda,
                                                  float *output_hidden_cuda,
                                                  float *input_hidden_cuda,
                                                  float *hidden_partial_sum,
                                                  int in,
                                                  int hid)
{
    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;

    // Row (16 * by + ty + 1), column (tx + 1) of the (in + 1) x (hid + 1) weight matrix.
    int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
    int index_in = HEIGHT * by + ty + 1;

    __shared__ float input_node[HEIGHT];
    __shared__ float weight_matrix[HEIGHT][WIDTH];

    // One thread per row fetches the input unit of that row.
    if (tx == 0)
        input_node[ty] = input_cuda[index_in];
    __syncthreads();

    weight_matrix[ty][tx] = input_hidden_cuda[index];
    __syncthreads();

    weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
    __syncthreads();

    // Tree reduction over the rows; like Rodinia, the trip count and the stride come from the
    // fast intrinsics __log2f / __powf (exact for powers of two).
    for (int step = 1; step <= __log2f(HEIGHT); step++) {
        int stride = __powf(2, step);
        if (ty % stride == 0)
            weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + stride / 2][tx];
        __syncthreads();
    }

    // The reduced tile is written back over the weights (the host uploads the weights again
    // before the adjustment), and row 0 of the tile holds the partial sums.
    input_hidden_cuda[index] = weight_matrix[ty][tx];
    __syncthreads();

    if (tx == 0)
        hidden_partial_sum[by * hid + ty] = weight_matrix[tx][ty];
}

extern "C" __global__ void bpnn_adjust_weights_cuda(float *delta,
                                                    int hid,
                                                    float *ly,
                                                    int in,
                                                    float *w,
                                                    float *oldw)
{
    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;

    int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
    int index_y = HEIGHT * by + ty + 1;
    int index_x = tx + 1;

    // new_dw = eta * delta * ly + momentum * old_dw, in double as in the original
    w[index] += ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
    oldw[index] = ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));

    __syncthreads();

    // The bias row (input unit 0, whose activation is 1) is updated by the first row of the
    // first block.
    if (ty == 0 && by == 0) {
        w[index_x] += ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
        oldw[index_x] = ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
    }
}
