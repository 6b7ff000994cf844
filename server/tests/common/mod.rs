//! A real server on 127.0.0.1:0 with a fresh database — a temporary SQLite
//! file or a new PostgreSQL database (see [`postgres`]) — and a small
//! WebSocket client that speaks JSON.
//!
//! Every test runs on both backends: a test file wraps its tests in
//! [`on_both!`], which makes a `sqlite::` and a `postgres::` copy of each
//! (the latter skipped on a machine without PostgreSQL);
//! [`TestServer`] and [`fresh_database`] read which one from the running
//! test's task.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod blackhole;
pub mod outage;
pub mod paced;
pub mod postgres;
pub mod process;
pub mod scripted;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use krypto_server::db::Backend;
use krypto_server::Config;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A safety net so a broken test fails instead of hanging; no assertion
/// depends on it.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// Makes a `sqlite` and a `postgres` module, each with a copy of every test
/// given, run on that backend:
///
/// ```ignore
/// on_both! {
///     #[tokio::test]
///     async fn a_test() { let server = TestServer::start().await; … }
/// }
/// ```
#[macro_export]
macro_rules! on_both {
    ($($(#[$attr:meta])* async fn $name:ident() $body:block)*) => {
        mod sqlite {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[$attr])*
                async fn $name() {
                    $crate::common::on(krypto_server::db::Backend::Sqlite, async move $body).await
                }
            )*
        }
        mod postgres {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[$attr])*
                async fn $name() {
                    $crate::common::on(krypto_server::db::Backend::Postgres, async move $body).await
                }
            )*
        }
    };
}

tokio::task_local! {
    static BACKEND: Backend;
}

/// Runs `test` with `backend` as the backend of every server and database
/// it makes — or skips it when that is PostgreSQL and this machine has none
/// (see [`postgres::available`]).
pub async fn on(backend: Backend, test: impl std::future::Future<Output = ()>) {
    if backend == Backend::Postgres && !postgres::available() {
        return;
    }
    BACKEND.scope(backend, test).await
}

/// The running test's backend (SQLite outside [`on_both!`]).
pub fn backend() -> Backend {
    BACKEND.try_with(|b| *b).unwrap_or(Backend::Sqlite)
}

/// A fresh, empty database of the running test's backend.
#[derive(Debug)]
pub struct TestDatabase {
    /// Its URL.
    pub url: String,
    /// The directory of a SQLite file, removed with it.
    _dir: Option<tempfile::TempDir>,
}

impl TestDatabase {
    /// A database made elsewhere (not removed by this handle).
    pub fn existing(url: String) -> TestDatabase {
        TestDatabase { url, _dir: None }
    }
}

/// A new database for the running test.
pub async fn fresh_database() -> TestDatabase {
    match backend() {
        Backend::Sqlite => {
            let dir = tempfile::tempdir().unwrap();
            let url = format!("sqlite://{}", dir.path().join("test.db").display());
            TestDatabase {
                url,
                _dir: Some(dir),
            }
        }
        Backend::Postgres => TestDatabase {
            url: postgres::fresh_database()
                .await
                .expect("`on` runs PostgreSQL tests only where there is PostgreSQL"),
            _dir: None,
        },
    }
}

/// A player stored straight into `db` (tests that seed scores without
/// playing), keyed as the server keys names, with this stored token hash.
pub async fn seed_player(
    db: &krypto_server::db::Db,
    name: &str,
    token_hash: &str,
    bot: bool,
) -> krypto_core::protocol::PlayerId {
    use krypto_server::db::{scores::NewPlayer, Created};
    let new = NewPlayer {
        name: name.to_owned(),
        name_key: krypto_core::names::key(name),
        token_hash: token_hash.to_owned(),
        bot,
    };
    match db.create_player(new).await.unwrap() {
        Created::Player(row) => row.player_id(),
        Created::NameTaken => panic!("{name} taken"),
    }
}

