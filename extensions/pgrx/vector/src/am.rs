//! What the two index access methods share: their settings (`hnsw.*`, `ivfflat.*` and the
//! `m`, `ef_construction` and `lists` storage parameters), the type an index holds (told by the
//! operator class's type support function, as pgvector's `*_support` functions tell it), the
//! distance its operator class orders by (computed here natively for pgvector's own distance
//! functions), values copied out of tuples, and pages changed through generic WAL.

use crate::bitvec::bits_at;
use crate::fmgr::{raise, varsize};
use crate::halfvec::halfvec_at;
use crate::kernels;
use crate::sparsevec::sparsevec_at;
use crate::vector::vector_at;
use core::ffi::{c_char, c_int, c_void};
use pgrx::pg_sys;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;

/// A setting PostgreSQL writes and extension code reads (one backend, one thread).
#[repr(transparent)]
pub struct Setting<T>(core::cell::UnsafeCell<T>);

// SAFETY: a backend is single-threaded; PostgreSQL writes settings between statements.
unsafe impl<T> Sync for Setting<T> {}

impl<T: Copy> Setting<T> {
    const fn new(v: T) -> Self {
        Setting(core::cell::UnsafeCell::new(v))
    }

    /// The current value.
    pub fn get(&self) -> T {
        // SAFETY: read on the backend's one thread.
        unsafe { *self.0.get() }
    }

    fn ptr(&self) -> *mut T {
        self.0.get()
    }
}

/// `hnsw.ef_search`.
pub static HNSW_EF_SEARCH: Setting<c_int> = Setting::new(40);
/// `hnsw.iterative_scan`: 0 off, 1 relaxed_order, 2 strict_order.
pub static HNSW_ITERATIVE_SCAN: Setting<c_int> = Setting::new(0);
/// `hnsw.max_scan_tuples`.
pub static HNSW_MAX_SCAN_TUPLES: Setting<c_int> = Setting::new(20000);
/// `hnsw.scan_mem_multiplier`.
pub static HNSW_SCAN_MEM_MULTIPLIER: Setting<f64> = Setting::new(1.0);
/// `ivfflat.probes`.
pub static IVFFLAT_PROBES: Setting<c_int> = Setting::new(1);
/// `ivfflat.iterative_scan`: 0 off, 1 relaxed_order.
pub static IVFFLAT_ITERATIVE_SCAN: Setting<c_int> = Setting::new(0);
/// `ivfflat.max_probes`.
pub static IVFFLAT_MAX_PROBES: Setting<c_int> = Setting::new(32768);
/// The storage parameter kind of hnsw indexes.
pub static HNSW_RELOPT_KIND: Setting<pg_sys::relopt_kind::Type> = Setting::new(0);
/// The storage parameter kind of ivfflat indexes.
pub static IVFFLAT_RELOPT_KIND: Setting<pg_sys::relopt_kind::Type> = Setting::new(0);

/// The choices of an enum setting.
#[repr(transparent)]
struct EnumEntries<const N: usize>([pg_sys::config_enum_entry; N]);

// SAFETY: the entries point at static strings and are never written.
unsafe impl<const N: usize> Sync for EnumEntries<N> {}

const fn entry(name: &'static core::ffi::CStr, val: c_int) -> pg_sys::config_enum_entry {
    pg_sys::config_enum_entry {
        name: name.as_ptr(),
        val,
        hidden: false,
    }
}

static HNSW_ITERATIVE_OPTIONS: EnumEntries<4> = EnumEntries([
    entry(c"off", 0),
    entry(c"relaxed_order", 1),
    entry(c"strict_order", 2),
    pg_sys::config_enum_entry {
        name: core::ptr::null(),
        val: 0,
        hidden: false,
    },
]);

static IVFFLAT_ITERATIVE_OPTIONS: EnumEntries<3> = EnumEntries([
    entry(c"off", 0),
    entry(c"relaxed_order", 1),
    pg_sys::config_enum_entry {
        name: core::ptr::null(),
        val: 0,
        hidden: false,
    },
]);

/// hnsw's `m` bounds and default.
pub const HNSW_DEFAULT_M: c_int = 16;
/// hnsw's `ef_construction` default.
pub const HNSW_DEFAULT_EF_CONSTRUCTION: c_int = 64;
/// ivfflat's `lists` default.
pub const IVFFLAT_DEFAULT_LISTS: c_int = 100;
/// The most ivfflat lists.
pub const IVFFLAT_MAX_LISTS: c_int = 32768;

