//! The server settings a production PostgreSQL runs formsd with, in one place: the
//! embedded cluster starts with them, and the benchmarks measure only on a server that
//! has them (their own cluster started with them, or one they checked).
//!
//! Why these: a server that never vacuums keeps every dead row and plans with the
//! statistics of the day its tables were small (the webhook backlog's claim once
//! hash-joined 100,000 pending rows for that reason), and with PostgreSQL's default
//! `max_wal_size` of 1 GB a checkpoint comes every half minute under load, each followed
//! by a round of full-page images that more than doubled the WAL of a create at 2 M
//! responses (the book's Capacity page has the figures). A checkpoint every 15 minutes
//! with compressed page images keeps that cost flat; 8 GB bounds the disk the WAL may
//! take between two checkpoints on a single machine.

/// Name and value of each setting, as `SHOW name` prints the value.
pub const PRODUCTION: &[(&str, &str)] = &[
    ("autovacuum", "on"),
    ("max_wal_size", "8GB"),
    ("checkpoint_timeout", "15min"),
    ("wal_compression", "lz4"),
];

/// The settings as `postgres` command-line options (`-c name=value ...`).
pub fn as_options() -> String {
    PRODUCTION
        .iter()
        .map(|(name, value)| format!("-c {name}={value}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The settings a server differs in, from what `SHOW name` printed for each (`shown`,
/// in the order of [`PRODUCTION`]): each as `name is X, not Y`.
pub fn differences(shown: &[String]) -> Vec<String> {
    PRODUCTION
        .iter()
        .zip(shown)
        .filter(|((_, want), got)| !got.eq_ignore_ascii_case(want))
        .map(|((name, want), got)| format!("{name} is {got}, not {want}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_without_autovacuum_is_told_apart() {
        let mut shown: Vec<String> = PRODUCTION.iter().map(|(_, v)| v.to_string()).collect();
        assert!(differences(&shown).is_empty());
        shown[0] = "off".into();
        assert_eq!(differences(&shown), ["autovacuum is off, not on"]);
    }

    #[test]
    fn options_name_every_setting() {
        let options = as_options();
        for (name, value) in PRODUCTION {
            assert!(options.contains(&format!("-c {name}={value}")), "{options}");
        }
    }
}
