//! PostgreSQL 16 and later define the page macros vector uses (`PageGetItem`, …) as static inline
//! functions, which pgrx binds to symbols of its C shim (`PageGetItem__pgrx_cshim`, …). The shim
//! is C compiled against the server's headers; the workspace builds without it (pgrx's `cshim`
//! feature off) so that an extension can be built from pgrx's own bindings where a major has no
//! headers (PostgreSQL 17 here). These are those symbols, written from the page layout (the same
//! in every major pgrx supports).

use core::ffi::c_char;
use pgrx::pg_sys;

/// The header's size: where the line pointers start.
const HEADER: usize = core::mem::offset_of!(pg_sys::PageHeaderData, pd_linp);

fn header(page: pg_sys::Page) -> *mut pg_sys::PageHeaderData {
    page.cast()
}

/// # Safety
/// `page` is a page of BLCKSZ bytes.
#[unsafe(export_name = "PageIsNew__pgrx_cshim")]
pub unsafe extern "C-unwind" fn page_is_new(page: pg_sys::Page) -> bool {
    // SAFETY: the caller's page.
    unsafe { (*header(page)).pd_upper == 0 }
}

/// # Safety
/// `page` is a page; `offset` is 1 or more.
#[unsafe(export_name = "PageGetItemId__pgrx_cshim")]
pub unsafe extern "C-unwind" fn page_get_item_id(
    page: pg_sys::Page,
    offset: pg_sys::OffsetNumber,
) -> pg_sys::ItemId {
    // SAFETY: the line pointers follow the header; offsets count from 1.
    unsafe {
        page.cast::<u8>()
            .add(HEADER)
            .cast::<pg_sys::ItemIdData>()
            .add(usize::from(offset) - 1)
    }
}

/// # Safety
/// `page` is a page and `item` one of its line pointers.
#[unsafe(export_name = "PageGetItem__pgrx_cshim")]
pub unsafe extern "C-unwind" fn page_get_item(
    page: pg_sys::Page,
    item: pg_sys::ItemId,
) -> pg_sys::Item {
    // SAFETY: the line pointer's offset is within the page.
    unsafe { page.add((*item).lp_off() as usize) }
}

/// # Safety
/// `page` is a page.
#[unsafe(export_name = "PageGetMaxOffsetNumber__pgrx_cshim")]
pub unsafe extern "C-unwind" fn page_get_max_offset_number(
    page: pg_sys::Page,
) -> pg_sys::OffsetNumber {
    // SAFETY: the caller's page.
    let lower = usize::from(unsafe { (*header(page)).pd_lower });
    if lower <= HEADER {
        0
    } else {
        ((lower - HEADER) / core::mem::size_of::<pg_sys::ItemIdData>()) as pg_sys::OffsetNumber
    }
}

/// # Safety
/// `page` is a page.
#[unsafe(export_name = "PageGetSpecialPointer__pgrx_cshim")]
pub unsafe extern "C-unwind" fn page_get_special_pointer(page: pg_sys::Page) -> *mut c_char {
    // SAFETY: pd_special is an offset within the page.
    unsafe { page.add(usize::from((*header(page)).pd_special)) }
}

/// # Safety
/// `page` is a page.
#[unsafe(export_name = "PageGetContents__pgrx_cshim")]
pub unsafe extern "C-unwind" fn page_get_contents(page: pg_sys::Page) -> *mut c_char {
    // MAXALIGN(SizeOfPageHeaderData).
    let at =
        (HEADER + pg_sys::MAXIMUM_ALIGNOF as usize - 1) & !(pg_sys::MAXIMUM_ALIGNOF as usize - 1);
    // SAFETY: within the page.
    unsafe { page.add(at) }
}
