//! The values the flags of `serve` take that clap does not parse itself: URLs, CSP
//! source lists, quotas ("unlimited" or a number) and positive durations. Each refusal
//! says what is expected, without echoing a secret.

/// An issuer URL, kept exactly as given: the provider's discovery document must name
/// the same string.
pub(super) fn parse_issuer(s: &str) -> Result<String, String> {
    parse_http_url(s)?;
    Ok(s.to_owned())
}

/// An http(s) URL without query or fragment, kept without its trailing slash.
pub(super) fn parse_http_url(s: &str) -> Result<String, String> {
    let url = url::Url::parse(s.trim()).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https")
        || url.host_str().is_none()
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return Err("must be an http:// or https:// URL without query or fragment".to_owned());
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// A CSP source list: printable ASCII without the separators that would end the
/// directive (`;`) or the header (`,` starts another policy).
pub(super) fn parse_source_list(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s.is_empty()
        || !s
            .bytes()
            .all(|b| (0x20..0x7f).contains(&b) && b != b';' && b != b',')
    {
        return Err("must be a CSP source list such as 'self' https://example.com".to_owned());
    }
    Ok(s.to_owned())
}

/// A quota: a number, or "unlimited".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limit(pub Option<i64>);

impl std::str::FromStr for Limit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("unlimited") {
            return Ok(Self(None));
        }
        match s.parse::<i64>() {
            Ok(n) if n >= 0 => Ok(Self(Some(n))),
            _ => Err(format!(
                "expected a number of 0 or more, or \"unlimited\", got {s:?}"
            )),
        }
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("unlimited"),
        }
    }
}

/// A duration that must be positive (a zero interval would spin).
pub(super) fn positive_duration(value: &str) -> Result<humantime::Duration, String> {
    match value.parse::<humantime::Duration>() {
        Ok(d) if d.is_zero() => Err("must be more than 0".to_owned()),
        Ok(d) => Ok(d),
        Err(e) => Err(e.to_string()),
    }
}
