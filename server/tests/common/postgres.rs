//! A throwaway PostgreSQL cluster for one test binary, and a fresh
//! database in it for each test — or, on a machine without PostgreSQL, one
//! line saying the PostgreSQL half of the binary's tests was skipped.
//!
//! The server comes from the first of:
//!
//! 1. `KRYPTO_TEST_POSTGRES_URL`, a URL to a database of a running server
//!    the tests may create databases on;
//! 2. `initdb` and `pg_ctl` on `PATH`;
//! 3. the directory `pg_config --bindir` names;
//! 4. the usual install places of versioned packages (Debian's
//!    `/usr/lib/postgresql/*/bin`, RHEL's `/usr/pgsql-*/bin`, Homebrew's
//!    `postgresql@*` kegs), the newest first;
//!
//! taking only PostgreSQL 13 or newer. From 2 to 4 the first test that
//! needs PostgreSQL runs `initdb` in a temporary directory and starts the
//! cluster with `pg_ctl`, listening only on a unix socket in that directory
//! (no port to collide with anything), with durability off (a test cluster
//! need not survive a power cut). When running as root, the cluster runs as
//! the `postgres` user. A watchdog stops the cluster and deletes the
//! directory once the test binary exits.
//!
//! `KRYPTO_REQUIRE_POSTGRES=1` turns the skip into a failure (CI sets it).
//! `KRYPTO_TEST_POSTGRES_GLOBS` (patterns separated by `:`) replaces the
//! install places of step 4, to check the search or hide the machine's
//! PostgreSQL from it.

use std::fmt;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Once, OnceLock};

use sqlx::{Connection, PgConnection};

/// `initdb`'s flags after `-D DIR` for a throwaway cluster: trust, no fsync, no locale.
pub const INITDB_ARGS: &[&str] = &[
    "-U",
    "postgres",
    "--auth=trust",
    "--no-sync",
    "--encoding=UTF8",
    "--no-locale",
];

/// The oldest PostgreSQL the server supports.
const OLDEST_MAJOR: u32 = 13;

/// Where versioned PostgreSQL packages put their programs.
const INSTALL_GLOBS: &[&str] = &[
    "/usr/lib/postgresql/*/bin",
    "/usr/pgsql-*/bin",
    "/opt/homebrew/opt/postgresql@*/bin",
    "/usr/local/opt/postgresql@*/bin",
];

/// No PostgreSQL server programs were found: what was looked at.
#[derive(Debug)]
pub struct NotFound {
    tried: Vec<String>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no PostgreSQL {OLDEST_MAJOR}+ found (looked at ")?;
        write!(f, "KRYPTO_TEST_POSTGRES_URL, {})", self.tried.join(", "))
    }
}

/// The directory of the newest suitable `initdb` and `pg_ctl`, searched as
/// the module's documentation says (steps 2 to 4).
pub fn bin_dir() -> Result<PathBuf, NotFound> {
    let mut tried = Vec::new();
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    tried.push("initdb and pg_ctl on PATH".to_owned());
    if let Some(dir) = on_path.into_iter().find(|d| suitable(d)) {
        return Ok(dir);
    }
    tried.push("pg_config --bindir".to_owned());
    if let Some(dir) = pg_config_bindir().filter(|d| suitable(d)) {
        return Ok(dir);
    }
    let globs = std::env::var("KRYPTO_TEST_POSTGRES_GLOBS").map_or_else(
        |_| INSTALL_GLOBS.iter().map(|g| (*g).to_owned()).collect(),
        |v| {
            v.split(':')
                .filter(|g| !g.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        },
    );
    let mut installed: Vec<(u32, PathBuf)> = globs
        .iter()
        .filter_map(|pattern| glob::glob(pattern).ok())
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|dir| major_version(&dir).map(|v| (v, dir)))
        .filter(|(v, _)| *v >= OLDEST_MAJOR)
        .collect();
    tried.extend(globs);
    installed.sort();
    installed
        .pop()
        .map(|(_, dir)| dir)
        .ok_or(NotFound { tried })
}

