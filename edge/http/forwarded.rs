//! The end client behind a reverse proxy: its address, from the one header the proxy
//! writes (`X-Forwarded-For`, or RFC 7239's `Forwarded` with `--proxy-header
//! forwarded`), and whether it came over HTTPS, from the same family's word
//! (`X-Forwarded-Proto`, or `Forwarded`'s `proto`); believed only when the connection
//! comes from a trusted proxy, read from the right so a client cannot pick its own
//! address by sending the header. The other family is never read: a proxy that writes
//! one passes a client's own header of the other through unchanged.

use axum::http::HeaderMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// Which header the trusted proxies write (`--proxy-header`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ProxyHeader {
    /// `X-Forwarded-For` and `X-Forwarded-Proto` (nginx, HAProxy, most load balancers).
    XForwardedFor,
    /// RFC 7239's `Forwarded` (`for=` and `proto=`).
    Forwarded,
}

/// The proxies in front of the REST edge, and the header they write.
#[derive(Debug, Clone)]
pub(crate) struct Proxies {
    pub trusted: Arc<[IpAddr]>,
    pub header: ProxyHeader,
}

impl Proxies {
    /// The address to account a request from `peer` to: see [`client_ip`].
    pub(crate) fn client_ip(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        client_ip(peer, headers, &self.trusted, self.header)
    }

    /// Whether a request from `peer` came over HTTPS to the proxy: see [`https`].
    pub(crate) fn https(&self, peer: IpAddr, headers: &HeaderMap) -> bool {
        https(peer, headers, &self.trusted, self.header)
    }
}

/// The address to account a request to (throttles, logs): the TCP peer, or when the
/// peer is a trusted proxy, the nearest address in the forwarding chain that is not a
/// trusted proxy itself. IPv4-mapped IPv6 addresses become IPv4.
pub(crate) fn client_ip(
    peer: IpAddr,
    headers: &HeaderMap,
    trusted: &[IpAddr],
    header: ProxyHeader,
) -> IpAddr {
    let peer = canonical(peer);
    if !trusted.contains(&peer) {
        return peer;
    }
    let chain = chain(headers, header);
    // Right to left: the last hop appended by our own proxies first.
    for hop in chain.iter().rev() {
        match hop {
            Some(ip) if trusted.contains(ip) => continue,
            Some(ip) => return *ip,
            // An address the proxy could not or would not name ("unknown", obfuscated):
            // nothing to the left of it can be believed.
            None => break,
        }
    }
    peer
}

/// Whether a trusted proxy says that the visitor reached it over HTTPS (it terminated
/// TLS): the `proto` of the nearest (rightmost) `Forwarded` element that has one, or
/// the last `X-Forwarded-Proto` value (the nearest proxy's), as `header` says. From any
/// other peer the headers are not believed. A client's own header, passed on by a proxy
/// that does not set it, can only change what its own replies carry (see `https`).
pub(crate) fn https(
    peer: IpAddr,
    headers: &HeaderMap,
    trusted: &[IpAddr],
    header: ProxyHeader,
) -> bool {
    if !trusted.contains(&canonical(peer)) {
        return false;
    }
    let proto = match header {
        ProxyHeader::Forwarded => values(headers, "forwarded")
            .iter()
            .rev()
            .find_map(|element| parameter(element, "proto").map(str::to_owned)),
        ProxyHeader::XForwardedFor => values(headers, "x-forwarded-proto").pop(),
    };
    proto.is_some_and(|proto| proto.eq_ignore_ascii_case("https"))
}

/// The comma-separated elements of every `name` header, in order.
fn values(headers: &HeaderMap, name: &str) -> Vec<String> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The forwarding chain of `header`, left (client) to right (nearest proxy). `None`
/// marks a hop that is not an address.
fn chain(headers: &HeaderMap, header: ProxyHeader) -> Vec<Option<IpAddr>> {
    match header {
        ProxyHeader::Forwarded => values(headers, "forwarded")
            .iter()
            .map(|element| parameter(element, "for").and_then(parse_node))
            .collect(),
        ProxyHeader::XForwardedFor => values(headers, "x-forwarded-for")
            .iter()
            .map(|hop| parse_node(hop))
            .collect(),
    }
}

/// A parameter of one `Forwarded` element, unquoted: `for` of
/// `for="[2001:db8::1]:4711";proto=https` is `[2001:db8::1]:4711`.
fn parameter<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    element.split(';').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().trim_matches('"'))
    })
}

/// A node: `203.0.113.7`, `203.0.113.7:80`, `2001:db8::1`, `[2001:db8::1]:443`.
fn parse_node(node: &str) -> Option<IpAddr> {
    let ip = node
        .parse::<IpAddr>()
        .ok()
        .or_else(|| node.parse::<SocketAddr>().ok().map(|a| a.ip()))
        .or_else(|| {
            node.strip_prefix('[')
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(|inner| inner.parse().ok())
        })?;
    Some(canonical(ip))
}

