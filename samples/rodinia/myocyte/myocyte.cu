// Rodinia 3.1 myocyte, CUDA version with parallelisation inside one simulation instance (mode 0,
// work.cu), written for warpsim. The host integrates the cardiac myocyte model of Saucerman and
// Bers (91 ODEs) with an adaptive embedded Runge-Kutta-Fehlberg 7(8) solver; every one of the 13
// model evaluations of a solver step uploads the state, launches `kernel` on 2 blocks of 32
// threads, copies the derivatives back and finishes the model on the host (kernel_fin).
//
// Block 0, thread 0 evaluates the excitation-contraction coupling model (ECC, state 0..45); block
// 1, thread 0 evaluates the CaM/CaMKII/calcineurin model (CAM) for the dyad, subsarcolemmal and
// cytosolic compartments (state 46..60, 61..75, 76..90) in turn. The other 62 threads idle, as in
// Rodinia. `fp` is float; literals without an f suffix make double arithmetic, as in Rodinia, and
// the math functions are CUDA's overloads (float for float arguments, double for double).
//
// Difference from Rodinia: its kernel_cam stores the Ca flux for the ECC model into
// d_finavalu[com_offset] (overwriting ECC's first three derivatives, a race between the blocks)
// instead of d_com[com_offset], which the host reads; here it goes to d_com.

#define fp float

#define EQUATIONS 91
#define PARAMETERS 16

