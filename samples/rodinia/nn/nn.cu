// Rodinia 3.1 nn (nearest neighbour), rewritten for warpsim.
//
// One launch of `euclid`: every thread computes the Euclidean distance from one record's
// (latitude, longitude) to the query point. The host then picks the k nearest records with a
// partial selection sort (findLowest), as Rodinia does. Block size 256
// (DEFAULT_THREADS_PER_BLOCK); the grid is 2-D only when the 1-D grid limit is exceeded, and
// threads linearise (blockIdx.y, blockIdx.x, threadIdx.x) the same way Rodinia's "more
// efficient" index does.

struct LatLong {
    float lat;
    float lng;
};

extern "C" __global__ void euclid(const LatLong *d_locations, float *d_distances, int numRecords,
                                  float lat, float lng)
{
    const int record = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
    if (record >= numRecords)
        return;
    const LatLong here = d_locations[record];
    const float dlat = lat - here.lat;
    const float dlng = lng - here.lng;
    // sqrt of a float is sqrt.rn.f32 (correctly rounded), as Rodinia's (float)sqrt(float).
    d_distances[record] = sqrtf(dlat * dlat + dlng * dlng);
}
