//! What is known of one replica: whether it takes reads (answering as a standby that
//! follows the primary), how far it has been seen to replay, and whom it follows.

use super::Lsn;
use super::lineage::Lineage;
use std::sync::atomic::{AtomicI64, AtomicU8, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A replica's health, as its probe (or a read's question) last found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Health {
    /// Not asked yet.
    Unknown = 0,
    /// Answering as a standby that follows the primary: it takes reads.
    Up = 1,
    /// Not answering, or not as a standby.
    Down = 2,
    /// Answering as a standby that cannot be shown to follow the primary.
    Astray = 3,
}

impl Health {
    fn from_u8(value: u8) -> Self {
        match value {
            1 => Self::Up,
            2 => Self::Down,
            3 => Self::Astray,
            _ => Self::Unknown,
        }
    }
}

pub(super) struct State {
    health: AtomicU8,
    /// The furthest position it was seen to have replayed since it was found up.
    known: AtomicI64,
    /// Whom it last said it follows (`None`: it showed none).
    lineage: Mutex<Option<Lineage>>,
    /// The furthest primary position a read was sent here for. Kept while it is down:
    /// a server that opens a connection later (it restarted, or another took its
    /// address) serves nothing until it has replayed that far.
    floor: AtomicI64,
    /// When it was last found down or astray, in milliseconds from `epoch` plus one
    /// (0: never).
    down_at: AtomicU64,
    epoch: Instant,
}

