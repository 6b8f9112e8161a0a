//! The benchmarks' allocator: the one the Python binding links (crates/aqmlab-py/src/lib.rs,
//! `ALLOC`), set up the same way, so that their figures are those of `aqmlab.run()`.

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (`mi_option_purge_delay` in mimalloc.h, v3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Freed memory goes back to the system after a second (the binding's `PURGE_DELAY_MS`,
/// which says why).
pub fn setup() {
    // SAFETY: sets a process-wide integer option; mimalloc reads it on every purge.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 1000) }
}
