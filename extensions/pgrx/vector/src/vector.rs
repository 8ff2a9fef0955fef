//! The `vector` type: up to 16,000 single precision elements, stored as pgvector stores them
//! (varlena header, `int2` dimensions, `int2` zero, the elements), with its input and output,
//! binary form, casts, distances, arithmetic, comparisons and aggregate support.

use crate::fmgr::*;
use crate::kernels;
use crate::text::{Dense, check_single, parse_dense};
use pgrx::pg_sys;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;

/// The most dimensions a `vector` has.
pub const VECTOR_MAX_DIM: i32 = 16000;

/// Bytes before the elements: header, dimensions, unused.
pub const VECTOR_HEADER: usize = 8;

/// A `vector` read in place.
#[derive(Clone, Copy)]
pub struct VectorRef<'a> {
    /// The `unused` field (always zero when written here).
    pub unused: i16,
    /// The elements.
    pub x: &'a [f32],
}

impl VectorRef<'_> {
    /// The number of dimensions.
    pub fn dim(&self) -> i32 {
        self.x.len() as i32
    }
}

/// Reads a detoasted `vector`.
///
/// # Safety
/// `p` points at a detoasted `vector` that outlives the result.
#[inline]
pub unsafe fn vector_at<'a>(p: *const u8) -> VectorRef<'a> {
    unsafe {
        let dim = p.add(4).cast::<i16>().read();
        let unused = p.add(6).cast::<i16>().read();
        let x =
            core::slice::from_raw_parts(p.add(VECTOR_HEADER).cast::<f32>(), dim.max(0) as usize);
        VectorRef { unused, x }
    }
}

/// Argument `n` as a `vector`.
///
/// # Safety
/// Argument `n` of `fc` is a `vector`.
#[inline]
pub unsafe fn vector_arg<'a>(fc: pg_sys::FunctionCallInfo, n: usize) -> VectorRef<'a> {
    unsafe { vector_at(arg_varlena(fc, n)) }
}

/// A new zeroed `vector` of `dim` elements: the pointer and its elements.
///
/// # Safety
/// Inside a PostgreSQL call.
pub unsafe fn new_vector<'a>(dim: usize) -> (*mut u8, &'a mut [f32]) {
    unsafe {
        let p = new_varlena(VECTOR_HEADER + 4 * dim);
        p.add(4).cast::<i16>().write(dim as i16);
        let x = core::slice::from_raw_parts_mut(p.add(VECTOR_HEADER).cast::<f32>(), dim);
        (p, x)
    }
}

/// A new `vector` of `values` as a datum.
///
/// # Safety
/// Inside a PostgreSQL call.
pub unsafe fn vector_datum(values: &[f32]) -> pg_sys::Datum {
    unsafe {
        let (p, x) = new_vector(values.len());
        x.copy_from_slice(values);
        pg_sys::Datum::from(p)
    }
}

/// Errors unless `dim` is between 1 and 16,000.
pub fn check_dim(dim: i64) {
    if dim < 1 {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            "vector must have at least 1 dimension",
        );
    }
    if dim > i64::from(VECTOR_MAX_DIM) {
        raise(
            PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            format!("vector cannot have more than {VECTOR_MAX_DIM} dimensions"),
        );
    }
}

/// Errors unless `a` and `b` have the same dimensions.
#[inline]
pub fn check_dims(a: &VectorRef<'_>, b: &VectorRef<'_>) {
    if a.x.len() != b.x.len() {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            format!("different vector dimensions {} and {}", a.dim(), b.dim()),
        );
    }
}

/// The two `vector` arguments, checked to have the same dimensions.
///
/// # Safety
/// Arguments 0 and 1 of `fc` are vectors.
unsafe fn two<'a>(fc: pg_sys::FunctionCallInfo) -> (VectorRef<'a>, VectorRef<'a>) {
    unsafe {
        let a = vector_arg(fc, 0);
        let b = vector_arg(fc, 1);
        check_dims(&a, &b);
        (a, b)
    }
}

