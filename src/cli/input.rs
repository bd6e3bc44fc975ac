//! Reading secrets and payloads from flags, environment variables, files and stdin.

use std::io::{IsTerminal as _, Read as _};
use std::path::{Path, PathBuf};

use clap::Args;

use crate::domain::secret::Secret;
use crate::ops::OpError;

/// A pad's write key.
#[derive(Debug, Clone, Args)]
pub struct KeyArgs {
    /// The pad's write key
    #[arg(
        long,
        env = "LOCKER_WRITE_KEY",
        hide_env_values = true,
        value_name = "KEY",
        allow_hyphen_values = true
    )]
    pub key: Option<String>,
    /// Read the write key from FILE (first line)
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
}

impl KeyArgs {
    pub fn secret(&self) -> Result<Option<Secret>, OpError> {
        secret_from(self.key.as_deref(), self.key_file.as_deref())
    }
}

/// A read ticket.
#[derive(Debug, Clone, Args)]
pub struct TicketArgs {
    /// A read ticket for the pad
    #[arg(
        long,
        env = "LOCKER_TICKET",
        hide_env_values = true,
        value_name = "TICKET",
        allow_hyphen_values = true
    )]
    pub ticket: Option<String>,
    /// Read the ticket from FILE (first line)
    #[arg(long, value_name = "FILE")]
    pub ticket_file: Option<PathBuf>,
}

impl TicketArgs {
    pub fn secret(&self) -> Result<Option<Secret>, OpError> {
        secret_from(self.ticket.as_deref(), self.ticket_file.as_deref())
    }
}

fn secret_from(value: Option<&str>, file: Option<&Path>) -> Result<Option<Secret>, OpError> {
    if let Some(path) = file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            OpError::bad_request(format!("cannot read secret file {}: {e}", path.display()))
        })?;
        let line = text.lines().next().unwrap_or("").trim();
        if line.is_empty() {
            return Err(OpError::bad_request(format!("secret file {} is empty", path.display())));
        }
        return Ok(Some(Secret::new(line)));
    }
    Ok(value.map(|v| Secret::new(v.trim())))
}

/// Reads at most `limit + 1` bytes from FILE, `-` (stdin) or, when neither is given, stdin
/// if it is not a terminal. Returns the bytes (longer than `limit` means over the limit).
pub fn read_payload(file: Option<&Path>, limit: usize) -> Result<Vec<u8>, OpError> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut buf = Vec::new();
    match file {
        Some(p) if p != Path::new("-") => {
            let f = std::fs::File::open(p)
                .map_err(|e| OpError::bad_request(format!("cannot read {}: {e}", p.display())))?;
            f.take(cap)
                .read_to_end(&mut buf)
                .map_err(|e| OpError::bad_request(format!("cannot read {}: {e}", p.display())))?;
        }
        explicit => {
            let stdin = std::io::stdin();
            if explicit.is_none() && stdin.is_terminal() {
                return Err(OpError::usage(
                    "no payload given: pass a FILE, `-` for stdin, or --data TEXT",
                ));
            }
            stdin
                .lock()
                .take(cap)
                .read_to_end(&mut buf)
                .map_err(|e| OpError::bad_request(format!("cannot read stdin: {e}")))?;
        }
    }
    Ok(buf)
}

/// Writes `bytes` to `path` atomically: a temporary file (mode 0600) in the same directory,
/// synced, then renamed over `path`. A failure leaves `path` as it was.
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> Result<(), OpError> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let fail =
        |e: std::io::Error| OpError::unavailable(format!("cannot write {}: {e}", path.display()));
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| OpError::usage(format!("{} is not a file name", path.display())))?;
    let tmp =
        dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), crate::domain::secret::random_id()));
    let written = (|| {
        let mut f =
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    Ok(())
}

/// An agent's signing key, for signed appends, publishes and steps.
#[derive(Debug, Clone, Args)]
pub struct SignArgs {
    /// Sign the write with the agent key in FILE (from `locker key generate`); the variable
    /// may also hold the `PRIVATE+KEY+…` line itself
    #[arg(long, env = "LOCKER_SIGN_KEY", hide_env_values = true, value_name = "FILE")]
    pub sign_key: Option<String>,
}

impl SignArgs {
    /// The signing to attach to the write, if a key was given.
    pub fn signing(&self) -> Result<Option<crate::ops::keys::Signing>, OpError> {
        let Some(v) = self.sign_key.as_deref().map(str::trim).filter(|v| !v.is_empty()) else {
            return Ok(None);
        };
        let text = if v.starts_with(crate::domain::key::PRIVATE_PREFIX) {
            v.to_owned()
        } else {
            std::fs::read_to_string(v).map_err(|e| {
                OpError::bad_request(format!("cannot read signing key file {v}: {e}"))
            })?
        };
        let key = crate::ops::keys::parse_private_key(text.lines().next().unwrap_or(""))?;
        Ok(Some(crate::ops::keys::Signing::Key(key)))
    }
}
