//! The `halfvec` type: up to 16,000 half precision elements (IEEE binary16), stored as pgvector
//! stores them (varlena header, `int2` dimensions, `int2` zero, the elements), with the same
//! functions as `vector`. Elements are computed in single precision and rounded to half.

use crate::fmgr::*;
use crate::kernels::{self, f2h, h2f, half_is_inf, half_is_zero};
use crate::text::{Dense, check_half, parse_dense};
use crate::vector::{accum, compare, push_bracketed, quantize, subvector_range};
use pgrx::pg_sys;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;

/// The most dimensions a `halfvec` has.
pub const HALFVEC_MAX_DIM: i32 = 16000;

/// Bytes before the elements.
const HEADER: usize = 8;

/// A `halfvec` read in place.
#[derive(Clone, Copy)]
pub struct HalfvecRef<'a> {
    /// The `unused` field.
    pub unused: i16,
    /// The elements as binary16 bits.
    pub x: &'a [u16],
}

/// Reads a detoasted `halfvec`.
///
/// # Safety
/// `p` points at a detoasted `halfvec` that outlives the result.
#[inline]
pub unsafe fn halfvec_at<'a>(p: *const u8) -> HalfvecRef<'a> {
    unsafe {
        let dim = p.add(4).cast::<i16>().read();
        let unused = p.add(6).cast::<i16>().read();
        let x = core::slice::from_raw_parts(p.add(HEADER).cast::<u16>(), dim.max(0) as usize);
        HalfvecRef { unused, x }
    }
}

/// Argument `n` as a `halfvec`.
///
/// # Safety
/// Argument `n` of `fc` is a `halfvec`.
#[inline]
pub unsafe fn halfvec_arg<'a>(fc: pg_sys::FunctionCallInfo, n: usize) -> HalfvecRef<'a> {
    unsafe { halfvec_at(arg_varlena(fc, n)) }
}

/// A new zeroed `halfvec` of `dim` elements.
///
/// # Safety
/// Inside a PostgreSQL call.
pub unsafe fn new_halfvec<'a>(dim: usize) -> (*mut u8, &'a mut [u16]) {
    unsafe {
        let p = new_varlena(HEADER + 2 * dim);
        p.add(4).cast::<i16>().write(dim as i16);
        let x = core::slice::from_raw_parts_mut(p.add(HEADER).cast::<u16>(), dim);
        (p, x)
    }
}

/// Errors unless `dim` is between 1 and 16,000.
pub fn check_dim(dim: i64) {
    if dim < 1 {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            "halfvec must have at least 1 dimension",
        );
    }
    if dim > i64::from(HALFVEC_MAX_DIM) {
        raise(
            PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            format!("halfvec cannot have more than {HALFVEC_MAX_DIM} dimensions"),
        );
    }
}

/// `f` rounded to half precision; a finite value too large for it is an error.
pub fn to_half(f: f32) -> u16 {
    let h = f2h(f);
    if half_is_inf(h) && !f.is_infinite() {
        raise(
            PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
            format!("\"{}\" is out of range for type halfvec", float_text(f)),
        );
    }
    h
}

/// The two `halfvec` arguments, checked to have the same dimensions.
///
/// # Safety
/// Arguments 0 and 1 of `fc` are half vectors.
unsafe fn two<'a>(fc: pg_sys::FunctionCallInfo) -> (HalfvecRef<'a>, HalfvecRef<'a>) {
    unsafe {
        let a = halfvec_arg(fc, 0);
        let b = halfvec_arg(fc, 1);
        if a.x.len() != b.x.len() {
            raise(
                PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                format!(
                    "different halfvec dimensions {} and {}",
                    a.x.len(),
                    b.x.len()
                ),
            );
        }
        (a, b)
    }
}