/// Registers the settings and storage parameters (from `_PG_init`).
///
/// # Safety
/// Called once per backend, from `_PG_init`.
pub unsafe fn init() {
    unsafe {
        let kind = pg_sys::add_reloption_kind();
        *HNSW_RELOPT_KIND.ptr() = kind;
        pg_sys::add_int_reloption(
            kind,
            c"m".as_ptr(),
            c"Max number of connections".as_ptr(),
            HNSW_DEFAULT_M,
            2,
            100,
            pg_sys::AccessExclusiveLock as pg_sys::LOCKMODE,
        );
        pg_sys::add_int_reloption(
            kind,
            c"ef_construction".as_ptr(),
            c"Size of the dynamic candidate list for construction".as_ptr(),
            HNSW_DEFAULT_EF_CONSTRUCTION,
            4,
            1000,
            pg_sys::AccessExclusiveLock as pg_sys::LOCKMODE,
        );
        pg_sys::DefineCustomIntVariable(
            c"hnsw.ef_search".as_ptr(),
            c"Sets the size of the dynamic candidate list for search".as_ptr(),
            c"Valid range is 1..1000.".as_ptr(),
            HNSW_EF_SEARCH.ptr(),
            40,
            1,
            1000,
            pg_sys::GucContext::PGC_USERSET,
            0,
            None,
            None,
            None,
        );
        pg_sys::DefineCustomEnumVariable(
            c"hnsw.iterative_scan".as_ptr(),
            c"Sets the mode for iterative scans".as_ptr(),
            core::ptr::null(),
            HNSW_ITERATIVE_SCAN.ptr(),
            0,
            HNSW_ITERATIVE_OPTIONS.0.as_ptr(),
            pg_sys::GucContext::PGC_USERSET,
            0,
            None,
            None,
            None,
        );
        pg_sys::DefineCustomIntVariable(
            c"hnsw.max_scan_tuples".as_ptr(),
            c"Sets the max number of tuples to visit for iterative scans".as_ptr(),
            core::ptr::null(),
            HNSW_MAX_SCAN_TUPLES.ptr(),
            20000,
            1,
            c_int::MAX,
            pg_sys::GucContext::PGC_USERSET,
            0,
            None,
            None,
            None,
        );
        pg_sys::DefineCustomRealVariable(
            c"hnsw.scan_mem_multiplier".as_ptr(),
            c"Sets the multiple of work_mem to use for iterative scans".as_ptr(),
            core::ptr::null(),
            HNSW_SCAN_MEM_MULTIPLIER.ptr(),
            1.0,
            1.0,
            1000.0,
            pg_sys::GucContext::PGC_USERSET,
            0,
            None,
            None,
            None,
        );
        pg_sys::MarkGUCPrefixReserved(c"hnsw".as_ptr());

        let kind = pg_sys::add_reloption_kind();
        *IVFFLAT_RELOPT_KIND.ptr() = kind;
        pg_sys::add_int_reloption(
            kind,
            c"lists".as_ptr(),
            c"Number of inverted lists".as_ptr(),
            IVFFLAT_DEFAULT_LISTS,
            1,
            IVFFLAT_MAX_LISTS,
            pg_sys::AccessExclusiveLock as pg_sys::LOCKMODE,
        );
        pg_sys::DefineCustomIntVariable(
            c"ivfflat.probes".as_ptr(),
            c"Sets the number of probes".as_ptr(),
            c"Valid range is 1..lists.".as_ptr(),
            IVFFLAT_PROBES.ptr(),
            1,
            1,
            IVFFLAT_MAX_LISTS,
            pg_sys::GucContext::PGC_USERSET,
            0,
            None,
            None,
            None,
        );
        pg_sys::DefineCustomEnumVariable(
            c"ivfflat.iterative_scan".as_ptr(),
            c"Sets the mode for iterative scans".as_ptr(),
            core::ptr::null(),
            IVFFLAT_ITERATIVE_SCAN.ptr(),
            0,
            IVFFLAT_ITERATIVE_OPTIONS.0.as_ptr(),
            pg_sys::GucContext::PGC_USERSET,
            0,
            None,
            None,
            None,
        );
        pg_sys::DefineCustomIntVariable(
            c"ivfflat.max_probes".as_ptr(),
            c"Sets the max number of probes for iterative scans".as_ptr(),
            core::ptr::null(),
            IVFFLAT_MAX_PROBES.ptr(),
            IVFFLAT_MAX_LISTS,
            1,
            IVFFLAT_MAX_LISTS,
            pg_sys::GucContext::PGC_USERSET,
            0,
            None,
            None,
            None,
        );
        pg_sys::MarkGUCPrefixReserved(c"ivfflat".as_ptr());
    }
}

