// Rodinia 3.1 heartwall (CUDA), written for warpsim. Tracks the endocardial and epicardial
// points of a heart wall through the frames of an ultrasound video: one block per point
// (NUMBER_THREADS = 256 threads), one launch of `kernel` per frame. The parameters live in
// constant memory, uploaded by the host as Rodinia does with cudaMemcpyToSymbol: d_common (sizes
// of every intermediate array), d_unique (per point: its coordinates, template and work buffers)
// and d_common_change (the frame and its number, rewritten before every launch).
//
// Frame 0: every block cuts its point's template (in_rows x in_cols around the point) out of the
// frame. Later frames: every block cuts the search area (in2, 2 sSize + 1 square) around the
// point, convolves it with the rotated template, builds the local sums of the area and of its
// square by padding and cumulative sums (vertical, then horizontal, with selections and
// subtractions), normalises the convolution into a correlation, masks it to the maxMove window
// around the point's previous location and takes the position of the largest magnitude as the
// point's new location. Every 10th frame the point moves there and its template is blended with
// the frame (alpha).
//
// All matrices are column-major with 1-based MATLAB-style row/column arithmetic, as in Rodinia.

#define fp float

#define NUMBER_THREADS 256
#define ALL_POINTS 51

typedef struct params_common_change {
    fp *d_frame;
    int frame_no;
} params_common_change;

// All fields 4 bytes wide: the host writes it as an array of 32-bit words in this order.
typedef struct params_common {
    int sSize;
    int tSize;
    int maxMove;
    fp alpha;
    int no_frames;
    int frame_rows;
    int frame_cols;
    int frame_elem;
    int in_rows;
    int in_cols;
    int in_elem;
    int in2_rows;
    int in2_cols;
    int in2_elem;
    int conv_rows;
    int conv_cols;
    int conv_elem;
    int ioffset;
    int joffset;
    int in2_pad_add_rows;
    int in2_pad_add_cols;
    int in2_pad_cumv_rows;
    int in2_pad_cumv_cols;
    int in2_pad_cumv_elem;
    int in2_pad_cumv_sel_rowlow;
    int in2_pad_cumv_sel_collow;
    int in2_pad_cumv_sel_rows;
    int in2_pad_cumv_sel_cols;
    int in2_pad_cumv_sel_elem;
    int in2_pad_cumv_sel2_rowlow;
    int in2_pad_cumv_sel2_collow;
    int in2_sub_cumh_rows;
    int in2_sub_cumh_cols;
    int in2_sub_cumh_elem;
    int in2_sub_cumh_sel_rowlow;
    int in2_sub_cumh_sel_collow;
    int in2_sub_cumh_sel_rows;
    int in2_sub_cumh_sel_cols;
    int in2_sub_cumh_sel_elem;
    int in2_sub_cumh_sel2_rowlow;
    int in2_sub_cumh_sel2_collow;
    int in2_sub2_rows;
    int in2_sub2_cols;
    int in2_sub2_elem;
    int in2_sqr_rows;
    int in2_sqr_cols;
    int in2_sqr_elem;
    int in_sqr_rows;
    int in_sqr_cols;
    int in_sqr_elem;
    int tMask_rows;
    int tMask_cols;
    int tMask_elem;
    int mask_rows;
    int mask_cols;
    int mask_conv_rows;
    int mask_conv_cols;
    int mask_conv_elem;
    int mask_conv_ioffset;
    int mask_conv_joffset;
} params_common;

// Pointers first, then the two ints (no padding inside; 8-byte aligned size).
typedef struct params_unique {
    int *d_Row;
    int *d_Col;
    int *d_tRowLoc;
    int *d_tColLoc;
    fp *d_T;
    fp *d_in2;
    fp *d_conv;
    fp *d_in2_pad_cumv;
    fp *d_in2_pad_cumv_sel;
    fp *d_in2_sub_cumh;
    fp *d_in2_sub_cumh_sel;
    fp *d_in2_sub2;
    fp *d_in2_sqr;
    fp *d_in2_sqr_sub2;
    fp *d_in_sqr;
    fp *d_tMask;
    fp *d_mask_conv;
    int point_no;
    int in_pointer;
} params_unique;