sql_function!(
    /// `halfvec_in(cstring, oid, integer)`.
    pg_finfo_halfvec_in, halfvec_in, |fc| {
        let lit = crate::vector::cstr_bytes_with_nul(arg(fc, 0));
        let bits = parse_dense(lit, Dense::Half, HALFVEC_MAX_DIM as usize, arg_i32(fc, 2));
        let (p, x) = new_halfvec(bits.len());
        for (o, b) in x.iter_mut().zip(bits) {
            *o = b as u16;
        }
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `halfvec_out(halfvec)`: each element as the single precision it widens to.
    pg_finfo_halfvec_out, halfvec_out, |fc| {
        let v = halfvec_arg(fc, 0);
        let mut out = Vec::with_capacity(v.x.len() * FLOAT_SHORTEST_DECIMAL_LEN + 2);
        push_bracketed(&mut out, v.x.iter().map(|h| h2f(*h)));
        cstring_datum(&out)
    }
);

sql_function!(
    /// `halfvec_typmod_in(cstring[])`.
    pg_finfo_halfvec_typmod_in, halfvec_typmod_in, |fc| {
        i32_datum(typmod_dimensions(integer_typmods(arg(fc, 0)), "halfvec", HALFVEC_MAX_DIM))
    }
);

sql_function!(
    /// `halfvec_recv(internal, oid, integer)`: `int2` dimensions, `int2` zero, binary16 bits.
    pg_finfo_halfvec_recv, halfvec_recv, |fc| {
        let mut m = Message(arg(fc, 0).cast_mut_ptr());
        let typmod = arg_i32(fc, 2);
        let dim = m.i16();
        let unused = m.i16();
        check_dim(i64::from(dim));
        check_expected_dim(typmod, i32::from(dim));
        if unused != 0 {
            raise(
                PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                format!("expected unused to be 0, not {unused}"),
            );
        }
        let (p, x) = new_halfvec(dim as usize);
        for o in x.iter_mut() {
            *o = m.u16();
            check_half(*o);
        }
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `halfvec_send(halfvec)`.
    pg_finfo_halfvec_send, halfvec_send, |fc| {
        let v = halfvec_arg(fc, 0);
        let mut out = Vec::with_capacity(4 + 2 * v.x.len());
        out.extend_from_slice(&(v.x.len() as i16).to_be_bytes());
        out.extend_from_slice(&v.unused.to_be_bytes());
        for x in v.x {
            out.extend_from_slice(&x.to_be_bytes());
        }
        bytea_datum(&out)
    }
);

sql_function!(
    /// `halfvec(halfvec, integer, boolean)`: the cast to `halfvec(n)`.
    pg_finfo_halfvec, halfvec, |fc| {
        let p = arg_varlena(fc, 0);
        check_expected_dim(arg_i32(fc, 1), halfvec_at(p).x.len() as i32);
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `array_to_halfvec(integer[] | real[] | double precision[] | numeric[], integer, boolean)`.
    pg_finfo_array_to_halfvec, array_to_halfvec, |fc| {
        let (elemtype, elems) = array_elements(arg(fc, 0));
        check_dim(elems.len() as i64);
        check_expected_dim(arg_i32(fc, 1), elems.len() as i32);
        let (p, x) = new_halfvec(elems.len());
        for (o, d) in x.iter_mut().zip(elems) {
            *o = to_half(array_element_f32(elemtype, *d));
        }
        for h in x.iter() {
            check_half(*h);
        }
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `halfvec_to_float4(halfvec, integer, boolean)`: the cast to `real[]`.
    pg_finfo_halfvec_to_float4, halfvec_to_float4, |fc| {
        let v = halfvec_arg(fc, 0);
        float4_array(v.x.iter().map(|h| h2f(*h)))
    }
);

sql_function!(
    /// `l2_distance(halfvec, halfvec)`.
    pg_finfo_halfvec_l2_distance, halfvec_l2_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::half_l2_squared(a.x, b.x)).sqrt())
    }
);

sql_function!(
    /// `halfvec_l2_squared_distance(halfvec, halfvec)`.
    pg_finfo_halfvec_l2_squared_distance, halfvec_l2_squared_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::half_l2_squared(a.x, b.x)))
    }
);

sql_function!(
    /// `inner_product(halfvec, halfvec)`.
    pg_finfo_halfvec_inner_product, halfvec_inner_product, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::half_inner_product(a.x, b.x)))
    }
);

