//! The browser client, served on the same port as the game: the pages
//! (`/`, `/r/CODE`, `/tv/CODE`, `/leaderboard`, `/p/NAME`, `/daily`,
//! `/c/CODE`, `/run`, `/practice`, all the same
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
use std::sync::{Arc, OnceLock};

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query};
use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use krypto_core::protocol::limits::ClientLimits;
use sha2::{Digest, Sha256};

use crate::rooms::room_codes;
use crate::session::qr::qr_svg;

/// Only our own scripts, styles, images and WebSocket; no inline code, no
/// frames, no plugins. `'self'` covers `ws:`/`wss:` to the same host in
/// CSP Level 3 browsers (the browser tests check Chromium connects); pages
/// also name it outright ([`page_csp`]).
/// `blob:` images are the device code's QR, drawn by the server and sent
/// over the WebSocket (the code never goes in a request URL). No
/// `manifest-src`: there is no manifest (`default-src` covers it) and WebKit
/// reports the directive as unknown on every page.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; \
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
            body: include_bytes!(concat!("../../web/", $path)),
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";

/// The page shell every route serves.
static INDEX: Asset = asset!("index.html", "text/html; charset=utf-8");

/// The files under `/assets/`.
static ASSETS: &[Asset] = &[
    asset!("app.css", "text/css; charset=utf-8"),
    asset!("icon.svg", "image/svg+xml"),
    asset!("js/main.js", JS),
    asset!("js/app.js", JS),
    asset!("js/address.js", JS),
    asset!("js/dom.js", JS),
    asset!("js/net.js", JS),
    asset!("js/state.js", JS),
    asset!("js/store.js", JS),
    asset!("js/fraction.js", JS),
    asset!("js/formula.js", JS),
    asset!("js/words.js", JS),
    asset!("js/clock.js", JS),
    asset!("js/sound.js", JS),
    asset!("js/celebrate.js", JS),
    asset!("js/ratings.js", JS),
    asset!("js/screens/name.js", JS),
    asset!("js/screens/consent.js", JS),
    asset!("js/screens/reactions.js", JS),
    asset!("js/screens/ready.js", JS),
    asset!("js/screens/device.js", JS),
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
    asset!("js/screens/recap.js", JS),
    asset!("js/screens/conduct.js", JS),
    asset!("js/solo.js", JS),
    asset!("js/screens/solo.js", JS),
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
/// `own` are the bases QR codes may show (see [`qr_base`]).
pub fn routes<S: Clone + Send + Sync + 'static>(own: Arc<[String]>) -> Router<S> {
    // Compress once now rather than on a player's first visit.
    prepared();
    // The pages are one shell; the app reads which page from the address.
    let pages = [
        "/",
        "/r/{code}",
        "/tv/{code}",
        "/leaderboard",
        "/conduct",
        "/p/{name}",
        "/link",
        "/daily",
        "/c/{code}",
        "/run",
        "/practice",
        "/m/{id}",
    ];
    // The shell names its assets relative to the page, so that the app
    // also works under a proxy's path prefix: pages one level down find
    // them beside themselves.
    let assets = [
        "/assets/{*path}",
        "/r/assets/{*path}",
        "/tv/assets/{*path}",
        "/p/assets/{*path}",
        "/c/assets/{*path}",
        "/m/assets/{*path}",
    ];
    let router = pages
        .into_iter()
        .fold(Router::new(), |r, path| r.route(path, get(page)));
    assets
        .into_iter()
        .fold(router, |r, path| r.route(path, get(asset)))
        .route("/js/limits.js", get(limits))
        .route("/favicon.ico", get(favicon))
        .route(
            "/r/{code}/qr.svg",
            get(move |code, params| qr(own.clone(), code, params)),
        )
}