__constant__ params_common_change d_common_change;
__constant__ params_common d_common;
__constant__ params_unique d_unique[ALL_POINTS];

// Element ei of a column-major matrix with `rows` rows: its 0-based row and column, computed the
// MATLAB way Rodinia does.
static __device__ __forceinline__ void position(int ei, int rows, int &row, int &col)
{
    row = (ei + 1) % rows - 1;
    col = (ei + 1) / rows + 1 - 1;
    if ((ei + 1) % rows == 0) {
        row = rows - 1;
        col = col - 1;
    }
}

// Pads `src` (src_rows x src_cols) with in2_pad_add_rows/cols zeros on every side into
// d_in2_pad_cumv, then sums every column cumulatively.
static __device__ __forceinline__ void pad_and_cumv(int bx, int tx, const fp *src, int src_rows,
                                                    int src_cols)
{
    int ei, row, col;
    for (ei = tx; ei < d_common.in2_pad_cumv_elem; ei += NUMBER_THREADS) {
        position(ei, d_common.in2_pad_cumv_rows, row, col);
        if (row > (d_common.in2_pad_add_rows - 1) &&
            row < (d_common.in2_pad_add_rows + src_rows) &&
            col > (d_common.in2_pad_add_cols - 1) &&
            col < (d_common.in2_pad_add_cols + src_cols)) {
            int ori_row = row - d_common.in2_pad_add_rows;
            int ori_col = col - d_common.in2_pad_add_cols;
            d_unique[bx].d_in2_pad_cumv[ei] = src[ori_col * src_rows + ori_row];
        } else {
            d_unique[bx].d_in2_pad_cumv[ei] = 0;
        }
    }
    __syncthreads();

    for (ei = tx; ei < d_common.in2_pad_cumv_cols; ei += NUMBER_THREADS) {
        int pos_ori = ei * d_common.in2_pad_cumv_rows;
        fp sum = 0;
        for (int p = pos_ori; p < pos_ori + d_common.in2_pad_cumv_rows; p = p + 1) {
            d_unique[bx].d_in2_pad_cumv[p] = d_unique[bx].d_in2_pad_cumv[p] + sum;
            sum = d_unique[bx].d_in2_pad_cumv[p];
        }
    }
    __syncthreads();
}

