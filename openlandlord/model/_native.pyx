# cython: language_level=3
# distutils: depends = csrc/student_forward.h csrc/student_kernels.h
"""The student's forward pass in C (csrc/student_forward.h), behind two calls: `forward`
for one featurized position and `forward_ragged` for many positions concatenated (state
tokens and legal actions back to back, with offsets), which loops over them in C without
the GIL. `Model` holds the packed weights that openlandlord/model/native.py prepares and
never reads a weight it was not given a whole array for."""
import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free

cdef extern from "stdlib.h" nogil:
    int posix_memalign(void **memptr, size_t alignment, size_t size)

cnp.import_array()


cdef extern from "csrc/student_forward.h" nogil:
    int OL_MAX_LAYERS
    int OL_MAX_ROLES

    ctypedef struct OlLinear:
        const float *w
        const float *b
        int in_ "in"
        int out
        int outp

    ctypedef struct OlNorm:
        const float *g
        const float *b

    ctypedef struct OlAttention:
        OlLinear q, qkv, kv, o

    ctypedef struct OlBlock:
        OlNorm ln_attn
        OlAttention attn
        OlNorm ln_ff
        OlLinear up, down

    ctypedef struct OlKernels:
        int width
        void (*gemm)(const float*, int, int, int, const float*, int, int, const float*, float*,
                     int, int) noexcept nogil

    const OlKernels *ol_pick_kernels(int width)

    ctypedef struct OlModel:
        const OlKernels *k
        int d, dp, heads, head_dim, layers, roles, rank
        float score_scale
        int slots, holders, comps, max_count
        int belief_mode
        int use_adapters, use_deep_sets
        int ffp, fs, fa
        OlLinear state_in
        const float *role_embedding
        OlBlock encoder[16]
        OlNorm encoder_norm
        OlLinear state_down[8]
        OlLinear state_up[8]
        OlLinear action_down[8]
        OlLinear action_up[8]
        const float *slot_embedding
        const float *compositions
        OlLinear belief_hidden, belief_out, belief_in
        OlLinear value_hidden, value_out
        OlLinear action_in
        OlBlock action
        OlLinear set_phi, set_rho, score_hidden, score_out

    size_t ol_scratch_floats(const OlModel *m, int T, int A)
    void ol_forward(const OlModel *m, const float *tokens, int T, const float *actions, int A,
                    int role, const int32_t *unseen, const int32_t *capacity, const float *void_,
                    float *logits, float *value, float *belief_logits, float *belief_expect,
                    float *arena)


BELIEF_MODES = {"off": 0, "expect": 1, "full": 2}


