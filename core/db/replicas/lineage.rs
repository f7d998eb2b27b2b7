//! Whom a replica follows. A replica serves reads only while it provably follows the
//! current primary: a copy of the same database cluster (its system identifier) that
//! streams the primary's timeline. After a failover, a standby of the former primary
//! that replayed past the point where the promoted standby left the timeline holds
//! writes the new primary never had (and misses the new primary's), and may be ahead
//! of the new primary's WAL position, which alone would send it reads.

use super::super::store::Replay;

/// A server's database cluster and timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lineage {
    /// `pg_control_system().system_identifier`: made by `initdb`, kept by every copy.
    pub(crate) system: i64,
    pub(crate) timeline: i32,
}

/// The lineage a standby's answer shows it follows, or why it shows none: only a WAL
/// receiver that streams names the timeline it follows.
pub(super) fn lineage_of(replay: &Replay) -> Result<Lineage, String> {
    match (replay.timeline, replay.hidden) {
        (Some(timeline), _) => Ok(Lineage {
            system: replay.system,
            timeline,
        }),
        (None, true) => Err("its WAL receiver's state is hidden from its database role \
                             (grant it pg_read_all_stats)"
            .to_owned()),
        (None, false) => Err("it streams from no primary now".to_owned()),
    }
}

/// Why a replica of lineage `replica` does not follow the primary of lineage `primary`;
/// `None` when it does.
pub(super) fn mismatch(replica: Lineage, primary: Lineage) -> Option<String> {
    if replica.system != primary.system {
        return Some(format!(
            "it is a copy of another database cluster (system identifier {}, the \
             primary's {})",
            replica.system, primary.system
        ));
    }
    (replica.timeline != primary.timeline).then(|| {
        format!(
            "it streams timeline {}, the primary writes timeline {} (a failover it did \
             not follow?)",
            replica.timeline, primary.timeline
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replay(timeline: Option<i32>, hidden: bool) -> Replay {
        Replay {
            replayed: Some(100),
            system: 7,
            timeline,
            hidden,
        }
    }

    #[test]
    fn only_a_streaming_receiver_shows_whom_it_follows() {
        let shown = lineage_of(&replay(Some(2), false));
        assert_eq!(
            shown,
            Ok(Lineage {
                system: 7,
                timeline: 2
            })
        );
        let hidden = lineage_of(&replay(None, true)).expect_err("hidden");
        assert!(hidden.contains("pg_read_all_stats"), "{hidden}");
        let alone = lineage_of(&replay(None, false)).expect_err("not streaming");
        assert!(alone.contains("streams from no primary"), "{alone}");
    }

    #[test]
    fn a_replica_follows_only_the_primary_of_its_cluster_and_timeline() {
        let primary = Lineage {
            system: 7,
            timeline: 2,
        };
        assert_eq!(mismatch(primary, primary), None);
        let behind = mismatch(
            Lineage {
                system: 7,
                timeline: 1,
            },
            primary,
        )
        .expect("astray");
        assert!(
            behind.contains("timeline 1") && behind.contains("timeline 2"),
            "{behind}"
        );
        let other = mismatch(
            Lineage {
                system: 8,
                timeline: 2,
            },
            primary,
        )
        .expect("astray");
        assert!(other.contains("another database cluster"), "{other}");
    }
}
