//! The calling convention of PostgreSQL's version-1 C functions, written by hand: the install
//! script names each function's symbol as pgvector's does, so every SQL-callable function here is
//! a `#[no_mangle]` function taking the raw `FunctionCallInfo`, declared with [`sql_function!`]
//! (which also emits the `pg_finfo_*` record PostgreSQL looks up before calling it). This module
//! also has the varlena, array and error helpers those functions share.

use core::ffi::{c_char, c_int};
use pgrx::PgLogLevel;
use pgrx::pg_sys;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;
use pgrx::pg_sys::panic::ErrorReport;

#[cfg(not(target_endian = "little"))]
compile_error!("varlena headers are read as little-endian 4-byte words");

/// Declares a version-1 C function named `$name` with its `pg_finfo_$name` record.
///
/// The body gets the call's `FunctionCallInfo` as `$fc` and returns a `Datum`. Errors are raised
/// with [`raise`]; the guard turns them (and any Rust panic) into PostgreSQL errors.
macro_rules! sql_function {
    ($(#[$doc:meta])* $finfo:ident, $name:ident, |$fc:ident| $body:block) => {
        #[doc = concat!("The version-1 record of `", stringify!($name), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $finfo() -> &'static pgrx::pg_sys::Pg_finfo_record {
            const V1: pgrx::pg_sys::Pg_finfo_record = pgrx::pg_sys::Pg_finfo_record { api_version: 1 };
            &V1
        }

        $(#[$doc])*
        ///
        /// # Safety
        /// Called by PostgreSQL's function manager with the arguments the install script declares.
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(fcinfo: pgrx::pg_sys::FunctionCallInfo) -> pgrx::pg_sys::Datum {
            // What #[pg_guard] expands to (it cannot take this macro's argument name): a panic
            // or PostgreSQL error inside becomes an ERROR raised from here.
            // SAFETY: the guard runs the body once, on this thread; the body's own unsafe
            // operations rely on PostgreSQL passing the arguments the install script declares.
            unsafe {
                pgrx::pg_sys::submodules::panic::pgrx_extern_c_guard(move || {
                    let $fc = fcinfo;
                    $body
                })
            }
        }
    };
}
pub(crate) use sql_function;

/// Raises an ERROR with `code` and `message`.
#[track_caller]
pub fn raise(code: PgSqlErrorCode, message: impl Into<String>) -> ! {
    ErrorReport::new(code, message.into(), "vector").report(PgLogLevel::ERROR);
    unreachable!("an ERROR report does not return")
}

/// Raises an ERROR with `code`, `message` and `detail`.
#[track_caller]
pub fn raise_detail(code: PgSqlErrorCode, message: impl Into<String>, detail: &str) -> ! {
    ErrorReport::new(code, message.into(), "vector")
        .set_detail(detail)
        .report(PgLogLevel::ERROR);
    unreachable!("an ERROR report does not return")
}

/// Raises an ERROR with `code`, `message` and `detail` and `hint`, at `level`.
pub fn report(level: PgLogLevel, code: PgSqlErrorCode, message: String, detail: &str, hint: &str) {
    ErrorReport::new(code, message, "vector")
        .set_detail(detail)
        .set_hint(hint)
        .report(level);
}

/// The raw datum of argument `n`.
///
/// # Safety
/// `fc` is a valid call with more than `n` arguments.
#[inline]
pub unsafe fn arg(fc: pg_sys::FunctionCallInfo, n: usize) -> pg_sys::Datum {
    unsafe { (*(*fc).args.as_ptr().add(n)).value }
}

/// Whether argument `n` is NULL.
///
/// # Safety
/// `fc` is a valid call with more than `n` arguments.
#[inline]
pub unsafe fn arg_is_null(fc: pg_sys::FunctionCallInfo, n: usize) -> bool {
    unsafe { (*(*fc).args.as_ptr().add(n)).isnull }
}

/// Argument `n` as an `int4`.
///
/// # Safety
/// As [`arg`].
#[inline]
pub unsafe fn arg_i32(fc: pg_sys::FunctionCallInfo, n: usize) -> i32 {
    unsafe { arg(fc, n).value() as i32 }
}

/// Argument `n` detoasted: a varlena with a 4-byte header, in memory this call may read.
///
/// # Safety
/// As [`arg`], and argument `n` is of a varlena type.
#[inline]
pub unsafe fn arg_varlena(fc: pg_sys::FunctionCallInfo, n: usize) -> *mut u8 {
    unsafe { detoast(arg(fc, n)) }
}

/// A varlena datum detoasted (decompressed, fetched, or given a 4-byte header).
///
/// # Safety
/// `d` is a varlena datum.
#[inline]
pub unsafe fn detoast(d: pg_sys::Datum) -> *mut u8 {
    unsafe { pg_sys::pg_detoast_datum(d.cast_mut_ptr::<pg_sys::varlena>()).cast::<u8>() }
}

/// Marks the call's result NULL.
///
/// # Safety
/// `fc` is a valid call.
pub unsafe fn return_null(fc: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    unsafe { (*fc).isnull = true };
    pg_sys::Datum::from(0usize)
}

/// A `float8` result.
#[inline]
pub fn float8_datum(v: f64) -> pg_sys::Datum {
    pg_sys::Datum::from(v.to_bits() as usize)
}

/// A `float4` as a datum.
#[inline]
pub fn float4_datum(v: f32) -> pg_sys::Datum {
    pg_sys::Datum::from(v.to_bits() as usize)
}

/// A `bool` result.
#[inline]
pub fn bool_datum(v: bool) -> pg_sys::Datum {
    pg_sys::Datum::from(usize::from(v))
}

/// An `int4` result.
#[inline]
pub fn i32_datum(v: i32) -> pg_sys::Datum {
    pg_sys::Datum::from(v as u32 as usize)
}

/// The total size of a varlena with a 4-byte header.
///
/// # Safety
/// `p` points at a varlena with a 4-byte (uncompressed, inline) header.
#[inline]
pub unsafe fn varsize(p: *const u8) -> usize {
    (unsafe { p.cast::<u32>().read() } >> 2) as usize
}

/// Sets the 4-byte header of a varlena of `len` bytes in all.
///
/// # Safety
/// `p` points at at least four writable, 4-aligned bytes.
#[inline]
pub unsafe fn set_varsize(p: *mut u8, len: usize) {
    unsafe { p.cast::<u32>().write((len as u32) << 2) };
}

/// `size` zeroed bytes in the current memory context.
///
/// # Safety
/// Inside a PostgreSQL call (a current memory context exists).
#[inline]
pub unsafe fn palloc0(size: usize) -> *mut u8 {
    unsafe { pg_sys::palloc0(size).cast::<u8>() }
}

/// A new varlena of `size` bytes in all, zeroed, header set.
///
/// # Safety
/// As [`palloc0`].
pub unsafe fn new_varlena(size: usize) -> *mut u8 {
    unsafe {
        let p = palloc0(size);
        set_varsize(p, size);
        p
    }
}

/// A C string copy of `s` in the current memory context.
///
/// # Safety
/// As [`palloc0`].
pub unsafe fn cstring_datum(s: &[u8]) -> pg_sys::Datum {
    unsafe {
        let p = palloc0(s.len() + 1);
        core::ptr::copy_nonoverlapping(s.as_ptr(), p, s.len());
        pg_sys::Datum::from(p)
    }
}

/// The bytes of a NUL-terminated C string.
///
/// # Safety
/// `p` is a valid C string that outlives the result.
pub unsafe fn cstr_bytes<'a>(p: *const c_char) -> &'a [u8] {
    unsafe { core::ffi::CStr::from_ptr(p).to_bytes() }
}

unsafe extern "C-unwind" {
    /// numeric_float4, PostgreSQL's cast of `numeric` to `real`, as a function pointer for
    /// DirectFunctionCall1Coll.
    #[link_name = "numeric_float4"]
    fn numeric_float4_raw(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum;
}

unsafe extern "C" {
    /// PostgreSQL's shortest round-trip decimal form of a `float4` (common/shortest_dec.h), as
    /// float4out prints with `extra_float_digits` > 0; writes at most 15 bytes, no NUL.
    fn float_to_shortest_decimal_bufn(f: f32, result: *mut c_char) -> c_int;
}

/// The most bytes [`push_float`] appends.
pub const FLOAT_SHORTEST_DECIMAL_LEN: usize = 16;

/// Appends PostgreSQL's shortest decimal text of `f` to `out`.
pub fn push_float(out: &mut Vec<u8>, f: f32) {
    let mut buf = [0u8; FLOAT_SHORTEST_DECIMAL_LEN];
    // SAFETY: the buffer holds FLOAT_SHORTEST_DECIMAL_LEN bytes, more than the function writes.
    let n = unsafe { float_to_shortest_decimal_bufn(f, buf.as_mut_ptr().cast::<c_char>()) };
    out.extend_from_slice(&buf[..n as usize]);
}

/// The text of `f` as PostgreSQL prints a `float4`.
pub fn float_text(f: f32) -> String {
    let mut out = Vec::with_capacity(FLOAT_SHORTEST_DECIMAL_LEN);
    push_float(&mut out, f);
    String::from_utf8_lossy(&out).into_owned()
}

/// A one-dimensional array's elements, checked as pgvector checks array inputs: the array must be
/// 1-D without NULLs; its element type is returned beside the elements.
///
/// # Safety
/// `d` is an array datum.
pub unsafe fn array_elements<'a>(d: pg_sys::Datum) -> (pg_sys::Oid, &'a [pg_sys::Datum]) {
    unsafe {
        let array = detoast(d).cast::<pg_sys::ArrayType>();
        if (*array).ndim > 1 {
            raise(PgSqlErrorCode::ERRCODE_DATA_EXCEPTION, "array must be 1-D");
        }
        if (*array).dataoffset != 0 && pg_sys::array_contains_nulls(array) {
            raise(
                PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
                "array must not contain nulls",
            );
        }
        let elemtype = (*array).elemtype;
        let mut typlen: i16 = 0;
        let mut typbyval = false;
        let mut typalign: c_char = 0;
        pg_sys::get_typlenbyvalalign(elemtype, &mut typlen, &mut typbyval, &mut typalign);
        let mut elems: *mut pg_sys::Datum = core::ptr::null_mut();
        let mut n: c_int = 0;
        pg_sys::deconstruct_array(
            array,
            elemtype,
            c_int::from(typlen),
            typbyval,
            typalign,
            &mut elems,
            core::ptr::null_mut(),
            &mut n,
        );
        let elems = if n == 0 || elems.is_null() {
            &[][..]
        } else {
            core::slice::from_raw_parts(elems, n as usize)
        };
        (elemtype, elems)
    }
}

/// An array element of type `elemtype` (int4, float4, float8 or numeric) as a `float4`, as
/// pgvector converts array inputs; another element type is an error.
///
/// # Safety
/// `d` is a datum of type `elemtype`.
pub unsafe fn array_element_f32(elemtype: pg_sys::Oid, d: pg_sys::Datum) -> f32 {
    match elemtype {
        pg_sys::INT4OID => d.value() as i32 as f32,
        pg_sys::FLOAT8OID => f64::from_bits(d.value() as u64) as f32,
        pg_sys::FLOAT4OID => f32::from_bits(d.value() as u32),
        pg_sys::NUMERICOID => {
            // SAFETY: numeric_float4 takes one numeric datum.
            let r = unsafe {
                pg_sys::DirectFunctionCall1Coll(Some(numeric_float4_raw), pg_sys::InvalidOid, d)
            };
            f32::from_bits(r.value() as u32)
        }
        _ => raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            "unsupported array type",
        ),
    }
}