/// Appends the bracketed text of `values` (each as `f`) to `out`.
pub fn push_bracketed(out: &mut Vec<u8>, values: impl Iterator<Item = f32>) {
    out.push(b'[');
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_float(out, v);
    }
    out.push(b']');
}

sql_function!(
    /// `vector_in(cstring, oid, integer)`: the text form.
    pg_finfo_vector_in, vector_in, |fc| {
        let lit = cstr_bytes_with_nul(arg(fc, 0));
        let typmod = arg_i32(fc, 2);
        let bits = parse_dense(lit, Dense::Single, VECTOR_MAX_DIM as usize, typmod);
        let (p, x) = new_vector(bits.len());
        for (o, b) in x.iter_mut().zip(bits) {
            *o = f32::from_bits(b);
        }
        pg_sys::Datum::from(p)
    }
);

/// The bytes of a `cstring` datum with its NUL.
///
/// # Safety
/// `d` is a valid C string that outlives the result.
pub unsafe fn cstr_bytes_with_nul<'a>(d: pg_sys::Datum) -> &'a [u8] {
    unsafe { core::ffi::CStr::from_ptr(d.cast_mut_ptr::<core::ffi::c_char>()).to_bytes_with_nul() }
}

sql_function!(
    /// `vector_out(vector)`: `[1,2,3]`.
    pg_finfo_vector_out, vector_out, |fc| {
        let v = vector_arg(fc, 0);
        let mut out = Vec::with_capacity(v.x.len() * FLOAT_SHORTEST_DECIMAL_LEN + 2);
        push_bracketed(&mut out, v.x.iter().copied());
        cstring_datum(&out)
    }
);

sql_function!(
    /// `vector_typmod_in(cstring[])`: `vector(n)`.
    pg_finfo_vector_typmod_in, vector_typmod_in, |fc| {
        i32_datum(typmod_dimensions(integer_typmods(arg(fc, 0)), "vector", VECTOR_MAX_DIM))
    }
);

sql_function!(
    /// `vector_recv(internal, oid, integer)`: `int2` dimensions, `int2` zero, `float4`s.
    pg_finfo_vector_recv, vector_recv, |fc| {
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
        let (p, x) = new_vector(dim as usize);
        for o in x.iter_mut() {
            *o = m.f32();
            check_single(*o, "vector");
        }
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `vector_send(vector)`.
    pg_finfo_vector_send, vector_send, |fc| {
        let v = vector_arg(fc, 0);
        let mut out = Vec::with_capacity(4 + 4 * v.x.len());
        out.extend_from_slice(&(v.dim() as i16).to_be_bytes());
        out.extend_from_slice(&v.unused.to_be_bytes());
        for x in v.x {
            out.extend_from_slice(&x.to_bits().to_be_bytes());
        }
        bytea_datum(&out)
    }
);

sql_function!(
    /// `vector(vector, integer, boolean)`: the cast to `vector(n)`.
    pg_finfo_vector, vector, |fc| {
        let p = arg_varlena(fc, 0);
        check_expected_dim(arg_i32(fc, 1), vector_at(p).dim());
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `array_to_vector(integer[] | real[] | double precision[] | numeric[], integer, boolean)`.
    pg_finfo_array_to_vector, array_to_vector, |fc| {
        let (elemtype, elems) = array_elements(arg(fc, 0));
        let typmod = arg_i32(fc, 1);
        check_dim(elems.len() as i64);
        check_expected_dim(typmod, elems.len() as i32);
        let (p, x) = new_vector(elems.len());
        for (o, d) in x.iter_mut().zip(elems) {
            *o = array_element_f32(elemtype, *d);
        }
        for v in x.iter() {
            check_single(*v, "vector");
        }
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `vector_to_float4(vector, integer, boolean)`: the cast to `real[]`.
    pg_finfo_vector_to_float4, vector_to_float4, |fc| {
        let v = vector_arg(fc, 0);
        float4_array(v.x.iter().copied())
    }
);

sql_function!(
    /// `l2_distance(vector, vector)`: Euclidean distance.
    pg_finfo_l2_distance, l2_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::l2_squared(a.x, b.x)).sqrt())
    }
);

