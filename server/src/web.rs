//! The browser client, served on the same port as the game: the pages
//! (`/`, `/r/CODE`, `/tv/CODE`, `/leaderboard`, `/p/NAME`, all the same
//! shell whose script picks the screen from the address), the assets under
//! `/assets/`, and the QR code of a room's link at `/r/CODE/qr.svg`. One
//! asset is generated rather than embedded: `js/limits.js`, krypto-core's
//! limits as an ES module ([`ClientLimits`]), so the browser types no
//! number the server checks.
//!
//! Everything is embedded in the binary (`include_bytes!`), so `cargo run`
//! alone serves a game night: no build step, nothing fetched from outside.
//! Every answer carries a Content-Security-Policy that allows only this
//! server's own scripts, styles, images and WebSocket, and is revalidated on
//! every load (`no-cache` with an ETag): after an upgrade no browser keeps
//! running the old app, and between upgrades a reload costs a 304.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::OnceLock;

use axum::extract::{Path, Query};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use krypto_core::protocol::limits::ClientLimits;
use qrcode::render::svg;
use qrcode::{EcLevel, QrCode};
use sha2::{Digest, Sha256};

use crate::codes;

/// Only our own scripts, styles, images and WebSocket; no inline code, no
/// frames, no plugins. `'self'` covers `ws:`/`wss:` to the same host in
/// CSP Level 3 browsers (the browser tests check Chromium connects); pages
/// also name it outright ([`page_csp`]).
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; \
                   frame-ancestors 'none'";

/// One embedded file.
struct Asset {
    /// Its path under `/assets/`.
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

macro_rules! asset {
    ($path:literal, $type:expr) => {
        Asset {
            path: $path,
            content_type: $type,
            body: include_bytes!(concat!("../web/", $path)),
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";

/// The page shell every route serves.
const INDEX: Asset = asset!("index.html", "text/html; charset=utf-8");

/// The files under `/assets/`.
const ASSETS: &[Asset] = &[
    asset!("app.css", "text/css; charset=utf-8"),
    asset!("icon.svg", "image/svg+xml"),
    asset!("js/main.js", JS),
    asset!("js/address.js", JS),
    asset!("js/dom.js", JS),
    asset!("js/net.js", JS),
    asset!("js/state.js", JS),
    asset!("js/store.js", JS),
    asset!("js/fraction.js", JS),
    asset!("js/formula.js", JS),
    asset!("js/words.js", JS),
    asset!("js/clock.js", JS),
    asset!("js/ratings.js", JS),
    asset!("js/screens/name.js", JS),
    asset!("js/screens/lobby.js", JS),
    asset!("js/screens/room.js", JS),
    asset!("js/screens/waiting.js", JS),
    asset!("js/screens/round.js", JS),
    asset!("js/screens/podium.js", JS),
    asset!("js/screens/feed.js", JS),
    asset!("js/screens/invite.js", JS),
    asset!("js/screens/players.js", JS),
    asset!("js/screens/tv.js", JS),
    asset!("js/screens/leaderboard.js", JS),
    asset!("js/screens/profile.js", JS),
];

/// `js/limits.js`, generated once from krypto-core.
fn limits_asset() -> &'static Asset {
    static LIMITS: OnceLock<Asset> = OnceLock::new();
    LIMITS.get_or_init(|| {
        // Serializing a struct of numbers, names and maps cannot fail; were
        // it ever to, the module says so loudly instead of going missing.
        let module = ClientLimits::current().to_es_module().unwrap_or_else(|e| {
            tracing::error!(error = %e, "the browser's limits could not be written");
            format!(
                "throw new Error({:?});\n",
                format!("limits unavailable: {e}")
            )
        });
        Asset {
            path: "js/limits.js",
            content_type: JS,
            body: Box::leak(module.into_bytes().into_boxed_slice()),
        }
    })
}

/// The routes of the browser client. They use no server state, so they
/// merge into any router.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(page))
        .route("/r/{code}", get(page))
        .route("/tv/{code}", get(page))
        .route("/leaderboard", get(page))
        .route("/p/{name}", get(page))
        .route("/assets/{*path}", get(asset))
        // The shell names its assets relative to the page, so that the app
        // also works under a proxy's path prefix: pages one level down find
        // them beside themselves.
        .route("/r/assets/{*path}", get(asset))
        .route("/tv/assets/{*path}", get(asset))
        .route("/p/assets/{*path}", get(asset))
        .route("/js/limits.js", get(limits))
        .route("/favicon.ico", get(favicon))
        .route("/r/{code}/qr.svg", get(qr))
}

/// Headers every answer of the browser client carries.
fn common_headers(headers: &mut HeaderMap) {
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
}

/// The ETag of each embedded file, by address, computed once.
fn etag(asset: &Asset) -> &'static str {
    static TAGS: OnceLock<HashMap<usize, String>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        std::iter::once(&INDEX)
            .chain(ASSETS)
            .chain(std::iter::once(limits_asset()))
            .map(|a| {
                let digest = Sha256::digest(a.body);
                (
                    a.body.as_ptr() as usize,
                    format!("\"{}\"", hex::encode(&digest[..12])),
                )
            })
            .collect()
    });
    tags.get(&(asset.body.as_ptr() as usize))
        .map(String::as_str)
        .unwrap_or("\"\"")
}