/// A `real[]` of `values`.
///
/// # Safety
/// Inside a PostgreSQL call.
pub unsafe fn float4_array(values: impl ExactSizeIterator<Item = f32>) -> pg_sys::Datum {
    unsafe {
        let n = values.len();
        let datums = pg_sys::palloc(core::mem::size_of::<pg_sys::Datum>() * n.max(1))
            .cast::<pg_sys::Datum>();
        for (i, v) in values.enumerate() {
            datums.add(i).write(float4_datum(v));
        }
        let a = pg_sys::construct_array(
            datums,
            n as c_int,
            pg_sys::FLOAT4OID,
            4,
            true,
            b'i' as c_char,
        );
        pg_sys::pfree(datums.cast());
        pg_sys::Datum::from(a)
    }
}

/// A `double precision[]` of `values`.
///
/// # Safety
/// Inside a PostgreSQL call.
pub unsafe fn float8_array(values: &[f64]) -> pg_sys::Datum {
    unsafe {
        let n = values.len();
        let datums = pg_sys::palloc(core::mem::size_of::<pg_sys::Datum>() * n.max(1))
            .cast::<pg_sys::Datum>();
        for (i, v) in values.iter().enumerate() {
            datums.add(i).write(float8_datum(*v));
        }
        let a = pg_sys::construct_array(
            datums,
            n as c_int,
            pg_sys::FLOAT8OID,
            8,
            true,
            b'd' as c_char,
        );
        pg_sys::pfree(datums.cast());
        pg_sys::Datum::from(a)
    }
}