sql_function!(
    /// `vector_l2_squared_distance(vector, vector)`.
    pg_finfo_vector_l2_squared_distance, vector_l2_squared_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::l2_squared(a.x, b.x)))
    }
);

sql_function!(
    /// `inner_product(vector, vector)`.
    pg_finfo_inner_product, inner_product, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::inner_product(a.x, b.x)))
    }
);

sql_function!(
    /// `vector_negative_inner_product(vector, vector)`: the `<#>` operator.
    pg_finfo_vector_negative_inner_product, vector_negative_inner_product, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(-kernels::inner_product(a.x, b.x)))
    }
);

sql_function!(
    /// `cosine_distance(vector, vector)`.
    pg_finfo_cosine_distance, cosine_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(kernels::cosine_distance_from_similarity(kernels::cosine_similarity(a.x, b.x)))
    }
);

sql_function!(
    /// `vector_spherical_distance(vector, vector)`: angular distance of unit vectors.
    pg_finfo_vector_spherical_distance, vector_spherical_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(kernels::spherical_distance(f64::from(kernels::inner_product(a.x, b.x))))
    }
);

sql_function!(
    /// `l1_distance(vector, vector)`: taxicab distance.
    pg_finfo_l1_distance, l1_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(f64::from(kernels::l1(a.x, b.x)))
    }
);

sql_function!(
    /// `vector_dims(vector)`.
    pg_finfo_vector_dims, vector_dims, |fc| {
        i32_datum(vector_arg(fc, 0).dim())
    }
);

sql_function!(
    /// `vector_norm(vector)`: the Euclidean norm.
    pg_finfo_vector_norm, vector_norm, |fc| {
        float8_datum(kernels::norm(vector_arg(fc, 0).x))
    }
);

/// `x` divided by its Euclidean norm (zero stays zero); an infinite result is an overflow.
pub fn normalize_into(x: &[f32], out: &mut [f32]) {
    let norm = kernels::norm(x);
    if norm > 0.0 {
        for (o, v) in out.iter_mut().zip(x) {
            *o = (f64::from(*v) / norm) as f32;
        }
        if out.iter().any(|v| v.is_infinite()) {
            float_overflow_error();
        }
    }
}

sql_function!(
    /// `l2_normalize(vector)`.
    pg_finfo_l2_normalize, l2_normalize, |fc| {
        let a = vector_arg(fc, 0);
        let (p, x) = new_vector(a.x.len());
        normalize_into(a.x, x);
        pg_sys::Datum::from(p)
    }
);

/// Element-wise `f`, with pgvector's overflow (and, for `*`, underflow) checks.
///
/// # Safety
/// Arguments 0 and 1 of `fc` are vectors.
unsafe fn elementwise(
    fc: pg_sys::FunctionCallInfo,
    f: impl Fn(f32, f32) -> f32,
    underflow: bool,
) -> pg_sys::Datum {
    unsafe {
        let (a, b) = two(fc);
        let (p, x) = new_vector(a.x.len());
        for ((o, u), v) in x.iter_mut().zip(a.x).zip(b.x) {
            *o = f(*u, *v);
        }
        for ((o, u), v) in x.iter().zip(a.x).zip(b.x) {
            if o.is_infinite() {
                float_overflow_error();
            }
            if underflow && *o == 0.0 && !(*u == 0.0 || *v == 0.0) {
                float_underflow_error();
            }
        }
        pg_sys::Datum::from(p)
    }
}

sql_function!(
    /// `vector_add(vector, vector)`: `+`.
    pg_finfo_vector_add, vector_add, |fc| {
        elementwise(fc, |a, b| a + b, false)
    }
);

