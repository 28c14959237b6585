/* The forward pass of LandlordFormer-Lite (openlandlord/model/student.py) in plain C, for
 * one position at a time: no padding, no batch axis, every buffer sized to the position.
 *
 * Weights arrive pre-packed by openlandlord/model/native.py: every linear layer transposed
 * to [in][outp] with outp the output width rounded up to 16 (zero columns, zero bias), so
 * every activation row is a whole number of 16-float vectors and the padding columns stay
 * exactly zero. The op order follows the MLX model (Linear = x W^T + b, LayerNorm eps 1e-5
 * over the real width, attention scores (q.k) * 1/sqrt(head_dim), softmax as exp(x - max) /
 * sum, masked means as sum / count), in float32 like MLX.
 *
 * The hot kernels (linear, attention, softmax, layer norm) are compiled once per x86-64
 * level (v4: AVX-512, v3: AVX2 + FMA, baseline) and picked at load time by the CPU
 * (GCC's target_clones), so the extension needs no -march flag; elsewhere they are
 * compiled for the build target as they are.
 */
#ifndef OL_STUDENT_FORWARD_H
#define OL_STUDENT_FORWARD_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define OL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OL_CLONES
#endif
#define OL_INLINE static inline __attribute__((always_inline))
#pragma GCC diagnostic ignored "-Wpsabi"

#define OL_V 16                 /* floats per vector; every packed width is a multiple */
#define OL_MAX_LAYERS 16
#define OL_BLOCK 32             /* actions processed together (their buffers stay in cache) */

/* 8-float vectors: native on AVX2, on AVX-512 too (ymm, with 32 registers), two halves
 * elsewhere. Wider generic vectors were compiled through the stack on AVX2 (measured 3x
 * slower). */
#define OL_W 8
typedef float olv __attribute__((vector_size(32)));
typedef int32_t oli __attribute__((vector_size(32)));
typedef float olv_u __attribute__((vector_size(32), aligned(4)));

OL_INLINE olv ol_load(const float *p) { return *(const olv_u *)p; }
OL_INLINE void ol_store(float *p, olv v) { *(olv_u *)p = v; }
OL_INLINE olv ol_splat(float x) { return (olv){0} + x; }

typedef struct { const float *w, *b; int in, out, outp; } OlLinear;   /* w [in][outp], b [outp] or NULL */
typedef struct { const float *g, *b; } OlNorm;
typedef struct { OlLinear q, k, v, o; } OlAttention;
typedef struct { OlNorm ln_attn; OlAttention attn; OlNorm ln_ff; OlLinear up, down; } OlBlock;

typedef struct {
    int d, dp, heads, head_dim, layers, roles, rank;
    int slots, holders, comps, max_count;       /* belief: R, H, K, belief_max_count */
    int belief_mode;                            /* 0 off, 1 expect, 2 full */
    int use_adapters, use_deep_sets;
    int ffp, fs, fa;
    OlLinear state_in;
    const float *role_embedding;                /* [roles][dp] */
    OlBlock encoder[OL_MAX_LAYERS];
    OlNorm encoder_norm;
    OlLinear state_down[8], state_up[8], action_down[8], action_up[8];   /* per role */
    const float *slot_embedding;                /* [R][dp] */
    const float *compositions;                  /* [K][H] */
    OlLinear belief_hidden, belief_out, belief_in;
    OlLinear value_hidden, value_out;
    OlLinear action_in;
    OlBlock action;                             /* ln_attn is ln_query, attn is cross_attn */
    OlLinear set_phi, set_rho, score_hidden, score_out;
} OlModel;

#define OL_MAX_ROLES 8

/* --- kernels ------------------------------------------------------------------------- */

/* One tile of y = x W (+ bias) (+ ReLU): RB rows by NV vectors of 8 columns, all
 * accumulated in registers over the `in` products (x rows xs apart, W rows ws apart, y
 * rows ys apart). */