/// The elements of an aggregate's `double precision[]` state, checked as pgvector checks it
/// (one dimension, at least one element, no NULLs, float8); `caller` names the function in the
/// error.
///
/// # Safety
/// `d` is an array datum.
pub unsafe fn state_array<'a>(d: pg_sys::Datum, caller: &str) -> &'a [f64] {
    unsafe {
        let a = detoast(d).cast::<pg_sys::ArrayType>();
        let ndim = (*a).ndim;
        let dims = a
            .cast::<u8>()
            .add(core::mem::size_of::<pg_sys::ArrayType>())
            .cast::<i32>();
        if ndim != 1 || *dims < 1 || (*a).dataoffset != 0 || (*a).elemtype != pg_sys::FLOAT8OID {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                format!("{caller}: expected state array"),
            );
        }
        let header = core::mem::size_of::<pg_sys::ArrayType>() + 2 * core::mem::size_of::<i32>();
        let data = a.cast::<u8>().add(maxalign(header)).cast::<f64>();
        core::slice::from_raw_parts(data, *dims as usize)
    }
}

/// `len` rounded up to PostgreSQL's maximum alignment (8).
#[inline]
pub const fn maxalign(len: usize) -> usize {
    (len + 7) & !7
}

/// The type modifiers of a `typmod_in` call's `cstring[]` argument.
///
/// # Safety
/// `d` is a `cstring[]` datum.
pub unsafe fn integer_typmods<'a>(d: pg_sys::Datum) -> &'a [i32] {
    unsafe {
        let a = detoast(d).cast::<pg_sys::ArrayType>();
        let mut n: c_int = 0;
        let tl = pg_sys::ArrayGetIntegerTypmods(a, &mut n);
        if n <= 0 || tl.is_null() {
            &[]
        } else {
            core::slice::from_raw_parts(tl, n as usize)
        }
    }
}

