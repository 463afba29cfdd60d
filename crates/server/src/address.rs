//! Listening addresses as an operator writes them (`HOST:PORT`) and the socket addresses they
//! stand for.
//!
//! HOST is an IPv4 address (`127.0.0.1`), an IPv6 address in brackets (`[::1]`, `[::]`), or a
//! host name (`localhost`, `arbiter.internal`). A name is resolved once, when the server starts,
//! and the server listens on every address it resolves to: a client that resolves the same name
//! reaches the server whichever of the addresses it tries first. `localhost` and the names under
//! it (`*.localhost`) are the loopback addresses `127.0.0.1` and `[::1]` without asking the
//! resolver (RFC 6761, section 6.3, as curl and browsers do), so they work the same in an image
//! with no `/etc/hosts` or name service libraries; names under `.invalid` fail at once (RFC 6761,
//! section 6.4).

use std::{
    fmt,
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs as _},
    str::FromStr,
};

/// Longest host name accepted, in bytes (DNS's limit for a name written with dots).
pub const MAX_HOST_NAME_BYTES: usize = 253;

/// A listening address as written: a host (an IP address or a name) and a port. Port 0 asks
/// the system for a free port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenAddr {
    host: Host,
    port: u16,
}

/// The host part of a [`ListenAddr`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Host {
    /// An address written as such: nothing to resolve.
    Ip(IpAddr),
    /// A name, resolved when the server starts.
    Name(String),
}

/// Why a text is not a [`ListenAddr`], or a name did not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    /// The text has no `:PORT` part.
    #[error(
        "{text:?} has no port: write HOST:PORT, e.g. 127.0.0.1:50051, [::]:50051 or localhost:50051"
    )]
    NoPort {
        /// The text given.
        text: String,
    },
    /// The port is not a number from 0 to 65535.
    #[error("{text:?}: the port {port:?} is not a number from 0 to 65535")]
    BadPort {
        /// The text given.
        text: String,
        /// The part after the last `:`.
        port: String,
    },
    /// The host part is empty, or neither an IP address nor a host name.
    #[error(
        "{text:?}: {host:?} is not a host: write an IPv4 address, an IPv6 address in brackets \
         ([::1]) or a host name (letters, digits, '-' and '.', at most 253 bytes)"
    )]
    BadHost {
        /// The text given.
        text: String,
        /// The part before the port.
        host: String,
    },
    /// The name resolved to no address, or the resolver failed.
    #[error("cannot resolve {name:?}: {reason}")]
    Unresolved {
        /// The host name.
        name: String,
        /// What the resolver said.
        reason: String,
    },
}

impl FromStr for ListenAddr {
    type Err = AddressError;

    /// Reads `HOST:PORT` (surrounding spaces ignored); resolves nothing.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        if let Ok(addr) = trimmed.parse::<SocketAddr>() {
            return Ok(Self {
                host: Host::Ip(addr.ip()),
                port: addr.port(),
            });
        }
        let Some((host, port)) = trimmed.rsplit_once(':') else {
            return Err(AddressError::NoPort {
                text: text.to_owned(),
            });
        };
        let port = port.parse::<u16>().map_err(|_| AddressError::BadPort {
            text: text.to_owned(),
            port: port.to_owned(),
        })?;
        let bad_host = || AddressError::BadHost {
            text: text.to_owned(),
            host: host.to_owned(),
        };
        let host = if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            Host::Ip(IpAddr::V6(
                inner.parse::<Ipv6Addr>().map_err(|_| bad_host())?,
            ))
        } else if let Ok(ip) = host.parse::<Ipv4Addr>() {
            Host::Ip(IpAddr::V4(ip))
        } else if is_host_name(host) {
            Host::Name(host.to_ascii_lowercase())
        } else {
            return Err(bad_host());
        };
        Ok(Self { host, port })
    }
}

impl fmt::Display for ListenAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            Host::Ip(ip) => SocketAddr::new(*ip, self.port).fmt(f),
            Host::Name(name) => write!(f, "{name}:{}", self.port),
        }
    }
}

impl From<SocketAddr> for ListenAddr {
    fn from(addr: SocketAddr) -> Self {
        Self {
            host: Host::Ip(addr.ip()),
            port: addr.port(),
        }
    }
}

impl ListenAddr {
    /// The port written.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The socket addresses to listen on, in the resolver's order without repeats: the address
    /// itself for an IP address; `127.0.0.1` then `[::1]` for `localhost` and `*.localhost`;
    /// every address the system resolver gives for any other name (blocking: call it at
    /// startup, before serving).
    ///
    /// # Errors
    ///
    /// [`AddressError::Unresolved`] when the resolver fails or finds no address, at once for a
    /// name under `.invalid`.
    pub fn resolve(&self) -> Result<Vec<SocketAddr>, AddressError> {
        let name = match &self.host {
            Host::Ip(ip) => return Ok(vec![SocketAddr::new(*ip, self.port)]),
            Host::Name(name) => name,
        };
        let unresolved = |reason: String| AddressError::Unresolved {
            name: name.clone(),
            reason,
        };
        let bare = name.trim_end_matches('.');
        if bare == "localhost" || bare.ends_with(".localhost") {
            return Ok(vec![
                SocketAddr::from((Ipv4Addr::LOCALHOST, self.port)),
                SocketAddr::from((Ipv6Addr::LOCALHOST, self.port)),
            ]);
        }
        if bare == "invalid" || bare.ends_with(".invalid") {
            return Err(unresolved(
                "names under .invalid never resolve (RFC 6761)".to_owned(),
            ));
        }
        let mut addrs: Vec<SocketAddr> = Vec::new();
        for addr in (name.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|error| unresolved(error.to_string()))?
        {
            if !addrs.contains(&addr) {
                addrs.push(addr);
            }
        }
        if addrs.is_empty() {
            return Err(unresolved("the resolver found no address".to_owned()));
        }
        Ok(addrs)
    }
}