/// An embedded file, or 304 when the browser's copy is current.
fn serve(asset: &'static Asset, request: &HeaderMap) -> Response {
    let tag = etag(asset);
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag));
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = asset.body.into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(asset.content_type),
        );
        r
    };
    let headers = response.headers_mut();
    common_headers(headers);
    // Revalidate every time: the ETag makes that a 304, and an upgraded
    // server is never hidden behind a stale copy.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(tag) {
        headers.insert(header::ETAG, v);
    }
    response
}

fn not_found(what: &str) -> Response {
    let mut r = (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{what} not found\n"),
    )
        .into_response();
    common_headers(r.headers_mut());
    r
}

async fn page(request: HeaderMap) -> Response {
    let mut response = serve(&INDEX, &request);
    let host = request.get(header::HOST).and_then(|v| v.to_str().ok());
    if let Some(csp) = host.and_then(page_csp) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    response
}

/// The page's policy with this server's WebSocket named outright as well:
/// Chromium and current Firefox and Safari count `ws:` to the same host as
/// `'self'`, but Safari before 15.4 did not, and old phones come to game
/// nights too. `None` for a Host header that is not a plain host name.
fn page_csp(host: &str) -> Option<HeaderValue> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
    if host.is_empty() || host.len() > 255 || !host.chars().all(plain) {
        return None;
    }
    let csp = CSP.replace(
        "connect-src 'self'",
        &format!("connect-src 'self' ws://{host} wss://{host}"),
    );
    HeaderValue::from_str(&csp).ok()
}

async fn asset(Path(path): Path<String>, request: HeaderMap) -> Response {
    let generated = std::iter::once(limits_asset());
    match ASSETS.iter().chain(generated).find(|a| a.path == path) {
        Some(a) => serve(a, &request),
        None => not_found("asset"),
    }
}

async fn limits(request: HeaderMap) -> Response {
    serve(limits_asset(), &request)
}

async fn favicon(request: HeaderMap) -> Response {
    match ASSETS.iter().find(|a| a.path == "icon.svg") {
        Some(a) => serve(a, &request),
        None => not_found("icon"),
    }
}

/// Longest `base` accepted for a QR code: a scheme, an IPv6 address and a
/// port fit easily.
const MAX_BASE_LEN: usize = 80;

