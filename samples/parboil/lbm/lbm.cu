// Parboil lbm (lattice-Boltzmann fluid dynamics), written for warpsim after Parboil's
// optimised CUDA version.
//
// A D3Q19 lattice-Boltzmann method with BGK collision (relaxation OMEGA = 1.95) simulating a
// lid-driven cavity: every cell holds 19 particle distributions (C, N, S, E, W, T, B, NE, NW,
// SE, SW, NT, NB, ST, SB, ET, EB, WT, WB) and a flag word (OBSTACLE, ACCEL). One launch of
// performStreamCollide_kernel per time step, one CTA per (y, z) row of the grid and one thread
// per x cell; the host swaps the source and destination grids between steps.
//
// Layout as in Parboil's CUDA version (its layout_config.h): an array of 20-float cell
// structures, entry e of cell (x, y, z) at e + 20 * ((z * PADDED_Y + y) * PADDED_X + x), the
// rows padded by 8 cells in x and the grid by 4 planes in z, and each grid pointer placed
// 2 z-planes into its allocation (the margin), so that neighbour accesses at the grid's faces
// stay inside the allocation without bounds checks. Streaming is a scatter (push), Parboil's
// CUDA setting: a cell reads its own 19 distributions and writes each to the neighbour it
// moves to. Obstacle cells bounce back what they hold (swap opposite directions); fluid cells
// relax towards the equilibrium, with the velocity forced to (0.005, 0.002, 0) in ACCEL cells
// (the cavity's lid).
//
// Changed from Parboil: the grid dimensions are kernel parameters instead of compile-time
// constants (one PTX for every problem size).

#define OMEGA (1.95f)
#define DFL1 (1.0f / 3.0f)
#define DFL2 (1.0f / 18.0f)
#define DFL3 (1.0f / 36.0f)

enum { C = 0, N, S, E, W, T, B, NE, NW, SE, SW, NT, NB, ST, SB, ET, EB, WT, WB, FLAGS };
enum { OBSTACLE = 1 << 0, ACCEL = 1 << 1 };

#define N_CELL_ENTRIES 20

// Entry e of the cell at offset (dx, dy, dz) from this thread's cell.
#define GRID_ENTRY_SWEEP(g, dx, dy, dz, e) \
    ((g)[(e) + N_CELL_ENTRIES * (((dz) + z) * padded_xy + ((dy) + y) * padded_x + ((dx) + x))])
#define LOCAL(g, e) (GRID_ENTRY_SWEEP(g, 0, 0, 0, e))

// Scatter: the distribution moving in direction d goes to the cell at +d.
#define DST_C(g)  (GRID_ENTRY_SWEEP(g,  0,  0,  0, C))
#define DST_N(g)  (GRID_ENTRY_SWEEP(g,  0, +1,  0, N))
#define DST_S(g)  (GRID_ENTRY_SWEEP(g,  0, -1,  0, S))
#define DST_E(g)  (GRID_ENTRY_SWEEP(g, +1,  0,  0, E))
#define DST_W(g)  (GRID_ENTRY_SWEEP(g, -1,  0,  0, W))
#define DST_T(g)  (GRID_ENTRY_SWEEP(g,  0,  0, +1, T))
#define DST_B(g)  (GRID_ENTRY_SWEEP(g,  0,  0, -1, B))
#define DST_NE(g) (GRID_ENTRY_SWEEP(g, +1, +1,  0, NE))
#define DST_NW(g) (GRID_ENTRY_SWEEP(g, -1, +1,  0, NW))
#define DST_SE(g) (GRID_ENTRY_SWEEP(g, +1, -1,  0, SE))
#define DST_SW(g) (GRID_ENTRY_SWEEP(g, -1, -1,  0, SW))
#define DST_NT(g) (GRID_ENTRY_SWEEP(g,  0, +1, +1, NT))
#define DST_NB(g) (GRID_ENTRY_SWEEP(g,  0, +1, -1, NB))
#define DST_ST(g) (GRID_ENTRY_SWEEP(g,  0, -1, +1, ST))
#define DST_SB(g) (GRID_ENTRY_SWEEP(g,  0, -1, -1, SB))
#define DST_ET(g) (GRID_ENTRY_SWEEP(g, +1,  0, +1, ET))
#define DST_EB(g) (GRID_ENTRY_SWEEP(g, +1,  0, -1, EB))
#define DST_WT(g) (GRID_ENTRY_SWEEP(g, -1,  0, +1, WT))
#define DST_WB(g) (GRID_ENTRY_SWEEP(g, -1,  0, -1, WB))