/// Reads an address that may be turned off: `None` for "" or "off" (any case), else as
/// [`ListenAddr::from_str`].
///
/// # Errors
///
/// As [`ListenAddr::from_str`].
pub fn parse_optional(text: &str) -> Result<Option<ListenAddr>, AddressError> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    trimmed.parse().map(Some)
}

/// Whether `text` is a host name as DNS writes them: labels of ASCII letters, digits, `-` and
/// `_` (service names), separated by dots, a trailing dot allowed, at most
/// [`MAX_HOST_NAME_BYTES`] bytes; not all digits and dots (that would be a malformed IPv4
/// address).
fn is_host_name(text: &str) -> bool {
    let name = text.strip_suffix('.').unwrap_or(text);
    !name.is_empty()
        && name.len() <= MAX_HOST_NAME_BYTES
        && !name
            .bytes()
            .all(|byte| byte.is_ascii_digit() || byte == b'.')
        && name.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(text: &str) -> Result<Vec<SocketAddr>, AddressError> {
        text.parse::<ListenAddr>()?.resolve()
    }

    #[test]
    fn ip_addresses_are_taken_as_written() {
        assert_eq!(
            resolved("127.0.0.1:50051"),
            Ok(vec![SocketAddr::from(([127, 0, 0, 1], 50051))])
        );
        assert_eq!(
            resolved(" [::]:0 "),
            Ok(vec![SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0))])
        );
        assert_eq!(
            "[::1]:9090".parse::<ListenAddr>().map(|a| a.to_string()),
            Ok("[::1]:9090".to_owned())
        );
    }

    /// Issue 27 item 8: `--grpc-addr localhost:50051` was refused ("invalid socket address
    /// syntax"). localhost is both loopback addresses, IPv4 first, without the resolver.
    #[test]
    fn r_localhost_is_both_loopback_addresses() {
        let both = vec![
            SocketAddr::from(([127, 0, 0, 1], 50051)),
            SocketAddr::from((Ipv6Addr::LOCALHOST, 50051)),
        ];
        assert_eq!(resolved("localhost:50051"), Ok(both.clone()));
        assert_eq!(resolved("LocalHost.:50051"), Ok(both));
        assert_eq!(
            resolved("arbiter.localhost:0").map(|addrs| addrs.len()),
            Ok(2)
        );
        assert_eq!(
            "localhost:50051"
                .parse::<ListenAddr>()
                .map(|a| a.to_string()),
            Ok("localhost:50051".to_owned())
        );
    }

    #[test]
    fn a_name_that_does_not_resolve_is_named_in_the_error() {
        let error = resolved("nowhere.invalid:50051").expect_err("never resolves");
        assert!(
            matches!(&error, AddressError::Unresolved { name, .. } if name == "nowhere.invalid"),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            "cannot resolve \"nowhere.invalid\": names under .invalid never resolve (RFC 6761)"
        );
    }

    #[test]
    fn malformed_addresses_say_which_part_is_wrong() {
        let error = |text: &str| text.parse::<ListenAddr>().expect_err(text);
        assert!(matches!(error("localhost"), AddressError::NoPort { .. }));
        assert!(matches!(
            error("localhost:http"),
            AddressError::BadPort { .. }
        ));
        assert!(matches!(
            error("localhost:65536"),
            AddressError::BadPort { .. }
        ));
        assert!(matches!(error(":50051"), AddressError::BadHost { .. }));
        assert!(matches!(error("::1:50051"), AddressError::BadHost { .. }));
        assert!(matches!(error("[::g]:50051"), AddressError::BadHost { .. }));
        assert!(matches!(
            error("300.1.1.1:50051"),
            AddressError::BadHost { .. }
        ));
        assert!(matches!(error("a b:50051"), AddressError::BadHost { .. }));
        assert!(matches!(error("-a:50051"), AddressError::BadHost { .. }));
        let long = format!("{}:1", "a.".repeat(128));
        assert!(matches!(error(&long), AddressError::BadHost { .. }));
        assert_eq!(
            error("localhost:http").to_string(),
            "\"localhost:http\": the port \"http\" is not a number from 0 to 65535"
        );
    }

    #[test]
    fn addresses_can_be_turned_off() {
        assert_eq!(parse_optional(""), Ok(None));
        assert_eq!(parse_optional(" OFF "), Ok(None));
        assert_eq!(
            parse_optional("127.0.0.1:9090"),
            Ok(Some(ListenAddr::from(SocketAddr::from((
                [127, 0, 0, 1],
                9090
            )))))
        );
        assert!(parse_optional("nowhere").is_err());
    }
}