// The ECC model: derivatives of the 46 state variables at valu_offset.
__device__ void kernel_ecc(fp timeinst, const fp *d_initvalu, fp *d_finavalu, int valu_offset,
                           const fp *d_params)
{
    const fp cycleLength = d_params[15];

    // state, 1-based as in the model (22 and 41..46 are not read)
    fp v[41];
#pragma unroll
    for (int i = 1; i <= 40; i++) {
        v[i] = i == 22 ? 0 : d_initvalu[valu_offset + i - 1];
    }
    fp *dv = d_finavalu + valu_offset - 1; // dv[i]: derivative of state i

    // constants
    const fp pi = 3.1416;
    const fp R = 8314;
    const fp Frdy = 96485;
    const fp Temp = 310;
    const fp FoRT = Frdy / R / Temp;
    const fp Cmem = 1.3810e-10;
    const fp Qpow = (Temp - 310) / 10;

    // cell geometry
    const fp cellLength = 100;
    const fp cellRadius = 10.25;
    const fp Vcell = pi * pow(cellRadius, 2) * cellLength * 1e-15;
    const fp Vmyo = 0.65 * Vcell;
    const fp Vsr = 0.035 * Vcell;
    const fp Vsl = 0.02 * Vcell;
    const fp Vjunc = 0.0539 * 0.01 * Vcell;
    const fp J_ca_juncsl = 1 / 1.2134e12;
    const fp J_ca_slmyo = 1 / 2.68510e11;
    const fp J_na_juncsl = 1 / (1.6382e12 / 3 * 100);
    const fp J_na_slmyo = 1 / (1.8308e10 / 3 * 100);

    // fractional currents in compartments
    const fp Fjunc = 0.11;
    const fp Fsl = 1 - Fjunc;
    const fp Fjunc_CaL = 0.9;
    const fp Fsl_CaL = 1 - Fjunc_CaL;

    // fixed ion concentrations
    const fp Cli = 15;
    const fp Clo = 150;
    const fp Ko = 5.4;
    const fp Nao = 140;
    const fp Cao = 1.8;
    const fp Mgi = 1;

    // Nernst potentials
    const fp ena_junc = (1 / FoRT) * log(Nao / v[32]);
    const fp ena_sl = (1 / FoRT) * log(Nao / v[33]);
    const fp ek = (1 / FoRT) * log(Ko / v[35]);
    const fp eca_junc = (1 / FoRT / 2) * log(Cao / v[36]);
    const fp eca_sl = (1 / FoRT / 2) * log(Cao / v[37]);
    const fp ecl = (1 / FoRT) * log(Cli / Clo);

    // transport, current, flux and buffering parameters
    const fp GNa = 16.0, GNaB = 0.297e-3, IbarNaK = 1.90719, KmNaip = 11, KmKo = 1.5;
    const fp pNaK = 0.01833, GtoSlow = 0.06, GtoFast = 0.02, gkp = 0.001;
    const fp GClCa = 0.109625, GClB = 9e-3, KdClCa = 100e-3;
    const fp pNa = 1.5e-8, pCa = 5.4e-4, pK = 2.7e-7, Q10CaL = 1.8;
    const fp IbarNCX = 9.0, KmCai = 3.59e-3, KmCao = 1.3, KmNai = 12.29, KmNao = 87.5;
    const fp ksat = 0.27, nu = 0.35, Kdact = 0.256e-3, Q10NCX = 1.57, IbarSLCaP = 0.0673;
    const fp KmPCa = 0.5e-3, GCaB = 2.513e-4, Q10SLCaP = 2.35;
    const fp Q10SRCaP = 2.6, Vmax_SRCaP = 2.86e-4, Kmf = 0.246e-3, Kmr = 1.7, hillSRCaP = 1.787;
    const fp ks = 25, koCa = 10, kom = 0.06, kiCa = 0.5, kim = 0.005, ec50SR = 0.45;
    const fp Bmax_Naj = 7.561, Bmax_Nasl = 1.65, koff_na = 1e-3, kon_na = 0.1e-3;
    const fp Bmax_TnClow = 70e-3, koff_tncl = 19.6e-3, kon_tncl = 32.7;
    const fp Bmax_TnChigh = 140e-3, koff_tnchca = 0.032e-3, kon_tnchca = 2.37;
    const fp koff_tnchmg = 3.33e-3, kon_tnchmg = 3e-3;
    const fp Bmax_myosin = 140e-3, koff_myoca = 0.46e-3, kon_myoca = 13.8;
    const fp koff_myomg = 0.057e-3, kon_myomg = 0.0157;
    const fp Bmax_SR = 19 * 0.9e-3, koff_sr = 60e-3, kon_sr = 100;
    const fp Bmax_SLlowsl = 37.38e-3 * Vmyo / Vsl;
    const fp Bmax_SLlowj = 4.62e-3 * Vmyo / Vjunc * 0.1;
    const fp koff_sll = 1300e-3, kon_sll = 100;
    const fp Bmax_SLhighsl = 13.35e-3 * Vmyo / Vsl;
    const fp Bmax_SLhighj = 1.65e-3 * Vmyo / Vjunc * 0.1;
    const fp koff_slh = 30e-3, kon_slh = 100;
    const fp Bmax_Csqn = 2.7, koff_csqn = 65, kon_csqn = 100;

    const fp Vm = v[39];

    // I_Na: fast Na current
    fp am = 0.32 * (Vm + 47.13) / (1 - exp(-0.1 * (Vm + 47.13)));
    fp bm = 0.08 * exp(-Vm / 11);
    fp ah, bh, aj, bj;
    if (Vm >= -40) {
        ah = 0;
        aj = 0;
        bh = 1 / (0.13 * (1 + exp(-(Vm + 10.66) / 11.1)));
        bj = 0.3 * exp(-2.535e-7 * Vm) / (1 + exp(-0.1 * (Vm + 32)));
    } else {
        ah = 0.135 * exp((80 + Vm) / -6.8);
        bh = 3.56 * exp(0.079 * Vm) + 3.1e5 * exp(0.35 * Vm);
        aj = (-127140 * exp(0.2444 * Vm) - 3.474e-5 * exp(-0.04391 * Vm)) * (Vm + 37.78) /
             (1 + exp(0.311 * (Vm + 79.23)));
        bj = 0.1212 * exp(-0.01052 * Vm) / (1 + exp(-0.1378 * (Vm + 40.14)));
    }
    dv[1] = am * (1 - v[1]) - bm * v[1];
    dv[2] = ah * (1 - v[2]) - bh * v[2];
    dv[3] = aj * (1 - v[3]) - bj * v[3];
    fp I_Na_junc = Fjunc * GNa * pow(v[1], 3) * v[2] * v[3] * (Vm - ena_junc);
    fp I_Na_sl = Fsl * GNa * pow(v[1], 3) * v[2] * v[3] * (Vm - ena_sl);

    // I_nabk: Na background current
    fp I_nabk_junc = Fjunc * GNaB * (Vm - ena_junc);
    fp I_nabk_sl = Fsl * GNaB * (Vm - ena_sl);

    // I_nak: Na/K pump current
    fp sigma = (exp(Nao / 67.3) - 1) / 7;
    fp fnak = 1 / (1 + 0.1245 * exp(-0.1 * Vm * FoRT) + 0.0365 * sigma * exp(-Vm * FoRT));
    fp I_nak_junc = Fjunc * IbarNaK * fnak * Ko / (1 + pow((KmNaip / v[32]), 4)) / (Ko + KmKo);
    fp I_nak_sl = Fsl * IbarNaK * fnak * Ko / (1 + pow((KmNaip / v[33]), 4)) / (Ko + KmKo);
    fp I_nak = I_nak_junc + I_nak_sl;

    // I_kr: rapidly activating K current
    fp gkr = 0.03 * sqrt(Ko / 5.4);
    fp xrss = 1 / (1 + exp(-(Vm + 50) / 7.5));
    fp tauxr = 1 / (0.00138 * (Vm + 7) / (1 - exp(-0.123 * (Vm + 7))) +
                    6.1e-4 * (Vm + 10) / (exp(0.145 * (Vm + 10)) - 1));
    dv[12] = (xrss - v[12]) / tauxr;
    fp rkr = 1 / (1 + exp((Vm + 33) / 22.4));
    fp I_kr = gkr * v[12] * rkr * (Vm - ek);

    // I_ks: slowly activating K current
    fp pcaks_junc = -log10(v[36]) + 3.0;
    fp pcaks_sl = -log10(v[37]) + 3.0;
    fp gks_junc = 0.07 * (0.057 + 0.19 / (1 + exp((-7.2 + pcaks_junc) / 0.6)));
    fp gks_sl = 0.07 * (0.057 + 0.19 / (1 + exp((-7.2 + pcaks_sl) / 0.6)));
    fp eks = (1 / FoRT) * log((Ko + pNaK * Nao) / (v[35] + pNaK * v[34]));
    fp xsss = 1 / (1 + exp(-(Vm - 1.5) / 16.7));
    fp tauxs = 1 / (7.19e-5 * (Vm + 30) / (1 - exp(-0.148 * (Vm + 30))) +
                    1.31e-4 * (Vm + 30) / (exp(0.0687 * (Vm + 30)) - 1));
    dv[13] = (xsss - v[13]) / tauxs;
    fp I_ks_junc = Fjunc * gks_junc * pow(v[12], 2) * (Vm - eks);
    fp I_ks_sl = Fsl * gks_sl * pow(v[13], 2) * (Vm - eks);
    fp I_ks = I_ks_junc + I_ks_sl;

    // I_kp: plateau K current
    fp kp_kp = 1 / (1 + exp(7.488 - Vm / 5.98));
    fp I_kp_junc = Fjunc * gkp * kp_kp * (Vm - ek);
    fp I_kp_sl = Fsl * gkp * kp_kp * (Vm - ek);
    fp I_kp = I_kp_junc + I_kp_sl;

    // I_to: transient outward K current, slow and fast components
    fp xtoss = 1 / (1 + exp(-(Vm + 3.0) / 15));
    fp ytoss = 1 / (1 + exp((Vm + 33.5) / 10));
    fp rtoss = 1 / (1 + exp((Vm + 33.5) / 10));
    fp tauxtos = 9 / (1 + exp((Vm + 3.0) / 15)) + 0.5;
    fp tauytos = 3e3 / (1 + exp((Vm + 60.0) / 10)) + 30;
    fp taurtos = 2800 / (1 + exp((Vm + 60.0) / 10)) + 220;
    dv[8] = (xtoss - v[8]) / tauxtos;
    dv[9] = (ytoss - v[9]) / tauytos;
    dv[40] = (rtoss - v[40]) / taurtos;
    fp I_tos = GtoSlow * v[8] * (v[9] + 0.5 * v[40]) * (Vm - ek);
    fp tauxtof = 3.5 * exp(-Vm * Vm / 30 / 30) + 1.5;
    fp tauytof = 20.0 / (1 + exp((Vm + 33.5) / 10)) + 20.0;
    dv[10] = (xtoss - v[10]) / tauxtof;
    dv[11] = (ytoss - v[11]) / tauytof;
    fp I_tof = GtoFast * v[10] * v[11] * (Vm - ek);
    fp I_to = I_tos + I_tof;

    // I_ki: time-independent K current
    fp aki = 1.02 / (1 + exp(0.2385 * (Vm - ek - 59.215)));
    fp bki = (0.49124 * exp(0.08032 * (Vm + 5.476 - ek)) + exp(0.06175 * (Vm - ek - 594.31))) /
             (1 + exp(-0.5143 * (Vm - ek + 4.753)));
    fp kiss = aki / (aki + bki);
    fp I_ki = 0.9 * sqrt(Ko / 5.4) * kiss * (Vm - ek);

    // I_ClCa: Ca-activated Cl current, I_Clbk: background Cl current
    fp I_ClCa_junc = Fjunc * GClCa / (1 + KdClCa / v[36]) * (Vm - ecl);
    fp I_ClCa_sl = Fsl * GClCa / (1 + KdClCa / v[37]) * (Vm - ecl);
    fp I_ClCa = I_ClCa_junc + I_ClCa_sl;
    fp I_Clbk = GClB * (Vm - ecl);

    // I_Ca: L-type Ca current
    fp dss = 1 / (1 + exp(-(Vm + 14.5) / 6.0));
    fp taud = dss * (1 - exp(-(Vm + 14.5) / 6.0)) / (0.035 * (Vm + 14.5));
    fp fss = 1 / (1 + exp((Vm + 35.06) / 3.6)) + 0.6 / (1 + exp((50 - Vm) / 20));
    fp tauf = 1 / (0.0197 * exp(-pow(0.0337 * (Vm + 14.5), 2)) + 0.02);
    dv[4] = (dss - v[4]) / taud;
    dv[5] = (fss - v[5]) / tauf;
    dv[6] = 1.7 * v[36] * (1 - v[6]) - 11.9e-3 * v[6];
    dv[7] = 1.7 * v[37] * (1 - v[7]) - 11.9e-3 * v[7];
    fp ibarca_j = pCa * 4 * (Vm * Frdy * FoRT) *
                  (0.341 * v[36] * exp(2 * Vm * FoRT) - 0.341 * Cao) / (exp(2 * Vm * FoRT) - 1);
    fp ibarca_sl = pCa * 4 * (Vm * Frdy * FoRT) *
                   (0.341 * v[37] * exp(2 * Vm * FoRT) - 0.341 * Cao) / (exp(2 * Vm * FoRT) - 1);
    fp ibark = pK * (Vm * Frdy * FoRT) * (0.75 * v[35] * exp(Vm * FoRT) - 0.75 * Ko) /
               (exp(Vm * FoRT) - 1);
    fp ibarna_j = pNa * (Vm * Frdy * FoRT) * (0.75 * v[32] * exp(Vm * FoRT) - 0.75 * Nao) /
                  (exp(Vm * FoRT) - 1);
    fp ibarna_sl = pNa * (Vm * Frdy * FoRT) * (0.75 * v[33] * exp(Vm * FoRT) - 0.75 * Nao) /
                   (exp(Vm * FoRT) - 1);
    fp I_Ca_junc =
        (Fjunc_CaL * ibarca_j * v[4] * v[5] * (1 - v[6]) * pow(Q10CaL, Qpow)) * 0.45;
    fp I_Ca_sl = (Fsl_CaL * ibarca_sl * v[4] * v[5] * (1 - v[7]) * pow(Q10CaL, Qpow)) * 0.45;
    fp I_Ca = I_Ca_junc + I_Ca_sl;
    dv[43] = -I_Ca * Cmem / (Vmyo * 2 * Frdy) * 1e3;
    fp I_CaK = (ibark * v[4] * v[5] * (Fjunc_CaL * (1 - v[6]) + Fsl_CaL * (1 - v[7])) *
                pow(Q10CaL, Qpow)) *
               0.45;
    fp I_CaNa_junc =
        (Fjunc_CaL * ibarna_j * v[4] * v[5] * (1 - v[6]) * pow(Q10CaL, Qpow)) * 0.45;
    fp I_CaNa_sl = (Fsl_CaL * ibarna_sl * v[4] * v[5] * (1 - v[7]) * pow(Q10CaL, Qpow)) * 0.45;

    // I_ncx: Na/Ca exchanger flux
    fp Ka_junc = 1 / (1 + pow((Kdact / v[36]), 3));
    fp Ka_sl = 1 / (1 + pow((Kdact / v[37]), 3));
    fp s1_junc = exp(nu * Vm * FoRT) * pow(v[32], 3) * Cao;
    fp s1_sl = exp(nu * Vm * FoRT) * pow(v[33], 3) * Cao;
    fp s2_junc = exp((nu - 1) * Vm * FoRT) * pow(Nao, 3) * v[36];
    fp s3_junc = (KmCai * pow(Nao, 3) * (1 + pow((v[32] / KmNai), 3)) + pow(KmNao, 3) * v[36] +
                  pow(KmNai, 3) * Cao * (1 + v[36] / KmCai) + KmCao * pow(v[32], 3) +
                  pow(v[32], 3) * Cao + pow(Nao, 3) * v[36]) *
                 (1 + ksat * exp((nu - 1) * Vm * FoRT));
    fp s2_sl = exp((nu - 1) * Vm * FoRT) * pow(Nao, 3) * v[37];
    fp s3_sl = (KmCai * pow(Nao, 3) * (1 + pow((v[33] / KmNai), 3)) + pow(KmNao, 3) * v[37] +
                pow(KmNai, 3) * Cao * (1 + v[37] / KmCai) + KmCao * pow(v[33], 3) +
                pow(v[33], 3) * Cao + pow(Nao, 3) * v[37]) *
               (1 + ksat * exp((nu - 1) * Vm * FoRT));
    fp I_ncx_junc =
        Fjunc * IbarNCX * pow(Q10NCX, Qpow) * Ka_junc * (s1_junc - s2_junc) / s3_junc;
    fp I_ncx_sl = Fsl * IbarNCX * pow(Q10NCX, Qpow) * Ka_sl * (s1_sl - s2_sl) / s3_sl;
    fp I_ncx = I_ncx_junc + I_ncx_sl;
    dv[45] = 2 * I_ncx * Cmem / (Vmyo * 2 * Frdy) * 1e3;

    // I_pca: sarcolemmal Ca pump current
    fp I_pca_junc = Fjunc * pow(Q10SLCaP, Qpow) * IbarSLCaP * pow(v[36], fp(1.6)) /
                    (pow(KmPCa, fp(1.6)) + pow(v[36], fp(1.6)));
    fp I_pca_sl = Fsl * pow(Q10SLCaP, Qpow) * IbarSLCaP * pow(v[37], fp(1.6)) /
                  (pow(KmPCa, fp(1.6)) + pow(v[37], fp(1.6)));
    fp I_pca = I_pca_junc + I_pca_sl;
    dv[44] = -I_pca * Cmem / (Vmyo * 2 * Frdy) * 1e3;

    // I_cabk: Ca background current
    fp I_cabk_junc = Fjunc * GCaB * (Vm - eca_junc);
    fp I_cabk_sl = Fsl * GCaB * (Vm - eca_sl);
    fp I_cabk = I_cabk_junc + I_cabk_sl;
    dv[46] = -I_cabk * Cmem / (Vmyo * 2 * Frdy) * 1e3;

    // SR fluxes: Ca release, SR Ca pump, SR Ca leak
    const fp MaxSR = 15, MinSR = 1;
    fp kCaSR = MaxSR - (MaxSR - MinSR) / (1 + pow(ec50SR / v[31], fp(2.5)));
    fp koSRCa = koCa / kCaSR;
    fp kiSRCa = kiCa * kCaSR;
    fp RI = 1 - v[14] - v[15] - v[16];
    dv[14] = (kim * RI - kiSRCa * v[36] * v[14]) - (koSRCa * pow(v[36], 2) * v[14] - kom * v[15]);
    dv[15] = (koSRCa * pow(v[36], 2) * v[14] - kom * v[15]) - (kiSRCa * v[36] * v[15] - kim * v[16]);
    dv[16] = (kiSRCa * v[36] * v[15] - kim * v[16]) - (kom * v[16] - koSRCa * pow(v[36], 2) * RI);
    fp J_SRCarel = ks * v[15] * (v[31] - v[36]);
    fp J_serca = pow(Q10SRCaP, Qpow) * Vmax_SRCaP *
                 (pow((v[38] / Kmf), hillSRCaP) - pow((v[31] / Kmr), hillSRCaP)) /
                 (1 + pow((v[38] / Kmf), hillSRCaP) + pow((v[31] / Kmr), hillSRCaP));
    fp J_SRleak = 5.348e-6 * (v[31] - v[36]);

    // Na and Ca buffering
    dv[17] = kon_na * v[32] * (Bmax_Naj - v[17]) - koff_na * v[17];
    dv[18] = kon_na * v[33] * (Bmax_Nasl - v[18]) - koff_na * v[18];

    // cytosolic Ca buffers
    dv[19] = kon_tncl * v[38] * (Bmax_TnClow - v[19]) - koff_tncl * v[19];
    dv[20] = kon_tnchca * v[38] * (Bmax_TnChigh - v[20] - v[21]) - koff_tnchca * v[20];
    dv[21] = kon_tnchmg * Mgi * (Bmax_TnChigh - v[20] - v[21]) - koff_tnchmg * v[21];
    dv[22] = 0;
    dv[23] = kon_myoca * v[38] * (Bmax_myosin - v[23] - v[24]) - koff_myoca * v[23];
    dv[24] = kon_myomg * Mgi * (Bmax_myosin - v[23] - v[24]) - koff_myomg * v[24];
    dv[25] = kon_sr * v[38] * (Bmax_SR - v[25]) - koff_sr * v[25];
    fp J_CaB_cytosol = dv[19] + dv[20] + dv[21] + dv[22] + dv[23] + dv[24] + dv[25];

    // junctional and SL Ca buffers
    dv[26] = kon_sll * v[36] * (Bmax_SLlowj - v[26]) - koff_sll * v[26];
    dv[27] = kon_sll * v[37] * (Bmax_SLlowsl - v[27]) - koff_sll * v[27];
    dv[28] = kon_slh * v[36] * (Bmax_SLhighj - v[28]) - koff_slh * v[28];
    dv[29] = kon_slh * v[37] * (Bmax_SLhighsl - v[29]) - koff_slh * v[29];
    fp J_CaB_junction = dv[26] + dv[28];
    fp J_CaB_sl = dv[27] + dv[29];

    // SR Ca concentrations
    dv[30] = kon_csqn * v[31] * (Bmax_Csqn - v[30]) - koff_csqn * v[30];
    fp oneovervsr = 1 / Vsr;
    dv[31] = J_serca * Vmyo * oneovervsr - (J_SRleak * Vmyo * oneovervsr + J_SRCarel) - dv[30];

    // Na concentrations
    fp I_Na_tot_junc = I_Na_junc + I_nabk_junc + 3 * I_ncx_junc + 3 * I_nak_junc + I_CaNa_junc;
    fp I_Na_tot_sl = I_Na_sl + I_nabk_sl + 3 * I_ncx_sl + 3 * I_nak_sl + I_CaNa_sl;
    dv[32] = -I_Na_tot_junc * Cmem / (Vjunc * Frdy) + J_na_juncsl / Vjunc * (v[33] - v[32]) -
             dv[17];
    fp oneovervsl = 1 / Vsl;
    dv[33] = -I_Na_tot_sl * Cmem * oneovervsl / Frdy +
             J_na_juncsl * oneovervsl * (v[32] - v[33]) +
             J_na_slmyo * oneovervsl * (v[34] - v[33]) - dv[18];
    dv[34] = J_na_slmyo / Vmyo * (v[33] - v[34]);

    // K concentration
    fp I_K_tot = I_to + I_kr + I_ks + I_ki - 2 * I_nak + I_CaK + I_kp;
    dv[35] = 0;

    // Ca concentrations
    fp I_Ca_tot_junc = I_Ca_junc + I_cabk_junc + I_pca_junc - 2 * I_ncx_junc;
    fp I_Ca_tot_sl = I_Ca_sl + I_cabk_sl + I_pca_sl - 2 * I_ncx_sl;
    dv[36] = -I_Ca_tot_junc * Cmem / (Vjunc * 2 * Frdy) +
             J_ca_juncsl / Vjunc * (v[37] - v[36]) - J_CaB_junction + (J_SRCarel)*Vsr / Vjunc +
             J_SRleak * Vmyo / Vjunc;
    dv[37] = -I_Ca_tot_sl * Cmem / (Vsl * 2 * Frdy) + J_ca_juncsl / Vsl * (v[36] - v[37]) +
             J_ca_slmyo / Vsl * (v[38] - v[37]) - J_CaB_sl;
    dv[38] = -J_serca - J_CaB_cytosol + J_ca_slmyo / Vmyo * (v[37] - v[38]);

    // pacing by current injection (Rodinia's simulation state 1)
    fp I_app;
    if (fmod(timeinst, cycleLength) <= 5) {
        I_app = 9.5;
    } else {
        I_app = 0.0;
    }

    // membrane potential
    fp I_Na_tot = I_Na_tot_junc + I_Na_tot_sl;
    fp I_Cl_tot = I_ClCa + I_Clbk;
    fp I_Ca_tot = I_Ca_tot_junc + I_Ca_tot_sl;
    fp I_tot = I_Na_tot + I_Cl_tot + I_Ca_tot + I_K_tot;
    dv[39] = -(I_tot - I_app);

    // unused outputs
    dv[41] = 0;
    dv[42] = 0;
}

