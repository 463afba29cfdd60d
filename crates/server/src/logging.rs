//! Log setup: `RUST_LOG` filter, JSON or text lines on standard error.

use std::io::IsTerminal as _;

use tracing_subscriber::{EnvFilter, fmt};

use crate::cli::LogFormat;

/// Installs the global log subscriber. Without a format, logs are text on a terminal and JSON
/// otherwise (containers). The filter comes from `RUST_LOG`, default `info`.
///
/// Calling it a second time leaves the first subscriber in place.
pub fn init(format: Option<LogFormat>) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let format = format.unwrap_or(if std::io::stderr().is_terminal() {
        LogFormat::Text
    } else {
        LogFormat::Json
    });
    let builder = fmt().with_env_filter(filter).with_writer(std::io::stderr);
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
