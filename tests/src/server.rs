//! A running `arbiter serve` process on an ephemeral loopback port.

use std::{
    collections::BTreeMap,
    io::{BufRead, BufReader, Read},
    net::SocketAddr,
    process::{Child, Command, ExitStatus, Stdio},
    sync::{Arc, Mutex, mpsc},
    thread,
    time::Duration,
};

use arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient;
use tonic::transport::{Channel, Endpoint};

/// Longest wait for the server to log its addresses.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(20);

/// The message of the one log line `arbiter serve` writes once it listens. Its fields
/// `grpc_addr`, `metrics_addr` and `health_addr` name the addresses (a port of 0 resolved),
/// `off` for a listener turned off.
pub const LISTENING_MESSAGE: &str = "arbiter listening";

/// How much of the server's standard error is kept for failure messages, and of its standard
/// output.
const STDERR_KEPT: usize = 16 * 1024;

/// How many distinct log messages [`Server::log_count`] tells apart; the lines of any further
/// message are counted under one key, so that the count stays bounded whatever the server logs.
const MESSAGES_KEPT: usize = 1024;

/// The key under which lines of messages beyond [`MESSAGES_KEPT`] are counted.
const OTHER_MESSAGES: &str = "<other messages>";

/// What the server wrote on standard error: the last few KiB, and how many lines each message
/// had (the `message` of a JSON line, or the whole line), over the life of the process.
#[derive(Debug, Default)]
struct Log {
    tail: String,
    lines_by_message: BTreeMap<String, usize>,
}

/// The addresses of the listening log line ([`LISTENING_MESSAGE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listening {
    /// `grpc_addr`.
    pub grpc: SocketAddr,
    /// `metrics_addr`, `None` when `off`.
    pub metrics: Option<SocketAddr>,
    /// `health_addr`, `None` when `off`.
    pub health: Option<SocketAddr>,
}

/// Reads the listening log line, written as JSON (`--log-format json`) or as text: `None` for any
/// other line, an error naming the field for a listening line whose addresses do not read.
///
/// # Errors
///
/// A field that is missing, or neither an address nor `off` (`grpc_addr` cannot be `off`).
pub fn listening_line(line: &str) -> Option<Result<Listening, String>> {
    let json = serde_json::from_str::<serde_json::Value>(line).ok();
    let field = |name: &str| -> Option<String> {
        match &json {
            // tracing's JSON lines hold the fields at the top (flattened), or under "fields".
            Some(json) => json
                .get(name)
                .or_else(|| json.get("fields").and_then(|fields| fields.get(name)))
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned),
            None => line.split_whitespace().find_map(|word| {
                word.strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix('='))
                    .map(str::to_owned)
            }),
        }
    };
    let is_listening = match &json {
        Some(_) => field("message").as_deref() == Some(LISTENING_MESSAGE),
        None => line.contains(&format!(" {LISTENING_MESSAGE} ")),
    };
    if !is_listening {
        return None;
    }
    let address = |name: &str| -> Result<Option<SocketAddr>, String> {
        let text = field(name).ok_or_else(|| format!("no {name} in {line:?}"))?;
        if text == "off" {
            return Ok(None);
        }
        // A name that stands for two addresses binds both: `127.0.0.1:P, [::1]:P`; the first.
        let first = text.split(", ").next().unwrap_or_default();
        first
            .parse()
            .map(Some)
            .map_err(|error| format!("{name}={text:?} in {line:?}: {error}"))
    };
    Some((|| {
        Ok(Listening {
            grpc: address("grpc_addr")?.ok_or_else(|| format!("grpc_addr off in {line:?}"))?,
            metrics: address("metrics_addr")?,
            health: address("health_addr")?,
        })
    })())
}

/// A running `arbiter serve --grpc-addr 127.0.0.1:0`. Dropping it kills the process if it still
/// runs, so no test leaves a server behind, even when an assertion fails.
#[derive(Debug)]
pub struct Server {
    child: Child,
    listening: Listening,
    stderr: Arc<Mutex<Log>>,
    stdout: Option<thread::JoinHandle<String>>,
}