/// Headers every answer of the browser client carries.
fn common_headers(headers: &mut HeaderMap) {
    set_static(
        headers,
        [
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
    );
}

/// Sets each header to its fixed value.
fn set_static<const N: usize>(headers: &mut HeaderMap, values: [(HeaderName, &'static str); N]) {
    for (name, value) in values {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// One embedded file as it is served: its bytes as they are and compressed,
/// and the ETag of its content.
struct Prepared {
    /// The file.
    asset: &'static Asset,
    /// Its bytes as served: the shell and the modules name the assets they
    /// load with [`version`] ([`versioned`]).
    plain: Bytes,
    /// Brotli and gzip copies, when smaller than the file itself.
    br: Option<Bytes>,
    gzip: Option<Bytes>,
    /// A hash of the content, quoted: the same content has the same tag in
    /// every build, and a changed file a new one.
    tag: String,
}

/// Every embedded file, prepared once (the first request, or [`routes`]).
fn prepared() -> &'static [Prepared] {
    static PREPARED: OnceLock<Vec<Prepared>> = OnceLock::new();
    PREPARED.get_or_init(|| {
        std::iter::once(&INDEX)
            .chain(ASSETS)
            .chain(std::iter::once(limits_asset()))
            .map(|asset| {
                let plain = versioned(asset);
                let smaller = |packed: Vec<u8>| (packed.len() < plain.len()).then(|| packed.into());
                Prepared {
                    asset,
                    br: brotli_of(&plain).and_then(smaller),
                    gzip: gzip_of(&plain).and_then(smaller),
                    tag: content_tag(&plain),
                    plain: plain.into(),
                }
            })
            .collect()
    })
}

/// The version of the browser client: 48 bits of the SHA-256 of every
/// asset. The shell and the modules ask for each asset as `…?v=VERSION`,
/// and such an answer may be kept for a year (`immutable`): a returning
/// phone revalidates only the page itself (one round trip, not one per
/// module), and a server with any file changed names every asset anew, so
/// no phone runs an old module after an upgrade.
fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut hash = Sha256::new();
        for asset in ASSETS.iter().chain([limits_asset()]) {
            hash.update(asset.path.as_bytes());
            hash.update(asset.body);
        }
        hex::encode(&hash.finalize()[..6])
    })
}

/// `asset` as served: in the shell, each `"assets/PATH"` it names becomes
/// `"assets/PATH?v=VERSION"`; in a module, each import of `'….js'`
/// becomes `'….js?v=VERSION'` (modules name other files only in their
/// imports, which a test checks). Other files are served as embedded.
fn versioned(asset: &Asset) -> Vec<u8> {
    let v = version();
    let Ok(text) = std::str::from_utf8(asset.body) else {
        return asset.body.to_vec();
    };
    if asset.path == INDEX.path {
        ASSETS
            .iter()
            .fold(text.to_owned(), |page, a| {
                page.replace(
                    &format!("\"assets/{}\"", a.path),
                    &format!("\"assets/{}?v={v}\"", a.path),
                )
            })
            .into_bytes()
    } else if asset.content_type == JS {
        text.replace(".js'", &format!(".js?v={v}'")).into_bytes()
    } else {
        asset.body.to_vec()
    }
}

/// The ETag of `body`: 96 bits of its SHA-256, quoted.
fn content_tag(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    format!("\"{}\"", hex::encode(&digest[..12]))
}

fn brotli_of(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len() / 3);
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &body[..], &mut out, &params).ok()?;
    Some(out)
}

fn gzip_of(body: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(body).ok()?;
    encoder.finish().ok()
}

/// The encodings a response can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Br,
    Gzip,
    Identity,
}

impl Encoding {
    /// The `Content-Encoding` value and the suffix its ETag carries (a
    /// compressed copy is another representation, so another tag).
    fn names(self) -> Option<(&'static str, &'static str)> {
        match self {
            Encoding::Br => Some(("br", "-br")),
            Encoding::Gzip => Some(("gzip", "-gz")),
            Encoding::Identity => None,
        }
    }
}

/// The best encoding `Accept-Encoding` allows: brotli, then gzip, else none.
/// A coding is refused by `;q=0`; `*` stands for the codings not named.
fn negotiate(request: &HeaderMap) -> Encoding {
    let mut br = None;
    let mut gzip = None;
    let mut any = None;
    for item in request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
    {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let accepted = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .all(|q| q.trim().parse::<f32>().is_ok_and(|q| q > 0.0));
        match coding.as_str() {
            "br" => br = Some(accepted),
            "gzip" | "x-gzip" => gzip = Some(accepted),
            "*" => any = Some(accepted),
            _ => {}
        }
    }
    if br.or(any) == Some(true) {
        Encoding::Br
    } else if gzip.or(any) == Some(true) {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

/// Whether `If-None-Match` names the content tagged `tag` (in any of its
/// encodings) or is `*`.
fn still_fresh(request: &HeaderMap, tag: &str) -> bool {
    let bare = tag.trim_end_matches('"');
    request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| {
            t == "*"
                || t == tag
                || ["-br\"", "-gz\""]
                    .iter()
                    .any(|suffix| t.strip_suffix(suffix) == Some(bare))
        })
}

/// An embedded file, compressed when the browser takes it, or 304 when the
/// browser's copy is current.
fn serve(asset: &'static Asset, request: &HeaderMap, asked: Version) -> Response {
    let Some(file) = prepared().iter().find(|p| p.asset.path == asset.path) else {
        return not_found("asset");
    };
    let (encoding, body) = match negotiate(request) {
        Encoding::Br if file.br.is_some() => (Encoding::Br, file.br.clone()),
        Encoding::Br | Encoding::Gzip if file.gzip.is_some() => (Encoding::Gzip, file.gzip.clone()),
        _ => (Encoding::Identity, None),
    };
    let tag = match encoding.names() {
        Some((_, suffix)) => format!("{}{suffix}\"", file.tag.trim_end_matches('"')),
        None => file.tag.clone(),
    };
    let mut response = if still_fresh(request, &file.tag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = match body {
            Some(packed) => Body::from(packed).into_response(),
            None => file.plain.clone().into_response(),
        };
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(asset.content_type),
        );
        if let Some((name, _)) = encoding.names() {
            r.headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
        }
        r
    };
    let headers = response.headers_mut();
    common_headers(headers);
    // Revalidate every time (the ETag makes that a 304), so an upgraded
    // server is never hidden behind a stale copy; an address with the
    // current version never changes content, so it is kept.
    let cache = match asked {
        Version::Current => "public, max-age=31536000, immutable",
        Version::Unversioned => "no-cache",
    };
    set_static(
        headers,
        [
            (header::CACHE_CONTROL, cache),
            (header::VARY, "accept-encoding"),
        ],
    );
    if let Ok(v) = HeaderValue::from_str(&tag) {
        headers.insert(header::ETAG, v);
    }
    response
}