// From the padded cumulative sums: selection, second selection subtracted, horizontal
// cumulative sum, selection, second selection subtracted into `out` (in2_sub2 sized): the local
// sums over template-sized windows.
static __device__ __forceinline__ void window_sums(int bx, int tx, fp *out)
{
    int ei, row, col;
    // selection
    for (ei = tx; ei < d_common.in2_pad_cumv_sel_elem; ei += NUMBER_THREADS) {
        position(ei, d_common.in2_pad_cumv_sel_rows, row, col);
        int ori_row = row + d_common.in2_pad_cumv_sel_rowlow - 1;
        int ori_col = col + d_common.in2_pad_cumv_sel_collow - 1;
        d_unique[bx].d_in2_pad_cumv_sel[ei] =
            d_unique[bx].d_in2_pad_cumv[ori_col * d_common.in2_pad_cumv_rows + ori_row];
    }
    __syncthreads();

    // selection 2
    for (ei = tx; ei < d_common.in2_sub_cumh_elem; ei += NUMBER_THREADS) {
        position(ei, d_common.in2_sub_cumh_rows, row, col);
        int ori_row = row + d_common.in2_pad_cumv_sel2_rowlow - 1;
        int ori_col = col + d_common.in2_pad_cumv_sel2_collow - 1;
        d_unique[bx].d_in2_sub_cumh[ei] =
            d_unique[bx].d_in2_pad_cumv[ori_col * d_common.in2_pad_cumv_rows + ori_row];
    }
    __syncthreads();

    // subtraction
    for (ei = tx; ei < d_common.in2_sub_cumh_elem; ei += NUMBER_THREADS) {
        d_unique[bx].d_in2_sub_cumh[ei] =
            d_unique[bx].d_in2_pad_cumv_sel[ei] - d_unique[bx].d_in2_sub_cumh[ei];
    }
    __syncthreads();

    // horizontal cumulative sum
    for (ei = tx; ei < d_common.in2_sub_cumh_rows; ei += NUMBER_THREADS) {
        fp sum = 0;
        for (int p = ei; p < ei + d_common.in2_sub_cumh_elem; p = p + d_common.in2_sub_cumh_rows) {
            d_unique[bx].d_in2_sub_cumh[p] = d_unique[bx].d_in2_sub_cumh[p] + sum;
            sum = d_unique[bx].d_in2_sub_cumh[p];
        }
    }
    __syncthreads();

    // selection
    for (ei = tx; ei < d_common.in2_sub_cumh_sel_elem; ei += NUMBER_THREADS) {
        position(ei, d_common.in2_sub_cumh_sel_rows, row, col);
        int ori_row = row + d_common.in2_sub_cumh_sel_rowlow - 1;
        int ori_col = col + d_common.in2_sub_cumh_sel_collow - 1;
        d_unique[bx].d_in2_sub_cumh_sel[ei] =
            d_unique[bx].d_in2_sub_cumh[ori_col * d_common.in2_sub_cumh_rows + ori_row];
    }
    __syncthreads();

    // selection 2
    for (ei = tx; ei < d_common.in2_sub2_elem; ei += NUMBER_THREADS) {
        position(ei, d_common.in2_sub2_rows, row, col);
        int ori_row = row + d_common.in2_sub_cumh_sel2_rowlow - 1;
        int ori_col = col + d_common.in2_sub_cumh_sel2_collow - 1;
        out[ei] = d_unique[bx].d_in2_sub_cumh[ori_col * d_common.in2_sub_cumh_rows + ori_row];
    }
    __syncthreads();

    // subtraction
    for (ei = tx; ei < d_common.in2_sub2_elem; ei += NUMBER_THREADS) {
        out[ei] = d_unique[bx].d_in2_sub_cumh_sel[ei] - out[ei];
    }
    __syncthreads();
}