cdef class Model:
    """Packed weights (see openlandlord/model/native.py) and the C forward pass over them."""
    cdef OlModel m
    cdef list keep
    cdef readonly int slots, holders, comps, state_feat_dim, action_feat_dim, num_roles, vector_width

    def __init__(self, dict sizes, dict packed, int vector_width=0):
        cdef int i, r
        if vector_width not in (0, 8, 16):
            raise ValueError(f"vector_width must be 0 (by the CPU), 8 or 16, got {vector_width}")
        self.keep = []
        m = &self.m
        m.k = ol_pick_kernels(vector_width)
        self.vector_width = m.k.width
        m.d, m.dp, m.heads, m.layers = sizes["d"], sizes["dp"], sizes["heads"], sizes["layers"]
        m.head_dim = m.d // m.heads
        m.score_scale = sizes["score_scale"]
        m.roles, m.rank = sizes["roles"], sizes["rank"]
        m.slots, m.holders, m.comps = sizes["slots"], sizes["holders"], sizes["comps"]
        m.max_count = sizes["max_count"]
        m.belief_mode = BELIEF_MODES[sizes["belief_mode"]]
        m.use_adapters, m.use_deep_sets = sizes["use_adapters"], sizes["use_deep_sets"]
        m.ffp, m.fs, m.fa = sizes["ffp"], sizes["fs"], sizes["fa"]
        if m.layers > OL_MAX_LAYERS or m.roles > OL_MAX_ROLES:
            raise ValueError(f"the native forward pass takes at most {OL_MAX_LAYERS} layers and "
                             f"{OL_MAX_ROLES} roles, this student has {m.layers} and {m.roles}")
        self.slots, self.holders, self.comps = m.slots, m.holders, m.comps
        self.state_feat_dim, self.action_feat_dim, self.num_roles = m.fs, m.fa, m.roles
        m.state_in = self._linear(packed, "state_in")
        m.role_embedding = self._array(packed["role_embedding"])
        for i in range(m.layers):
            m.encoder[i] = self._block(packed, f"encoder_layers.{i}", "ln_attn", "attn")
        m.encoder_norm = self._norm(packed, "encoder_norm")
        if m.use_adapters:
            for r in range(m.roles):
                m.state_down[r] = self._linear(packed, f"state_adapter.down.{r}")
                m.state_up[r] = self._linear(packed, f"state_adapter.up.{r}")
                m.action_down[r] = self._linear(packed, f"action_adapter.down.{r}")
                m.action_up[r] = self._linear(packed, f"action_adapter.up.{r}")
        if m.belief_mode:
            m.slot_embedding = self._array(packed["belief.slot_embedding"])
            m.compositions = self._array(packed["compositions"])
            m.belief_hidden = self._linear(packed, "belief.hidden")
            m.belief_out = self._linear(packed, "belief.out")
            m.belief_in = self._linear(packed, "belief_in")
        m.value_hidden = self._linear(packed, "value_hidden")
        m.value_out = self._linear(packed, "value_out")
        m.action_in = self._linear(packed, "action_in")
        m.action = self._block(packed, "action_layer", "ln_query", "cross_attn")
        if m.use_deep_sets:
            m.set_phi = self._linear(packed, "set_phi")
            m.set_rho = self._linear(packed, "set_rho")
        m.score_hidden = self._linear(packed, "score_hidden")
        m.score_out = self._linear(packed, "score_out")

    cdef const float* _array(self, a) except NULL:
        # 64-byte aligned: a vector load that straddles two cache lines is slower, and numpy
        # only promises 16 bytes (runs differed by 40 % with where the arrays happened to lie).
        a = np.ascontiguousarray(a, dtype=np.float32).ravel()
        cdef cnp.ndarray raw = np.empty(a.size + 16, np.float32)
        cdef Py_ssize_t skip = ((-(<size_t>cnp.PyArray_DATA(raw))) % 64) // 4
        cdef cnp.ndarray arr = raw[skip:skip + a.size]
        arr[:] = a
        self.keep.append(arr)
        return <const float*>cnp.PyArray_DATA(arr)

    cdef OlLinear _linear(self, dict packed, str name) except *:
        cdef OlLinear lin
        w, b, fan_in, fan_out = packed[name]
        lin.w = self._array(w)
        lin.b = self._array(b) if b is not None else NULL
        lin.in_, lin.out, lin.outp = fan_in, fan_out, w.shape[1]
        return lin

    cdef OlNorm _norm(self, dict packed, str name) except *:
        cdef OlNorm norm
        norm.g = self._array(packed[f"{name}.weight"])
        norm.b = self._array(packed[f"{name}.bias"])
        return norm

    cdef OlBlock _block(self, dict packed, str name, str ln, str attn) except *:
        cdef OlBlock block
        block.ln_attn = self._norm(packed, f"{name}.{ln}")
        block.attn.q = self._linear(packed, f"{name}.{attn}.q_proj")
        block.attn.qkv = self._linear(packed, f"{name}.{attn}.qkv")
        block.attn.kv = self._linear(packed, f"{name}.{attn}.kv")
        block.attn.o = self._linear(packed, f"{name}.{attn}.out_proj")
        block.ln_ff = self._norm(packed, f"{name}.ln_ff")
        block.up = self._linear(packed, f"{name}.ff.up")
        block.down = self._linear(packed, f"{name}.ff.down")
        return block

    def forward(self, const float[:, ::1] state_tokens, const float[:, ::1] actions, int role,
                const int32_t[::1] unseen, const int32_t[::1] capacity, const float[:, ::1] void_):
        """-> (logits [A], value, belief_logits [R, K], belief_expect [R, H]) of one position
        (the belief arrays are None without a belief head)."""
        self._check(state_tokens.shape[0], state_tokens.shape[1], actions.shape[0], actions.shape[1], role,
                    unseen.shape[0], capacity.shape[0], void_.shape[0], void_.shape[1])
        cdef int T = state_tokens.shape[0], A = actions.shape[0]
        cdef cnp.ndarray[cnp.float32_t, ndim=1] logits = np.empty(A, np.float32)
        cdef float value = 0
        cdef float *bl = NULL
        cdef float *be = NULL
        belief_logits = belief_expect = None
        if self.m.belief_mode:
            belief_logits = np.empty((self.slots, self.comps), np.float32)
            belief_expect = np.empty((self.slots, self.holders), np.float32)
            bl = <float*>cnp.PyArray_DATA(belief_logits)
            be = <float*>cnp.PyArray_DATA(belief_expect)
        cdef float *arena = NULL
        if posix_memalign(<void**>&arena, 64, ol_scratch_floats(&self.m, T, A) * sizeof(float)):
            raise MemoryError("the native forward pass could not allocate its scratch buffers")
        with nogil:
            ol_forward(&self.m, &state_tokens[0, 0], T, &actions[0, 0], A, role, &unseen[0],
                       &capacity[0], &void_[0, 0], <float*>cnp.PyArray_DATA(logits), &value, bl, be, arena)
        free(arena)
        return logits, value, belief_logits, belief_expect

    def forward_ragged(self, const float[:, ::1] state_tokens, const int64_t[::1] token_offsets,
                       const float[:, ::1] actions, const int64_t[::1] action_offsets,
                       const int32_t[::1] role, const int32_t[:, ::1] unseen,
                       const int32_t[:, ::1] capacity, const float[:, :, ::1] void_):
        """Many positions in one call: position b has the state tokens
        token_offsets[b]:token_offsets[b+1] and the actions action_offsets[b]:action_offsets[b+1].
        -> (logits [sum A] in the same layout, value [B], belief_logits [B, R, K],
        belief_expect [B, R, H]); the positions run in C one after another, without the GIL."""
        cdef Py_ssize_t B = role.shape[0], b
        cdef size_t need = 0
        if B == 0:
            raise ValueError("forward_ragged needs at least one position")
        if token_offsets.shape[0] != B + 1 or action_offsets.shape[0] != B + 1:
            raise ValueError("token_offsets and action_offsets need one entry more than there are positions")
        if unseen.shape[0] != B or capacity.shape[0] != B or void_.shape[0] != B:
            raise ValueError("role, unseen, capacity and void need one row per position")
        for b in range(B):
            self._check(token_offsets[b + 1] - token_offsets[b], state_tokens.shape[1],
                        action_offsets[b + 1] - action_offsets[b], actions.shape[1], role[b],
                        unseen.shape[1], capacity.shape[1], void_.shape[1], void_.shape[2])
            need = max(need, ol_scratch_floats(&self.m, token_offsets[b + 1] - token_offsets[b],
                                               action_offsets[b + 1] - action_offsets[b]))
        if token_offsets[0] != 0 or action_offsets[0] != 0 or token_offsets[B] != state_tokens.shape[0] \
                or action_offsets[B] != actions.shape[0]:
            raise ValueError("the offsets must start at 0 and end at the number of rows")
        cdef cnp.ndarray[cnp.float32_t, ndim=1] logits = np.empty(actions.shape[0], np.float32)
        cdef cnp.ndarray[cnp.float32_t, ndim=1] value = np.empty(B, np.float32)
        cdef int R = self.slots, K = self.comps, H = self.holders
        cdef float *lp = <float*>cnp.PyArray_DATA(logits)
        cdef float *vp = <float*>cnp.PyArray_DATA(value)
        cdef float *bl = NULL
        cdef float *be = NULL
        belief_logits = belief_expect = None
        if self.m.belief_mode:
            belief_logits = np.empty((B, R, K), np.float32)
            belief_expect = np.empty((B, R, H), np.float32)
            bl = <float*>cnp.PyArray_DATA(belief_logits)
            be = <float*>cnp.PyArray_DATA(belief_expect)
        cdef const float *tokens = &state_tokens[0, 0]
        cdef const float *acts = &actions[0, 0]
        cdef int fs = state_tokens.shape[1], fa = actions.shape[1]
        cdef float *arena = NULL
        if posix_memalign(<void**>&arena, 64, need * sizeof(float)):
            raise MemoryError("the native forward pass could not allocate its scratch buffers")
        with nogil:
            for b in range(B):
                ol_forward(&self.m, tokens + token_offsets[b] * fs,
                           <int>(token_offsets[b + 1] - token_offsets[b]),
                           acts + action_offsets[b] * fa,
                           <int>(action_offsets[b + 1] - action_offsets[b]), role[b],
                           &unseen[b, 0], &capacity[b, 0], &void_[b, 0, 0], lp + action_offsets[b],
                           vp + b, bl + b * R * K if bl else NULL, be + b * R * H if be else NULL,
                           arena)
        free(arena)
        return logits, value, belief_logits, belief_expect

    cdef int _check(self, Py_ssize_t tokens, Py_ssize_t fs, Py_ssize_t legal, Py_ssize_t fa, int role,
                    Py_ssize_t slots, Py_ssize_t holders, Py_ssize_t void_holders,
                    Py_ssize_t void_slots) except -1:
        # Every index the C code follows is checked here, so a bad input is an error, not a
        # read past a buffer.
        if tokens < 1 or fs != self.state_feat_dim:
            raise ValueError(f"state_tokens must be [T >= 1, {self.state_feat_dim}], got [{tokens}, {fs}]")
        if legal < 1 or fa != self.action_feat_dim:
            raise ValueError(f"actions must be [A >= 1, {self.action_feat_dim}], got [{legal}, {fa}]")
        if not 0 <= role < self.num_roles:
            raise ValueError(f"role {role} is outside 0..{self.num_roles - 1}")
        if slots != self.slots or holders != self.holders or void_holders != self.holders \
                or void_slots != self.slots:
            raise ValueError(f"unseen [{self.slots}], capacity [{self.holders}] and void "
                             f"[{self.holders}, {self.slots}] do not fit: got [{slots}], [{holders}], "
                             f"[{void_holders}, {void_slots}]")
        return 0


