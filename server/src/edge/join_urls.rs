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

/// The http(s) origin of a node's `ws(s)://host:port/ws` public URL.
fn origin_of_ws(public_url: &str) -> Option<String> {
    let url = url::Url::parse(public_url).ok()?;
    let scheme = match url.scheme() {
        "ws" => "http",
        "wss" => "https",
        _ => return None,
    };
    let host = url.host_str()?;
    Some(match url.port() {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    })
}

/// The addresses this server is known by, most public first: the origins
/// the operator declared (`--allowed-origins`), a node's public URL, the
/// LAN addresses. They go in `welcome.join_urls`, and are the only bases
/// QR codes are drawn for.
pub(crate) fn public_bases(
    bound: SocketAddr,
    allowed_origins: &[String],
    public_url: Option<&str>,
) -> Vec<String> {
    let mut bases: Vec<String> = allowed_origins.to_vec();
    bases.extend(public_url.and_then(origin_of_ws));
    for base in join_urls(bound) {
        if !bases.contains(&base) {
            bases.push(base);
        }
    }
    bases
}

/// The loopback addresses of this server (`http://localhost:PORT` first):
/// a TV or laptop on the server's own machine uses them.
pub(crate) fn loopback_bases(port: u16) -> Vec<String> {
    ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .map(|host| format!("http://{host}:{port}"))
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
    // A loopback-only server (`--listen 127.0.0.1:PORT`) has no LAN line,
    // so this one names the browser's address as well as the terminal's.
    let port = bound.port();
    lines.push(format!(
        "  on this machine: krypto play -s ws://localhost:{port}/ws"
    ));
    lines.push(format!(
        "  a browser on this machine: http://localhost:{port}/"
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_origin;

    #[test]
    fn origins_are_read_as_browsers_write_them() {
        assert_eq!(
            parse_origin("HTTPS://Krypto.Example.com/").unwrap(),
            "https://krypto.example.com"
        );
        assert_eq!(
            parse_origin("http://192.168.1.20:7878").unwrap(),
            "http://192.168.1.20:7878"
        );
        assert_eq!(
            parse_origin("https://k.example:443").unwrap(),
            "https://k.example"
        );
        for bad in [
            "ws://k.example",
            "https://k.example/play",
            "k.example",
            "https://u@k.example",
            "javascript:alert(1)",
        ] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn public_bases_put_the_declared_ones_first() {
        let bound: SocketAddr = "192.168.1.5:7878".parse().unwrap();
        assert_eq!(
            public_bases(
                bound,
                &["https://k.example".to_owned()],
                Some("wss://node-b.example/ws")
            ),
            vec![
                "https://k.example",
                "https://node-b.example",
                "http://192.168.1.5:7878"
            ]
        );
        let local: SocketAddr = "127.0.0.1:7878".parse().unwrap();
        assert!(public_bases(local, &[], None).is_empty());
        assert_eq!(loopback_bases(7878)[0], "http://localhost:7878");
    }

    #[test]
    fn loopback_servers_offer_no_lan_address() {
        let bound: SocketAddr = "127.0.0.1:7878".parse().unwrap();
        assert!(join_urls(bound).is_empty());
        assert_eq!(
            banner_lines(bound),
            vec![
                "  on this machine: krypto play -s ws://localhost:7878/ws".to_owned(),
                "  a browser on this machine: http://localhost:7878/".to_owned(),
            ]
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