/// Whether `base` (`http://host:port`) points at this server: the host the
/// browser used to reach it, `localhost`, or an address of one of this
/// machine's network interfaces (the LAN address a TV page shows phones).
/// Anything else is refused, so the route cannot mint QR codes for other
/// sites.
fn own_base(base: &str, request_host: Option<&str>) -> bool {
    if base.len() > MAX_BASE_LEN {
        return false;
    }
    let Some(authority) = base
        .strip_prefix("http://")
        .or_else(|| base.strip_prefix("https://"))
    else {
        return false;
    };
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
    if authority.is_empty() || !authority.chars().all(allowed) {
        return false;
    }
    if request_host.is_some_and(|h| h.eq_ignore_ascii_case(authority)) {
        return true;
    }
    let host = host_of(authority);
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let Ok(ip) = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
    else {
        return false;
    };
    ip.is_loopback()
        || if_addrs::get_if_addrs()
            .map(|interfaces| interfaces.iter().any(|i| i.ip() == ip))
            .unwrap_or(false)
}

/// The host part of `host:port`, `[v6]:port`, `host` or `[v6]`.
fn host_of(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') && port.chars().all(|c| c.is_ascii_digit()) => {
            host
        }
        _ => authority,
    }
}

/// `GET /r/CODE/qr.svg?base=http://192.168.1.20:7878`: a QR code of
/// `BASE/r/CODE`, for phones to scan off the TV or a friend's screen.
/// Without `base`, the address the browser used.
async fn qr(
    Path(code): Path<String>,
    Query(params): Query<HashMap<String, String>>,
    request: HeaderMap,
) -> Response {
    let Some(code) = codes::normalize(&code) else {
        return not_found("room code");
    };
    let host = request.get(header::HOST).and_then(|v| v.to_str().ok());
    let base = match params.get("base").map(|b| b.trim_end_matches('/')) {
        Some(b) if own_base(b, host) => b.to_owned(),
        Some(_) => {
            let mut r = (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                "base must be an address of this server\n",
            )
                .into_response();
            common_headers(r.headers_mut());
            return r;
        }
        None => match host {
            Some(h) if own_base(&format!("http://{h}"), Some(h)) => format!("http://{h}"),
            _ => "http://localhost".to_owned(),
        },
    };
    let text = format!("{base}/r/{code}");
    let Ok(qr) = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M) else {
        return not_found("QR code");
    };
    let image = qr
        .render::<svg::Color<'_>>()
        .min_dimensions(256, 256)
        .quiet_zone(true)
        .dark_color(svg::Color("#000000"))
        .light_color(svg::Color("#ffffff"))
        .build();
    let mut r = image.into_response();
    let headers = r.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("image/svg+xml"),
    );
    // The picture depends only on the address, which never changes meaning.
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    common_headers(headers);
    r
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn own_addresses_are_accepted() {
        assert!(own_base("http://localhost:7878", None));
        assert!(own_base("http://127.0.0.1:7878", None));
        assert!(own_base("http://[::1]:7878", None));
        assert!(own_base("http://party.lan:7878", Some("party.lan:7878")));
    }

    #[test]
    fn other_sites_are_refused() {
        assert!(!own_base("http://example.com", Some("localhost:7878")));
        assert!(!own_base("http://8.8.8.8:7878", Some("localhost:7878")));
        assert!(!own_base("javascript:alert(1)", None));
        assert!(!own_base("http://localhost:7878/evil?x=", None));
        assert!(!own_base("http://localhost@example.com", None));
        assert!(!own_base("", None));
    }

    #[test]
    fn pages_name_their_own_websocket() {
        let csp = page_csp("192.168.1.20:7878").unwrap();
        let csp = csp.to_str().unwrap();
        assert!(csp.contains("connect-src 'self' ws://192.168.1.20:7878 wss://192.168.1.20:7878;"));
        assert!(page_csp("evil.com; script-src *").is_none());
        assert!(page_csp("").is_none());
    }

    #[test]
    fn every_asset_is_embedded() {
        assert!(!INDEX.body.is_empty());
        for a in ASSETS {
            assert!(!a.body.is_empty(), "{} is empty", a.path);
        }
    }
}
