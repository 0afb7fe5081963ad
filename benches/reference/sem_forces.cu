// Hand-written CUDA reference for the epidermis force pass: ONE binned force evaluation of the
// subcellular element model and its stage update, the work of shaders/epidermis/forces.wgsl.
// Same force law as the model (docs/models/epidermis.md, crates/model/src/epidermis/cpu.rs):
//   F_i = sum_{j same cell, j != i} f_intra(r) d/r                     (all pairs of the cell)
//       + sum_{j other cell, r < cutoff, V_inter(r) > 0} f_inter(r) d/r  (27 neighbouring bins)
//       + [type_i == ADHESIVE] f_membrane(z_i) e_z
//   f(r) = U0/xi1 e^(-r/xi1) - W0/xi2 e^(-r/xi2), d = x_i - x_j with the minimum image in x, y;
//   a pair at r == 0 adds nothing. Stage update: x + dt F, x and y wrapped into the box, z >= 0.
// Same layout: element slots c*40 + k (cell c, k < counts[c]) for the intracellular loop; the
// active elements' positions sorted by bin (w = the slot's bits) with CSR bin offsets for the
// intercellular loop; one thread per sorted element writes its slot of the output.
//
// The test tissue is built here, deterministically, exactly as `petri bench epidermis` builds
// it (crates/model/src/epidermis/bench.rs, `bench_tissue`): cells on a square lattice of
// `spacing`, each with `elements` points drawn uniformly in a ball of `radius` around
// (centre x, centre y, radius) by a 32-bit integer hash (rejection sampling: only exact float
// operations, so both builds get the same bits), its `adhesive` lowest points ADHESIVE.
// `--tissue FILE` takes instead a state that `petri bench epidermis --cuda-reference` wrote
// after its timed steps, so that both time the same (relaxed) tissue. Binning and sorting are
// done on the host; only the force kernel is timed (CUDA events around each launch, after
// warm-up launches; the median of the repeats at the fastest block size).
//
// Output: one JSON line of parameters, then one JSON line per size: elements, ms per force
// evaluation, and checksums of the forces (sum |F| and sum F in double over elements in slot
// order) that `petri bench epidermis` prints for the same tissue from the WGSL kernel and the
// CPU reference; plus the largest error of sampled elements against a host evaluation in
// double.
//
// Build and run (on the H100/H200 machine):
//   nvcc -O3 -arch=sm_90 sem_forces.cu -o sem_forces && ./sem_forces
//   ./sem_forces --help   (sizes, Morse values, cutoff, geometry: defaults from assets/epidermis.json)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

// Slots per cell (state.rs MAX_ELEMENTS) and the adhesive type value (state.rs ADHESIVE).
constexpr unsigned MAX_ELEMENTS = 40;
constexpr float ADHESIVE = 1.0f;
constexpr float PLAIN = 0.0f;

// One Morse term as the kernel uses it: force f(r) = a e^(-r k1) - b e^(-r k2).
struct Morse {
    float a, k1, b, k2;
};

struct Params {
    Morse intra, inter, membrane;
    float inter_r2;  // square of the intercellular range: min(cutoff, root of V_inter)
    float dt;        // the stage's step: x + dt F
    float lx, ly;    // periodic box in x and y
    float inv_lx, inv_ly;
    float inv_bin[3];  // 1 / bin size per axis (rounded to f32 on the host, as Binning does)
    int dims[3];       // bins per axis (x, y periodic; z clamped)
};

// The model's values (Morse U0, xi1, W0, xi2 per term; the intercellular cutoff; geometry):
// defaults of assets/epidermis.json (lattice spacing = box.lx / initial.cells_x).
struct Config {
    // In double, as the config; rounded to f32 where the model rounds them (EpiUniforms).
    double intra[4] = {0.25, 0.12, 0.1, 0.36};
    double inter[4] = {0.5, 0.12, 0.1, 0.36};
    double cutoff = 0.2897;
    double membrane[4] = {0.25, 0.12, 0.1, 0.36};
    double dt = 0.005;
    double spacing = 1.0;  // lattice spacing of cell centres (box = cells_x * spacing, ...)
    double radius = 0.5;   // ball radius of a cell's elements
    double height = 8.0;   // box height for binning (z clamped)
    double bin = 0.0;      // bin size (0: the intercellular range times BIN_MARGIN, as the model)
    unsigned elements = 20;
    unsigned adhesive = 5;
    uint32_t seed = 42;
    std::vector<double> sizes = {1e4, 1e5, 1e6, 1e7};
    std::string tissue;  // a state written by `petri bench epidermis` (replaces the built tissue)
    std::vector<int> blocks = {64, 128, 256, 512};
    int warmup = 20;
    int repeats = 50;
};

