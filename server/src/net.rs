//! The addresses friends can use to reach this server.

use std::net::{IpAddr, SocketAddr};

/// `ws://…/ws` URLs for the bound address: one per non-loopback interface
/// when bound to a wildcard address, then localhost.
pub fn join_urls(bound: SocketAddr) -> Vec<String> {
    let port = bound.port();
    let url = |ip: IpAddr| match ip {
        IpAddr::V4(v4) => format!("ws://{v4}:{port}/ws"),
        IpAddr::V6(v6) => format!("ws://[{v6}]:{port}/ws"),
    };
    let mut urls = Vec::new();
    if bound.ip().is_unspecified() {
        if let Ok(interfaces) = if_addrs::get_if_addrs() {
            for interface in interfaces {
                let ip = interface.ip();
                let same_family = ip.is_ipv4() == bound.ip().is_ipv4() || bound.ip().is_ipv6();
                // Link-local IPv6 addresses need a zone id to be usable; skip them.
                let link_local_v6 =
                    matches!(ip, IpAddr::V6(v6) if (v6.segments()[0] & 0xffc0) == 0xfe80);
                if !interface.is_loopback() && same_family && !link_local_v6 {
                    urls.push(url(ip));
                }
            }
        }
        urls.push(format!("ws://localhost:{port}/ws"));
    } else if bound.ip().is_loopback() {
        urls.push(format!("ws://localhost:{port}/ws"));
    } else {
        urls.push(url(bound.ip()));
    }
    urls
}