/// `::ffff:203.0.113.7` is `203.0.113.7`.
pub(crate) fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().expect("header value"));
        }
        map
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    use ProxyHeader::{Forwarded, XForwardedFor};

    fn xff(peer: &str, h: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
        client_ip(ip(peer), h, trusted, XForwardedFor)
    }

    #[test]
    fn headers_from_untrusted_peers_are_ignored() {
        let h = headers(&[("x-forwarded-for", "198.51.100.1")]);
        assert_eq!(xff("203.0.113.9", &h, &[]), ip("203.0.113.9"));
        assert_eq!(xff("203.0.113.9", &h, &[ip("10.0.0.1")]), ip("203.0.113.9"));
    }

    #[test]
    fn the_nearest_untrusted_hop_is_the_client() {
        let trusted = [ip("10.0.0.1"), ip("10.0.0.2")];
        // The client sent its own header; our proxies appended to it.
        let h = headers(&[("x-forwarded-for", "1.2.3.4, 198.51.100.7, 10.0.0.2")]);
        assert_eq!(xff("10.0.0.1", &h, &trusted), ip("198.51.100.7"));
        let h = headers(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "198.51.100.7"),
        ]);
        assert_eq!(xff("10.0.0.1", &h, &trusted), ip("198.51.100.7"));
        // Only trusted hops: the leftmost is as far as we can see.
        let h = headers(&[("x-forwarded-for", "10.0.0.2")]);
        assert_eq!(xff("10.0.0.1", &h, &trusted), ip("10.0.0.1"));
    }

    #[test]
    fn only_the_header_the_proxy_writes_is_read() {
        let trusted = [ip("10.0.0.1")];
        // The proxy set X-Forwarded-For; the client's own Forwarded passed through.
        let h = headers(&[
            ("forwarded", "for=192.0.2.60"),
            ("x-forwarded-for", "198.51.100.7"),
        ]);
        assert_eq!(xff("10.0.0.1", &h, &trusted), ip("198.51.100.7"));
        let h = headers(&[("forwarded", "for=192.0.2.60")]);
        assert_eq!(xff("10.0.0.1", &h, &trusted), ip("10.0.0.1"));
        // The other way round with --proxy-header forwarded.
        let h = headers(&[
            ("x-forwarded-for", "192.0.2.60"),
            ("forwarded", "for=198.51.100.7"),
        ]);
        assert_eq!(
            client_ip(ip("10.0.0.1"), &h, &trusted, Forwarded),
            ip("198.51.100.7")
        );
    }

    #[test]
    fn forwarded_forms_are_read() {
        let trusted = [ip("10.0.0.1")];
        let fwd = |h: &HeaderMap| client_ip(ip("10.0.0.1"), h, &trusted, Forwarded);
        let h = headers(&[(
            "forwarded",
            "for=192.0.2.60;proto=http;by=203.0.113.43, for=\"[2001:db8:cafe::17]:4711\"",
        )]);
        assert_eq!(fwd(&h), ip("2001:db8:cafe::17"));
        let h = headers(&[("forwarded", "for=\"198.51.100.4:80\"")]);
        assert_eq!(fwd(&h), ip("198.51.100.4"));
        // An unknown hop stops the walk: the proxy is the client as far as we know.
        let h = headers(&[("forwarded", "for=198.51.100.4, for=unknown")]);
        assert_eq!(fwd(&h), ip("10.0.0.1"));
        let h = headers(&[("x-forwarded-for", "garbage")]);
        assert_eq!(xff("10.0.0.1", &h, &trusted), ip("10.0.0.1"));
    }

    #[test]
    fn https_is_what_a_trusted_proxy_says() {
        let trusted = [ip("10.0.0.1")];
        let https = |peer: &str, pairs: &[(&'static str, &'static str)]| {
            super::https(ip(peer), &headers(pairs), &trusted, XForwardedFor)
        };
        assert!(https("10.0.0.1", &[("x-forwarded-proto", "https")]));
        assert!(https("::ffff:10.0.0.1", &[("x-forwarded-proto", "HTTPS")]));
        // Not from a trusted proxy, or not said: plain HTTP.
        assert!(!https("203.0.113.9", &[("x-forwarded-proto", "https")]));
        assert!(!https("10.0.0.1", &[]));
        assert!(!https("10.0.0.1", &[("x-forwarded-proto", "http")]));
        // The nearest proxy's word is the last one.
        assert!(!https("10.0.0.1", &[("x-forwarded-proto", "https, http")]));
        // A client's Forwarded is not the proxy's word.
        assert!(!https(
            "10.0.0.1",
            &[("forwarded", "for=1.2.3.4;proto=https")]
        ));

        let forwarded = |pairs: &[(&'static str, &'static str)]| {
            super::https(ip("10.0.0.1"), &headers(pairs), &trusted, Forwarded)
        };
        assert!(forwarded(&[(
            "forwarded",
            "for=198.51.100.7;proto=\"https\""
        )]));
        assert!(forwarded(&[(
            "forwarded",
            "for=1.2.3.4;proto=http, for=198.51.100.7;proto=https;by=x"
        )]));
        assert!(!forwarded(&[
            ("forwarded", "for=198.51.100.7"),
            ("x-forwarded-proto", "https")
        ]));
    }

    #[test]
    fn ipv4_mapped_addresses_are_ipv4() {
        let trusted = [ip("10.0.0.1")];
        let h = headers(&[("x-forwarded-for", "::ffff:198.51.100.9")]);
        assert_eq!(xff("::ffff:10.0.0.1", &h, &trusted), ip("198.51.100.9"));
    }
}
