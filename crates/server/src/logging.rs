//! Log setup: `RUST_LOG` filter, JSON or text lines on standard error.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicU64, Ordering};

use tracing_subscriber::{EnvFilter, fmt};

use crate::cli::LogFormat;

/// The HTTP/2 library's own per-connection warnings (a peer's rapid resets, say) are kept out of
/// the log unless `RUST_LOG` names the `h2` target: a client could otherwise turn each of its
/// connections into a log line. Those closes are counted instead
/// (`arbiter_connections_closed_total{reason="flood_guard"}`, [`crate::transport`]).
pub const QUIET_H2: &str = "h2=error";

/// The log filter for a `RUST_LOG` value (`None`: unset): `info` by default, with [`QUIET_H2`]
/// added unless the value says something about `h2` itself.
#[must_use]
pub fn filter_spec(rust_log: Option<&str>) -> String {
    let spec = rust_log.map_or("info", str::trim);
    let spec = if spec.is_empty() { "info" } else { spec };
    if spec.contains("h2") {
        spec.to_owned()
    } else {
        format!("{spec},{QUIET_H2}")
    }
}

/// Installs the global log subscriber. Without a format, logs are text on a terminal and JSON
/// otherwise (containers). The filter comes from `RUST_LOG` through [`filter_spec`] (an
/// unreadable `RUST_LOG` is reported on standard error and the default used). Text has colours
/// only when standard error is a terminal (never in a file or a pipe).
///
/// Calling it a second time leaves the first subscriber in place.
pub fn init(format: Option<LogFormat>) {
    let rust_log = std::env::var("RUST_LOG").ok();
    let filter = EnvFilter::try_new(filter_spec(rust_log.as_deref())).unwrap_or_else(|error| {
        eprintln!("arbiter: RUST_LOG is not a valid log filter ({error}): using the default");
        EnvFilter::new(filter_spec(None))
    });
    let terminal = std::io::stderr().is_terminal();
    let format = format.unwrap_or(if terminal {
        LogFormat::Text
    } else {
        LogFormat::Json
    });
    let builder = fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(terminal);
    // An error means a subscriber is already installed, which is fine.
    let _ = match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

/// Which calls get an access log line ("call finished", with method, peer, request id, status
/// and duration) at info level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessLog {
    /// None: calls are counted in metrics only (the default; logs stay quiet under load).
    Off,
    /// One call in every `n` (n >= 1), whatever its status.
    Sampled(u64),
    /// Every call (about 10,000 lines a second at full load on two cores).
    All,
}

/// The access log setting of the process: 0 off, u64::MAX all, otherwise one call in n.
static ACCESS_LOG: AtomicU64 = AtomicU64::new(0);
/// Calls finished so far, for sampling.
static CALLS: AtomicU64 = AtomicU64::new(0);

/// Sets which calls get an access log line, for the whole process.
pub fn set_access_log(mode: AccessLog) {
    let value = match mode {
        AccessLog::Off => 0,
        AccessLog::Sampled(n) => n.clamp(1, u64::MAX - 1),
        AccessLog::All => u64::MAX,
    };
    ACCESS_LOG.store(value, Ordering::Relaxed);
}

/// Whether the call finishing now gets an access log line (see [`set_access_log`]).
#[must_use]
pub fn log_this_call() -> bool {
    match ACCESS_LOG.load(Ordering::Relaxed) {
        0 => false,
        u64::MAX => true,
        n => CALLS.fetch_add(1, Ordering::Relaxed).is_multiple_of(n),
    }
}

/// The request and response metadata key of the request id.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Longest request id taken from a request, in bytes; longer ones are replaced.
pub const MAX_REQUEST_ID_BYTES: usize = 128;

/// The request id of a call: the `x-request-id` request header when it is printable ASCII of at
/// most [`MAX_REQUEST_ID_BYTES`], otherwise a new random 16-hex-digit id.
#[must_use]
pub fn request_id(headers: &http::HeaderMap) -> String {
    if let Some(value) = headers.get(REQUEST_ID_HEADER)
        && let Ok(text) = value.to_str()
        && !text.is_empty()
        && text.len() <= MAX_REQUEST_ID_BYTES
        && text.bytes().all(|byte| byte.is_ascii_graphic())
    {
        return text.to_owned();
    }
    new_request_id()
}

/// A new random request id: 16 hex digits.
#[must_use]
pub fn new_request_id() -> String {
    use std::hash::{BuildHasher as _, RandomState};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    thread_local! {
        static STATE: RandomState = RandomState::new();
    }
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let random = STATE.with(|state| state.hash_one(count));
    format!("{random:016x}")
}

/// The peer address of a request, as far as the transport tells (plain TCP or TLS), or `"-"`.
#[must_use]
pub fn peer<B>(request: &http::Request<B>) -> String {
    use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};
    let extensions = request.extensions();
    let addr = extensions
        .get::<TcpConnectInfo>()
        .and_then(TcpConnectInfo::remote_addr)
        .or_else(|| {
            extensions
                .get::<TlsConnectInfo<TcpConnectInfo>>()
                .and_then(|info| info.get_ref().remote_addr())
        });
    addr.map_or_else(|| "-".to_owned(), |addr| addr.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h2_per_connection_warnings_are_quiet_unless_rust_log_names_h2() {
        assert_eq!(filter_spec(None), "info,h2=error");
        assert_eq!(filter_spec(Some("")), "info,h2=error");
        assert_eq!(filter_spec(Some("debug")), "debug,h2=error");
        assert_eq!(filter_spec(Some("info,h2=warn")), "info,h2=warn");
    }

    #[test]
    fn access_log_sampling_logs_one_call_in_n() {
        set_access_log(AccessLog::Sampled(10));
        let logged = (0..1000).filter(|_| log_this_call()).count();
        set_access_log(AccessLog::All);
        assert!(log_this_call());
        set_access_log(AccessLog::Off);
        assert!(!(0..100).any(|_| log_this_call()));
        assert_eq!(logged, 100);
    }

    #[test]
    fn request_ids_are_taken_or_made() {
        let mut headers = http::HeaderMap::new();
        let made = request_id(&headers);
        assert_eq!(made.len(), 16);
        assert_ne!(made, request_id(&headers));
        headers.insert(REQUEST_ID_HEADER, http::HeaderValue::from_static("abc-123"));
        assert_eq!(request_id(&headers), "abc-123");
        headers.insert(
            REQUEST_ID_HEADER,
            http::HeaderValue::from_static("has space"),
        );
        assert_eq!(request_id(&headers).len(), 16);
    }
}
