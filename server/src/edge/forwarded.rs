//! Who the client is: the TCP peer, or behind a trusted reverse proxy the
//! address that proxy saw. Every per-address limit counts this address, so a
//! forged `X-Forwarded-For` from anyone else must change nothing.

use std::net::{IpAddr, SocketAddr};

use axum::http::{HeaderMap, HeaderValue};
use ipnet::IpNet;

/// Whether `ip` is one of the trusted proxies.
pub(crate) fn is_trusted(ip: IpAddr, trusted: &[IpNet]) -> bool {
    let ip = ip.to_canonical();
    trusted.iter().any(|net| net.contains(&ip))
}

/// A trusted proxy forwarded a chain whose client cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the X-Forwarded-For header is not a list of addresses")]
pub(crate) struct Unreadable;

/// The client's address. When the peer is a trusted proxy, the
/// `X-Forwarded-For` chain is read from the right (each proxy appends the
/// address it saw) and the first address that is not itself a trusted proxy
/// is the client; everything left of it could have been written by the
/// client, and is never read. An entry that is not an address before that
/// one makes the request [`Unreadable`]: it is refused, never counted as the
/// proxy's (a fresh budget for whoever wrote it). Without the header, or
/// from an untrusted peer, the peer.
pub(crate) fn client_ip(
    peer: SocketAddr,
    headers: &HeaderMap,
    trusted: &[IpNet],
) -> Result<IpAddr, Unreadable> {
    let peer_ip = peer.ip().to_canonical();
    if !is_trusted(peer_ip, trusted) {
        return Ok(peer_ip);
    }
    // Later header lines were appended by later proxies.
    let values: Vec<&HeaderValue> = headers.get_all("x-forwarded-for").iter().collect();
    for value in values.into_iter().rev() {
        let text = value.to_str().map_err(|_| Unreadable)?;
        for hop in text.rsplit(',') {
            let ip = parse_hop(hop).ok_or(Unreadable)?;
            if !is_trusted(ip, trusted) {
                return Ok(ip);
            }
        }
    }
    Ok(peer_ip)
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
            Ok(peer.ip())
        );
        assert_eq!(client_ip(peer, &forged, &[]), Ok(peer.ip()));
        let garbage = headers(&["garbage"]);
        assert_eq!(client_ip(peer, &garbage, &[]), Ok(peer.ip()));
    }

    #[test]
    fn behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client() {
        let proxy: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let trusted = nets(&["127.0.0.0/8", "10.0.0.0/8"]);
        let client: IpAddr = "198.51.100.7".parse().unwrap();
        assert_eq!(
            client_ip(proxy, &headers(&["198.51.100.7"]), &trusted),
            Ok(client)
        );
        // The client wrote "1.1.1.1" itself; a second trusted proxy added
        // the address it saw.
        assert_eq!(
            client_ip(
                proxy,
                &headers(&["1.1.1.1, 198.51.100.7", "10.1.2.3"]),
                &trusted
            ),
            Ok(client)
        );
        assert_eq!(
            client_ip(proxy, &headers(&["[2001:db8::7]:443"]), &trusted),
            Ok("2001:db8::7".parse::<IpAddr>().unwrap())
        );
        // What the client wrote left of its address is never read.
        assert_eq!(
            client_ip(proxy, &headers(&["garbage, 198.51.100.7"]), &trusted),
            Ok(client)
        );
    }

    #[test]
    fn a_missing_header_means_the_peer_and_a_garbled_one_no_client() {
        let proxy: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let trusted = nets(&["127.0.0.1/32"]);
        assert_eq!(
            client_ip(proxy, &HeaderMap::new(), &trusted),
            Ok(proxy.ip())
        );
        for garbled in [
            &["not an address"][..],
            &["198.51.100.7, garbage"],
            &["198.51.100.7", "garbage"],
            &[""],
            &["127.0.0.1, x"],
        ] {
            assert_eq!(
                client_ip(proxy, &headers(garbled), &trusted),
                Err(Unreadable),
                "{garbled:?}"
            );
        }
    }

    #[test]
    fn ipv4_mapped_peers_match_ipv4_networks() {
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:40000".parse().unwrap();
        assert!(is_trusted(mapped.ip(), &nets(&["127.0.0.1/32"])));
    }
}