__host__ __device__ inline float morse_f(float r, const Morse& m) {
    return m.a * expf(-r * m.k1) - m.b * expf(-r * m.k2);
}

// Minimum image of a difference along a periodic axis of length l (cpu.rs min_image).
__host__ __device__ inline float min_image(float d, float l, float inv_l) { return d - l * floorf(d * inv_l + 0.5f); }

// x wrapped into [0, l) (cpu.rs wrap).
__host__ __device__ inline float wrap(float x, float l, float inv_l) {
    float w = x - l * floorf(x * inv_l);
    w = w < 0.0f ? w + l : w;
    return w >= l ? 0.0f : w;
}

__host__ __device__ inline int bin_coord(float x, float inv, int dim, bool periodic) {
    float f = floorf(x * inv);
    f = fminf(fmaxf(f, -1073741824.0f), 1073741824.0f);
    int i = (int)f;
    if (periodic) {
        i %= dim;
        return i < 0 ? i + dim : i;
    }
    return i < 0 ? 0 : (i >= dim ? dim - 1 : i);
}

// Adds the intercellular forces from sorted elements [begin, end) to f.
__device__ inline void inter_range(const float4* __restrict__ sorted, unsigned begin, unsigned end, float4 e,
                                   unsigned cell, const Params& p, float3& f) {
    for (unsigned j = begin; j < end; ++j) {
        float4 q = sorted[j];
        if (__float_as_uint(q.w) / MAX_ELEMENTS == cell) continue;
        float dx = min_image(e.x - q.x, p.lx, p.inv_lx), dy = min_image(e.y - q.y, p.ly, p.inv_ly), dz = e.z - q.z;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < p.inter_r2 && r2 > 0.0f) {
            float r = sqrtf(r2);
            float s = morse_f(r, p.inter) / r;
            f.x += s * dx;
            f.y += s * dy;
            f.z += s * dz;
        }
    }
}

// One force evaluation and stage update: thread i takes sorted element i and writes its slot
// of `out` (and of `force`, when given, for the checksum).
__global__ void sem_forces(const float4* __restrict__ pos, const unsigned* __restrict__ counts,
                           const float4* __restrict__ sorted, const unsigned* __restrict__ bin_start, unsigned n,
                           Params p, float4* __restrict__ out, float4* __restrict__ force) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 e = sorted[i];
    unsigned slot = __float_as_uint(e.w);
    unsigned cell = slot / MAX_ELEMENTS;
    float type = pos[slot].w;
    float3 f = make_float3(0.0f, 0.0f, 0.0f);

    // Intracellular: all pairs of the cell.
    unsigned first = cell * MAX_ELEMENTS, count = counts[cell];
    for (unsigned k = 0; k < count; ++k) {
        unsigned s = first + k;
        if (s == slot) continue;
        float4 q = pos[s];
        float dx = min_image(e.x - q.x, p.lx, p.inv_lx), dy = min_image(e.y - q.y, p.ly, p.inv_ly), dz = e.z - q.z;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 > 0.0f) {
            float r = sqrtf(r2);
            float c = morse_f(r, p.intra) / r;
            f.x += c * dx;
            f.y += c * dy;
            f.z += c * dz;
        }
    }

    // Intercellular: the 27 neighbouring bins, in the CPU reference's order; the three x bins of
    // a row are one contiguous range of the sorted elements, two where the row wraps.
    int bx = bin_coord(e.x, p.inv_bin[0], p.dims[0], true);
    int by = bin_coord(e.y, p.inv_bin[1], p.dims[1], true);
    int bz = bin_coord(e.z, p.inv_bin[2], p.dims[2], false);
    for (int oz = -1; oz <= 1; ++oz) {
        int z = bz + oz;
        if (z < 0 || z >= p.dims[2]) continue;
        for (int oy = -1; oy <= 1; ++oy) {
            int y = by + oy;
            y = y < 0 ? y + p.dims[1] : (y >= p.dims[1] ? y - p.dims[1] : y);
            unsigned row = (unsigned)p.dims[0] * ((unsigned)y + (unsigned)p.dims[1] * (unsigned)z);
            unsigned last = (unsigned)p.dims[0] - 1;
            if (bx == 0) {  // x = last, 0, 1
                inter_range(sorted, bin_start[row + last], bin_start[row + last + 1], e, cell, p, f);
                inter_range(sorted, bin_start[row], bin_start[row + 2], e, cell, p, f);
            } else if ((unsigned)bx == last) {  // x = last - 1, last, 0
                inter_range(sorted, bin_start[row + last - 1], bin_start[row + last + 1], e, cell, p, f);
                inter_range(sorted, bin_start[row], bin_start[row + 1], e, cell, p, f);
            } else {
                inter_range(sorted, bin_start[row + bx - 1], bin_start[row + bx + 2], e, cell, p, f);
            }
        }
    }

    // Basement membrane at z = 0 (z >= 0 after every stage).
    if (type == ADHESIVE) f.z += morse_f(e.z, p.membrane);

    out[slot] = make_float4(wrap(e.x + p.dt * f.x, p.lx, p.inv_lx), wrap(e.y + p.dt * f.y, p.ly, p.inv_ly),
                            fmaxf(e.z + p.dt * f.z, 0.0f), type);
    if (force) force[slot] = make_float4(f.x, f.y, f.z, 0.0f);
}