/// The types an index column holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub enum Kind {
    /// `vector`.
    Vector = 1,
    /// `halfvec`.
    Halfvec = 2,
    /// `sparsevec`.
    Sparsevec = 3,
    /// `bit`.
    Bit = 4,
}

impl Kind {
    /// The most dimensions an index of this type takes (`hnsw` and `ivfflat` alike).
    pub fn max_dimensions(self) -> i64 {
        match self {
            Kind::Vector => 2000,
            Kind::Halfvec => 4000,
            Kind::Bit => 64000,
            Kind::Sparsevec => 1_000_000_000,
        }
    }
}

static KIND_HALFVEC: Kind = Kind::Halfvec;
static KIND_BIT: Kind = Kind::Bit;
static KIND_SPARSEVEC: Kind = Kind::Sparsevec;

crate::fmgr::sql_function!(
    /// `hnsw_halfvec_support(internal)`: tells hnsw its column is a `halfvec`.
    pg_finfo_hnsw_halfvec_support, hnsw_halfvec_support, |_fc| {
        pg_sys::Datum::from(&raw const KIND_HALFVEC)
    }
);
crate::fmgr::sql_function!(
    /// `hnsw_bit_support(internal)`.
    pg_finfo_hnsw_bit_support, hnsw_bit_support, |_fc| {
        pg_sys::Datum::from(&raw const KIND_BIT)
    }
);
crate::fmgr::sql_function!(
    /// `hnsw_sparsevec_support(internal)`.
    pg_finfo_hnsw_sparsevec_support, hnsw_sparsevec_support, |_fc| {
        pg_sys::Datum::from(&raw const KIND_SPARSEVEC)
    }
);
crate::fmgr::sql_function!(
    /// `ivfflat_halfvec_support(internal)`.
    pg_finfo_ivfflat_halfvec_support, ivfflat_halfvec_support, |_fc| {
        pg_sys::Datum::from(&raw const KIND_HALFVEC)
    }
);
crate::fmgr::sql_function!(
    /// `ivfflat_bit_support(internal)`.
    pg_finfo_ivfflat_bit_support, ivfflat_bit_support, |_fc| {
        pg_sys::Datum::from(&raw const KIND_BIT)
    }
);

/// The support function `procnum` of the index's column, if its operator class has one.
///
/// # Safety
/// `index` is an open index relation.
pub unsafe fn optional_proc(
    index: pg_sys::Relation,
    procnum: u16,
) -> Option<*mut pg_sys::FmgrInfo> {
    unsafe {
        if pg_sys::index_getprocid(index, 1, procnum) == pg_sys::InvalidOid {
            None
        } else {
            Some(pg_sys::index_getprocinfo(index, 1, procnum))
        }
    }
}

/// The type an index holds, told by its type support function `procnum` (vector without one).
///
/// # Safety
/// `index` is an open index relation of hnsw or ivfflat.
pub unsafe fn index_kind(index: pg_sys::Relation, procnum: u16) -> Kind {
    unsafe {
        match optional_proc(index, procnum) {
            None => Kind::Vector,
            Some(f) => {
                let d =
                    pg_sys::FunctionCall1Coll(f, pg_sys::InvalidOid, pg_sys::Datum::from(0usize));
                let p = d.cast_mut_ptr::<Kind>();
                if p.is_null() {
                    raise(
                        PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                        "index type support function returned nothing",
                    );
                }
                *p
            }
        }
    }
}

/// What a distance support function measures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Metric {
    /// Squared Euclidean distance.
    L2Squared,
    /// Negative inner product (cosine on normalized values).
    NegativeInnerProduct,
    /// Taxicab distance.
    L1,
    /// Hamming distance of bits.
    Hamming,
    /// Jaccard distance of bits.
    Jaccard,
}

/// The distance an index orders by: native for pgvector's own functions, through the function
/// manager for any other.
#[derive(Clone, Copy)]
pub struct Distance {
    /// The type of the values.
    pub kind: Kind,
    /// The native measure, or `None` to call `proc`.
    pub metric: Option<Metric>,
    /// The support function (called when there is no native measure).
    pub proc: *mut pg_sys::FmgrInfo,
    /// The index's collation.
    pub collation: pg_sys::Oid,
}

type PgFn = unsafe extern "C-unwind" fn(pg_sys::FunctionCallInfo) -> pg_sys::Datum;

