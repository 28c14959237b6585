/* The hot kernels of the native forward pass (student_forward.h), written once for a
 * vector of OL_W floats and included once per width: OL_W 8 (AVX2, or two SSE halves) and
 * OL_W 16 (AVX-512). The includer defines OL_W, OLK(name) (the width's names) and
 * OL_KERNEL_CLONES (the x86-64 levels each kernel is compiled for). */

typedef float OLK(v) __attribute__((vector_size(OL_W * 4)));
typedef int32_t OLK(i) __attribute__((vector_size(OL_W * 4)));
typedef float OLK(v_u) __attribute__((vector_size(OL_W * 4), aligned(4)));

OL_INLINE OLK(v) OLK(load)(const float *p) { return *(const OLK(v_u) *)p; }
OL_INLINE void OLK(store)(float *p, OLK(v) v) { *(OLK(v_u) *)p = v; }
OL_INLINE OLK(v) OLK(splat)(float x) { return (OLK(v)){0} + x; }

/* One tile of y = x W (+ bias) (+ ReLU): RB rows by NV vectors of OL_W columns, all
 * accumulated in registers over the `in` products (x rows xs apart, W rows ws apart, y
 * rows ys apart). */
OL_INLINE void OLK(tile)(const float *x, int xs, int in, const float *w, int ws, const float *bias,
                       float *y, int ys, int relu, int RB, int NV) {
    OLK(v) acc[8][4];
    for (int r = 0; r < RB; r++)
        for (int j = 0; j < NV; j++)
            acc[r][j] = bias ? OLK(load)(bias + j * OL_W) : OLK(splat)(0.0f);
    for (int k = 0; k < in; k++, w += ws) {
        OLK(v) wk[4];
        for (int j = 0; j < NV; j++) wk[j] = OLK(load)(w + j * OL_W);
        for (int r = 0; r < RB; r++) {
            const float xk = x[(size_t)r * xs + k];
            for (int j = 0; j < NV; j++) acc[r][j] += xk * wk[j];
        }
    }
    for (int r = 0; r < RB; r++)
        for (int j = 0; j < NV; j++) {
            OLK(v) v = acc[r][j];
            if (relu) v = (OLK(v))((OLK(i))v & (v > 0.0f));
            OLK(store)(y + (size_t)r * ys + j * OL_W, v);
        }
}

/* The rows of one column group of NV vectors, RB at a time: 12 accumulators for 3 or 4
 * vectors, 12 and 8 for 2 and 1 (enough independent FMA chains to hide their latency, few
 * enough for 16 registers), then the rest of the rows in smaller tiles. */
#define OL_TILE(rows) OLK(tile)(x + (size_t)i * xs, xs, in, w, ws, bias, y + (size_t)i * ys, ys, relu, rows, NV)
OL_INLINE void OLK(gemm_cols)(const float *x, int n, int xs, int in, const float *w, int ws,
                            const float *bias, float *y, int ys, int relu, int NV) {
    const int RB = NV == 4 ? 3 : NV == 3 ? 4 : NV == 2 ? 6 : 8;
    int i = 0;
    for (; i + RB <= n; i += RB) OL_TILE(RB);
    for (; i + 4 <= n; i += 4) OL_TILE(4);
    switch (n - i) {
    case 3: OL_TILE(3); break;
    case 2: OL_TILE(2); break;
    case 1: OL_TILE(1); break;
    default: break;
    }
}
#undef OL_TILE

/* y [n][width] = x [n][in] W [in][width] (+ bias) (+ ReLU); width a multiple of OL_W. */
OL_KERNEL_CLONES
static void OLK(gemm)(const float *x, int n, int xs, int in, const float *w, int ws, int width,
                    const float *bias, float *y, int ys, int relu) {
    int col = 0;
    for (; col + 4 * OL_W <= width; col += 4 * OL_W)
        OLK(gemm_cols)(x, n, xs, in, w + col, ws, bias ? bias + col : NULL, y + col, ys, relu, 4);
    switch ((width - col) / OL_W) {
    case 3: OLK(gemm_cols)(x, n, xs, in, w + col, ws, bias ? bias + col : NULL, y + col, ys, relu, 3); break;
    case 2: OLK(gemm_cols)(x, n, xs, in, w + col, ws, bias ? bias + col : NULL, y + col, ys, relu, 2); break;
    case 1: OLK(gemm_cols)(x, n, xs, in, w + col, ws, bias ? bias + col : NULL, y + col, ys, relu, 1); break;
    default: break;
    }
}

/* exp(x) of x <= 0 for a vector (Cephes' single-precision polynomial, within 2 ulp); 0
 * below -87.3 (-inf included). Softmax only asks it of x - max(x). */
OL_INLINE OLK(v) OLK(exp)(OLK(v) x) {
    const OLK(v) lo = OLK(splat)(-87.3365478515625f);
    OLK(i) under = x < lo;
    x = (OLK(v))(((OLK(i))x & ~under) | ((OLK(i))lo & under));
    const OLK(v) magic = OLK(splat)(12582912.0f);          /* 1.5 * 2^23: round to nearest */
    OLK(v) n = (x * OLK(splat)(1.44269504088896341f) + magic) - magic;
    OLK(v) r = x - n * OLK(splat)(0.693359375f) - n * OLK(splat)(-2.12194440e-4f);
    OLK(v) p = OLK(splat)(1.9875691500E-4f);
    p = p * r + OLK(splat)(1.3981999507E-3f);
    p = p * r + OLK(splat)(8.3334519073E-3f);
    p = p * r + OLK(splat)(4.1665795894E-2f);
    p = p * r + OLK(splat)(1.6666665459E-1f);
    p = p * r + OLK(splat)(5.0000001201E-1f);
    p = p * r * r + r + OLK(splat)(1.0f);
    OLK(i) e = (__builtin_convertvector(n, OLK(i)) + 127) << 23;
    p = p * (OLK(v))e;
    return (OLK(v))((OLK(i))p & ~under);
}