// ---- the test tissue (same bits as bench_tissue in crates/model/src/epidermis/bench.rs) ----

// Chris Wellons' lowbias32 integer hash.
static uint32_t hash32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Uniform in [0, 1) with 24 bits, exact in f32, from (seed, slot, draw).
static float uniform01(uint32_t seed, uint32_t slot, uint32_t draw) {
    uint32_t h = hash32(hash32(hash32(slot) ^ seed) + draw);
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

struct Tissue {
    unsigned cells_x, cells_y, cells;
    double lx, ly;
    std::vector<float4> pos;      // cells * MAX_ELEMENTS slots
    std::vector<unsigned> counts;  // per cell
};

static Tissue make_tissue(const Config& cfg, unsigned cells_x, unsigned cells_y) {
    Tissue t;
    t.cells_x = cells_x;
    t.cells_y = cells_y;
    t.cells = cells_x * cells_y;
    t.lx = cells_x * cfg.spacing;
    t.ly = cells_y * cfg.spacing;
    t.pos.assign((size_t)t.cells * MAX_ELEMENTS, make_float4(0, 0, 0, 0));
    t.counts.assign(t.cells, cfg.elements);
    std::vector<unsigned> order(cfg.elements);
    for (unsigned c = 0; c < t.cells; ++c) {
        float spacing = (float)cfg.spacing, radius = (float)cfg.radius;
        float cx = ((float)(c % cells_x) + 0.5f) * spacing;
        float cy = ((float)(c / cells_x) + 0.5f) * spacing;
        float cz = radius;
        for (unsigned k = 0; k < cfg.elements; ++k) {
            uint32_t slot = c * MAX_ELEMENTS + k;
            float u[3];
            for (uint32_t draw = 0;; draw += 3) {
                for (int a = 0; a < 3; ++a) u[a] = 2.0f * uniform01(cfg.seed, slot, draw + a) - 1.0f;
                if (u[0] * u[0] + u[1] * u[1] + u[2] * u[2] <= 1.0f) break;
            }
            t.pos[slot] = make_float4(cx + radius * u[0], cy + radius * u[1], cz + radius * u[2], PLAIN);
        }
        // The `adhesive` lowest elements (ties by slot) adhere to the membrane.
        for (unsigned k = 0; k < cfg.elements; ++k) order[k] = k;
        const float4* p = &t.pos[(size_t)c * MAX_ELEMENTS];
        std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return p[a].z < p[b].z; });
        for (unsigned k = 0; k < cfg.adhesive && k < cfg.elements; ++k) t.pos[(size_t)c * MAX_ELEMENTS + order[k]].w = ADHESIVE;
    }
    return t;
}

static Morse morse(const double v[4]) {
    return Morse{(float)(v[0] / v[1]), (float)(1.0 / v[1]), (float)(v[2] / v[3]), (float)(1.0 / v[3])};
}

