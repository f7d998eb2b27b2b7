//! TLS of the REST and gRPC listeners (`--tls-cert`, `--tls-key`; SPEC, Authentication 6):
//! rustls with the ring provider. The certificate and key files are read again every
//! `--tls-reload-interval`, and a changed pair that loads is served to new connections,
//! so a renewal needs no restart; a pair that does not load (half written, a key of
//! another certificate, not PEM) leaves the one in service, with a warning that names
//! the files and never shows their content.

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
pub(crate) use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_stream::wrappers::ReceiverStream;

/// Time a client has to finish its TLS handshake; a connection still shaking hands
/// after it is closed (no client can hold a connection without ever sending a request).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The protocol a listener speaks inside TLS, offered by ALPN.
#[derive(Clone, Copy)]
pub(crate) enum Alpn {
    /// The REST edge and hosted pages: HTTP/1.1 only.
    Http1,
    /// gRPC: HTTP/2 only.
    H2,
}

/// The certificate and key files.
#[derive(Clone, Debug)]
pub(crate) struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Why a certificate and key do not load. Messages name the files, never their content.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TlsError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} holds no PEM certificate")]
    NoCertificate { path: PathBuf },
    #[error("{path} holds no PEM private key (PKCS#8, PKCS#1 or SEC1)")]
    NoKey { path: PathBuf },
    #[error("the key in {key} and the certificate in {cert} do not go together: {source}")]
    Mismatch {
        cert: PathBuf,
        key: PathBuf,
        source: rustls::Error,
    },
    #[error("TLS settings: {0}")]
    Settings(#[from] rustls::Error),
}

/// The certificate served to new connections; replaced when the files change.
#[derive(Debug)]
struct Current(RwLock<Arc<CertifiedKey>>);

impl Current {
    fn get(&self) -> Arc<CertifiedKey> {
        // A writer only swaps an Arc: a poisoned lock still holds a whole certificate.
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn set(&self, certified: CertifiedKey) {
        *self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(certified);
    }
}

impl ResolvesServerCert for Current {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.get())
    }
}

/// The TLS of a process: its files, and the certificate in service.
pub(crate) struct Tls {
    files: TlsFiles,
    provider: Arc<CryptoProvider>,
    current: Arc<Current>,
    /// The digest of the files' content last judged (see [`Tls::reload_every`]).
    judged: Option<[u8; 32]>,
}

impl Tls {
    /// Loads the files; at start, a pair that does not load stops the process.
    pub(crate) fn load(files: TlsFiles) -> Result<Self, TlsError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let cert = read(&files.cert)?;
        let key = read(&files.key)?;
        let certified = certified_key(&files, &cert, &key, &provider)?;
        Ok(Self {
            files,
            provider,
            current: Arc::new(Current(RwLock::new(Arc::new(certified)))),
            judged: Some(fingerprint(&cert, &key)),
        })
    }

    /// An acceptor of TLS connections speaking `alpn`, with the certificate in service
    /// at each handshake.
    pub(crate) fn acceptor(&self, alpn: Alpn) -> Result<TlsAcceptor, TlsError> {
        let mut config = rustls::ServerConfig::builder_with_provider(self.provider.clone())
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_cert_resolver(self.current.clone());
        config.alpn_protocols = vec![match alpn {
            Alpn::Http1 => b"http/1.1".to_vec(),
            Alpn::H2 => b"h2".to_vec(),
        }];
        Ok(TlsAcceptor::from(Arc::new(config)))
    }

    /// Reads the files every `interval` until `stop` resolves, and serves a changed pair
    /// that loads. Each change is judged once: a bad pair is reported once, and tried
    /// again when either file changes (the second half of a renewal, say).
    pub(crate) async fn reload_every(mut self, interval: Duration, stop: impl Future<Output = ()>) {
        tokio::pin!(stop);
        loop {
            tokio::select! {
                () = &mut stop => return,
                () = tokio::time::sleep(interval) => {}
            }
            let (cert, key) = match tokio::join!(
                tokio::fs::read(&self.files.cert),
                tokio::fs::read(&self.files.key)
            ) {
                (Ok(cert), Ok(key)) => (cert, key),
                (Err(source), _) | (_, Err(source)) => {
                    // Once per outage (a renewal may remove and write the files).
                    if self.judged.take().is_some() {
                        tracing::warn!(error = %source, cert = %self.files.cert.display(), key = %self.files.key.display(), "TLS certificate files cannot be read; keeping the certificate in service");
                    }
                    continue;
                }
            };
            let seen = fingerprint(&cert, &key);
            if self.judged.replace(seen) == Some(seen) {
                continue;
            }
            match certified_key(&self.files, &cert, &key, &self.provider) {
                Ok(certified) => {
                    self.current.set(certified);
                    tracing::info!(cert = %self.files.cert.display(), "TLS certificate reloaded");
                }
                Err(error) => tracing::warn!(
                    %error,
                    "TLS certificate files changed but do not load; keeping the certificate in service"
                ),
            }
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.to_owned(),
        source,
    })
}

