//! TLS and mutual TLS of the real binary, with certificates made here by `rcgen`: plaintext
//! clients are refused, TLS clients trusting the CA are served, a server asking for client
//! certificates refuses clients without one, and `arbiter health-check` probes over TLS.

use std::{path::Path, process::Command, time::Duration};

use arbiter_e2e::{binary, command, server::Server, within};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

/// PEM files of a CA, a server certificate for "localhost" and 127.0.0.1, and a client
/// certificate, in a fresh temporary directory.
struct Pki {
    dir: std::path::PathBuf,
    ca: String,
    client_cert: String,
    client_key: String,
}

impl Pki {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("arbiter-e2e-tls-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let ca_key = KeyPair::generate().expect("CA key");
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_cert = ca_params.self_signed(&ca_key).expect("CA certificate");
        let issuer = Issuer::new(ca_params, ca_key);

        let server_key = KeyPair::generate().expect("server key");
        let server_cert =
            CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .expect("server params")
                .signed_by(&server_key, &issuer)
                .expect("server certificate");
        let client_key = KeyPair::generate().expect("client key");
        let client_cert = CertificateParams::new(vec!["client".to_owned()])
            .expect("client params")
            .signed_by(&client_key, &issuer)
            .expect("client certificate");

        let write = |file: &str, text: &str| std::fs::write(dir.join(file), text).expect("write");
        write("ca.pem", &ca_cert.pem());
        write("server.pem", &server_cert.pem());
        write("server.key", &server_key.serialize_pem());
        write("client.pem", &client_cert.pem());
        write("client.key", &client_key.serialize_pem());
        Self {
            ca: ca_cert.pem(),
            client_cert: client_cert.pem(),
            client_key: client_key.serialize_pem(),
            dir,
        }
    }

    fn path(&self, file: &str) -> String {
        self.dir.join(file).display().to_string()
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn health(endpoint: Endpoint) -> Result<i32, String> {
    let channel = within("connect", endpoint.connect())
        .await
        .map_err(|error| format!("connect: {error:?}"))?;
    within(
        "Health/Check",
        HealthClient::new(channel).check(HealthCheckRequest::default()),
    )
    .await
    .map(|response| response.into_inner().status)
    .map_err(|status| format!("{status:?}"))
}

fn endpoint(url: String) -> Endpoint {
    Endpoint::from_shared(url)
        .expect("url")
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(5))
}

fn health_check(args: &[&str]) -> (Option<i32>, String) {
    let output = command::run(
        Command::new(binary::arbiter())
            .args(["health-check", "--timeout", "3s"])
            .args(args),
        Duration::from_secs(20),
    );
    (
        output.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

fn exists(path: &str) -> bool {
    Path::new(path).is_file()
}

#[tokio::test]
async fn tls_serves_tls_clients_only() {
    let pki = Pki::new("tls");
    let server = Server::start_with(&[
        "--tls-cert",
        &pki.path("server.pem"),
        "--tls-key",
        &pki.path("server.key"),
    ]);
    let port = server.addr().port();
    // Plaintext is refused.
    assert!(health(endpoint(server.url())).await.is_err());
    // TLS trusting the CA is served.
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&pki.ca))
        .domain_name("localhost");
    let url = format!("https://127.0.0.1:{port}");
    assert_eq!(
        health(endpoint(url.clone()).tls_config(tls).expect("tls")).await,
        Ok(1)
    );
    // A client that does not trust the CA is refused.
    let untrusted = ClientTlsConfig::new().domain_name("localhost");
    assert!(
        health(endpoint(url.clone()).tls_config(untrusted).expect("tls"))
            .await
            .is_err()
    );

    // arbiter health-check over TLS.
    assert!(exists(&pki.path("ca.pem")));
    let (code, out) = health_check(&[
        "--addr",
        &url,
        "--tls-ca",
        &pki.path("ca.pem"),
        "--tls-domain",
        "localhost",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out.trim(), "SERVING");
    let (code, out) = health_check(&["--addr", &server.url()]);
    assert_eq!(code, Some(1), "plaintext probe of a TLS server: {out}");
}

#[tokio::test]
async fn mutual_tls_needs_a_client_certificate() {
    let pki = Pki::new("mtls");
    let server = Server::start_with(&[
        "--tls-cert",
        &pki.path("server.pem"),
        "--tls-key",
        &pki.path("server.key"),
        "--tls-client-ca",
        &pki.path("ca.pem"),
    ]);
    let url = format!("https://127.0.0.1:{}", server.addr().port());
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&pki.ca))
        .domain_name("localhost");
    // Without a client certificate: refused.
    assert!(
        health(endpoint(url.clone()).tls_config(tls.clone()).expect("tls"))
            .await
            .is_err()
    );
    // With one signed by the CA: served.
    let with_cert = tls.identity(Identity::from_pem(&pki.client_cert, &pki.client_key));
    assert_eq!(
        health(endpoint(url.clone()).tls_config(with_cert).expect("tls")).await,
        Ok(1)
    );
    // arbiter health-check with and without a client certificate.
    let base = [
        "--addr",
        url.as_str(),
        "--tls-ca",
        &pki.path("ca.pem"),
        "--tls-domain",
        "localhost",
    ];
    let (code, out) = health_check(&base);
    assert_eq!(code, Some(1), "{out}");
    let mut with_cert = base.to_vec();
    let (cert, key) = (pki.path("client.pem"), pki.path("client.key"));
    with_cert.extend(["--tls-cert", &cert, "--tls-key", &key]);
    let (code, out) = health_check(&with_cert);
    assert_eq!(code, Some(0), "{out}");
}