OL_INLINE OLK(v) OLK(max)(OLK(v) a, OLK(v) b) {
    OLK(i) keep = a >= b;
    return (OLK(v))(((OLK(i))a & keep) | ((OLK(i))b & ~keep));
}

/* Every lane set to the max (the sum) of v's lanes, by halving shuffles. */
#if OL_W == 8
#define OL_SHUFFLES(f, v) \
    v = f(v, __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3)); \
    v = f(v, __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5)); \
    v = f(v, __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6));
#else
#define OL_SHUFFLES(f, v) \
    v = f(v, __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7)); \
    v = f(v, __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11)); \
    v = f(v, __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)); \
    v = f(v, __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14));
#endif
OL_INLINE OLK(v) OLK(add)(OLK(v) a, OLK(v) b) { return a + b; }
OL_INLINE OLK(v) OLK(all_max)(OLK(v) v) { OL_SHUFFLES(OLK(max), v) return v; }
OL_INLINE OLK(v) OLK(all_sum)(OLK(v) v) { OL_SHUFFLES(OLK(add), v) return v; }
#undef OL_SHUFFLES

/* Softmax in place over the first `n` floats of RB rows of `np` (a multiple of 16) floats,
 * after multiplying them by `scale`; the padding lanes become 0. Rows are short (a few
 * vectors), so the RB rows go through each pass together: their max and sum chains
 * overlap (one row at a time measured 1.6x slower), and nothing scalar runs per row. */
OL_INLINE void OLK(softmax_rows)(float *s, int RB, int n, int np, float scale) {
    OLK(i) lane;
    for (int j = 0; j < OL_W; j++) lane[j] = j;
    const OLK(v) ninf = OLK(splat)(-INFINITY);
    OLK(v) mv[4], sum[4];
    for (int r = 0; r < RB; r++) { mv[r] = ninf; sum[r] = OLK(splat)(0.0f); }
    for (int j = 0; j < np; j += OL_W)
        for (int r = 0; r < RB; r++) {
            OLK(v) v = OLK(load)(s + (size_t)r * np + j);
            if (scale != 1.0f) v = v * scale;
            if (j + OL_W > n) {                        /* padding lanes (8-float vectors: */
                OLK(i) real = lane + j < n;            /* up to two of them) */
                v = (OLK(v))(((OLK(i))v & real) | ((OLK(i))ninf & ~real));
            }
            OLK(store)(s + (size_t)r * np + j, v);
            mv[r] = OLK(max)(mv[r], v);
        }
    for (int r = 0; r < RB; r++) mv[r] = OLK(all_max)(mv[r]);
    for (int j = 0; j < np; j += OL_W)
        for (int r = 0; r < RB; r++) {
            OLK(v) e = OLK(exp)(OLK(load)(s + (size_t)r * np + j) - mv[r]);
            OLK(store)(s + (size_t)r * np + j, e);
            sum[r] += e;
        }
    for (int r = 0; r < RB; r++) sum[r] = 1.0f / OLK(all_sum)(sum[r]);
    for (int j = 0; j < np; j += OL_W)
        for (int r = 0; r < RB; r++)
            OLK(store)(s + (size_t)r * np + j, OLK(load)(s + (size_t)r * np + j) * sum[r]);
}

OL_KERNEL_CLONES
static void OLK(softmax)(float *s, int rows, int n, int np, float scale) {
    int i = 0;
    for (; i + 4 <= rows; i += 4) OLK(softmax_rows)(s + (size_t)i * np, 4, n, np, scale);
    for (; i < rows; i++) OLK(softmax_rows)(s + (size_t)i * np, 1, n, np, scale);
}

OL_INLINE float OLK(hsum)(OLK(v) v) {
    float t = 0.0f;
    for (int j = 0; j < OL_W; j++) t += v[j];
    return t;
}

/* LayerNorm over the first d of each row (rows dp floats apart, the padding columns 0),
 * eps 1e-5, affine; the padding columns stay 0 (gain and bias are zero-padded). */
OL_KERNEL_CLONES
static void OLK(layer_norm)(const float *x, int n, int d, int dp, const OlNorm *N, float *y) {
    OLK(i) lane;
    for (int j = 0; j < OL_W; j++) lane[j] = j;
    for (int i = 0; i < n; i++) {
        const float *xi = x + (size_t)i * dp;
        float *yi = y + (size_t)i * dp;
        OLK(v) sum = OLK(splat)(0.0f), sq = OLK(splat)(0.0f);
        for (int j = 0; j < dp; j += OL_W) sum += OLK(load)(xi + j);
        const float mean = OLK(hsum)(sum) / (float)d;
        for (int j = 0; j < dp; j += OL_W) {
            OLK(v) c = OLK(load)(xi + j) - mean;
            c = (OLK(v))((OLK(i))c & (lane + j < d));
            sq += c * c;
        }
        const float inv = 1.0f / sqrtf(OLK(hsum)(sq) / (float)d + 1e-5f);
        for (int j = 0; j < dp; j += OL_W)
            OLK(store)(yi + j, (OLK(load)(xi + j) - mean) * inv * OLK(load)(N->g + j) + OLK(load)(N->b + j));
    }
}

