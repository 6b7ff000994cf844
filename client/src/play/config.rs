//! Where the client keeps its settings and identities: `config.toml` (default
//! server and name) and `tokens.toml` (the secret token per server and name,
//! readable by the user only) in the platform's config directory.
//!
//! `KRYPTO_CONFIG_DIR` overrides the directory, so tests and several
//! identities on one machine do not share files.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The server used when neither `--server` nor the config names one.
pub const DEFAULT_SERVER: &str = "ws://127.0.0.1:7878/ws";

/// Environment variable that replaces the platform config directory.
pub const CONFIG_DIR_ENV: &str = "KRYPTO_CONFIG_DIR";

/// Why the config could not be read or written.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// Neither `KRYPTO_CONFIG_DIR` nor a home directory is known.
    #[error("no config directory: set {CONFIG_DIR_ENV}")]
    NoDir,
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A file is not valid TOML of the expected shape.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// A server address that is not a WebSocket URL.
    #[error("{0:?} is not a server address: use ws://HOST:PORT (or HOST:PORT)")]
    BadUrl(String),
}

/// `config.toml`: what the user set once so they need not type it again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The server to use without `--server`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The name to play under without `--name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `tokens.toml`: server URL → lowercased name → token. Keyed by name too,
/// so bots and a second name on the same server never rename the player.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
struct Tokens {
    servers: BTreeMap<String, BTreeMap<String, String>>,
}

/// The config directory and the files in it.
#[derive(Debug, Clone)]
pub struct ConfigDir {
    /// The directory itself (created on the first write).
    pub dir: PathBuf,
}

impl ConfigDir {
    /// `KRYPTO_CONFIG_DIR`, or the platform's config dir for "krypto".
    pub fn locate() -> Result<ConfigDir, ConfigError> {
        if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV).filter(|d| !d.is_empty()) {
            return Ok(ConfigDir { dir: dir.into() });
        }
        let dirs = directories::ProjectDirs::from("", "", "krypto").ok_or(ConfigError::NoDir)?;
        Ok(ConfigDir {
            dir: dirs.config_dir().to_path_buf(),
        })
    }

    fn settings_path(&self) -> PathBuf {
        self.dir.join("config.toml")
    }

    fn tokens_path(&self) -> PathBuf {
        self.dir.join("tokens.toml")
    }

    /// The settings; defaults when the file does not exist.
    pub fn settings(&self) -> Result<Settings, ConfigError> {
        read_toml(&self.settings_path())
    }

    /// Writes the settings.
    pub fn save_settings(&self, settings: &Settings) -> Result<(), ConfigError> {
        write_toml(&self.settings_path(), settings, false)
    }

    /// The token for `name` on `server`, if one was saved.
    pub fn token(&self, server: &str, name: &str) -> Result<Option<String>, ConfigError> {
        let tokens: Tokens = read_toml(&self.tokens_path())?;
        Ok(tokens
            .servers
            .get(server)
            .and_then(|names| names.get(&name_key(name)))
            .cloned())
    }

    /// Saves the token for `name` on `server` (file mode 0600).
    pub fn save_token(&self, server: &str, name: &str, token: &str) -> Result<(), ConfigError> {
        let mut tokens: Tokens = read_toml(&self.tokens_path())?;
        let slot = tokens
            .servers
            .entry(server.to_owned())
            .or_default()
            .entry(name_key(name))
            .or_default();
        if slot == token {
            return Ok(());
        }
        token.clone_into(slot);
        write_toml(&self.tokens_path(), &tokens, true)
    }
}

/// Names are unique ignoring case and surrounding space, as on the server.
fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

fn read_toml<T: for<'de> Deserialize<'de> + Default>(path: &Path) -> Result<T, ConfigError> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(T::default()),
        Err(source) => {
            return Err(ConfigError::Io {
                path: path.to_owned(),
                source,
            })
        }
    };
    toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

