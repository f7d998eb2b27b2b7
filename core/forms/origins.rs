//! The `allowed_origins` setting: the sites whose own HTML forms may post to the form
//! (endpoint mode, `hosted::endpoint`). One rule: an origin is written and compared as
//! browsers serialize it in the `Origin` header, `scheme://host[:port]` with the scheme
//! http or https, the host in lower case (IDNs in punycode) and the scheme's default
//! port left out; no path, query, fragment or credentials. A list holds at most
//! `MAX_ORIGINS` distinct origins; an empty list (or null) turns endpoint mode off.

use serde_json::Value;

/// Origins a form may list: a few sites (www and bare domain, staging), not a directory.
pub(crate) const MAX_ORIGINS: usize = 20;

/// The settings key.
pub(crate) const KEY: &str = "allowed_origins";

/// `text` as an origin in the browsers' serialization, or `None` when it is not one
/// (a trailing `/` is forgiven: people paste their site's address).
pub(crate) fn parse(text: &str) -> Option<String> {
    let text = text.trim();
    let bare = text.strip_suffix('/').unwrap_or(text);
    if bare.len() > 300 || bare.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let url = url::Url::parse(bare).ok()?;
    let plain = matches!(url.scheme(), "http" | "https")
        // A host name of letters, digits, `-` and `.` (no wildcard), or an IP address.
        && match url.host() {
            Some(url::Host::Domain(name)) => name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.'),
            Some(_) => true,
            None => false,
        }
        && url.username().is_empty()
        && url.password().is_none()
        && url.path() == "/"
        && url.query().is_none()
        && url.fragment().is_none()
        // `Url` forgives `https://a.com/` and `https://a.com` alike, but would also
        // take `https://a.com?` or `https://a.com#`: the text itself has none of them.
        && !bare.contains(['?', '#'])
        // Exactly `scheme://authority`: nothing after the authority, not even `/`.
        && bare.split("://").nth(1).is_some_and(|rest| !rest.contains('/'));
    plain.then(|| url.origin().ascii_serialization())
}

/// The origins of a setting's value, normalised and without repeats; `Err` says what
/// is wrong, for the VALIDATION_ERROR.
pub(crate) fn parse_list(value: &Value) -> Result<Vec<String>, String> {
    let items = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        _ => return Err("must be an array of origins (https://www.example.com) or null".into()),
    };
    // Counted as sent, repeats included: the documented bound is on the array.
    if items.len() > MAX_ORIGINS {
        return Err(format!("must list at most {MAX_ORIGINS} origins"));
    }
    let mut origins: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let origin = item.as_str().and_then(parse).ok_or_else(|| {
            format!(
                "{item} is not an origin: write scheme://host[:port], e.g. https://www.example.com, without a path"
            )
        })?;
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
    Ok(origins)
}

/// Whether `settings` let a page of `origin` post to the form: the origin, normalised,
/// is listed. An origin that is not one (`null`, sent by sandboxed frames and
/// privacy-minded redirects, or nothing) is never listed.
pub(crate) fn allows(settings: &serde_json::Map<String, Value>, origin: &str) -> bool {
    let Some(origin) = parse(origin) else {
        return false;
    };
    settings
        .get(KEY)
        .and_then(|v| parse_list(v).ok())
        .is_some_and(|list| list.contains(&origin))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn origins_are_read_as_browsers_write_them() {
        assert_eq!(
            parse("https://WWW.Example.com").as_deref(),
            Some("https://www.example.com")
        );
        assert_eq!(
            parse("https://example.com/").as_deref(),
            Some("https://example.com")
        );
        assert_eq!(
            parse("https://example.com:443").as_deref(),
            Some("https://example.com")
        );
        assert_eq!(
            parse("http://localhost:8080").as_deref(),
            Some("http://localhost:8080")
        );
        assert_eq!(
            parse("http://127.0.0.1:3000").as_deref(),
            Some("http://127.0.0.1:3000")
        );
        for bad in [
            "example.com",
            "ftp://example.com",
            "https://example.com/contact",
            "https://example.com//",
            "https://example.com?x=1",
            "https://example.com#top",
            "https://user@example.com",
            "https://*.example.com",
            "null",
            "",
            "https://exa mple.com",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_list_is_normalised_deduplicated_and_bounded() {
        let list = parse_list(&json!([
            "https://A.com",
            "https://a.com/",
            "http://b.org:81"
        ]));
        assert_eq!(
            list,
            Ok(vec![
                "https://a.com".to_owned(),
                "http://b.org:81".to_owned()
            ])
        );
        assert_eq!(parse_list(&Value::Null), Ok(vec![]));
        assert!(parse_list(&json!("https://a.com")).is_err());
        assert!(parse_list(&json!([1])).is_err());
        let many: Vec<String> = (0..=MAX_ORIGINS)
            .map(|n| format!("https://s{n}.example.com"))
            .collect();
        assert!(parse_list(&json!(many)).is_err());
        assert!(parse_list(&json!(many[..MAX_ORIGINS])).is_ok());
        let repeated = vec!["https://a.com"; MAX_ORIGINS + 1];
        assert!(parse_list(&json!(repeated)).is_err());
    }

    #[test]
    fn only_a_listed_origin_is_allowed() {
        let settings = json!({"allowed_origins": ["https://www.example.com"]});
        let settings = settings.as_object().expect("object");
        assert!(allows(settings, "https://www.example.com"));
        assert!(allows(settings, "https://WWW.example.com:443"));
        assert!(!allows(settings, "http://www.example.com"));
        assert!(!allows(settings, "https://example.com"));
        assert!(!allows(settings, "https://www.example.com.evil.net"));
        assert!(!allows(settings, "null"));
        assert!(!allows(settings, ""));
        let off = json!({"allowed_origins": []});
        assert!(!allows(
            off.as_object().expect("object"),
            "https://www.example.com"
        ));
        assert!(!allows(&serde_json::Map::new(), "https://www.example.com"));
    }
}
