//! PostgreSQL URLs and passwords: a URL never carries a password; it comes from a password
//! file, `PGPASSWORD`, or `~/.pgpass` as libpq reads it.

use std::path::Path;

use crate::store::{Result, StoreError};

/// Whether a store URL names a PostgreSQL database.
pub fn is_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Parses a store URL; a password in it is refused (it would end up in `config.json`,
/// process listings and shell histories).
pub fn parse_url(url: &str) -> Result<tokio_postgres::Config> {
    if !is_url(url) {
        return Err(StoreError::Io(format!(
            "`{}` is not a PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE)",
            redact(url)
        )));
    }
    // TLS settings the driver does not know are read by `tls::split_url` when connecting.
    let (plain, tls) = super::tls::split_url(url)?;
    let mut cfg: tokio_postgres::Config = plain.parse().map_err(|e| {
        StoreError::Io(format!("the PostgreSQL URL `{}` is malformed: {e}", redact(url)))
    })?;
    cfg.ssl_mode(match tls.mode {
        super::tls::SslMode::Disable => tokio_postgres::config::SslMode::Disable,
        super::tls::SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
        _ => tokio_postgres::config::SslMode::Require,
    });
    if cfg.get_password().is_some() {
        return Err(StoreError::Io(format!(
            "the PostgreSQL URL `{}` carries a password; give it in PGPASSWORD or a password \
             file (--store-password-file) instead",
            redact(url)
        )));
    }
    Ok(cfg)
}

/// A URL with any password replaced by `***`, for messages.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let (auth_end, _) =
        rest.char_indices().find(|&(_, c)| c == '/' || c == '?').unwrap_or((rest.len(), ' '));
    let (authority, tail) = rest.split_at(auth_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// The password to connect with: from `password_file` (its first line), else `PGPASSWORD`,
/// else the `PGPASSFILE` or `~/.pgpass` entry matching the connection, as libpq does.
pub fn resolve_password(
    cfg: &tokio_postgres::Config,
    password_file: Option<&Path>,
) -> Result<Option<Vec<u8>>> {
    if let Some(path) = password_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            StoreError::Io(format!("cannot read the password file {}: {e}", path.display()))
        })?;
        let line = text.lines().next().unwrap_or("");
        return Ok(Some(line.as_bytes().to_vec()));
    }
    if let Some(p) = std::env::var_os("PGPASSWORD") {
        return Ok(Some(p.into_encoded_bytes()));
    }
    let passfile = std::env::var_os("PGPASSFILE")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".pgpass")));
    let Some(passfile) = passfile else { return Ok(None) };
    let Ok(text) = std::fs::read_to_string(&passfile) else { return Ok(None) };
    let host = match cfg.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_owned(),
    };
    let port = cfg.get_ports().first().copied().unwrap_or(5432).to_string();
    let user = user_of(cfg);
    let db = cfg.get_dbname().map_or_else(|| user.clone(), str::to_owned);
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        let fields = split_pgpass(line);
        if fields.len() != 5 {
            continue;
        }
        let want = [&host, &port, &db, &user];
        if fields.iter().zip(want).all(|(f, w)| f == "*" || f == w) {
            return Ok(Some(fields[4].as_bytes().to_vec()));
        }
    }
    Ok(None)
}

/// A `.pgpass` line's fields (`:` separated, `\:` and `\\` escaped).
fn split_pgpass(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.last_mut().expect("never empty").push(n);
                }
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    out
}

pub(super) fn user_of(cfg: &tokio_postgres::Config) -> String {
    cfg.get_user()
        .map(str::to_owned)
        .or_else(|| std::env::var("PGUSER").ok())
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_else(|| "postgres".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_and_passwords_never_shown() {
        assert!(is_url("postgres://u@h/db") && is_url("postgresql://u@h:5433/db"));
        assert!(!is_url("sqlite:locker.db"));
        assert!(parse_url("postgres://u@127.0.0.1:5432/db").is_ok());
        let Err(e) = parse_url("postgres://u:hunter2@h/db") else {
            panic!("a password in the URL is refused")
        };
        assert!(!e.to_string().contains("hunter2"), "{e}");
        assert!(e.to_string().contains("u:***@h"), "{e}");
        assert_eq!(redact("postgres://u:pw@h:1/db?x=1"), "postgres://u:***@h:1/db?x=1");
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert!(parse_url("mysql://u@h/db").is_err());
    }

    #[test]
    fn pgpass_lines_split_with_escapes() {
        assert_eq!(split_pgpass(r"h:5432:db:u:p\:w\\d"), ["h", "5432", "db", "u", r"p:w\d"]);
        assert_eq!(split_pgpass("*:*:*:*:x").len(), 5);
    }
}