// A state written by `petri bench epidermis` (bench.rs `write_tissue`), little-endian:
// u32 magic "EPIT", u32 version 1, u32 cells, u32 0, f64 lx, f64 ly, u32 counts[cells],
// f32 x 4 pos[cells * 40] (x, y, z, type per slot).
static Tissue read_tissue(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "--tissue %s: cannot open\n", path);
        exit(2);
    }
    uint32_t head[4];
    double box[2];
    Tissue t;
    bool ok = fread(head, 4, 4, f) == 4 && head[0] == 0x54495045u && head[1] == 1 && head[2] > 0 &&
              fread(box, 8, 2, f) == 2 && box[0] > 0 && box[1] > 0;
    if (ok) {
        t.cells = head[2];
        t.cells_x = t.cells;
        t.cells_y = 1;
        t.lx = box[0];
        t.ly = box[1];
        t.counts.resize(t.cells);
        t.pos.resize((size_t)t.cells * MAX_ELEMENTS);
        ok = fread(t.counts.data(), 4, t.cells, f) == t.cells &&
             fread(t.pos.data(), 16, t.pos.size(), f) == t.pos.size();
        for (unsigned n : t.counts) ok = ok && n <= MAX_ELEMENTS;
    }
    fclose(f);
    if (!ok) {
        fprintf(stderr, "--tissue %s: not an epidermis bench state (EPIT version 1) or cut short\n", path);
        exit(2);
    }
    return t;
}

// The intercellular range (InterMorse::range): min(cutoff, the zero crossing of V_inter), V > 0
// below the crossing; no crossing (V > 0 everywhere) without attraction or when the attraction
// is the shorter-ranged term. Needs U0 > W0 (cells repel at contact).
static bool inter_range_of(const Config& cfg, double* range) {
    double u0 = cfg.inter[0], xi1 = cfg.inter[1], w0 = cfg.inter[2], xi2 = cfg.inter[3];
    if (!(u0 > w0)) return false;
    double k = 1.0 / xi1 - 1.0 / xi2;
    double crossing = (w0 == 0.0 || k <= 0.0) ? INFINITY : std::log(u0 / w0) / k;
    *range = std::min(cfg.cutoff, crossing);
    return true;
}

// The neighbour grid as the model builds it (EpidermisConfig::mechanics_grid): bins `bin` wide
// (default: the intercellular range times BIN_MARGIN), a whole number per period in x and y,
// ceil(height / bin) layers in z from 0 (clamped); 1 / bin size rounded to f32 as Binning does.
constexpr double BIN_MARGIN = 1.001;
// Most bins the model's config allows (params.rs MAX_BINS).
constexpr double MAX_BINS = 67108864.0;

static Params make_params(const Config& cfg, const Tissue& t, double range) {
    Params p;
    p.intra = morse(cfg.intra);
    p.inter = morse(cfg.inter);
    p.membrane = morse(cfg.membrane);
    p.inter_r2 = (float)(range * range);
    p.dt = (float)cfg.dt;
    p.lx = (float)t.lx;
    p.ly = (float)t.ly;
    p.inv_lx = (float)(1.0 / t.lx);
    p.inv_ly = (float)(1.0 / t.ly);
    double h = cfg.bin > 0 ? cfg.bin : range * BIN_MARGIN;
    double len[2] = {t.lx, t.ly};
    for (int a = 0; a < 2; ++a) {
        p.dims[a] = (int)std::max(1.0, std::floor(len[a] / h));
        p.inv_bin[a] = 1.0f / (float)(len[a] / p.dims[a]);
    }
    p.dims[2] = (int)std::max(1.0, std::ceil(cfg.height / h));
    p.inv_bin[2] = 1.0f / (float)h;
    return p;
}

