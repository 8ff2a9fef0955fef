//! The `sparsevec` type: up to 1,000,000,000 dimensions of which at most 16,000 are non-zero,
//! stored as pgvector stores it (varlena header, `int4` dimensions, `int4` count, `int4` zero,
//! the sorted 0-based indices, then their values), with its text form `{1:1,3:2}/5` (1-based),
//! binary form (0-based), casts, distances and comparisons.

use crate::fmgr::*;
use crate::kernels::{self, Sparse};
pub use crate::text::{SPARSEVEC_MAX_DIM, check_sparse_dim as check_dim};
use crate::text::{SPARSEVEC_MAX_NNZ, check_single, parse_sparse};
use pgrx::pg_sys;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;

/// Bytes before the indices.
const HEADER: usize = 16;

/// A `sparsevec` read in place.
#[derive(Clone, Copy)]
pub struct SparsevecRef<'a> {
    /// The number of dimensions.
    pub dim: i32,
    /// The `unused` field.
    pub unused: i32,
    /// Sorted 0-based indices of the non-zero elements.
    pub indices: &'a [i32],
    /// Their values.
    pub values: &'a [f32],
}

impl<'a> SparsevecRef<'a> {
    /// The elements as the kernels take them.
    pub fn sparse(&self) -> Sparse<'a> {
        Sparse {
            dim: self.dim,
            indices: self.indices,
            values: self.values,
        }
    }
}

/// Reads a detoasted `sparsevec`.
///
/// # Safety
/// `p` points at a detoasted `sparsevec` that outlives the result.
#[inline]
pub unsafe fn sparsevec_at<'a>(p: *const u8) -> SparsevecRef<'a> {
    unsafe {
        let dim = p.add(4).cast::<i32>().read();
        let nnz = p.add(8).cast::<i32>().read().max(0) as usize;
        let unused = p.add(12).cast::<i32>().read();
        let indices = core::slice::from_raw_parts(p.add(HEADER).cast::<i32>(), nnz);
        let values = core::slice::from_raw_parts(p.add(HEADER + 4 * nnz).cast::<f32>(), nnz);
        SparsevecRef {
            dim,
            unused,
            indices,
            values,
        }
    }
}

/// Argument `n` as a `sparsevec`.
///
/// # Safety
/// Argument `n` of `fc` is a `sparsevec`.
#[inline]
pub unsafe fn sparsevec_arg<'a>(fc: pg_sys::FunctionCallInfo, n: usize) -> SparsevecRef<'a> {
    unsafe { sparsevec_at(arg_varlena(fc, n)) }
}

/// The size of a `sparsevec` with `nnz` non-zero elements.
pub fn sparsevec_size(nnz: usize) -> usize {
    HEADER + 8 * nnz
}

/// A new `sparsevec` of `dim` dimensions and the elements `(index, value)` (sorted, checked).
///
/// # Safety
/// Inside a PostgreSQL call.
pub unsafe fn sparsevec_datum(
    dim: i32,
    elements: impl ExactSizeIterator<Item = (i32, f32)>,
) -> pg_sys::Datum {
    unsafe {
        let nnz = elements.len();
        let p = new_varlena(sparsevec_size(nnz));
        p.add(4).cast::<i32>().write(dim);
        p.add(8).cast::<i32>().write(nnz as i32);
        let idx = p.add(HEADER).cast::<i32>();
        let val = p.add(HEADER + 4 * nnz).cast::<f32>();
        for (k, (i, v)) in elements.enumerate() {
            idx.add(k).write(i);
            val.add(k).write(v);
        }
        pg_sys::Datum::from(p)
    }
}

/// Errors unless `nnz` non-zero elements fit `dim` dimensions and the limit.
fn check_nnz(nnz: i32, dim: i32) {
    if nnz < 0 {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            "sparsevec cannot have negative number of elements",
        );
    }
    if nnz as usize > SPARSEVEC_MAX_NNZ {
        raise(
            PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            format!("sparsevec cannot have more than {SPARSEVEC_MAX_NNZ} non-zero elements"),
        );
    }
    if nnz > dim {
        raise(
            PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            "sparsevec cannot have more elements than dimensions",
        );
    }
}