/// A connection for reading back what the server stored, on either
/// backend: the queries tests use are written in SQL both understand.
pub enum Raw {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
}

impl Raw {
    /// Runs `sql` (any number of statements), for tests that change what
    /// is stored behind the server's back.
    #[allow(dead_code)]
    pub async fn execute(&mut self, sql: &str) {
        match self {
            Raw::Sqlite(c) => sqlx::raw_sql(sql).execute(c).await.map(drop),
            Raw::Postgres(c) => sqlx::raw_sql(sql).execute(c).await.map(drop),
        }
        .unwrap_or_else(|e| panic!("{e}: {sql}"));
    }

    pub async fn connect(url: &str) -> Raw {
        use sqlx::Connection;
        match Backend::of_url(url).unwrap() {
            Backend::Sqlite => Raw::Sqlite(sqlx::SqliteConnection::connect(url).await.unwrap()),
            Backend::Postgres => Raw::Postgres(sqlx::PgConnection::connect(url).await.unwrap()),
        }
    }

    /// Every row of `sql`.
    pub async fn rows<T>(&mut self, sql: &str) -> Vec<T>
    where
        T: Send
            + Unpin
            + for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
            + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
    {
        match self {
            Raw::Sqlite(c) => sqlx::query_as(sql).fetch_all(c).await,
            Raw::Postgres(c) => sqlx::query_as(sql).fetch_all(c).await,
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// The one row of `sql`.
    pub async fn one<T>(&mut self, sql: &str) -> T
    where
        T: Send
            + Unpin
            + for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
            + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
    {
        let mut rows = self.rows(sql).await;
        assert_eq!(rows.len(), 1, "{sql}");
        rows.remove(0)
    }
}

pub struct TestServer {
    pub addr: SocketAddr,
    /// The database it serves from.
    pub database_url: String,
    /// Where its `/metrics` is served, once bound.
    metrics: krypto_server::MetricsAddress,
    shutdown: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<Result<(), krypto_server::ServerError>>>,
    _database: TestDatabase,
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::with_config(|_| {}).await
    }

    pub async fn with_config(tweak: impl FnOnce(&mut Config)) -> TestServer {
        Self::on_database(fresh_database().await, tweak).await
    }

    /// A server whose daily, challenges, runs and pruning go by `wall`, a
    /// clock the test moves; `tweak` after.
    pub async fn on_wall_clock(
        wall: &krypto_server::WallClock,
        tweak: impl FnOnce(&mut Config),
    ) -> TestServer {
        let wall = wall.clone();
        Self::with_config(move |c| {
            c.wall_clock = wall;
            tweak(c);
        })
        .await
    }

    /// A server on a database the test seeded, kept alive as long as the
    /// server.
    pub async fn on_database(
        database: TestDatabase,
        tweak: impl FnOnce(&mut Config),
    ) -> TestServer {
        let mut config = Config {
            database_url: database.url.clone(),
            close_drain: Duration::from_millis(50),
            // Tests open sockets and rooms and call the API from one address
            // as fast as they can; server/tests/hostile.rs turns these back on.
            http_burst: 0,
            ws_open_burst: 0,
            max_rooms_per_address: 0,
            // Tests play at machine speed, which the fair-play signals
            // rightly flag; server/tests/fair_play.rs turns them back on.
            fair_play: signals_that_never_fire().into(),
            // Never the default port: tests run side by side.
            metrics_listen: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
            ..Config::default()
        };
        tweak(&mut config);
        let config_url = config.database_url.clone();
        let metrics = config.metrics_address.clone();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let handle = tokio::spawn(krypto_server::run(listener, config, async move {
            let _ = rx.await;
        }));
        TestServer {
            addr,
            metrics,
            database_url: config_url,
            shutdown: Some(tx),
            handle: Some(handle),
            _database: database,
        }
    }

    /// A connection to the server's database, to read what it stored.
    pub async fn raw(&self) -> Raw {
        Raw::connect(&self.database_url).await
    }

    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    pub async fn connect(&self) -> Client {
        let (ws, _) = tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async(self.url()))
            .await
            .expect("connect timed out")
            .expect("connect failed");
        Client { ws }
    }