// The active elements sorted by bin (stable: ties in slot order), w = the slot's bits, and the
// CSR bin offsets (bins + 1).
static void bin_tissue(const Tissue& t, const Params& p, std::vector<float4>& sorted, std::vector<unsigned>& start) {
    size_t bins = (size_t)p.dims[0] * p.dims[1] * p.dims[2];
    std::vector<unsigned> slots, bin;
    for (unsigned c = 0; c < t.cells; ++c)
        for (unsigned k = 0; k < t.counts[c]; ++k) {
            unsigned s = c * MAX_ELEMENTS + k;
            const float4& q = t.pos[s];
            int bx = bin_coord(q.x, p.inv_bin[0], p.dims[0], true);
            int by = bin_coord(q.y, p.inv_bin[1], p.dims[1], true);
            int bz = bin_coord(q.z, p.inv_bin[2], p.dims[2], false);
            slots.push_back(s);
            bin.push_back((unsigned)bx + (unsigned)p.dims[0] * ((unsigned)by + (unsigned)p.dims[1] * (unsigned)bz));
        }
    start.assign(bins + 1, 0);
    for (unsigned b : bin) start[b + 1]++;
    for (size_t b = 0; b < bins; ++b) start[b + 1] += start[b];
    std::vector<unsigned> next(start.begin(), start.end() - 1);
    sorted.resize(slots.size());
    for (size_t i = 0; i < slots.size(); ++i) {
        float4 q = t.pos[slots[i]];
        unsigned s = slots[i];
        float w;
        memcpy(&w, &s, 4);
        sorted[next[bin[i]]++] = make_float4(q.x, q.y, q.z, w);
    }
}

// The force on slot `s` in double, over all elements of the cell and of the bins' neighbours
// (brute force over the 27 bins, no contiguous-range shortcut): the kernel's check.
static void host_force(const Tissue& t, const Params& p, const std::vector<float4>& sorted,
                       const std::vector<unsigned>& start, unsigned s, double f[3]) {
    auto fm = [](double r, const Morse& m) { return m.a * std::exp(-r * m.k1) - m.b * std::exp(-r * m.k2); };
    auto mi = [](double d, double l) { return d > 0.5 * l ? d - l : (d < -0.5 * l ? d + l : d); };
    const float4 e = t.pos[s];
    unsigned cell = s / MAX_ELEMENTS;
    f[0] = f[1] = f[2] = 0.0;
    auto add = [&](const float4& q, const Morse& m, bool cut) {
        double d[3] = {mi((double)e.x - q.x, t.lx), mi((double)e.y - q.y, t.ly), (double)e.z - q.z};
        double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (r2 <= 0.0 || (cut && !(r2 < (double)p.inter_r2))) return;
        double r = std::sqrt(r2), c = fm(r, m) / r;
        for (int a = 0; a < 3; ++a) f[a] += c * d[a];
    };
    for (unsigned k = 0; k < t.counts[cell]; ++k)
        if (cell * MAX_ELEMENTS + k != s) add(t.pos[cell * MAX_ELEMENTS + k], p.intra, false);
    int b[3] = {bin_coord(e.x, p.inv_bin[0], p.dims[0], true), bin_coord(e.y, p.inv_bin[1], p.dims[1], true),
                bin_coord(e.z, p.inv_bin[2], p.dims[2], false)};
    for (int oz = -1; oz <= 1; ++oz) {
        int z = b[2] + oz;
        if (z < 0 || z >= p.dims[2]) continue;
        for (int oy = -1; oy <= 1; ++oy)
            for (int ox = -1; ox <= 1; ++ox) {
                int y = (b[1] + oy + p.dims[1]) % p.dims[1], x = (b[0] + ox + p.dims[0]) % p.dims[0];
                size_t bin = x + (size_t)p.dims[0] * (y + (size_t)p.dims[1] * z);
                for (unsigned j = start[bin]; j < start[bin + 1]; ++j) {
                    unsigned qs;
                    memcpy(&qs, &sorted[j].w, 4);
                    if (qs / MAX_ELEMENTS != cell) add(sorted[j], p.inter, true);
                }
            }
    }
    if (e.w == ADHESIVE) f[2] += fm(e.z, p.membrane);
}

// ---- command line ----

static void usage() {
    printf(
        "sem_forces: one binned force evaluation of the epidermis model, timed with CUDA events\n"
        "  --sizes N,N,...        elements (multiples of --elements; default 1e4,1e5,1e6,1e7)\n"
        "  --intra U0,XI1,W0,XI2  intracellular Morse (default 0.25,0.12,0.1,0.36)\n"
        "  --inter U0,XI1,W0,XI2  intercellular Morse, positive part (default 0.5,0.12,0.1,0.36)\n"
        "  --cutoff R             intercellular cutoff (default 0.2897; the range is min(cutoff, zero of V_inter))\n"
        "  --bin B                bin size (default: the range times 1.001, as the model's grid)\n"
        "  --membrane U0,XI1,W0,XI2 basement membrane Morse on ADHESIVE elements (default 0.25,0.12,0.1,0.36)\n"
        "  --dt DT                the stage's step (x + dt F; default 0.005)\n"
        "  --spacing S --radius R --height H   lattice spacing, ball radius, box height (1, 0.5, 8)\n"
        "  --elements K --adhesive A --seed S  elements per cell, adhesive per cell, seed (20, 5, 42)\n"
        "  --tissue FILE          time this state (written by petri bench epidermis) instead of --sizes\n"
        "  --blocks B,B,...       block sizes tried (default 64,128,256,512)\n"
        "  --warmup W --repeats R launches before timing and timed launches (default 20, 50)\n");
}

