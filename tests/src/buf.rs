//! `buf curl`: calls through server reflection with proto3 JSON, as a user would make them.

use std::{io::Write as _, path::PathBuf, process::Command, time::Duration};

use serde_json::Value;

/// Longest time one `buf curl` may take (reflection round trip included).
pub const BUF_TIMEOUT: Duration = Duration::from_secs(60);

/// The `buf` binary to use: `ARBITER_BUF` if set, else `node_modules/.bin/buf` of the
/// workspace (installed, pinned, by `make tools`). `None` means: skip, because
/// `ARBITER_SKIP_BUF=1` is set (this prints that the test was skipped).
///
/// # Panics
///
/// Panics, saying to run `make tools`, when the binary is missing and skipping was not asked for.
#[must_use]
pub fn binary(test: &str) -> Option<PathBuf> {
    if std::env::var("ARBITER_SKIP_BUF").is_ok_and(|value| value == "1") {
        // Straight to the stream, past the test harness's output capture, so it always shows.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: ARBITER_SKIP_BUF=1 is set"
        );
        return None;
    }
    let path = std::env::var_os("ARBITER_BUF").map_or_else(
        || crate::workspace_root().join("node_modules/.bin/buf"),
        PathBuf::from,
    );
    assert!(
        path.is_file(),
        "{test}: no buf binary at {}: run `make tools` (installs the pinned @bufbuild/buf into \
         node_modules/), or set ARBITER_SKIP_BUF=1 to skip the buf curl tests",
        path.display()
    );
    Some(path)
}

/// What one `buf curl` call gave.
#[derive(Debug)]
pub struct Reply {
    /// The process exit code (buf exits with 8 times the gRPC code on an error status).
    pub exit_code: Option<i32>,
    /// Standard output parsed as JSON (the response message), `Null` when empty.
    pub body: Value,
    /// Standard error parsed as JSON (the error status), `Null` when empty or not JSON.
    pub error: Value,
    /// Standard error as text.
    pub stderr: String,
}

/// How `buf curl` reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// gRPC over HTTP/2 (prior knowledge), the schema from server reflection.
    Grpc,
    /// gRPC-Web over HTTP/1.1, as a browser on plaintext `http://` sends it. Server reflection
    /// needs HTTP/2 (buf would switch to it), so the schema is the file given.
    GrpcWebHttp1(&'static std::path::Path),
    /// gRPC-Web over HTTP/2 (prior knowledge), the schema from server reflection (itself called
    /// over gRPC-Web).
    GrpcWebHttp2,
}

impl Protocol {
    fn args(self) -> Vec<std::ffi::OsString> {
        match self {
            Self::Grpc => vec![
                "--protocol".into(),
                "grpc".into(),
                "--http2-prior-knowledge".into(),
            ],
            Self::GrpcWebHttp1(schema) => {
                vec![
                    "--protocol".into(),
                    "grpcweb".into(),
                    "--schema".into(),
                    schema.into(),
                ]
            }
            Self::GrpcWebHttp2 => vec![
                "--protocol".into(),
                "grpcweb".into(),
                "--http2-prior-knowledge".into(),
            ],
        }
    }
}

/// Calls `url` + `/` + `method` (e.g. `arbiter.v1.ArbiterService/ListLegalMoves`) with the JSON
/// request `data`, over gRPC with HTTP/2 prior knowledge, the schema coming from reflection.
///
/// # Panics
///
/// Panics when buf cannot be run, runs too long, or prints something other than JSON on
/// standard output.
#[must_use]
pub fn curl(buf: &std::path::Path, url: &str, method: &str, data: &str) -> Reply {
    curl_over(buf, Protocol::Grpc, url, method, data)
}

/// As [`curl`], over `protocol`.
///
/// # Panics
///
/// As [`curl`].
#[must_use]
pub fn curl_over(
    buf: &std::path::Path,
    protocol: Protocol,
    url: &str,
    method: &str,
    data: &str,
) -> Reply {
    let output = crate::command::run(
        Command::new(buf)
            .current_dir(crate::workspace_root())
            .arg("curl")
            .args(protocol.args())
            .args(["--timeout", "30s", "--data", data])
            .arg(format!("{url}/{method}")),
        BUF_TIMEOUT,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let body = if stdout.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&stdout)
            .unwrap_or_else(|error| panic!("buf printed no JSON ({error}):\n{stdout}\n{stderr}"))
    };
    let error = serde_json::from_str(&stderr).unwrap_or(Value::Null);
    Reply {
        exit_code: output.status.code(),
        body,
        error,
        stderr,
    }
}

/// A file holding the schema the server serves (arbiter.v1, gRPC health, and google.rpc's
/// error details) as one `FileDescriptorSet`, for `buf curl --schema` where reflection cannot
/// be used ([`Protocol::GrpcWebHttp1`]). Written in the temporary directory under a name made of
/// its content's hash, so that runs of the same tree share one file.
///
/// # Panics
///
/// Panics when the file cannot be written.
#[must_use]
pub fn served_schema() -> &'static std::path::Path {
    static SCHEMA: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        use prost::Message as _;
        // Each file once (google/protobuf's files are in more than one set).
        let mut set = prost_types::FileDescriptorSet::default();
        for encoded in [
            arbiter_proto::FILE_DESCRIPTOR_SET,
            tonic_health::pb::FILE_DESCRIPTOR_SET,
            tonic_types::pb::FILE_DESCRIPTOR_SET,
        ] {
            let more = prost_types::FileDescriptorSet::decode(encoded).expect("a descriptor set");
            for file in more.file {
                if !set.file.iter().any(|known| known.name == file.name) {
                    set.file.push(file);
                }
            }
        }
        let bytes = set.encode_to_vec();
        let hash = std::hash::BuildHasher::hash_one(
            &std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default(),
            &bytes,
        );
        let path = std::env::temp_dir().join(format!("arbiter-e2e-schema-{hash:016x}.binpb"));
        if !path.is_file() {
            // Written whole under another name first: another test process may read it.
            let partial = path.with_extension(format!("{}.partial", std::process::id()));
            std::fs::write(&partial, &bytes)
                .and_then(|()| std::fs::rename(&partial, &path))
                .unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
        }
        path
    })
}