sql_function!(
    /// `vector_sub(vector, vector)`: `-`.
    pg_finfo_vector_sub, vector_sub, |fc| {
        elementwise(fc, |a, b| a - b, false)
    }
);

sql_function!(
    /// `vector_mul(vector, vector)`: element-wise `*`.
    pg_finfo_vector_mul, vector_mul, |fc| {
        elementwise(fc, |a, b| a * b, true)
    }
);

sql_function!(
    /// `vector_concat(vector, vector)`: `||`.
    pg_finfo_vector_concat, vector_concat, |fc| {
        let a = vector_arg(fc, 0);
        let b = vector_arg(fc, 1);
        let dim = a.x.len() + b.x.len();
        check_dim(dim as i64);
        let (p, x) = new_vector(dim);
        x[..a.x.len()].copy_from_slice(a.x);
        x[a.x.len()..].copy_from_slice(b.x);
        pg_sys::Datum::from(p)
    }
);

/// A new `bit(n)` with bit `i` set where `positive(i)`.
///
/// # Safety
/// Inside a PostgreSQL call.
pub unsafe fn quantize(n: usize, positive: impl Fn(usize) -> bool) -> pg_sys::Datum {
    unsafe {
        let p = crate::bitvec::new_bit(n);
        let bytes = core::slice::from_raw_parts_mut(p.add(8), n.div_ceil(8));
        for i in 0..n {
            if positive(i) {
                bytes[i / 8] |= 1 << (7 - (i % 8));
            }
        }
        pg_sys::Datum::from(p)
    }
}

sql_function!(
    /// `binary_quantize(vector)`: a bit per element, set where it is positive.
    pg_finfo_binary_quantize, binary_quantize, |fc| {
        let a = vector_arg(fc, 0);
        quantize(a.x.len(), |i| a.x[i] > 0.0)
    }
);

/// The 0-based range of `subvector(v, start, count)` on `dim` elements (1-based `start`, as
/// `substring`), or the error pgvector gives (`name` is the type's name).
pub fn subvector_range(dim: i32, start: i32, count: i32, name: &str) -> core::ops::Range<usize> {
    let empty = || -> ! {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            format!("{name} must have at least 1 dimension"),
        )
    };
    if count < 1 {
        empty();
    }
    let end = if start > dim - count {
        dim + 1
    } else {
        start + count
    };
    let start = if start < 1 {
        1
    } else if start > dim {
        empty()
    } else {
        start
    };
    if end - start < 1 {
        empty();
    }
    (start - 1) as usize..(end - 1) as usize
}

sql_function!(
    /// `subvector(vector, int, int)`.
    pg_finfo_subvector, subvector, |fc| {
        let a = vector_arg(fc, 0);
        let r = subvector_range(a.dim(), arg_i32(fc, 1), arg_i32(fc, 2), "vector");
        check_dim(r.len() as i64);
        vector_datum(&a.x[r])
    }
);

/// pgvector's ordering of vectors: element by element, then by dimensions.
pub fn compare(a: &[f32], b: &[f32]) -> i32 {
    for (x, y) in a.iter().zip(b) {
        if x < y {
            return -1;
        }
        if x > y {
            return 1;
        }
    }
    match a.len().cmp(&b.len()) {
        core::cmp::Ordering::Less => -1,
        core::cmp::Ordering::Greater => 1,
        core::cmp::Ordering::Equal => 0,
    }
}

/// [`compare`] of the two arguments.
///
/// # Safety
/// Arguments 0 and 1 of `fc` are vectors.
unsafe fn cmp_args(fc: pg_sys::FunctionCallInfo) -> i32 {
    unsafe { compare(vector_arg(fc, 0).x, vector_arg(fc, 1).x) }
}

