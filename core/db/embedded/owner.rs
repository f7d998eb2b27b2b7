//! Which `formsd` owns the embedded cluster, i.e. stops it on its exit: the one that
//! started it, or the one that found it left running by a `formsd` that crashed. The
//! owner's pid is kept in `<data dir>/formsd-owner.pid`.

use super::{EmbeddedError, io_err};
use std::fs;
use std::path::{Path, PathBuf};

fn file(data_dir: &Path) -> PathBuf {
    data_dir.join("formsd-owner.pid")
}

/// Whether the recorded owner is a live `formsd` process other than us.
pub(super) fn alive(data_dir: &Path) -> bool {
    let Some(pid) = fs::read_to_string(file(data_dir))
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok())
    else {
        return false;
    };
    if pid == std::process::id() {
        return false;
    }
    // A reused pid is not the owner: it must still be a formsd.
    fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|comm| comm.trim() == "formsd")
}

/// Records this process as the owner.
pub(super) fn claim(data_dir: &Path) -> Result<(), EmbeddedError> {
    let path = file(data_dir);
    fs::write(&path, format!("{}\n", std::process::id()))
        .map_err(io_err(format!("writing {}", path.display())))
}

/// Forgets the owner (the cluster was stopped).
pub(super) fn release(data_dir: &Path) {
    let _ = fs::remove_file(file(data_dir));
}
