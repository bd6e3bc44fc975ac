//! TLS to PostgreSQL, as libpq spells it in the URL: `sslmode` (`disable`, `prefer` (the
//! default), `require`, `verify-ca`, `verify-full`) and `sslrootcert` (a PEM file of the CAs to
//! trust, or `system` for the usual public roots; default `~/.postgresql/root.crt`), with
//! rustls.
//!
//! As with libpq: `prefer` and `require` encrypt without checking the server's certificate
//! (unless `sslrootcert` is given, when `require` checks it like `verify-ca`); `verify-ca`
//! checks that a trusted CA signed it; `verify-full` also that it names the host connected to.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};

use crate::store::{Result, StoreError};

/// How a connection uses TLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "disable" => Self::Disable,
            "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            _ => return None,
        })
    }
}

/// What a URL says about TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    pub mode: SslMode,
    /// `sslrootcert`: a PEM file, or `system`.
    pub root_cert: Option<String>,
}

/// Takes `sslmode` and `sslrootcert` out of a URL's query (the driver knows neither
/// `verify-ca`/`verify-full` nor `sslrootcert`): the URL without them, and the settings.
pub fn split_url(url: &str) -> Result<(String, TlsSettings)> {
    let mut settings = TlsSettings { mode: SslMode::Prefer, root_cert: None };
    let Some((base, query)) = url.split_once('?') else { return Ok((url.to_owned(), settings)) };
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let value = form_urlencoded::parse(format!("v={v}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        match k {
            "sslmode" => {
                settings.mode = SslMode::parse(&value).ok_or_else(|| {
                    StoreError::Io(format!(
                        "sslmode `{value}` is not one of disable, prefer, require, verify-ca, \
                         verify-full"
                    ))
                })?;
            }
            "sslrootcert" => settings.root_cert = Some(value),
            _ => kept.push(pair),
        }
    }
    let url = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
    Ok((url, settings))
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The CAs `sslrootcert` names (default `~/.postgresql/root.crt`, as libpq).
fn roots(root_cert: Option<&str>) -> Result<RootCertStore> {
    let mut store = RootCertStore::empty();
    if root_cert == Some("system") {
        store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        return Ok(store);
    }
    let path = match root_cert {
        Some(p) => PathBuf::from(p),
        None => std::env::var_os("HOME")
            .map(|h| Path::new(&h).join(".postgresql/root.crt"))
            .ok_or_else(|| StoreError::Io("sslrootcert is needed to verify the server".into()))?,
    };
    let certs = CertificateDer::pem_file_iter(&path)
        .and_then(|it| it.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| {
            StoreError::Io(format!(
                "cannot read the CA certificates in {} (sslrootcert): {e}",
                path.display()
            ))
        })?;
    for c in certs {
        store.add(c).map_err(|e| {
            StoreError::Io(format!("a certificate in {} is unusable: {e}", path.display()))
        })?;
    }
    if store.is_empty() {
        return Err(StoreError::Io(format!(
            "{} holds no certificate (sslrootcert)",
            path.display()
        )));
    }
    Ok(store)
}

/// How the server's certificate is checked: against trusted roots (and the host name only if
/// `full`), or, with no roots (`prefer`, `require`), not at all — the connection is encrypted
/// and the server unauthenticated, as libpq does. The handshake's signatures are always
/// checked.
#[derive(Debug)]
struct Verify {
    roots: Option<Arc<WebPkiServerVerifier>>,
    full: bool,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Verify {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let Some(roots) = &self.roots else { return Ok(ServerCertVerified::assertion()) };
        match roots.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForNameContext { .. },
            )) if !self.full => Ok(ServerCertVerified::assertion()),
            r => r,
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        let algs = &self.provider.signature_verification_algorithms;
        rustls::crypto::verify_tls12_signature(message, cert, dss, algs)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        let algs = &self.provider.signature_verification_algorithms;
        rustls::crypto::verify_tls13_signature(message, cert, dss, algs)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

/// The rustls client configuration `settings` ask for (`None` for `disable`).
pub fn client_config(settings: &TlsSettings) -> Result<Option<rustls::ClientConfig>> {
    let provider = provider();
    let verify = match settings.mode {
        SslMode::Disable => return Ok(None),
        SslMode::Prefer | SslMode::Require if settings.root_cert.is_none() => None,
        SslMode::Prefer | SslMode::Require | SslMode::VerifyCa => Some(false),
        SslMode::VerifyFull => Some(true),
    };
    let builder = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| StoreError::Io(format!("TLS: {e}")))?;
    let (roots, full) = match verify {
        None => (None, false),
        Some(full) => {
            let roots = Arc::new(roots(settings.root_cert.as_deref())?);
            let verifier =
                WebPkiServerVerifier::builder_with_provider(roots, Arc::clone(&provider))
                    .build()
                    .map_err(|e| StoreError::Io(format!("TLS: {e}")))?;
            (Some(verifier), full)
        }
    };
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Verify { roots, full, provider }))
        .with_no_client_auth();
    Ok(Some(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_settings_are_taken_out_of_the_url() {
        let (url, s) = split_url(
            "postgres://u@h:5432/db?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&connect_timeout=3",
        )
        .unwrap();
        assert_eq!(url, "postgres://u@h:5432/db?connect_timeout=3");
        assert_eq!(s.mode, SslMode::VerifyFull);
        assert_eq!(s.root_cert.as_deref(), Some("/etc/ca.pem"));
        let (url, s) = split_url("postgres://u@h/db").unwrap();
        assert_eq!((url.as_str(), s.mode), ("postgres://u@h/db", SslMode::Prefer));
        let e = split_url("postgres://u@h/db?sslmode=always").unwrap_err();
        assert!(e.to_string().contains("`always`"), "{e}");
    }

    #[test]
    fn a_missing_root_file_is_a_clear_error() {
        let s = TlsSettings { mode: SslMode::VerifyCa, root_cert: Some("/no/such/ca.pem".into()) };
        let e = client_config(&s).unwrap_err().to_string();
        assert!(e.contains("/no/such/ca.pem"), "{e}");
        let s = TlsSettings { mode: SslMode::Require, root_cert: None };
        assert!(client_config(&s).unwrap().is_some());
        let s = TlsSettings { mode: SslMode::Disable, root_cert: None };
        assert!(client_config(&s).unwrap().is_none());
    }
}
