//! Where the browser reached this service (`https://forms.example.com`): the base of the
//! absolute links a page shows (the share panel's link, the hosted page's own address).

use crate::http::server::OverHttps;
use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use std::convert::Infallible;

/// Where the browser reached this service, from the
/// request's Host and whether it came over HTTPS; `None` when the Host is missing or
/// not a plain host name (then links stay relative).
#[derive(Debug, Clone, Default)]
pub(crate) struct Origin(pub(crate) Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for Origin {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        let https = parts.extensions.get::<OverHttps>().is_some_and(|h| h.0);
        let host = parts
            .uri
            .authority()
            .map(|a| a.as_str().to_owned())
            .or_else(|| {
                parts
                    .headers
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .map(str::to_owned)
            });
        Ok(Self(host.filter(|h| plain_host(h)).map(|host| {
            format!("{}://{host}", if https { "https" } else { "http" })
        })))
    }
}

/// A host (and port) that may go into a link as it is: a name, an IPv4 address or a
/// bracketed IPv6 address, with an optional port; no user info, path or space.
fn plain_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
}

impl Origin {
    /// The hosted page of a form: absolute when the origin is known.
    pub(crate) fn hosted_url(&self, short_id: &str) -> String {
        format!("{}/f/{short_id}", self.0.as_deref().unwrap_or(""))
    }
}

#[cfg(test)]
mod tests {
    use super::plain_host;

    #[test]
    fn only_plain_hosts_go_into_links() {
        assert!(plain_host("forms.example.com:8443"));
        assert!(plain_host("[::1]:80"));
        assert!(!plain_host("evil.test/path"));
        assert!(!plain_host("a b"));
        assert!(!plain_host("user@host"));
    }
}
