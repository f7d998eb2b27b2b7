//! What the host provides the embedded cluster: the PostgreSQL binaries, an
//! unprivileged user to run them as when we are root, and paths that user can use.

use super::{BINARIES, EmbeddedError, files, io_err};
use nix::unistd::{Gid, Uid, User};
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// The unprivileged account PostgreSQL runs as when we are root.
#[derive(Debug, Clone)]
pub(super) struct RunAs {
    pub(super) name: String,
    pub(super) uid: Uid,
    pub(super) gid: Gid,
}

/// Absolute, symlink-free form of `path`, which need not exist yet: its
/// existing part is canonicalized and the rest (directories we will create,
/// so no symlinks) appended.
pub(super) fn resolve(path: &Path) -> Result<PathBuf, EmbeddedError> {
    let what = || format!("resolving data directory {}", path.display());
    let absolute = std::path::absolute(path).map_err(io_err(what()))?;
    let existing = absolute
        .ancestors()
        .find(|p| p.exists())
        .unwrap_or(Path::new("/"));
    let mut resolved = fs::canonicalize(existing).map_err(io_err(what()))?;
    for part in absolute
        .strip_prefix(existing)
        .unwrap_or(Path::new(""))
        .components()
    {
        match part {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => resolved.push(name),
            _ => {}
        }
    }
    Ok(resolved)
}

/// `$FORMS_PG_BIN` alone if set (an explicit choice should not silently fall
/// back), else the usual install locations, in order.
pub(super) fn find_bin_dir() -> Result<PathBuf, EmbeddedError> {
    if let Some(dir) = std::env::var_os("FORMS_PG_BIN") {
        let dir = PathBuf::from(dir);
        return usable_bin_dir(&dir).ok_or_else(|| EmbeddedError::NotFound {
            searched: format!("FORMS_PG_BIN={}", dir.display()),
        });
    }
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).find(|d| is_executable(&d.join("initdb"))));
    }
    candidates.extend(versioned_dirs(Path::new("/usr/lib/postgresql"), "", "bin"));
    candidates.extend(versioned_dirs(Path::new("/usr"), "pgsql-", "bin"));
    candidates.extend(
        [
            "/usr/local/pgsql/bin",
            "/opt/homebrew/bin",
            "/usr/local/bin",
        ]
        .map(PathBuf::from),
    );
    candidates
        .iter()
        .find_map(|dir| usable_bin_dir(dir))
        .ok_or_else(|| EmbeddedError::NotFound {
            searched: "$PATH, /usr/lib/postgresql/*/bin, /usr/pgsql-*/bin, /usr/local/pgsql/bin, \
                       /opt/homebrew/bin, /usr/local/bin"
                .into(),
        })
}

/// The directory holding all of initdb, pg_ctl and postgres, if `dir` leads to
/// one. initdb and pg_ctl are often symlinked into a shared bin directory
/// without `postgres` (e.g. /usr/local/bin -> /usr/lib/postgresql/15/bin), so
/// the directory the initdb symlink resolves to is tried first.
pub(super) fn usable_bin_dir(dir: &Path) -> Option<PathBuf> {
    let resolved = fs::canonicalize(dir.join("initdb"))
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    resolved
        .into_iter()
        .chain([dir.to_path_buf()])
        .find(|d| BINARIES.iter().all(|b| is_executable(&d.join(b))))
}

pub(super) fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0)
}

/// `parent/<prefix><version>/<sub>` for every numeric version, highest first.
pub(super) fn versioned_dirs(parent: &Path, prefix: &str, sub: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut found: Vec<(Vec<u32>, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let version = name
                .strip_prefix(prefix)?
                .split('.')
                .map(|part| part.parse().ok())
                .collect::<Option<Vec<u32>>>()?;
            Some((version, entry.path().join(sub)))
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0));
    found.into_iter().map(|(_, dir)| dir).collect()
}

pub(super) fn unprivileged_user() -> Result<RunAs, EmbeddedError> {
    for name in ["postgres", "nobody"] {
        let user = User::from_name(name)
            .map_err(|e| io_err(format!("looking up user `{name}`"))(e.into()))?;
        if let Some(user) = user {
            return Ok(RunAs {
                name: user.name,
                uid: user.uid,
                gid: user.gid,
            });
        }
    }
    Err(EmbeddedError::NoUnprivilegedUser)
}

