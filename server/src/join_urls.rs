//! The addresses friends can use to reach this server: printed in the
//! start-up banner and sent to every client in `welcome.join_urls`, so a host
//! can read out an address that works from another machine (not
//! `127.0.0.1`).

use std::net::{IpAddr, SocketAddr};

/// The addresses other machines can reach the server at: one per
/// non-loopback interface when bound to a wildcard address, the bound
/// address itself when bound to a specific non-loopback one, none when bound
/// to loopback (nobody else can connect).
pub(crate) fn lan_ips(bound: SocketAddr) -> Vec<IpAddr> {
    let ip = bound.ip();
    if ip.is_loopback() {
        return Vec::new();
    }
    if !ip.is_unspecified() {
        return vec![ip];
    }
    let interfaces = match if_addrs::get_if_addrs() {
        Ok(interfaces) => interfaces,
        Err(e) => {
            tracing::warn!(error = %e, "cannot list network interfaces: no join addresses");
            return Vec::new();
        }
    };
    let mut ips: Vec<IpAddr> = interfaces
        .iter()
        .map(if_addrs::Interface::ip)
        .filter(|candidate| {
            // A server bound to 0.0.0.0 does not answer on IPv6; one bound to
            // [::] usually answers on both.
            let same_family = candidate.is_ipv4() == ip.is_ipv4() || ip.is_ipv6();
            // Link-local IPv6 addresses need a zone id to be usable.
            let link_local_v6 =
                matches!(candidate, IpAddr::V6(v6) if (v6.segments()[0] & 0xffc0) == 0xfe80);
            !candidate.is_loopback() && same_family && !link_local_v6
        })
        .collect();
    // IPv4 first: it is what people read aloud.
    ips.sort_by_key(|ip| ip.is_ipv6());
    ips.dedup();
    ips
}

/// `http://host:port` for `ip` (IPv6 in brackets).
fn base_url(ip: IpAddr, port: u16) -> String {
    match ip {
        IpAddr::V4(v4) => format!("http://{v4}:{port}"),
        IpAddr::V6(v6) => format!("http://[{v6}]:{port}"),
    }
}

/// The base `http://<lan-ip>:<port>` addresses for `welcome.join_urls`: the
/// terminal client turns one into `ws://…/ws`, a phone opens it as is.
pub(crate) fn join_urls(bound: SocketAddr) -> Vec<String> {
    lan_ips(bound)
        .into_iter()
        .map(|ip| base_url(ip, bound.port()))
        .collect()
}

/// The start-up banner's lines after its title: for each LAN address the
/// command a friend types and the page a phone opens, then this machine's.
pub fn banner_lines(bound: SocketAddr) -> Vec<String> {
    let mut lines = Vec::new();
    for base in join_urls(bound) {
        let ws = base.replacen("http://", "ws://", 1);
        lines.push(format!("  krypto play -s {ws}/ws"));
        lines.push(format!("  phones and browsers: {base}/"));
    }
    lines.push(format!(
        "  on this machine: krypto play -s ws://localhost:{}/ws",
        bound.port()
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_servers_offer_no_lan_address() {
        let bound: SocketAddr = "127.0.0.1:7878".parse().unwrap();
        assert!(join_urls(bound).is_empty());
        assert_eq!(
            banner_lines(bound),
            vec!["  on this machine: krypto play -s ws://localhost:7878/ws".to_owned()]
        );
    }

    #[test]
    fn a_specific_address_is_offered_with_the_listen_port() {
        let bound: SocketAddr = "192.168.1.5:7878".parse().unwrap();
        assert_eq!(join_urls(bound), vec!["http://192.168.1.5:7878".to_owned()]);
        let lines = banner_lines(bound);
        assert_eq!(lines[0], "  krypto play -s ws://192.168.1.5:7878/ws");
        assert_eq!(lines[1], "  phones and browsers: http://192.168.1.5:7878/");
        let v6: SocketAddr = "[fd00::5]:9000".parse().unwrap();
        assert_eq!(join_urls(v6), vec!["http://[fd00::5]:9000".to_owned()]);
    }

    #[test]
    fn a_wildcard_server_offers_no_loopback_address() {
        let bound: SocketAddr = "0.0.0.0:7878".parse().unwrap();
        for url in join_urls(bound) {
            assert!(
                url.starts_with("http://") && url.ends_with(":7878"),
                "{url}"
            );
            assert!(!url.contains("127.0.0.1"), "{url}");
        }
    }
}
