//! A throwaway PostgreSQL cluster for one test binary, and a fresh
//! database in it for each test — or, on a machine without PostgreSQL, one
//! line saying the PostgreSQL half of the binary's tests was skipped.
//!
//! The server is the one at `KRYPTO_TEST_POSTGRES_URL` (a URL to a
//! database of a running server the tests may create databases on) when it
//! is set; otherwise the first test that needs PostgreSQL starts a cluster
//! with the repository's `.ci/postgres`, as the browser tests and the
//! benchmarks do: that script finds PostgreSQL 13+'s programs, runs them as
//! the `postgres` user when we are root, listens only on a unix socket in a
//! temporary directory (no port to collide with anything), with durability
//! off, and stops the cluster and deletes the directory once this test
//! binary exits. Tests of outages start a [`Cluster`] of their own, to stop
//! and start.
//!
//! `KRYPTO_REQUIRE_POSTGRES=1` turns the skip into a failure (CI sets it).
//! `KRYPTO_TEST_POSTGRES_GLOBS` (read by the script) replaces the install
//! places it searches, to check the search or hide the machine's PostgreSQL
//! from it.

use std::io::{ErrorKind, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Once, OnceLock};

use sqlx::{Connection, PgConnection};

/// The script that starts and stops every throwaway cluster of the repository.
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../.ci/postgres");

/// The script's exit status for "no PostgreSQL 13+ here".
const NOT_FOUND: i32 = 3;

/// `env`'s exit status when it finds no `bash` to run the script with.
const NO_INTERPRETER: i32 = 127;

/// Why there is no server to test on.
enum Unavailable {
    /// Nothing found (what was looked at): the tests that need it are skipped.
    Missing(String),
    /// Found, but it would not start: the tests that need it fail.
    Broken(String),
}

/// Runs `.ci/postgres` with `args`; its standard output, or why it failed.
fn script(args: &[&str]) -> Result<String, Unavailable> {
    let out = match Command::new(SCRIPT)
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Ok(out) => out,
        // No interpreter to run it with: as good as no PostgreSQL.
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(Unavailable::Missing(format!("could not run {SCRIPT}: {e}")))
        }
        Err(e) => return Err(Unavailable::Broken(format!("{SCRIPT}: {e}"))),
    };
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_owned();
    match out.status.code() {
        Some(0) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        Some(NOT_FOUND) => Err(Unavailable::Missing(stderr)),
        Some(NO_INTERPRETER) => Err(Unavailable::Missing(format!(
            "could not run {SCRIPT} (it needs bash): {stderr}"
        ))),
        _ => Err(Unavailable::Broken(format!(
            "{SCRIPT} {} failed: {stderr}",
            args.join(" ")
        ))),
    }
}

/// A PostgreSQL cluster of its own in a temporary directory, started by
/// `.ci/postgres`; stopped and deleted when dropped, or once the test
/// binary exits, whichever comes first. Tests of outages stop and start one.
pub struct Cluster {
    /// The URL of its `postgres` database.
    url: String,
    /// Its directory, which names it to the script.
    dir: String,
}

impl Cluster {
    /// Starts a new cluster, waiting until it takes connections.
    fn launch() -> Result<Cluster, Unavailable> {
        let owner = std::process::id().to_string();
        let out = script(&["start", "--owner", &owner])?;
        let field = |key: &str| {
            out.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_owned)
                .ok_or_else(|| Unavailable::Broken(format!("{SCRIPT} start said no {key}: {out}")))
        };
        Ok(Cluster {
            url: field("url")?,
            dir: field("dir")?,
        })
    }

    /// A started cluster of this test's own, to stop and start — or `None`
    /// when there is no PostgreSQL on this machine (the test is skipped,
    /// and says so, unless `KRYPTO_REQUIRE_POSTGRES=1`).
    pub fn own() -> Option<Cluster> {
        match Cluster::launch() {
            Ok(cluster) => Some(cluster),
            Err(Unavailable::Broken(why)) => panic!("{why}"),
            Err(Unavailable::Missing(missing)) => {
                refuse_to_skip(&missing);
                eprintln!("skipped: this test starts a PostgreSQL of its own — {missing}");
                None
            }
        }
    }

    fn run(&self, action: &str) {
        if let Err(Unavailable::Broken(why) | Unavailable::Missing(why)) =
            script(&[action, &self.dir])
        {
            panic!("{why}");
        }
    }

    /// Starts the cluster again after [`Cluster::stop`], and waits until it
    /// takes connections.
    pub fn start(&self) {
        self.run("up");
    }

    /// Stops the cluster as an operator would for a restart, `-m fast`:
    /// every connection is closed, the data is kept.
    pub fn stop(&self) {
        self.run("down");
    }

    /// The URL of its `postgres` database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A new, empty database in this cluster; returns its URL.
    pub async fn fresh_database(&self) -> String {
        create_database(&template(&self.url).unwrap_or_else(|e| panic!("{e}"))).await
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Nothing to do about a failure here: the watchdog tries again once
        // the binary exits.
        let _ = script(&["stop", &self.dir]);
    }
}

