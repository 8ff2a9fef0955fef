//! The casts between `vector`, `halfvec` and `sparsevec` (each type's module knows only itself
//! and the text and function-call helpers below it; the casts know all three).

use crate::fmgr::*;
use crate::halfvec::{self, halfvec_arg};
use crate::kernels;
use crate::sparsevec::{self, sparsevec_arg};
use crate::vector::{self, vector_arg};
use pgrx::pg_sys;

sql_function!(
    /// `halfvec_to_vector(halfvec, integer, boolean)`.
    pg_finfo_halfvec_to_vector, halfvec_to_vector, |fc| {
        let h = halfvec_arg(fc, 0);
        vector::check_dim(h.x.len() as i64);
        check_expected_dim(arg_i32(fc, 1), h.x.len() as i32);
        let (p, x) = vector::new_vector(h.x.len());
        for (o, v) in x.iter_mut().zip(h.x) {
            *o = kernels::h2f(*v);
        }
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `sparsevec_to_vector(sparsevec, integer, boolean)`.
    pg_finfo_sparsevec_to_vector, sparsevec_to_vector, |fc| {
        let s = sparsevec_arg(fc, 0);
        vector::check_dim(i64::from(s.dim));
        check_expected_dim(arg_i32(fc, 1), s.dim);
        let (p, x) = vector::new_vector(s.dim as usize);
        for (i, v) in s.indices.iter().zip(s.values) {
            x[*i as usize] = *v;
        }
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `vector_to_halfvec(vector, integer, boolean)`.
    pg_finfo_vector_to_halfvec, vector_to_halfvec, |fc| {
        let v = vector_arg(fc, 0);
        halfvec::check_dim(v.x.len() as i64);
        check_expected_dim(arg_i32(fc, 1), v.x.len() as i32);
        let (p, x) = halfvec::new_halfvec(v.x.len());
        for (o, f) in x.iter_mut().zip(v.x) {
            *o = halfvec::to_half(*f);
        }
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `sparsevec_to_halfvec(sparsevec, integer, boolean)`.
    pg_finfo_sparsevec_to_halfvec, sparsevec_to_halfvec, |fc| {
        let s = sparsevec_arg(fc, 0);
        halfvec::check_dim(i64::from(s.dim));
        check_expected_dim(arg_i32(fc, 1), s.dim);
        let (p, x) = halfvec::new_halfvec(s.dim as usize);
        for (i, v) in s.indices.iter().zip(s.values) {
            x[*i as usize] = halfvec::to_half(*v);
        }
        pg_sys::Datum::from(p)
    }
);

sql_function!(
    /// `vector_to_sparsevec(vector, integer, boolean)`.
    pg_finfo_vector_to_sparsevec, vector_to_sparsevec, |fc| {
        let v = vector_arg(fc, 0);
        let dim = v.dim();
        sparsevec::check_dim(dim);
        check_expected_dim(arg_i32(fc, 1), dim);
        let elements: Vec<(i32, f32)> = v
            .x
            .iter()
            .enumerate()
            .filter(|(_, x)| **x != 0.0)
            .map(|(i, x)| (i as i32, *x))
            .collect();
        sparsevec::sparsevec_datum(dim, elements.into_iter())
    }
);

sql_function!(
    /// `halfvec_to_sparsevec(halfvec, integer, boolean)`.
    pg_finfo_halfvec_to_sparsevec, halfvec_to_sparsevec, |fc| {
        let v = halfvec_arg(fc, 0);
        let dim = v.x.len() as i32;
        sparsevec::check_dim(dim);
        check_expected_dim(arg_i32(fc, 1), dim);
        let elements: Vec<(i32, f32)> = v
            .x
            .iter()
            .enumerate()
            .filter(|(_, h)| !kernels::half_is_zero(**h))
            .map(|(i, h)| (i as i32, kernels::h2f(*h)))
            .collect();
        sparsevec::sparsevec_datum(dim, elements.into_iter())
    }
);
