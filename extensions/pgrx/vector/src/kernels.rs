//! Distance kernels over the element slices of each type: dense single precision (`vector`),
//! half precision (`halfvec`, as IEEE binary16 bits), sparse (`sparsevec`: sorted 0-based
//! indices beside their values) and bit strings. Sums are kept in single precision as pgvector
//! keeps them; dense loops run sixteen lanes so the compiler vectorises them, again with AVX2 and
//! with AVX-512 (with fused multiply-add) where the processor has them.

use half::f16;

/// Sixteen-lane sums: `acc = step(acc, a[i], b[i])` per lane, added up at the end.
#[inline(always)]
fn lanes(a: &[f32], b: &[f32], step: impl Fn(f32, f32, f32) -> f32) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f32; 16];
    let ca = a.chunks_exact(16);
    let cb = b.chunks_exact(16);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] = step(acc[i], x[i], y[i]);
        }
    }
    let mut tail = 0f32;
    for (x, y) in ra.iter().zip(rb) {
        tail = step(tail, *x, *y);
    }
    let mut s = 0f32;
    for v in acc {
        s += v;
    }
    s + tail
}

/// The kernels, for a processor with fused multiply-add (`FMA`) or without.
macro_rules! dense_kernels {
    ($fma:expr) => {
        #[inline(always)]
        fn l2_squared_k(a: &[f32], b: &[f32]) -> f32 {
            if $fma {
                super::lanes(a, b, |acc, x, y| (x - y).mul_add(x - y, acc))
            } else {
                super::lanes(a, b, |acc, x, y| acc + (x - y) * (x - y))
            }
        }

        #[inline(always)]
        fn inner_product_k(a: &[f32], b: &[f32]) -> f32 {
            if $fma {
                super::lanes(a, b, |acc, x, y| x.mul_add(y, acc))
            } else {
                super::lanes(a, b, |acc, x, y| acc + x * y)
            }
        }

        #[inline(always)]
        fn l1_k(a: &[f32], b: &[f32]) -> f32 {
            super::lanes(a, b, |acc, x, y| acc + (x - y).abs())
        }
    };
}

mod portable {
    dense_kernels!(false);

    pub fn l2_squared(a: &[f32], b: &[f32]) -> f32 {
        l2_squared_k(a, b)
    }

    pub fn inner_product(a: &[f32], b: &[f32]) -> f32 {
        inner_product_k(a, b)
    }