/// Writes through a temporary file and a rename, so a crash never leaves a
/// half-written file; `secret` files are created with mode 0600.
fn write_toml<T: Serialize>(path: &Path, value: &T, secret: bool) -> Result<(), ConfigError> {
    let io = |source| ConfigError::Io {
        path: path.to_owned(),
        source,
    };
    let text = toml::to_string(value).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(io)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = secret;
    let mut file = options.open(&tmp).map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)?;
    file.sync_all().map_err(io)?;
    drop(file);
    fs::rename(&tmp, path).map_err(io)
}

/// Normalises a server address: `HOST:PORT`, `ws://HOST:PORT` and
/// `ws://HOST:PORT/ws` all become `ws://HOST:PORT/ws` (likewise `wss://`),
/// so one server has one key in the token file.
pub fn normalize_server(raw: &str) -> Result<String, ConfigError> {
    let raw = raw.trim();
    let bad = || ConfigError::BadUrl(raw.to_owned());
    let (scheme, rest) = match raw.split_once("://") {
        Some((s, rest)) => (s.to_ascii_lowercase(), rest),
        None => ("ws".to_owned(), raw),
    };
    let scheme = match scheme.as_str() {
        "ws" | "http" => "ws",
        "wss" | "https" => "wss",
        _ => return Err(bad()),
    };
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if host.is_empty() || host.contains(char::is_whitespace) {
        return Err(bad());
    }
    let path = if path.is_empty() || path == "/" {
        "/ws"
    } else {
        path
    };
    Ok(format!("{scheme}://{host}{path}"))
}

/// The HTTP base (`http://HOST:PORT`) of the server at WebSocket `url`.
pub fn http_base(url: &str) -> Result<String, ConfigError> {
    let url = normalize_server(url)?;
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| ConfigError::BadUrl(url.clone()))?;
    let host = rest.split('/').next().unwrap_or(rest);
    let scheme = if scheme == "wss" { "https" } else { "http" };
    Ok(format!("{scheme}://{host}"))
}

/// A name to play under when none was given: the login name, cleaned to the
/// server's rules (letters, digits, space, `-`, `_`; at most 20 characters).
pub fn fallback_name() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_default();
    let clean: String = user
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .take(20)
        .collect();
    // The server's rule decides (a login of digits only has no letter).
    krypto_core::names::validate(&clean).map_or_else(|_| "Player".to_owned(), |n| n.display)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn server_addresses_are_normalised() {
        let n = |s| normalize_server(s).unwrap();
        assert_eq!(n("localhost:7878"), "ws://localhost:7878/ws");
        assert_eq!(n("ws://10.0.0.2:7878"), "ws://10.0.0.2:7878/ws");
        assert_eq!(n("ws://10.0.0.2:7878/"), "ws://10.0.0.2:7878/ws");
        assert_eq!(n("wss://k.example/ws"), "wss://k.example/ws");
        assert!(normalize_server("ftp://x").is_err());
        assert!(normalize_server("").is_err());
        assert_eq!(http_base("ws://h:1/ws").unwrap(), "http://h:1");
        assert_eq!(http_base("wss://h/ws").unwrap(), "https://h");
    }

    #[test]
    fn tokens_are_kept_per_server_and_name_with_mode_0600() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ConfigDir {
            dir: tmp.path().join("krypto"),
        };
        assert_eq!(dir.token("ws://a/ws", "Ann").unwrap(), None);
        dir.save_token("ws://a/ws", "Ann", "t1").unwrap();
        dir.save_token("ws://a/ws", "Bot Ada", "t2").unwrap();
        dir.save_token("ws://b/ws", "Ann", "t3").unwrap();
        assert_eq!(
            dir.token("ws://a/ws", "ann").unwrap().as_deref(),
            Some("t1")
        );
        assert_eq!(
            dir.token("ws://a/ws", "Bot Ada").unwrap().as_deref(),
            Some("t2")
        );
        assert_eq!(
            dir.token("ws://b/ws", "Ann").unwrap().as_deref(),
            Some("t3")
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.dir.join("tokens.toml"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let s = Settings {
            server: Some("ws://a/ws".into()),
            name: Some("Ann".into()),
        };
        dir.save_settings(&s).unwrap();
        assert_eq!(dir.settings().unwrap(), s);
    }
}