sql_function!(
    /// `halfvec_negative_inner_product(halfvec, halfvec)`: `<#>`.
    pg_finfo_halfvec_negative_inner_product, halfvec_negative_inner_product, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(-kernels::half_inner_product(a.x, b.x)))
    }
);

sql_function!(
    /// `cosine_distance(halfvec, halfvec)`.
    pg_finfo_halfvec_cosine_distance, halfvec_cosine_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(kernels::cosine_distance_from_similarity(kernels::half_cosine_similarity(a.x, b.x)))
    }
);

sql_function!(
    /// `halfvec_spherical_distance(halfvec, halfvec)`.
    pg_finfo_halfvec_spherical_distance, halfvec_spherical_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(kernels::spherical_distance(f64::from(kernels::half_inner_product(a.x, b.x))))
    }
);

sql_function!(
    /// `l1_distance(halfvec, halfvec)`.
    pg_finfo_halfvec_l1_distance, halfvec_l1_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::half_l1(a.x, b.x)))
    }
);

sql_function!(
    /// `vector_dims(halfvec)`.
    pg_finfo_halfvec_vector_dims, halfvec_vector_dims, |fc| {
        i32_datum(halfvec_arg(fc, 0).x.len() as i32)
    }
);

sql_function!(
    /// `l2_norm(halfvec)`.
    pg_finfo_halfvec_l2_norm, halfvec_l2_norm, |fc| {
        float8_datum(kernels::half_norm(halfvec_arg(fc, 0).x))
    }
);

/// `x` divided by its Euclidean norm into `out` (zero stays zero).
pub fn normalize_into(x: &[u16], out: &mut [u16]) {
    let norm = kernels::half_norm(x);
    if norm > 0.0 {
        for (o, h) in out.iter_mut().zip(x) {
            *o = f2h((f64::from(h2f(*h)) / norm) as f32);
        }
        if out.iter().any(|h| half_is_inf(*h)) {
            float_overflow_error();
        }
    }
}

sql_function!(
    /// `l2_normalize(halfvec)`.
    pg_finfo_halfvec_l2_normalize, halfvec_l2_normalize, |fc| {
        let a = halfvec_arg(fc, 0);
        let (p, x) = new_halfvec(a.x.len());
        normalize_into(a.x, x);
        pg_sys::Datum::from(p)
    }
);

/// Element-wise `f` in single precision rounded to half, with pgvector's checks.
///
/// # Safety
/// Arguments 0 and 1 of `fc` are half vectors.
unsafe fn elementwise(
    fc: pg_sys::FunctionCallInfo,
    f: impl Fn(f32, f32) -> f32,
    underflow: bool,
) -> pg_sys::Datum {
    unsafe {
        let (a, b) = two(fc);
        let (p, x) = new_halfvec(a.x.len());
        for ((o, u), v) in x.iter_mut().zip(a.x).zip(b.x) {
            *o = f2h(f(h2f(*u), h2f(*v)));
        }
        for ((o, u), v) in x.iter().zip(a.x).zip(b.x) {
            if half_is_inf(*o) {
                float_overflow_error();
            }
            if underflow && half_is_zero(*o) && !(half_is_zero(*u) || half_is_zero(*v)) {
                float_underflow_error();
            }
        }
        pg_sys::Datum::from(p)
    }
}

sql_function!(
    /// `halfvec_add`: `+`.
    pg_finfo_halfvec_add, halfvec_add, |fc| { elementwise(fc, |a, b| a + b, false) }
);
sql_function!(
    /// `halfvec_sub`: `-`.
    pg_finfo_halfvec_sub, halfvec_sub, |fc| { elementwise(fc, |a, b| a - b, false) }
);
sql_function!(
    /// `halfvec_mul`: element-wise `*`.
    pg_finfo_halfvec_mul, halfvec_mul, |fc| { elementwise(fc, |a, b| a * b, true) }
);

