//! The `Host` check against DNS rebinding. A web page on any site can
//! point a name of its own (`rebind.attacker.example`) at this server's
//! LAN address; the visitor's browser then sends that page's requests here
//! with `Host: rebind.attacker.example` and an `Origin` that matches it, so
//! the origin check alone lets it open `/ws` and read `/api`. Only the
//! names the server is known by are answered there; anything else gets
//! 421 Misdirected Request.
//!
//! Accepted: any IP address literal (a page whose origin is an address is
//! a page of this server reached by its address: a name cannot be rebound
//! onto it, and a server behind NAT or in a container does not know every
//! address it is reached by), `localhost`, the hosts of `--allowed-origins`
//! and `--public-url`, and the names in `--allowed-hosts`. A request with
//! no `Host` at all comes from no browser and is let through.

use std::net::IpAddr;

use axum::http::header::{HeaderMap, HOST};

use crate::config::host_name;

/// The host names (not addresses) this server answers `/ws` and `/api`
/// for, lower case, without a port or a final dot.
#[derive(Debug, Clone)]
pub(crate) struct AllowedHosts {
    names: Vec<String>,
}

impl AllowedHosts {
    /// `localhost`, the hosts of `origins` (`--allowed-origins`) and of
    /// `public_url`, and `extra` (`--allowed-hosts`).
    pub(crate) fn new(origins: &[String], public_url: Option<&str>, extra: &[String]) -> Self {
        let from_urls = origins
            .iter()
            .map(String::as_str)
            .chain(public_url)
            .filter_map(|url| url::Url::parse(url).ok())
            .filter_map(|url| url.host_str().map(str::to_owned));
        let mut names: Vec<String> = std::iter::once("localhost".to_owned())
            .chain(from_urls)
            .chain(extra.iter().cloned())
            .filter_map(|host| host_name(&host))
            .filter(|host| !is_address(host))
            .collect();
        names.sort();
        names.dedup();
        AllowedHosts { names }
    }

    /// Whether a request with these headers was sent to one of this
    /// server's names.
    pub(crate) fn allows(&self, headers: &HeaderMap) -> bool {
        let Some(host) = headers.get(HOST) else {
            return true;
        };
        let Some(host) = host.to_str().ok().and_then(host_name) else {
            return false;
        };
        is_address(&host) || self.names.contains(&host)
    }
}

/// Whether `host` (as [`host_name`] gives it) is an IP address.
fn is_address(host: &str) -> bool {
    host.parse::<IpAddr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_host;
    use axum::http::HeaderValue;

    fn with_host(host: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(HOST, HeaderValue::from_str(host).unwrap());
        headers
    }

    #[test]
    fn the_servers_names_and_addresses_pass_other_names_do_not() {
        let hosts = AllowedHosts::new(
            &["https://krypto.example.com".to_owned()],
            Some("ws://node-b.example:7878/ws"),
            &["party.local".to_owned()],
        );
        for good in [
            "localhost:7878",
            "LOCALHOST",
            "127.0.0.1:7878",
            "[::1]:7878",
            "192.168.1.5:7878",
            "krypto.example.com",
            "krypto.example.com.:443",
            "node-b.example:7878",
            "party.local:7878",
        ] {
            assert!(hosts.allows(&with_host(good)), "{good}");
        }
        for bad in [
            "rebind.attacker.example:7878",
            "krypto.example.com.attacker.example",
            "",
            "localhost:x",
            "[::1",
            "a b",
        ] {
            assert!(!hosts.allows(&with_host(bad)), "{bad:?}");
        }
        assert!(hosts.allows(&HeaderMap::new()), "no Host: not a browser");
    }

    #[test]
    fn allowed_hosts_are_names() {
        assert_eq!(parse_host("Party.Local:7878").unwrap(), "party.local");
        assert_eq!(
            parse_host(" ").unwrap(),
            "",
            "an empty setting names nothing"
        );
        let hosts = AllowedHosts::new(&[], None, &[String::new()]);
        assert!(!hosts.allows(&with_host("")));
        for bad in ["http://x", "a/b", "::1"] {
            assert!(parse_host(bad).is_err(), "{bad}");
        }
    }
}
