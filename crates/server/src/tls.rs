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

/// The ALPN protocol of HTTP/2, which gRPC runs over: offered first, so that a client offering
/// both gets it.
pub const ALPN_H2: &[u8] = b"h2";

/// The ALPN protocol of HTTP/1.1, offered after `h2` for gRPC-Web from browsers that use it
/// (and for clients that offer nothing else).
pub const ALPN_HTTP1: &[u8] = b"http/1.1";

/// The counter of TLS reloads, by `result` (`ok`, `error`; see [`ReloadingTls::watch`]).
pub const RELOADS_COUNTER: &str = "arbiter_tls_reloads_total";

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

/// What is wrong with PEM text, in words: the PEM reader's own messages print the lines at
/// fault as lists of byte values (`[45, 45, 45, ...]`), which no one reads in a log.
fn pem_reason(error: &pem::Error) -> String {
    let text = |bytes: &[u8]| {
        let line = String::from_utf8_lossy(bytes);
        let line = line.trim_end();
        // A line of a broken file could be long: the start says which one it is.
        match line.char_indices().nth(80) {
            Some((end, _)) => format!("{}...", &line[..end]),
            None => line.to_owned(),
        }
    };
    match error {
        pem::Error::MissingSectionEnd { end_marker } => {
            // The marker is the section's label, e.g. "CERTIFICATE".
            format!(
                "the {} section has no END line (a file cut short?)",
                text(end_marker)
            )
        }
        pem::Error::IllegalSectionStart { line } => {
            format!("malformed section start line {:?}", text(line))
        }
        other => other.to_string(),
    }
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
    #[error("{path} is not valid PEM: {}", pem_reason(source))]
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
                    metrics::counter!(RELOADS_COUNTER, "result" => "ok").increment(1);
                }
                Err(error) => {
                    let message = error.to_string();
                    if reported.as_ref() == Some(&message) {
                        tracing::debug!(%error, "TLS files still broken");
                    } else {
                        tracing::warn!(%error, "cannot reload TLS files, keeping the previous certificate");
                        metrics::counter!(RELOADS_COUNTER, "result" => "error").increment(1);
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
    config.alpn_protocols = vec![ALPN_H2.to_vec(), ALPN_HTTP1.to_vec()];
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    use tokio::{
        io::{AsyncReadExt as _, AsyncWriteExt as _},
        net::{TcpListener, TcpStream},
    };
    use tokio_rustls::{
        TlsConnector, client,
        rustls::{ClientConfig, pki_types::ServerName},
    };

    use super::*;

    /// A CA that signs server and client certificates.
    struct Ca {
        pem: String,
        issuer: Issuer<'static, KeyPair>,
    }

    /// A certificate and its key, in PEM and (the certificate) in DER.
    struct Leaf {
        cert: String,
        key: String,
        der: CertificateDer<'static>,
    }

    impl Ca {
        fn new() -> Self {
            let key = KeyPair::generate().expect("CA key");
            let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
            params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
            let cert = params.self_signed(&key).expect("CA certificate");
            Self {
                pem: cert.pem(),
                issuer: Issuer::new(params, key),
            }
        }

        fn leaf(&self, name: &str) -> Leaf {
            let key = KeyPair::generate().expect("key");
            let cert = CertificateParams::new(vec![name.to_owned()])
                .expect("params")
                .signed_by(&key, &self.issuer)
                .expect("certificate");
            Leaf {
                cert: cert.pem(),
                key: key.serialize_pem(),
                der: cert.der().clone(),
            }
        }
    }

    /// A fresh temporary directory, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> Self {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "arbiter-tls-{name}-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("temp dir");
            Self(dir)
        }

        fn path(&self, file: &str) -> PathBuf {
            self.0.join(file)
        }

        fn write(&self, file: &str, text: &str) {
            std::fs::write(self.path(file), text).expect("write");
        }

        fn files(&self, client_ca: bool) -> TlsFiles {
            TlsFiles {
                cert: self.path("tls.crt"),
                key: self.path("tls.key"),
                client_ca: client_ca.then(|| self.path("ca.crt")),
            }
        }

        fn write_leaf(&self, leaf: &Leaf) {
            self.write("tls.crt", &leaf.cert);
            self.write("tls.key", &leaf.key);
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A client that trusts `ca`, offers ALPN h2 and presents `identity` if any.
    fn client(ca: &Ca, identity: Option<&Leaf>) -> TlsConnector {
        client_offering(ca, identity, &[b"h2"])
    }

    /// A client that trusts `ca`, offers the ALPN protocols `alpn` and presents `identity` if any.
    fn client_offering(ca: &Ca, identity: Option<&Leaf>, alpn: &[&[u8]]) -> TlsConnector {
        let mut roots = RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_slice(ca.pem.as_bytes()).expect("CA PEM"))
            .expect("CA root");
        let builder =
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .expect("versions")
                .with_root_certificates(roots);
        let mut config = match identity {
            Some(leaf) => builder
                .with_client_auth_cert(
                    vec![leaf.der.clone()],
                    PrivateKeyDer::from_pem_slice(leaf.key.as_bytes()).expect("key PEM"),
                )
                .expect("client certificate"),
            None => builder.with_no_client_auth(),
        };
        config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
        TlsConnector::from(Arc::new(config))
    }

    /// gRPC-Web from browsers may come over HTTP/1.1 on TLS: ALPN offers it, after h2, so a
    /// client offering both (a browser, a gRPC client offering both) still gets HTTP/2.
    #[tokio::test]
    async fn alpn_prefers_h2_and_offers_http1_for_grpc_web() {
        let ca = Ca::new();
        let dir = TempDir::new("alpn");
        dir.write_leaf(&ca.leaf("localhost"));
        let tls = Arc::new(ReloadingTls::load(dir.files(false)).expect("load"));
        let (h2, http1): (&[u8], &[u8]) = (b"h2", b"http/1.1");
        for (offered, agreed) in [
            (&[http1, h2][..], h2),
            (&[h2][..], h2),
            (&[http1][..], http1),
        ] {
            let (client, _server) = connect(&tls, &client_offering(&ca, None, offered))
                .await
                .expect("handshake");
            assert_eq!(
                client.get_ref().1.alpn_protocol(),
                Some(agreed),
                "{offered:?}"
            );
        }
    }

    /// Both ends of a TLS connection over loopback TCP, the server's with an acceptor of
    /// `tls` asked for after the TCP connection is accepted, as an accept loop does.
    async fn connect(
        tls: &Arc<ReloadingTls>,
        connector: &TlsConnector,
    ) -> Result<
        (
            client::TlsStream<TcpStream>,
            tokio_rustls::server::TlsStream<TcpStream>,
        ),
        String,
    > {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local address");
        let tls = Arc::clone(tls);
        let server = tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.expect("accept");
            tls.acceptor().accept(tcp).await
        });
        let tcp = TcpStream::connect(addr).await.expect("connect");
        let name = ServerName::try_from("localhost").expect("name");
        let handshake = async {
            let client = connector.connect(name, tcp).await;
            let server = server.await.expect("server task");
            (client, server)
        };
        match tokio::time::timeout(Duration::from_secs(10), handshake).await {
            Err(_) => Err("handshake timed out".to_owned()),
            Ok((Ok(client), Ok(server))) => Ok((client, server)),
            Ok((client, server)) => Err(format!(
                "client: {:?}, server: {:?}",
                client.err(),
                server.err()
            )),
        }
    }

    /// The certificate a new client connection is shown, after checking that h2 was agreed.
    async fn served_certificate(
        tls: &Arc<ReloadingTls>,
        connector: &TlsConnector,
    ) -> CertificateDer<'static> {
        let (client, _server) = connect(tls, connector).await.expect("handshake");
        let (_, session) = client.get_ref();
        assert_eq!(session.alpn_protocol(), Some(&b"h2"[..]));
        session.peer_certificates().expect("server certificate")[0].clone()
    }

    #[tokio::test]
    async fn rotation_swaps_the_certificate_and_refuses_broken_files() {
        let ca = Ca::new();
        let dir = TempDir::new("rotation");
        let a = ca.leaf("localhost");
        dir.write_leaf(&a);
        let tls = Arc::new(ReloadingTls::load(dir.files(false)).expect("load A"));
        let connector = client(&ca, None);
        assert_eq!(served_certificate(&tls, &connector).await, a.der);
        assert!(!tls.reload().expect("unchanged files"), "nothing changed");

        // A connection made before the rotation keeps working after it.
        let (mut old_client, mut old_server) = connect(&tls, &connector).await.expect("old");

        let b = ca.leaf("localhost");
        dir.write_leaf(&b);
        assert!(tls.reload().expect("reload B"), "B is new");
        assert_eq!(served_certificate(&tls, &connector).await, b.der);
        assert!(!tls.reload().expect("reload B again"));

        old_client.write_all(b"ping").await.expect("write");
        let mut ping = [0; 4];
        old_server.read_exact(&mut ping).await.expect("read");
        assert_eq!(&ping, b"ping");
        assert_eq!(
            old_client.get_ref().1.peer_certificates().expect("peer")[0],
            a.der
        );

        // Half written: the PEM of a new certificate cut in the middle.
        let c = ca.leaf("localhost");
        dir.write("tls.crt", &c.cert[..c.cert.len() / 2]);
        let error = tls.reload().expect_err("half-written certificate");
        assert!(matches!(error, TlsError::Pem { .. }), "{error:?}");
        assert!(error.to_string().contains("tls.crt"), "{error}");
        // Said in words, not as a list of byte values.
        assert!(
            error
                .to_string()
                .ends_with("the CERTIFICATE section has no END line (a file cut short?)"),
            "{error}"
        );
        assert_eq!(served_certificate(&tls, &connector).await, b.der);

        // Not PEM at all, or nothing yet.
        for text in ["", "garbage\n"] {
            dir.write("tls.crt", text);
            let error = tls.reload().expect_err("no certificate");
            assert!(matches!(error, TlsError::NoCertificate { .. }), "{error:?}");
        }
        // A PEM section that is not a certificate.
        dir.write(
            "tls.crt",
            "-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n",
        );
        let error = tls.reload().expect_err("not X.509");
        assert!(
            matches!(error, TlsError::BadCertificate { position: 1, .. }),
            "{error:?}"
        );

        // The new certificate with the previous key, as when the files are written one by one.
        dir.write("tls.crt", &c.cert);
        let error = tls.reload().expect_err("mismatched key");
        assert!(matches!(error, TlsError::KeyMismatch { .. }), "{error:?}");
        assert!(error.to_string().contains("tls.key"), "{error}");
        assert_eq!(served_certificate(&tls, &connector).await, b.der);

        // A key file with no key, then the missing file.
        dir.write("tls.key", &c.cert);
        let error = tls.reload().expect_err("no key");
        assert!(matches!(error, TlsError::NoPrivateKey { .. }), "{error:?}");
        std::fs::remove_file(dir.path("tls.key")).expect("remove");
        let error = tls.reload().expect_err("no key file");
        assert!(matches!(error, TlsError::Read { .. }), "{error:?}");
        assert_eq!(served_certificate(&tls, &connector).await, b.der);

        // Once the key is written too, C is served.
        dir.write("tls.key", &c.key);
        assert!(tls.reload().expect("reload C"));
        assert_eq!(served_certificate(&tls, &connector).await, c.der);
    }

    #[tokio::test]
    async fn load_refuses_broken_files() {
        let ca = Ca::new();
        let dir = TempDir::new("load");
        let a = ca.leaf("localhost");
        let b = ca.leaf("localhost");
        dir.write("tls.crt", &a.cert);
        dir.write("tls.key", &b.key);
        let error = ReloadingTls::load(dir.files(false)).expect_err("mismatch");
        assert!(matches!(error, TlsError::KeyMismatch { .. }), "{error:?}");

        dir.write("tls.key", &a.key);
        let error = ReloadingTls::load(dir.files(true)).expect_err("no CA file");
        assert!(
            matches!(&error, TlsError::Read { path, .. } if path.ends_with("ca.crt")),
            "{error:?}"
        );
        dir.write("ca.crt", "not a certificate\n");
        let error = ReloadingTls::load(dir.files(true)).expect_err("no CA");
        assert!(matches!(error, TlsError::NoCertificate { .. }), "{error:?}");
        dir.write("ca.crt", &ca.pem);
        ReloadingTls::load(dir.files(true)).expect("good files");
    }

    #[tokio::test]
    async fn mutual_tls_requires_a_client_certificate_of_the_client_ca() {
        let ca = Ca::new();
        let dir = TempDir::new("mtls");
        dir.write_leaf(&ca.leaf("localhost"));
        dir.write("ca.crt", &ca.pem);
        let tls = Arc::new(ReloadingTls::load(dir.files(true)).expect("load"));

        // In TLS 1.3 the client may finish its handshake before the server refuses it: the
        // server's side tells.
        let anonymous = connect(&tls, &client(&ca, None)).await;
        assert!(
            anonymous.is_err(),
            "a client without a certificate is served"
        );

        let other_ca = Ca::new();
        let stranger = connect(&tls, &client(&ca, Some(&other_ca.leaf("client")))).await;
        assert!(stranger.is_err(), "a client of another CA is served");

        let (client, server) = connect(&tls, &client(&ca, Some(&ca.leaf("client"))))
            .await
            .expect("a client of the CA is refused");
        assert_eq!(client.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
        assert!(server.get_ref().1.peer_certificates().is_some());
    }

    /// A Kubernetes Secret volume: the files are symbolic links through `..data`, a link to a
    /// timestamped directory, and an update re-points `..data` at once.
    #[cfg(unix)]
    #[tokio::test]
    async fn follows_a_kubernetes_secret_volume_update() {
        use std::os::unix::fs::symlink;

        let ca = Ca::new();
        let dir = TempDir::new("k8s");
        let publish = |version: &str, leaf: &Leaf| {
            std::fs::create_dir(dir.path(version)).expect("version dir");
            std::fs::write(dir.path(version).join("tls.crt"), &leaf.cert).expect("write");
            std::fs::write(dir.path(version).join("tls.key"), &leaf.key).expect("write");
            symlink(version, dir.path("..data_tmp")).expect("link");
            std::fs::rename(dir.path("..data_tmp"), dir.path("..data")).expect("swap");
        };
        let a = ca.leaf("localhost");
        publish("..2025_01_01_00_00_00.1", &a);
        for file in ["tls.crt", "tls.key"] {
            symlink(format!("..data/{file}"), dir.path(file)).expect("link");
        }
        let tls = Arc::new(ReloadingTls::load(dir.files(false)).expect("load"));
        let connector = client(&ca, None);
        assert_eq!(served_certificate(&tls, &connector).await, a.der);

        let b = ca.leaf("localhost");
        publish("..2025_02_01_00_00_00.2", &b);
        std::fs::remove_dir_all(dir.path("..2025_01_01_00_00_00.1")).expect("old version");
        assert!(tls.reload().expect("reload"));
        assert_eq!(served_certificate(&tls, &connector).await, b.der);
    }

    #[tokio::test]
    async fn watch_picks_up_a_rotation() {
        let ca = Ca::new();
        let dir = TempDir::new("watch");
        dir.write_leaf(&ca.leaf("localhost"));
        let tls = Arc::new(ReloadingTls::load(dir.files(false)).expect("load"));
        let before = tls.config();
        let watch = tokio::spawn(Arc::clone(&tls).watch(Duration::from_millis(20)));

        let b = ca.leaf("localhost");
        dir.write_leaf(&b);
        tokio::time::timeout(Duration::from_secs(10), async {
            while Arc::ptr_eq(&tls.config(), &before) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("the watch did not reload");
        watch.abort();
        assert_eq!(served_certificate(&tls, &client(&ca, None)).await, b.der);
    }
}
