//! The owners' dashboard, as the core sees it: sign-in (one-time links, OpenID
//! Connect, the identity provider's cookie), the server-side sessions they open, and
//! the account-scoped operations only an owner's session may call (`OwnerService`).
//!
//! The rule: a session token is a credential of its account like an API key, never
//! stored but as its SHA-256 digest, and valid only while it has not been ended, is
//! younger than the absolute lifetime and was used within the idle timeout. Every
//! instance reads the same rows, so sign-out ends it everywhere at once. A call that
//! changes something must also carry the session's CSRF token, an HMAC of a fixed
//! label under the token itself: unforgeable without the token, and nothing to store.

pub(crate) mod link_mail;
pub(crate) mod oidc;
pub(crate) mod own_webhooks;
pub(crate) mod owner;
pub(crate) mod service;
pub(crate) mod store;
mod theme;
pub(crate) mod throttle;

pub(crate) use crate::crypto::{digest, new_token};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use std::time::Duration;

/// Metadata carrying a dashboard session's token.
pub(crate) const SESSION_METADATA: &str = "x-dashboard-session";
/// Metadata carrying the session's CSRF token on calls that change something.
pub(crate) const CSRF_METADATA: &str = "x-csrf-token";

/// How long a sign-in link works.
pub(crate) const LINK_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// How sessions end by themselves.
#[derive(Debug, Clone, Copy)]
pub struct SessionPolicy {
    /// A session unused for this long has ended.
    pub idle_timeout: Duration,
    /// A session this old has ended, however busy.
    pub lifetime: Duration,
}

impl Default for SessionPolicy {
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(2 * 60 * 60),
            lifetime: Duration::from_secs(7 * 24 * 60 * 60),
        }
    }
}

/// How a session was signed in (`dashboard_sessions.method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Link,
    Oidc,
    Cookie,
}

impl Method {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Link => "link",
            Self::Oidc => "oidc",
            Self::Cookie => "cookie",
        }
    }

    /// The method of a stored name; an unknown one reads as a link (the sign-in that
    /// proves least).
    pub(crate) fn of_name(name: &str) -> Self {
        match name {
            "oidc" => Self::Oidc,
            "cookie" => Self::Cookie,
            _ => Self::Link,
        }
    }
}

/// The CSRF token of a session token.
pub(crate) fn csrf_of(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(crate::crypto::hmac_sha256(
        token.as_bytes(),
        &[b"dashboard csrf"],
    ))
}

/// Whether `presented` is the CSRF token of `token`, compared in constant time.
pub(crate) fn csrf_matches(token: &str, presented: &str) -> bool {
    crate::crypto::same(csrf_of(token).as_bytes(), presented.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csrf_token_belongs_to_one_session() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 43);
        assert!(csrf_matches(&a, &csrf_of(&a)));
        assert!(!csrf_matches(&a, &csrf_of(&b)));
        assert!(!csrf_matches(&a, ""));
        assert!(
            !csrf_matches(&a, &a),
            "the token itself is not its CSRF token"
        );
        // Compared through the one constant-time comparison.
        let (_, n) = crate::crypto::seam::comparisons_in(|| csrf_matches(&a, "x"));
        assert_eq!(n, 1);
    }
}
