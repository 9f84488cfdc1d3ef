// Rodinia 3.1 kmeans (CUDA), written for warpsim. The host runs Lloyd's k-means: each iteration
// it uploads the cluster centres to constant memory (c_clusters) and launches kmeansPoint, which
// assigns every point to its nearest centre; the host then counts the changed memberships and
// averages the new centres. invert_mapping runs once first and transposes the features from
// point-major to feature-major, so the threads of a warp read consecutive addresses.
//
// Launch structure as in Rodinia: 256 threads per block; invert_mapping on a 1-D grid and
// kmeansPoint on a square 2-D grid, both of num_blocks_perdim^2 blocks (the smallest square
// holding ceil(npoints / 256) blocks).
//
// Texture replacement: Rodinia reads the features through the texture reference t_features
// (tex1Dfetch), which CUDA 12 no longer has. Here they are read with __ldg (ld.global.nc, the
// read-only data path textures also use). Rodinia's other texture references (t_features_flipped,
// t_clusters) are only read by the optional GPU reductions, which its default build leaves out,
// as does this port (block_clusters and block_deltas are passed but unused). kmeans_tex.cu
// compiles this file with RODINIA_TEXTURES under NVRTC 11.8: Rodinia's texture references.

#ifndef FLT_MAX
#define FLT_MAX 3.402823466e+38f
#endif

#define ASSUMED_NR_CLUSTERS 32
#define MAX_FEATURES 34

#ifdef RODINIA_TEXTURES
texture<float, 1, cudaReadModeElementType> t_features;
texture<float, 1, cudaReadModeElementType> t_features_flipped;
texture<float, 1, cudaReadModeElementType> t_clusters;
#define FEATURE(addr) tex1Dfetch(t_features, addr)
#else
#define FEATURE(addr) __ldg(&features[addr])
#endif

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
                float diff = (FEATURE(addr) - c_clusters[cluster_base_index + j]);
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
