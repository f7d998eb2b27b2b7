//! The per-IP throttles of hosted pages. A visitor's submission takes one of its IP's
//! allowance from each throttle it passes (admission of its files, then the submission
//! itself). Every throttle is pruned by the one `retain_recent`: an IP whose allowance is
//! full again is forgotten, so memory follows the visitors of the last minute, not every
//! address ever seen.

use crate::error::CoreError;
use crate::gate;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::IpAddr;
use std::num::NonZeroU32;

/// The hosted pages' throttles, each `per_minute` per IP (an IPv6 /64 counts as one).
pub(crate) struct Throttles {
    /// Admissions of submissions with files (before their bytes are read).
    admissions: DefaultKeyedRateLimiter<IpAddr>,
    /// Submissions.
    submissions: DefaultKeyedRateLimiter<IpAddr>,
}

impl Throttles {
    pub(crate) fn per_minute(per_minute: u32) -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN));
        Self {
            admissions: RateLimiter::keyed(quota),
            submissions: RateLimiter::keyed(quota),
        }
    }

    pub(crate) fn admit(&self, ip: IpAddr) -> Result<(), CoreError> {
        take(&self.admissions, gate::throttle_key(ip))
    }

    pub(crate) fn submit(&self, ip: IpAddr) -> Result<(), CoreError> {
        take(&self.submissions, gate::throttle_key(ip))
    }

    /// Forgets the IPs whose allowance is full again, in every throttle.
    pub(crate) fn retain_recent(&self) {
        self.admissions.retain_recent();
        self.submissions.retain_recent();
    }

    #[cfg(test)]
    fn remembered(&self) -> usize {
        self.admissions.len() + self.submissions.len()
    }
}

/// Takes one of `key`'s allowance from `limiter` (an IP's, through `gate::throttle_key`,
/// or an account's); RATE_LIMITED with the wait when there is none left.
pub(crate) fn take<K: std::hash::Hash + Eq + Clone>(
    limiter: &DefaultKeyedRateLimiter<K>,
    key: K,
) -> Result<(), CoreError> {
    limiter.check_key(&key).map_err(|not_until| {
        let wait = not_until.wait_time_from(governor::clock::Clock::now(
            &governor::clock::DefaultClock::default(),
        ));
        CoreError::RateLimited {
            retry_after: wait.as_secs().max(1),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::Throttles;
    use std::net::{IpAddr, Ipv4Addr};
    use std::time::{Duration, Instant};

    #[test]
    fn visitors_are_forgotten_once_their_allowance_is_full_again() {
        // 60,000 a minute: one unit of allowance comes back every millisecond.
        let throttles = Throttles::per_minute(60_000);
        for n in 0..5_000u32 {
            let ip = IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + n));
            assert!(throttles.admit(ip).is_ok());
            assert!(throttles.submit(ip).is_ok());
        }
        assert_eq!(throttles.remembered(), 10_000);
        let deadline = Instant::now() + Duration::from_secs(10);
        while throttles.remembered() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
            throttles.retain_recent();
        }
        assert_eq!(
            throttles.remembered(),
            0,
            "every throttle forgets its visitors"
        );
    }

    #[test]
    fn each_throttle_takes_its_own_allowance() {
        let throttles = Throttles::per_minute(1);
        let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
        assert!(throttles.admit(ip).is_ok());
        assert!(
            throttles.submit(ip).is_ok(),
            "admission left the submission's"
        );
        assert!(throttles.admit(ip).is_err());
        assert!(throttles.submit(ip).is_err());
    }
}
