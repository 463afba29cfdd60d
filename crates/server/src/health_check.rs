//! The `arbiter health-check` client: asks a server's gRPC health service once.

use std::path::{Path, PathBuf};

use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};

use crate::cli::HealthCheckArgs;

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
    /// The server could not be reached.
    #[error("cannot connect to {addr}: {source}")]
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
    /// The server answered with an error status.
    #[error("health check failed: {0}")]
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

/// Asks `args.addr` for the health of `args.service`; `Ok` only when SERVING.
///
/// # Errors
///
/// Returns a [`HealthCheckError`] when the server cannot be reached, fails the call, or reports
/// any status but SERVING.
pub async fn run(args: &HealthCheckArgs) -> Result<(), HealthCheckError> {
    let mut endpoint = Endpoint::from_shared(args.addr.clone())
        .map_err(|source| HealthCheckError::Address {
            addr: args.addr.clone(),
            source,
        })?
        .connect_timeout(args.timeout)
        .timeout(args.timeout);
    let tls_asked = args.tls_ca.is_some() || args.tls_cert.is_some() || args.tls_domain.is_some();
    if tls_asked || args.addr.starts_with("https://") {
        let mut tls = ClientTlsConfig::new();
        if let Some(path) = &args.tls_ca {
            tls = tls.ca_certificate(Certificate::from_pem(read(path)?));
        }
        if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
            tls = tls.identity(Identity::from_pem(read(cert)?, read(key)?));
        }
        if let Some(domain) = &args.tls_domain {
            tls = tls.domain_name(domain.clone());
        }
        endpoint = endpoint
            .tls_config(tls)
            .map_err(|source| HealthCheckError::Address {
                addr: args.addr.clone(),
                source,
            })?;
    }
    let channel = endpoint
        .connect()
        .await
        .map_err(|source| HealthCheckError::Connect {
            addr: args.addr.clone(),
            source,
        })?;
    let response = HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: args.service.clone(),
        })
        .await?
        .into_inner();
    match ServingStatus::try_from(response.status) {
        Ok(ServingStatus::Serving) => Ok(()),
        other => Err(HealthCheckError::NotServing {
            service: args.service.clone(),
            status: other.map_or("UNKNOWN_STATUS", |status| status.as_str_name()),
        }),
    }
}

/// Reads a PEM file named by a flag.
fn read(path: &Path) -> Result<Vec<u8>, HealthCheckError> {
    std::fs::read(path).map_err(|source| HealthCheckError::Read {
        path: path.to_owned(),
        source,
    })
}
