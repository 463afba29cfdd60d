//! The `arbiter health-check` client: asks a server's gRPC health service once.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};

/// What to ask, and of which server: `arbiter health-check`'s flags as plain values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The server: a URI (`http://host:port`, `https://host:port`) or `host:port` (plaintext,
    /// or TLS when any TLS setting is given).
    pub addr: String,
    /// The service name to ask about; "" is the server as a whole.
    pub service: String,
    /// Longest time to connect, and then to wait for the answer.
    pub timeout: Duration,
    /// PEM CA certificates to trust for a TLS server; implies TLS.
    pub tls_ca: Option<PathBuf>,
    /// PEM client certificate chain and its private key, for a server that asks for mutual
    /// TLS; implies TLS.
    pub tls_identity: Option<(PathBuf, PathBuf)>,
    /// The name the server certificate must carry (default: the host of `addr`); implies TLS.
    pub tls_domain: Option<String>,
}

/// Why a health check did not report SERVING.
#[derive(Debug, thiserror::Error)]
pub enum HealthCheckError {
    /// The address is not a valid URI.
    #[error("invalid address {addr:?}: {source}")]
    Address {
        /// The address given.
        addr: String,
        /// The parse error.
        source: tonic::transport::Error,
    },
    /// The server could not be reached (the message carries every cause: refused, timed out,
    /// certificate rejected, ...).
    #[error("cannot connect to {addr}: {}", causes(source))]
    Connect {
        /// The address given.
        addr: String,
        /// The connection error.
        source: tonic::transport::Error,
    },
    /// A TLS file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The read error.
        source: std::io::Error,
    },
    /// The call failed: the server answered with an error status, or the connection broke.
    #[error("the health check call failed with {}: {}", crate::metrics::code_name(.0.code()), call_message(.0))]
    Call(#[from] tonic::Status),
    /// The server answered, with a status other than SERVING.
    #[error("service {service:?} is {status}")]
    NotServing {
        /// The service asked about.
        service: String,
        /// The status name reported.
        status: &'static str,
    },
}

/// Asks `probe.addr` for the health of `probe.service`; `Ok` only when SERVING.
///
/// # Errors
///
/// Returns a [`HealthCheckError`] when the server cannot be reached, fails the call, or reports
/// any status but SERVING.
pub async fn run(probe: &Probe) -> Result<(), HealthCheckError> {
    let tls_asked =
        probe.tls_ca.is_some() || probe.tls_identity.is_some() || probe.tls_domain.is_some();
    let addr = with_scheme(&probe.addr, tls_asked);
    let mut endpoint = Endpoint::from_shared(addr.clone())
        .map_err(|source| HealthCheckError::Address {
            addr: probe.addr.clone(),
            source,
        })?
        .connect_timeout(probe.timeout)
        .timeout(probe.timeout);
    if tls_asked || addr.starts_with("https://") {
        let mut tls = ClientTlsConfig::new();
        if let Some(path) = &probe.tls_ca {
            tls = tls.ca_certificate(Certificate::from_pem(read(path)?));
        }
        if let Some((cert, key)) = &probe.tls_identity {
            tls = tls.identity(Identity::from_pem(read(cert)?, read(key)?));
        }
        if let Some(domain) = &probe.tls_domain {
            tls = tls.domain_name(domain.clone());
        }
        endpoint = endpoint
            .tls_config(tls)
            .map_err(|source| HealthCheckError::Address {
                addr: probe.addr.clone(),
                source,
            })?;
    }
    let channel = endpoint
        .connect()
        .await
        .map_err(|source| HealthCheckError::Connect {
            addr: probe.addr.clone(),
            source,
        })?;
    let response = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: probe.service.clone(),
        })
        .await?
        .into_inner();
    match ServingStatus::try_from(response.status) {
        Ok(ServingStatus::Serving) => Ok(()),
        other => Err(HealthCheckError::NotServing {
            service: probe.service.clone(),
            status: other.map_or("UNKNOWN_STATUS", |status| status.as_str_name()),
        }),
    }
}

/// `addr` as a URI: `host:port` (as `arbiter serve --grpc-addr` takes it, and as probes are
/// usually written) gets `http://`, or `https://` when TLS flags are given; an address with a
/// scheme is kept.
fn with_scheme(addr: &str, tls: bool) -> String {
    if addr.contains("://") {
        addr.to_owned()
    } else if tls {
        format!("https://{addr}")
    } else {
        format!("http://{addr}")
    }
}

/// Reads a PEM file named by a flag.
fn read(path: &Path) -> Result<Vec<u8>, HealthCheckError> {
    std::fs::read(path).map_err(|source| HealthCheckError::Read {
        path: path.to_owned(),
        source,
    })
}

/// `error` and its causes, outermost first, joined by ": " (tonic's transport errors say only
/// "transport error" at the top; the reason is in their sources).
fn causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The message of a failed call's status, with the transport cause when the call broke.
fn call_message(status: &tonic::Status) -> String {
    let message = status.message();
    match std::error::Error::source(status) {
        Some(source) => format!("{message}: {}", causes(source)),
        None if message.is_empty() => "(no message)".to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_without_a_scheme_are_http_or_https_with_tls_flags() {
        assert_eq!(
            with_scheme("127.0.0.1:50052", false),
            "http://127.0.0.1:50052"
        );
        assert_eq!(with_scheme("arbiter:50051", true), "https://arbiter:50051");
        assert_eq!(
            with_scheme("https://arbiter:50051", false),
            "https://arbiter:50051"
        );
        assert_eq!(
            with_scheme("http://[::1]:50051", true),
            "http://[::1]:50051"
        );
    }

    #[test]
    fn connection_errors_name_their_cause() {
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        #[derive(Debug, thiserror::Error)]
        #[error("transport error")]
        struct Outer(#[source] std::io::Error);
        assert_eq!(
            causes(&Outer(refused)),
            "transport error: connection refused"
        );
    }
}