impl Server {
    /// Starts the server with default flags.
    ///
    /// # Panics
    ///
    /// Panics when the process cannot be started or logs no address in time.
    #[must_use]
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts the server with extra `arbiter serve` flags (e.g. `["--lame-duck", "1s"]`).
    ///
    /// # Panics
    ///
    /// Panics when the process cannot be started or logs no address within
    /// [`STARTUP_TIMEOUT`]; the message includes what it wrote on standard error.
    #[must_use]
    pub fn start_with(args: &[&str]) -> Self {
        let binary = crate::binary::arbiter();
        let mut child = Command::new(binary)
            .args([
                "serve",
                "--grpc-addr",
                "127.0.0.1:0",
                "--log-format",
                "json",
                "--metrics-addr",
                "127.0.0.1:0",
                "--health-addr",
                "127.0.0.1:0",
            ])
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", binary.display()));

        let stderr = Arc::new(Mutex::new(Log::default()));
        let (listening_tx, listening_rx) = mpsc::channel();
        if let Some(pipe) = child.stderr.take() {
            let kept = Arc::clone(&stderr);
            thread::spawn(move || keep_tail(pipe, &kept, &listening_tx));
        }
        // Nothing is expected there; kept (the first STDERR_KEPT bytes) for the tests that say so.
        let stdout = child.stdout.take().map(|pipe| {
            thread::spawn(move || {
                let mut text = String::new();
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    if text.len() < STDERR_KEPT {
                        text.push_str(&line);
                        text.push('\n');
                    }
                }
                text
            })
        });

        let logged = listening_rx.recv_timeout(STARTUP_TIMEOUT);
        let mut server = Self {
            child,
            listening: Listening {
                grpc: SocketAddr::from(([127, 0, 0, 1], 0)),
                metrics: None,
                health: None,
            },
            stderr,
            stdout,
        };
        match logged {
            Ok(Ok(listening)) => server.listening = listening,
            Ok(Err(error)) => panic!("the server logged unreadable addresses: {error}"),
            Err(_) => {
                let status = server.child.try_wait().ok().flatten();
                panic!(
                    "the server logged no {LISTENING_MESSAGE:?} line within {STARTUP_TIMEOUT:?} \
                     (exit status: {status:?})\nstderr:\n{}",
                    server.stderr_tail()
                );
            }
        }
        let addr = server.listening.grpc;
        assert!(addr.ip().is_loopback(), "bound {addr}");
        assert_ne!(addr.port(), 0, "the logged port is the real one");
        server
    }

    /// The address the server listens on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.listening.grpc
    }

    /// The address of `/metrics`, `None` when metrics are off.
    #[must_use]
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.listening.metrics
    }

    /// The address of the plaintext health listener, `None` when it is off.
    #[must_use]
    pub fn health_addr(&self) -> Option<SocketAddr> {
        self.listening.health
    }

    /// The text of `GET /metrics` (a plain HTTP/1.1 request over a socket).
    ///
    /// # Panics
    ///
    /// Panics when metrics are off or the endpoint does not answer 200 within
    /// [`crate::CALL_TIMEOUT`].
    #[must_use]
    pub fn scrape(&self) -> String {
        use std::io::Write as _;
        let addr = self
            .metrics_addr()
            .expect("the server logged a metrics address");
        let mut stream = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(10))
            .unwrap_or_else(|error| panic!("cannot connect to {addr}: {error}"));
        stream
            .set_read_timeout(Some(crate::CALL_TIMEOUT))
            .expect("read timeout");
        stream
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\nConnection: close\r\n\r\n")
            .expect("send the request");
        let mut response = String::new();
        stream
            .read_to_string(&mut response)
            .unwrap_or_else(|error| panic!("cannot read /metrics: {error}"));
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        assert!(head.starts_with("HTTP/1.1 200"), "GET /metrics: {head}");
        body.to_owned()
    }

    /// `http://127.0.0.1:PORT`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.addr())
    }

    /// The process id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The last few KiB the server wrote on standard error (its logs).
    ///
    /// # Panics
    ///
    /// Panics if the log reader thread panicked.
    #[must_use]
    pub fn stderr_tail(&self) -> String {
        self.stderr.lock().expect("stderr buffer").tail.clone()
    }

    /// What the server wrote on standard output over its whole life (the first 16 KiB). Waits
    /// for the output to end: call it after the process exited ([`Server::exited`]).
    ///
    /// # Panics
    ///
    /// Panics when called twice, or if the output reader thread panicked.
    pub fn stdout_after_exit(&mut self) -> String {
        self.stdout
            .take()
            .expect("standard output is read once")
            .join()
            .expect("the standard output reader")
    }

    /// How many lines the server has written on standard error so far whose message (the
    /// `message` of a JSON log line, the whole line otherwise) contains `needle`. Unlike
    /// [`Server::stderr_tail`], this counts every line since the start, however many there were.
    ///
    /// # Panics
    ///
    /// Panics if the log reader thread panicked.
    #[must_use]
    pub fn log_count(&self, needle: &str) -> usize {
        self.stderr
            .lock()
            .expect("stderr buffer")
            .lines_by_message
            .iter()
            .filter(|(message, _)| message.contains(needle))
            .map(|(_, lines)| lines)
            .sum()
    }

    /// A connected channel to the server.
    ///
    /// # Panics
    ///
    /// Panics when no connection is made within [`crate::CALL_TIMEOUT`].
    pub async fn channel(&self) -> Channel {
        let endpoint = Endpoint::from_shared(self.url())
            .expect("a valid URL")
            .connect_timeout(Duration::from_secs(10))
            .timeout(crate::CALL_TIMEOUT);
        crate::within("connect", endpoint.connect())
            .await
            .unwrap_or_else(|error| panic!("cannot connect to {}: {error}", self.url()))
    }

    /// A connected `arbiter.v1.ArbiterService` client.
    ///
    /// # Panics
    ///
    /// As [`Server::channel`].
    pub async fn client(&self) -> ArbiterServiceClient<Channel> {
        ArbiterServiceClient::new(self.channel().await)
    }

    /// Sends a signal (`"TERM"`, `"INT"`, ...) to the server with `kill -SIG PID`.
    ///
    /// # Panics
    ///
    /// Panics when `kill` fails.
    pub fn signal(&self, signal: &str) {
        let output = crate::command::run(
            Command::new("kill")
                .arg(format!("-{signal}"))
                .arg(self.pid().to_string()),
            Duration::from_secs(10),
        );
        assert!(
            output.status.success(),
            "kill -{signal} {} failed: {}",
            self.pid(),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Waits at most `timeout` for the process to exit and returns its status.
    ///
    /// # Panics
    ///
    /// Panics (after killing it) when the process still runs at the deadline.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        crate::command::wait(&mut self.child, timeout).unwrap_or_else(|| {
            panic!(
                "the server did not exit within {timeout:?} and was killed\nstderr:\n{}",
                self.stderr_tail()
            )
        })
    }
}

