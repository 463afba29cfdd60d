//! Server TLS that follows certificate rotation without a restart.
//!
//! [`ReloadingTls::load`] reads the PEM files named by [`TlsFiles`], checks them (every
//! certificate parses, the private key matches the leaf certificate, the client CAs parse) and
//! builds a rustls [`ServerConfig`] that offers the ALPN protocol `h2` only and, when
//! [`TlsFiles::client_ca`] is set, requires a client certificate signed by one of those CAs.
//!
//! [`ReloadingTls::reload`] reads the files again and, when their contents changed, swaps in a
//! new configuration; a broken file (half written, or a key that does not match the certificate)
//! is refused and the previous configuration stays. [`ReloadingTls::watch`] does that
//! periodically, for the lifetime of the server. The files' contents are compared, not their
//! modification times: a Kubernetes Secret volume updates its files by re-pointing the `..data`
//! symbolic link, which changes no modification time of the paths the server was given.
//!
//! The accept loop must ask for an acceptor for each new connection, so that new handshakes use
//! the current certificate, while established connections keep the session they negotiated:
//!
//! ```no_run
//! use std::{sync::Arc, time::Duration};
//!
//! use arbiter_server::tls::{ReloadingTls, TlsFiles};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let tls = Arc::new(ReloadingTls::load(TlsFiles {
//!     cert: "/etc/arbiter/tls/tls.crt".into(),
//!     key: "/etc/arbiter/tls/tls.key".into(),
//!     client_ca: None,
//! })?);
//! tokio::spawn(Arc::clone(&tls).watch(Duration::from_secs(30)));
//! let listener = tokio::net::TcpListener::bind("[::]:8443").await?;
//! loop {
//!     let (tcp, _peer) = listener.accept().await?;
//!     let acceptor = tls.acceptor(); // per connection, not once before the loop
//!     tokio::spawn(async move {
//!         if let Ok(stream) = acceptor.accept(tcp).await {
//!             // serve HTTP/2 on `stream`
//! #           drop(stream);
//!         }
//!     });
//! }
//! # }
//! ```

use std::{
    fmt, io,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError, RwLock},
    time::Duration,
};

use tokio_rustls::{
    TlsAcceptor,
    rustls::{
        self, InconsistentKeys, RootCertStore, ServerConfig,
        crypto::CryptoProvider,
        pki_types::{
            CertificateDer, PrivateKeyDer,
            pem::{self, PemObject as _},
        },
        server::WebPkiClientVerifier,
        sign::{CertifiedKey, SingleCertAndKey},
    },
};

/// The ALPN protocols offered: gRPC runs over HTTP/2 only.
const ALPN_H2: &[u8] = b"h2";

/// The PEM files of the server's TLS identity and, for mutual TLS, of the CAs of its clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// PEM certificate chain of the server, its own certificate first.
    pub cert: PathBuf,
    /// PEM private key of the server certificate (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// PEM certificates of the CAs that sign client certificates: when set, every client must
    /// present a certificate signed by one of them (mutual TLS).
    pub client_ca: Option<PathBuf>,
}

