//! Sign-in attempts, throttled per client address (an IPv6 /64 counts as one) and per
//! account: guessing link tokens from one address, or mailing links to one account
//! from many, runs out of allowance. Pruned with the hosted pages' throttles.
//!
//! An account has two allowances: one of mailed links, which anyone may ask for with
//! the owner's address, and one of sessions opened, which only a valid credential (a
//! link, a provider's word) reaches. Strangers exhausting the first cannot keep the
//! owner from signing in with the operator's link or their identity provider.

use crate::error::CoreError;
use crate::gate;
use crate::hosted::throttle::take;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::IpAddr;
use std::num::NonZeroU32;
use uuid::Uuid;

pub(crate) struct SignInThrottle {
    by_ip: DefaultKeyedRateLimiter<IpAddr>,
    by_account: DefaultKeyedRateLimiter<Uuid>,
    mails_by_account: DefaultKeyedRateLimiter<Uuid>,
}

impl SignInThrottle {
    /// `per_minute` attempts per address and per account.
    pub(crate) fn per_minute(per_minute: u32) -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN));
        Self {
            by_ip: RateLimiter::keyed(quota),
            by_account: RateLimiter::keyed(quota),
            mails_by_account: RateLimiter::keyed(quota),
        }
    }

    /// An attempt from `ip`.
    #[allow(clippy::wrong_self_convention)] // "from" as in "an attempt from", not a conversion
    pub(crate) fn from_ip(&self, ip: IpAddr) -> Result<(), CoreError> {
        take(&self.by_ip, gate::throttle_key(ip))
    }

    /// A session opened for `account` (its credential was valid).
    pub(crate) fn at_account(&self, account: Uuid) -> Result<(), CoreError> {
        take(&self.by_account, account)
    }

    /// A link mailed to `account`'s address, at anyone's request.
    pub(crate) fn mail_to_account(&self, account: Uuid) -> Result<(), CoreError> {
        take(&self.mails_by_account, account)
    }

    /// Forgets the addresses and accounts whose allowance is full again.
    pub(crate) fn retain_recent(&self) {
        self.by_ip.retain_recent();
        self.by_account.retain_recent();
        self.mails_by_account.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::SignInThrottle;
    use std::net::{IpAddr, Ipv6Addr};
    use uuid::Uuid;

    #[test]
    fn an_address_and_an_account_each_run_out() {
        let throttle = SignInThrottle::per_minute(3);
        let ip = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1));
        let same_net = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 9, 9, 9, 9));
        for _ in 0..3 {
            assert!(throttle.from_ip(ip).is_ok());
        }
        assert!(throttle.from_ip(same_net).is_err(), "one /64 is one client");
        let other = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb9, 0, 0, 0, 0, 0, 1));
        assert!(throttle.from_ip(other).is_ok());
        let account = Uuid::new_v4();
        for _ in 0..3 {
            assert!(throttle.at_account(account).is_ok());
        }
        assert!(throttle.at_account(account).is_err());
        assert!(throttle.at_account(Uuid::new_v4()).is_ok());
        // Mails are an allowance of their own: used up, sessions still open.
        let owner = Uuid::new_v4();
        for _ in 0..3 {
            assert!(throttle.mail_to_account(owner).is_ok());
        }
        assert!(throttle.mail_to_account(owner).is_err());
        assert!(throttle.at_account(owner).is_ok());
    }
}
