//! The browser client as the server serves it: every page address answers
//! the app's shell, assets come with their content types, every answer
//! carries the Content-Security-Policy and a revalidating cache policy (a
//! 304 for a current copy), and QR codes are drawn only for this server's
//! own room links. (The pages themselves are tested in a real browser by
//! `server/web-tests`, run by `.ci/browser-tests`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;

use common::TestServer;
use krypto_core::names::MAX_NAME_CHARS;
use krypto_core::protocol::limits::ClientLimits;
use krypto_core::protocol::{PROTOCOL_VERSION, REACTIONS};
use krypto_core::settings::ROUNDS;

struct Answer {
    status: u16,
    headers: HashMap<String, String>,
    body: String,
}

/// One HTTP/1.1 GET with extra header lines.
async fn get(server: &TestServer, path: &str, extra: &str) -> Answer {
    let host = format!("localhost:{}", server.addr.port());
    let (status, headers, body) = common::http_get_from(server.addr, &host, path, extra).await;
    Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

fn assert_guarded(a: &Answer) {
    let csp = &a.headers["content-security-policy"];
    for directive in [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{csp:?} lacks {directive}");
    }
    assert_eq!(a.headers["x-content-type-options"], "nosniff");
}

/// `path` answered 200 with `content_type`, guarded as every answer is.
async fn served(server: &TestServer, path: &str, content_type: &str) -> Answer {
    let a = get(server, path, "").await;
    assert_eq!(a.status, 200, "{path}");
    assert_eq!(a.headers["content-type"], content_type, "{path}");
    assert_guarded(&a);
    a
}

// These stay on SQLite alone, outside `on_both!`: the browser client's
// routes use no server state (`web::routes` in server/src/web.rs merges
// into any router), so no answer here touches a database, and a PostgreSQL
// copy would test the same bytes again.

#[tokio::test]
async fn every_page_address_serves_the_app() {
    let server = TestServer::start().await;
    for path in [
        "/",
        "/r/KXR7P",
        "/tv/KXR7P",
        "/leaderboard",
        "/conduct",
        "/p/Ada%20B",
        "/daily",
        "/c/K7QXM2PD",
        "/run",
        "/practice",
    ] {
        let a = served(&server, path, "text/html; charset=utf-8").await;
        assert_eq!(a.headers["cache-control"], "no-cache");
        assert!(a
            .body
            .contains(r#"<script type="module" src="assets/js/main.js?v="#));
        // Relative (a proxy's path prefix works): found from every page.
        let dir = &path[..=path.rfind('/').unwrap_or(0)];
        let script = get(&server, &format!("{dir}assets/js/main.js"), "").await;
        assert_eq!(script.status, 200, "{path}");
        let own_socket = format!("ws://localhost:{}", server.addr.port());
        assert!(a.headers["content-security-policy"].contains(&own_socket));
    }
    server.shutdown().await;
}

#[tokio::test]
async fn assets_named_with_the_version_are_kept_and_the_page_is_revalidated() {
    let server = TestServer::start().await;
    let page = get(&server, "/r/KXR7P", "").await;
    assert_eq!(page.headers["cache-control"], "no-cache");
    let start = page.body.find("assets/js/main.js?v=").unwrap_or(0);
    let end = start + page.body[start..].find('"').unwrap_or(0);
    let main = &page.body[start..end];
    let v = main.trim_start_matches("assets/js/main.js?v=");
    assert_eq!(v.len(), 12, "{main}");

    let kept = get(&server, &format!("/r/{main}"), "").await;
    assert_eq!(kept.status, 200);
    assert_eq!(
        kept.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    // Its imports name the same version, so they are kept too.
    assert!(kept.body.contains(&format!("from './net.js?v={v}'")));
    let net = get(&server, &format!("/assets/js/net.js?v={v}"), "").await;
    assert_eq!(
        net.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    // Another version (an older page's) or none: revalidated every time.
    for other in ["/assets/js/main.js?v=000000000000", "/assets/js/main.js"] {
        let a = get(&server, other, "").await;
        assert_eq!(a.status, 200, "{other}");
        assert_eq!(a.headers["cache-control"], "no-cache", "{other}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn assets_have_their_types_and_revalidate_with_an_etag() {
    let server = TestServer::start().await;
    let js = served(
        &server,
        "/assets/js/main.js",
        "text/javascript; charset=utf-8",
    )
    .await;
    assert!(js.body.contains("import"));
    served(&server, "/assets/app.css", "text/css; charset=utf-8").await;

    let tag = &js.headers["etag"];
    let again = get(
        &server,
        "/assets/js/main.js",
        &format!("If-None-Match: {tag}\r\n"),
    )
    .await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    let stale = get(
        &server,
        "/assets/js/main.js",
        "If-None-Match: \"an-older-build\"\r\n",
    )
    .await;
    assert_eq!(stale.status, 200);

    assert_eq!(get(&server, "/assets/nope.js", "").await.status, 404);
    assert_eq!(get(&server, "/assets/../Cargo.toml", "").await.status, 404);
    server.shutdown().await;
}

/// The limits the generated module exports, read back as JSON.
fn exported_limits(module: &str) -> serde_json::Value {
    let start = module.find("deepFreeze(").expect("LIMITS is frozen") + "deepFreeze(".len();
    let end = module[start..].find(");\n").expect("one statement") + start;
    serde_json::from_str(&module[start..end]).expect("the limits are JSON")
}

#[tokio::test]
async fn the_browser_reads_krypto_cores_limits_from_a_generated_module() {
    let server = TestServer::start().await;
    let want = serde_json::to_value(ClientLimits::current()).unwrap();
    // Where the app's modules import it from (beside them, also under a
    // page one level down), and at the top.
    for path in [
        "/assets/js/limits.js",
        "/r/assets/js/limits.js",
        "/js/limits.js",
    ] {
        let a = served(&server, path, "text/javascript; charset=utf-8").await;
        assert!(a.body.contains("export const LIMITS = "), "{}", a.body);
        assert_eq!(exported_limits(&a.body), want, "{path}");
        let again = get(
            &server,
            path,
            &format!("If-None-Match: {}\r\n", a.headers["etag"]),
        )
        .await;
        assert_eq!(again.status, 304, "{path}");
    }
    // The numbers the browser checks are the server's own.
    assert_eq!(want["name_chars"], MAX_NAME_CHARS);
    assert_eq!(want["formula_chars"], krypto_core::formula::MAX_LEN);
    assert_eq!(want["protocol"], PROTOCOL_VERSION);
    assert_eq!(want["reactions"], serde_json::json!(REACTIONS));
    assert_eq!(want["settings"]["rounds"]["max"], *ROUNDS.end());
    assert_eq!(want["settings"]["target_score"]["nullable"], true);
    assert_eq!(
        want["settings"]["rules"]["choices"],
        serde_json::json!(["free", "integer", "international"])
    );
    // And the app imports it rather than typing numbers.
    let main = get(&server, "/assets/js/main.js", "").await;
    assert!(main.body.contains("from './limits.js?v="));
    server.shutdown().await;
}

#[tokio::test]
async fn qr_codes_only_for_this_servers_room_links() {
    let server = TestServer::start().await;
    let port = server.addr.port();
    let own = served(&server, "/r/kxr7p/qr.svg", "image/svg+xml").await;
    assert!(own.body.starts_with("<?xml") && own.body.contains("<svg"));

    let lan = format!("/r/KXR7P/qr.svg?base=http%3A%2F%2F127.0.0.1%3A{port}");
    assert_eq!(get(&server, &lan, "").await.status, 200);
    // A different address gives a different picture.
    assert_ne!(get(&server, &lan, "").await.body, own.body);

    for refused in [
        "/r/KXR7P/qr.svg?base=http%3A%2F%2Fexample.com",
        "/r/KXR7P/qr.svg?base=http%3A%2F%2F8.8.8.8%3A7878",
        "/r/KXR7P/qr.svg?base=javascript%3Aalert(1)",
        "/r/KXR7P/qr.svg?base=http%3A%2F%2Flocalhost%40example.com",
    ] {
        assert_eq!(get(&server, refused, "").await.status, 400, "{refused}");
    }
    // Not a room code: no picture.
    assert_eq!(get(&server, "/r/K0XR7/qr.svg", "").await.status, 404);
    server.shutdown().await;
}