#define TEST_FLAG_SWEEP(g, f) (__float_as_uint(LOCAL(g, FLAGS)) & (f))

extern "C" __global__ void performStreamCollide_kernel(const float *srcGrid, float *dstGrid,
                                                       int padded_x, int padded_xy)
{
    int x = threadIdx.x;
    int y = blockIdx.x;
    int z = blockIdx.y;

    float temp_swp, tempC, tempN, tempS, tempE, tempW, tempT, tempB;
    float tempNE, tempNW, tempSE, tempSW, tempNT, tempNB, tempST;
    float tempSB, tempET, tempEB, tempWT, tempWB;

    tempC = LOCAL(srcGrid, C);
    tempN = LOCAL(srcGrid, N);
    tempS = LOCAL(srcGrid, S);
    tempE = LOCAL(srcGrid, E);
    tempW = LOCAL(srcGrid, W);
    tempT = LOCAL(srcGrid, T);
    tempB = LOCAL(srcGrid, B);
    tempNE = LOCAL(srcGrid, NE);
    tempNW = LOCAL(srcGrid, NW);
    tempSE = LOCAL(srcGrid, SE);
    tempSW = LOCAL(srcGrid, SW);
    tempNT = LOCAL(srcGrid, NT);
    tempNB = LOCAL(srcGrid, NB);
    tempST = LOCAL(srcGrid, ST);
    tempSB = LOCAL(srcGrid, SB);
    tempET = LOCAL(srcGrid, ET);
    tempEB = LOCAL(srcGrid, EB);
    tempWT = LOCAL(srcGrid, WT);
    tempWB = LOCAL(srcGrid, WB);

    if (TEST_FLAG_SWEEP(srcGrid, OBSTACLE)) {
        // Bounce back: reflect what arrived to where it came from.
        temp_swp = tempN;  tempN = tempS;   tempS = temp_swp;
        temp_swp = tempE;  tempE = tempW;   tempW = temp_swp;
        temp_swp = tempT;  tempT = tempB;   tempB = temp_swp;
        temp_swp = tempNE; tempNE = tempSW; tempSW = temp_swp;
        temp_swp = tempNW; tempNW = tempSE; tempSE = temp_swp;
        temp_swp = tempNT; tempNT = tempSB; tempSB = temp_swp;
        temp_swp = tempNB; tempNB = tempST; tempST = temp_swp;
        temp_swp = tempET; tempET = tempWB; tempWB = temp_swp;
        temp_swp = tempEB; tempEB = tempWT; tempWT = temp_swp;
    } else {
        float ux, uy, uz, rho, u2;
        float temp1, temp2, temp_base;
        rho = tempC + tempN + tempS + tempE + tempW + tempT + tempB + tempNE + tempNW +
              tempSE + tempSW + tempNT + tempNB + tempST + tempSB + tempET + tempEB +
              tempWT + tempWB;

        ux = +tempE - tempW + tempNE - tempNW + tempSE - tempSW + tempET + tempEB - tempWT -
             tempWB;
        uy = +tempN - tempS + tempNE + tempNW - tempSE - tempSW + tempNT + tempNB - tempST -
             tempSB;
        uz = +tempT - tempB + tempNT - tempNB + tempST - tempSB + tempET - tempEB + tempWT -
             tempWB;

        ux /= rho;
        uy /= rho;
        uz /= rho;
        if (TEST_FLAG_SWEEP(srcGrid, ACCEL)) {
            ux = 0.005f;
            uy = 0.002f;
            uz = 0.000f;
        }
        u2 = 1.5f * (ux * ux + uy * uy + uz * uz) - 1.0f;

        temp_base = OMEGA * rho;
        temp1 = DFL1 * temp_base;
        temp2 = 1.0f - OMEGA;
        tempC = temp2 * tempC + temp1 * (-u2);
        temp1 = DFL2 * temp_base;
        tempN = temp2 * tempN + temp1 * (uy * (4.5f * uy + 3.0f) - u2);
        tempS = temp2 * tempS + temp1 * (uy * (4.5f * uy - 3.0f) - u2);
        tempT = temp2 * tempT + temp1 * (uz * (4.5f * uz + 3.0f) - u2);
        tempB = temp2 * tempB + temp1 * (uz * (4.5f * uz - 3.0f) - u2);
        tempE = temp2 * tempE + temp1 * (ux * (4.5f * ux + 3.0f) - u2);
        tempW = temp2 * tempW + temp1 * (ux * (4.5f * ux - 3.0f) - u2);
        temp1 = DFL3 * temp_base;
        tempNT = temp2 * tempNT + temp1 * ((+uy + uz) * (4.5f * (+uy + uz) + 3.0f) - u2);
        tempNB = temp2 * tempNB + temp1 * ((+uy - uz) * (4.5f * (+uy - uz) + 3.0f) - u2);
        tempST = temp2 * tempST + temp1 * ((-uy + uz) * (4.5f * (-uy + uz) + 3.0f) - u2);
        tempSB = temp2 * tempSB + temp1 * ((-uy - uz) * (4.5f * (-uy - uz) + 3.0f) - u2);
        tempNE = temp2 * tempNE + temp1 * ((+ux + uy) * (4.5f * (+ux + uy) + 3.0f) - u2);
        tempSE = temp2 * tempSE + temp1 * ((+ux - uy) * (4.5f * (+ux - uy) + 3.0f) - u2);
        tempET = temp2 * tempET + temp1 * ((+ux + uz) * (4.5f * (+ux + uz) + 3.0f) - u2);
        tempEB = temp2 * tempEB + temp1 * ((+ux - uz) * (4.5f * (+ux - uz) + 3.0f) - u2);
        tempNW = temp2 * tempNW + temp1 * ((-ux + uy) * (4.5f * (-ux + uy) + 3.0f) - u2);
        tempSW = temp2 * tempSW + temp1 * ((-ux - uy) * (4.5f * (-ux - uy) + 3.0f) - u2);
        tempWT = temp2 * tempWT + temp1 * ((-ux + uz) * (4.5f * (-ux + uz) + 3.0f) - u2);
        tempWB = temp2 * tempWB + temp1 * ((-ux - uz) * (4.5f * (-ux - uz) + 3.0f) - u2);
    }

    // Scatter: every distribution moves on to its neighbour.
    DST_C(dstGrid) = tempC;
    DST_N(dstGrid) = tempN;
    DST_S(dstGrid) = tempS;
    DST_E(dstGrid) = tempE;
    DST_W(dstGrid) = tempW;
    DST_T(dstGrid) = tempT;
    DST_B(dstGrid) = tempB;
    DST_NE(dstGrid) = tempNE;
    DST_NW(dstGrid) = tempNW;
    DST_SE(dstGrid) = tempSE;
    DST_SW(dstGrid) = tempSW;
    DST_NT(dstGrid) = tempNT;
    DST_NB(dstGrid) = tempNB;
    DST_ST(dstGrid) = tempST;
    DST_SB(dstGrid) = tempSB;
    DST_ET(dstGrid) = tempET;
    DST_EB(dstGrid) = tempEB;
    DST_WT(dstGrid) = tempWT;
    DST_WB(dstGrid) = tempWB;
}
