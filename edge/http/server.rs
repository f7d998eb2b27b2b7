//! The REST server's connections: HTTP/1.1 over hyper with the bounds a public
//! endpoint needs, so that no client can hold the server's resources for long:
//! a deadline for each request's headers (which also closes keep-alive connections
//! left idle), a deadline for each request's whole body, and a cap on open connections;
//! over TLS when configured (`tls`), with HSTS and `Secure` cookies on replies to
//! requests that came over HTTPS (`https`).

use crate::http::tls::{self, TlsAcceptor};
use crate::http::{forwarded, https};
use axum::Router;
use axum::body::Body;
use bytes::Bytes;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

/// Bounds on what one client may hold.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Time to send a request's headers; also how long a keep-alive connection may wait
    /// idle for its next request.
    pub header_timeout: Duration,
    /// Time to send a request's whole body, from the end of its headers.
    pub body_timeout: Duration,
    /// Connections open at once; a connection over the cap is closed at once.
    pub max_connections: usize,
}

/// The end client's address, as [`forwarded::client_ip`] tells it; in request extensions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientIp(pub std::net::IpAddr);

/// Whether the request came over HTTPS (a TLS connection, or a trusted proxy that
/// terminated TLS, see [`forwarded::https`]); in request extensions, for pages that show
/// absolute links to this service.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OverHttps(pub bool);

/// The request body did not arrive within [`Limits::body_timeout`].
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive in time")]
pub(crate) struct BodyTimeout;

/// A request body that fails with [`BodyTimeout`] once its deadline passes, and tells
/// whether it was read to its end.
struct DeadlineBody {
    body: Body,
    deadline: Pin<Box<Sleep>>,
    ended: Arc<AtomicBool>,
}

impl http_body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            if frame.is_none() {
                self.ended.store(true, Ordering::Relaxed);
            }
            return Poll::Ready(frame);
        }
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(axum::Error::new(BodyTimeout)))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Whether `error` (from reading a request body) is the body deadline passing.
pub(crate) fn is_body_timeout(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = Some(error);
    while let Some(error) = source {
        if error.is::<BodyTimeout>() {
            return true;
        }
        source = error.source();
    }
    false
}

/// Serves `router` on `listener` until `stop` resolves; then stops accepting and waits
/// for the requests in flight to finish. With `tls`, every connection is TLS (its
/// handshake counts against the connection cap and must finish in time).
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    proxies: forwarded::Proxies,
    tls: Option<TlsAcceptor>,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors and the like: back off rather than spin.
                Err(error) => {
                    tracing::warn!(%error, "accepting a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            tracing::warn!(%peer, max = limits.max_connections, "connection cap reached; closing a new connection");
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection = Connection {
            peer,
            builder: builder.clone(),
            router: router.clone(),
            body_timeout: limits.body_timeout,
            proxies: proxies.clone(),
            // Taken before the handshake: a shutdown waits for a handshake under way (at
            // most its timeout), then ends that connection gracefully like the others.
            watcher: graceful.watcher(),
        };
        let tls = tls.clone();
        tokio::spawn(async move {
            match tls {
                Some(acceptor) => {
                    if let Some(stream) = tls::handshake(&acceptor, stream).await {
                        connection.serve(stream, true).await;
                    }
                }
                None => connection.serve(stream, false).await,
            }
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// One accepted connection, and what serving it needs.
struct Connection {
    peer: SocketAddr,
    builder: hyper::server::conn::http1::Builder,
    router: Router,
    body_timeout: Duration,
    proxies: forwarded::Proxies,
    watcher: Watcher,
}

impl Connection {
    /// Serves the connection's requests (`tls`: it is a TLS connection) until it ends.
    async fn serve<IO>(self, io: IO, tls: bool)
    where
        IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let Self {
            peer,
            builder,
            router,
            body_timeout,
            proxies,
            watcher,
        } = self;
        let service = tower::service_fn(move |req: http::Request<hyper::body::Incoming>| {
            let (mut parts, body) = req.into_parts();
            let client = proxies.client_ip(peer.ip(), &parts.headers);
            parts.extensions.insert(ClientIp(client));
            let over_https = tls || proxies.https(peer.ip(), &parts.headers);
            parts.extensions.insert(OverHttps(over_https));
            let ended = Arc::new(AtomicBool::new(http_body::Body::is_end_stream(&body)));
            let body = DeadlineBody {
                body: Body::new(body),
                deadline: Box::pin(tokio::time::sleep_until(Instant::now() + body_timeout)),
                ended: ended.clone(),
            };
            let answered = router
                .clone()
                .oneshot(http::Request::from_parts(parts, Body::new(body)));
            async move {
                let mut response = answered.await?;
                // A reply sent without reading the request body (a refusal) ends the
                // connection, as hyper does: say so, so that clients do not send their
                // next request on a connection about to close.
                if !ended.load(Ordering::Relaxed) {
                    response.headers_mut().insert(
                        http::header::CONNECTION,
                        http::HeaderValue::from_static("close"),
                    );
                }
                if over_https {
                    https::secure(response.headers_mut());
                }
                Ok::<_, std::convert::Infallible>(response)
            }
        });
        let service = hyper_util::service::TowerToHyperService::new(service);
        let connection = builder.serve_connection(TokioIo::new(io), service);
        if let Err(error) = watcher.watch(connection).await {
            // Time-outs and clients going away are routine on a public endpoint.
            tracing::debug!(%peer, %error, "connection ended");
        }
    }
}