    /// A connection that said hello as `name`; returns it and the welcome.
    /// A new connection whose `hello` is refused as `bad_token` (a token
    /// or a ticket that no longer proves anyone); the error.
    pub async fn hello_refused(&self, hello: Value) -> Value {
        let mut c = self.connect().await;
        c.send(hello).await;
        c.expect_error("bad_token").await
    }

    pub async fn player(&self, name: &str) -> (Client, Value) {
        self.connect().await.welcomed(hello(name)).await
    }

    /// [`TestServer::player`] for each of `names`, in order.
    pub async fn players<const N: usize>(&self, names: [&str; N]) -> [(Client, Value); N] {
        let mut players = Vec::with_capacity(N);
        for name in names {
            players.push(self.player(name).await);
        }
        players
            .try_into()
            .unwrap_or_else(|_| unreachable!("one player a name"))
    }

    /// A connection that sent `hello` (any fields); returns it and the
    /// welcome.
    pub async fn player_with(&self, hello: Value) -> (Client, Value) {
        self.connect().await.welcomed(hello).await
    }

    /// Players `names` (see [`TestServer::players`]), the first hosting a
    /// room with `settings` that the others have joined: them, with their
    /// welcomes, and the room's code.
    pub async fn seated<const N: usize>(
        &self,
        names: [&str; N],
        settings: Value,
    ) -> ([(Client, Value); N], String) {
        let mut players = self.players(names).await;
        let (host, guests) = players.split_first_mut().expect("a host");
        let mut guests: Vec<&mut Client> = guests.iter_mut().map(|(c, _)| c).collect();
        let code = host.0.host_room(settings, &mut guests).await;
        (players, code)
    }

    /// Asks the server to shut down and waits until it has.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(handle) = self.handle.take() {
            tokio::time::timeout(PATIENCE, handle)
                .await
                .expect("shutdown timed out")
                .unwrap()
                .unwrap();
        }
    }

    /// Sends `shutdown` without waiting.
    pub fn begin_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// One HTTP GET whose body is JSON; returns the status code and the body.
    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let (status, body) = self.get(path).await;
        let code = status
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let json = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {status} {body:?}"));
        (code, json)
    }

    /// One HTTP/1.1 GET; returns the status line and the body.
    pub async fn get(&self, path: &str) -> (String, String) {
        http_get(self.addr, path).await
    }

    /// The body of `GET /metrics`, from the metrics port.
    pub async fn metrics(&self) -> String {
        // Answered on the main port only once the metrics port is bound.
        self.get("/healthz").await;
        let addr = self.metrics.get().expect("metrics are served");
        let (status, body) = http_get(addr, "/metrics").await;
        assert!(status.contains(" 200 "), "{status}");
        body
    }
}

