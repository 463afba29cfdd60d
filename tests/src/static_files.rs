//! A static file server on an ephemeral loopback port, for the pages the browser tests load
//! (`examples/web/dist/`): plain HTTP/1.1 `GET`, one thread per connection, `Connection:
//! close`. It runs inside the test process, so there is no port to choose and no process to
//! stop: dropping the [`StaticFiles`] handle stops it.

use std::{
    io::{BufRead, BufReader, Write},
    net::{SocketAddr, TcpListener, TcpStream},
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    thread,
    time::Duration,
};

/// How long a connection may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest request head read.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// A request the server answered: its path (without the query) and the status sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// The path asked for, e.g. `/index.html`.
    pub path: String,
    /// The HTTP status answered: 200, 404 or 405.
    pub status: u16,
}

/// The files of a directory served over HTTP on `127.0.0.1:PORT` until dropped.
#[derive(Debug)]
pub struct StaticFiles {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    served: Arc<Mutex<Vec<Served>>>,
    acceptor: Option<thread::JoinHandle<()>>,
}

impl StaticFiles {
    /// Serves the files under `root` (`/` is `index.html`).
    ///
    /// # Panics
    ///
    /// When `root` is not a directory or no loopback port can be bound.
    #[must_use]
    pub fn serve(root: &Path) -> Self {
        assert!(root.is_dir(), "{} is not a directory", root.display());
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("the bound address");
        let stop = Arc::new(AtomicBool::new(false));
        let served = Arc::new(Mutex::new(Vec::new()));
        let acceptor = {
            let (stop, served, root) = (Arc::clone(&stop), Arc::clone(&served), root.to_owned());
            thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (served, root) = (Arc::clone(&served), root.clone());
                    thread::spawn(move || {
                        if let Some(request) = answer(stream, &root)
                            && let Ok(mut served) = served.lock()
                        {
                            served.push(request);
                        }
                    });
                }
            })
        };
        Self {
            addr,
            stop,
            served,
            acceptor: Some(acceptor),
        }
    }

    /// `http://127.0.0.1:PORT`: the origin of the pages served, as a browser sends it in `Origin`.
    #[must_use]
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests answered so far, in the order they were answered.
    ///
    /// # Panics
    ///
    /// If a connection thread panicked while holding the list.
    #[must_use]
    pub fn served(&self) -> Vec<Served> {
        self.served.lock().expect("served requests").clone()
    }
}

impl Drop for StaticFiles {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the acceptor, which then sees `stop`.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// Reads one request from `stream` and answers it; returns what was asked and answered, or
/// `None` when the connection sent no request (closed, timed out, or too long a head).
fn answer(stream: TcpStream, root: &Path) -> Option<Served> {
    stream.set_read_timeout(Some(REQUEST_TIMEOUT)).ok()?;
    let mut reader = BufReader::new(stream);
    let mut head = Vec::new();
    // The request line and headers, up to the empty line (a GET has no body).
    loop {
        let before = head.len();
        let read = reader.read_until(b'\n', &mut head).ok()?;
        if read == 0 || head.len() > MAX_HEAD_BYTES {
            return None;
        }
        if head[before..] == *b"\r\n" || head[before..] == *b"\n" {
            break;
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut request_line = head.lines().next().unwrap_or_default().split(' ');
    let (method, target) = (request_line.next()?, request_line.next()?);
    let path = target
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .to_owned();

    let (status, content_type, body) = match (method, file(root, &path)) {
        ("GET" | "HEAD", Some(file)) => match std::fs::read(&file) {
            Ok(body) => (200, content_type(&file), body),
            Err(_) => (404, "text/plain", b"not found\n".to_vec()),
        },
        ("GET" | "HEAD", None) => (404, "text/plain", b"not found\n".to_vec()),
        _ => (405, "text/plain", b"method not allowed\n".to_vec()),
    };
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    let mut stream = reader.into_inner();
    let header = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(header.as_bytes());
    if method != "HEAD" {
        let _ = stream.write_all(&body);
    }
    let _ = stream.flush();
    Some(Served { path, status })
}

/// The file under `root` for a request path: plain names only (letters, digits, `-`, `_`, `.`,
/// no `..`), `/` is `index.html`; `None` for anything else or a file that is not there.
fn file(root: &Path, path: &str) -> Option<PathBuf> {
    let relative = path.strip_prefix('/')?;
    let relative = if relative.is_empty() {
        "index.html"
    } else {
        relative
    };
    let plain = relative.split('/').all(|segment| {
        !segment.is_empty()
            && !segment.starts_with('.')
            && segment
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    });
    let file = root.join(relative);
    (plain && file.is_file()).then_some(file)
}

/// The `Content-Type` of a file by its extension.
fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|extension| extension.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}