/// A digest of the files' content, to tell a change without keeping a copy of the key.
fn fingerprint(cert: &[u8], key: &[u8]) -> [u8; 32] {
    let mut digest = Sha256::new();
    digest.update((cert.len() as u64).to_be_bytes());
    digest.update(cert);
    digest.update(key);
    digest.finalize().into()
}

/// The certificate chain and key of the files' content, checked to go together. PEM
/// errors are not passed on: they may quote the files' lines.
fn certified_key(
    files: &TlsFiles,
    cert: &[u8],
    key: &[u8],
    provider: &CryptoProvider,
) -> Result<CertifiedKey, TlsError> {
    let chain = CertificateDer::pem_slice_iter(cert)
        .collect::<Result<Vec<_>, _>>()
        .ok()
        .filter(|chain| !chain.is_empty())
        .ok_or_else(|| TlsError::NoCertificate {
            path: files.cert.clone(),
        })?;
    let key = PrivateKeyDer::from_pem_slice(key).map_err(|_| TlsError::NoKey {
        path: files.key.clone(),
    })?;
    CertifiedKey::from_der(chain, key, provider).map_err(|source| TlsError::Mismatch {
        cert: files.cert.clone(),
        key: files.key.clone(),
        source,
    })
}

/// The TLS handshake of a new connection, within [`HANDSHAKE_TIMEOUT`]; `None` when it
/// fails (a scanner, a client speaking plain HTTP, a client that distrusts us).
pub(crate) async fn handshake(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
) -> Option<TlsStream<TcpStream>> {
    let peer = stream.peer_addr().ok();
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
        Ok(Ok(stream)) => Some(stream),
        Ok(Err(error)) => {
            tracing::debug!(?peer, %error, "TLS handshake failed");
            None
        }
        Err(_) => {
            tracing::debug!(?peer, "TLS handshake timed out");
            None
        }
    }
}

/// The TLS connections of `listener` for the gRPC server, each handshake in a task of
/// its own so that a slow client delays nobody else. Accepting stops when the server
/// drops the stream.
pub(crate) fn incoming(
    listener: TcpListener,
    acceptor: TlsAcceptor,
) -> ReceiverStream<std::io::Result<TlsStream<TcpStream>>> {
    let (sender, receiver) = mpsc::channel(64);
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                () = sender.closed() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    // Out of file descriptors and the like: back off rather than spin.
                    Err(error) => {
                        tracing::warn!(%error, "accepting a gRPC connection");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            // Without TCP_NODELAY, small gRPC replies wait for delayed ACKs.
            let _ = stream.set_nodelay(true);
            let (sender, acceptor) = (sender.clone(), acceptor.clone());
            tokio::spawn(async move {
                if let Some(stream) = handshake(&acceptor, stream).await {
                    let _ = sender.send(Ok(stream)).await;
                }
            });
        }
    });
    ReceiverStream::new(receiver)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path) -> TlsFiles {
        TlsFiles {
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
        }
    }

    #[test]
    fn errors_name_the_files_and_never_show_their_content() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let files = files(dir.path());
        let provider = rustls::crypto::ring::default_provider();
        let secret =
            "-----BEGIN PRIVATE KEY-----\nc2VjcmV0IGtleSBtYXRlcmlhbA==\n-----END PRIVATE KEY";
        for (cert, key) in [
            ("junk", "junk"),
            (secret, secret),
            ("-----BEGIN CERTIFICATE-----\nc2VjcmV0\n", secret),
            // Half written: the key file still empty.
            ("", ""),
        ] {
            let error = certified_key(&files, cert.as_bytes(), key.as_bytes(), &provider)
                .expect_err("refused");
            let message = error.to_string();
            assert!(
                message.contains("cert.pem") || message.contains("key.pem"),
                "{message}"
            );
            assert!(!message.contains("c2Vj"), "{message}");
            // Nothing that reads as PEM in a log either (tests look for it there).
            assert!(!message.contains("BEGIN"), "{message}");
        }
        let Err(missing) = Tls::load(files) else {
            panic!("loaded without files");
        };
        assert!(matches!(missing, TlsError::Read { .. }), "{missing}");
    }
}