/// Why TLS files could not be loaded; each error names the file at fault.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The read error.
        source: io::Error,
    },
    /// A file is not valid PEM (for instance half written: a section without its end line).
    #[error("{path} is not valid PEM: {source}")]
    Pem {
        /// The file.
        path: PathBuf,
        /// What is wrong with the PEM text.
        source: pem::Error,
    },
    /// A certificate file holds no `CERTIFICATE` section.
    #[error("{path} holds no certificate")]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// A certificate of a file is not a valid X.509 certificate.
    #[error("{path}: certificate #{position} is not a valid X.509 certificate: {reason}")]
    BadCertificate {
        /// The file.
        path: PathBuf,
        /// The place of the certificate in the file, 1 for the first.
        position: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The key file holds no private key section.
    #[error("{path} holds no private key")]
    NoPrivateKey {
        /// The file.
        path: PathBuf,
    },
    /// The private key cannot be used (unknown or malformed key).
    #[error("{path}: unusable private key: {source}")]
    BadKey {
        /// The file.
        path: PathBuf,
        /// Why rustls refuses it.
        source: rustls::Error,
    },
    /// The private key is not the key of the server certificate.
    #[error("the private key {key} does not match the certificate {cert}")]
    KeyMismatch {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
    },
    /// The client CA certificates cannot be used to verify clients.
    #[error("{path}: unusable client CA: {reason}")]
    BadClientCa {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// rustls refused to build a configuration (not expected with valid files).
    #[error("cannot build the TLS configuration: {0}")]
    Config(rustls::Error),
}

/// A TLS server configuration read from files, which [`reload`](Self::reload) replaces when the
/// files change. Share it with an [`Arc`]; every method takes `&self`.
pub struct ReloadingTls {
    files: TlsFiles,
    current: RwLock<Current>,
    /// Serializes reloads, so that the configuration in use always matches `current.contents`.
    reloading: Mutex<()>,
}

/// The configuration in use and the file contents it was built from.
struct Current {
    contents: Contents,
    config: Arc<ServerConfig>,
}

/// The bytes of the files, compared as a whole at each reload (a few kilobytes).
#[derive(PartialEq, Eq)]
struct Contents {
    cert: Vec<u8>,
    key: Vec<u8>,
    client_ca: Option<Vec<u8>>,
}

/// What the log says of a newly loaded certificate.
struct Summary {
    subject: String,
    not_after: String,
}

impl fmt::Debug for ReloadingTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the contents: they hold the private key.
        f.debug_struct("ReloadingTls")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl ReloadingTls {
    /// Reads and checks the files of `files` and builds the TLS configuration.
    ///
    /// # Errors
    ///
    /// Returns a [`TlsError`] naming the file at fault when a file cannot be read, holds no
    /// certificate or key, a certificate does not parse, the key does not match the
    /// certificate, or the client CAs cannot be used.
    pub fn load(files: TlsFiles) -> Result<Self, TlsError> {
        let contents = Contents::read(&files)?;
        let (config, _) = build(&files, &contents)?;
        Ok(Self {
            files,
            current: RwLock::new(Current { contents, config }),
            reloading: Mutex::new(()),
        })
    }

    /// The files this configuration is read from.
    pub fn files(&self) -> &TlsFiles {
        &self.files
    }

    /// An acceptor with the current configuration. Ask for one per accepted connection: an
    /// acceptor keeps the configuration it was made with.
    pub fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(self.config())
    }

    /// The current configuration.
    pub fn config(&self) -> Arc<ServerConfig> {
        Arc::clone(
            &self
                .current
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .config,
        )
    }

    /// Reads the files again and, if their contents changed, checks them and swaps in a new
    /// configuration. Returns whether the configuration changed. Connections already
    /// established are not affected; new handshakes use the new configuration.
    ///
    /// The files are read with blocking calls: from async code, call it on a blocking thread
    /// ([`watch`](Self::watch) does).
    ///
    /// # Errors
    ///
    /// Returns the [`TlsError`] of [`load`](Self::load) when a file cannot be read or the new
    /// contents are broken; the previous configuration stays in use.
    pub fn reload(&self) -> Result<bool, TlsError> {
        self.reload_with_summary().map(|summary| summary.is_some())
    }

    /// [`reload`](Self::reload), telling what the new certificate is when it changed.
    fn reload_with_summary(&self) -> Result<Option<Summary>, TlsError> {
        let _reloading = self
            .reloading
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let contents = Contents::read(&self.files)?;
        if self
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contents
            == contents
        {
            return Ok(None);
        }
        let (config, summary) = build(&self.files, &contents)?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) =
            Current { contents, config };
        Ok(Some(summary))
    }

    /// Calls [`reload`](Self::reload) every `every`, forever (spawn it; abort the task to stop
    /// it). Logs a new certificate (subject and expiry) at info level, a refused one at warn
    /// level ("keeping the previous certificate") once per distinct error, and counts both in
    /// `arbiter_tls_reloads_total{result="ok"|"error"}`. The first reload happens `every`
    /// after the call.
    ///
    /// # Panics
    ///
    /// Panics if `every` is zero.
    pub async fn watch(self: Arc<Self>, every: Duration) {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick is immediate, and the files have just been read by `load`.
        ticks.tick().await;
        // The error last reported, so that files that stay broken are not reported at each tick.
        let mut reported: Option<String> = None;
        loop {
            ticks.tick().await;
            let tls = Arc::clone(&self);
            let outcome = match tokio::task::spawn_blocking(move || tls.reload_with_summary()).await
            {
                Ok(outcome) => outcome,
                Err(error) => {
                    tracing::error!(%error, "TLS reload task failed");
                    continue;
                }
            };
            match outcome {
                Ok(None) => reported = None,
                Ok(Some(Summary { subject, not_after })) => {
                    reported = None;
                    tracing::info!(
                        cert = %self.files.cert.display(),
                        %subject,
                        %not_after,
                        "TLS certificate reloaded"
                    );
                    metrics::counter!("arbiter_tls_reloads_total", "result" => "ok").increment(1);
                }
                Err(error) => {
                    let message = error.to_string();
                    if reported.as_ref() == Some(&message) {
                        tracing::debug!(%error, "TLS files still broken");
                    } else {
                        tracing::warn!(%error, "cannot reload TLS files, keeping the previous certificate");
                        metrics::counter!("arbiter_tls_reloads_total", "result" => "error")
                            .increment(1);
                        reported = Some(message);
                    }
                }
            }
        }
    }
}