// The CAM model of one compartment: derivatives of the 15 state variables at valu_offset, its
// parameters at params_offset, the Ca flux for the ECC model into d_com[com_offset].
__device__ void kernel_cam(fp timeinst, const fp *d_initvalu, fp *d_finavalu, int valu_offset,
                           const fp *d_params, int params_offset, fp *d_com, int com_offset,
                           fp Ca)
{
    const fp Btot = d_params[params_offset + 1];
    const fp CaMKIItot = d_params[params_offset + 2];
    const fp CaNtot = d_params[params_offset + 3];
    const fp PP1tot = d_params[params_offset + 4];
    const fp K = d_params[16];
    const fp Mg = d_params[17];

    const fp *s = d_initvalu + valu_offset;
    const fp CaM = s[0], Ca2CaM = s[1], Ca4CaM = s[2], CaMB = s[3], Ca2CaMB = s[4];
    const fp Ca4CaMB = s[5], Pb2 = s[6], Pb = s[7], Pt = s[8], Pt2 = s[9], Pa = s[10];
    const fp Ca4CaN = s[11], CaMCa4CaN = s[12], Ca2CaMCa4CaN = s[13], Ca4CaMCa4CaN = s[14];

    // Ca/CaM parameters
    fp Kd02, Kd24;
    if (Mg <= 1) {
        Kd02 = 0.0025 * (1 + K / 0.94 - Mg / 0.012) * (1 + K / 8.1 + Mg / 0.022);
        Kd24 = 0.128 * (1 + K / 0.64 + Mg / 0.0014) * (1 + K / 13.0 - Mg / 0.153);
    } else {
        Kd02 = 0.0025 * (1 + K / 0.94 - 1 / 0.012 + (Mg - 1) / 0.060) *
               (1 + K / 8.1 + 1 / 0.022 + (Mg - 1) / 0.068);
        Kd24 = 0.128 * (1 + K / 0.64 + 1 / 0.0014 + (Mg - 1) / 0.005) *
               (1 + K / 13.0 - 1 / 0.153 + (Mg - 1) / 0.150);
    }
    const fp k20 = 10;
    const fp k02 = k20 / Kd02;
    const fp k42 = 500;
    const fp k24 = k42 / Kd24;

    // CaM buffering (B) parameters
    const fp k0Boff = 0.0014;
    const fp k0Bon = k0Boff / 0.2;
    const fp k2Boff = k0Boff / 100;
    const fp k2Bon = k0Bon;
    const fp k4Boff = k2Boff;
    const fp k4Bon = k0Bon;

    // thermodynamic constraints
    const fp k20B = k20 / 100;
    const fp k02B = k02;
    const fp k42B = k42;
    const fp k24B = k24;

    // CaMKII states Wi, Wb, Wt, Wa
    const fp kbi = 2.2;
    const fp kib = kbi / 33.5e-3;
    const fp kpp1 = 1.72;
    const fp Kmpp1 = 11.5;
    const fp kib2 = kib;
    const fp kb2i = kib2 * 5;
    const fp kb24 = k24;
    const fp kb42 = k42 * 33.5e-3 / 5;
    const fp kta = kbi / 1000;
    const fp kat = kib;
    const fp kt42 = k42 * 33.5e-6 / 5;
    const fp kt24 = k24;
    const fp kat2 = kib;
    const fp kt2a = kib * 5;

    // CaN parameters
    const fp kcanCaoff = 1;
    const fp kcanCaon = kcanCaoff / 0.5;
    const fp kcanCaM4on = 46;
    const fp kcanCaM4off = 0.0013;
    const fp kcanCaM2on = kcanCaM4on;
    const fp kcanCaM2off = 2508 * kcanCaM4off;
    const fp kcanCaM0on = kcanCaM4on;
    const fp kcanCaM0off = 165 * kcanCaM2off;
    const fp k02can = k02;
    const fp k20can = k20 / 165;
    const fp k24can = k24;
    const fp k42can = k20 / 2508;

    // CaM reaction fluxes
    fp rcn02 = k02 * pow(Ca, 2) * CaM - k20 * Ca2CaM;
    fp rcn24 = k24 * pow(Ca, 2) * Ca2CaM - k42 * Ca4CaM;

    // CaM buffer fluxes
    fp B = Btot - CaMB - Ca2CaMB - Ca4CaMB;
    fp rcn02B = k02B * pow(Ca, 2) * CaMB - k20B * Ca2CaMB;
    fp rcn24B = k24B * pow(Ca, 2) * Ca2CaMB - k42B * Ca4CaMB;
    fp rcn0B = k0Bon * CaM * B - k0Boff * CaMB;
    fp rcn2B = k2Bon * Ca2CaM * B - k2Boff * Ca2CaMB;
    fp rcn4B = k4Bon * Ca4CaM * B - k4Boff * Ca4CaMB;

    // CaN reaction fluxes
    fp Ca2CaN = CaNtot - Ca4CaN - CaMCa4CaN - Ca2CaMCa4CaN - Ca4CaMCa4CaN;
    fp rcnCa4CaN = kcanCaon * pow(Ca, 2) * Ca2CaN - kcanCaoff * Ca4CaN;
    fp rcn02CaN = k02can * pow(Ca, 2) * CaMCa4CaN - k20can * Ca2CaMCa4CaN;
    fp rcn24CaN = k24can * pow(Ca, 2) * Ca2CaMCa4CaN - k42can * Ca4CaMCa4CaN;
    fp rcn0CaN = kcanCaM0on * CaM * Ca4CaN - kcanCaM0off * CaMCa4CaN;
    fp rcn2CaN = kcanCaM2on * Ca2CaM * Ca4CaN - kcanCaM2off * Ca2CaMCa4CaN;
    fp rcn4CaN = kcanCaM4on * Ca4CaM * Ca4CaN - kcanCaM4off * Ca4CaMCa4CaN;

    // CaMKII reaction fluxes
    fp Pix = 1 - Pb2 - Pb - Pt - Pt2 - Pa;
    fp rcnCKib2 = kib2 * Ca2CaM * Pix - kb2i * Pb2;
    fp rcnCKb2b = kb24 * pow(Ca, 2) * Pb2 - kb42 * Pb;
    fp rcnCKib = kib * Ca4CaM * Pix - kbi * Pb;
    fp T = Pb + Pt + Pt2 + Pa;
    fp kbt = 0.055 * T + 0.0074 * pow(T, 2) + 0.015 * pow(T, 3);
    fp rcnCKbt = kbt * Pb - kpp1 * PP1tot * Pt / (Kmpp1 + CaMKIItot * Pt);
    fp rcnCKtt2 = kt42 * Pt - kt24 * pow(Ca, 2) * Pt2;
    fp rcnCKta = kta * Pt - kat * Ca4CaM * Pa;
    fp rcnCKt2a = kt2a * Pt2 - kat2 * Ca2CaM * Pa;
    fp rcnCKt2b2 = kpp1 * PP1tot * Pt2 / (Kmpp1 + CaMKIItot * Pt2);
    fp rcnCKai = kpp1 * PP1tot * Pa / (Kmpp1 + CaMKIItot * Pa);

    fp *d = d_finavalu + valu_offset;
    // CaM
    d[0] = 1e-3 * (-rcn02 - rcn0B - rcn0CaN);
    d[1] = 1e-3 * (rcn02 - rcn24 - rcn2B - rcn2CaN + CaMKIItot * (-rcnCKib2 + rcnCKt2a));
    d[2] = 1e-3 * (rcn24 - rcn4B - rcn4CaN + CaMKIItot * (-rcnCKib + rcnCKta));
    d[3] = 1e-3 * (rcn0B - rcn02B);
    d[4] = 1e-3 * (rcn02B + rcn2B - rcn24B);
    d[5] = 1e-3 * (rcn24B + rcn4B);
    // CaMKII
    d[6] = 1e-3 * (rcnCKib2 - rcnCKb2b + rcnCKt2b2);
    d[7] = 1e-3 * (rcnCKib + rcnCKb2b - rcnCKbt);
    d[8] = 1e-3 * (rcnCKbt - rcnCKta - rcnCKtt2);
    d[9] = 1e-3 * (rcnCKtt2 - rcnCKt2a - rcnCKt2b2);
    d[10] = 1e-3 * (rcnCKta + rcnCKt2a - rcnCKai);
    // CaN
    d[11] = 1e-3 * (rcnCa4CaN - rcn0CaN - rcn2CaN - rcn4CaN);
    d[12] = 1e-3 * (rcn0CaN - rcn02CaN);
    d[13] = 1e-3 * (rcn2CaN + rcn02CaN - rcn24CaN);
    d[14] = 1e-3 * (rcn4CaN + rcn24CaN);

    // Ca flux buffered by CaM, for the ECC model [uM/msec]
    d_com[com_offset] =
        1e-3 * (2 * CaMKIItot * (rcnCKtt2 - rcnCKb2b) -
                2 * (rcn02 + rcn24 + rcn02B + rcn24B + rcnCa4CaN + rcn02CaN + rcn24CaN));
}

// One model evaluation: block 0 runs ECC, block 1 the three CAM compartments (thread 0 each).
// timeinst is an int, as in Rodinia (the host's float time is truncated at the call).
extern "C" __global__ void kernel(int timeinst, fp *d_initvalu, fp *d_finavalu, fp *d_params,
                                  fp *d_com)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;

    if (bx == 0) {
        if (tx == 0) {
            kernel_ecc(timeinst, d_initvalu, d_finavalu, 0, d_params);
        }
    } else if (bx == 1) {
        if (tx == 0) {
            // Ca of the dyad, SL and cytosol from the ECC state, mM to uM
            fp CaDyad = d_initvalu[35] * 1e3;
            kernel_cam(timeinst, d_initvalu, d_finavalu, 46, d_params, 0, d_com, 0, CaDyad);
            fp CaSL = d_initvalu[36] * 1e3;
            kernel_cam(timeinst, d_initvalu, d_finavalu, 61, d_params, 5, d_com, 1, CaSL);
            fp CaCyt = d_initvalu[37] * 1e3;
            kernel_cam(timeinst, d_initvalu, d_finavalu, 76, d_params, 10, d_com, 2, CaCyt);
        }
    }
}