OL_INLINE void ol_tile(const float *x, int xs, int in, const float *w, int ws, const float *bias,
                       float *y, int ys, int relu, int RB, int NV) {
    olv acc[4][4];
    for (int r = 0; r < RB; r++)
        for (int j = 0; j < NV; j++)
            acc[r][j] = bias ? ol_load(bias + j * OL_W) : ol_splat(0.0f);
    for (int k = 0; k < in; k++, w += ws) {
        olv wk[4];
        for (int j = 0; j < NV; j++) wk[j] = ol_load(w + j * OL_W);
        for (int r = 0; r < RB; r++) {
            const float xk = x[(size_t)r * xs + k];
            for (int j = 0; j < NV; j++) acc[r][j] += xk * wk[j];
        }
    }
    for (int r = 0; r < RB; r++)
        for (int j = 0; j < NV; j++) {
            olv v = acc[r][j];
            if (relu) v = (olv)((oli)v & (v > 0.0f));
            ol_store(y + (size_t)r * ys + j * OL_W, v);
        }
}

/* The rows of one column group of NV vectors, three at a time (12 accumulators: enough
 * independent FMA chains to hide their latency, few enough for 16 registers). */
OL_INLINE void ol_gemm_cols(const float *x, int n, int xs, int in, const float *w, int ws,
                            const float *bias, float *y, int ys, int relu, int NV) {
    const int RB = NV == 4 ? 3 : 4;
    int i = 0;
    for (; i + RB <= n; i += RB)
        ol_tile(x + (size_t)i * xs, xs, in, w, ws, bias, y + (size_t)i * ys, ys, relu, RB, NV);
    switch (n - i) {
    case 3: ol_tile(x + (size_t)i * xs, xs, in, w, ws, bias, y + (size_t)i * ys, ys, relu, 3, NV); break;
    case 2: ol_tile(x + (size_t)i * xs, xs, in, w, ws, bias, y + (size_t)i * ys, ys, relu, 2, NV); break;
    case 1: ol_tile(x + (size_t)i * xs, xs, in, w, ws, bias, y + (size_t)i * ys, ys, relu, 1, NV); break;
    default: break;
    }
}

/* y [n][width] = x [n][in] W [in][width] (+ bias) (+ ReLU); width a multiple of 8. */
OL_CLONES
static void ol_gemm(const float *x, int n, int xs, int in, const float *w, int ws, int width,
                    const float *bias, float *y, int ys, int relu) {
    int col = 0;
    for (; col + 4 * OL_W <= width; col += 4 * OL_W)
        ol_gemm_cols(x, n, xs, in, w + col, ws, bias ? bias + col : NULL, y + col, ys, relu, 4);
    switch ((width - col) / OL_W) {
    case 3: ol_gemm_cols(x, n, xs, in, w + col, ws, bias ? bias + col : NULL, y + col, ys, relu, 3); break;
    case 2: ol_gemm_cols(x, n, xs, in, w + col, ws, bias ? bias + col : NULL, y + col, ys, relu, 2); break;
    case 1: ol_gemm_cols(x, n, xs, in, w + col, ws, bias ? bias + col : NULL, y + col, ys, relu, 1); break;
    default: break;
    }
}

/* y[i] = x[i] W + b for n rows (x rows xs apart, y rows L->outp apart), ReLU after when
 * `relu`. */
static inline void ol_linear(const float *x, int n, int xs, const OlLinear *L, float *y, int relu) {
    ol_gemm(x, n, xs, L->in, L->w, L->outp, L->outp, L->b, y, L->outp, relu);
}

/* exp(x) for a vector (Cephes' single-precision polynomial, within 2 ulp); 0 below -87.3. */
OL_INLINE olv ol_exp(olv x) {
    const olv hi = ol_splat(88.3762626647949f), lo = ol_splat(-87.3365478515625f);
    oli under = x < lo;
    x = (olv)(((oli)x & (x < hi)) | ((oli)hi & ~(x < hi)));
    x = (olv)(((oli)x & ~under) | ((oli)lo & under));
    const olv magic = ol_splat(12582912.0f);          /* 1.5 * 2^23: round to nearest */
    olv n = (x * ol_splat(1.44269504088896341f) + magic) - magic;
    olv r = x - n * ol_splat(0.693359375f) - n * ol_splat(-2.12194440e-4f);
    olv p = ol_splat(1.9875691500E-4f);
    p = p * r + ol_splat(1.3981999507E-3f);
    p = p * r + ol_splat(8.3334519073E-3f);
    p = p * r + ol_splat(4.1665795894E-2f);
    p = p * r + ol_splat(1.6666665459E-1f);
    p = p * r + ol_splat(5.0000001201E-1f);
    p = p * r * r + r + ol_splat(1.0f);
    oli e = (__builtin_convertvector(n, oli) + 127) << 23;
    p = p * (olv)e;
    return (olv)((oli)p & ~under);
}