    pub fn l1(a: &[f32], b: &[f32]) -> f32 {
        l1_k(a, b)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    dense_kernels!(true);

    #[target_feature(enable = "avx2,fma")]
    pub fn l2_squared(a: &[f32], b: &[f32]) -> f32 {
        l2_squared_k(a, b)
    }

    #[target_feature(enable = "avx2,fma")]
    pub fn inner_product(a: &[f32], b: &[f32]) -> f32 {
        inner_product_k(a, b)
    }

    #[target_feature(enable = "avx2,fma")]
    pub fn l1(a: &[f32], b: &[f32]) -> f32 {
        l1_k(a, b)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    dense_kernels!(true);

    #[target_feature(enable = "avx512f,fma")]
    pub fn l2_squared(a: &[f32], b: &[f32]) -> f32 {
        l2_squared_k(a, b)
    }

    #[target_feature(enable = "avx512f,fma")]
    pub fn inner_product(a: &[f32], b: &[f32]) -> f32 {
        inner_product_k(a, b)
    }

    #[target_feature(enable = "avx512f,fma")]
    pub fn l1(a: &[f32], b: &[f32]) -> f32 {
        l1_k(a, b)
    }
}

/// The widest kernels this processor runs: 2 for AVX-512, 1 for AVX2 with FMA, 0 for none.
#[inline]
fn tier() -> u8 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("fma")
        {
            2
        } else if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
        {
            1
        } else {
            0
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// Calls the widest of a kernel's versions.
macro_rules! dispatch {
    ($name:ident, $a:expr, $b:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            match tier() {
                // SAFETY: the processor has AVX-512F and FMA.
                2 => return unsafe { avx512::$name($a, $b) },
                // SAFETY: the processor has AVX2 and FMA.
                1 => return unsafe { avx2::$name($a, $b) },
                _ => {}
            }
        }
        portable::$name($a, $b)
    }};
}

/// Squared Euclidean distance of two dense vectors of the same length.
#[inline]
pub fn l2_squared(a: &[f32], b: &[f32]) -> f32 {
    dispatch!(l2_squared, a, b)
}

/// Inner product of two dense vectors of the same length.
#[inline]
pub fn inner_product(a: &[f32], b: &[f32]) -> f32 {
    dispatch!(inner_product, a, b)
}

/// Taxicab distance of two dense vectors of the same length.
#[inline]
pub fn l1(a: &[f32], b: &[f32]) -> f32 {
    dispatch!(l1, a, b)
}

/// Cosine similarity of two dense vectors (NaN when either has zero norm).
pub fn cosine_similarity(a: &[f32], b: &[f32]) -> f64 {
    let dot = inner_product(a, b);
    let na = inner_product(a, a);
    let nb = inner_product(b, b);
    f64::from(dot) / (f64::from(na) * f64::from(nb)).sqrt()
}

/// The Euclidean norm, summed in double precision as `vector_norm` sums it.
pub fn norm(a: &[f32]) -> f64 {
    a.iter()
        .fold(0.0f64, |s, x| s + f64::from(*x) * f64::from(*x))
        .sqrt()
}

/// A half-precision element as single precision.
#[inline(always)]
pub fn h2f(h: u16) -> f32 {
    f16::from_bits(h).to_f32()
}

/// Single precision rounded to half precision (to nearest, ties to even); out of range gives
/// an infinity.
#[inline(always)]
pub fn f2h(f: f32) -> u16 {
    f16::from_f32(f).to_bits()
}

/// Whether a half-precision element is infinite.
#[inline]
pub fn half_is_inf(h: u16) -> bool {
    h & 0x7FFF == 0x7C00
}

/// Whether a half-precision element is NaN.
#[inline]
pub fn half_is_nan(h: u16) -> bool {
    h & 0x7C00 == 0x7C00 && h & 0x03FF != 0
}

/// Whether a half-precision element is zero (of either sign).
#[inline]
pub fn half_is_zero(h: u16) -> bool {
    h & 0x7FFF == 0
}

/// Squared Euclidean distance of two half vectors.
pub fn half_l2_squared(a: &[u16], b: &[u16]) -> f32 {
    let mut s = 0f32;
    for (x, y) in a.iter().zip(b) {
        let d = h2f(*x) - h2f(*y);
        s += d * d;
    }
    s
}

/// Inner product of two half vectors.
pub fn half_inner_product(a: &[u16], b: &[u16]) -> f32 {
    let mut s = 0f32;
    for (x, y) in a.iter().zip(b) {
        s += h2f(*x) * h2f(*y);
    }
    s
}

/// Taxicab distance of two half vectors.
pub fn half_l1(a: &[u16], b: &[u16]) -> f32 {
    let mut s = 0f32;
    for (x, y) in a.iter().zip(b) {
        s += (h2f(*x) - h2f(*y)).abs();
    }
    s
}

/// Cosine similarity of two half vectors.
pub fn half_cosine_similarity(a: &[u16], b: &[u16]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (h2f(*x), h2f(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    f64::from(dot) / (f64::from(na) * f64::from(nb)).sqrt()
}

/// The Euclidean norm of a half vector, in double precision.
pub fn half_norm(a: &[u16]) -> f64 {
    a.iter()
        .fold(0.0f64, |s, x| s + f64::from(h2f(*x)) * f64::from(h2f(*x)))
        .sqrt()
}

/// A sparse vector's non-zero elements: sorted, distinct 0-based indices and their values.
#[derive(Clone, Copy)]
pub struct Sparse<'a> {
    /// The number of dimensions.
    pub dim: i32,
    /// Sorted 0-based indices.
    pub indices: &'a [i32],
    /// The value at each index.
    pub values: &'a [f32],
}

/// Walks two sparse vectors' elements in index order: `both(a, b)` where both have the index,
/// `only(v)` where one has it.
#[inline(always)]
fn merge(a: Sparse<'_>, b: Sparse<'_>, mut both: impl FnMut(f32, f32), mut only: impl FnMut(f32)) {
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.indices.len() && j < b.indices.len() {
        let (ai, bj) = (a.indices[i], b.indices[j]);
        if ai == bj {
            both(a.values[i], b.values[j]);
            i += 1;
            j += 1;
        } else if ai < bj {
            only(a.values[i]);
            i += 1;
        } else {
            only(b.values[j]);
            j += 1;
        }
    }
    for v in &a.values[i..] {
        only(*v);
    }
    for v in &b.values[j..] {
        only(*v);
    }
}

/// Squared Euclidean distance of two sparse vectors.
pub fn sparse_l2_squared(a: Sparse<'_>, b: Sparse<'_>) -> f32 {
    let mut s = 0f32;
    let mut t = 0f32;
    merge(a, b, |x, y| s += (x - y) * (x - y), |v| t += v * v);
    s + t
}

/// Inner product of two sparse vectors.
pub fn sparse_inner_product(a: Sparse<'_>, b: Sparse<'_>) -> f32 {
    let mut s = 0f32;
    merge(a, b, |x, y| s += x * y, |_| {});
    s
}

/// Taxicab distance of two sparse vectors.
pub fn sparse_l1(a: Sparse<'_>, b: Sparse<'_>) -> f32 {
    let mut s = 0f32;
    let mut t = 0f32;
    merge(a, b, |x, y| s += (x - y).abs(), |v| t += v.abs());
    s + t
}

/// The squared norm of a sparse vector's values, in single precision.
pub fn sparse_norm_squared_f32(v: &[f32]) -> f32 {
    let mut s = 0f32;
    for x in v {
        s += x * x;
    }
    s
}

/// The Euclidean norm of a sparse vector's values, in double precision.
pub fn sparse_norm(v: &[f32]) -> f64 {
    v.iter()
        .fold(0.0f64, |s, x| s + f64::from(*x) * f64::from(*x))
        .sqrt()
}

/// The number of differing bits of two bit strings of the same length.
pub fn hamming(a: &[u8], b: &[u8]) -> u64 {
    let mut d = 0u64;
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        let x = u64::from_ne_bytes(x.try_into().unwrap_or([0; 8]));
        let y = u64::from_ne_bytes(y.try_into().unwrap_or([0; 8]));
        d += u64::from((x ^ y).count_ones());
    }
    for (x, y) in ra.iter().zip(rb) {
        d += u64::from((x ^ y).count_ones());
    }
    d
}

/// The Jaccard distance of two bit strings of the same length: one less the share of set bits
/// they have in common; 1 when they have none in common.
pub fn jaccard(a: &[u8], b: &[u8]) -> f64 {
    let (mut ab, mut aa, mut bb) = (0u64, 0u64, 0u64);
    for (x, y) in a.iter().zip(b) {
        ab += u64::from((x & y).count_ones());
        aa += u64::from(x.count_ones());
        bb += u64::from(y.count_ones());
    }
    if ab == 0 {
        1.0
    } else {
        1.0 - ab as f64 / (aa + bb - ab) as f64
    }
}

/// Clamps a cosine similarity to [-1, 1] (NaN stays NaN) and returns the cosine distance.
pub fn cosine_distance_from_similarity(similarity: f64) -> f64 {
    1.0 - similarity.clamp(-1.0, 1.0)
}

/// The angular distance (`acos` of the clamped inner product, over pi) of unit vectors.
pub fn spherical_distance(dot: f64) -> f64 {
    dot.clamp(-1.0, 1.0).acos() / std::f64::consts::PI
}
