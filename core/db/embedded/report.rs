//! Reporting failures of PostgreSQL's commands, and encoding paths into a URL.

use super::{EmbeddedError, TAIL_LINES};
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::process::Output;

/// Error for a command that ran and failed, quoting its output and, for
/// start, the server log (where postgres itself reports why it stopped).
pub(super) fn command_error(
    what: &str,
    out: &Output,
    log: Option<(&Path, Option<String>)>,
) -> EmbeddedError {
    let mut details = String::new();
    for (name, bytes) in [("stderr", &out.stderr), ("stdout", &out.stdout)] {
        let text = tail(&String::from_utf8_lossy(bytes));
        if !text.is_empty() {
            details.push_str(&format!("\n--- {what} {name} ---\n{text}"));
        }
    }
    if let Some((path, Some(text))) = log {
        details.push_str(&format!(
            "\n--- last lines of {} ---\n{text}",
            path.display()
        ));
    }
    EmbeddedError::Command {
        what: what.to_string(),
        status: out.status,
        details,
    }
}

pub(super) fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
}

/// The last lines of a possibly large log file; `None` if unreadable.
pub(super) fn file_tail(path: &Path) -> Option<String> {
    let mut file = fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(8192))).ok()?;
    let mut buf = Vec::new();
    file.read_to_end(&mut buf).ok()?;
    Some(tail(&String::from_utf8_lossy(&buf)))
}

/// Percent-encode everything but unreserved characters (and `/` if asked).
pub(super) fn percent_encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (keep_slash && b == b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
