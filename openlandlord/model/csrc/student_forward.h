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
 * The hot kernels (matrix products, softmax, layer norm; student_kernels.h) are written
 * once for a vector width and compiled for 8 floats (x86-64-v3: AVX2 + FMA, and baseline)
 * and for 16 (x86-64-v4: AVX-512); GCC's target_clones picks the level by the CPU when the
 * extension loads and `ol_pick_kernels` the width, so the build needs no -march flag.
 * Elsewhere (arm64, clang) they are compiled for the build target as they are.
 */
#ifndef OL_STUDENT_FORWARD_H
#define OL_STUDENT_FORWARD_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define OL_CLONES_V3 __attribute__((target_clones("arch=x86-64-v3", "default")))
#define OL_CLONES_V4 __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OL_CLONES_V3
#define OL_CLONES_V4
#endif
#define OL_INLINE static inline __attribute__((always_inline))
#pragma GCC diagnostic ignored "-Wpsabi"

#define OL_V 16                 /* floats per vector; every packed width is a multiple */
#define OL_MAX_LAYERS 16
#define OL_BLOCK 32             /* actions processed together (their buffers stay in cache) */

typedef struct { const float *w, *b; int in, out, outp; } OlLinear;   /* w [in][outp], b [outp] or NULL */
typedef struct { const float *g, *b; } OlNorm;
/* qkv: the three input projections side by side (self-attention, one product); kv: keys
 * and values side by side (cross-attention: the queries are the actions, the memory is shared). */
typedef struct { OlLinear q, qkv, kv, o; } OlAttention;
typedef struct { OlNorm ln_attn; OlAttention attn; OlNorm ln_ff; OlLinear up, down; } OlBlock;

typedef struct OlKernels OlKernels;

