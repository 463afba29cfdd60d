//! The `arbiter health-check` client: asks a server's gRPC health service once.

use tonic::transport::Endpoint;
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
    let endpoint = Endpoint::from_shared(args.addr.clone())
        .map_err(|source| HealthCheckError::Address {
            addr: args.addr.clone(),
            source,
        })?
        .connect_timeout(args.timeout)
        .timeout(args.timeout);
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
