//! Files formsd reads and writes, run as root, in directories the cluster's user can
//! write to (the data directory, `pgdata`). That user could put a symbolic or hard link
//! in a file's place, so that root overwrites any file of the machine with a pid, or
//! reads any file as the superuser's password (which goes into ALTER ROLE). So a file
//! there is never opened through a link: it is read only when it is a plain file of the
//! expected owner with no other name (O_NOFOLLOW, then checked on the open file), and
//! written only as a new file (create-new, which follows nothing) renamed into place
//! (which replaces a link itself, never its target).

use nix::unistd::{Gid, Uid};
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The text of `path` if it is a plain file of `owner` with one name; an error of kind
/// `NotFound` when there is none, `PermissionDenied` when it is anything else.
pub(super) fn read_owned(path: &Path, owner: Uid) -> io::Result<String> {
    let mut file = fs::OpenOptions::new()
        .read(true)
        // O_NONBLOCK: a FIFO in the file's place must not hang the start.
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            // O_NOFOLLOW on a symbolic link.
            Some(nix::libc::ELOOP) => refused(path, "is a symbolic link"),
            _ => e,
        })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    if meta.uid() != owner.as_raw() {
        return Err(refused(path, &format!("belongs to uid {}", meta.uid())));
    }
    if meta.nlink() != 1 {
        return Err(refused(path, "has other names (hard links)"));
    }
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(text)
}

fn refused(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{} {why}: not trusted, not used", path.display()),
    )
}

/// Replaces `path` with a new file holding `text`, with `mode` and, when given, that
/// owner: written under a fresh name (create-new) and renamed over whatever `path` was.
pub(super) fn write_new(
    path: &Path,
    text: &str,
    mode: u32,
    owner: Option<(Uid, Gid)>,
) -> io::Result<()> {
    let fresh = fresh_name(path);
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&fresh)?;
        file.write_all(text.as_bytes())?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::fchown(&file, Some(uid.as_raw()), Some(gid.as_raw()))?;
        }
        file.sync_all()?;
        fs::rename(&fresh, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&fresh);
    }
    written
}

/// `path` with a random suffix, in the same directory (so that a rename replaces it).
fn fresh_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{:016x}.new", rand::random::<u64>()));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn me() -> Uid {
        nix::unistd::geteuid()
    }

    /// A directory with a file `target` that must stay as it is.
    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("target");
        fs::write(&target, "root's secret\n").expect("target");
        (dir, target)
    }

    #[test]
    fn a_planted_symbolic_link_is_neither_read_nor_written_through() {
        let (dir, target) = setup();
        let planted = dir.path().join("superuser.password");
        symlink(&target, &planted).expect("symlink");
        let error = read_owned(&planted, me()).expect_err("read through a link");
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
        assert!(!error.to_string().contains("secret"));
        write_new(&planted, "1234\n", 0o600, None).expect("written");
        assert_eq!(
            fs::read_to_string(&target).expect("target"),
            "root's secret\n"
        );
        assert_eq!(read_owned(&planted, me()).expect("own file"), "1234\n");
        assert!(!fs::symlink_metadata(&planted).expect("meta").is_symlink());
    }

    #[test]
    fn a_hard_link_or_another_owner_is_not_read() {
        let (dir, target) = setup();
        let planted = dir.path().join("pg_hba.conf");
        fs::hard_link(&target, &planted).expect("hard link");
        let error = read_owned(&planted, me()).expect_err("read through a hard link");
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
        let other = Uid::from_raw(me().as_raw() + 1);
        let error = read_owned(&target, other).expect_err("another owner's");
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
        let missing = read_owned(&dir.path().join("none"), me()).expect_err("missing");
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn written_files_have_their_mode_and_leave_nothing_behind() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("formsd-owner.pid");
        write_new(&path, "1\n", 0o600, None).expect("first");
        write_new(&path, "2\n", 0o600, None).expect("replaced");
        assert_eq!(read_owned(&path, me()).expect("read"), "2\n");
        let meta = fs::metadata(&path).expect("meta");
        assert_eq!(meta.mode() & 0o777, 0o600);
        assert_eq!(fs::read_dir(dir.path()).expect("dir").count(), 1);
    }
}