static std::vector<double> numbers(const char* flag, const char* s, size_t want) {
    std::vector<double> v;
    const char* p = s;
    while (*p) {
        char* end;
        double x = strtod(p, &end);
        if (end == p || !std::isfinite(x)) {
            fprintf(stderr, "%s %s: expected numbers separated by commas\n", flag, s);
            exit(2);
        }
        v.push_back(x);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            fprintf(stderr, "%s %s: expected numbers separated by commas\n", flag, s);
            exit(2);
        }
    }
    if (want && v.size() != want) {
        fprintf(stderr, "%s %s: expected %zu numbers, got %zu\n", flag, s, want, v.size());
        exit(2);
    }
    return v;
}

static Config parse(int argc, char** argv) {
    Config c;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            usage();
            exit(0);
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: needs a value (see --help)\n", a.c_str());
            exit(2);
        }
        const char* v = argv[++i];
        auto four = [&](double* dst) {
            auto n = numbers(a.c_str(), v, 4);
            for (int k = 0; k < 4; ++k) dst[k] = n[k];
        };
        auto one = [&]() { return numbers(a.c_str(), v, 1)[0]; };
        if (a == "--sizes") c.sizes = numbers(a.c_str(), v, 0);
        else if (a == "--tissue") c.tissue = v;
        else if (a == "--intra") four(c.intra);
        else if (a == "--inter") four(c.inter);
        else if (a == "--membrane") four(c.membrane);
        else if (a == "--cutoff") c.cutoff = one();
        else if (a == "--dt") c.dt = one();
        else if (a == "--spacing") c.spacing = one();
        else if (a == "--radius") c.radius = one();
        else if (a == "--height") c.height = one();
        else if (a == "--bin") c.bin = one();
        else if (a == "--elements") c.elements = (unsigned)one();
        else if (a == "--adhesive") c.adhesive = (unsigned)one();
        else if (a == "--seed") c.seed = (uint32_t)one();
        else if (a == "--warmup") c.warmup = (int)one();
        else if (a == "--repeats") c.repeats = (int)one();
        else if (a == "--blocks") {
            c.blocks.clear();
            for (double b : numbers(a.c_str(), v, 0)) c.blocks.push_back((int)b);
        } else {
            fprintf(stderr, "unknown flag %s (see --help)\n", a.c_str());
            exit(2);
        }
    }
    bool ok = c.cutoff > 0 && c.bin >= 0 && c.dt > 0 && c.spacing > 0 && c.radius > 0 && c.height > 0 && c.elements >= 1 &&
              c.elements <= MAX_ELEMENTS && c.repeats >= 1 && c.warmup >= 0;
    for (double* m : {c.intra, c.inter, c.membrane}) ok = ok && m[1] > 0 && m[3] > 0;
    for (int b : c.blocks) ok = ok && b >= 32 && b <= 1024 && b % 32 == 0;
    if (!ok) {
        fprintf(stderr,
                "invalid values: cutoff, dt, spacing, radius, height > 0; elements 1..40; xi > 0; blocks "
                "multiples of 32 in 32..1024; repeats >= 1\n");
        exit(2);
    }
    return c;
}

// The lattice of a size: cells_x * cells_y = elements / per-cell, as square as divides exactly.
static bool lattice(double elements, unsigned per_cell, unsigned* cx, unsigned* cy) {
    double cells = elements / per_cell;
    if (cells < 1 || cells != floor(cells) || cells > 4e8) return false;
    unsigned n = (unsigned)cells, x = (unsigned)floor(sqrt((double)n));
    while (x > 1 && n % x) --x;
    *cx = n / x;
    *cy = x;
    return true;
}