from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef double _now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + 1e-9 * t.tv_nsec


def gemm_rate(int rows, int inner, int width, double seconds=0.2, int vector_width=0):
    """GFLOP/s of the forward pass's own product kernel on one thread, y [rows][width] =
    x [rows][inner] W [inner][width], operands 64-byte aligned and in cache, repeated for
    `seconds`: the ceiling the forward pass's products run against (`bench latency`'s
    roofline). `width` is rounded up to the kernel's vector width as the packed weights are."""
    if rows < 1 or inner < 1 or width < 1 or seconds <= 0:
        raise ValueError("gemm_rate needs positive rows, inner, width and seconds")
    if vector_width not in (0, 8, 16):
        raise ValueError(f"vector_width must be 0 (by the CPU), 8 or 16, got {vector_width}")
    cdef const OlKernels *K = ol_pick_kernels(vector_width)
    cdef int wp = (width + K.width - 1) // K.width * K.width
    cdef float *x = NULL
    cdef float *w = NULL
    cdef float *y = NULL
    cdef long calls = 0, batch = 64, i
    cdef double start, elapsed = 0
    if posix_memalign(<void**>&x, 64, <size_t>rows * inner * sizeof(float)) \
            or posix_memalign(<void**>&w, 64, <size_t>inner * wp * sizeof(float)) \
            or posix_memalign(<void**>&y, 64, <size_t>rows * wp * sizeof(float)):
        free(x); free(w); free(y)
        raise MemoryError("gemm_rate could not allocate its operands")
    try:
        for i in range(<long>rows * inner):
            x[i] = 0.001 * (i % 97)
        for i in range(<long>inner * wp):
            w[i] = 0.001 * (i % 89)
        with nogil:
            for i in range(batch):          # warm the caches and the clock
                K.gemm(x, rows, inner, inner, w, wp, wp, NULL, y, wp, 0)
            start = _now()
            while elapsed < seconds:
                for i in range(batch):
                    K.gemm(x, rows, inner, inner, w, wp, wp, NULL, y, wp, 0)
                calls += batch
                elapsed = _now() - start
        return 2.0 * rows * inner * width * calls / elapsed / 1e9
    finally:
        free(x); free(w); free(y)