sql_function!(
    /// `vector_lt`.
    pg_finfo_vector_lt, vector_lt, |fc| { bool_datum(cmp_args(fc) < 0) }
);
sql_function!(
    /// `vector_le`.
    pg_finfo_vector_le, vector_le, |fc| { bool_datum(cmp_args(fc) <= 0) }
);
sql_function!(
    /// `vector_eq`.
    pg_finfo_vector_eq, vector_eq, |fc| { bool_datum(cmp_args(fc) == 0) }
);
sql_function!(
    /// `vector_ne`.
    pg_finfo_vector_ne, vector_ne, |fc| { bool_datum(cmp_args(fc) != 0) }
);
sql_function!(
    /// `vector_ge`.
    pg_finfo_vector_ge, vector_ge, |fc| { bool_datum(cmp_args(fc) >= 0) }
);
sql_function!(
    /// `vector_gt`.
    pg_finfo_vector_gt, vector_gt, |fc| { bool_datum(cmp_args(fc) > 0) }
);
sql_function!(
    /// `vector_cmp`: the btree support function.
    pg_finfo_vector_cmp, vector_cmp, |fc| { i32_datum(cmp_args(fc)) }
);

/// The aggregate transition of `avg`: the state `{n, sum...}` with `x` added (`caller` names the
/// function in a state error).
///
/// # Safety
/// `state` is a `double precision[]` datum.
pub unsafe fn accum(
    state: pg_sys::Datum,
    x: impl ExactSizeIterator<Item = f64>,
    caller: &str,
) -> pg_sys::Datum {
    unsafe {
        let s = state_array(state, caller);
        let dim = s.len() - 1;
        let fresh = dim == 0;
        if !fresh {
            check_expected_dim(dim as i32, x.len() as i32);
        }
        let mut out = Vec::with_capacity(x.len() + 1);
        out.push(s[0] + 1.0);
        if fresh {
            out.extend(x);
        } else {
            for (acc, v) in s[1..].iter().zip(x) {
                let t = acc + v;
                if t.is_infinite() {
                    float_overflow_error();
                }
                out.push(t);
            }
        }
        float8_array(&out)
    }
}

/// The aggregate combination of two `avg` states.
///
/// # Safety
/// Arguments 0 and 1 of `fc` are `double precision[]` states.
pub unsafe fn combine(fc: pg_sys::FunctionCallInfo, caller: &str) -> pg_sys::Datum {
    unsafe {
        let a = state_array(arg(fc, 0), caller);
        let b = state_array(arg(fc, 1), caller);
        let out: Vec<f64> = if a[0] == 0.0 {
            b.to_vec()
        } else if b[0] == 0.0 {
            a.to_vec()
        } else {
            check_expected_dim((a.len() - 1) as i32, (b.len() - 1) as i32);
            let mut out = Vec::with_capacity(a.len());
            out.push(a[0] + b[0]);
            for (x, y) in a[1..].iter().zip(&b[1..]) {
                let t = x + y;
                if t.is_infinite() {
                    float_overflow_error();
                }
                out.push(t);
            }
            out
        };
        float8_array(&out)
    }
}

sql_function!(
    /// `vector_accum(double precision[], vector)`.
    pg_finfo_vector_accum, vector_accum, |fc| {
        let v = vector_arg(fc, 1);
        accum(arg(fc, 0), v.x.iter().map(|x| f64::from(*x)), "vector_accum")
    }
);

sql_function!(
    /// `vector_combine(double precision[], double precision[])` (also halfvec's).
    pg_finfo_vector_combine, vector_combine, |fc| {
        combine(fc, "vector_combine")
    }
);

sql_function!(
    /// `vector_avg(double precision[])`: NULL for no rows.
    pg_finfo_vector_avg, vector_avg, |fc| {
        let s = state_array(arg(fc, 0), "vector_avg");
        let n = s[0];
        if n == 0.0 {
            return return_null(fc);
        }
        check_dim((s.len() - 1) as i64);
        let (p, x) = new_vector(s.len() - 1);
        for (o, v) in x.iter_mut().zip(&s[1..]) {
            *o = (v / n) as f32;
            check_single(*o, "vector");
        }
        pg_sys::Datum::from(p)
    }
);