int main(int argc, char** argv) {
    Config cfg = parse(argc, argv);
    double range;
    if (!inter_range_of(cfg, &range)) {
        fprintf(stderr, "--inter: expects U0 > W0 (cells repel at contact)\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf(
        "{\"reference\":\"sem_forces\",\"device\":\"%s\",\"intra\":[%g,%g,%g,%g],\"inter\":[%g,%g,%g,%g],"
        "\"cutoff\":%g,\"inter_range\":%g,\"membrane\":[%g,%g,%g,%g],\"dt\":%g,\"spacing\":%g,\"radius\":%g,"
        "\"height\":%g,\"bin\":%g,\"elements_per_cell\":%u,\"adhesive\":%u,\"seed\":%u,\"warmup\":%d,\"repeats\":%d}\n",
        prop.name, cfg.intra[0], cfg.intra[1], cfg.intra[2], cfg.intra[3], cfg.inter[0], cfg.inter[1], cfg.inter[2],
        cfg.inter[3], cfg.cutoff, range, cfg.membrane[0], cfg.membrane[1], cfg.membrane[2], cfg.membrane[3], cfg.dt,
        cfg.spacing, cfg.radius, cfg.height, cfg.bin > 0 ? cfg.bin : range * BIN_MARGIN, cfg.elements, cfg.adhesive, cfg.seed, cfg.warmup, cfg.repeats);
    fflush(stdout);
    // One size per --sizes entry, or the one state of --tissue.
    std::vector<double> sizes = cfg.tissue.empty() ? cfg.sizes : std::vector<double>{0.0};
    for (double size : sizes) {
        unsigned cx, cy;
        Tissue t;
        if (!cfg.tissue.empty()) {
            t = read_tissue(cfg.tissue.c_str());
            size = 0;
            for (unsigned n : t.counts) size += n;
            cx = t.cells_x;
            cy = t.cells_y;
        } else if (!lattice(size, cfg.elements, &cx, &cy)) {
            printf("{\"elements\":%.0f,\"skipped\":\"not a whole number of cells of %u elements\"}\n", size,
                   cfg.elements);
            continue;
        } else {
            t = make_tissue(cfg, cx, cy);
        }
        Params p = make_params(cfg, t, range);
        if (p.dims[0] < 3 || p.dims[1] < 3) {
            printf("{\"elements\":%.0f,\"skipped\":\"fewer than 3 bins along x or y\"}\n", size);
            continue;
        }
        double bin_total = (double)p.dims[0] * p.dims[1] * p.dims[2];
        if (bin_total > MAX_BINS) {
            printf("{\"elements\":%.0f,\"skipped\":\"%.0f bins, above the model's limit of 2^26 (lower --height or "
                   "raise --bin)\"}\n",
                   size, bin_total);
            continue;
        }
        std::vector<float4> sorted;
        std::vector<unsigned> start;
        bin_tissue(t, p, sorted, start);
        unsigned n = (unsigned)sorted.size();
        size_t slots = t.pos.size(), bins = start.size() - 1;
        size_t bytes = slots * 16 * 3 + (size_t)n * 16 + (size_t)t.cells * 4 + start.size() * 4;
        size_t free_b, total_b;
        CK(cudaMemGetInfo(&free_b, &total_b));
        if (bytes > free_b * 9 / 10) {
            printf("{\"elements\":%u,\"skipped\":\"needs %zu MiB of %zu MiB free\"}\n", n, bytes >> 20, free_b >> 20);
            continue;
        }
        float4 *d_pos, *d_sorted, *d_out, *d_force;
        unsigned *d_counts, *d_start;
        CK(cudaMalloc(&d_pos, slots * 16));
        CK(cudaMalloc(&d_out, slots * 16));
        CK(cudaMalloc(&d_force, slots * 16));
        CK(cudaMalloc(&d_sorted, (size_t)n * 16));
        CK(cudaMalloc(&d_counts, (size_t)t.cells * 4));
        CK(cudaMalloc(&d_start, start.size() * 4));
        CK(cudaMemcpy(d_pos, t.pos.data(), slots * 16, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_sorted, sorted.data(), (size_t)n * 16, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_counts, t.counts.data(), (size_t)t.cells * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_start, start.data(), start.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(d_force, 0, slots * 16));

        // Checksums of one evaluation, and sampled elements against the host in double.
        sem_forces<<<(n + 127) / 128, 128>>>(d_pos, d_counts, d_sorted, d_start, n, p, d_out, d_force);
        CK(cudaGetLastError());
        std::vector<float4> force(slots);
        CK(cudaMemcpy(force.data(), d_force, slots * 16, cudaMemcpyDeviceToHost));
        double sum_abs = 0, sum[3] = {0, 0, 0};
        for (unsigned c = 0; c < t.cells; ++c)
            for (unsigned k = 0; k < t.counts[c]; ++k) {
                const float4& f = force[(size_t)c * MAX_ELEMENTS + k];
                sum_abs += sqrt((double)f.x * f.x + (double)f.y * f.y + (double)f.z * f.z);
                sum[0] += f.x;
                sum[1] += f.y;
                sum[2] += f.z;
            }
        double scale = sum_abs / n, max_err = 0;
        unsigned samples = std::min(n, 4096u);
        for (unsigned q = 0; q < samples; ++q) {
            unsigned s;
            memcpy(&s, &sorted[(size_t)q * n / samples].w, 4);
            double h[3];
            host_force(t, p, sorted, start, s, h);
            const float4& g = force[s];
            double d = sqrt((g.x - h[0]) * (g.x - h[0]) + (g.y - h[1]) * (g.y - h[1]) + (g.z - h[2]) * (g.z - h[2]));
            double mag = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
            max_err = std::max(max_err, d / std::max(mag, scale));
        }

        // Timing: warm-up launches, then each repeat between two events; median per block size.
        std::vector<cudaEvent_t> ev(2 * cfg.repeats);
        for (auto& e : ev) CK(cudaEventCreate(&e));
        std::string by_block;
        double best = 1e30, best_min = 0;
        int best_block = 0;
        for (int block : cfg.blocks) {
            unsigned grid = (n + block - 1) / block;
            for (int w = 0; w < cfg.warmup; ++w)
                sem_forces<<<grid, block>>>(d_pos, d_counts, d_sorted, d_start, n, p, d_out, nullptr);
            for (int r = 0; r < cfg.repeats; ++r) {
                CK(cudaEventRecord(ev[2 * r]));
                sem_forces<<<grid, block>>>(d_pos, d_counts, d_sorted, d_start, n, p, d_out, nullptr);
                CK(cudaEventRecord(ev[2 * r + 1]));
            }
            CK(cudaGetLastError());
            CK(cudaEventSynchronize(ev[2 * cfg.repeats - 1]));
            std::vector<float> ms(cfg.repeats);
            for (int r = 0; r < cfg.repeats; ++r) CK(cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]));
            std::sort(ms.begin(), ms.end());
            double median = cfg.repeats % 2 ? ms[cfg.repeats / 2] : 0.5 * (ms[cfg.repeats / 2 - 1] + ms[cfg.repeats / 2]);
            char part[64];
            snprintf(part, sizeof part, "%s\"%d\":%.5f", by_block.empty() ? "" : ",", block, median);
            by_block += part;
            if (median < best) {
                best = median;
                best_min = ms[0];
                best_block = block;
            }
        }
        for (auto& e : ev) CK(cudaEventDestroy(e));
        printf(
            "{\"elements\":%u,\"cells\":%u,\"lattice\":[%u,%u],\"box\":[%g,%g,%g],\"bins\":[%d,%d,%d],"
            "\"ms\":%.5f,\"min_ms\":%.5f,\"block\":%d,\"ms_by_block\":{%s},\"elements_per_s\":%.4g,"
            "\"checksum\":{\"sum_abs_f\":%.9g,\"sum_f\":[%.9g,%.9g,%.9g]},\"max_rel_err\":%.3g,\"samples\":%u,"
            "\"bin_count\":%zu}\n",
            n, t.cells, cx, cy, t.lx, t.ly, cfg.height, p.dims[0], p.dims[1], p.dims[2], best, best_min, best_block,
            by_block.c_str(), n / (best * 1e-3), sum_abs, sum[0], sum[1], sum[2], max_err, samples, bins);
        fflush(stdout);
        CK(cudaFree(d_pos));
        CK(cudaFree(d_out));
        CK(cudaFree(d_force));
        CK(cudaFree(d_sorted));
        CK(cudaFree(d_counts));
        CK(cudaFree(d_start));
    }
    return 0;
}