/* Softmax in place over the first `n` floats of a row of `np` (a multiple of 16) floats,
 * after multiplying them by `scale`; the padding lanes become 0. */
OL_INLINE void ol_softmax_row(float *s, int n, int np, float scale) {
    for (int j = n; j < np; j++) s[j] = -INFINITY;
    olv mv = ol_splat(-INFINITY), sum = ol_splat(0.0f);
    for (int j = 0; j < np; j += OL_W) {
        olv v = ol_load(s + j);
        if (scale != 1.0f) { v = v * scale; ol_store(s + j, v); }
        mv = (olv)(((oli)mv & (mv >= v)) | ((oli)v & ~(mv >= v)));
    }
    float m = mv[0];
    for (int j = 1; j < OL_W; j++) m = mv[j] > m ? mv[j] : m;
    mv = ol_splat(m);
    for (int j = 0; j < np; j += OL_W) {
        olv e = ol_exp(ol_load(s + j) - mv);
        ol_store(s + j, e);
        sum += e;
    }
    float total = 0.0f;
    for (int j = 0; j < OL_W; j++) total += sum[j];
    olv tv = ol_splat(total);
    for (int j = 0; j < np; j += OL_W) ol_store(s + j, ol_load(s + j) / tv);
}

OL_CLONES
static void ol_softmax(float *s, int rows, int n, int np, float scale) {
    for (int i = 0; i < rows; i++) ol_softmax_row(s + (size_t)i * np, n, np, scale);
}

OL_INLINE float ol_hsum(olv v) {
    float t = 0.0f;
    for (int j = 0; j < OL_W; j++) t += v[j];
    return t;
}

/* LayerNorm over the first d of each row (rows dp floats apart, the padding columns 0),
 * eps 1e-5, affine; the padding columns stay 0 (gain and bias are zero-padded). */
OL_CLONES
static void ol_layer_norm(const float *x, int n, int d, int dp, const OlNorm *N, float *y) {
    const oli lane = {0, 1, 2, 3, 4, 5, 6, 7};
    for (int i = 0; i < n; i++) {
        const float *xi = x + (size_t)i * dp;
        float *yi = y + (size_t)i * dp;
        olv sum = ol_splat(0.0f), sq = ol_splat(0.0f);
        for (int j = 0; j < dp; j += OL_W) sum += ol_load(xi + j);
        const float mean = ol_hsum(sum) / (float)d;
        for (int j = 0; j < dp; j += OL_W) {
            olv c = ol_load(xi + j) - mean;
            c = (olv)((oli)c & (lane + j < d));
            sq += c * c;
        }
        const float inv = 1.0f / sqrtf(ol_hsum(sq) / (float)d + 1e-5f);
        for (int j = 0; j < dp; j += OL_W)
            ol_store(yi + j, (ol_load(xi + j) - mean) * inv * ol_load(N->g + j) + ol_load(N->b + j));
    }
}

/* Multi-head attention core: out[l] = softmax(q_h[l] . k_h / sqrt(hd)) v_h per head, for L
 * queries over S keys (all real: a position has no padding). q, k, v, out rows are dp
 * apart; kt is scratch [hd][Sp], scores scratch [L][Sp]. Both products are `ol_gemm`s. */