impl Distance {
    /// The distance of `index`'s operator class (its support function `procnum`) for values of
    /// `kind`.
    ///
    /// # Safety
    /// `index` is an open index relation.
    pub unsafe fn of_index(index: pg_sys::Relation, procnum: u16, kind: Kind) -> Distance {
        unsafe {
            let proc = pg_sys::index_getprocinfo(index, 1, procnum);
            let addr = (*proc).fn_addr.map(|f| f as usize);
            let native: [(PgFn, Metric); 11] = [
                (crate::vector::vector_l2_squared_distance, Metric::L2Squared),
                (
                    crate::vector::vector_negative_inner_product,
                    Metric::NegativeInnerProduct,
                ),
                (crate::vector::l1_distance, Metric::L1),
                (
                    crate::halfvec::halfvec_l2_squared_distance,
                    Metric::L2Squared,
                ),
                (
                    crate::halfvec::halfvec_negative_inner_product,
                    Metric::NegativeInnerProduct,
                ),
                (crate::halfvec::halfvec_l1_distance, Metric::L1),
                (
                    crate::sparsevec::sparsevec_l2_squared_distance,
                    Metric::L2Squared,
                ),
                (
                    crate::sparsevec::sparsevec_negative_inner_product,
                    Metric::NegativeInnerProduct,
                ),
                (crate::sparsevec::sparsevec_l1_distance, Metric::L1),
                (crate::bitvec::hamming_distance, Metric::Hamming),
                (crate::bitvec::jaccard_distance, Metric::Jaccard),
            ];
            let metric = native
                .iter()
                .find(|(f, _)| Some(*f as usize) == addr)
                .map(|(_, m)| *m);
            let collation = *(*index).rd_indcollation;
            Distance {
                kind,
                metric,
                proc,
                collation,
            }
        }
    }

    /// The distance of two values of the index's type (detoasted varlenas).
    ///
    /// # Safety
    /// `a` and `b` point at values of `self.kind` with the same dimensions.
    #[inline]
    pub unsafe fn eval(&self, a: *const u8, b: *const u8) -> f32 {
        unsafe {
            match (self.metric, self.kind) {
                (Some(m), Kind::Vector) => {
                    let (x, y) = (vector_at(a).x, vector_at(b).x);
                    if x.len() != y.len() {
                        different_dims(x.len(), y.len(), "vector");
                    }
                    match m {
                        Metric::L2Squared => kernels::l2_squared(x, y),
                        Metric::NegativeInnerProduct => -kernels::inner_product(x, y),
                        _ => kernels::l1(x, y),
                    }
                }
                (Some(m), Kind::Halfvec) => {
                    let (x, y) = (halfvec_at(a).x, halfvec_at(b).x);
                    if x.len() != y.len() {
                        different_dims(x.len(), y.len(), "halfvec");
                    }
                    match m {
                        Metric::L2Squared => kernels::half_l2_squared(x, y),
                        Metric::NegativeInnerProduct => -kernels::half_inner_product(x, y),
                        _ => kernels::half_l1(x, y),
                    }
                }
                (Some(m), Kind::Sparsevec) => {
                    let (x, y) = (sparsevec_at(a), sparsevec_at(b));
                    if x.dim != y.dim {
                        different_dims(x.dim as usize, y.dim as usize, "sparsevec");
                    }
                    match m {
                        Metric::L2Squared => kernels::sparse_l2_squared(x.sparse(), y.sparse()),
                        Metric::NegativeInnerProduct => {
                            -kernels::sparse_inner_product(x.sparse(), y.sparse())
                        }
                        _ => kernels::sparse_l1(x.sparse(), y.sparse()),
                    }
                }
                (Some(m), Kind::Bit) => {
                    let (x, y) = (bits_at(a), bits_at(b));
                    if x.len != y.len {
                        raise(
                            PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                            format!(
                                "different bit lengths {} and {}",
                                x.len as u32, y.len as u32
                            ),
                        );
                    }
                    match m {
                        Metric::Jaccard => kernels::jaccard(x.bytes, y.bytes) as f32,
                        _ => kernels::hamming(x.bytes, y.bytes) as f32,
                    }
                }
                (None, _) => {
                    let d = pg_sys::FunctionCall2Coll(
                        self.proc,
                        self.collation,
                        pg_sys::Datum::from(a),
                        pg_sys::Datum::from(b),
                    );
                    f64::from_bits(d.value() as u64) as f32
                }
            }
        }
    }
}

fn different_dims(a: usize, b: usize, name: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
        format!("different {name} dimensions {a} and {b}"),
    )
}

/// A value copied out of a tuple or a page, 8-byte aligned.
#[derive(Clone)]
pub struct Value {
    words: Vec<u64>,
}

