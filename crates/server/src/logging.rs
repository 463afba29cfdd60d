//! Log setup: `RUST_LOG` filter, JSON or text lines on standard error.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tracing_subscriber::{EnvFilter, fmt};

/// The HTTP/2 library's own per-connection warnings (a peer's rapid resets, say) are kept out of
/// the log unless `RUST_LOG` names the `h2` target: a client could otherwise turn each of its
/// connections into a log line. Those closes are counted instead
/// (`arbiter_connections_closed_total{reason="flood_guard"}`, [`crate::transport`]).
pub const QUIET_H2: &str = "h2=error";

/// The TLS library's warnings are each about one peer's doing: a renegotiation attempt ("Sending
/// warning alert NoRenegotiation"), an alert received (a client that does not trust the
/// certificate), a message out of place. A client can make a thousand handshakes a second, so
/// they are kept out of the log unless `RUST_LOG` names the `rustls` target (rustls logs through
/// the `log` crate, which the subscriber forwards). The connections TLS fails are counted
/// instead (`arbiter_connections_closed_total{reason="tls_error"}`, [`crate::transport`]).
/// rustls's errors stay (its only ones: traffic keys used up, the connection closed for safety).
pub const QUIET_RUSTLS: &str = "rustls=error";

/// The directives added to every filter: a library's target, and what it is limited to unless
/// the filter names that target itself.
const QUIET_TARGETS: [(&str, &str); 2] = [("h2", QUIET_H2), ("rustls", QUIET_RUSTLS)];

/// The log filter for a `RUST_LOG` value (`None`: unset): `info` by default, with [`QUIET_H2`]
/// and [`QUIET_RUSTLS`] added unless the value says something about `h2` or `rustls` itself.
/// Nothing a client does writes a line of its own at the default filter: refusals are summarised
/// (see [`crate::overload`]), and the per-peer warnings of these libraries are filtered out.
#[must_use]
pub fn filter_spec(rust_log: Option<&str>) -> String {
    let spec = rust_log.map_or("info", str::trim);
    let mut spec = if spec.is_empty() { "info" } else { spec }.to_owned();
    let named = spec.clone();
    for (target, directive) in QUIET_TARGETS {
        if !named.contains(target) {
            spec.push(',');
            spec.push_str(directive);
        }
    }
    spec
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object per line, fields flattened into it.
    Json,
    /// Human-readable text.
    Text,
}

/// Installs the global log subscriber, and a panic hook that writes a panic as a log line.
/// Without a format, logs are text on a terminal and JSON otherwise (containers). The filter
/// comes from `RUST_LOG` through [`filter_spec`]; an unreadable `RUST_LOG` is a WARN line of the
/// log itself and the default filter is used. Text has colours only when standard error is a
/// terminal (never in a file or a pipe).
///
/// Everything the process writes on standard error after this is in the one format: the
/// libraries' `log` records are forwarded, and a panic (a bug: a handler's is answered INTERNAL)
/// is an ERROR line with its message, place and, when `RUST_BACKTRACE` asks for one, backtrace,
/// instead of the standard library's plain text.
///
/// Calling it a second time leaves the first subscriber in place.
pub fn init(format: Option<LogFormat>) {
    let rust_log = std::env::var("RUST_LOG").ok();
    let (filter, unreadable) = match EnvFilter::try_new(filter_spec(rust_log.as_deref())) {
        Ok(filter) => (filter, None),
        Err(error) => (EnvFilter::new(filter_spec(None)), Some(error)),
    };
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
    let installed = match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init(),
        LogFormat::Text => builder.try_init(),
    };
    if let Some(error) = unreadable {
        tracing::warn!(
            rust_log = rust_log.as_deref().unwrap_or_default(),
            %error,
            default = %filter_spec(None),
            "RUST_LOG is not a valid log filter: using the default"
        );
    }
    if installed.is_ok() {
        std::panic::set_hook(Box::new(|info| {
            let backtrace = std::backtrace::Backtrace::capture();
            let location = info.location().map(ToString::to_string).unwrap_or_default();
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let thread = std::thread::current();
            let thread = thread.name().unwrap_or("unnamed");
            match backtrace.status() {
                std::backtrace::BacktraceStatus::Captured => tracing::error!(
                    panic = %message,
                    %location,
                    thread,
                    %backtrace,
                    "panicked"
                ),
                _ => tracing::error!(panic = %message, %location, thread, "panicked"),
            }
        }));
    }
}

/// `duration` in whole milliseconds, as a log field's value: a number in JSON lines
/// (`"lame_duck_ms":2000`). `Duration::as_millis` is a `u128`, which tracing records through its
/// `Debug` form, and the JSON formatter writes that as a string (`"lame_duck_ms":"2000"`).
#[must_use]
pub fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
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
        assert_eq!(filter_spec(None), "info,h2=error,rustls=error");
        assert_eq!(filter_spec(Some("")), "info,h2=error,rustls=error");
        assert_eq!(filter_spec(Some("debug")), "debug,h2=error,rustls=error");
        assert_eq!(
            filter_spec(Some("info,h2=warn")),
            "info,h2=warn,rustls=error"
        );
    }

    /// Issue 26 item 4: each TLS 1.2 renegotiation attempt wrote a rustls WARN line at the
    /// default filter. rustls's warnings are per peer: off unless `RUST_LOG` names rustls.
    #[test]
    fn r_rustls_per_peer_warnings_are_quiet_unless_rust_log_names_rustls() {
        assert!(filter_spec(None).split(',').any(|d| d == QUIET_RUSTLS));
        assert_eq!(filter_spec(Some("warn")), "warn,h2=error,rustls=error");
        assert_eq!(
            filter_spec(Some("info,rustls=warn")),
            "info,rustls=warn,h2=error"
        );
        assert_eq!(
            filter_spec(Some("info,rustls=debug,h2=debug")),
            "info,rustls=debug,h2=debug"
        );
    }

    /// The filter the default spec makes: rustls's warnings are off, its errors and the
    /// server's own info lines on.
    #[test]
    fn the_default_filter_drops_rustls_warnings_but_keeps_its_errors() {
        use tracing_subscriber::layer::SubscriberExt as _;
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let recorder = Recorder(std::sync::Arc::clone(&seen));
        let subscriber = tracing_subscriber::registry()
            .with(EnvFilter::new(filter_spec(None)))
            .with(recorder);
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(target: "rustls::common_state", "Sending warning alert NoRenegotiation");
            tracing::error!(target: "rustls::common_state", "traffic keys exhausted");
            tracing::warn!(target: "h2::proto::streams", "too many resets");
            tracing::info!(target: "arbiter_server::serve", "listening");
            tracing::debug!(target: "arbiter_server::serve", "detail");
        });
        assert_eq!(
            *seen.lock().expect("recorded"),
            ["rustls::common_state", "arbiter_server::serve"]
        );
    }

    /// Records the target of every event it is given.
    struct Recorder(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Recorder {
        fn on_event(
            &self,
            event: &tracing::Event<'_>,
            _: tracing_subscriber::layer::Context<'_, S>,
        ) {
            if let Ok(mut seen) = self.0.lock() {
                seen.push(event.metadata().target().to_owned());
            }
        }
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