typedef struct {
    const OlKernels *k;                         /* ol_pick_kernels */
    int d, dp, heads, head_dim, layers, roles, rank;
    float score_scale;                          /* what q.k is multiplied by (see native.py) */
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

/* 8-float vectors for AVX2 (and, as two halves, for SSE). 16-float vectors for AVX-512: on
 * AVX2 GCC compiles those through the stack (measured 3x slower), so they are picked only
 * where the CPU has AVX-512 (or when asked, to test them). */
#define OL_W 8
#define OLK(name) ol8_##name
#define OL_KERNEL_CLONES OL_CLONES_V3
#include "student_kernels.h"
#undef OL_W
#undef OLK
#undef OL_KERNEL_CLONES
#define OL_W 16
#define OLK(name) ol16_##name
#define OL_KERNEL_CLONES OL_CLONES_V4
#include "student_kernels.h"
#undef OL_W
#undef OLK
#undef OL_KERNEL_CLONES

struct OlKernels {
    int width;
    void (*gemm)(const float *x, int n, int xs, int in, const float *w, int ws, int width,
                 const float *bias, float *y, int ys, int relu);
    void (*softmax)(float *s, int rows, int n, int np, float scale);
    void (*layer_norm)(const float *x, int n, int d, int dp, const OlNorm *N, float *y);
};

static const OlKernels ol_kernels8 = {8, ol8_gemm, ol8_softmax, ol8_layer_norm};
static const OlKernels ol_kernels16 = {16, ol16_gemm, ol16_softmax, ol16_layer_norm};

/* The kernels for this CPU: 16-float vectors where it has AVX-512 (x86-64-v4), else 8;
 * `width` 8 or 16 forces one (tests run both), 0 picks. */
static const OlKernels *ol_pick_kernels(int width) {
    if (width == 16) return &ol_kernels16;
    if (width == 8) return &ol_kernels8;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
    if (__builtin_cpu_supports("x86-64-v4")) return &ol_kernels16;
#endif
    return &ol_kernels8;
}

/* y[i] = x[i] W + b for n rows (x rows xs apart, y rows L->outp apart), ReLU after when
 * `relu`. */
static inline void ol_linear(const OlKernels *K, const float *x, int n, int xs, const OlLinear *L,
                             float *y, int relu) {
    K->gemm(x, n, xs, L->in, L->w, L->outp, L->outp, L->b, y, L->outp, relu);
}

/* Multi-head attention core: out[l] = softmax(q_h[l] . k_h * scale) v_h per head, for L
 * queries over S keys (all real: a position has no padding). q rows are qs floats apart,
 * k and v rows kvs, out rows dp; kt is scratch [hd][Sp], scores scratch [L][Sp]. Both
 * products are `gemm`s. */
static void ol_attend(const OlKernels *K, const float *q, int qs, int L, const float *k, const float *v,
                      int kvs, int S, int heads, int hd, int dp, float scale, float *kt, float *scores,
                      float *out) {
    const int Sp = (S + OL_V - 1) / OL_V * OL_V;
    for (int h = 0; h < heads; h++) {
        const int c0 = h * hd;
        for (int c = 0; c < hd; c++) {
            for (int s = 0; s < S; s++) kt[c * Sp + s] = k[(size_t)s * kvs + c0 + c];
            for (int s = S; s < Sp; s++) kt[c * Sp + s] = 0.0f;
        }
        K->gemm(q + c0, L, qs, hd, kt, Sp, Sp, NULL, scores, Sp, 0);
        K->softmax(scores, L, S, Sp, scale);
        if (hd % K->width == 0) {
            K->gemm(scores, L, Sp, S, v + c0, kvs, hd, NULL, out + c0, dp, 0);
        } else {
            for (int l = 0; l < L; l++)
                for (int c = 0; c < hd; c++) {
                    float acc = 0.0f;
                    for (int s = 0; s < S; s++) acc += scores[(size_t)l * Sp + s] * v[(size_t)s * kvs + c0 + c];
                    out[(size_t)l * dp + c0 + c] = acc;
                }
        }
    }
}

/* --- the model ------------------------------------------------------------------------ */

OL_INLINE void ol_add(float *x, const float *y, size_t n) { for (size_t i = 0; i < n; i++) x[i] += y[i]; }

/* Scratch of one position: T state tokens, A legal actions. */
#define OL_SCRATCH 11
typedef struct {
    float *x, *h, *q, *kv, *att, *ffh, *kt, *scores;      /* q: queries (and keys, values) */
    float *emb, *act, *small;
} OlScratch;

/* x + (x down[role]) up[role] in place, n rows; tmp holds [n][16*ceil(rank/16)]. */
OL_INLINE void ol_adapter(const OlKernels *K, float *x, int n, int dp, const OlLinear *down,
                          const OlLinear *up, float *tmp, float *tmp2) {
    ol_linear(K, x, n, dp, down, tmp, 0);
    ol_linear(K, tmp, n, down->outp, up, tmp2, 0);
    ol_add(x, tmp2, (size_t)n * dp);
}

/* One pre-LN block over L query rows x (in place) attending S memory rows. With kv NULL
 * it is self-attention over x's own layer-normed rows (the encoder), else cross attention
 * to the memory's precomputed keys and values, side by side in kv [S][2 dp] (the action
 * layer). */
OL_INLINE void ol_block(const OlModel *m, const OlBlock *B, float *x, int L, const float *kv,
                        int S, OlScratch *w) {
    const int dp = m->dp;
    const float *q = w->q, *k = kv, *v = kv + dp;
    int qs = dp, kvs = 2 * dp;
    m->k->layer_norm(x, L, m->d, dp, &B->ln_attn, w->h);
    if (!kv) {
        ol_linear(m->k, w->h, L, dp, &B->attn.qkv, w->q, 0);
        k = w->q + dp; v = w->q + 2 * dp; qs = kvs = 3 * dp; S = L;
    } else {
        ol_linear(m->k, w->h, L, dp, &B->attn.q, w->q, 0);
    }
    ol_attend(m->k, q, qs, L, k, v, kvs, S, m->heads, m->head_dim, dp, m->score_scale, w->kt, w->scores, w->att);
    ol_linear(m->k, w->att, L, dp, &B->attn.o, w->h, 0);
    ol_add(x, w->h, (size_t)L * dp);
    m->k->layer_norm(x, L, m->d, dp, &B->ln_ff, w->h);
    ol_linear(m->k, w->h, L, dp, &B->up, w->ffh, 1);
    ol_linear(m->k, w->ffh, L, m->ffp, &B->down, w->h, 0);
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
static void ol_scratch_sizes(const OlModel *m, int T, int A, size_t sizes[OL_SCRATCH]) {
    const int dp = m->dp, R = m->slots, H = m->holders, K = m->comps;
    const int S = T + (m->belief_mode ? 1 : 0);
    const int rows = (T > OL_BLOCK ? T : OL_BLOCK) + 1;
    const int wide = m->ffp > dp ? m->ffp : dp;
    const int seen_w = m->belief_mode == 2 ? R * K : R * H;
    size_t s[OL_SCRATCH] = {
        (size_t)S * dp, (size_t)rows * wide, (size_t)rows * 3 * dp, (size_t)S * 2 * dp,
        (size_t)rows * dp, (size_t)rows * wide, (size_t)m->head_dim * OL_ROUND(S),
        (size_t)rows * OL_ROUND(S), (size_t)(A > 0 ? A : 1) * dp, (size_t)rows * dp * 2,
        (size_t)5 * dp + (size_t)OL_ROUND(2 * m->d) + (size_t)R * (dp + OL_ROUND(K)) + (size_t)OL_ROUND(seen_w)};
    memcpy(sizes, s, sizeof s);
}

/* Floats of scratch `ol_forward` needs for a position with T tokens and A actions. */
static size_t ol_scratch_floats(const OlModel *m, int T, int A) {
    size_t sizes[OL_SCRATCH], total = 0;
    ol_scratch_sizes(m, T, A, sizes);
    for (int i = 0; i < OL_SCRATCH; i++) total += sizes[i];
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
    size_t sizes[OL_SCRATCH];
    ol_scratch_sizes(m, T, A, sizes);
    float **slots_[OL_SCRATCH] = {&w.x, &w.h, &w.q, &w.kv, &w.att, &w.ffh, &w.kt, &w.scores, &w.emb,
                                  &w.act, &w.small};
    float *p = arena;
    for (int i = 0; i < OL_SCRATCH; i++) { *slots_[i] = p; p += sizes[i]; }

    /* State encoder. */
    ol_linear(m->k, tokens, T, m->fs, &m->state_in, w.x, 0);
    const float *re = m->role_embedding + (size_t)role * dp;
    for (int t = 0; t < T; t++) ol_add(w.x + (size_t)t * dp, re, dp);
    for (int l = 0; l < m->layers; l++) ol_block(m, &m->encoder[l], w.x, T, NULL, T, &w);
    m->k->layer_norm(w.x, T, d, dp, &m->encoder_norm, w.x);
    if (m->use_adapters)
        ol_adapter(m->k, w.x, T, dp, &m->state_down[role], &m->state_up[role], w.h, w.q);

    float *summary = w.small, *hidden = summary + dp, *tmp = hidden + dp;
    float *joined = tmp + 3 * dp, *belief_h = joined + OL_ROUND(2 * d);
    float *belief_l = belief_h + (size_t)R * dp, *seen = belief_l + (size_t)R * Kp;
    if (m->belief_mode) {
        ol_mean_rows(w.x, T, dp, summary);
        ol_linear(m->k, summary, 1, dp, &m->belief_hidden, hidden, 0);
        for (int r = 0; r < R; r++)
            for (int j = 0; j < dp; j++) {
                float s = hidden[j] + m->slot_embedding[(size_t)r * dp + j];
                belief_h[(size_t)r * dp + j] = s > 0.0f ? s : 0.0f;
            }
        ol_linear(m->k, belief_h, R, dp, &m->belief_out, belief_l, 0);
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
            m->k->softmax(lr, 1, K, Kp, 1.0f);
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
        ol_linear(m->k, seen, 1, seen_w, &m->belief_in, w.x + (size_t)T * dp, 0);
    }
    /* Value head over the memory (state tokens and the belief token). */
    ol_mean_rows(w.x, S, dp, summary);
    ol_linear(m->k, summary, 1, dp, &m->value_hidden, hidden, 1);
    ol_linear(m->k, hidden, 1, dp, &m->value_out, tmp, 0);
    *value = tanhf(tmp[0]);

    /* Keys and values of the memory, shared by every action's query. */
    ol_linear(m->k, w.x, S, dp, &m->action.attn.kv, w.kv, 0);

    /* Pass 1: each action's embedding, and the Deep Sets pool of the legal set. */
    float *pool_sum = summary, *pool_max = hidden;
    for (int j = 0; j < dp; j++) { pool_sum[j] = 0.0f; pool_max[j] = -INFINITY; }
    for (int a0 = 0; a0 < A; a0 += OL_BLOCK) {
        const int n = A - a0 < OL_BLOCK ? A - a0 : OL_BLOCK;
        float *e = w.emb + (size_t)a0 * dp;
        ol_linear(m->k, actions + (size_t)a0 * m->fa, n, m->fa, &m->action_in, e, 0);
        ol_block(m, &m->action, e, n, w.kv, S, &w);
        if (m->use_deep_sets) {
            ol_linear(m->k, e, n, dp, &m->set_phi, w.act, 1);
            for (int i = 0; i < n; i++) {
                const float *hi = w.act + (size_t)i * dp;
                for (int j = 0; j < dp; j++) {
                    pool_sum[j] += hi[j];
                    pool_max[j] = hi[j] > pool_max[j] ? hi[j] : pool_max[j];
                }
            }
        }
    }
    /* Pass 2: score each action with the role adapter and the pooled set summary. The
     * hidden unit relu(h + c), h = score_hidden(action), c = W_hidden rho common to the
     * moves, is computed as relu(h + c) - relu(c) (the MLX student's centred `score`): the
     * same softmax and argmax without the decision's common part or score_out's bias,
     * which a drifted student's large summary would otherwise make swamp the moves'
     * differences in float32. */
    float *rho = tmp, *common = tmp + dp;
    if (m->use_deep_sets) {
        float count = A > 1 ? (float)A : 1.0f;
        for (int j = 0; j < d; j++) { joined[j] = pool_sum[j] / count; joined[d + j] = pool_max[j]; }
        ol_linear(m->k, joined, 1, 2 * d, &m->set_rho, rho, 0);
        OlLinear bare = m->score_hidden;
        bare.b = NULL;
        ol_linear(m->k, rho, 1, dp, &bare, common, 0);
    }
    const int hp = m->score_hidden.outp;
    OlLinear score_out = m->score_out;   /* its bias is common to the moves: left out */
    score_out.b = NULL;
    for (int a0 = 0; a0 < A; a0 += OL_BLOCK) {
        const int n = A - a0 < OL_BLOCK ? A - a0 : OL_BLOCK;
        float *x = w.act;
        memcpy(x, w.emb + (size_t)a0 * dp, sizeof(float) * (size_t)n * dp);
        if (m->use_adapters)
            ol_adapter(m->k, x, n, dp, &m->action_down[role], &m->action_up[role], w.h, w.q);
        ol_linear(m->k, x, n, dp, &m->score_hidden, w.h, !m->use_deep_sets);
        if (m->use_deep_sets)
            for (int i = 0; i < n; i++) {
                float *h = w.h + (size_t)i * hp;
                for (int j = 0; j < hp; j++) {
                    const float c = common[j], v = h[j];
                    h[j] = c > 0.0f ? (v > -c ? v : -c) : (v + c > 0.0f ? v + c : 0.0f);
                }
            }
        ol_linear(m->k, w.h, n, hp, &score_out, w.q, 0);
        for (int i = 0; i < n; i++) logits[a0 + i] = w.q[(size_t)i * m->score_out.outp];
    }
}

#endif
