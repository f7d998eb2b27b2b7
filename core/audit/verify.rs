//! `formsd audit verify`: walks every chain from its base to its head and names the
//! first entry that does not hold: a number skipped (a row deleted), a predecessor's
//! hash that does not match (a row deleted or altered before it), a hash that is not
//! the entry's (a row altered), or a chain that ends before its head (its newest rows
//! deleted).

use super::hash::{self, Entry};
use super::store;
use crate::error::CoreError;
use sqlx::PgPool;
use uuid::Uuid;

/// The first entry found broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Broken {
    pub chain: Uuid,
    /// The entry's number in its chain (for a missing entry: the number expected).
    pub seq: i64,
    pub reason: String,
}

/// What a walk found.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub chains: u64,
    pub entries: u64,
    pub broken: Option<Broken>,
}

/// Walks every chain; stops at the first broken entry.
pub(crate) async fn verify(pool: &PgPool) -> Result<Report, CoreError> {
    let (heads, headless) = store::heads(pool).await?;
    let mut report = Report::default();
    if let Some(chain) = headless.into_iter().next() {
        report.broken = Some(Broken {
            chain,
            seq: 0,
            reason: "the chain's head row is missing".into(),
        });
        return Ok(report);
    }
    for head in heads {
        report.chains += 1;
        let mut expected_seq = head.base_seq + 1;
        let mut prev = head.base_hash.clone();
        let mut count = 0;
        let broken = store::walk(pool, head.chain, |stored| {
            count += 1;
            let found = check(&stored.entry, &stored.hash, expected_seq, &prev);
            expected_seq = stored.entry.seq + 1;
            prev = stored.hash;
            found
        })
        .await?;
        report.entries += count;
        let broken = broken.or_else(|| {
            // The walk ended: it must have reached the head.
            (expected_seq != head.seq + 1 || prev != head.hash).then(|| Broken {
                chain: head.chain,
                seq: expected_seq,
                reason: format!(
                    "the chain ends at entry {} but its head is entry {}: entries were deleted",
                    expected_seq - 1,
                    head.seq
                ),
            })
        });
        if let Some(broken) = broken {
            report.broken = Some(broken);
            return Ok(report);
        }
    }
    Ok(report)
}

/// Why `entry` breaks its chain, if it does.
fn check(entry: &Entry, stored_hash: &[u8], expected_seq: i64, prev: &[u8]) -> Option<Broken> {
    let broken = |seq, reason: &str| {
        Some(Broken {
            chain: entry.chain,
            seq,
            reason: reason.to_owned(),
        })
    };
    if entry.seq != expected_seq {
        return broken(expected_seq, "entry missing: deleted");
    }
    if entry.prev_hash != prev {
        return broken(
            entry.seq,
            "the previous entry's hash does not match: it was altered",
        );
    }
    if hash::of(entry) != stored_hash {
        return broken(entry.seq, "the entry's hash does not match: it was altered");
    }
    None
}
