//! The retry schedule, for every kind of message: the n-th failure schedules retry n
//! after the n-th wait (SPEC: 30 s after the first failure, then 5 minutes, then 30
//! minutes; `--webhook-retry-schedule`), until the retries are used up.

use super::DeliveryStatus;
use std::time::Duration;

/// Retries after a failed first attempt (SPEC: 3).
pub(crate) const MAX_RETRIES: i32 = 3;

/// Where an attempt leaves its message: its status, the attempts made (this one
/// included) and, while it is pending, the wait before it is due again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Settled {
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub retry_in: Option<Duration>,
}

/// Settles the `attempts`-th attempt (this one included) of a message that may have
/// `max_retries` retries: succeeded when `delivered`; else pending until the next wait
/// of `schedule`, or failed when the retries are used up, the schedule has no wait
/// left, or the failure is `permanent` (no retry can mend it).
pub(crate) fn settle(
    schedule: &[Duration],
    attempts: i32,
    max_retries: i32,
    delivered: bool,
    permanent: bool,
) -> Settled {
    if delivered {
        return Settled {
            status: DeliveryStatus::Succeeded,
            attempts,
            retry_in: None,
        };
    }
    // After attempt n (n ≥ 1) comes retry n, after wait n - 1 of the schedule.
    let wait = usize::try_from(attempts.saturating_sub(1))
        .ok()
        .filter(|_| attempts <= max_retries && !permanent)
        .and_then(|n| schedule.get(n).copied());
    match wait {
        Some(wait) => Settled {
            status: DeliveryStatus::Pending,
            attempts,
            retry_in: Some(wait),
        },
        None => Settled {
            status: DeliveryStatus::Failed,
            attempts,
            retry_in: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    fn failed_after(schedule: &[Duration], attempts: i32) -> Settled {
        settle(schedule, attempts, MAX_RETRIES, false, false)
    }

    #[test]
    fn retries_wait_each_step_of_the_schedule_in_order_then_fail() {
        let schedule = [S(1), S(2), S(4)];
        let settled: Vec<(DeliveryStatus, Option<Duration>)> = (1..=4)
            .map(|n| failed_after(&schedule, n))
            .map(|s| (s.status, s.retry_in))
            .collect();
        let pending = |wait| (DeliveryStatus::Pending, Some(wait));
        assert_eq!(
            settled,
            [
                pending(S(1)),
                pending(S(2)),
                pending(S(4)),
                (DeliveryStatus::Failed, None)
            ]
        );
    }

    #[test]
    fn success_a_permanent_failure_and_a_short_budget_or_schedule_end_it() {
        let schedule = [S(30), S(300), S(1800)];
        let done = settle(&schedule, 2, MAX_RETRIES, true, false);
        assert_eq!(done.status, DeliveryStatus::Succeeded);
        assert_eq!(done.retry_in, None);
        let permanent = settle(&schedule, 1, MAX_RETRIES, false, true);
        assert_eq!(permanent.status, DeliveryStatus::Failed);
        // One retry allowed: the second failure is the last.
        assert_eq!(settle(&schedule, 1, 1, false, false).retry_in, Some(S(30)));
        assert_eq!(
            settle(&schedule, 2, 1, false, false).status,
            DeliveryStatus::Failed
        );
        // A schedule shorter than the retry budget ends where it ends.
        assert_eq!(failed_after(&[S(1)], 2).status, DeliveryStatus::Failed);
        assert_eq!(failed_after(&[], 1).status, DeliveryStatus::Failed);
        // Nonsense counts fail rather than panic.
        assert_eq!(failed_after(&schedule, 0).status, DeliveryStatus::Failed);
    }
}
