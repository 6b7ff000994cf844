//! Who the client is: the TCP peer, or behind a trusted reverse proxy the
//! address that proxy saw. Every per-address limit counts this address, so a
//! forged `X-Forwarded-For` from anyone else must change nothing.

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;
use ipnet::IpNet;

/// Whether `ip` is one of the trusted proxies.
pub(crate) fn is_trusted(ip: IpAddr, trusted: &[IpNet]) -> bool {
    let ip = ip.to_canonical();
    trusted.iter().any(|net| net.contains(&ip))
}

/// The client's address. When the peer is a trusted proxy, the
/// `X-Forwarded-For` chain is read from the right (each proxy appends the
/// address it saw) and the first address that is not itself a trusted proxy
/// is the client; everything left of it could have been written by the
/// client. Otherwise, and when the header is missing or unreadable, the peer.
pub(crate) fn client_ip(peer: SocketAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let peer_ip = peer.ip().to_canonical();
    if !is_trusted(peer_ip, trusted) {
        return peer_ip;
    }
    let mut hops = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        let Ok(text) = value.to_str() else {
            return peer_ip;
        };
        for hop in text.split(',') {
            match parse_hop(hop) {
                Some(ip) => hops.push(ip),
                None => return peer_ip,
            }
        }
    }
    hops.into_iter()
        .rev()
        .find(|ip| !is_trusted(*ip, trusted))
        .unwrap_or(peer_ip)
}

/// One address of the chain: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or
/// `[2001:db8::1]:5678`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    hop.parse::<IpAddr>()
        .or_else(|_| hop.parse::<SocketAddr>().map(|s| s.ip()))
        .ok()
        .map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|n| n.parse().unwrap()).collect()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_claims() {
        let peer: SocketAddr = "203.0.113.9:5000".parse().unwrap();
        let forged = headers(&["10.0.0.1"]);
        assert_eq!(
            client_ip(peer, &forged, &nets(&["127.0.0.1/32"])),
            peer.ip()
        );
        assert_eq!(client_ip(peer, &forged, &[]), peer.ip());
    }

    #[test]
    fn behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client() {
        let proxy: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let trusted = nets(&["127.0.0.0/8", "10.0.0.0/8"]);
        let client: IpAddr = "198.51.100.7".parse().unwrap();
        assert_eq!(
            client_ip(proxy, &headers(&["198.51.100.7"]), &trusted),
            client
        );
        // The client wrote "1.1.1.1" itself; a second trusted proxy added
        // the address it saw.
        assert_eq!(
            client_ip(
                proxy,
                &headers(&["1.1.1.1, 198.51.100.7", "10.1.2.3"]),
                &trusted
            ),
            client
        );
        assert_eq!(
            client_ip(proxy, &headers(&["[2001:db8::7]:443"]), &trusted),
            "2001:db8::7".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn a_missing_or_garbled_header_means_the_peer() {
        let proxy: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let trusted = nets(&["127.0.0.1/32"]);
        assert_eq!(client_ip(proxy, &HeaderMap::new(), &trusted), proxy.ip());
        assert_eq!(
            client_ip(proxy, &headers(&["not an address"]), &trusted),
            proxy.ip()
        );
    }

    #[test]
    fn ipv4_mapped_peers_match_ipv4_networks() {
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:40000".parse().unwrap();
        assert!(is_trusted(mapped.ip(), &nets(&["127.0.0.1/32"])));
    }
}
