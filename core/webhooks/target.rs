//! Where webhooks may be delivered: public HTTPS endpoints only (unless the operator
//! allows private targets for development). Checked when a subscription is created and
//! again on every delivery, on the addresses actually dialed (DNS rebinding), with
//! redirects never followed.

use crate::error::CoreError;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use url::{Host, Url};

/// Whether an address is a public unicast address: not loopback, private, link-local
/// (cloud metadata lives there), CGNAT, multicast, broadcast, unspecified, documentation,
/// benchmarking or reserved, in IPv4 or IPv6 (IPv4 embedded in IPv6 included).
pub(crate) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let blocked = ip.is_unspecified()
        || a == 0                                   // 0.0.0.0/8 "this network"
        || ip.is_loopback()                         // 127.0.0.0/8
        || ip.is_private()                          // 10/8, 172.16/12, 192.168/16
        || ip.is_link_local()                       // 169.254/16, cloud metadata
        || (a == 100 && (64..128).contains(&b))     // 100.64/10 CGNAT
        || (a == 192 && b == 0 && c == 0)           // 192.0.0/24 IETF protocol assignments
        || (a == 192 && b == 0 && c == 2)           // TEST-NET-1
        || (a == 198 && b == 51 && c == 100)        // TEST-NET-2
        || (a == 203 && b == 0 && c == 113)         // TEST-NET-3
        || (a == 198 && (b == 18 || b == 19))       // 198.18/15 benchmarking
        || (a == 192 && b == 88 && c == 99)         // 6to4 relay anycast
        || ip.is_multicast()                        // 224/4
        || a >= 240; // 240/4 reserved and the broadcast address
    !blocked
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let seg = ip.segments();
    // NAT64 (64:ff9b::/96) and IPv4-compatible (::/96) addresses embed an IPv4 address.
    if (seg[0] == 0x64 && seg[1] == 0xff9b && seg[2..6] == [0, 0, 0, 0])
        || (seg[..6] == [0, 0, 0, 0, 0, 0] && !ip.is_loopback() && !ip.is_unspecified())
    {
        let o = ip.octets();
        return is_public_v4(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
    }
    // 6to4 (2002::/16) embeds an IPv4 address in bits 16..48.
    if seg[0] == 0x2002 {
        let o = ip.octets();
        return is_public_v4(Ipv4Addr::new(o[2], o[3], o[4], o[5]));
    }
    let blocked = ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()                        // ff00::/8
        || (seg[0] & 0xfe00) == 0xfc00              // fc00::/7 unique local (incl. fd00:ec2::254)
        || (seg[0] & 0xffc0) == 0xfe80              // fe80::/10 link-local
        || (seg[0] & 0xffc0) == 0xfec0              // fec0::/10 site-local (deprecated)
        || (seg[0] == 0x2001 && seg[1] == 0x0db8)   // 2001:db8::/32 documentation
        || (seg[0] == 0x2001 && seg[1] < 0x0200)    // 2001::/23 IETF protocol assignments
        || (seg[0] == 0x64 && seg[1] == 0xff9b && seg[2] == 1) // 64:ff9b:1::/48 local-use NAT64 (RFC 8215)
        || seg[0] == 0x0100 && seg[1..4] == [0, 0, 0]; // 100::/64 discard
    !blocked
}

/// The one refusal of a host that is not a public address, whether it resolves or not.
const NOT_PUBLIC: &str =
    "must resolve to public addresses only (not loopback, private, link-local or reserved)";

/// Checks a subscription URL: https (or http when private targets are allowed), no
/// credentials, a host that is (or resolves to) public addresses only.
pub(crate) async fn check_url(raw: &str, allow_private: bool) -> Result<Url, CoreError> {
    let bad = |why: &str| CoreError::Validation(format!("url {why}"));
    if raw.len() > 2048 {
        return Err(bad("must be at most 2048 characters"));
    }
    // The WHATWG parser also normalises decimal, octal and hex IPv4 spellings.
    let url = Url::parse(raw.trim()).map_err(|_| bad("must be an absolute https URL"))?;
    match url.scheme() {
        "https" => {}
        "http" if allow_private => {}
        _ => return Err(bad("must use https")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("must not contain credentials"));
    }
    if allow_private {
        return url
            .host()
            .is_some()
            .then_some(url.clone())
            .ok_or_else(|| bad("must have a host"));
    }
    let addrs: Vec<IpAddr> = match url.host() {
        None => return Err(bad("must have a host")),
        Some(Host::Ipv4(v4)) => vec![IpAddr::V4(v4)],
        Some(Host::Ipv6(v6)) => vec![IpAddr::V6(v6)],
        Some(Host::Domain(domain)) => {
            let port = url.port_or_known_default().unwrap_or(443);
            // A name that does not resolve gets the same answer as a private one, so
            // subscriptions cannot probe which internal names exist.
            tokio::net::lookup_host((domain, port))
                .await
                .map(|addrs| addrs.map(|a| a.ip()).collect())
                .unwrap_or_default()
        }
    };
    if addrs.is_empty() || !addrs.into_iter().all(is_public) {
        return Err(bad(NOT_PUBLIC));
    }
    Ok(url)
}

/// Refuses to dial a literal non-public address (the resolver below only sees names).
pub(crate) fn check_literal_host(url: &Url, allow_private: bool) -> Result<(), String> {
    let ip = match url.host() {
        Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
        _ => return Ok(()),
    };
    if allow_private || is_public(ip) {
        Ok(())
    } else {
        Err(format!("refused to deliver to non-public address {ip}"))
    }
}

/// DNS resolution for deliveries that refuses names resolving to any non-public
/// address, so a name that changed since the subscription was checked cannot reach
/// internal services.
pub(crate) struct PublicResolver;

impl Resolve for PublicResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            if addrs.is_empty() {
                return Err(format!("{} does not resolve", name.as_str()).into());
            }
            if let Some(bad) = addrs.iter().find(|a| !is_public(a.ip())) {
                return Err(format!(
                    "refused: {} resolves to non-public {}",
                    name.as_str(),
                    bad.ip()
                )
                .into());
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("address literal")
    }

    #[test]
    fn address_classes() {
        for blocked in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.9",
            "::1",
            "::",
            "fe80::1",
            "fd00:ec2::254",
            "fc00::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::808:808",
            "64:ff9b:1:ffff::1",
            "2002:7f00:1::",
        ] {
            assert!(!is_public(ip(blocked)), "{blocked} must be refused");
        }
        for public in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(is_public(ip(public)), "{public} is public");
        }
    }

    #[tokio::test]
    async fn url_forms() {
        for bad in [
            "http://93.184.216.34/hook",
            "https://user:pw@93.184.216.34/hook",
            "https://127.0.0.1/hook",
            "https://2130706433/hook",
            "https://0x7f.1/hook",
            "https://0177.0.0.1/hook",
            "https://[::1]/hook",
            "https://[::ffff:169.254.169.254]/hook",
            "https://localhost/hook",
            "ftp://93.184.216.34/",
            "not a url",
        ] {
            assert!(
                check_url(bad, false).await.is_err(),
                "{bad} must be refused"
            );
        }
        assert!(check_url("https://93.184.216.34/hook", false).await.is_ok());
        // Unresolvable and private names get the same answer: no probing internal DNS.
        let unknown = check_url("https://no-such-host.invalid/hook", false).await;
        let private = check_url("https://localhost/hook", false).await;
        match (unknown, private) {
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            other => panic!("both must be refused alike: {other:?}"),
        }
        assert!(check_url("http://127.0.0.1:9000/hook", true).await.is_ok());
    }
}