sql_function!(
    /// `halfvec_concat`: `||`.
    pg_finfo_halfvec_concat, halfvec_concat, |fc| {
        let a = halfvec_arg(fc, 0);
        let b = halfvec_arg(fc, 1);
        let dim = a.x.len() + b.x.len();
        check_dim(dim as i64);
        let (p, x) = new_halfvec(dim);
        x[..a.x.len()].copy_from_slice(a.x);
        x[a.x.len()..].copy_from_slice(b.x);
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `binary_quantize(halfvec)`.
    pg_finfo_halfvec_binary_quantize, halfvec_binary_quantize, |fc| {
        let a = halfvec_arg(fc, 0);
        quantize(a.x.len(), |i| h2f(a.x[i]) > 0.0)
    }
);

sql_function!(
    /// `subvector(halfvec, int, int)`.
    pg_finfo_halfvec_subvector, halfvec_subvector, |fc| {
        let a = halfvec_arg(fc, 0);
        let r = subvector_range(a.x.len() as i32, arg_i32(fc, 1), arg_i32(fc, 2), "halfvec");
        check_dim(r.len() as i64);
        let (p, x) = new_halfvec(r.len());
        x.copy_from_slice(&a.x[r]);
        pg_sys::Datum::from(p)
    }
);

/// The ordering of the two arguments (by their single precision values, then dimensions).
///
/// # Safety
/// Arguments 0 and 1 of `fc` are half vectors.
unsafe fn cmp_args(fc: pg_sys::FunctionCallInfo) -> i32 {
    unsafe {
        let a: Vec<f32> = halfvec_arg(fc, 0).x.iter().map(|h| h2f(*h)).collect();
        let b: Vec<f32> = halfvec_arg(fc, 1).x.iter().map(|h| h2f(*h)).collect();
        compare(&a, &b)
    }
}

sql_function!(
    /// `halfvec_lt`.
    pg_finfo_halfvec_lt, halfvec_lt, |fc| { bool_datum(cmp_args(fc) < 0) }
);
sql_function!(
    /// `halfvec_le`.
    pg_finfo_halfvec_le, halfvec_le, |fc| { bool_datum(cmp_args(fc) <= 0) }
);
sql_function!(
    /// `halfvec_eq`.
    pg_finfo_halfvec_eq, halfvec_eq, |fc| { bool_datum(cmp_args(fc) == 0) }
);
sql_function!(
    /// `halfvec_ne`.
    pg_finfo_halfvec_ne, halfvec_ne, |fc| { bool_datum(cmp_args(fc) != 0) }
);
sql_function!(
    /// `halfvec_ge`.
    pg_finfo_halfvec_ge, halfvec_ge, |fc| { bool_datum(cmp_args(fc) >= 0) }
);
sql_function!(
    /// `halfvec_gt`.
    pg_finfo_halfvec_gt, halfvec_gt, |fc| { bool_datum(cmp_args(fc) > 0) }
);
sql_function!(
    /// `halfvec_cmp`.
    pg_finfo_halfvec_cmp, halfvec_cmp, |fc| { i32_datum(cmp_args(fc)) }
);

sql_function!(
    /// `halfvec_accum(double precision[], halfvec)`.
    pg_finfo_halfvec_accum, halfvec_accum, |fc| {
        let v = halfvec_arg(fc, 1);
        accum(arg(fc, 0), v.x.iter().map(|h| f64::from(h2f(*h))), "halfvec_accum")
    }
);

sql_function!(
    /// `halfvec_combine(double precision[], double precision[])`.
    pg_finfo_halfvec_combine, halfvec_combine, |fc| {
        crate::vector::combine(fc, "halfvec_combine")
    }
);

sql_function!(
    /// `halfvec_avg(double precision[])`.
    pg_finfo_halfvec_avg, halfvec_avg, |fc| {
        let s = state_array(arg(fc, 0), "halfvec_avg");
        let n = s[0];
        if n == 0.0 {
            return return_null(fc);
        }
        check_dim((s.len() - 1) as i64);
        let (p, x) = new_halfvec(s.len() - 1);
        for (o, v) in x.iter_mut().zip(&s[1..]) {
            *o = to_half((v / n) as f32);
            check_half(*o);
        }
        pg_sys::Datum::from(p)
    }
);
