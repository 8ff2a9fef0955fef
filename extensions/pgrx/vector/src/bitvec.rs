//! PostgreSQL's `bit` type as binary vectors: Hamming and Jaccard distances (`<~>`, `<%>`) and
//! the `bit(n)` values `binary_quantize` returns.

use crate::fmgr::*;
use crate::kernels;
use pgrx::pg_sys;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;

/// A bit string read in place: its length in bits and its bytes.
#[derive(Clone, Copy)]
pub struct BitsRef<'a> {
    /// The length in bits.
    pub len: i32,
    /// The bits, most significant first, padding bits zero.
    pub bytes: &'a [u8],
}

/// Reads a detoasted `bit` or `varbit`.
///
/// # Safety
/// `p` points at a detoasted bit string that outlives the result.
#[inline]
pub unsafe fn bits_at<'a>(p: *const u8) -> BitsRef<'a> {
    unsafe {
        let size = varsize(p);
        let len = p.add(4).cast::<i32>().read();
        let bytes = core::slice::from_raw_parts(p.add(8), size.saturating_sub(8));
        BitsRef { len, bytes }
    }
}

/// A new zeroed `bit(n)`.
///
/// # Safety
/// Inside a PostgreSQL call.
pub unsafe fn new_bit(n: usize) -> *mut u8 {
    unsafe {
        let p = new_varlena(8 + n.div_ceil(8));
        p.add(4).cast::<i32>().write(n as i32);
        p
    }
}

/// The two bit string arguments, checked to have the same length.
///
/// # Safety
/// Arguments 0 and 1 of `fc` are bit strings.
unsafe fn two<'a>(fc: pg_sys::FunctionCallInfo) -> (BitsRef<'a>, BitsRef<'a>) {
    unsafe {
        let a = bits_at(arg_varlena(fc, 0));
        let b = bits_at(arg_varlena(fc, 1));
        if a.len != b.len {
            raise(
                PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                format!(
                    "different bit lengths {} and {}",
                    a.len as u32, b.len as u32
                ),
            );
        }
        (a, b)
    }
}

sql_function!(
    /// `hamming_distance(bit, bit)`: `<~>`.
    pg_finfo_hamming_distance, hamming_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(kernels::hamming(a.bytes, b.bytes) as f64)
    }
);

sql_function!(
    /// `jaccard_distance(bit, bit)`: `<%>`.
    pg_finfo_jaccard_distance, jaccard_distance, |fc| {
        let (a, b) = two(fc);
        float8_datum(kernels::jaccard(a.bytes, b.bytes))
    }
);
