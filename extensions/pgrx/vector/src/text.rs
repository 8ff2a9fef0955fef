//! The text forms: `[1,2,3]` for `vector` and `halfvec`, `{1:1,3:2}/5` for `sparsevec`, read
//! as pgvector reads them (numbers with the C library's `strtof` and `strtol`, as float4in and
//! int2vectorin do, so `1e3`, `inf` and hexadecimal floats mean what they mean there), with
//! pgvector's error texts, codes and details.

use crate::fmgr::{check_expected_dim, raise, raise_detail};
use crate::kernels::{f2h, half_is_inf, half_is_nan};
use core::ffi::c_char;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;

/// Whether `c` is white space as PostgreSQL's array input counts it.
#[inline]
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

/// A NUL-terminated input and a position in it.
struct Cursor<'a> {
    /// The input with its terminating NUL.
    s: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> u8 {
        self.s[self.pos]
    }

    fn skip_space(&mut self) {
        while is_space(self.peek()) {
            self.pos += 1;
        }
    }

    /// `strtof` at the cursor: the value, how many bytes it read, and whether it set ERANGE.
    fn strtof(&mut self) -> (f32, usize, bool) {
        let start = self.s[self.pos..].as_ptr().cast::<c_char>();
        let mut end: *mut c_char = core::ptr::null_mut();
        // SAFETY: `start` is inside a NUL-terminated buffer; errno is this thread's.
        let (v, erange) = unsafe {
            *libc::__errno_location() = 0;
            let v = libc::strtof(start, &mut end);
            (v, *libc::__errno_location() == libc::ERANGE)
        };
        let n = end as usize - start as usize;
        self.pos += n;
        (v, n, erange)
    }

    /// `strtol` (base 10) at the cursor, kept in `[lo, hi]`: the value and how many bytes it read.
    fn strtol(&mut self, lo: i64, hi: i64) -> (i64, usize) {
        let start = self.s[self.pos..].as_ptr().cast::<c_char>();
        let mut end: *mut c_char = core::ptr::null_mut();
        // SAFETY: as above.
        let v = unsafe { libc::strtol(start, &mut end, 10) };
        let n = end as usize - start as usize;
        self.pos += n;
        (v.clamp(lo, hi), n)
    }

    /// The text of the `n` bytes before the cursor.
    fn last(&self, n: usize) -> String {
        String::from_utf8_lossy(&self.s[self.pos - n..self.pos]).into_owned()
    }
}

/// The element types the bracketed form reads into.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dense {
    /// `vector`: single precision.
    Single,
    /// `halfvec`: half precision.
    Half,
}

impl Dense {
    fn name(self) -> &'static str {
        match self {
            Dense::Single => "vector",
            Dense::Half => "halfvec",
        }
    }
}

/// Reads the bracketed form `lit` (with its NUL) as `kind` with at most `max_dim` elements,
/// checked against `typmod`: the elements as single precision bits (`vector`) or half
/// precision bits widened to u32 (`halfvec`).
pub fn parse_dense(lit: &[u8], kind: Dense, max_dim: usize, typmod: i32) -> Vec<u32> {
    let name = kind.name();
    let shown = String::from_utf8_lossy(&lit[..lit.len() - 1]).into_owned();
    let syntax = || -> ! {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type {name}: \"{shown}\""),
        )
    };
    let mut c = Cursor { s: lit, pos: 0 };
    c.skip_space();
    if c.peek() != b'[' {
        raise_detail(
            PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type {name}: \"{shown}\""),
            "Vector contents must start with \"[\".",
        );
    }
    c.pos += 1;
    c.skip_space();
    if c.peek() == b']' {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            format!("{name} must have at least 1 dimension"),
        );
    }
    let mut out: Vec<u32> = Vec::new();
    loop {
        if out.len() == max_dim {
            raise(
                PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
                format!("{name} cannot have more than {max_dim} dimensions"),
            );
        }
        c.skip_space();
        if c.peek() == 0 {
            syntax();
        }
        let (val, n, erange) = c.strtof();
        if n == 0 {
            syntax();
        }
        match kind {
            Dense::Single => {
                if erange && val.is_infinite() {
                    raise(
                        PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
                        format!("\"{}\" is out of range for type vector", c.last(n)),
                    );
                }
                check_single(val, "vector");
                out.push(val.to_bits());
            }
            Dense::Half => {
                let h = f2h(val);
                if (erange && val.is_infinite()) || (half_is_inf(h) && !val.is_infinite()) {
                    raise(
                        PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
                        format!("\"{}\" is out of range for type halfvec", c.last(n)),
                    );
                }
                check_half(h);
                out.push(u32::from(h));
            }
        }
        c.skip_space();
        match c.peek() {
            b',' => c.pos += 1,
            b']' => {
                c.pos += 1;
                break;
            }
            _ => syntax(),
        }
    }
    c.skip_space();
    if c.peek() != 0 {
        raise_detail(
            PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type {name}: \"{shown}\""),
            "Junk after closing right brace.",
        );
    }
    check_expected_dim(typmod, out.len() as i32);
    out
}

