//! The end client's address behind a reverse proxy: `Forwarded` (RFC 7239) or
//! `X-Forwarded-For`, believed only when the connection comes from a trusted proxy,
//! read from the right so a client cannot pick its own address by sending the header.

use axum::http::HeaderMap;
use std::net::{IpAddr, SocketAddr};

/// The address to account a request to (throttles, logs): the TCP peer, or when the
/// peer is a trusted proxy, the nearest address in the forwarding chain that is not a
/// trusted proxy itself. IPv4-mapped IPv6 addresses become IPv4.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    let peer = canonical(peer);
    if !trusted.contains(&peer) {
        return peer;
    }
    let chain = chain(headers);
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

/// The forwarding chain, left (client) to right (nearest proxy): `Forwarded` when the
/// request has one, else `X-Forwarded-For`. `None` marks a hop that is not an address.
fn chain(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let values = |name: &str| -> Vec<String> {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let forwarded = values("forwarded");
    if !forwarded.is_empty() {
        return forwarded
            .iter()
            .map(|element| forwarded_for(element))
            .collect();
    }
    values("x-forwarded-for")
        .iter()
        .map(|hop| parse_node(hop))
        .collect()
}

/// The `for=` parameter of one `Forwarded` element, e.g. `for="[2001:db8::1]:4711";proto=https`.
fn forwarded_for(element: &str) -> Option<IpAddr> {
    element.split(';').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("for")
            .then(|| parse_node(value.trim().trim_matches('"')))
            .flatten()
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
pub fn canonical(ip: IpAddr) -> IpAddr {
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

    #[test]
    fn headers_from_untrusted_peers_are_ignored() {
        let h = headers(&[("x-forwarded-for", "198.51.100.1")]);
        assert_eq!(client_ip(ip("203.0.113.9"), &h, &[]), ip("203.0.113.9"));
        assert_eq!(
            client_ip(ip("203.0.113.9"), &h, &[ip("10.0.0.1")]),
            ip("203.0.113.9")
        );
    }

    #[test]
    fn the_nearest_untrusted_hop_is_the_client() {
        let trusted = [ip("10.0.0.1"), ip("10.0.0.2")];
        // The client sent its own header; our proxies appended to it.
        let h = headers(&[("x-forwarded-for", "1.2.3.4, 198.51.100.7, 10.0.0.2")]);
        assert_eq!(client_ip(ip("10.0.0.1"), &h, &trusted), ip("198.51.100.7"));
        let h = headers(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "198.51.100.7"),
        ]);
        assert_eq!(client_ip(ip("10.0.0.1"), &h, &trusted), ip("198.51.100.7"));
        // Only trusted hops: the leftmost is as far as we can see.
        let h = headers(&[("x-forwarded-for", "10.0.0.2")]);
        assert_eq!(client_ip(ip("10.0.0.1"), &h, &trusted), ip("10.0.0.1"));
    }

    #[test]
    fn forwarded_wins_and_its_forms_are_read() {
        let trusted = [ip("10.0.0.1")];
        let h = headers(&[
            ("x-forwarded-for", "1.1.1.1"),
            (
                "forwarded",
                "for=192.0.2.60;proto=http;by=203.0.113.43, for=\"[2001:db8:cafe::17]:4711\"",
            ),
        ]);
        assert_eq!(
            client_ip(ip("10.0.0.1"), &h, &trusted),
            ip("2001:db8:cafe::17")
        );
        let h = headers(&[("forwarded", "for=\"198.51.100.4:80\"")]);
        assert_eq!(client_ip(ip("10.0.0.1"), &h, &trusted), ip("198.51.100.4"));
        // An unknown hop stops the walk: the proxy is the client as far as we know.
        let h = headers(&[("forwarded", "for=198.51.100.4, for=unknown")]);
        assert_eq!(client_ip(ip("10.0.0.1"), &h, &trusted), ip("10.0.0.1"));
        let h = headers(&[("x-forwarded-for", "garbage")]);
        assert_eq!(client_ip(ip("10.0.0.1"), &h, &trusted), ip("10.0.0.1"));
    }

    #[test]
    fn ipv4_mapped_addresses_are_ipv4() {
        let trusted = [ip("10.0.0.1")];
        let h = headers(&[("x-forwarded-for", "::ffff:198.51.100.9")]);
        assert_eq!(
            client_ip(ip("::ffff:10.0.0.1"), &h, &trusted),
            ip("198.51.100.9")
        );
    }
}