static void ol_attend(const float *q, int L, const float *k, const float *v, int S,
                      int heads, int hd, int dp, float *kt, float *scores, float *out) {
    const int Sp = (S + OL_V - 1) / OL_V * OL_V;
    const float scale = 1.0f / sqrtf((float)hd);
    for (int h = 0; h < heads; h++) {
        const int c0 = h * hd;
        for (int c = 0; c < hd; c++) {
            for (int s = 0; s < S; s++) kt[c * Sp + s] = k[(size_t)s * dp + c0 + c];
            for (int s = S; s < Sp; s++) kt[c * Sp + s] = 0.0f;
        }
        ol_gemm(q + c0, L, dp, hd, kt, Sp, Sp, NULL, scores, Sp, 0);
        ol_softmax(scores, L, S, Sp, scale);
        if (hd % OL_W == 0) {
            ol_gemm(scores, L, Sp, S, v + c0, dp, hd, NULL, out + c0, dp, 0);
        } else {
            for (int l = 0; l < L; l++)
                for (int c = 0; c < hd; c++) {
                    float acc = 0.0f;
                    for (int s = 0; s < S; s++) acc += scores[(size_t)l * Sp + s] * v[(size_t)s * dp + c0 + c];
                    out[(size_t)l * dp + c0 + c] = acc;
                }
        }
    }
}

/* --- the model ------------------------------------------------------------------------ */

OL_INLINE void ol_add(float *x, const float *y, size_t n) { for (size_t i = 0; i < n; i++) x[i] += y[i]; }

/* Scratch of one position: T state tokens, A legal actions. */
typedef struct {
    float *x, *h, *q, *k, *v, *att, *ffh, *kt, *scores;
    float *emb, *act, *small;
} OlScratch;

/* x + (x down[role]) up[role] in place, n rows; tmp holds [n][16*ceil(rank/16)]. */
OL_INLINE void ol_adapter(float *x, int n, int dp, const OlLinear *down, const OlLinear *up, float *tmp, float *tmp2) {
    ol_linear(x, n, dp, down, tmp, 0);
    ol_linear(tmp, n, down->outp, up, tmp2, 0);
    ol_add(x, tmp2, (size_t)n * dp);
}

/* One pre-LN block over L query rows x (in place) attending S memory rows. With memory
 * NULL it is self-attention over x's own layer-normed rows (the encoder), else cross
 * attention to precomputed keys/values k, v (the action layer). */
OL_INLINE void ol_block(const OlModel *m, const OlBlock *B, float *x, int L, const float *k_in,
                        const float *v_in, int S, OlScratch *w) {
    const int dp = m->dp;
    ol_layer_norm(x, L, m->d, dp, &B->ln_attn, w->h);
    ol_linear(w->h, L, dp, &B->attn.q, w->q, 0);
    const float *k = k_in, *v = v_in;
    if (!k) {
        ol_linear(w->h, L, dp, &B->attn.k, w->k, 0);
        ol_linear(w->h, L, dp, &B->attn.v, w->v, 0);
        k = w->k; v = w->v; S = L;
    }
    ol_attend(w->q, L, k, v, S, m->heads, m->head_dim, dp, w->kt, w->scores, w->att);
    ol_linear(w->att, L, dp, &B->attn.o, w->h, 0);
    ol_add(x, w->h, (size_t)L * dp);
    ol_layer_norm(x, L, m->d, dp, &B->ln_ff, w->h);
    ol_linear(w->h, L, dp, &B->up, w->ffh, 1);
    ol_linear(w->ffh, L, m->ffp, &B->down, w->h, 0);
    ol_add(x, w->h, (size_t)L * dp);
}

OL_INLINE void ol_mean_rows(const float *x, int n, int dp, float *out) {
    for (int j = 0; j < dp; j++) out[j] = 0.0f;
    for (int i = 0; i < n; i++) ol_add(out, x + (size_t)i * dp, dp);
    float count = n > 1 ? (float)n : 1.0f;
    for (int j = 0; j < dp; j++) out[j] = out[j] / count;
}

#define OL_ROUND(n) (((n) + OL_V - 1) / OL_V * OL_V)

/* The sizes (floats) of the scratch buffers of one position with T tokens and A actions. */
static void ol_scratch_sizes(const OlModel *m, int T, int A, size_t sizes[12]) {
    const int dp = m->dp, R = m->slots, H = m->holders, K = m->comps;
    const int S = T + (m->belief_mode ? 1 : 0);
    const int rows = (T > OL_BLOCK ? T : OL_BLOCK) + 1;
    const int wide = m->ffp > dp ? m->ffp : dp;
    const int seen_w = m->belief_mode == 2 ? R * K : R * H;
    size_t s[12] = {
        (size_t)S * dp, (size_t)rows * wide, (size_t)rows * dp, (size_t)S * dp, (size_t)S * dp,
        (size_t)rows * dp, (size_t)rows * wide, (size_t)m->head_dim * OL_ROUND(S),
        (size_t)rows * OL_ROUND(S), (size_t)(A > 0 ? A : 1) * dp, (size_t)rows * dp * 2,
        (size_t)5 * dp + (size_t)OL_ROUND(2 * m->d) + (size_t)R * (dp + OL_ROUND(K)) + (size_t)OL_ROUND(seen_w)};
    memcpy(sizes, s, sizeof s);
}