/// Errors on a NaN or infinite element of a single precision type named `name`.
pub fn check_single(v: f32, name: &str) {
    if v.is_nan() {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            format!("NaN not allowed in {name}"),
        );
    }
    if v.is_infinite() {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            format!("infinite value not allowed in {name}"),
        );
    }
}

/// Errors on a NaN or infinite half precision element.
pub fn check_half(h: u16) {
    if half_is_nan(h) {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            "NaN not allowed in halfvec",
        );
    }
    if half_is_inf(h) {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            "infinite value not allowed in halfvec",
        );
    }
}

/// The most non-zero elements a sparse vector has.
pub const SPARSEVEC_MAX_NNZ: usize = 16000;

/// The most dimensions a `sparsevec` has.
pub const SPARSEVEC_MAX_DIM: i32 = 1_000_000_000;

/// Errors unless `dim` is between 1 and 1,000,000,000 (a `sparsevec`'s dimensions).
pub fn check_sparse_dim(dim: i32) {
    if dim < 1 {
        raise(
            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
            "sparsevec must have at least 1 dimension",
        );
    }
    if dim > SPARSEVEC_MAX_DIM {
        raise(
            PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            format!("sparsevec cannot have more than {SPARSEVEC_MAX_DIM} dimensions"),
        );
    }
}

/// Reads the form `{index:value,...}/dim` (`lit` with its NUL), 1-based indices, checked against
/// `typmod`: the dimensions and the non-zero elements as sorted 0-based indices and values (not
/// yet checked for bounds and duplicates: [`crate::sparsevec`] does that as it builds).
pub fn parse_sparse(lit: &[u8], typmod: i32) -> (i32, Vec<(i32, f32)>) {
    let shown = String::from_utf8_lossy(&lit[..lit.len() - 1]).into_owned();
    let syntax = || -> ! {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type sparsevec: \"{shown}\""),
        )
    };
    let syntax_detail = |detail: &str| -> ! {
        raise_detail(
            PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type sparsevec: \"{shown}\""),
            detail,
        )
    };
    let max_nnz = 1 + lit.iter().filter(|b| **b == b',').count();
    if max_nnz > SPARSEVEC_MAX_NNZ {
        raise(
            PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            format!("sparsevec cannot have more than {SPARSEVEC_MAX_NNZ} non-zero elements"),
        );
    }
    let mut elements: Vec<(i32, f32)> = Vec::new();
    let mut c = Cursor { s: lit, pos: 0 };
    c.skip_space();
    if c.peek() != b'{' {
        syntax_detail("Vector contents must start with \"{\".");
    }
    c.pos += 1;
    c.skip_space();
    if c.peek() == b'}' {
        c.pos += 1;
    } else {
        let mut read = 0usize;
        loop {
            if read == max_nnz {
                raise(
                    PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
                    format!("ran out of buffer: \"{shown}\""),
                );
            }
            c.skip_space();
            if c.peek() == 0 {
                syntax();
            }
            let (index, n) = c.strtol(i64::from(i32::MIN) + 1, i64::from(i32::MAX));
            if n == 0 {
                syntax();
            }
            c.skip_space();
            if c.peek() != b':' {
                syntax();
            }
            c.pos += 1;
            c.skip_space();
            let (value, n, erange) = c.strtof();
            if n == 0 {
                syntax();
            }
            if erange && (value == 0.0 || value.is_infinite()) {
                raise(
                    PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
                    format!("\"{}\" is out of range for type sparsevec", c.last(n)),
                );
            }
            check_single(value, "sparsevec");
            read += 1;
            if value != 0.0 {
                elements.push(((index - 1) as i32, value));
            }
            c.skip_space();
            match c.peek() {
                b',' => c.pos += 1,
                b'}' => {
                    c.pos += 1;
                    break;
                }
                _ => syntax(),
            }
        }
    }
    c.skip_space();
    if c.peek() != b'/' {
        syntax_detail("Unexpected end of input.");
    }
    c.pos += 1;
    c.skip_space();
    let (dim, n) = c.strtol(i64::from(i32::MIN), i64::from(i32::MAX));
    if n == 0 {
        syntax();
    }
    c.skip_space();
    if c.peek() != 0 {
        syntax_detail("Junk after closing.");
    }
    let dim = dim as i32;
    check_sparse_dim(dim);
    check_expected_dim(typmod, dim);
    elements.sort_by_key(|e| e.0);
    (dim, elements)
}