/// Checks a `typmod_in` call's modifiers for a type whose dimensions are at most `max`, as
/// pgvector's typmod functions do, and returns the dimensions.
pub fn typmod_dimensions(tl: &[i32], type_name: &str, max: i32) -> i32 {
    if tl.len() != 1 {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            "invalid type modifier",
        );
    }
    if tl[0] < 1 {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("dimensions for type {type_name} must be at least 1"),
        );
    }
    if tl[0] > max {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("dimensions for type {type_name} cannot exceed {max}"),
        );
    }
    tl[0]
}

/// Errors when a value of `dim` dimensions is given to a column of `typmod` dimensions.
pub fn check_expected_dim(typmod: i32, dim: i32) {
    if typmod != -1 && typmod != dim {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            format!("expected {typmod} dimensions, not {dim}"),
        );
    }
}

/// PostgreSQL's "value out of range: overflow" error, as float arithmetic raises it.
pub fn float_overflow_error() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: overflow",
    )
}

/// PostgreSQL's "value out of range: underflow" error.
pub fn float_underflow_error() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
        "value out of range: underflow",
    )
}

/// A binary message buffer (`StringInfo`) as the receive functions get it.
pub struct Message(pub pg_sys::StringInfo);

impl Message {
    /// The next big-endian `int2`.
    pub fn i16(&mut self) -> i16 {
        // SAFETY: pq_getmsgint reads from a valid message and errors past its end.
        unsafe { pg_sys::pq_getmsgint(self.0, 2) as u16 as i16 }
    }

    /// The next big-endian `uint2`.
    pub fn u16(&mut self) -> u16 {
        // SAFETY: as above.
        unsafe { pg_sys::pq_getmsgint(self.0, 2) as u16 }
    }

    /// The next big-endian `int4`.
    pub fn i32(&mut self) -> i32 {
        // SAFETY: as above.
        unsafe { pg_sys::pq_getmsgint(self.0, 4) as i32 }
    }

    /// The next `float4`.
    pub fn f32(&mut self) -> f32 {
        // SAFETY: as above.
        unsafe { pg_sys::pq_getmsgfloat4(self.0) }
    }
}

/// A `bytea` of `bytes` (a send function's result).
///
/// # Safety
/// Inside a PostgreSQL call.
pub unsafe fn bytea_datum(bytes: &[u8]) -> pg_sys::Datum {
    unsafe {
        let size = pg_sys::VARHDRSZ + bytes.len();
        let p = new_varlena(size);
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), p.add(pg_sys::VARHDRSZ), bytes.len());
        pg_sys::Datum::from(p)
    }
}
