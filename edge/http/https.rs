//! What a reply carries when its request came over HTTPS, directly or through a trusted
//! proxy that terminated TLS (`forwarded::https`): HSTS, so that the browser never uses
//! plain HTTP for this host again, and `Secure` on every cookie it sets, so that the
//! browser never sends them over plain HTTP. The server applies it to every reply
//! (`http_server`), so that no handler that sets a cookie (the hosted pages' CSRF
//! cookie today, the dashboard's session tomorrow) can forget it.

use axum::http::header::{Entry, SET_COOKIE, STRICT_TRANSPORT_SECURITY};
use axum::http::{HeaderMap, HeaderValue};

/// Two years, the value the HSTS preload list asks for; without `includeSubDomains`,
/// which would bind other hosts of the operator's domain.
pub(crate) const HSTS: &str = "max-age=63072000";

/// Adds HSTS to a reply to an HTTPS request, and `Secure` to its cookies.
pub(crate) fn secure(headers: &mut HeaderMap) {
    headers.insert(STRICT_TRANSPORT_SECURITY, HeaderValue::from_static(HSTS));
    if let Entry::Occupied(mut cookies) = headers.entry(SET_COOKIE) {
        for cookie in cookies.iter_mut() {
            if !is_secure(cookie)
                && let Ok(secure) =
                    HeaderValue::from_bytes(&[cookie.as_bytes(), b"; Secure"].concat())
            {
                *cookie = secure;
            }
        }
    }
}

/// Whether a `Set-Cookie` value has the `Secure` attribute (after its name=value).
fn is_secure(cookie: &HeaderValue) -> bool {
    cookie
        .as_bytes()
        .split(|b| *b == b';')
        .skip(1)
        .any(|attribute| attribute.trim_ascii().eq_ignore_ascii_case(b"secure"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cookie_becomes_secure_once_and_hsts_is_set() {
        let mut headers = HeaderMap::new();
        for cookie in ["a=1; Path=/f/; HttpOnly", "b=secure", "c=2; secure; Path=/"] {
            headers.append(SET_COOKIE, HeaderValue::from_static(cookie));
        }
        secure(&mut headers);
        let cookies: Vec<_> = headers
            .get_all(SET_COOKIE)
            .iter()
            .map(|v| v.to_str().expect("ASCII"))
            .collect();
        assert_eq!(
            cookies,
            [
                "a=1; Path=/f/; HttpOnly; Secure",
                "b=secure; Secure",
                "c=2; secure; Path=/"
            ]
        );
        assert_eq!(headers[STRICT_TRANSPORT_SECURITY], HSTS);

        let mut none = HeaderMap::new();
        secure(&mut none);
        assert!(none.get(SET_COOKIE).is_none());
    }
}
