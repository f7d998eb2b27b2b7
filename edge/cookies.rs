//! Reading a cookie of a request: the one parser of `Cookie` headers in the edge (the
//! hosted pages' CSRF nonce, the dashboard's session and OpenID attempt).

use axum::http::{HeaderMap, header};

/// The value of the first cookie named `name`, trimmed; None when absent or empty.
pub(crate) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value.trim())
        .filter(|v| !v.is_empty())
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
}
