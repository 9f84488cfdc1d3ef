// nvrtc-version: 11
// Rodinia 3.1 kmeans (CUDA) with Rodinia's texture references: kmeans.cu (the port warpsim runs
// by default, whose header describes the algorithm and launches) with the features read through
// the texture reference t_features by tex1Dfetch, as Rodinia reads them, instead of __ldg.
// CUDA 12 removed texture references, so this file is compiled with NVRTC 11.8
// (tools/regen_ptx.py reads the first line). Rodinia also declares t_features_flipped and
// t_clusters, which only its optional GPU reductions read; they are declared and bound here as
// Rodinia binds them, and unread.

#ifndef FLT_MAX
#define FLT_MAX 3.402823466e+38f
#endif

#define ASSUMED_NR_CLUSTERS 32
#define MAX_FEATURES 34

texture<float, 1, cudaReadModeElementType> t_features;
texture<float, 1, cudaReadModeElementType> t_features_flipped;
texture<float, 1, cudaReadModeElementType> t_clusters;

// Cluster centres, [cluster][feature], written by the host before every kmeansPoint launch.
__constant__ float c_clusters[ASSUMED_NR_CLUSTERS * MAX_FEATURES];

// input is point-major ([point][feature]), output feature-major ([feature][point]).
extern "C" __global__ void invert_mapping(float *input, float *output, int npoints, int nfeatures)
{
    int point_id = threadIdx.x + blockDim.x * blockIdx.x;
    int i;

    if (point_id < npoints) {
        for (i = 0; i < nfeatures; i++)
            output[point_id + npoints * i] = input[point_id * nfeatures + i];
    }
}

// Nearest centre (squared Euclidean distance, first one on ties) of every point.
extern "C" __global__ void kmeansPoint(float *features, int nfeatures, int npoints, int nclusters,
                                       int *membership, float *clusters, float *block_clusters,
                                       int *block_deltas)
{
    const unsigned int block_id = gridDim.x * blockIdx.y + blockIdx.x;
    const unsigned int point_id = block_id * blockDim.x * blockDim.y + threadIdx.x;

    int index = -1;

    if (point_id < npoints) {
        int i, j;
        float min_dist = FLT_MAX;
        float dist;

        for (i = 0; i < nclusters; i++) {
            int cluster_base_index = i * nfeatures;
            float ans = 0.0;

            for (j = 0; j < nfeatures; j++) {
                // feature j of this point in the feature-major array
                int addr = point_id + j * npoints;
                float diff = (tex1Dfetch(t_features, addr) - c_clusters[cluster_base_index + j]);
                ans += diff * diff;
            }
            dist = ans;

            if (dist < min_dist) {
                min_dist = dist;
                index = i;
            }
        }
    }

    if (point_id < npoints) {
        membership[point_id] = index;
    }
}