impl Value {
    /// A copy of the varlena (4-byte header) at `p`.
    ///
    /// # Safety
    /// `p` points at a detoasted varlena.
    pub unsafe fn copy_of(p: *const u8) -> Value {
        unsafe {
            let len = varsize(p);
            let mut words = vec![0u64; len.div_ceil(8)];
            core::ptr::copy_nonoverlapping(p, words.as_mut_ptr().cast::<u8>(), len);
            Value { words }
        }
    }

    /// The varlena.
    pub fn ptr(&self) -> *const u8 {
        self.words.as_ptr().cast::<u8>()
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        // SAFETY: the words hold a varlena.
        unsafe { varsize(self.ptr()) }
    }

    /// Whether the value is empty (never: a varlena has a header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the words hold `len` bytes.
        unsafe { core::slice::from_raw_parts(self.ptr(), self.len()) }
    }

    /// The value divided by its Euclidean norm, or `None` for a zero norm (such values are not
    /// indexed by cosine operator classes, as pgvector's are not).
    pub fn normalized(&self, kind: Kind) -> Option<Value> {
        // SAFETY: the value is of `kind`.
        unsafe {
            let mut out = self.clone();
            let p = out.words.as_mut_ptr().cast::<u8>();
            match kind {
                Kind::Vector => {
                    let v = vector_at(self.ptr());
                    if kernels::norm(v.x) <= 0.0 {
                        return None;
                    }
                    let x = core::slice::from_raw_parts_mut(p.add(8).cast::<f32>(), v.x.len());
                    crate::vector::normalize_into(v.x, x);
                }
                Kind::Halfvec => {
                    let v = halfvec_at(self.ptr());
                    if kernels::half_norm(v.x) <= 0.0 {
                        return None;
                    }
                    let x = core::slice::from_raw_parts_mut(p.add(8).cast::<u16>(), v.x.len());
                    crate::halfvec::normalize_into(v.x, x);
                }
                Kind::Sparsevec => {
                    let v = sparsevec_at(self.ptr());
                    if kernels::sparse_norm(v.values) <= 0.0 {
                        return None;
                    }
                    let elements = crate::sparsevec::normalized(&v);
                    let size = crate::sparsevec::sparsevec_size(elements.len());
                    let mut words = vec![0u64; size.div_ceil(8)];
                    let q = words.as_mut_ptr().cast::<u8>();
                    crate::fmgr::set_varsize(q, size);
                    q.add(4).cast::<i32>().write(v.dim);
                    q.add(8).cast::<i32>().write(elements.len() as i32);
                    for (k, (i, x)) in elements.iter().enumerate() {
                        q.add(16 + 4 * k).cast::<i32>().write(*i);
                        q.add(16 + 4 * elements.len() + 4 * k)
                            .cast::<f32>()
                            .write(*x);
                    }
                    return Some(Value { words });
                }
                Kind::Bit => {}
            }
            Some(out)
        }
    }

    /// The dimensions of a value of `kind` (bits for `bit`).
    pub fn dimensions(&self, kind: Kind) -> i64 {
        // SAFETY: the value is of `kind`.
        unsafe {
            match kind {
                Kind::Vector => vector_at(self.ptr()).x.len() as i64,
                Kind::Halfvec => halfvec_at(self.ptr()).x.len() as i64,
                Kind::Sparsevec => i64::from(sparsevec_at(self.ptr()).dim),
                Kind::Bit => i64::from(bits_at(self.ptr()).len),
            }
        }
    }

    /// The number of non-zero elements of a `sparsevec`.
    pub fn nnz(&self) -> usize {
        // SAFETY: only called on sparse values.
        unsafe { sparsevec_at(self.ptr()).indices.len() }
    }
}

/// A heap or index tuple position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Tid {
    /// The block.
    pub blk: u32,
    /// The line pointer (1-based).
    pub off: u16,
}

impl Tid {
    /// No position.
    pub const INVALID: Tid = Tid {
        blk: pg_sys::InvalidBlockNumber,
        off: 0,
    };

    /// Whether this is a position.
    pub fn is_valid(self) -> bool {
        self.blk != pg_sys::InvalidBlockNumber && self.off != 0
    }

    /// The position of an `ItemPointerData`.
    pub fn from_item_pointer(p: &pg_sys::ItemPointerData) -> Tid {
        Tid {
            blk: (u32::from(p.ip_blkid.bi_hi) << 16) | u32::from(p.ip_blkid.bi_lo),
            off: p.ip_posid,
        }
    }