/// Execute permission for `user` by the mode bits (owner, else group, else
/// other — the kernel's order). Only the primary group counts, as the child
/// process has no supplementary groups.
pub(super) fn can_traverse(meta: &fs::Metadata, user: &RunAs) -> bool {
    let mode = meta.mode();
    if meta.uid() == user.uid.as_raw() {
        mode & 0o100 != 0
    } else if meta.gid() == user.gid.as_raw() {
        mode & 0o010 != 0
    } else {
        mode & 0o001 != 0
    }
}

/// pg_ctl puts -D and -l inside double quotes of a `sh -c` command line, the
/// socket directory goes through -o (also the shell) into a comma-separated
/// setting, and url() needs UTF-8: refuse anything that would not survive.
pub(super) fn check_path_chars(path: &Path) -> Result<(), EmbeddedError> {
    let ok = path.to_str().is_some_and(|s| {
        !s.chars()
            .any(|c| c.is_control() || matches!(c, '"' | '\'' | '\\' | '$' | '`' | ','))
    });
    if ok {
        Ok(())
    } else {
        Err(EmbeddedError::UnsupportedPath {
            path: path.to_path_buf(),
        })
    }
}

/// lchown: never follow a symlink out of our tree.
pub(super) fn chown(path: &Path, user: &RunAs) -> Result<(), EmbeddedError> {
    std::os::unix::fs::lchown(path, Some(user.uid.as_raw()), Some(user.gid.as_raw())).map_err(
        io_err(format!(
            "changing owner of {} to {}",
            path.display(),
            user.name
        )),
    )
}

/// Hands `path` itself to `user` (never its contents); a missing path is fine (not
/// created yet). A directory of another user's (an earlier run as someone else) is
/// refused rather than taken over recursively.
pub(super) fn own_entry(path: &Path, user: &RunAs) -> Result<(), EmbeddedError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(format!("checking {}", path.display()))(e)),
    };
    if meta.uid() == user.uid.as_raw() {
        return Ok(());
    }
    if meta.is_dir() && meta.uid() != 0 {
        return Err(io_err(format!(
            "{} belongs to uid {}, not to {} who runs PostgreSQL; change its owner (chown -R) or use another --data-dir",
            path.display(),
            meta.uid(),
            user.name
        ))(io::Error::from(io::ErrorKind::PermissionDenied)));
    }
    chown(path, user)
}

/// Writes `text` to a new file readable by its owner only.
pub(super) fn write_private(path: &Path, text: &str) -> Result<(), EmbeddedError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let _ = fs::remove_file(path);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io_err(format!("creating {}", path.display())))?;
    file.write_all(text.as_bytes())
        .map_err(io_err(format!("writing {}", path.display())))
}

/// The superuser's password kept in `file` (root's, 0600), made on first use. The file
/// is read only when it is root's own plain file, and written as a new one: its
/// directory is the cluster user's, who could put a link in its place (`files`).
pub(super) fn superuser_password(file: &Path) -> Result<String, EmbeddedError> {
    match files::read_owned(file, nix::unistd::geteuid()) {
        Ok(text) if !text.trim().is_empty() => return Ok(text.trim().to_owned()),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(format!("reading {}", file.display()))(e)),
    }
    let bytes: [u8; 32] = rand::random();
    let password: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    files::write_new(file, &password, 0o600, None)
        .map_err(io_err(format!("writing {}", file.display())))?;
    Ok(password)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_password_link_is_not_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("id_rsa");
        fs::write(&target, "root's private key").expect("target");
        let planted = dir.path().join("superuser.password");
        std::os::unix::fs::symlink(&target, &planted).expect("planted link");
        let password = superuser_password(&planted);
        assert!(
            password
                .as_ref()
                .is_err_and(|e| !e.to_string().contains("private key")),
            "{password:?}"
        );
        assert_eq!(
            fs::read_to_string(&target).expect("target"),
            "root's private key"
        );
    }
}
