//! Where a visitor is in a form with pages. The core keeps their answers page by page as
//! a partial response, named by a resume token; the edge keeps the token for them in a
//! cookie of the form's own path (`formsd_resume`, 30 days, like the partial response),
//! hands it out as a resume link (`?resume=`), and carries it from page to page in the
//! page itself. A page's address says which page to show (`?page=`); the rest of its
//! query is the prefill, kept from page to page.

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;

/// Cookie carrying the resume token of the visitor's partial response to one form.
const RESUME_COOKIE: &str = "formsd_resume";
/// How long the cookie is kept: as long as an unfinished response by default.
const MAX_AGE_SECONDS: u32 = 30 * 24 * 3600;
/// Longest resume token taken from a visitor.
const MAX_TOKEN: usize = 512;

/// A token that may travel in a cookie and a header: printable ASCII without the
/// characters that end a cookie's value. The core judges the rest.
fn sane_token(token: &str) -> bool {
    !token.is_empty()
        && token.len() <= MAX_TOKEN
        && token
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b';' | b',' | b'"' | b'\\'))
}

/// A short id that may go in a cookie's `Path` as it is.
fn sane_short_id(short_id: &str) -> bool {
    !short_id.is_empty()
        && short_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
}

/// The resume token of the visitor's cookie, if it holds a sane one.
pub(super) fn from_cookie(headers: &HeaderMap) -> Option<String> {
    crate::http::cookies::cookie(headers, RESUME_COOKIE)
        .filter(|t| sane_token(t))
        .map(str::to_owned)
}

/// A token posted with a page or given in a link, if sane.
pub(super) fn given(token: &str) -> Option<String> {
    let token = token.trim();
    sane_token(token).then(|| token.to_owned())
}

/// What a page's URL query says.
#[derive(Debug, Default, PartialEq)]
pub(super) struct PageQuery {
    /// The page asked for (`?page=`), when a positive number.
    pub page: Option<i32>,
    /// The resume token of a resume link (`?resume=`).
    pub resume: Option<String>,
    /// Everything else (the prefill), encoded again.
    pub rest: String,
}

pub(super) fn parse(query: &str) -> PageQuery {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap_or_default();
    let mut parsed = PageQuery::default();
    let mut rest = Vec::new();
    for (name, value) in pairs {
        match name.as_str() {
            "page" => parsed.page = value.trim().parse().ok().filter(|p: &i32| *p > 0),
            "resume" => parsed.resume = given(&value),
            _ => rest.push((name, value)),
        }
    }
    parsed.rest = serde_urlencoded::to_string(&rest).unwrap_or_default();
    parsed
}

/// The query of the address of page `page`, with the prefill `rest` (and the resume
/// token, for a page whose cookie the browser may withhold: see `NonceHome::Page`).
pub(super) fn page_query(page: i32, resume: Option<&str>, rest: &str) -> String {
    let mut query = format!("page={page}");
    if let Some(token) = resume {
        let pair = serde_urlencoded::to_string([("resume", token)]).unwrap_or_default();
        query.push('&');
        query.push_str(&pair);
    }
    if !rest.is_empty() {
        query.push('&');
        query.push_str(rest);
    }
    query
}

/// Keeps `token` in the visitor's cookie for the form, or clears the cookie (None).
/// The server adds `Secure` when the visitor came over HTTPS (see `https`).
pub(super) fn set_cookie(response: &mut Response, short_id: &str, token: Option<&str>) {
    if !sane_short_id(short_id) || token.is_some_and(|t| !sane_token(t)) {
        return;
    }
    let (value, max_age) = token.map_or(("", 0), |t| (t, MAX_AGE_SECONDS));
    // Lax, not Strict: a resume link followed from a mail finds its cookie too.
    let cookie = format!(
        "{RESUME_COOKIE}={value}; Path=/f/{short_id}; HttpOnly; SameSite=Lax; Max-Age={max_age}"
    );
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::response::IntoResponse;

    #[test]
    fn the_query_gives_the_page_the_resume_token_and_the_prefill() {
        assert_eq!(
            parse("page=2&resume=abc-1_2&utm_source=news+letter&x=1"),
            PageQuery {
                page: Some(2),
                resume: Some("abc-1_2".into()),
                rest: "utm_source=news+letter&x=1".into(),
            }
        );
        assert_eq!(parse("page=0").page, None);
        assert_eq!(parse("page=two").page, None);
        assert_eq!(parse("resume=a%3Bb").resume, None, "no cookie separator");
        assert_eq!(parse("").rest, "");
        assert_eq!(page_query(3, None, ""), "page=3");
        assert_eq!(page_query(3, Some("t/1"), "a=b"), "page=3&resume=t%2F1&a=b");
    }

    #[test]
    fn the_cookie_is_the_forms_own_and_cleared_with_max_age_zero() {
        let mut response = ().into_response();
        set_cookie(&mut response, "abc123", Some("tok"));
        set_cookie(&mut response, "abc123", None);
        set_cookie(&mut response, "a;b", Some("tok"));
        set_cookie(&mut response, "abc123", Some("to;k"));
        let cookies: Vec<&str> = response
            .headers()
            .get_all(header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        assert_eq!(
            cookies,
            [
                "formsd_resume=tok; Path=/f/abc123; HttpOnly; SameSite=Lax; Max-Age=2592000",
                "formsd_resume=; Path=/f/abc123; HttpOnly; SameSite=Lax; Max-Age=0",
            ]
        );
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("formsd_csrf=x; formsd_resume=tok"),
        );
        assert_eq!(from_cookie(&headers).as_deref(), Some("tok"));
    }
}