    /// As an `ItemPointerData`.
    pub fn item_pointer(self) -> pg_sys::ItemPointerData {
        pg_sys::ItemPointerData {
            ip_blkid: pg_sys::BlockIdData {
                bi_hi: (self.blk >> 16) as u16,
                bi_lo: self.blk as u16,
            },
            ip_posid: self.off,
        }
    }

    /// Reads the 6-byte form at `p`.
    ///
    /// # Safety
    /// `p` points at 6 readable bytes.
    pub unsafe fn read(p: *const u8) -> Tid {
        unsafe {
            let hi = p.cast::<u16>().read_unaligned();
            let lo = p.add(2).cast::<u16>().read_unaligned();
            let off = p.add(4).cast::<u16>().read_unaligned();
            Tid {
                blk: (u32::from(hi) << 16) | u32::from(lo),
                off,
            }
        }
    }

    /// Writes the 6-byte form at `p`.
    ///
    /// # Safety
    /// `p` points at 6 writable bytes.
    pub unsafe fn write(self, p: *mut u8) {
        unsafe {
            p.cast::<u16>().write_unaligned((self.blk >> 16) as u16);
            p.add(2).cast::<u16>().write_unaligned(self.blk as u16);
            p.add(4).cast::<u16>().write_unaligned(self.off);
        }
    }
}

/// A hasher for [`Tid`] keys: one multiply of the position's 48 bits (the default SipHash
/// costs more than the rest of a set lookup, and these keys come from the index itself).
#[derive(Default, Clone, Copy)]
pub struct TidHasher(u64);

