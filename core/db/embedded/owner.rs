//! Which `formsd` owns the embedded cluster, i.e. stops it on its exit: the one that
//! started it, or the one that found it left running by a `formsd` that crashed. The
//! owner's pid is kept in `<data dir>/formsd-owner.pid`.

use super::{EmbeddedError, files, io_err};
use std::fs;
use std::path::{Path, PathBuf};

fn file(data_dir: &Path) -> PathBuf {
    data_dir.join("formsd-owner.pid")
}

/// Whether the recorded owner is a live `formsd` process other than us. The file is
/// read only when it is our own plain file (the directory is the cluster user's, who
/// could put a link there: `files`).
pub(super) fn alive(data_dir: &Path) -> bool {
    let Some(pid) = files::read_owned(&file(data_dir), nix::unistd::geteuid())
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

/// Records this process as the owner, in a new file (never through a link).
pub(super) fn claim(data_dir: &Path) -> Result<(), EmbeddedError> {
    let path = file(data_dir);
    files::write_new(&path, &format!("{}\n", std::process::id()), 0o644, None)
        .map_err(io_err(format!("writing {}", path.display())))
}

/// Forgets the owner (the cluster was stopped).
pub(super) fn release(data_dir: &Path) {
    let _ = fs::remove_file(file(data_dir));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_link_is_not_written_through_nor_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("shadow");
        fs::write(&target, "root:secret\n").expect("target");
        std::os::unix::fs::symlink(&target, file(dir.path())).expect("planted link");
        assert!(!alive(dir.path()));
        claim(dir.path()).expect("claimed");
        assert_eq!(
            fs::read_to_string(&target).expect("target"),
            "root:secret\n"
        );
        let pid = fs::read_to_string(file(dir.path())).expect("pid file");
        assert_eq!(pid.trim(), std::process::id().to_string());
    }
}