impl State {
    pub(super) fn new() -> Self {
        Self {
            // Taking no reads until the first probe finds it following the primary.
            health: AtomicU8::new(Health::Unknown as u8),
            known: AtomicI64::new(0),
            lineage: Mutex::new(None),
            floor: AtomicI64::new(0),
            down_at: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    fn health(&self) -> Health {
        Health::from_u8(self.health.load(Ordering::Acquire))
    }

    /// Found following the primary, having replayed `replayed`; says whether it took no
    /// reads before. Coming back, it starts from what it has replayed now, whatever it
    /// had before.
    pub(super) fn up(&self, replayed: Lsn) -> bool {
        if self.health() == Health::Up {
            self.known.fetch_max(replayed, Ordering::AcqRel);
            return false;
        }
        self.known.store(replayed, Ordering::Release);
        self.health.store(Health::Up as u8, Ordering::Release);
        true
    }

    /// Found `health` (down, or astray) now; says whether that is news. What it had
    /// replayed is forgotten.
    pub(super) fn not_up(&self, health: Health) -> bool {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX - 1);
        self.down_at.store(now + 1, Ordering::Release);
        let was = Health::from_u8(self.health.swap(health as u8, Ordering::AcqRel));
        self.known.store(0, Ordering::Release);
        // Following another primary (a failover), its positions are of another
        // history: what reads were promised here no longer compares.
        if health == Health::Astray {
            self.floor.store(0, Ordering::Release);
        }
        was != health
    }

    /// Saw it had replayed `replayed` (positions only grow while it runs), following
    /// `lineage`.
    pub(super) fn saw(&self, replayed: Lsn, lineage: Option<Lineage>) {
        self.known.fetch_max(replayed, Ordering::AcqRel);
        *self.lineage.lock().unwrap_or_else(PoisonError::into_inner) = lineage;
    }

    /// What it was seen to have replayed, while it takes reads; `None` otherwise.
    pub(super) fn seen(&self) -> Option<Lsn> {
        (self.health() == Health::Up).then(|| self.known.load(Ordering::Acquire))
    }

    /// What it was seen to have replayed, while it takes reads and was last seen
    /// following the primary of lineage `primary`.
    pub(super) fn seen_following(&self, primary: Lineage) -> Option<Lsn> {
        let follows = *self.lineage.lock().unwrap_or_else(PoisonError::into_inner);
        self.seen().filter(|_| follows == Some(primary))
    }

    /// A read for the primary's position `target` goes here.
    pub(super) fn promised(&self, target: Lsn) {
        self.floor.fetch_max(target, Ordering::AcqRel);
    }

    /// Whether a server of this replica that has replayed `replayed` (`None`: no
    /// standby) may serve: it has replayed every position a read was sent here for.
    pub(super) fn may_serve(&self, replayed: Option<Lsn>) -> bool {
        let floor = self.floor.load(Ordering::Acquire);
        floor == 0 || replayed.is_some_and(|replayed| replayed >= floor)
    }

    /// What it was seen to have replayed is forgotten: a new connection found its
    /// server short of it (restarted), and reads ask again.
    pub(super) fn went_back(&self, replayed: Lsn) {
        self.known.fetch_min(replayed, Ordering::AcqRel);
    }

    /// Whether it takes reads.
    pub(super) fn is_up(&self) -> bool {
        self.health() == Health::Up
    }

    /// How long ago it was last found down or astray, if ever.
    pub(super) fn since_down(&self) -> Option<Duration> {
        match self.down_at.load(Ordering::Acquire) {
            0 => None,
            at => {
                let at = Duration::from_millis(at - 1);
                Some(self.epoch.elapsed().saturating_sub(at))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOLLOWED: Lineage = Lineage {
        system: 7,
        timeline: 1,
    };

    #[test]
    fn a_replica_is_down_until_found_up_and_forgets_its_position_when_down() {
        let state = State::new();
        assert_eq!(state.seen(), None, "down until a probe finds it");
        assert_eq!(state.since_down(), None);
        state.saw(300, Some(FOLLOWED));
        assert_eq!(
            state.seen(),
            None,
            "a position seen while down sends no read"
        );
        assert!(state.up(500), "it was down");
        assert_eq!(state.seen(), Some(500));
        state.saw(700, Some(FOLLOWED));
        state.saw(600, Some(FOLLOWED));
        assert!(!state.up(650));
        assert_eq!(state.seen(), Some(700), "positions only grow while it runs");
        assert!(state.not_up(Health::Down), "it was up");
        assert!(!state.not_up(Health::Down));
        assert_eq!(state.seen(), None);
        assert!(state.since_down().is_some());
        // Restarted, it may open short of where it was: what it has replayed now counts.
        assert!(state.up(200));
        assert_eq!(state.seen(), Some(200));
    }

    #[test]
    fn a_server_short_of_what_reads_were_sent_for_serves_none_even_after_down() {
        let state = State::new();
        assert!(
            state.may_serve(Some(0)),
            "no read sent yet: nothing to hold to"
        );
        assert!(state.up(500));
        state.promised(400);
        state.promised(300);
        assert!(state.may_serve(Some(400)));
        assert!(
            !state.may_serve(Some(399)),
            "restarted behind a read it was sent"
        );
        assert!(!state.may_serve(None), "no longer a standby");
        state.went_back(350);
        assert_eq!(state.seen(), Some(350), "reads ask again");
        assert!(state.not_up(Health::Down));
        assert!(
            !state.may_serve(Some(399)),
            "found down meanwhile: the reads sent before still hold it"
        );
        assert!(state.not_up(Health::Astray));
        assert!(
            state.may_serve(Some(1)),
            "another history: nothing compares"
        );
    }

    #[test]
    fn a_replica_serves_only_the_primary_it_was_seen_following() {
        let state = State::new();
        assert!(state.not_up(Health::Down), "never asked: news");
        state.saw(500, Some(FOLLOWED));
        assert!(state.up(500));
        assert_eq!(state.seen_following(FOLLOWED), Some(500));
        // The primary moved to another timeline (a failover): no read until it is
        // seen following that one.
        let promoted = Lineage {
            timeline: 2,
            ..FOLLOWED
        };
        assert_eq!(state.seen_following(promoted), None);
        // Its receiver stopped: it shows whom it follows no more.
        state.saw(500, None);
        assert_eq!(state.seen_following(FOLLOWED), None);
        // Found astray: news once, and no reads.
        assert!(state.not_up(Health::Astray));
        assert!(!state.not_up(Health::Astray));
        assert!(state.not_up(Health::Down), "astray, then down: news");
        assert_eq!(state.seen(), None);
    }
}