fn pg_config_bindir() -> Option<PathBuf> {
    let out = Command::new("pg_config").arg("--bindir").output().ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    out.status.success().then(|| PathBuf::from(dir.trim_end()))
}

/// Whether `dir` holds `initdb` and a `pg_ctl` of a supported version.
fn suitable(dir: &Path) -> bool {
    major_version(dir).is_some_and(|v| v >= OLDEST_MAJOR)
}

/// The major version of `dir/pg_ctl` (`pg_ctl (PostgreSQL) 16.4 (…)`), when
/// `dir` also has an `initdb`.
fn major_version(dir: &Path) -> Option<u32> {
    if !dir.join("initdb").is_file() {
        return None;
    }
    let out = Command::new(dir.join("pg_ctl"))
        .arg("--version")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.split_whitespace().nth(2)?;
    version.split(['.', 'b', 'r']).next()?.parse().ok()
}

/// Where to create test databases: a URL with `{db}` where the database's
/// name goes.
struct Admin {
    template: String,
    /// The cluster started for this binary, if one was.
    _cluster: Option<Cluster>,
}

/// Why there is no server to test on.
enum Unavailable {
    /// Nothing found: the tests that need it are skipped.
    Missing(NotFound),
    /// Found, but it would not start: the tests that need it fail.
    Broken(String),
}

static ADMIN: OnceLock<Result<Admin, Unavailable>> = OnceLock::new();

/// Runs `program` with `args`, as the `postgres` user when we are root.
fn command(program: &Path, args: &[&str], as_postgres: bool) -> Command {
    if as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program).args(args);
        c
    } else {
        let mut c = Command::new(program);
        c.args(args);
        c
    }
}

fn run(mut c: Command, what: &str) -> Result<(), String> {
    let out = c.output().map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// A PostgreSQL cluster of its own in a temporary directory, listening
/// only on a unix socket there; stopped and deleted by a watchdog once the
/// test binary exits. Tests of outages stop and start one.
pub struct Cluster {
    dir: String,
    data: String,
    log: String,
    pg_ctl: PathBuf,
    root: bool,
    /// The write end of the watchdog's standard input, never closed while
    /// the binary runs: its end of file tells the watchdog to clean up.
    _watchdog: Option<ChildStdin>,
}

impl Cluster {
    /// A new cluster of `bin`'s programs (created, not started).
    fn init(bin: &Path) -> Result<Cluster, String> {
        let root = is_root();
        let dir: PathBuf = tempfile::Builder::new()
            .prefix("krypto-pg-")
            .tempdir()
            .map_err(|e| format!("a temporary directory: {e}"))?
            .keep();
        let text = |p: &Path| {
            p.to_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("{} is not UTF-8", p.display()))
        };
        let (dir_s, data) = (text(&dir)?, text(&dir.join("data"))?);
        let (log, pg_ctl) = (text(&dir.join("log"))?, bin.join("pg_ctl"));
        if root {
            run(
                command(Path::new("chown"), &["-R", "postgres", &dir_s], false),
                "chown",
            )?;
        }
        run(
            command(
                &bin.join("initdb"),
                &[&["-D", data.as_str()], INITDB_ARGS].concat(),
                root,
            ),
            "initdb",
        )?;
        // The watchdog waits for the end of its standard input, which comes
        // when this binary exits however it exits; it runs in a process
        // group of its own so a Ctrl-C to the tests does not stop it first.
        let stop = format!(
            "{as_postgres}'{pg_ctl}' -D '{data}' -m immediate stop",
            as_postgres = if root { "runuser -u postgres -- " } else { "" },
            pg_ctl = text(&pg_ctl)?,
        );
        let mut watchdog = Command::new("sh")
            .args(["-c", &format!("cat >/dev/null; {stop}; rm -rf '{dir_s}'")])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("the cluster's watchdog: {e}"))?;
        Ok(Cluster {
            dir: dir_s,
            data,
            log,
            pg_ctl,
            root,
            _watchdog: watchdog.stdin.take(),
        })
    }

    /// A started cluster of this test's own, to stop and start — or `None`
    /// when there is no PostgreSQL on this machine (the test is skipped,
    /// see [`available`]).
    pub fn own() -> Option<Cluster> {
        if !available() {
            return None;
        }
        let bin = bin_dir().unwrap_or_else(|missing| panic!("{missing}"));
        let cluster = Cluster::init(&bin).unwrap_or_else(|e| panic!("{e}"));
        cluster.start();
        Some(cluster)
    }

    fn pg_ctl(&self, args: &[&str], what: &str) -> Result<(), String> {
        let mut all = vec!["-D", self.data.as_str()];
        all.extend_from_slice(args);
        run(command(&self.pg_ctl, &all, self.root), what)
    }

    fn try_start(&self) -> Result<(), String> {
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=400",
            self.dir
        );
        self.pg_ctl(
            &["-o", &options, "-l", &self.log, "-w", "start"],
            "pg_ctl start",
        )
    }

    /// Starts the cluster and waits until it takes connections.
    pub fn start(&self) {
        self.try_start().unwrap_or_else(|e| panic!("{e}"));
    }

    /// Stops the cluster as an operator would for a restart, `-m fast`:
    /// every connection is closed, the data is kept.
    pub fn stop(&self) {
        self.pg_ctl(&["-m", "fast", "-w", "stop"], "pg_ctl stop")
            .unwrap_or_else(|e| panic!("{e}"));
    }

    fn template(&self) -> String {
        format!("postgres://postgres@localhost/{{db}}?host={}", self.dir)
    }

    /// A new, empty database in this cluster; returns its URL.
    pub async fn fresh_database(&self) -> String {
        create_database(&self.template()).await
    }
}