/// The cards and objective of a `round_started`.
fn hand(started: &Value) -> (Vec<i64>, i64) {
    let cards: Vec<i64> = started["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_i64().unwrap())
        .collect();
    (cards, started["objective"].as_i64().unwrap())
}

/// A whole formula over the hand of a `round_started` that misses its
/// objective: a real attempt, wrong.
#[allow(dead_code)]
pub fn wrong(started: &Value) -> String {
    let (cards, objective) = hand(started);
    let sum = cards
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join("+");
    if cards.iter().sum::<i64>() != objective {
        sum
    } else {
        // The sum is the objective: a minus instead of the first plus.
        sum.replacen('+', "-", 1)
    }
}

/// Whether a `match_over` shows no rating change: the match was unrated.
#[allow(dead_code)]
pub fn unrated(over: &Value) -> bool {
    over["standings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s.get("rating_after").is_none())
}

/// The fair-play signals at their defaults, as in production (every
/// other test runs with [`signals_that_never_fire`]).
pub fn assessed(c: &mut Config) {
    c.fair_play = krypto_core::fair_play::FairPlaySettings::default().into();
}

/// Fair-play thresholds no answer can meet: a floor of 0 ms, no variation
/// below 0, no hard hand faster than 0 ms.
pub fn signals_that_never_fire() -> krypto_core::fair_play::FairPlaySettings {
    let mut settings = krypto_core::fair_play::FairPlaySettings::default();
    settings.floor.react_ms = 0;
    settings.floor.read_ms = 0;
    settings.floor.token_ms = 0;
    settings.regularity.max_cv_permille = 0;
    settings.hard_hands.fast_ms = 0;
    settings
}

/// A WebSocket to `url` that a trusted proxy says comes from `ip`
/// (`X-Forwarded-For`).
#[allow(dead_code)]
pub async fn connect_forwarded(
    url: &str,
    ip: &str,
) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = url.into_client_request()?;
    request
        .headers_mut()
        .insert("x-forwarded-for", ip.parse().unwrap());
    let (ws, _) = tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async(request))
        .await
        .unwrap()?;
    Ok(Client { ws })
}

/// A formula that makes the objective of a `round_started`, from the
/// solver (rooms deal solvable hands).
pub fn solve(started: &Value) -> String {
    let (cards, objective) = hand(started);
    krypto_core::solver::solve_one(&cards, objective, krypto_core::rules::Rules::Free)
        .unwrap()
        .expect("rooms deal solvable hands")
        .to_string()
}

/// The value of the sample `series` (a name, with its labels if any) in a
/// Prometheus text exposition (`GET /metrics`).
pub fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| {
            let (name, value) = l.rsplit_once(' ')?;
            (name == series).then(|| value.parse().unwrap())
        })
        .unwrap_or_else(|| panic!("no sample {series} in:\n{text}"))
}

/// Sends `request` as it is to `addr` and reads the answer to its end.
pub async fn http_raw(addr: SocketAddr, request: &str) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(PATIENCE, s.read_to_end(&mut raw))
        .await
        .unwrap()
        .unwrap();
    raw
}

/// One HTTP/1.1 GET to `addr`; returns the status line and the body.
pub async fn http_get(addr: SocketAddr, path: &str) -> (String, String) {
    let req = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let out = String::from_utf8(http_raw(addr, &req).await).unwrap();
    let status = out.lines().next().unwrap_or_default().to_owned();
    let body = out.split("\r\n\r\n").nth(1).unwrap_or_default().to_owned();
    (status, body)
}

/// The string `field` of each object in the JSON array `rows`: a column
/// of a list the server sent (rooms, board rows).
pub fn column<'a>(rows: &'a Value, field: &str) -> Vec<&'a str> {
    rows.as_array()
        .unwrap_or_else(|| panic!("not a list: {rows}"))
        .iter()
        .map(|r| {
            r[field]
                .as_str()
                .unwrap_or_else(|| panic!("no {field}: {r}"))
        })
        .collect()
}

/// Player `id`'s row in a `room_state`, if there is one.
pub fn member(state: &Value, id: &Value) -> Option<Value> {
    state["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| &p["id"] == id)
        .cloned()
}

/// A `hello` as `name`.
pub fn hello(name: &str) -> Value {
    json!({"type": "hello", "protocol": 1, "name": name})
}

/// A `hello` with the token of `welcome`: that player coming back.
pub fn hello_again(welcome: &Value) -> Value {
    json!({"type": "hello", "protocol": 1, "token": welcome["token"]})
}

/// A `hello` with a device code (`ticket`) instead of a name.
pub fn ticket_hello(code: impl serde::Serialize) -> Value {
    json!({"type": "hello", "protocol": 1, "ticket": code})
}

/// One HTTP/1.1 GET to `addr` naming `host`, with extra header lines: the
/// status, the headers (names lowercased) and the raw body.
pub async fn http_get_from(
    addr: SocketAddr,
    host: &str,
    path: &str,
    extra: &str,
) -> (u16, std::collections::HashMap<String, String>, Vec<u8>) {
    let req = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{extra}\r\n");
    let raw = http_raw(addr, &req).await;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, headers, raw[split + 4..].to_vec())
}

pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// What a client saw next.
#[derive(Debug)]
pub enum Event {
    Json(Value),
    Close(Option<CloseFrame>),
    /// The stream ended or broke without a close frame.
    Gone,
}

impl Client {
    /// Sends `hello` (any fields) and waits for the welcome: this
    /// connection and the welcome.
    pub async fn welcomed(mut self, hello: Value) -> (Client, Value) {
        self.send(hello).await;
        let welcome = self.recv().await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        (self, welcome)
    }

    /// Creates a room with `settings` and seats `guests` in it: its code.
    pub async fn host_room(&mut self, settings: Value, guests: &mut [&mut Client]) -> String {
        let state = self
            .request(json!({"type": "create_room", "settings": settings}))
            .await;
        assert_eq!(state["type"], "room_state", "{state}");
        let code = state["code"].as_str().unwrap().to_owned();
        for guest in guests.iter_mut() {
            let joined = guest
                .request(json!({"type": "join_room", "code": code}))
                .await;
            assert_eq!(joined["type"], "room_state", "{joined}");
        }
        code
    }

    /// [`Client::host_room`], then starts the match: the room's code.
    pub async fn host_match(&mut self, settings: Value, guests: &mut [&mut Client]) -> String {
        let code = self.host_room(settings, guests).await;
        self.request(json!({"type": "start"})).await;
        code
    }

    pub async fn send(&mut self, value: Value) {
        self.ws
            .send(Message::text(value.to_string()))
            .await
            .unwrap();
    }

    pub async fn send_raw(&mut self, message: Message) {
        self.ws.send(message).await.unwrap();
    }

    /// The next event (JSON message, close or end).
    pub async fn next_event(&mut self) -> Event {
        loop {
            let next = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("no message from the server in time");
            match next {
                Some(Ok(Message::Text(t))) => {
                    if std::env::var_os("KRYPTO_TEST_TRACE").is_some() {
                        eprintln!("<- {t}");
                    }
                    return Event::Json(serde_json::from_str(t.as_str()).unwrap());
                }
                Some(Ok(Message::Close(frame))) => return Event::Close(frame),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Event::Gone,
            }
        }
    }

    /// The next JSON message.
    pub async fn recv(&mut self) -> Value {
        match self.next_event().await {
            Event::Json(v) => v,
            other => panic!("expected a message, got {other:?}"),
        }
    }