/// Whether a request named the current [`version`] (`?v=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    /// `?v=` the current version: the answer never changes.
    Current,
    /// No version, or an old one: revalidated on every use.
    Unversioned,
}

impl Version {
    fn of(params: &HashMap<String, String>) -> Version {
        match params.get("v") {
            Some(v) if v == version() => Version::Current,
            _ => Version::Unversioned,
        }
    }
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
    let mut response = serve(&INDEX, &request, Version::Unversioned);
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

async fn asset(
    Path(path): Path<String>,
    Query(params): Query<HashMap<String, String>>,
    request: HeaderMap,
) -> Response {
    let generated = std::iter::once(limits_asset());
    match ASSETS.iter().chain(generated).find(|a| a.path == path) {
        Some(a) => serve(a, &request, Version::of(&params)),
        None => not_found("asset"),
    }
}

async fn limits(request: HeaderMap) -> Response {
    serve(limits_asset(), &request, Version::Unversioned)
}

async fn favicon(request: HeaderMap) -> Response {
    match ASSETS.iter().find(|a| a.path == "icon.svg") {
        Some(a) => serve(a, &request, Version::Unversioned),
        None => not_found("icon"),
    }
}

/// The base of a QR code's link: `base` when it is one of `own` (this
/// server's public, LAN and loopback addresses), else the first of them
/// when none is asked for. Never the request's `Host`, which anyone can
/// write: the picture would send phones elsewhere.
fn qr_base<'a>(base: Option<&'a str>, own: &'a [String]) -> Result<&'a str, ()> {
    match base.map(|b| b.trim_end_matches('/')) {
        Some(b) => own
            .iter()
            .find(|o| o.eq_ignore_ascii_case(b))
            .map(String::as_str)
            .ok_or(()),
        None => own.first().map(String::as_str).ok_or(()),
    }
}

/// `GET /r/CODE/qr.svg?base=http://192.168.1.20:7878`: a QR code of
/// `BASE/r/CODE`, for phones to scan off the TV or a friend's screen.
async fn qr(
    own: Arc<[String]>,
    Path(code): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    let Some(code) = room_codes::normalize(&code) else {
        return not_found("room code");
    };
    let Ok(base) = qr_base(params.get("base").map(String::as_str), &own) else {
        let mut r = (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "base must be an address of this server\n",
        )
            .into_response();
        common_headers(r.headers_mut());
        return r;
    };
    let Some(image) = qr_svg(&format!("{base}/r/{code}")) else {
        return not_found("QR code");
    };
    let mut r = image.into_response();
    let headers = r.headers_mut();
    set_static(
        headers,
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            // The picture depends only on the address, checked against this
            // server's own; its LAN address may change with a restart.
            (header::CACHE_CONTROL, "public, max-age=300"),
        ],
    );
    common_headers(headers);
    r
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_and_the_modules_name_every_asset_with_the_version() {
        let v = version();
        let shell = String::from_utf8(versioned(&INDEX)).unwrap();
        for linked in ["app.css", "icon.svg", "js/main.js"] {
            assert!(
                shell.contains(&format!("\"assets/{linked}?v={v}\"")),
                "{shell}"
            );
        }
        for module in ASSETS
            .iter()
            .chain([limits_asset()])
            .filter(|a| a.content_type == JS)
        {
            let text = String::from_utf8(versioned(module)).unwrap();
            // `.js'` is rewritten wherever it is: it must only be in imports.
            for line in text.lines().filter(|l| l.contains(".js?v=")) {
                let import = line.trim_start().starts_with("import ") || line.contains(" from '");
                assert!(import, "{}: {line}", module.path);
                assert!(
                    line.contains(&format!(".js?v={v}'")),
                    "{}: {line}",
                    module.path
                );
            }
            let imports = std::str::from_utf8(module.body)
                .unwrap()
                .matches(".js'")
                .count();
            assert_eq!(
                text.matches(&format!(".js?v={v}'")).count(),
                imports,
                "{}",
                module.path
            );
        }
    }

    #[test]
    fn qr_codes_are_drawn_only_for_the_servers_own_bases() {
        let own: Vec<String> = ["https://k.example", "http://localhost:7878"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(qr_base(None, &own), Ok("https://k.example"));
        assert_eq!(
            qr_base(Some("http://localhost:7878/"), &own),
            Ok("http://localhost:7878")
        );
        for refused in [
            "http://example.com",
            "http://localhost:7879",
            "javascript:alert(1)",
            "http://localhost:7878/evil?x=",
            "",
        ] {
            assert_eq!(qr_base(Some(refused), &own), Err(()), "{refused}");
        }
        assert_eq!(qr_base(None, &[]), Err(()));
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
