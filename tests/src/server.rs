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

/// Longest wait for the server to print its address.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(20);

/// The line prefix `arbiter serve` prints on standard output once it listens.
pub const LISTENING_PREFIX: &str = "arbiter listening on ";

/// The line prefix `arbiter serve` prints on standard output when `/metrics` listens.
pub const METRICS_PREFIX: &str = "arbiter metrics on ";

/// The line prefix `arbiter serve` prints on standard output when the health listener listens.
pub const HEALTH_PREFIX: &str = "arbiter health on ";

/// How much of the server's standard error is kept for failure messages.
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

/// A running `arbiter serve --grpc-addr 127.0.0.1:0`. Dropping it kills the process if it still
/// runs, so no test leaves a server behind, even when an assertion fails.
#[derive(Debug)]
pub struct Server {
    child: Child,
    addr: SocketAddr,
    metrics_addr: Arc<Mutex<Option<SocketAddr>>>,
    health_addr: Arc<Mutex<Option<SocketAddr>>>,
    stderr: Arc<Mutex<Log>>,
}

impl Server {
    /// Starts the server with default flags.
    ///
    /// # Panics
    ///
    /// Panics when the process cannot be started or prints no address in time.
    #[must_use]
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts the server with extra `arbiter serve` flags (e.g. `["--lame-duck", "1s"]`).
    ///
    /// # Panics
    ///
    /// Panics when the process cannot be started or prints no address within
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
        if let Some(pipe) = child.stderr.take() {
            let kept = Arc::clone(&stderr);
            thread::spawn(move || keep_tail(pipe, &kept));
        }
        let (addr_tx, addr_rx) = mpsc::channel();
        let metrics_addr = Arc::new(Mutex::new(None));
        let health_addr = Arc::new(Mutex::new(None));
        if let Some(pipe) = child.stdout.take() {
            let metrics = Arc::clone(&metrics_addr);
            let health = Arc::clone(&health_addr);
            thread::spawn(move || {
                let mut addr_tx = Some(addr_tx);
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    // Printed before the listening line.
                    if let Some(addr) = line.strip_prefix(METRICS_PREFIX)
                        && let Ok(mut metrics) = metrics.lock()
                    {
                        *metrics = addr.trim().parse().ok();
                    }
                    if let Some(addr) = line.strip_prefix(HEALTH_PREFIX)
                        && let Ok(mut health) = health.lock()
                    {
                        *health = addr.trim().parse().ok();
                    }
                    if let Some(addr) = line.strip_prefix(LISTENING_PREFIX)
                        && let Some(tx) = addr_tx.take()
                    {
                        let _ = tx.send(addr.trim().to_owned());
                    }
                }
            });
        }

        let printed = addr_rx.recv_timeout(STARTUP_TIMEOUT);
        let mut server = Self {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            metrics_addr,
            health_addr,
            stderr,
        };
        match printed {
            Ok(addr) => {
                server.addr = addr.parse().unwrap_or_else(|error| {
                    panic!("the server printed an unreadable address {addr:?}: {error}")
                });
            }
            Err(_) => {
                let status = server.child.try_wait().ok().flatten();
                panic!(
                    "the server printed no {LISTENING_PREFIX:?} line within {STARTUP_TIMEOUT:?} \
                     (exit status: {status:?})\nstderr:\n{}",
                    server.stderr_tail()
                );
            }
        }
        assert!(server.addr.ip().is_loopback(), "bound {}", server.addr);
        assert_ne!(server.addr.port(), 0, "the printed port is the real one");
        server
    }

    /// The address the server listens on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address of `/metrics`, when the server printed one.
    ///
    /// # Panics
    ///
    /// Panics if the output reader thread panicked.
    #[must_use]
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        *self.metrics_addr.lock().expect("metrics address")
    }

    /// The address of the plaintext health listener, when the server printed one.
    ///
    /// # Panics
    ///
    /// Panics if the output reader thread panicked.
    #[must_use]
    pub fn health_addr(&self) -> Option<SocketAddr> {
        *self.health_addr.lock().expect("health address")
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
            .expect("the server printed a metrics address");
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
        format!("http://{}", self.addr)
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
/// counting the lines of each message.
fn keep_tail(pipe: impl Read, log: &Mutex<Log>) {
    for line in BufReader::new(pipe).lines() {
        let Ok(line) = line else { break };
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
    }
}