impl core::hash::Hasher for TidHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u16(&mut self, v: u16) {
        self.0 = (self.0 ^ u64::from(v)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(16) ^ u64::from(v)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Builds [`TidHasher`]s.
pub type TidBuild = core::hash::BuildHasherDefault<TidHasher>;
/// A map keyed by index positions.
pub type TidMap<V> = std::collections::HashMap<Tid, V, TidBuild>;
/// A set of index positions.
pub type TidSet = std::collections::HashSet<Tid, TidBuild>;

/// The usable bytes of an empty page with `special` bytes of special space.
pub fn empty_page_free(special: usize) -> usize {
    pg_sys::BLCKSZ as usize - page_header_size() - crate::fmgr::maxalign(special)
}

/// The size of a page header (`SizeOfPageHeaderData`).
pub fn page_header_size() -> usize {
    core::mem::offset_of!(pg_sys::PageHeaderData, pd_linp)
}

/// A block of the index's main fork, pinned.
///
/// # Safety
/// `index` is open and `blk` exists.
pub unsafe fn read_buffer(index: pg_sys::Relation, blk: u32) -> pg_sys::Buffer {
    unsafe {
        pg_sys::ReadBufferExtended(
            index,
            pg_sys::ForkNumber::MAIN_FORKNUM,
            blk,
            pg_sys::ReadBufferMode::RBM_NORMAL,
            core::ptr::null_mut(),
        )
    }
}

/// A new block at the end of `fork`, pinned and exclusively locked.
///
/// # Safety
/// `index` is open.
pub unsafe fn new_buffer(
    index: pg_sys::Relation,
    fork: pg_sys::ForkNumber::Type,
) -> pg_sys::Buffer {
    unsafe {
        pg_sys::LockRelationForExtension(index, pg_sys::ExclusiveLock as pg_sys::LOCKMODE);
        let buf = pg_sys::ReadBufferExtended(
            index,
            fork,
            pg_sys::InvalidBlockNumber,
            pg_sys::ReadBufferMode::RBM_NORMAL,
            core::ptr::null_mut(),
        );
        pg_sys::LockBuffer(buf, pg_sys::BUFFER_LOCK_EXCLUSIVE as c_int);
        pg_sys::UnlockRelationForExtension(index, pg_sys::ExclusiveLock as pg_sys::LOCKMODE);
        buf
    }
}

/// Shares or excludes a buffer's content lock.
///
/// # Safety
/// `buf` is pinned.
pub unsafe fn lock_buffer(buf: pg_sys::Buffer, exclusive: bool) {
    let mode = if exclusive {
        pg_sys::BUFFER_LOCK_EXCLUSIVE
    } else {
        pg_sys::BUFFER_LOCK_SHARE
    };
    unsafe { pg_sys::LockBuffer(buf, mode as c_int) };
}

/// One generic WAL record changing up to four pages: [`Xlog::register`] gives the copy of a
/// page to change, [`Xlog::finish`] logs and applies the changes atomically.
pub struct Xlog {
    state: *mut pg_sys::GenericXLogState,
}

impl Xlog {
    /// Starts a record for `index`.
    ///
    /// # Safety
    /// `index` is open.
    pub unsafe fn start(index: pg_sys::Relation) -> Xlog {
        Xlog {
            state: unsafe { pg_sys::GenericXLogStart(index) },
        }
    }

    /// The page of `buf` (exclusively locked) to change; `full` logs its whole image (a new or
    /// rewritten page).
    ///
    /// # Safety
    /// `buf` is pinned and exclusively locked.
    pub unsafe fn register(&mut self, buf: pg_sys::Buffer, full: bool) -> pg_sys::Page {
        let flags = if full {
            pg_sys::GENERIC_XLOG_FULL_IMAGE as c_int
        } else {
            0
        };
        unsafe { pg_sys::GenericXLogRegisterBuffer(self.state, buf, flags) }
    }

    /// Logs and applies the changes.
    ///
    /// # Safety
    /// The registered buffers are still locked.
    pub unsafe fn finish(self) {
        unsafe { pg_sys::GenericXLogFinish(self.state) };
    }
}

/// Whether an item of `size` bytes fits on `page` beside a new line pointer.
///
/// # Safety
/// `page` is an initialized page.
pub unsafe fn fits(page: pg_sys::Page, size: usize) -> bool {
    unsafe { pg_sys::PageGetFreeSpace(page) >= crate::fmgr::maxalign(size) }
}

/// Adds `item` to `page` and returns its offset (an error if it did not fit).
///
/// # Safety
/// `page` is an initialized page being changed under an exclusive lock.
pub unsafe fn add_item(index: pg_sys::Relation, page: pg_sys::Page, item: &[u8]) -> u16 {
    unsafe {
        let off = pg_sys::PageAddItemExtended(
            page,
            item.as_ptr() as pg_sys::Item,
            item.len(),
            pg_sys::InvalidOffsetNumber,
            0,
        );
        if off == pg_sys::InvalidOffsetNumber {
            let name = core::ffi::CStr::from_ptr((*(*index).rd_rel).relname.data.as_ptr());
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                format!("failed to add index item to \"{}\"", name.to_string_lossy()),
            );
        }
        off
    }
}

/// The item at `off` of `page` (its pointer and length), if it is a used item.
///
/// # Safety
/// `page` is an initialized page, locked.
pub unsafe fn item(page: pg_sys::Page, off: u16) -> Option<(*mut u8, usize)> {
    unsafe {
        if off == 0 || off > pg_sys::PageGetMaxOffsetNumber(page) {
            return None;
        }
        let id = pg_sys::PageGetItemId(page, off);
        if (*id).lp_flags() != pg_sys::LP_NORMAL {
            return None;
        }
        Some((
            pg_sys::PageGetItem(page, id).cast::<u8>(),
            (*id).lp_len() as usize,
        ))
    }
}

/// A memory context for per-tuple work, and the one to return to.
pub struct TempContext {
    ctx: pg_sys::MemoryContext,
}

impl TempContext {
    /// A new context under the current one.
    ///
    /// # Safety
    /// Inside a PostgreSQL call.
    pub unsafe fn new(name: &'static core::ffi::CStr) -> TempContext {
        unsafe {
            TempContext {
                ctx: pg_sys::AllocSetContextCreateInternal(
                    pg_sys::CurrentMemoryContext,
                    name.as_ptr(),
                    pg_sys::ALLOCSET_DEFAULT_MINSIZE as usize,
                    pg_sys::ALLOCSET_DEFAULT_INITSIZE as usize,
                    pg_sys::ALLOCSET_DEFAULT_MAXSIZE as usize,
                ),
            }
        }
    }

    /// Runs `f` in this context, then frees what it allocated there.
    ///
    /// # Safety
    /// `f` keeps no pointer into memory allocated while it runs.
    pub unsafe fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        unsafe {
            let old = pg_sys::MemoryContextSwitchTo(self.ctx);
            let r = f();
            pg_sys::MemoryContextSwitchTo(old);
            pg_sys::MemoryContextReset(self.ctx);
            r
        }
    }

    /// Deletes the context.
    ///
    /// # Safety
    /// Nothing allocated in it is used afterwards.
    pub unsafe fn delete(self) {
        unsafe { pg_sys::MemoryContextDelete(self.ctx) };
    }
}

/// The dimensions the index's column is declared with (its type modifier), -1 for none.
///
/// # Safety
/// `index` is open.
pub unsafe fn column_dimensions(index: pg_sys::Relation) -> i32 {
    unsafe {
        let desc = (*index).rd_att;
        let attrs = (*desc).attrs.as_ptr();
        (*attrs).atttypmod
    }
}