/// Errors unless `index` is inside `dim` and after `previous`.
fn check_index(index: i32, previous: Option<i32>, dim: i32) {
    if index < 0 || index >= dim {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            "sparsevec index out of bounds",
        );
    }
    if let Some(p) = previous {
        if index < p {
            raise(
                PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                "sparsevec indices must be in ascending order",
            );
        }
        if index == p {
            raise(
                PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                "sparsevec indices must not contain duplicates",
            );
        }
    }
}

/// The two `sparsevec` arguments, checked to have the same dimensions.
///
/// # Safety
/// Arguments 0 and 1 of `fc` are sparse vectors.
unsafe fn two<'a>(fc: pg_sys::FunctionCallInfo) -> (SparsevecRef<'a>, SparsevecRef<'a>) {
    unsafe {
        let a = sparsevec_arg(fc, 0);
        let b = sparsevec_arg(fc, 1);
        if a.dim != b.dim {
            raise(
                PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                format!("different sparsevec dimensions {} and {}", a.dim, b.dim),
            );
        }
        (a, b)
    }
}

sql_function!(
    /// `sparsevec_in(cstring, oid, integer)`.
    pg_finfo_sparsevec_in, sparsevec_in, |fc| {
        let lit = crate::vector::cstr_bytes_with_nul(arg(fc, 0));
        let (dim, elements) = parse_sparse(lit, arg_i32(fc, 2));
        let mut previous = None;
        for (i, _) in &elements {
            check_index(*i, previous, dim);
            previous = Some(*i);
        }
        sparsevec_datum(dim, elements.into_iter())
    }
);

sql_function!(
    /// `sparsevec_out(sparsevec)`: `{1:1,3:2}/5`.
    pg_finfo_sparsevec_out, sparsevec_out, |fc| {
        let s = sparsevec_arg(fc, 0);
        let mut out = Vec::with_capacity((11 + FLOAT_SHORTEST_DECIMAL_LEN) * s.indices.len() + 13);
        out.push(b'{');
        for (k, (i, v)) in s.indices.iter().zip(s.values).enumerate() {
            if k > 0 {
                out.push(b',');
            }
            out.extend_from_slice((i64::from(*i) + 1).to_string().as_bytes());
            out.push(b':');
            push_float(&mut out, *v);
        }
        out.push(b'}');
        out.push(b'/');
        out.extend_from_slice(s.dim.to_string().as_bytes());
        cstring_datum(&out)
    }
);

sql_function!(
    /// `sparsevec_typmod_in(cstring[])`.
    pg_finfo_sparsevec_typmod_in, sparsevec_typmod_in, |fc| {
        i32_datum(typmod_dimensions(integer_typmods(arg(fc, 0)), "sparsevec", SPARSEVEC_MAX_DIM))
    }
);

sql_function!(
    /// `sparsevec_recv(internal, oid, integer)`.
    pg_finfo_sparsevec_recv, sparsevec_recv, |fc| {
        let mut m = Message(arg(fc, 0).cast_mut_ptr());
        let typmod = arg_i32(fc, 2);
        let dim = m.i32();
        let nnz = m.i32();
        let unused = m.i32();
        check_dim(dim);
        check_nnz(nnz, dim);
        check_expected_dim(typmod, dim);
        if unused != 0 {
            raise(
                PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                format!("expected unused to be 0, not {unused}"),
            );
        }
        let mut indices = Vec::with_capacity(nnz as usize);
        let mut previous = None;
        for _ in 0..nnz {
            let i = m.i32();
            check_index(i, previous, dim);
            previous = Some(i);
            indices.push(i);
        }
        let mut values = Vec::with_capacity(nnz as usize);
        for _ in 0..nnz {
            let v = m.f32();
            check_single(v, "sparsevec");
            if v == 0.0 {
                raise(
                    PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                    "binary representation of sparsevec cannot contain zero values",
                );
            }
            values.push(v);
        }
        sparsevec_datum(dim, indices.into_iter().zip(values))
    }
);

