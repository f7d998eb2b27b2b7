//! Reading a cookie of a request: the one parser of `Cookie` headers in the edge (the
//! hosted pages' CSRF nonce, the dashboard's session and OpenID attempt).

use axum::http::{HeaderMap, header};

/// The value of the first cookie named `name`, trimmed; None when absent or empty.
pub(crate) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    values(headers, name).next().filter(|v| !v.is_empty())
}

/// The value of the cookie named `name` when the request has exactly one, trimmed;
/// None when it has none, an empty one, or several. Several are what a sibling host
/// sends by setting its own cookie of the name for a longer path or the parent domain
/// (the browser sends both, the longer path first): which one is ours cannot be told.
pub(crate) fn only_cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let mut found = values(headers, name);
    match (found.next(), found.next()) {
        (Some(value), None) if !value.is_empty() => Some(value),
        _ => None,
    }
}

/// The values of every cookie named `name`, in the order sent.
fn values<'a>(headers: &'a HeaderMap, name: &str) -> impl Iterator<Item = &'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(move |(n, _)| *n == name)
        .map(|(_, value)| value.trim())
}

#[cfg(test)]
mod tests {
    use super::cookie;
    use axum::http::{HeaderMap, HeaderValue, header};

    #[test]
    fn the_named_cookie_of_any_cookie_header() {
        let mut headers = HeaderMap::new();
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; formsd_session= s ; b="),
        );
        headers.append(header::COOKIE, HeaderValue::from_static("c=3"));
        assert_eq!(cookie(&headers, "formsd_session"), Some("s"));
        assert_eq!(cookie(&headers, "c"), Some("3"));
        assert_eq!(cookie(&headers, "b"), None, "empty");
        assert_eq!(cookie(&headers, "formsd"), None, "names match whole");
    }

    #[test]
    fn only_one_cookie_of_a_name_is_taken() {
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, HeaderValue::from_static("s=1; t=2"));
        assert_eq!(super::only_cookie(&headers, "s"), Some("1"));
        headers.append(header::COOKIE, HeaderValue::from_static("s=3"));
        assert_eq!(super::only_cookie(&headers, "s"), None, "two: neither");
        assert_eq!(super::only_cookie(&headers, "u"), None);
    }
}