extern "C" __global__ void kernel()
{
    __shared__ float in_partial_sum[51];
    __shared__ float in_sqr_partial_sum[51];
    __shared__ float in_final_sum;
    __shared__ float in_sqr_final_sum;
    __shared__ float denomT;
    __shared__ float par_max_val[131];
    __shared__ int par_max_coo[131];
    __shared__ float d_in_mod_temp[2601];

    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int ei, row, col;
    const int point = d_unique[bx].point_no;
    fp *d_in = &d_unique[bx].d_T[d_unique[bx].in_pointer];

    //================================================================ template (first frame)
    if (d_common_change.frame_no == 0) {
        if (tx == 0) {
            int pointer = point * d_common.no_frames + d_common_change.frame_no;
            d_unique[bx].d_tRowLoc[pointer] = d_unique[bx].d_Row[point];
            d_unique[bx].d_tColLoc[pointer] = d_unique[bx].d_Col[point];
        }
        for (ei = tx; ei < d_common.in_elem; ei += NUMBER_THREADS) {
            position(ei, d_common.in_rows, row, col);
            int ori_row = d_unique[bx].d_Row[point] - d_common.tSize + row - 1;
            int ori_col = d_unique[bx].d_Col[point] - d_common.tSize + col - 1;
            d_in[col * d_common.in_rows + row] =
                d_common_change.d_frame[ori_col * d_common.frame_rows + ori_row];
        }
    }

    //================================================================ tracking (other frames)
    if (d_common_change.frame_no != 0) {
        // search area around the point
        int in2_rowlow = d_unique[bx].d_Row[point] - d_common.sSize;
        int in2_collow = d_unique[bx].d_Col[point] - d_common.sSize;
        for (ei = tx; ei < d_common.in2_elem; ei += NUMBER_THREADS) {
            position(ei, d_common.in2_rows, row, col);
            int ori_row = row + in2_rowlow - 1;
            int ori_col = col + in2_collow - 1;
            d_unique[bx].d_in2[ei] =
                d_common_change.d_frame[ori_col * d_common.frame_rows + ori_row];
        }
        __syncthreads();

        // template rotated by 180 degrees, into shared memory
        for (ei = tx; ei < d_common.in_elem; ei += NUMBER_THREADS) {
            position(ei, d_common.in_rows, row, col);
            int rot_row = (d_common.in_rows - 1) - row;
            int rot_col = (d_common.in_rows - 1) - col;
            d_in_mod_temp[ei] = d_in[rot_col * d_common.in_rows + rot_row];
        }
        __syncthreads();

        // full convolution of the area with the rotated template
        for (ei = tx; ei < d_common.conv_elem; ei += NUMBER_THREADS) {
            int ic = (ei + 1) % d_common.conv_rows;
            int jc = (ei + 1) / d_common.conv_rows + 1;
            if ((ei + 1) % d_common.conv_rows == 0) {
                ic = d_common.conv_rows;
                jc = jc - 1;
            }
            int j = jc + d_common.joffset;
            int jp1 = j + 1;
            int ja1 = d_common.in2_cols < jp1 ? jp1 - d_common.in2_cols : 1;
            int ja2 = d_common.in_cols < j ? d_common.in_cols : j;
            int i = ic + d_common.ioffset;
            int ip1 = i + 1;
            int ia1 = d_common.in2_rows < ip1 ? ip1 - d_common.in2_rows : 1;
            int ia2 = d_common.in_rows < i ? d_common.in_rows : i;
            float s = 0;
            for (int ja = ja1; ja <= ja2; ja++) {
                int jb = jp1 - ja;
                for (int ia = ia1; ia <= ia2; ia++) {
                    int ib = ip1 - ia;
                    s = s + d_in_mod_temp[d_common.in_rows * (ja - 1) + ia - 1] *
                                d_unique[bx].d_in2[d_common.in2_rows * (jb - 1) + ib - 1];
                }
            }
            d_unique[bx].d_conv[ei] = s;
        }
        __syncthreads();

        // local sums of the area
        pad_and_cumv(bx, tx, d_unique[bx].d_in2, d_common.in2_rows, d_common.in2_cols);
        window_sums(bx, tx, d_unique[bx].d_in2_sub2);

        // local sums of the squared area
        for (ei = tx; ei < d_common.in2_sqr_elem; ei += NUMBER_THREADS) {
            float temp = d_unique[bx].d_in2[ei];
            d_unique[bx].d_in2_sqr[ei] = temp * temp;
        }
        __syncthreads();
        pad_and_cumv(bx, tx, d_unique[bx].d_in2_sqr, d_common.in2_sqr_rows,
                     d_common.in2_sqr_cols);
        window_sums(bx, tx, d_unique[bx].d_in2_sqr_sub2);

        // denominator A, into in2_sqr_sub2
        for (ei = tx; ei < d_common.in2_sub2_elem; ei += NUMBER_THREADS) {
            float temp = d_unique[bx].d_in2_sub2[ei];
            float temp2 = d_unique[bx].d_in2_sqr_sub2[ei] - (temp * temp / d_common.in_elem);
            if (temp2 < 0) {
                temp2 = 0;
            }
            d_unique[bx].d_in2_sqr_sub2[ei] = sqrt(temp2);
        }
        __syncthreads();

        // template statistics
        for (ei = tx; ei < d_common.in_sqr_elem; ei += NUMBER_THREADS) {
            float temp = d_in[ei];
            d_unique[bx].d_in_sqr[ei] = temp * temp;
        }
        __syncthreads();
        for (ei = tx; ei < d_common.in_cols; ei += NUMBER_THREADS) {
            float sum = 0;
            for (int i = 0; i < d_common.in_rows; i++) {
                sum = sum + d_in[ei * d_common.in_rows + i];
            }
            in_partial_sum[ei] = sum;
        }
        __syncthreads();
        for (ei = tx; ei < d_common.in_sqr_rows; ei += NUMBER_THREADS) {
            float sum = 0;
            for (int i = 0; i < d_common.in_sqr_cols; i++) {
                sum = sum + d_unique[bx].d_in_sqr[ei + d_common.in_sqr_rows * i];
            }
            in_sqr_partial_sum[ei] = sum;
        }
        __syncthreads();
        if (tx == 0) {
            in_final_sum = 0;
            for (int i = 0; i < d_common.in_cols; i++) {
                in_final_sum = in_final_sum + in_partial_sum[i];
            }
        } else if (tx == 1) {
            in_sqr_final_sum = 0;
            for (int i = 0; i < d_common.in_sqr_cols; i++) {
                in_sqr_final_sum = in_sqr_final_sum + in_sqr_partial_sum[i];
            }
        }
        __syncthreads();
        if (tx == 0) {
            float mean = in_final_sum / d_common.in_elem;
            float mean_sqr = mean * mean;
            float variance = (in_sqr_final_sum / d_common.in_elem) - mean_sqr;
            float deviation = sqrt(variance);
            denomT = sqrt(float(d_common.in_elem - 1)) * deviation;
        }
        __syncthreads();

        // denominator
        for (ei = tx; ei < d_common.in2_sub2_elem; ei += NUMBER_THREADS) {
            d_unique[bx].d_in2_sqr_sub2[ei] = d_unique[bx].d_in2_sqr_sub2[ei] * denomT;
        }
        __syncthreads();

        // numerator, into conv
        for (ei = tx; ei < d_common.conv_elem; ei += NUMBER_THREADS) {
            d_unique[bx].d_conv[ei] = d_unique[bx].d_conv[ei] -
                                      d_unique[bx].d_in2_sub2[ei] * in_final_sum / d_common.in_elem;
        }
        __syncthreads();

        // correlation, into in2_sqr_sub2
        for (ei = tx; ei < d_common.in2_sub2_elem; ei += NUMBER_THREADS) {
            d_unique[bx].d_in2_sqr_sub2[ei] = d_unique[bx].d_conv[ei] / d_unique[bx].d_in2_sqr_sub2[ei];
        }
        __syncthreads();

        // template mask: a single 1 at the point's previous location
        int cent = d_common.sSize + d_common.tSize + 1;
        int tMask_row, tMask_col;
        if (d_common_change.frame_no == 0) {
            tMask_row = cent + d_unique[bx].d_Row[point] - d_unique[bx].d_Row[point] - 1;
            tMask_col = cent + d_unique[bx].d_Col[point] - d_unique[bx].d_Col[point] - 1;
        } else {
            int pointer = d_common_change.frame_no - 1 + point * d_common.no_frames;
            tMask_row = cent + d_unique[bx].d_tRowLoc[pointer] - d_unique[bx].d_Row[point] - 1;
            tMask_col = cent + d_unique[bx].d_tColLoc[pointer] - d_unique[bx].d_Col[point] - 1;
        }
        for (ei = tx; ei < d_common.tMask_elem; ei += NUMBER_THREADS) {
            int location = tMask_col * d_common.tMask_rows + tMask_row;
            if (ei == location) {
                d_unique[bx].d_tMask[ei] = 1;
            } else {
                d_unique[bx].d_tMask[ei] = 0;
            }
        }
        __syncthreads();

        // mask convolution (a maxMove square of ones) times the correlation
        for (ei = tx; ei < d_common.mask_conv_elem; ei += NUMBER_THREADS) {
            int ic = (ei + 1) % d_common.mask_conv_rows;
            int jc = (ei + 1) / d_common.mask_conv_rows + 1;
            if ((ei + 1) % d_common.mask_conv_rows == 0) {
                ic = d_common.mask_conv_rows;
                jc = jc - 1;
            }
            int j = jc + d_common.mask_conv_joffset;
            int jp1 = j + 1;
            int ja1 = d_common.mask_cols < jp1 ? jp1 - d_common.mask_cols : 1;
            int ja2 = d_common.tMask_cols < j ? d_common.tMask_cols : j;
            int i = ic + d_common.mask_conv_ioffset;
            int ip1 = i + 1;
            int ia1 = d_common.mask_rows < ip1 ? ip1 - d_common.mask_rows : 1;
            int ia2 = d_common.tMask_rows < i ? d_common.tMask_rows : i;
            float s = 0;
            for (int ja = ja1; ja <= ja2; ja++) {
                for (int ia = ia1; ia <= ia2; ia++) {
                    s = s + d_unique[bx].d_tMask[d_common.tMask_rows * (ja - 1) + ia - 1] * 1;
                }
            }
            d_unique[bx].d_mask_conv[ei] = d_unique[bx].d_in2_sqr_sub2[ei] * s;
        }
        __syncthreads();

        // largest magnitude: per thread over a column, then thread 0 over the columns
        float largest_value = 0;
        int largest_coordinate = 0;
        for (ei = tx; ei < d_common.mask_conv_rows; ei += NUMBER_THREADS) {
            for (int i = 0; i < d_common.mask_conv_cols; i++) {
                int coordinate = ei * d_common.mask_conv_rows + i;
                float value = abs(d_unique[bx].d_mask_conv[coordinate]);
                if (value > largest_value) {
                    largest_coordinate = coordinate;
                    largest_value = value;
                }
            }
            par_max_coo[ei] = largest_coordinate;
            par_max_val[ei] = largest_value;
        }
        __syncthreads();
        if (tx == 0) {
            float fin_max_val = 0;
            int fin_max_coo = 0;
            for (int i = 0; i < d_common.mask_conv_rows; i++) {
                if (par_max_val[i] > fin_max_val) {
                    fin_max_val = par_max_val[i];
                    fin_max_coo = par_max_coo[i];
                }
            }
            int largest_row = (fin_max_coo + 1) % d_common.mask_conv_rows - 1;
            int largest_col = (fin_max_coo + 1) / d_common.mask_conv_rows;
            if ((fin_max_coo + 1) % d_common.mask_conv_rows == 0) {
                largest_row = d_common.mask_conv_rows - 1;
                largest_col = largest_col - 1;
            }
            largest_row = largest_row + 1; // 1-based, as MATLAB
            largest_col = largest_col + 1;
            int offset_row = largest_row - d_common.in_rows - (d_common.sSize - d_common.tSize);
            int offset_col = largest_col - d_common.in_cols - (d_common.sSize - d_common.tSize);
            int pointer = d_common_change.frame_no + point * d_common.no_frames;
            d_unique[bx].d_tRowLoc[pointer] = d_unique[bx].d_Row[point] + offset_row;
            d_unique[bx].d_tColLoc[pointer] = d_unique[bx].d_Col[point] + offset_col;
        }
        __syncthreads();
    }

    //================================================================ every 10th frame: move the
    // point to its tracked location and blend the template with the frame there
    if (d_common_change.frame_no != 0 && (d_common_change.frame_no) % 10 == 0) {
        int loc_pointer = point * d_common.no_frames + d_common_change.frame_no;
        d_unique[bx].d_Row[point] = d_unique[bx].d_tRowLoc[loc_pointer];
        d_unique[bx].d_Col[point] = d_unique[bx].d_tColLoc[loc_pointer];
        for (ei = tx; ei < d_common.in_elem; ei += NUMBER_THREADS) {
            position(ei, d_common.in_rows, row, col);
            int ori_row = d_unique[bx].d_Row[point] - d_common.tSize + row - 1;
            int ori_col = d_unique[bx].d_Col[point] - d_common.tSize + col - 1;
            int ori_pointer = ori_col * d_common.frame_rows + ori_row;
            d_in[ei] = d_common.alpha * d_in[ei] +
                       (1.00 - d_common.alpha) * d_common_change.d_frame[ori_pointer];
        }
    }
}