sql_function!(
    /// `sparsevec_send(sparsevec)`.
    pg_finfo_sparsevec_send, sparsevec_send, |fc| {
        let s = sparsevec_arg(fc, 0);
        let mut out = Vec::with_capacity(12 + 8 * s.indices.len());
        out.extend_from_slice(&s.dim.to_be_bytes());
        out.extend_from_slice(&(s.indices.len() as i32).to_be_bytes());
        out.extend_from_slice(&s.unused.to_be_bytes());
        for i in s.indices {
            out.extend_from_slice(&i.to_be_bytes());
        }
        for v in s.values {
            out.extend_from_slice(&v.to_bits().to_be_bytes());
        }
        bytea_datum(&out)
    }
);

sql_function!(
    /// `sparsevec(sparsevec, integer, boolean)`: the cast to `sparsevec(n)`.
    pg_finfo_sparsevec, sparsevec, |fc| {
        let p = arg_varlena(fc, 0);
        check_expected_dim(arg_i32(fc, 1), sparsevec_at(p).dim);
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `array_to_sparsevec(integer[] | real[] | double precision[] | numeric[], integer, boolean)`.
    pg_finfo_array_to_sparsevec, array_to_sparsevec, |fc| {
        let (elemtype, elems) = array_elements(arg(fc, 0));
        let dim = elems.len() as i32;
        check_dim(dim);
        check_expected_dim(arg_i32(fc, 1), dim);
        let mut elements = Vec::new();
        for (i, d) in elems.iter().enumerate() {
            let v = array_element_f32(elemtype, *d);
            if v != 0.0 {
                elements.push((i as i32, v));
            }
        }
        for (_, v) in &elements {
            check_single(*v, "sparsevec");
        }
        sparsevec_datum(dim, elements.into_iter())
    }
);

sql_function!(
    /// `l2_distance(sparsevec, sparsevec)`.
    pg_finfo_sparsevec_l2_distance, sparsevec_l2_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::sparse_l2_squared(a.sparse(), b.sparse())).sqrt())
    }
);

sql_function!(
    /// `sparsevec_l2_squared_distance(sparsevec, sparsevec)`.
    pg_finfo_sparsevec_l2_squared_distance, sparsevec_l2_squared_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::sparse_l2_squared(a.sparse(), b.sparse())))
    }
);

sql_function!(
    /// `inner_product(sparsevec, sparsevec)`.
    pg_finfo_sparsevec_inner_product, sparsevec_inner_product, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::sparse_inner_product(a.sparse(), b.sparse())))
    }
);

sql_function!(
    /// `sparsevec_negative_inner_product(sparsevec, sparsevec)`: `<#>`.
    pg_finfo_sparsevec_negative_inner_product, sparsevec_negative_inner_product, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(-kernels::sparse_inner_product(a.sparse(), b.sparse())))
    }
);

sql_function!(
    /// `cosine_distance(sparsevec, sparsevec)`.
    pg_finfo_sparsevec_cosine_distance, sparsevec_cosine_distance, |fc| {
        let (a, b) = two(fc);
        let dot = f64::from(kernels::sparse_inner_product(a.sparse(), b.sparse()));
        let na = f64::from(kernels::sparse_norm_squared_f32(a.values));
        let nb = f64::from(kernels::sparse_norm_squared_f32(b.values));
        float8_datum(kernels::cosine_distance_from_similarity(dot / (na * nb).sqrt()))
    }
);

sql_function!(
    /// `l1_distance(sparsevec, sparsevec)`.
    pg_finfo_sparsevec_l1_distance, sparsevec_l1_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::sparse_l1(a.sparse(), b.sparse())))
    }
);

sql_function!(
    /// `l2_norm(sparsevec)`.
    pg_finfo_sparsevec_l2_norm, sparsevec_l2_norm, |fc| {
        float8_datum(kernels::sparse_norm(sparsevec_arg(fc, 0).values))
    }
);