/// Errors when the index's column is a `varbit` (the index needs fixed dimensions), naming
/// the access method `am`.
///
/// # Safety
/// `index` is open.
pub unsafe fn check_column_type(index: pg_sys::Relation, am: &str) {
    unsafe {
        let attrs = (*(*index).rd_att).attrs.as_ptr();
        if (*attrs).atttypid == pg_sys::VARBITOID {
            raise(
                PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
                format!("type not supported for {am} index"),
            );
        }
    }
}

/// The name of `index`.
///
/// # Safety
/// `index` is open.
pub unsafe fn relation_name(index: pg_sys::Relation) -> String {
    unsafe {
        core::ffi::CStr::from_ptr((*(*index).rd_rel).relname.data.as_ptr())
            .to_string_lossy()
            .into_owned()
    }
}

/// Counts an index scan in the statistics, as `pgstat_count_index_scan` does.
///
/// # Safety
/// `index` is open.
pub unsafe fn count_index_scan(index: pg_sys::Relation) {
    unsafe {
        if (*index).pgstat_info.is_null() && (*index).pgstat_enabled {
            pg_sys::pgstat_assoc_relation(index);
        }
        if !(*index).pgstat_info.is_null() {
            #[cfg(any(feature = "pg13", feature = "pg14", feature = "pg15"))]
            {
                (*(*index).pgstat_info).t_counts.t_numscans += 1;
            }
            #[cfg(not(any(feature = "pg13", feature = "pg14", feature = "pg15")))]
            {
                (*(*index).pgstat_info).counts.numscans += 1;
            }
        }
    }
}

/// Whether `snapshot` is an MVCC snapshot.
///
/// # Safety
/// `snapshot` is valid.
pub unsafe fn is_mvcc(snapshot: pg_sys::Snapshot) -> bool {
    unsafe {
        let t = (*snapshot).snapshot_type;
        t == pg_sys::SnapshotType::SNAPSHOT_MVCC
            || t == pg_sys::SnapshotType::SNAPSHOT_HISTORIC_MVCC
    }
}

/// Registers `f(arg)` to run when memory context `ctx` is reset or deleted.
///
/// # Safety
/// `arg` stays valid until the callback runs or is made a no-op.
pub unsafe fn on_context_reset(
    ctx: pg_sys::MemoryContext,
    f: unsafe extern "C-unwind" fn(*mut c_void),
    arg: *mut c_void,
) {
    unsafe {
        let cb =
            pg_sys::MemoryContextAlloc(ctx, core::mem::size_of::<pg_sys::MemoryContextCallback>())
                .cast::<pg_sys::MemoryContextCallback>();
        cb.write(pg_sys::MemoryContextCallback {
            func: Some(f),
            arg,
            next: core::ptr::null_mut(),
        });
        pg_sys::MemoryContextRegisterResetCallback(ctx, cb);
    }
}

/// A C string pointer of a static name.
pub fn cname(s: &'static core::ffi::CStr) -> *const c_char {
    s.as_ptr()
}

/// tableam.h's `table_index_build_scan` (a static inline function, so not in the server's
/// symbols): every live tuple of `heap` handed to `callback`, through the table access method's
/// `index_build_range_scan` over the whole table. Written here rather than taken from pgrx's C
/// shim, so that the extension builds without PostgreSQL's headers (pgrx's own bindings for a
/// major, as for the PostgreSQL 17 that has no headers on this machine).
///
/// Always with synchronized scans allowed and a scan of its own (the C function's `allow_sync`
/// true and `scan` null, as every caller here passes them).
///
/// # Safety
/// As the C function's: open relations, a valid `IndexInfo`, and a callback for this index.
pub unsafe fn table_index_build_scan(
    heap: pg_sys::Relation,
    index: pg_sys::Relation,
    index_info: *mut pg_sys::IndexInfo,
    progress: bool,
    callback: pg_sys::IndexBuildCallback,
    state: *mut c_void,
) -> f64 {
    // SAFETY: the caller's relations; every table access method has index_build_range_scan.
    unsafe {
        let am = (*heap).rd_tableam;
        let scan_range = (*am)
            .index_build_range_scan
            .expect("a table access method without index_build_range_scan");
        scan_range(
            heap,
            index,
            index_info,
            true,
            false,
            progress,
            0,
            pg_sys::InvalidBlockNumber,
            callback,
            state,
            core::ptr::null_mut(),
        )
    }
}