impl Contents {
    fn read(files: &TlsFiles) -> Result<Self, TlsError> {
        Ok(Self {
            cert: read(&files.cert)?,
            key: read(&files.key)?,
            client_ca: files.client_ca.as_deref().map(read).transpose()?,
        })
    }
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.to_owned(),
        source,
    })
}

/// Checks `contents` (read from `files`) and builds their server configuration.
fn build(files: &TlsFiles, contents: &Contents) -> Result<(Arc<ServerConfig>, Summary), TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());

    let chain = certificates(&files.cert, &contents.cert)?;
    let summary = summary(&files.cert, &chain[0])?;
    let key = match PrivateKeyDer::from_pem_slice(&contents.key) {
        Ok(key) => key,
        Err(pem::Error::NoItemsFound) => {
            return Err(TlsError::NoPrivateKey {
                path: files.key.clone(),
            });
        }
        Err(source) => {
            return Err(TlsError::Pem {
                path: files.key.clone(),
                source,
            });
        }
    };
    let certified = certified_key(files, chain, key, &provider)?;

    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(TlsError::Config)?;
    let builder = match (&files.client_ca, &contents.client_ca) {
        (Some(path), Some(pem)) => {
            let mut roots = RootCertStore::empty();
            for (index, ca) in certificates(path, pem)?.into_iter().enumerate() {
                roots.add(ca).map_err(|error| TlsError::BadClientCa {
                    path: path.clone(),
                    reason: format!("certificate #{}: {error}", index + 1),
                })?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|error| TlsError::BadClientCa {
                    path: path.clone(),
                    reason: error.to_string(),
                })?;
            builder.with_client_cert_verifier(verifier)
        }
        _ => builder.with_no_client_auth(),
    };
    let mut config = builder.with_cert_resolver(Arc::new(SingleCertAndKey::from(certified)));
    config.alpn_protocols = vec![ALPN_H2.to_vec()];
    Ok((Arc::new(config), summary))
}

/// The certificates of the PEM file `path`, each checked to be a valid X.509 certificate; at
/// least one.
fn certificates(path: &Path, pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let chain = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| TlsError::Pem {
            path: path.to_owned(),
            source,
        })?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate {
            path: path.to_owned(),
        });
    }
    for (index, certificate) in chain.iter().enumerate() {
        x509_parser::parse_x509_certificate(certificate).map_err(|error| {
            TlsError::BadCertificate {
                path: path.to_owned(),
                position: index + 1,
                reason: error.to_string(),
            }
        })?;
    }
    Ok(chain)
}

/// The subject and expiry of `certificate`, for the log.
fn summary(path: &Path, certificate: &CertificateDer<'_>) -> Result<Summary, TlsError> {
    let (_, parsed) = x509_parser::parse_x509_certificate(certificate).map_err(|error| {
        TlsError::BadCertificate {
            path: path.to_owned(),
            position: 1,
            reason: error.to_string(),
        }
    })?;
    Ok(Summary {
        subject: parsed.subject().to_string(),
        not_after: parsed.validity().not_after.to_string(),
    })
}

/// The chain and its key, once the key is known to be the key of the chain's first certificate.
fn certified_key(
    files: &TlsFiles,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    provider: &CryptoProvider,
) -> Result<CertifiedKey, TlsError> {
    let signing_key = provider
        .key_provider
        .load_private_key(key)
        .map_err(|source| TlsError::BadKey {
            path: files.key.clone(),
            source,
        })?;
    let certified = CertifiedKey::new(chain, signing_key);
    match certified.keys_match() {
        // Unknown: the key cannot tell its public key; rustls accepts it the same way.
        Ok(()) | Err(rustls::Error::InconsistentKeys(InconsistentKeys::Unknown)) => Ok(certified),
        Err(rustls::Error::InconsistentKeys(InconsistentKeys::KeyMismatch)) => {
            Err(TlsError::KeyMismatch {
                cert: files.cert.clone(),
                key: files.key.clone(),
            })
        }
        Err(error) => Err(TlsError::BadCertificate {
            path: files.cert.clone(),
            position: 1,
            reason: error.to_string(),
        }),
    }
}