/// The elements of `s` divided by its Euclidean norm, without those that became zero; an
/// infinite result is an overflow. A zero vector stays as it is.
pub fn normalized(s: &SparsevecRef<'_>) -> Vec<(i32, f32)> {
    let norm = kernels::sparse_norm(s.values);
    if norm <= 0.0 {
        return s
            .indices
            .iter()
            .copied()
            .zip(s.values.iter().copied())
            .collect();
    }
    let mut out = Vec::with_capacity(s.values.len());
    for (i, v) in s.indices.iter().zip(s.values) {
        let r = (f64::from(*v) / norm) as f32;
        if r.is_infinite() {
            float_overflow_error();
        }
        if r != 0.0 {
            out.push((*i, r));
        }
    }
    out
}

sql_function!(
    /// `l2_normalize(sparsevec)`.
    pg_finfo_sparsevec_l2_normalize, sparsevec_l2_normalize, |fc| {
        let s = sparsevec_arg(fc, 0);
        let elements = normalized(&s);
        sparsevec_datum(s.dim, elements.into_iter())
    }
);

/// pgvector's ordering of sparse vectors: as the dense vectors they stand for, element by
/// element, then by dimensions.
pub fn compare(a: &SparsevecRef<'_>, b: &SparsevecRef<'_>) -> i32 {
    let (ai, av, bi, bv) = (a.indices, a.values, b.indices, b.values);
    let nnz = ai.len().min(bi.len());
    for k in 0..nnz {
        if ai[k] < bi[k] {
            return if av[k] < 0.0 { -1 } else { 1 };
        }
        if ai[k] > bi[k] {
            return if bv[k] < 0.0 { 1 } else { -1 };
        }
        if av[k] < bv[k] {
            return -1;
        }
        if av[k] > bv[k] {
            return 1;
        }
    }
    if ai.len() < bi.len() && bi[nnz] < a.dim {
        return if bv[nnz] < 0.0 { 1 } else { -1 };
    }
    if ai.len() > bi.len() && ai[nnz] < b.dim {
        return if av[nnz] < 0.0 { -1 } else { 1 };
    }
    match a.dim.cmp(&b.dim) {
        core::cmp::Ordering::Less => -1,
        core::cmp::Ordering::Greater => 1,
        core::cmp::Ordering::Equal => 0,
    }
}

/// [`compare`] of the two arguments.
///
/// # Safety
/// Arguments 0 and 1 of `fc` are sparse vectors.
unsafe fn cmp_args(fc: pg_sys::FunctionCallInfo) -> i32 {
    unsafe { compare(&sparsevec_arg(fc, 0), &sparsevec_arg(fc, 1)) }
}

sql_function!(
    /// `sparsevec_lt`.
    pg_finfo_sparsevec_lt, sparsevec_lt, |fc| { bool_datum(cmp_args(fc) < 0) }
);
sql_function!(
    /// `sparsevec_le`.
    pg_finfo_sparsevec_le, sparsevec_le, |fc| { bool_datum(cmp_args(fc) <= 0) }
);
sql_function!(
    /// `sparsevec_eq`.
    pg_finfo_sparsevec_eq, sparsevec_eq, |fc| { bool_datum(cmp_args(fc) == 0) }
);
sql_function!(
    /// `sparsevec_ne`.
    pg_finfo_sparsevec_ne, sparsevec_ne, |fc| { bool_datum(cmp_args(fc) != 0) }
);
sql_function!(
    /// `sparsevec_ge`.
    pg_finfo_sparsevec_ge, sparsevec_ge, |fc| { bool_datum(cmp_args(fc) >= 0) }
);
sql_function!(
    /// `sparsevec_gt`.
    pg_finfo_sparsevec_gt, sparsevec_gt, |fc| { bool_datum(cmp_args(fc) > 0) }
);
sql_function!(
    /// `sparsevec_cmp`.
    pg_finfo_sparsevec_cmp, sparsevec_cmp, |fc| { i32_datum(cmp_args(fc)) }
);