impl Server {
    /// Waits at most `timeout` for the process to exit, without blocking the async runtime (so
    /// that this process's own connections to the server can still close), and returns its
    /// status.
    ///
    /// # Panics
    ///
    /// Panics (after killing it) when the process still runs at the deadline.
    pub async fn exited(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status,
                Ok(None) if tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Ok(None) | Err(_) => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    panic!(
                        "the server did not exit within {timeout:?} and was killed\nstderr:\n{}",
                        self.stderr_tail()
                    );
                }
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Copies `pipe` into `log`, keeping only the last [`STDERR_KEPT`] bytes or so of text, and
/// counting the lines of each message; sends the addresses of the first listening line to
/// `listening`.
fn keep_tail(
    pipe: impl Read,
    log: &Mutex<Log>,
    listening: &mpsc::Sender<Result<Listening, String>>,
) {
    let mut listening = Some(listening);
    for line in BufReader::new(pipe).lines() {
        let Ok(line) = line else { break };
        // Sent once the line is in the log, so that the tests see it there.
        let addresses = listening_line(&line);
        let message = serde_json::from_str::<serde_json::Value>(&line)
            .ok()
            .and_then(|json| {
                // tracing's JSON lines put the message at the top, or under "fields".
                json.get("message")
                    .or_else(|| json.get("fields").and_then(|fields| fields.get("message")))
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| line.clone());
        let Ok(mut log) = log.lock() else { break };
        let Log {
            tail,
            lines_by_message,
        } = &mut *log;
        let key =
            if lines_by_message.len() < MESSAGES_KEPT || lines_by_message.contains_key(&message) {
                message
            } else {
                OTHER_MESSAGES.to_owned()
            };
        *lines_by_message.entry(key).or_default() += 1;
        tail.push_str(&line);
        tail.push('\n');
        if tail.len() > 2 * STDERR_KEPT {
            let mut cut = tail.len() - STDERR_KEPT;
            while !tail.is_char_boundary(cut) {
                cut += 1;
            }
            tail.drain(..cut);
        }
        drop(log);
        if let Some(addresses) = addresses
            && let Some(tx) = listening.take()
        {
            let _ = tx.send(addresses);
        }
    }
}