/* Floats of scratch `ol_forward` needs for a position with T tokens and A actions. */
static size_t ol_scratch_floats(const OlModel *m, int T, int A) {
    size_t sizes[12], total = 0;
    ol_scratch_sizes(m, T, A, sizes);
    for (int i = 0; i < 12; i++) total += sizes[i];
    return total;
}

/* The forward pass of one position. tokens [T][fs], actions [A][fa], unseen [R],
 * capacity [H], void_ [H][R]; `arena` holds at least ol_scratch_floats(m, T, A) floats
 * (every one is written before it is read). Writes logits [A], *value, and with a belief
 * head belief_logits [R][K] and belief_expect [R][H] (either may be NULL). */
static void ol_forward(const OlModel *m, const float *tokens, int T, const float *actions, int A,
                       int role, const int32_t *unseen, const int32_t *capacity, const float *void_,
                       float *logits, float *value, float *belief_logits, float *belief_expect,
                       float *arena) {
    const int dp = m->dp, d = m->d, R = m->slots, H = m->holders, K = m->comps;
    const int S = T + (m->belief_mode ? 1 : 0);                 /* memory rows */
    const int Kp = OL_ROUND(K), seen_w = m->belief_mode == 2 ? R * K : R * H;
    OlScratch w;
    size_t sizes[12];
    ol_scratch_sizes(m, T, A, sizes);
    float **slots_[12] = {&w.x, &w.h, &w.q, &w.k, &w.v, &w.att, &w.ffh, &w.kt, &w.scores, &w.emb, &w.act, &w.small};
    float *p = arena;
    for (int i = 0; i < 12; i++) { *slots_[i] = p; p += sizes[i]; }

    /* State encoder. */
    ol_linear(tokens, T, m->fs, &m->state_in, w.x, 0);
    const float *re = m->role_embedding + (size_t)role * dp;
    for (int t = 0; t < T; t++) ol_add(w.x + (size_t)t * dp, re, dp);
    for (int l = 0; l < m->layers; l++) ol_block(m, &m->encoder[l], w.x, T, NULL, NULL, T, &w);
    ol_layer_norm(w.x, T, d, dp, &m->encoder_norm, w.x);
    if (m->use_adapters)
        ol_adapter(w.x, T, dp, &m->state_down[role], &m->state_up[role], w.h, w.q);

    float *summary = w.small, *hidden = summary + dp, *tmp = hidden + dp;
    float *joined = tmp + 3 * dp, *belief_h = joined + OL_ROUND(2 * d);
    float *belief_l = belief_h + (size_t)R * dp, *seen = belief_l + (size_t)R * Kp;
    if (m->belief_mode) {
        ol_mean_rows(w.x, T, dp, summary);
        ol_linear(summary, 1, dp, &m->belief_hidden, hidden, 0);
        for (int r = 0; r < R; r++)
            for (int j = 0; j < dp; j++) {
                float s = hidden[j] + m->slot_embedding[(size_t)r * dp + j];
                belief_h[(size_t)r * dp + j] = s > 0.0f ? s : 0.0f;
            }
        ol_linear(belief_h, R, dp, &m->belief_out, belief_l, 0);
        const float *comps = m->compositions;
        for (int r = 0; r < R; r++) {
            float *lr = belief_l + (size_t)r * Kp;
            for (int c = 0; c < K; c++) {
                float used = 0.0f;
                int allowed = 1;
                for (int j = 0; j < H; j++) {
                    float kj = comps[c * H + j];
                    used += kj;
                    if (kj > (float)capacity[j] || kj * void_[(size_t)j * R + r] != 0.0f) allowed = 0;
                }
                if (used != (float)unseen[r]) allowed = 0;
                float a = allowed ? 1.0f : 0.0f;
                lr[c] = lr[c] * a + (a - 1.0f) * 1e4f;
                if (belief_logits) belief_logits[(size_t)r * K + c] = lr[c];
            }
            ol_softmax(lr, 1, K, Kp, 1.0f);
            float shared = 0.0f;
            for (int j = 0; j < H - 1; j++) {
                float e = 0.0f;
                for (int c = 0; c < K; c++) e += lr[c] * comps[c * H + j];
                if (belief_expect) belief_expect[(size_t)r * H + j] = e;
                if (m->belief_mode == 1) seen[r * H + j] = e / (float)m->max_count;
                shared += e;
            }
            float rest = (float)unseen[r] - shared;
            if (belief_expect) belief_expect[(size_t)r * H + H - 1] = rest;
            if (m->belief_mode == 1) seen[r * H + H - 1] = rest / (float)m->max_count;
            if (m->belief_mode == 2) memcpy(seen + (size_t)r * K, lr, sizeof(float) * K);   /* the probabilities */
        }
        ol_linear(seen, 1, seen_w, &m->belief_in, w.x + (size_t)T * dp, 0);
    }
    /* Value head over the memory (state tokens and the belief token). */
    ol_mean_rows(w.x, S, dp, summary);
    ol_linear(summary, 1, dp, &m->value_hidden, hidden, 1);
    ol_linear(hidden, 1, dp, &m->value_out, tmp, 0);
    *value = tanhf(tmp[0]);

    /* Keys and values of the memory, shared by every action's query. */
    ol_linear(w.x, S, dp, &m->action.attn.k, w.k, 0);
    ol_linear(w.x, S, dp, &m->action.attn.v, w.v, 0);

    /* Pass 1: each action's embedding, and the Deep Sets pool of the legal set. */
    float *pool_sum = summary, *pool_max = hidden;
    for (int j = 0; j < dp; j++) { pool_sum[j] = 0.0f; pool_max[j] = -INFINITY; }
    for (int a0 = 0; a0 < A; a0 += OL_BLOCK) {
        const int n = A - a0 < OL_BLOCK ? A - a0 : OL_BLOCK;
        float *e = w.emb + (size_t)a0 * dp;
        ol_linear(actions + (size_t)a0 * m->fa, n, m->fa, &m->action_in, e, 0);
        ol_block(m, &m->action, e, n, w.k, w.v, S, &w);
        if (m->use_deep_sets) {
            ol_linear(e, n, dp, &m->set_phi, w.act, 1);
            for (int i = 0; i < n; i++) {
                const float *hi = w.act + (size_t)i * dp;
                for (int j = 0; j < dp; j++) {
                    pool_sum[j] += hi[j];
                    pool_max[j] = hi[j] > pool_max[j] ? hi[j] : pool_max[j];
                }
            }
        }
    }
    /* Pass 2: score each action with the role adapter and the pooled set summary. */
    float *rho = tmp;
    if (m->use_deep_sets) {
        float count = A > 1 ? (float)A : 1.0f;
        for (int j = 0; j < d; j++) { joined[j] = pool_sum[j] / count; joined[d + j] = pool_max[j]; }
        ol_linear(joined, 1, 2 * d, &m->set_rho, rho, 0);
    }
    for (int a0 = 0; a0 < A; a0 += OL_BLOCK) {
        const int n = A - a0 < OL_BLOCK ? A - a0 : OL_BLOCK;
        float *x = w.act;
        memcpy(x, w.emb + (size_t)a0 * dp, sizeof(float) * (size_t)n * dp);
        if (m->use_adapters)
            ol_adapter(x, n, dp, &m->action_down[role], &m->action_up[role], w.h, w.q);
        if (m->use_deep_sets)
            for (int i = 0; i < n; i++) ol_add(x + (size_t)i * dp, rho, dp);
        ol_linear(x, n, dp, &m->score_hidden, w.h, 1);
        ol_linear(w.h, n, dp, &m->score_out, w.q, 0);
        for (int i = 0; i < n; i++) logits[a0 + i] = w.q[(size_t)i * m->score_out.outp];
    }
}

#endif