/// Where to create test databases: a URL with `{db}` where the database's
/// name goes.
struct Admin {
    template: String,
    /// The cluster started for this binary, if one was; never dropped (a
    /// static), so `.ci/postgres`'s watchdog stops it when the binary exits.
    _cluster: Option<Cluster>,
}

static ADMIN: OnceLock<Result<Admin, Unavailable>> = OnceLock::new();

/// `url` with the placeholder `{db}` where its database's name was.
fn template(url: &str) -> Result<String, String> {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let (server, _) = base
        .rsplit_once('/')
        .ok_or_else(|| format!("{url} has no database name"))?;
    Ok(match query {
        Some(q) => format!("{server}/{{db}}?{q}"),
        None => format!("{server}/{{db}}"),
    })
}

fn admin() -> &'static Result<Admin, Unavailable> {
    ADMIN.get_or_init(|| match std::env::var("KRYPTO_TEST_POSTGRES_URL") {
        Ok(url) => template(&url)
            .map(|template| Admin {
                template,
                _cluster: None,
            })
            .map_err(|e| Unavailable::Broken(format!("KRYPTO_TEST_POSTGRES_URL: {e}"))),
        Err(_) => {
            let cluster = Cluster::launch()?;
            let template = template(&cluster.url).map_err(Unavailable::Broken)?;
            Ok(Admin {
                template,
                _cluster: Some(cluster),
            })
        }
    })
}

/// Fails when `KRYPTO_REQUIRE_POSTGRES=1`: there, a skip is a failure.
fn refuse_to_skip(missing: &str) {
    let required = std::env::var("KRYPTO_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
    assert!(!required, "KRYPTO_REQUIRE_POSTGRES=1 but {missing}");
}

/// The test binary's name without cargo's hash (`rooms-0a1b…` → `rooms`).
fn binary_name() -> String {
    let exe = std::env::args().next().unwrap_or_default();
    let stem = Path::new(&exe)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
        _ => stem,
    }
}

/// Whether there is a PostgreSQL server to test on, starting the cluster
/// if needed. Without one, says once for the binary that its PostgreSQL
/// tests are skipped and how to run them — or fails, when
/// `KRYPTO_REQUIRE_POSTGRES=1` or the server found would not start.
pub fn available() -> bool {
    match admin() {
        Ok(_) => true,
        Err(Unavailable::Broken(why)) => panic!("{why}"),
        Err(Unavailable::Missing(missing)) => {
            refuse_to_skip(missing);
            static SAID: Once = Once::new();
            SAID.call_once(|| {
                // Straight to the standard error: the test harness captures
                // only `eprintln!`, and this line is for the person running
                // the tests.
                let _ = writeln!(
                    std::io::stderr(),
                    "skipped: the PostgreSQL tests of {} — {missing}; install PostgreSQL \
                     13+ or set KRYPTO_TEST_POSTGRES_URL to run them",
                    binary_name()
                );
            });
            false
        }
    }
}

/// A new, empty database; returns its URL — or `None` when there is no
/// PostgreSQL on this machine, and the test is to be skipped (see
/// [`available`]).
pub async fn fresh_database() -> Option<String> {
    if !available() {
        return None;
    }
    let Ok(admin) = admin() else {
        return None;
    };
    Some(create_database(&admin.template).await)
}

/// A new, empty database on the server of URL template `template`.
async fn create_database(template: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let url = |db: &str| template.replace("{db}", db);
    let name = format!(
        "krypto_test_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let mut conn = PgConnection::connect(&url("postgres"))
        .await
        .expect("connecting to the test cluster");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("creating a test database");
    let _ = conn.close().await;
    url(&name)
}
