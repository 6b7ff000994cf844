//! Faults to cause on purpose: a small file system that fills up, and files
//! made read-only. (A PostgreSQL cluster of the test's own to stop and start
//! is [`super::postgres::Cluster`].)

use std::path::{Path, PathBuf};
use std::process::Command;

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
