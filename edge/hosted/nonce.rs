//! The visitor's CSRF nonce, to which the page's start token is bound: kept in a
//! same-site cookie, or in the page itself when another site frames it.

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;

/// Cookie carrying the visitor's CSRF nonce (the page's token is bound to it).
const CSRF_COOKIE: &str = "formsd_csrf";
/// Hidden field carrying the nonce of a page framed by another site (see [`NonceHome`]).
pub(super) const NONCE_FIELD: &str = "_nonce";

/// Where the visitor's CSRF nonce lives.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum NonceHome {
    /// A same-site cookie (`fresh`: set it with this reply).
    Cookie { fresh: bool },
    /// The page itself, for a page framed by another site: browsers withhold same-site
    /// cookies there, and third-party cookies may be blocked. A submission may then
    /// bring its nonce in the form only when the browser attests that it comes from
    /// the page itself (`Sec-Fetch-Site: same-origin`, which no web page can forge), so
    /// another site still cannot post in a visitor's name.
    Page,
}

fn header_is(headers: &HeaderMap, name: &str, value: &str) -> bool {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case(value))
}

fn sane_nonce(value: &str) -> bool {
    value.len() == 32 && value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The visitor's nonce and where it lives: the cookie's when it has a sane one (several
/// open tabs keep working); for a submission from a framed page, the one it posted;
/// else a new one, kept in the page when the page is framed, in a cookie otherwise.
pub(super) fn nonce(headers: &HeaderMap, posted: Option<&str>) -> (String, NonceHome) {
    if let Some(nonce) = cookie_nonce(headers) {
        return (nonce, NonceHome::Cookie { fresh: false });
    }
    if let Some(posted) = posted.filter(|n| sane_nonce(n))
        && header_is(headers, "sec-fetch-site", "same-origin")
    {
        return (posted.to_owned(), NonceHome::Page);
    }
    let fresh = uuid::Uuid::new_v4().simple().to_string();
    if header_is(headers, "sec-fetch-dest", "iframe") {
        (fresh, NonceHome::Page)
    } else {
        (fresh, NonceHome::Cookie { fresh: true })
    }
}

fn cookie_nonce(headers: &HeaderMap) -> Option<String> {
    crate::http::cookies::cookie(headers, CSRF_COOKIE)
        .filter(|v| sane_nonce(v))
        .map(str::to_owned)
}

/// Sets the nonce's cookie when it is a fresh one (the server adds `Secure` when the
/// visitor came over HTTPS: see `https`), and keeps the reply out of caches.
pub(super) fn with_cookie(mut response: Response, nonce: &str, home: NonceHome) -> Response {
    if home == (NonceHome::Cookie { fresh: true })
        && let Ok(value) = HeaderValue::from_str(&format!(
            "{CSRF_COOKIE}={nonce}; Path=/f/; HttpOnly; SameSite=Strict; Max-Age=86400"
        ))
    {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
