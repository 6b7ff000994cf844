//! A throwaway PostgreSQL 15 cluster for one test binary, and a fresh
//! database in it for each test.
//!
//! With `KRYPTO_TEST_POSTGRES_URL` set (a URL to a database of a server the
//! tests may create databases on), that server is used instead. Otherwise
//! the first test that needs PostgreSQL runs `initdb` in a temporary
//! directory and starts the cluster with `pg_ctl`, listening only on a unix
//! socket in that directory (no port to collide with anything), with
//! durability off (a test cluster need not survive a power cut). When
//! running as root, the cluster runs as the `postgres` user. A watchdog
//! stops the cluster and deletes the directory once the test binary exits.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use sqlx::{Connection, PgConnection};

const BIN: &str = "/usr/lib/postgresql/15/bin";

/// The directory of PostgreSQL's programs (`initdb`, `pg_ctl`).
pub fn bin_dir() -> PathBuf {
    PathBuf::from(BIN)
}

/// Where to create test databases: a URL with `{db}` where the database's
/// name goes.
struct Admin {
    template: String,
}

impl Admin {
    fn url(&self, db: &str) -> String {
        self.template.replace("{db}", db)
    }
}

static ADMIN: OnceLock<Admin> = OnceLock::new();

/// Runs `program` with `args`, as the `postgres` user when we are root.
fn command(program: &str, args: &[&str], as_postgres: bool) -> Command {
    if as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--", program]).args(args);
        c
    } else {
        let mut c = Command::new(program);
        c.args(args);
        c
    }
}

fn run(mut c: Command, what: &str) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// Starts a cluster in a new temporary directory; returns its URL template.
fn start_cluster() -> String {
    let root = is_root();
    let dir: PathBuf = tempfile::Builder::new()
        .prefix("krypto-pg-")
        .tempdir()
        .expect("temporary directory")
        .keep();
    let data = dir.join("data");
    if root {
        run(
            command("chown", &["-R", "postgres", path(&dir)], false),
            "chown",
        );
    }
    let initdb = format!("{BIN}/initdb");
    run(
        command(
            &initdb,
            &[
                "-D",
                path(&data),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "--encoding=UTF8",
                "--no-locale",
            ],
            root,
        ),
        "initdb",
    );
    let options = format!(
        "-k {} -c listen_addresses='' -c fsync=off -c synchronous_commit=off \
         -c full_page_writes=off -c max_connections=400",
        path(&dir)
    );
    let pg_ctl = format!("{BIN}/pg_ctl");
    let log = dir.join("log");
    run(
        command(
            &pg_ctl,
            &[
                "-D",
                path(&data),
                "-o",
                &options,
                "-l",
                path(&log),
                "-w",
                "start",
            ],
            root,
        ),
        "pg_ctl start",
    );
    // The watchdog, in a session of its own so a Ctrl-C to the tests does
    // not kill it before it has stopped the cluster.
    let watch = format!(
        "while test -d /proc/{pid}; do sleep 1; done; \
         {pg_ctl} -D {data} -m immediate stop >/dev/null 2>&1; rm -rf {dir}",
        pid = std::process::id(),
        data = path(&data),
        dir = path(&dir),
    );
    // `setsid --fork` returns at once, leaving the watchdog running.
    let started = command("setsid", &["--fork", "sh", "-c", &watch], root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("the cluster's watchdog");
    assert!(started.success(), "the cluster's watchdog did not start");
    format!("postgres://postgres@localhost/{{db}}?host={}", path(&dir))
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

fn admin() -> &'static Admin {
    ADMIN.get_or_init(|| match std::env::var("KRYPTO_TEST_POSTGRES_URL") {
        Ok(url) => {
            // Swap the database name for the placeholder.
            let (base, query) = url
                .split_once('?')
                .map_or((url.as_str(), None), |(b, q)| (b, Some(q)));
            let (server, _) = base.rsplit_once('/').expect("a URL with a database name");
            Admin {
                template: match query {
                    Some(q) => format!("{server}/{{db}}?{q}"),
                    None => format!("{server}/{{db}}"),
                },
            }
        }
        Err(_) => Admin {
            template: start_cluster(),
        },
    })
}

/// A new, empty database; returns its URL.
pub async fn fresh_database() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let admin = admin();
    let name = format!(
        "krypto_test_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let mut conn = PgConnection::connect(&admin.url("postgres"))
        .await
        .expect("connecting to the test cluster");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("creating a test database");
    let _ = conn.close().await;
    admin.url(&name)
}
