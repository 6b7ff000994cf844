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

/// A PostgreSQL cluster of its own in a temporary directory, listening
/// only on a unix socket there; stopped and deleted once the test binary
/// exits. Tests of outages stop and start it.
pub struct Cluster {
    dir: PathBuf,
    data: PathBuf,
    root: bool,
}

impl Cluster {
    /// Creates the cluster (not started yet).
    pub fn init() -> Cluster {
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
        let cluster = Cluster { dir, data, root };
        cluster.watch();
        cluster
    }

    /// Starts the watchdog, in a session of its own so a Ctrl-C to the
    /// tests does not kill it before it has stopped the cluster.
    fn watch(&self) {
        let watch = format!(
            "while test -d /proc/{pid}; do sleep 1; done; \
             {BIN}/pg_ctl -D {data} -m immediate stop >/dev/null 2>&1; rm -rf {dir}",
            pid = std::process::id(),
            data = path(&self.data),
            dir = path(&self.dir),
        );
        // `setsid --fork` returns at once, leaving the watchdog running.
        let started = command("setsid", &["--fork", "sh", "-c", &watch], self.root)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("the cluster's watchdog");
        assert!(started.success(), "the cluster's watchdog did not start");
    }

    fn pg_ctl(&self, args: &[&str], what: &str) {
        let mut all = vec!["-D", path(&self.data)];
        all.extend_from_slice(args);
        run(command(&format!("{BIN}/pg_ctl"), &all, self.root), what);
    }

    /// Starts the cluster and waits until it takes connections.
    pub fn start(&self) {
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=400",
            path(&self.dir)
        );
        let log = self.dir.join("log");
        self.pg_ctl(
            &["-o", &options, "-l", path(&log), "-w", "start"],
            "pg_ctl start",
        );
    }

    /// Stops the cluster as an operator would for a restart: `-m fast`
    /// (every connection is closed, the data is kept).
    pub fn stop(&self) {
        self.pg_ctl(&["-m", "fast", "-w", "stop"], "pg_ctl stop");
    }

    /// Its URL template, with `{db}` where the database's name goes.
    pub fn url_template(&self) -> String {
        format!(
            "postgres://postgres@localhost/{{db}}?host={}",
            path(&self.dir)
        )
    }

    /// A new, empty database in this cluster (started); returns its URL.
    pub async fn fresh_database(&self) -> String {
        create_database(&Admin {
            template: self.url_template(),
        })
        .await
    }
}

/// Starts a cluster in a new temporary directory; returns its URL template.
fn start_cluster() -> String {
    let cluster = Cluster::init();
    cluster.start();
    cluster.url_template()
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
    create_database(admin()).await
}

async fn create_database(admin: &Admin) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
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