/// Starts a cluster of `bin`'s programs in a new temporary directory.
fn start_cluster(bin: &Path) -> Result<Admin, String> {
    let cluster = Cluster::init(bin)?;
    cluster.try_start()?;
    Ok(Admin {
        template: cluster.template(),
        _cluster: Some(cluster),
    })
}

/// The server named by `KRYPTO_TEST_POSTGRES_URL`, with the placeholder
/// where its database's name was.
fn given_server(url: &str) -> Result<Admin, String> {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let (server, _) = base
        .rsplit_once('/')
        .ok_or_else(|| format!("KRYPTO_TEST_POSTGRES_URL={url} has no database name"))?;
    let template = match query {
        Some(q) => format!("{server}/{{db}}?{q}"),
        None => format!("{server}/{{db}}"),
    };
    Ok(Admin {
        template,
        _cluster: None,
    })
}

fn admin() -> &'static Result<Admin, Unavailable> {
    ADMIN.get_or_init(|| match std::env::var("KRYPTO_TEST_POSTGRES_URL") {
        Ok(url) => given_server(&url).map_err(Unavailable::Broken),
        Err(_) => match bin_dir() {
            Ok(bin) => start_cluster(&bin)
                .map_err(|e| Unavailable::Broken(format!("PostgreSQL in {}: {e}", bin.display()))),
            Err(missing) => Err(Unavailable::Missing(missing)),
        },
    })
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
            let required = std::env::var("KRYPTO_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
            assert!(!required, "KRYPTO_REQUIRE_POSTGRES=1 but {missing}");
            static SAID: Once = Once::new();
            SAID.call_once(|| {
                // Straight to the standard error: the test harness captures
                // only `eprintln!`, and this line is for the person running
                // the tests.
                let _ = writeln!(
                    std::io::stderr(),
                    "skipped: the PostgreSQL tests of {} — {missing}; install PostgreSQL \
                     {OLDEST_MAJOR}+ or set KRYPTO_TEST_POSTGRES_URL to run them",
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
