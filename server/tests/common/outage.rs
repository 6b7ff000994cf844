//! Faults to cause on purpose: a PostgreSQL cluster of the test's own that
//! it stops and starts (the shared one of [`super::postgres`] serves other
//! tests and must stay up), and a small file system that fills up.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::postgres::{bin_dir, INITDB_ARGS};

/// A throwaway PostgreSQL cluster owned by one test, listening on a unix
/// socket in its own directory; stopped and removed when dropped.
pub struct OwnCluster {
    bin: PathBuf,
    dir: tempfile::TempDir,
    as_postgres: bool,
}

impl OwnCluster {
    /// Makes the cluster (`initdb`) and starts it; `None` (the test is
    /// skipped, and says so) on a machine without PostgreSQL's programs,
    /// unless `KRYPTO_REQUIRE_POSTGRES=1`.
    pub fn start() -> Option<OwnCluster> {
        let bin = match bin_dir() {
            Ok(bin) => bin,
            Err(missing) => {
                let required = std::env::var("KRYPTO_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
                assert!(!required, "KRYPTO_REQUIRE_POSTGRES=1 but {missing}");
                eprintln!(
                    "skipped: this test stops and starts a PostgreSQL of its own — {missing}"
                );
                return None;
            }
        };
        let dir = tempfile::Builder::new()
            .prefix("krypto-outage-pg-")
            .tempdir()
            .unwrap();
        let as_postgres = running_as_root();
        if as_postgres {
            ok(
                Command::new("chown")
                    .args(["-R", "postgres"])
                    .arg(dir.path())
                    .output(),
                "chown",
            );
        }
        let cluster = OwnCluster {
            bin,
            dir,
            as_postgres,
        };
        let data = cluster.data();
        ok(
            cluster
                .pg("initdb")
                .arg("-D")
                .arg(&data)
                .args(INITDB_ARGS)
                .output(),
            "initdb",
        );
        cluster.up();
        Some(cluster)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// `program` of PostgreSQL's, run as the `postgres` user when root.
    fn pg(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    /// The URL of its `postgres` database.
    pub fn url(&self) -> String {
        format!(
            "postgres://postgres@localhost/postgres?host={}",
            self.dir.path().display()
        )
    }

    /// Starts the cluster and waits until it accepts connections.
    pub fn up(&self) {
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c max_connections=100",
            self.dir.path().display()
        );
        ok(
            self.pg("pg_ctl")
                .arg("-D")
                .arg(self.data())
                .args(["-o", &options, "-l"])
                .arg(self.dir.path().join("log"))
                .args(["-w", "start"])
                .output(),
            "pg_ctl start",
        );
    }

    /// Stops the cluster (`-m fast`: every connection is cut, as in a
    /// restart for an upgrade) and waits until it is down.
    pub fn down(&self) {
        ok(
            self.pg("pg_ctl")
                .arg("-D")
                .arg(self.data())
                .args(["-m", "fast", "-w", "stop"])
                .output(),
            "pg_ctl stop",
        );
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let _ = self
            .pg("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }
}

/// A tmpfs of `bytes` mounted on a new directory, unmounted when dropped;
/// `None` where mounting is not allowed (not root, or in a container
/// without the right).
pub struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    pub fn mount(bytes: u64) -> Option<SmallDisk> {
        let dir = tempfile::Builder::new()
            .prefix("krypto-small-disk-")
            .tempdir()
            .ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}")])
            .arg("tmpfs")
            .arg(dir.path())
            .output()
            .ok()?;
        mounted.status.success().then_some(SmallDisk { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills the disk up with a file `name`, to the last byte.
    pub fn fill(&self, name: &str) {
        use std::io::Write;
        let mut file = std::fs::File::create(self.path().join(name)).unwrap();
        let block = vec![0u8; 64 * 1024];
        loop {
            match file.write(&block) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        let _ = file.sync_all();
    }

    /// Frees what [`SmallDisk::fill`] took.
    pub fn free(&self, name: &str) {
        std::fs::remove_file(self.path().join(name)).unwrap();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Lazily: a file still open on it (a connection not yet closed)
        // must not leave the mount behind.
        let _ = Command::new("umount")
            .arg("--lazy")
            .arg(self.dir.path())
            .output();
    }
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

fn ok(output: std::io::Result<Output>, what: &str) {
    let out = output.unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Files made read-only under a running server: immutable (`chattr +i`),
/// which holds for root too and for descriptors already open (a write
/// through one fails with `EPERM`, as on a file system the kernel made
/// read-only); made writable again when dropped.
pub struct ReadOnly {
    files: Vec<PathBuf>,
}

impl ReadOnly {
    /// Makes `files` immutable; `None` where that is not allowed (not root,
    /// or a file system without the attribute).
    pub fn make(files: &[PathBuf]) -> Option<ReadOnly> {
        if !running_as_root() {
            return None;
        }
        let made = Command::new("chattr").arg("+i").args(files).output().ok()?;
        let guard = ReadOnly {
            files: files.to_vec(),
        };
        made.status.success().then_some(guard)
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").args(&self.files).output();
    }
}
