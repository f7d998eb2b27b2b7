//! The process's memory allocator: mimalloc, with its arenas committed on demand.

/// The request path allocates and frees many small buffers (headers, messages, JSON,
/// log lines) across threads; glibc's allocator spent about 15% of a GET's CPU on
/// them, mimalloc a fraction of that (see the book's benchmark records).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_arena_eager_commit` (the same number in its v2 and v3, pinned
/// by Cargo.lock). By default mimalloc commits its arenas whole on systems that
/// overcommit, and then gives freed pages back lazily: the idle process held about
/// 35 MB where it holds 20 MB with commits on demand, at no cost measured in the
/// benchmark.
#[cfg(target_os = "linux")]
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// Sets the allocator's defaults before the first allocation (which reserves an arena,
/// and which std makes before `main`): run by the loader with the program's other
/// constructors (their order is the linker's, so this is as early as it can be, not
/// guaranteed first). `MIMALLOC_ARENA_EAGER_COMMIT` in the environment still wins.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static ALLOCATOR_OPTIONS: extern "C" fn() = allocator_options;

#[cfg(target_os = "linux")]
extern "C" fn allocator_options() {
    // SAFETY: sets a default of a process-wide option of the allocator (a static),
    // before any thread of ours runs.
    unsafe { libmimalloc_sys::mi_option_set_default(ARENA_EAGER_COMMIT, 0) };
}