    /// Skips messages until one of type `ty`.
    pub async fn recv_type(&mut self, ty: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["type"] == ty {
                return v;
            }
        }
    }

    /// Sends `message` and asserts that the answer is an error with `code`;
    /// returns the error.
    pub async fn refused(&mut self, message: Value, code: &str) -> Value {
        self.send(message).await;
        self.expect_error(code).await
    }

    /// The next error, asserting its code.
    pub async fn expect_error(&mut self, code: &str) -> Value {
        let v = self.recv().await;
        assert_eq!(v["type"], "error", "{v}");
        assert_eq!(v["code"], code, "{v}");
        v
    }

    /// Skips messages until the close frame; returns its code.
    pub async fn expect_close(&mut self) -> u16 {
        loop {
            match self.next_event().await {
                Event::Json(_) => continue,
                Event::Close(Some(frame)) => return u16::from(frame.code),
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
    }

    /// Reads until both the reply carrying `id` and a message of type `ty`
    /// have arrived, in whichever order the server sent them.
    pub async fn reply_and(&mut self, id: &str, ty: &str) -> (Value, Value) {
        let (mut reply, mut other) = (None, None);
        loop {
            let v = self.recv().await;
            if v["id"] == id {
                reply = Some(v);
            } else if v["type"] == ty {
                other = Some(v);
            }
            if let (Some(r), Some(o)) = (&reply, &other) {
                return (r.clone(), o.clone());
            }
        }
    }

    /// Sends a request with an id and returns the reply carrying it.
    pub async fn request(&mut self, mut value: Value) -> Value {
        value["id"] = json!("r1");
        self.send(value).await;
        loop {
            let v = self.recv().await;
            if v["id"] == "r1" {
                return v;
            }
        }
    }

    /// Submits `formula` for `round` and returns the answer: a verdict, or
    /// an error.
    pub async fn submit(&mut self, round: i64, formula: &str) -> Value {
        self.request(json!({"type": "submit", "round": round, "formula": formula}))
            .await
    }
}

/// A round as both players saw it announced: (round, winner, formula, elapsed ms).
pub type Won = (i64, i64, String, i64);

/// The won rounds in the database at `url`, in order (a SQLite file is
/// checked for soundness first).
pub async fn recorded(url: &str) -> Vec<Won> {
    let mut db = Raw::connect(url).await;
    if let Raw::Sqlite(_) = db {
        let (check,): (String,) = db.one("PRAGMA integrity_check").await;
        assert_eq!(check, "ok");
    }
    db.rows(
        "SELECT number, winner_id, formula, elapsed_ms FROM rounds
         WHERE outcome = 'won' ORDER BY number",
    )
    .await
}

/// The one integer `sql` answers on the database at `url`.
pub async fn count(url: &str, sql: &str) -> i64 {
    let (n,): (i64,) = Raw::connect(url).await.one(sql).await;
    n
}

/// Waits until `sql` counts `n` on the database at `url`, failing after
/// `patience`.
pub async fn count_reaches(patience: Duration, url: &str, sql: &str, n: i64, what: &str) {
    eventually_within(patience, what, || async {
        (count(url, sql).await == n).then_some(())
    })
    .await;
}

/// Polls `check` until it answers, failing after [`PATIENCE`] (what
/// happens across processes: a heartbeat, a commit, a replay).
pub async fn eventually<T, F: std::future::Future<Output = Option<T>>>(
    what: &str,
    check: impl FnMut() -> F,
) -> T {
    eventually_within(PATIENCE, what, check).await
}

/// [`eventually`], failing after `patience`.
pub async fn eventually_within<T, F: std::future::Future<Output = Option<T>>>(
    patience: Duration,
    what: &str,
    mut check: impl FnMut() -> F,
) -> T {
    let deadline = std::time::Instant::now() + patience;
    loop {
        if let Some(answer) = check().await {
            return answer;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Plays round `round` (Ann wins the odd ones, Ben the even ones) and
/// returns it as both saw it announced.
pub async fn win(ann: &mut Client, ben: &mut Client, round: i64) -> Won {
    win_timed(ann, ben, round).await.0
}

/// [`win`], with the real time from the deal's arrival to the answer's
/// sending, and from the answer's sending to its verdict.
pub async fn win_timed(
    ann: &mut Client,
    ben: &mut Client,
    round: i64,
) -> (Won, Duration, Duration) {
    let started = ann.recv_type("round_started").await;
    let dealt = std::time::Instant::now();
    assert_eq!(started["round"], round);
    let (winner, other) = if round % 2 == 1 {
        (ann, ben)
    } else {
        (ben, ann)
    };
    let formula = solve(&started);
    let sent = std::time::Instant::now();
    let verdict = winner.submit(round, &formula).await;
    let answered = sent.elapsed();
    assert_eq!(verdict["accepted"], true, "{verdict}");
    let won = other.recv_type("round_won").await;
    winner.recv_type("round_won").await;
    let won = (
        round,
        won["winner"].as_i64().unwrap(),
        won["formula"].as_str().unwrap().to_owned(),
        won["elapsed_ms"].as_i64().unwrap(),
    );
    (won, sent - dealt, answered)
}
