//! The per-client-IP throttle of failed authentication (the per-key window is leased:
//! `lease`).

use super::RateInfo;
use governor::{
    Quota, RateLimiter,
    clock::{Clock, DefaultClock},
    middleware::StateInformationMiddleware,
    state::keyed::DefaultKeyedStateStore,
};
use std::net::IpAddr;
use std::num::NonZeroU32;

/// The bucket of a client address in the per-IP throttles: an IPv4 address (also when
/// written IPv4-mapped), or an IPv6 address's /64, since one subscriber usually holds a
/// whole /64 and could otherwise take a fresh bucket per request.
pub(crate) fn throttle_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(std::net::Ipv6Addr::from_bits(
                v6.to_bits() & !((1u128 << 64) - 1),
            )),
        },
    }
}

type IpLimiter =
    RateLimiter<IpAddr, DefaultKeyedStateStore<IpAddr>, DefaultClock, StateInformationMiddleware>;

/// Per-client-IP throttle of requests that fail authentication (key guessing).
pub(crate) struct AuthGuard {
    limiter: IpLimiter,
    per_minute: u32,
}

impl AuthGuard {
    pub(super) fn new(per_minute: u32) -> Self {
        let per_minute = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Self {
            limiter: RateLimiter::keyed(Quota::per_minute(per_minute))
                .with_middleware::<StateInformationMiddleware>(),
            per_minute: per_minute.get(),
        }
    }

    /// Records a failed authentication from `ip`: the figures to show, or the wait in
    /// seconds when the IP has used up its allowance.
    pub(super) fn failure(&self, ip: IpAddr) -> (RateInfo, Option<u64>) {
        let now = chrono::Utc::now().timestamp();
        let seconds_per_cell = 60.0 / f64::from(self.per_minute);
        match self.limiter.check_key(&throttle_key(ip)) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let refill = f64::from(self.per_minute - remaining) * seconds_per_cell;
                let info = RateInfo {
                    limit: self.per_minute,
                    remaining,
                    reset: now + refill.ceil() as i64,
                };
                (info, None)
            }
            Err(not_until) => {
                let wait = not_until
                    .wait_time_from(DefaultClock::default().now())
                    .as_secs()
                    .max(1);
                let info = RateInfo {
                    limit: self.per_minute,
                    remaining: 0,
                    reset: now + wait as i64,
                };
                (info, Some(wait))
            }
        }
    }

    /// Forgets IPs whose allowance is full again (keeps memory bounded).
    pub(crate) fn retain_recent(&self) {
        self.limiter.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_buckets_are_ipv4_addresses_and_ipv6_slash_64s() {
        let key = |s: &str| throttle_key(s.parse().expect("ip"));
        assert_eq!(key("198.51.100.7"), key("::ffff:198.51.100.7"));
        assert_ne!(key("198.51.100.7"), key("198.51.100.8"));
        assert_eq!(
            key("2001:db8:1:2::1"),
            key("2001:db8:1:2:ffff:ffff:ffff:ffff")
        );
        assert_eq!(
            key("2001:db8:1:2::1"),
            "2001:db8:1:2::".parse::<IpAddr>().expect("ip")
        );
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
    }
}
